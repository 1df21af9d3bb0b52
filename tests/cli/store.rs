//! The game store from the command line: games kept by `qchess play` and `qchess game --store`,
//! listed, shown and exported; a game on a slow provider left waiting (`--timeout`, Ctrl-C)
//! and resumed in new processes ends exactly as an uninterrupted one with the same seeds; a
//! waiting move is canceled at the provider; a job the provider lost is said so, and
//! submitted again only with `--resubmit`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::Served;

/// `qchess` with its store at `db`.
fn qchess_at(db: &Path) -> Command {
    let mut command = crate::common::command();
    command.env("QCHESS_DB", db);
    command
}

/// Runs `qchess ARGS` on the store at `db` with `input` on stdin: (exit code, stdout + stderr).
fn run(db: &Path, args: &[&str], input: &str) -> (Option<i32>, String) {
    let mut command = qchess_at(db);
    command.args(args);
    crate::common::run_with_input(command, input)
}

/// The stored games, newest first.
fn games(db: &Path) -> Vec<Value> {
    let (code, out) = run(db, &["games", "--json", "list"], "");
    assert_eq!(code, Some(0), "{out}");
    let value: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    value["games"].as_array().expect("games").clone()
}

/// A provider whose jobs wait `delay_ms` in its queue, keeping no games of its own.
fn provider(delay_ms: u64) -> Served {
    Served::start(&["--queue-delay-ms", &delay_ms.to_string(), "--db", ":memory:"])
}

/// The movetext of a stored game's record: its moves with every outcome, and its result.
fn movetext(db: &Path, id: &str) -> String {
    let (code, record) = run(db, &["games", "export", id], "");
    assert_eq!(code, Some(0), "{record}");
    record.lines().filter(|line| !line.starts_with('[') && !line.trim().is_empty()).collect::<Vec<_>>().join(" ")
}

/// The names of the provider's jobs for game `id`.
fn provider_jobs(provider: &str, id: &str) -> Vec<(String, String)> {
    let jobs: Value =
        reqwest::blocking::get(format!("{provider}/v0.4/jobs?limit=1000")).expect("jobs").json().expect("JSON");
    jobs["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .filter(|job| job["name"].as_str().is_some_and(|name| name.starts_with(&format!("qchess-{id}-"))))
        .map(|job| (job["name"].as_str().expect("name").to_owned(), job["status"].as_str().expect("status").to_owned()))
        .collect()
}

fn temp_db(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn played_games_are_kept_listed_shown_and_exported() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = temp_db(&dir, "games.db");
    let (code, out) = run(&db, &["play", "--black", "human", "--ascii", "--seed", "3"], "b1^a3c3\ne7e6\nquit\n");
    assert_eq!(code, Some(0), "{out}");
    let listed = games(&db);
    assert_eq!(listed.len(), 1, "{listed:?}");
    let id = listed[0]["id"].as_str().expect("id").to_owned();
    assert!(out.contains(&format!("qchess games resume {id}")), "{out}");
    assert_eq!((listed[0]["ply"].as_u64(), listed[0]["status"].as_str()), (Some(2), Some("white to move")));
    assert_eq!(movetext(&db, &id), "1. b1^a3c3 e7e6 *");
    let (code, shown) = run(&db, &["games", "show", &id], "");
    assert_eq!(code, Some(0), "{shown}");
    assert!(shown.contains("human vs human") && shown.contains("[GameId \""), "{shown}");
    // `qchess game --store` keeps a game too, and its --save writes the same record.
    let saved = dir.path().join("game.pgn");
    let (code, out) = run(
        &db,
        &[
            "game",
            "--store",
            "--moves",
            "b1^a3c3 d7d5 c3xd5.m1",
            "--seed",
            "1",
            "--save",
            saved.to_str().expect("utf-8"),
        ],
        "",
    );
    assert_eq!(code, Some(0), "{out}");
    let kept =
        out.lines().find_map(|l| l.strip_prefix("Kept as game ")).expect("the id").trim_end_matches('.').to_owned();
    assert_eq!(movetext(&db, &kept), "1. b1^a3c3 d7d5 2. c3xd5.m1 *");
    assert!(std::fs::read_to_string(&saved).expect("saved").contains("2. c3xd5.m1 *"));
    assert_eq!(games(&db).len(), 2);
    // Unknown games and a bad store are input errors.
    let (code, out) = run(&db, &["games", "show", "nosuchgame"], "");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("no stored game `nosuchgame`"), "{out}");
    let (code, out) = run(&db, &["games", "--db", "mysql://x", "list"], "");
    assert_eq!(code, Some(2), "{out}");
    let (code, out) = run(&db, &["games", "cancel", &id], "");
    assert_eq!(code, Some(2), "{out}");
    assert!(out.contains("has no move waiting"), "{out}");
}

/// Plays random against random for `plies` on `provider`, detaching at every job (`--timeout`)
/// and resuming in new processes until done; returns the game's id.
fn play_interrupted(db: &Path, provider: &str, seed: &str, plies: u64) -> (String, usize) {
    let args = ["play", "--white", "random", "--black", "random", "--seed", seed, "--backend", provider, "--ascii"];
    let plies_text = plies.to_string();
    let (code, out) = run(db, &[&args[..], &["--timeout", "0.2", "--max-plies", &plies_text]].concat(), "");
    let mut detached = usize::from(code == Some(1));
    assert!(code == Some(0) || out.contains("keeps its place at the provider"), "{out}");
    let id = games(db)[0]["id"].as_str().expect("id").to_owned();
    for _ in 0..200 {
        let game = &games(db)[0];
        let ply = game["ply"].as_u64().expect("ply");
        if game["waiting"] == false && (ply >= plies || game["result"] != "*") {
            return (id, detached);
        }
        let left = (plies - ply.min(plies)).max(1).to_string();
        let (code, out) = run(db, &["games", "resume", &id, "--timeout", "0.2", "--max-plies", &left, "--ascii"], "");
        assert!(code == Some(0) || out.contains("keeps its place at the provider"), "{out}");
        detached += usize::from(code == Some(1));
    }
    panic!("game {id} did not reach {plies} plies");
}

#[test]
fn a_game_interrupted_while_waiting_ends_as_an_uninterrupted_one() {
    let slow = provider(400);
    let dir = tempfile::tempdir().expect("a directory");
    let plies = 12;
    let straight = temp_db(&dir, "straight.db");
    let args = ["play", "--white", "random", "--black", "random", "--seed", "9", "--backend", &slow.url, "--ascii"];
    let (code, out) = run(&straight, &[&args[..], &["--max-plies", &plies.to_string()]].concat(), "");
    assert_eq!(code, Some(0), "{out}");
    let straight_id = games(&straight)[0]["id"].as_str().expect("id").to_owned();
    let interrupted = temp_db(&dir, "interrupted.db");
    let (id, detached) = play_interrupted(&interrupted, &slow.url, "9", plies);
    assert!(detached >= 2, "the game waited and was taken up again {detached} times");
    let expected = movetext(&straight, &straight_id);
    assert!(expected.contains('^'), "the game has quantum moves, so it ran jobs: {expected}");
    assert_eq!(movetext(&interrupted, &id), expected, "interrupted {detached} times");
    // The same circuits ran, each once: as many jobs as the uninterrupted game's.
    let jobs = provider_jobs(&slow.url, &id);
    assert_eq!(jobs.len(), provider_jobs(&slow.url, &straight_id).len(), "{jobs:?}");
    assert!(jobs.iter().all(|(_, status)| status == "completed"), "{jobs:?}");
}

#[test]
fn ctrl_c_detaches_and_cancel_takes_the_move_back() {
    let slow = provider(30_000);
    let dir = tempfile::tempdir().expect("a directory");
    let db = temp_db(&dir, "games.db");
    let mut child = qchess_at(&db)
        .args(["play", "--white", "human", "--black", "human", "--backend", &slow.url, "--ascii"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qchess runs");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"b1^a3c3\n").expect("a move");
    let deadline = Instant::now() + Duration::from_secs(30);
    let job = loop {
        if let Some(game) = games(&db).first()
            && let Some(job) = game["job"]["job_id"].as_str()
        {
            break job.to_owned();
        }
        let ended = child.try_wait().expect("the child's status").is_some();
        if ended || Instant::now() >= deadline {
            let _ = child.kill();
            let output = child.wait_with_output().expect("qchess ends");
            panic!(
                "the move never waited for its job ({}; stored: {:?}): {}{}",
                if ended { "qchess ended" } else { "30 s passed" },
                games(&db),
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let interrupted = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
    assert!(interrupted.success());
    let output = child.wait_with_output().expect("qchess ends");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("(interrupted); it keeps its place at the provider"), "{text}");
    let status = |job: &str| {
        let info: Value =
            reqwest::blocking::get(format!("{}/v0.4/jobs/{job}", slow.url)).expect("a job").json().expect("JSON");
        info["status"].as_str().expect("status").to_owned()
    };
    assert_ne!(status(&job), "canceled", "Ctrl-C leaves the job at the provider");
    let id = games(&db)[0]["id"].as_str().expect("id").to_owned();
    let (code, out) = run(&db, &["games", "cancel", &id], "");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Took back the waiting move b1^a3c3") && out.contains(&job), "{out}");
    assert_eq!(status(&job), "canceled");
    let game = &games(&db)[0];
    assert_eq!((game["waiting"].as_bool(), game["ply"].as_u64()), (Some(false), Some(0)), "{game}");
}

#[test]
fn a_job_the_provider_lost_is_resubmitted_only_when_asked() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = temp_db(&dir, "games.db");
    let first = provider(30_000);
    let url = first.url.clone();
    let (code, out) =
        run(&db, &["play", "--white", "human", "--black", "human", "--backend", &url, "--timeout", "0.3"], "g1^f3h3\n");
    assert_eq!(code, Some(1), "{out}");
    let id = games(&db)[0]["id"].as_str().expect("id").to_owned();
    // The provider restarts on the same address, its jobs gone.
    drop(first);
    let port = url.rsplit(':').next().expect("a port");
    let again = Served::start_at(&format!("127.0.0.1:{port}"), &["--db", ":memory:"]);
    assert_eq!(again.url, url);
    let (code, out) = run(&db, &["games", "resume", &id], "quit\n");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("the provider lost it"), "{out}");
    let (code, out) = run(&db, &["games", "resume", &id], "quit\n");
    assert!(out.contains("--resubmit"), "said again, never resubmitted silently: {out}");
    assert_eq!(code, Some(1));
    let (code, out) = run(&db, &["games", "resume", &id, "--resubmit", "--ascii"], "quit\n");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("White: g1^f3h3"), "{out}");
    assert_eq!(movetext(&db, &id), "1. g1^f3h3 *");
}

#[test]
fn a_game_on_ibm_quantum_is_kept_with_its_jobs_and_resumed_without_new_ones() {
    let stand_in = Served::start(&["--db", ":memory:"]);
    let dir = tempfile::tempdir().expect("a directory");
    let db = temp_db(&dir, "games.db");
    let ibm = |args: &[&str]| {
        let mut command = qchess_at(&db);
        command.env("QISKIT_IBM_TOKEN", "key").env("QISKIT_IBM_INSTANCE", "crn:v1:test").args(args);
        let output = command.output().expect("qchess runs");
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        (output.status.code(), text)
    };
    let (code, out) = ibm(&[
        "game",
        "--store",
        "--backend",
        "ibm:ibm_fez",
        "--ibm-url",
        &stand_in.url,
        "--moves",
        "b1^a3c3 e7e6 a3c3^b5",
        "--seed",
        "2",
    ]);
    assert_eq!(code, Some(0), "{out}");
    let id = games(&db)[0]["id"].as_str().expect("id").to_owned();
    let (code, shown) = run(&db, &["games", "--json", "show", &id], "");
    assert_eq!(code, Some(0), "{shown}");
    let shown: Value = serde_json::from_str(&shown).expect("JSON");
    let jobs = shown["jobs"].as_array().expect("jobs").clone();
    assert!(!jobs.is_empty() && jobs.iter().all(|j| j["state"] == "completed"), "{jobs:?}");
    assert!(shown["backend"].as_str().expect("backend").starts_with("ibm:ibm_fez"), "{shown}");
    // Resuming rebuilds the game from the stored results: no job runs again.
    let (code, out) = ibm(&["games", "resume", &id, "--ibm-url", &stand_in.url, "--ascii"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("ply 3"), "{out}");
    let (_, again) = run(&db, &["games", "--json", "show", &id], "");
    let again: Value = serde_json::from_str(&again).expect("JSON");
    assert_eq!(again["jobs"].as_array().expect("jobs").len(), jobs.len(), "no job submitted again");
}
