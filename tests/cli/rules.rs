//! `--rules`: every rule set through `game`, `moves`, `compile` and a remote backend, records
//! that carry the rules, and one-line refusals with exit code 2.

use crate::common::{Run, Served, qchess, qchess_json};

fn assert_refused(run: &Run, expected: &str) {
    assert_eq!(run.code, Some(2), "stdout: {}\nstderr: {}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "nothing printed on error: {}", run.stdout);
    assert_eq!(run.stderr.lines().count(), 1, "one line: {}", run.stderr);
    assert!(run.stderr.contains(expected), "{}", run.stderr);
}

#[test]
fn classical_game_reports_checkmate_in_the_game_json() {
    let out = qchess_json("game", &["--rules", "classical", "--moves", "f2f3 e7e5 g2g4 d8h4"]);
    assert_eq!(out["result"], "0-1");
    assert_eq!(out["reason"], "checkmate");
    assert_eq!(out["pieces"]["h4"], "q");
    assert_eq!(out["probabilities"].as_object().map(|p| p.len()), Some(64));
    assert_eq!(out["moves"].as_array().map(Vec::len), Some(4));
}

#[test]
fn classical_refusals_name_the_move_and_the_rule() {
    assert_refused(
        &qchess(&["game", "--rules", "classical", "--moves", "e2e4 b8^a6c6"]),
        "--moves, move 2: b8^a6c6: splits and merges are not allowed under the classical rules",
    );
    assert_refused(
        &qchess(&[
            "game",
            "--rules",
            "classical",
            "--position",
            "fen 4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
            "--moves",
            "e2d3",
        ]),
        "e2d3: it leaves the white king in check",
    );
    let unknown = qchess(&["game", "--rules", "chess960"]);
    assert_eq!(unknown.code, Some(2));
    assert!(unknown.stderr.contains("`chess960` is not a rule set"), "{}", unknown.stderr);
}

#[test]
fn moves_lists_the_legal_moves_of_the_rule_set() {
    let official = qchess_json("moves", &[]);
    let classical = qchess_json("moves", &["--rules", "classical"]);
    assert_eq!(classical.as_array().map(Vec::len), Some(20));
    assert!(official.as_array().map(Vec::len) > Some(20), "the official start has splits too");
    let check = qchess_json("moves", &["--rules", "classical", "--position", "fen 4k3/8/8/8/8/8/4r3/4K3 w - - 0 1"]);
    let mut names: Vec<&str> = check.as_array().expect("list").iter().filter_map(|m| m["move"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["e1d1", "e1f1", "e1xe2"]);
}

#[test]
fn a_saved_record_carries_the_rules_and_replays_under_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("mate.pgn");
    let path = path.to_str().expect("utf-8");
    let saved = qchess(&["game", "--rules", "classical", "--moves", "f2f3 e7e5 g2g4 d8h4", "--save", path]);
    assert_eq!(saved.code, Some(0), "{}", saved.stderr);
    let text = std::fs::read_to_string(path).expect("record");
    assert!(text.contains("[Rules \"classical\"]"), "{text}");
    let replayed = qchess_json("game", &["--record", path]);
    assert_eq!((&replayed["result"], &replayed["reason"]), (&"0-1".into(), &"checkmate".into()));
}

#[test]
fn compile_exports_a_classical_game_without_qubits() {
    let out = qchess_json("compile", &["--rules", "classical", "--position", "startpos", "--moves", "e2e4 e7e5 g1f3"]);
    let sidecar = &out["sidecar"];
    assert_eq!(sidecar["squares"].as_object().map(|s| s.len()), Some(0), "{sidecar}");
    assert_refused(
        &qchess(&["compile", "--rules", "classical", "--position", "startpos", "--moves", "g1^f3h3"]),
        "g1^f3h3",
    );
}

#[test]
fn a_classical_game_on_a_remote_backend_gives_the_local_result() {
    let served = Served::start(&[]);
    let moves = "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5xf7";
    let local = qchess_json("game", &["--rules", "classical", "--moves", moves]);
    let remote = qchess_json("game", &["--rules", "classical", "--moves", moves, "--backend", &served.url]);
    assert_eq!(local["result"], "1-0");
    for field in ["result", "reason", "pieces", "probabilities"] {
        assert_eq!(local[field], remote[field], "{field}");
    }
}
