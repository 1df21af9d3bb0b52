//! `--backend braket:DEVICE` against a real `qchess serve` on 127.0.0.1 (its Amazon Braket
//! stand-in): a game on IQM Garnet passes the compare gate against the local exact run, a kept
//! game detached mid-task resumes from its task ARN, `qchess compile --target braket:DEVICE`
//! output passes the stand-in's verbatim check, and every bad input exits 1 or 2 with its
//! cause: an unknown device, a device offline, a region that is not the ARN's, no credentials
//! (naming where it looked), expired credentials, a refused key, a task that fails.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use qchess_remote::braket::{BraketClient, BraketConfig, Environment};
use qchess_remote::retry::Deadline;

use crate::common::{Run, Served};

const KEY: &str = "AKIDQCHESSCLI";
const SECRET: &str = "braket-cli-secret";
const MOVES: &str = "b1^a3c3 e7e6 a3c3^b5";

/// The stand-in with the test key pair, Emerald offline, and `extra` flags.
fn serve(extra: &[&str]) -> Served {
    let flags = ["--aws-access-key-id", KEY, "--aws-secret-access-key", SECRET, "--braket-offline", "iqm-emerald"];
    Served::start(&[&flags[..], extra].concat())
}

/// `qchess ARGS` pointed at `served` with no AWS settings of its own but `vars` and a home
/// directory of `home`.
fn on_serve(served: &Served, home: &Path, vars: &[(&str, &str)], args: &[&str]) -> Run {
    let mut command: Command = crate::common::command();
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("AWS_")) {
        command.env_remove(name);
    }
    command
        .args(args)
        .env("HOME", home)
        .env("AWS_ENDPOINT_URL_BRAKET", format!("{}/braket", served.url))
        .env("AWS_ENDPOINT_URL_S3", format!("{}/s3", served.url))
        .env("AWS_ENDPOINT_URL_STS", format!("{}/sts", served.url))
        .envs(vars.iter().copied())
        .stdin(std::process::Stdio::null());
    let output = command.output().expect("qchess runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

const KEYS: [(&str, &str); 2] = [("AWS_ACCESS_KEY_ID", KEY), ("AWS_SECRET_ACCESS_KEY", SECRET)];

#[test]
fn a_garnet_game_passes_the_compare_gate_and_a_kept_game_resumes_from_its_task() {
    let served = serve(&["--seed", "4"]);
    let home = tempfile::tempdir().expect("a home");
    let compared = on_serve(
        &served,
        home.path(),
        &KEYS,
        &["compare", "--backend", "local", "--vs", "braket:iqm-garnet", "--moves", MOVES, "--shots", "2000", "--json"],
    );
    assert_eq!(compared.code, Some(0), "{}\n{}", compared.stdout, compared.stderr);
    assert_eq!(compared.json()["agree"], true, "{}", compared.stdout);

    let queued = serve(&["--queue-delay-ms", "2500"]);
    let db = home.path().join("kept.db");
    let db = db.to_str().expect("a path");
    let args = ["game", "--store", "--db", db, "--moves", MOVES, "--backend", "braket:iqm-garnet", "--timeout", "1"];
    let first = on_serve(&queued, home.path(), &KEYS, &args);
    assert_eq!(first.code, Some(1), "{}", first.stderr);
    let text = format!("{}{}", first.stdout, first.stderr);
    let id = text.split("game ").nth(1).map(|rest| rest[..12].to_owned()).expect("the kept game's id");
    let shown = on_serve(&queued, home.path(), &KEYS, &["games", "show", &id, "--db", db, "--json"]);
    let job = shown.json()["job"]["job_id"].as_str().unwrap_or_default().to_owned();
    assert!(job.starts_with("arn:aws:braket:eu-north-1:123456789012:quantum-task/"), "{}", shown.stdout);
    let resumed = on_serve(&queued, home.path(), &KEYS, &["games", "resume", &id, "--db", db]);
    assert_eq!(resumed.code, Some(0), "{}{}", resumed.stdout, resumed.stderr);
    let shown = on_serve(&queued, home.path(), &KEYS, &["games", "show", &id, "--db", db, "--json"]);
    assert!(shown.json()["record"].as_str().is_some_and(|r| r.contains("1. b1^a3c3")), "{}", shown.stdout);
    assert_eq!(shown.json()["jobs"].as_array().map(Vec::len), Some(1), "one task, never a second");
}

#[test]
fn compiled_programs_pass_the_stand_ins_verbatim_check() {
    let served = serve(&[]);
    let env = Environment::of(&[
        KEYS[0],
        KEYS[1],
        ("AWS_ENDPOINT_URL_BRAKET", &format!("{}/braket", served.url)),
        ("AWS_ENDPOINT_URL_S3", &format!("{}/s3", served.url)),
        ("AWS_ENDPOINT_URL_STS", &format!("{}/sts", served.url)),
    ]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    for device in ["iqm-garnet", "rigetti-ankaa-3", "rigetti-cepheus-1-108q", "ionq-forte-enterprise-1"] {
        let compiled = crate::common::qchess(&[
            "compile",
            "--position",
            "startpos",
            "--moves",
            MOVES,
            "--target",
            &format!("braket:{device}"),
            "--format",
            "qasm3",
            "--json",
        ]);
        assert_eq!(compiled.code, Some(0), "{device}: {}", compiled.stderr);
        let source = compiled.json()["qasm"].as_str().expect("the program").to_owned();
        let config = BraketConfig::from_environment(device, None, &env, 0).expect("a configuration");
        let client = BraketClient::new(config.with_output("qchess-compiled").expect("a bucket")).expect("a client");
        let created =
            runtime.block_on(client.create_task(&source, 10, device, Deadline::after(Duration::from_secs(30))));
        assert!(created.is_ok(), "{device}: {created:?}");
    }
}

#[test]
fn bad_input_exits_with_its_cause() {
    let served = serve(&[]);
    let home = tempfile::tempdir().expect("a home");
    let game = |vars: &[(&str, &str)], backend: &str, extra: &[&str]| {
        on_serve(&served, home.path(), vars, &[&["game", "--moves", MOVES, "--backend", backend][..], extra].concat())
    };
    let expect = |run: Run, code: i32, says: &str| {
        assert_eq!(run.code, Some(code), "{says}: {}", run.stderr);
        assert!(run.stderr.contains(says), "wanted `{says}` in: {}", run.stderr);
    };
    expect(game(&KEYS, "braket:arn:aws:braket:eu-north-1::device/qpu/iqm/Nowhere", &[]), 2, "not found");
    expect(game(&KEYS, "braket:iqm-emerald", &[]), 1, "is OFFLINE");
    expect(game(&KEYS, "braket:iqm-garnet", &["--aws-region", "us-east-1"]), 2, "does not match device");
    expect(game(&[], "braket:iqm-garnet", &[]), 2, ".aws/credentials");
    let wrong = [("AWS_ACCESS_KEY_ID", KEY), ("AWS_SECRET_ACCESS_KEY", "not the secret")];
    expect(game(&wrong, "braket:iqm-garnet", &[]), 2, "signature");
    let process = home.path().join("expired.sh");
    let json = r#"{"Version": 1, "AccessKeyId": "AKIDQCHESSCLI", "SecretAccessKey": "braket-cli-secret", "Expiration": "2020-01-01T00:00:00Z"}"#;
    std::fs::write(&process, format!("#!/bin/sh\necho '{json}'\n")).expect("written");
    std::fs::create_dir_all(home.path().join(".aws")).expect("a directory");
    let config = format!("[profile old]\ncredential_process = sh {}\n", process.display());
    std::fs::write(home.path().join(".aws").join("config"), config).expect("written");
    expect(game(&[("AWS_PROFILE", "old")], "braket:iqm-garnet", &[]), 2, "expired at 2020-01-01T00:00:00Z");

    let limited = serve(&["--time-limit", "0.000001"]);
    let failed = on_serve(&limited, home.path(), &KEYS, &["game", "--moves", MOVES, "--backend", "braket:iqm-garnet"]);
    assert_eq!(failed.code, Some(1), "{}", failed.stderr);
    assert!(failed.stderr.contains("FAILED") && failed.stderr.contains("--time-limit"), "{}", failed.stderr);
}

#[test]
fn the_web_boards_games_run_on_a_braket_device() {
    let standin = serve(&[]);
    let home = tempfile::tempdir().expect("a home");
    let mut command = crate::common::command();
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("AWS_")) {
        command.env_remove(name);
    }
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--game-backend", "braket:iqm-garnet", "--seed", "5"])
        .env("HOME", home.path())
        .envs(KEYS)
        .env("AWS_ENDPOINT_URL_BRAKET", format!("{}/braket", standin.url))
        .env("AWS_ENDPOINT_URL_S3", format!("{}/s3", standin.url))
        .env("AWS_ENDPOINT_URL_STS", format!("{}/sts", standin.url))
        .stderr(std::process::Stdio::null());
    let board = Served::from_command(command);
    let http = reqwest::blocking::Client::new();
    let options: serde_json::Value =
        http.get(format!("{}/api/options", board.url)).send().expect("answers").json().expect("JSON");
    let remote = &options["backends"][1];
    assert!(
        remote["id"] == "remote" && remote["label"].as_str().is_some_and(|l| l.starts_with("braket:iqm-garnet")),
        "{options}"
    );
    let body = serde_json::json!({ "backend": "remote", "white": "human", "black": "human" });
    let game: serde_json::Value =
        http.post(format!("{}/api/games", board.url)).json(&body).send().expect("answers").json().expect("JSON");
    let token = game["seats"]["white"]["token"].as_str().expect("a seat");
    let id = game["id"].as_str().expect("an id");
    let moved = http
        .post(format!("{}/api/games/{id}/moves", board.url))
        .bearer_auth(token)
        .json(&serde_json::json!({ "move": "b1^a3c3" }))
        .send()
        .expect("answers");
    assert_eq!(moved.status(), 200);
    let state: serde_json::Value = moved.json().expect("JSON");
    // Half a knight on a3, from the default 1000 shots: within 5.5 standard errors.
    let a3 = state["squares"]["a3"]["probability"].as_f64().expect("a probability");
    assert!((a3 - 0.5).abs() < 5.5 * (0.25f64 / 1000.0).sqrt(), "{a3}");
}
