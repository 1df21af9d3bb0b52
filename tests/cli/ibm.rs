//! `--backend ibm:DEVICE` against a real `qchess serve` on 127.0.0.1 (its IBM Quantum stand-in):
//! games routed onto ibm_fez give the local probabilities within sampling error, `qchess
//! compare` agrees with the local simulator, tokens that expire mid-game are exchanged again, and
//! bad specs and unknown devices exit with code 2.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::{Run, Served};

pub(crate) const KEY: &str = "ibm-test-key";

/// `qchess ARGS` with the IBM flags pointing at `served`.
pub(crate) fn on_serve(served: &Served, args: &[&str]) -> Command {
    with_key(served, KEY, args)
}

/// `qchess ARGS` with the IBM flags pointing at `served` and this API key.
fn with_key(served: &Served, key: &str, args: &[&str]) -> Command {
    let mut command = crate::common::command();
    command.args(args).args(["--ibm-url", &served.url, "--ibm-api-key", key, "--ibm-crn", "crn:v1:qchess:test"]);
    command.env_remove("QISKIT_IBM_TOKEN").env_remove("QISKIT_IBM_INSTANCE").env_remove("QCHESS_IBM_URL");
    command
}

pub(crate) fn run(mut command: Command) -> Run {
    let output = command.output().expect("qchess runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `qchess serve` requiring the key, its tokens living `token_seconds`.
fn serve(token_seconds: u64) -> Served {
    serve_with(token_seconds, &[])
}

/// `qchess serve` requiring the key, its tokens living `token_seconds`, with `extra` flags.
pub(crate) fn serve_with(token_seconds: u64, extra: &[&str]) -> Served {
    let lifetime = token_seconds.to_string();
    let mut command = crate::common::command();
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--seed", "7", "--api-key", KEY])
        .args(extra)
        .env("QCHESS_SERVE_IBM_TOKEN_SECONDS", &lifetime)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().expect("qchess serve starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("piped")).read_line(&mut first).expect("reads the first line");
    let url = first.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("first line: {first:?}")).to_owned();
    Served { child, url }
}

/// Every square's probability in a game report.
fn probabilities(report: &Value) -> Vec<(String, f64)> {
    report["probabilities"]
        .as_object()
        .expect("probabilities")
        .iter()
        .map(|(square, p)| (square.clone(), p.as_f64().expect("a number")))
        .collect()
}

/// Each square within 6 binomial sigmas of `shots` shots of the exact value (p < 1e-8 per
/// square), and certain squares exactly.
fn assert_within_sampling_error(sampled: &Value, exact: &Value, shots: f64) {
    let exact: std::collections::BTreeMap<String, f64> = probabilities(exact).into_iter().collect();
    for (square, p) in probabilities(sampled) {
        let q = exact[&square];
        if q == 0.0 || q == 1.0 {
            assert_eq!(p, q, "{square} is certain");
        } else {
            let sigma = (q * (1.0 - q) / shots).sqrt();
            assert!((p - q).abs() <= 6.0 * sigma, "{square}: {p} vs exact {q} (sigma {sigma})");
        }
    }
}

/// `moves` played with `qchess game` on the exact local board and on the IBM stand-in's ibm_fez
/// (2000 shots): the sampled game's JSON, then the exact one's.
fn played_locally_and_on_ibm_fez(moves: &str) -> (serde_json::Value, serde_json::Value) {
    let served = serve(3600);
    let local = run({
        let mut c = crate::common::command();
        c.args(["game", "--json", "--moves", moves]);
        c
    });
    assert_eq!(local.code, Some(0), "{}", local.stderr);
    let remote =
        run(on_serve(&served, &["game", "--json", "--backend", "ibm:ibm_fez", "--shots", "2000", "--moves", moves]));
    assert_eq!(remote.code, Some(0), "{}", remote.stderr);
    (remote.json(), local.json())
}

#[test]
fn a_game_on_ibm_fez_gives_the_local_probabilities() {
    let (sampled, exact) = played_locally_and_on_ibm_fez("b1^a3c3 g8^f6h6 c3d5 b8^a6c6");
    // Three independent halves: a3/d5, f6/h6 and a6/c6 each hold 1/2.
    for square in ["a3", "d5", "f6", "h6", "a6", "c6"] {
        let p = exact["probabilities"][square].as_f64().expect("a number");
        assert!((p - 0.5).abs() < 1e-12, "{square}: {p}");
    }
    assert_within_sampling_error(&sampled, &exact, 2000.0);
    assert_eq!(sampled["fen"], exact["fen"]);
}

/// A measured move is post-selected on the device's samples: the pawn steps to f3 only where the
/// knight went to h3. The device measures f3's qubit mid-circuit, resets it and gives it to a half
/// of the next split (c6 to d4 and e5), so the post-selection reads the classical bit.
#[test]
fn a_measured_move_on_ibm_fez_is_post_selected() {
    let (sampled, exact) = played_locally_and_on_ibm_fez("g1^f3h3 b8^a6c6 f2f3.m1 c6^d4e5");
    assert_eq!(sampled["moves"][2]["proceeded"], true);
    assert_eq!(sampled["fen"], exact["fen"]);
    // About half of the 2000 shots survive the f3 outcome; fewer than 800 would be a 9 sigma
    // event, so 800 bounds the sigma from above.
    assert_within_sampling_error(&sampled, &exact, 800.0);
}

#[test]
fn compare_finds_ibm_fez_agrees_with_the_local_simulator() {
    let served = serve(3600);
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut args =
        vec!["compare", "--json", "--bootstrap", "200", "--backend", "local", "--vs", "ibm:ibm_fez", "--record"];
    let records: Vec<String> = ["official-split-merge.pgn", "capture-superposed-m1.pgn", "excluded-pawn-step.pgn"]
        .iter()
        .map(|name| examples.join(name).display().to_string())
        .collect();
    args.extend(records.iter().map(String::as_str));
    let compared = run(on_serve(&served, &args));
    let report = compared.json();
    assert_eq!(compared.code, Some(0), "{}\n{report:#}", compared.stderr);
    assert_eq!(report["verdict"], "agree", "{report:#}");
    assert!(report["tests"].as_u64().expect("tests") >= 3, "{report:#}");
    assert!(report["vs"].as_str().is_some_and(|vs| vs.starts_with("ibm:ibm_fez (156 qubits")), "{report:#}");
}

/// Tokens live one second; the second move comes after the first token expired, so the game
/// goes on only if the client exchanges the key again.
#[test]
fn a_token_that_expires_mid_game_is_exchanged_again() {
    let served = serve(1);
    let mut command = on_serve(&served, &["play", "--json", "--black", "human", "--backend", "ibm:ibm_fez"]);
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("qchess runs");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"b1^a3c3\n").expect("writes");
    stdin.flush().expect("flushes");
    std::thread::sleep(Duration::from_millis(1500));
    stdin.write_all(b"g8^f6h6\n").expect("writes");
    drop(stdin);
    let output = child.wait_with_output().expect("qchess finishes");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let positions: Vec<Value> = stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["event"] == "position")
        .collect();
    let last = positions.last().expect("a position");
    assert_eq!(last["ply"], 2, "{stdout}");
    assert!(!stdout.contains("\"error\""), "{stdout}");
    for square in ["a3", "c3", "f6", "h6"] {
        let p = last["probabilities"][square].as_f64().expect("a number");
        // 1000 shots: sigma 0.0158, 6 sigma.
        assert!((p - 0.5).abs() <= 0.095, "{square}: {p}");
    }
}

/// `--max-response-bytes` bounds IBM's answers as it bounds IonQ's: ibm_fez's configuration
/// (85 kB) is refused under a 4 kB cap.
#[test]
fn max_response_bytes_caps_ibm_answers() {
    let served = serve(3600);
    let capped = run(on_serve(
        &served,
        &["game", "--backend", "ibm:ibm_fez", "--max-response-bytes", "4096", "--moves", "b1^a3c3"],
    ));
    assert_eq!(capped.code, Some(1), "{}", capped.stderr);
    assert!(
        capped.stderr.contains("larger than 4096 bytes") && capped.stderr.contains("--max-response-bytes"),
        "{}",
        capped.stderr
    );
}

/// How often an X on ibm_fez's qubit 87 reads 0 in `shots` shots on `served`.
fn x_read_as_zero(served: &Served, shots: u64) -> usize {
    use qchess_remote::config::ApiKey;
    use qchess_remote::ibm::{IbmClient, IbmConfig};

    let config = IbmConfig::new(ApiKey::new(KEY).expect("a key"), "crn:v1:qchess:test", "ibm_fez").at(&served.url);
    let client = IbmClient::new(config).expect("a client");
    let x = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[1] c;\nx q[87];\nc[0] = measure q[87];\n";
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let result = runtime.block_on(client.run(x, shots)).expect("runs");
    result.counts("c").expect("register c").get(&0).copied().unwrap_or(0) as usize
}

/// `--ibm-noise device` reaches the stand-in: qubit 87's 1.9% readout error shows (about 380 of
/// 20000 shots; fewer than 100 would be a 14 sigma event), and the default ideal mode reads none.
#[test]
fn ibm_noise_device_applies_the_calibration_and_ideal_is_the_default() {
    let noisy = serve_with(3600, &["--ibm-noise", "device"]);
    let zeros = x_read_as_zero(&noisy, 20_000);
    assert!((100..=700).contains(&zeros), "{zeros} of 20000 read 0");
    assert_eq!(x_read_as_zero(&serve(3600), 20_000), 0, "the default is ideal");

    let bad = run({
        let mut c = crate::common::command();
        c.args(["serve", "--addr", "127.0.0.1:0", "--ibm-noise", "noisy"]);
        c
    });
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert!(bad.stderr.contains("expected device or ideal"), "{}", bad.stderr);
}

#[test]
fn bad_specs_and_unknown_devices_exit_2() {
    let bare = run({
        let mut c = crate::common::command();
        c.args(["game", "--backend", "ibm:", "--moves", "b1^a3c3"]);
        c
    });
    assert_eq!(bare.code, Some(2), "{}", bare.stderr);
    assert!(bare.stderr.contains("`ibm:` names no device"), "{}", bare.stderr);

    let served = serve(3600);
    let unknown = run(on_serve(&served, &["game", "--backend", "ibm:ibm_nowhere", "--moves", "b1^a3c3"]));
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(unknown.stderr.contains("IBM Quantum has no device `ibm_nowhere`"), "{}", unknown.stderr);

    let refused = run(with_key(&served, "wrong-key", &["game", "--backend", "ibm:ibm_fez", "--moves", "b1^a3c3"]));
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(refused.stderr.contains("backend `ibm:ibm_fez`"), "{}", refused.stderr);

    let options = run({
        let mut c = crate::common::command();
        c.args(["compare", "--vs", "ibm:ibm_fez,target=qpu.aria-1", "--moves", "b1^a3c3"]);
        c
    });
    assert_eq!(options.code, Some(2), "{}", options.stderr);
    assert!(options.stderr.contains("takes no target= or noise= option"), "{}", options.stderr);
}
