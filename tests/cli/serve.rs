//! `qchess serve`: the real binary on 127.0.0.1 with a free port, driven by the remote board,
//! the provider client and plain HTTP.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use qchess_core::{Bitboard, QuantumBoard, Square, TypedMove};
use qchess_remote::config::{ApiKey, PollPolicy, ProviderConfig, RetryPolicy};
use qchess_remote::{IonqClient, Mitigation, RemoteBoard, RemoteBoardConfig, RemoteError};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use serde_json::{Value, json};

use crate::common::{Served, qchess};

/// What these tests need of a server beyond its URL.
impl Served {
    fn provider(&self) -> ProviderConfig {
        ProviderConfig::new(&format!("{}/v0.4", self.url))
            .expect("valid URL")
            .with_api_key(ApiKey::new("test").expect("valid key"))
            .with_progress(false)
            .with_cancel_on_interrupt(false)
            .with_poll(PollPolicy { initial: Duration::from_millis(2), max: Duration::from_millis(20) })
            .with_retry(RetryPolicy {
                max_retries: 8,
                base_delay: Duration::from_millis(20),
                max_delay: Duration::from_secs(2),
            })
            .with_overall_timeout(Duration::from_secs(120))
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }
}

fn mv(text: &str) -> TypedMove {
    text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A game of typed moves from the start position: splits, merges, slides through superposed
/// squares, excluded moves and captures, with forced and random outcomes.
const GAME: [&str; 15] = [
    "g1^f3h3:SPLIT_JUMP:BASIC",
    "b8^a6c6:SPLIT_JUMP:BASIC",
    "e2e4:PAWN_TWO_STEP:BASIC",
    "c6d4:JUMP:BASIC",
    "f3d4.m1:JUMP:CAPTURE",
    "g8^f6h6:SPLIT_JUMP:BASIC",
    "f1c4:SLIDE:BASIC",
    "f6e4:JUMP:CAPTURE",
    "d1^e2f3:SPLIT_SLIDE:BASIC",
    "a6b4:JUMP:BASIC",
    "e2f3^g4:MERGE_SLIDE:BASIC",
    "b4c2:JUMP:CAPTURE",
    "h6g4:JUMP:CAPTURE",
    "d7d5:PAWN_TWO_STEP:BASIC",
    "c4d5:SLIDE:CAPTURE",
];

#[test]
fn remote_board_on_the_ideal_simulator_matches_the_local_board_exactly() {
    let served = Served::start(&["--api-key", "test"]);
    let start = Bitboard(0xFFFF_0000_0000_FFFF);
    let config = RemoteBoardConfig { seed: 11, ..RemoteBoardConfig::new(served.provider()) };
    let mut remote = RemoteBoard::new(start, config).expect("board");
    let mut local = LocalBoard::with_options(start, LocalBoardOptions::default());
    let mut measured = 0;
    for text in GAME {
        let report = remote.apply(&mv(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
        // Replay the remote's outcome on the exact board.
        let expected = local.apply(&mv(text).with_outcome(report.outcome)).expect("local");
        assert_eq!(report.proceeded, expected.proceeded, "{text}");
        match (report.outcome_probability, expected.outcome_probability) {
            (Some(a), Some(b)) => {
                measured += 1;
                assert!((a - b).abs() < 1e-9, "{text}: {a} vs {b}");
            }
            // Once every square is certain the remote board restarts its circuit, so a square the
            // local board still measures with certainty is classical there.
            (None, Some(b)) => assert!((b - 1.0).abs() < 1e-9, "{text}: local probability {b}"),
            (a, b) => assert_eq!(a.is_some(), b.is_some(), "{text}"),
        }
        let jobs = remote.jobs_submitted();
        let got = remote.square_probabilities().expect("remote probabilities");
        assert!(got.standard_errors.is_none(), "the ideal simulator is exact");
        let want = local.square_probabilities().expect("local probabilities");
        for square in Square::ALL {
            assert!(
                (got.get(square) - want.get(square)).abs() < 1e-9,
                "{text} {square}: {} vs {}",
                got.get(square),
                want.get(square)
            );
        }
        // A second query is answered from the cache.
        let at = remote.jobs_submitted();
        remote.square_probabilities().expect("cached");
        assert_eq!(remote.jobs_submitted(), at, "{text}: no resubmission");
        assert!(remote.jobs_submitted() <= jobs + 1);
    }
    assert!(measured >= 3, "the game measured {measured} times");
    // Undo puts the remote board back exactly.
    remote.undo().expect("undo");
    local.undo().expect("undo");
    let got = remote.square_probabilities().expect("remote");
    let want = local.square_probabilities().expect("local");
    assert!(Square::ALL.into_iter().all(|sq| (got.get(sq) - want.get(sq)).abs() < 1e-9));
}

#[test]
fn a_forced_outcome_no_shot_supports_is_an_error_and_changes_nothing() {
    let served = Served::start(&["--api-key", "test"]);
    let mut remote =
        RemoteBoard::new(Bitboard(0xFFFF_0000_0000_FFFF), RemoteBoardConfig::new(served.provider())).expect("board");
    remote.apply(&mv("g1^f3h3:SPLIT_JUMP:BASIC")).expect("split");
    remote.apply(&mv("f3g5.m1:JUMP:CAPTURE")).expect("capture from f3 happened");
    let before = remote.square_probabilities().expect("probabilities");
    // After f3 was found occupied, h3 is certainly empty: a capture from it cannot be m1.
    let error = remote.apply(&mv("h3g1.m1:JUMP:CAPTURE")).expect_err("impossible");
    assert!(error.to_string().contains("probability 0") || error.to_string().contains("m1"), "{error}");
    assert_eq!(remote.square_probabilities().expect("probabilities"), before);
}

#[test]
fn sampled_results_agree_with_the_exact_board_within_statistics() {
    let served = Served::start(&["--api-key", "test", "--seed", "5"]);
    let provider = served.provider().with_target("qpu.aria-1".parse().expect("target"));
    let config = RemoteBoardConfig { shots: 4000, seed: 3, ..RemoteBoardConfig::new(provider) };
    let start = Bitboard(0xFFFF_0000_0000_FFFF);
    let mut remote = RemoteBoard::new(start, config).expect("board");
    let mut local = LocalBoard::new(start);
    for text in
        ["g1^f3h3:SPLIT_JUMP:BASIC", "b8^a6c6:SPLIT_JUMP:BASIC", "f3^d4e5:SPLIT_JUMP:BASIC", "c6e5:JUMP:CAPTURE"]
    {
        let report = remote.apply(&mv(text)).expect("remote");
        local.apply(&mv(text).with_outcome(report.outcome)).expect("local");
    }
    let got = remote.square_probabilities().expect("remote");
    let errors = got.standard_errors.clone().expect("sampled results carry standard errors");
    let want = local.square_probabilities().expect("local");
    for square in Square::ALL {
        let bound = 5.0 * errors[usize::from(square)] + 0.01;
        assert!(
            (got.get(square) - want.get(square)).abs() <= bound,
            "{square}: {} vs {}",
            got.get(square),
            want.get(square)
        );
    }
    assert!(!remote.is_exact());
}

#[test]
fn error_mitigation_drops_noisy_shots_with_impossible_piece_counts() {
    let served = Served::start(&["--readout-error", "0.05", "--seed", "9"]);
    let provider = served.provider().with_target("qpu.aria-1".parse().expect("target"));
    let start = Bitboard::from_square(Square::B1);
    let base = RemoteBoardConfig { shots: 4000, ..RemoteBoardConfig::new(provider) };
    let mut plain = RemoteBoard::new(start, base.clone()).expect("board");
    let mut mitigated =
        RemoteBoard::new(start, RemoteBoardConfig { mitigation: Mitigation::DropImpossiblePieceCounts, ..base })
            .expect("board");
    for board in [&mut plain, &mut mitigated] {
        board.apply(&mv("b1^a3c3:SPLIT_JUMP:BASIC")).expect("split");
    }
    let counts = |board: &mut RemoteBoard| -> Vec<u32> {
        board.distribution().expect("distribution").into_iter().map(|(b, _)| b.count()).collect()
    };
    let (noisy, clean) = (counts(&mut plain), counts(&mut mitigated));
    assert!(clean.iter().all(|&n| n == 1), "mitigated boards hold one piece each: {clean:?}");
    assert!(noisy.iter().any(|&n| n != 1), "readout noise makes boards with 0 or 2 pieces: {noisy:?}");
    let p = mitigated.square_probabilities().expect("probabilities");
    assert!((p.expected_piece_count() - 1.0).abs() < 1e-12);
}

#[test]
fn two_hundred_concurrent_jobs_all_complete_and_memory_stays_bounded() {
    let served = Served::start(&["--api-key", "test", "--max-jobs", "250"]);
    let client = IonqClient::new(served.provider()).expect("client");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let run_batch = |count: usize, offset: usize| -> Vec<(String, u64)> {
        runtime.block_on(async {
            let tasks: Vec<_> = (0..count)
                .map(|i| {
                    let client = client.clone();
                    let input: qchess_qasm::ionq::IonqCircuit = serde_json::from_value(json!({
                        "gateset": "qis", "qubits": 4,
                        "circuit": [{"gate": "x", "targets": [(i + offset) % 4]}]
                    }))
                    .expect("circuit");
                    tokio::spawn(async move {
                        let result = client.run_ionq(&input, 100).await.expect("job completes");
                        (result.job_id, result.probabilities.outcomes()[0].0)
                    })
                })
                .collect();
            let mut done = Vec::new();
            for (i, task) in tasks.into_iter().enumerate() {
                let (id, outcome) = task.await.expect("task");
                assert_eq!(outcome, 1 << ((i + offset) % 4), "job {i} has its own result");
                done.push((id, outcome));
            }
            done
        })
    };
    let started = Instant::now();
    let first = run_batch(200, 0);
    let elapsed = started.elapsed();
    let mut ids: Vec<&String> = first.iter().map(|(id, _)| id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 200, "every job has its own id");
    let rss_after_200 = served.rss_kib();
    // 300 more jobs overflow the store of 250: the oldest read jobs are dropped.
    for round in 0..3 {
        run_batch(100, round);
    }
    let rss_after_500 = served.rss_kib();
    let http = reqwest::blocking::Client::new();
    let oldest = http
        .get(format!("{}/v0.4/jobs/{}", served.url, first[0].0))
        .header("Authorization", "apiKey test")
        .send()
        .expect("answers");
    assert_eq!(oldest.status().as_u16(), 404, "the oldest job was dropped to make room");
    let listed: Value = http
        .get(format!("{}/v0.4/jobs?limit=1000", served.url))
        .header("Authorization", "apiKey test")
        .send()
        .expect("answers")
        .json()
        .expect("JSON");
    let stored = listed["jobs"].as_array().expect("jobs").len();
    assert!(stored <= 250, "{stored} jobs stored");
    eprintln!(
        "load: 200 concurrent jobs in {:.2} s; server RSS {} KiB after 200 jobs, {} KiB after 500",
        elapsed.as_secs_f64(),
        rss_after_200,
        rss_after_500
    );
    assert!(rss_after_500 < 200 * 1024, "RSS {rss_after_500} KiB");
}

#[test]
fn quantum_board_rest_api_plays_a_game() {
    let served = Served::start(&["--seed", "4"]);
    let http = reqwest::blocking::Client::new();
    let post = |path: &str, body: Value| -> Value {
        let response = http.post(format!("{}/quantumboard/{path}", served.url)).json(&body).send().expect("answers");
        assert!(response.status().is_success(), "{path}: {}", response.status());
        response.json().expect("JSON")
    };
    let start = post("init", json!({"init_basis_state": 0xFFFF_0000_0000_FFFFu64}));
    assert_eq!(start["full"], json!(0xFFFF_0000_0000_FFFFu64));
    assert_eq!(start["empty"], json!(!0xFFFF_0000_0000_FFFFu64));
    // Split the b1 knight to a3 / c3 (type 4 = SPLIT_JUMP, variant 1 = BASIC).
    let split = post("do_move", json!({"square1": 1, "square2": 16, "square3": 18, "type": 4, "variant": 1}));
    assert_eq!(split["result"], json!(true));
    let p = split["probabilities"].as_array().expect("64 floats");
    assert_eq!(p.len(), 64);
    assert!(
        (p[16].as_f64().expect("float") - 0.5).abs() < 1e-12 && (p[18].as_f64().expect("float") - 0.5).abs() < 1e-12
    );
    assert_eq!(split["full"].as_u64().expect("u64") & (1 << 16 | 1 << 18), 0);
    // Merge back: the phases interfere and the knight is home.
    let merged = post("do_move", json!({"square1": 16, "square2": 18, "square3": 1, "type": 6, "variant": 1}));
    assert!((merged["probabilities"][1].as_f64().expect("float") - 1.0).abs() < 1e-12);
    // Split again and capture from a3 onto the b5 square (type 2 JUMP, variant 3 CAPTURE):
    // the server measures a3 and draws the outcome itself.
    post("do_move", json!({"square1": 1, "square2": 16, "square3": 18, "type": 4, "variant": 1}));
    let capture = post("do_move", json!({"square1": 16, "square2": 33, "type": 2, "variant": 3}));
    let went = capture["result"].as_bool().expect("bool");
    let b5 = capture["probabilities"][33].as_f64().expect("float");
    assert_eq!(b5, if went { 1.0 } else { 0.0 });
    let undone = post("undo_last_move", json!({}));
    assert_eq!(undone["result"], json!(true));
    assert!((undone["probabilities"][16].as_f64().expect("float") - 0.5).abs() < 1e-12);
    // Bad moves are 400s in the IonQ error shape.
    let bad = http
        .post(format!("{}/quantumboard/do_move", served.url))
        .json(&json!({"square1": 99, "square2": 1, "type": 2, "variant": 1}))
        .send()
        .expect("answers");
    assert_eq!(bad.status().as_u16(), 400);
    let body: Value = bad.json().expect("JSON");
    assert_eq!(body["statusCode"], json!(400));
    assert!(body["message"].as_str().expect("message").contains("square1"));
}

#[test]
fn provider_api_guards_keys_limits_and_routes() {
    let served = Served::start(&["--api-key", "secret", "--max-body-bytes", "2048", "--max-shots", "1000"]);
    let http = reqwest::blocking::Client::new();
    let url = |path: &str| format!("{}{path}", served.url);
    assert_eq!(http.get(url("/health")).send().expect("answers").status().as_u16(), 200);
    assert_eq!(http.get(url("/v0.4/backends/simulator")).send().expect("answers").status().as_u16(), 200);
    let unauthorized = http.get(url("/v0.4/jobs")).send().expect("answers");
    assert_eq!(unauthorized.status().as_u16(), 401);
    assert_eq!(unauthorized.json::<Value>().expect("JSON")["statusCode"], json!(401));
    let wrong = http.get(url("/v0.4/whoami")).header("Authorization", "apiKey nope").send().expect("answers");
    assert_eq!(wrong.status().as_u16(), 401);
    let authed = |request: reqwest::blocking::RequestBuilder| {
        request.header("Authorization", "apiKey secret").send().expect("answers")
    };
    let huge = json!({"backend": "simulator", "input": {"qubits": 1, "circuit": vec![json!({"gate": "x", "targets": [0]}); 200]}});
    let too_large = authed(http.post(url("/v0.4/jobs")).json(&huge));
    assert_eq!(too_large.status().as_u16(), 413);
    assert!(too_large.json::<Value>().expect("JSON")["message"].as_str().expect("text").contains("--max-body-bytes"));
    let many_shots = json!({"backend": "simulator", "shots": 5000, "input": {"qubits": 1, "circuit": []}});
    let response = authed(http.post(url("/v0.4/jobs")).json(&many_shots));
    assert_eq!(response.status().as_u16(), 400);
    assert!(
        response.json::<Value>().expect("JSON")["message"]
            .as_str()
            .expect("text")
            .contains("shots must be between 1 and 1000")
    );
    let garbage = authed(http.post(url("/v0.4/jobs")).body("{not json"));
    assert_eq!(garbage.status().as_u16(), 400);
    let missing = authed(http.get(url("/v0.4/jobs/nope")));
    assert_eq!(missing.status().as_u16(), 404);
    assert_eq!(missing.json::<Value>().expect("JSON")["error"], json!("Not Found Error"));
    assert_eq!(authed(http.get(url("/v0.4/nothing"))).status().as_u16(), 404);
}

#[test]
fn the_client_reports_failed_and_canceled_jobs() {
    let served = Served::start(&["--max-qubits", "4", "--queue-delay-ms", "400"]);
    let client = IonqClient::new(served.provider()).expect("client");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let wide: qchess_qasm::ionq::IonqCircuit =
        serde_json::from_value(json!({"gateset": "qis", "qubits": 6, "circuit": [{"gate": "h", "targets": [5]}]}))
            .expect("circuit");
    let error = runtime.block_on(client.run_ionq(&wide, 10)).expect_err("too many qubits");
    assert!(matches!(error, RemoteError::TooManyQubits { .. }), "{error}");
    let small: qchess_qasm::ionq::IonqCircuit =
        serde_json::from_value(json!({"gateset": "qis", "qubits": 1, "circuit": [{"gate": "h", "targets": [0]}]}))
            .expect("circuit");
    runtime.block_on(async {
        let id = client.submit(&small, 10).await.expect("submitted");
        client.cancel(&id).await.expect("canceled");
        let error = client.wait(&id).await.expect_err("canceled");
        assert!(matches!(error, RemoteError::Canceled { by_user: false, .. }), "{error}");
    });
}

#[test]
fn bad_flags_exit_2_and_sigterm_stops_the_server_cleanly() {
    let run = qchess(&["serve", "--depolarizing", "2"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("--depolarizing"), "{}", run.stderr);
    let run = qchess(&["serve", "--addr", "not-an-address"]);
    assert_eq!(run.code, Some(2));
    // With --json the first line is an object with the address.
    let mut json_child = crate::common::command()
        .args(["serve", "--addr", "127.0.0.1:0", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    let mut first = String::new();
    BufReader::new(json_child.stdout.take().expect("piped")).read_line(&mut first).expect("reads");
    let _ = json_child.kill();
    let _ = json_child.wait();
    let announced: Value = serde_json::from_str(&first).expect("JSON first line");
    let url = announced["url"].as_str().expect("url");
    assert!(url.starts_with("http://127.0.0.1:") && !url.ends_with(":0"), "{first}");
    let mut served = Served::start(&[]);
    let status = Command::new("kill").args(["-TERM", &served.child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(exit) = served.child.try_wait().expect("waits") {
            assert!(exit.success(), "serve exits 0 on SIGTERM: {exit}");
            break;
        }
        assert!(Instant::now() < deadline, "serve did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every flag of `qchess serve`, as a user reads them, held against a copy
/// (`tests/cli/snapshots/serve-help.txt`): a flag added, dropped or reworded fails here until
/// the copy is changed with it.
#[test]
fn the_flags_and_their_help_stay_as_in_the_copy() {
    let run = qchess(&["serve", "--help"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let copy = include_str!("snapshots/serve-help.txt");
    let changed: Vec<String> = run
        .stdout
        .lines()
        .zip(copy.lines())
        .enumerate()
        .filter(|(_, (now, was))| now != was)
        .map(|(index, (now, was))| format!("line {}:\n  now: {now}\n  was: {was}", index + 1))
        .collect();
    assert!(
        changed.is_empty() && run.stdout.lines().count() == copy.lines().count(),
        "`qchess serve --help` differs from tests/cli/snapshots/serve-help.txt ({} lines now, {} in the copy):\n{}",
        run.stdout.lines().count(),
        copy.lines().count(),
        changed.join("\n")
    );
}
