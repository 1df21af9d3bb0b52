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

/// Seed 001's queen and rook, kings out of the way.
const QUEEN_AND_ROOK: &str = "fen 6k1/8/8/8/4Q3/4r3/8/K7 w - - 0 1";

#[test]
fn observer_collapses_are_pinned_and_reported() {
    let out =
        qchess_json("game", &["--rules", "observer", "--position", QUEEN_AND_ROOK, "--moves", "e4^e5c2 e3xe5.m1"]);
    let last = &out["moves"][1];
    assert_eq!((&last["move"], &last["outcome"]), (&"e3xe5.m1".into(), &1.into()));
    assert_eq!(last["outcome_probability"], 0.5);
    assert_eq!(out["pieces"]["e5"], "r");
    assert!(out["pieces"].get("c2").is_none());
    assert_eq!(out["result"], "*");
    let pair = qchess_json(
        "game",
        &["--rules", "observer", "--position", QUEEN_AND_ROOK, "--moves", "e4^e5c2 g8f8 e5e8|c2c7.m0"],
    );
    assert_eq!(pair["moves"][2]["move"], "e5e8|c2c7.m0");
    assert_eq!(pair["pieces"]["c7"], "Q");
    let mate = qchess_json(
        "game",
        &["--rules", "observer", "--position", "fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "--moves", "a1^a8b1"],
    );
    assert_eq!((&mate["result"], &mate["reason"]), (&"1-0".into(), &"checkmate".into()));
}

#[test]
fn observer_refusals_name_the_move_and_the_rule() {
    let game = |moves: &str| qchess(&["game", "--rules", "observer", "--position", QUEEN_AND_ROOK, "--moves", moves]);
    assert_refused(
        &game("e4^e5c2 g8f8 e5^e6e7"),
        "e5^e6e7: the piece on e5 is in superposition and cannot split again",
    );
    assert_refused(&game("e4^e5c2 g8f8 e5e8|c2d4"), "e5e8|c2d4: the half c2d4 is not a legal move");
    assert_refused(&game("e4^e5c2 g8f8 e5e8|a1a2"), "e5e8|a1a2: a pair names one move from each square");
    assert_refused(&game("e4^e5c2 g8h8"), "g8h8: it leaves the black king in check");
}

#[test]
fn an_observer_game_on_a_remote_backend_gives_the_local_result() {
    let served = Served::start(&[]);
    let moves = "e4^e5c2 e3xe5.m0 c2c8";
    let args = ["--rules", "observer", "--position", QUEEN_AND_ROOK, "--moves", moves];
    let local = qchess_json("game", &args);
    let remote = qchess_json("game", &[&args[..], &["--backend", &served.url]].concat());
    for field in ["result", "pieces", "probabilities"] {
        assert_eq!(local[field], remote[field], "{field}");
    }
    let compiled = qchess_json("compile", &["--rules", "observer", "--position", QUEEN_AND_ROOK, "--moves", moves]);
    assert_eq!(compiled["sidecar"]["postselect"].as_array().map(Vec::len), Some(1), "the collapse is a measurement");
}

#[test]
fn checkmate_failed_moves_and_measurements_through_the_cli() {
    let failed = qchess_json("game", &["--rules", "checkmate", "--moves", "b1^a3c3 e7e6 c2c3.m1"]);
    let last = &failed["moves"][2];
    assert_eq!((&last["move"], &last["outcome"], &last["proceeded"]), (&"c2c3.m1".into(), &1.into(), &false.into()));
    assert_eq!((&failed["pieces"]["c2"], &failed["pieces"]["c3"]), (&"P".into(), &"N".into()));
    assert_eq!(failed["side_to_move"], "black");
    let mate = qchess_json(
        "game",
        &["--rules", "checkmate", "--position", "fen 6k1/8/8/8/8/8/r7/6K1 w - - 0 1", "--moves", "g1^f1h1 a2a1"],
    );
    assert_eq!((&mate["result"], &mate["reason"]), (&"0-1".into(), &"checkmate".into()));
    assert_refused(
        &qchess(&[
            "game",
            "--rules",
            "checkmate",
            "--position",
            "fen 4k3/8/8/8/8/8/8/r3K3 w - - 0 1",
            "--moves",
            "e1^e2f1",
        ]),
        "e1^e2f1: it leaves the white king in check",
    );
    assert_refused(
        &qchess(&["game", "--rules", "checkmate", "--moves", "e2e4 ?e4"]),
        "?e4: e4 is not in superposition",
    );
}

#[test]
fn a_checkmate_game_on_a_remote_backend_gives_the_local_result() {
    let served = Served::start(&[]);
    let args = ["--rules", "checkmate", "--moves", "b1^a3c3 g8^f6h6 c2c3.m0 ?f6.m1 d2d3 e7e6 c1h6"];
    let local = qchess_json("game", &args);
    let remote = qchess_json("game", &[&args[..], &["--backend", &served.url]].concat());
    for field in ["result", "pieces", "probabilities"] {
        assert_eq!(local[field], remote[field], "{field}");
    }
    let compiled = qchess_json("compile", &["--rules", "checkmate", "--position", "startpos", "--moves", args[3]]);
    assert_eq!(compiled["sidecar"]["postselect"].as_array().map(Vec::len), Some(2), "two measurements");
}

#[test]
fn moves_lists_observer_pairs_and_mode_classical_refuses_splits() {
    let position = format!("{QUEEN_AND_ROOK} moves e4^e5c2 g8f8");
    let moves = qchess_json("moves", &["--rules", "observer", "--position", &position]);
    let names: Vec<&str> = moves.as_array().expect("list").iter().filter_map(|m| m["move"].as_str()).collect();
    assert!(names.contains(&"e5e8|c2c7") && names.contains(&"a1b1"), "{names:?}");
    assert!(!names.contains(&"e5e8"), "a lone half is no move");
    assert_refused(
        &qchess(&["game", "--rules", "checkmate", "--mode", "classical", "--moves", "b1^a3c3"]),
        "b1^a3c3: quantum mode is off, so pieces cannot split",
    );
    assert_refused(
        &qchess(&["compare", "--rules", "observer", "--moves", "e2e4", "--vs", "local"]),
        "compare runs official and classical games",
    );
}

#[test]
fn ignore_outcomes_draws_instead_of_forcing() {
    // The pawn step onto the superposed knight is forced to m0 and m1 by turns; ignored, the seed decides.
    let moves = |outcome: &str| format!("b1^a3c3 e7e6 c2wc3.{outcome}");
    let forced: Vec<_> = ["m0", "m1"]
        .iter()
        .map(|o| qchess_json("game", &["--moves", &moves(o)])["moves"][2]["outcome"].clone())
        .collect();
    assert_eq!(forced, [0, 1]);
    let drawn: Vec<_> = ["m0", "m1"]
        .iter()
        .map(|o| {
            qchess_json("game", &["--moves", &moves(o), "--ignore-outcomes", "--seed", "4"])["moves"][2]["outcome"]
                .clone()
        })
        .collect();
    assert_eq!(drawn[0], drawn[1], "the suffix no longer decides");
}
