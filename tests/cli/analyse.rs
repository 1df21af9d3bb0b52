//! `qchess analyse`: every move of a record judged, in text and JSON, every example record
//! analysed, and bad input refused.

use crate::common::{all_examples, qchess, qchess_json};

/// A short game in which White leaves the queen to the rook: `2. Kf2` is the blunder.
const RECORD: &str =
    "[Event \"analysis test\"]\n[FEN \"3r4/8/8/8/8/8/k7/3QK3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e1f2 d8xd1 2. f2e3 *\n";

fn record_file(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("game.pgn");
    std::fs::write(&path, RECORD).expect("written");
    path.to_str().unwrap().to_owned()
}

#[test]
fn every_move_is_judged_and_the_blunder_marked() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = record_file(&dir);
    let value = qchess_json("analyse", &["--record", &path, "--depth", "2"]);
    let moves = value["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 3, "{value}");
    assert_eq!(moves[0]["move"], "e1f2");
    assert_eq!(moves[0]["judgement"], "blunder", "{value}");
    assert_eq!(moves[0]["best"], "d1xd8");
    assert!(moves[0]["before"].as_f64().unwrap() > moves[0]["after"].as_f64().unwrap());
    assert_eq!(moves[1]["mover"], "black");
    assert_eq!(moves[1]["judgement"], "best");
    assert_eq!(value["summary"]["white"]["blunders"], 1);
    assert_eq!(value["summary"]["black"]["blunders"], 0);
    let text = qchess(&["analyse", "--record", &path, "--depth", "2"]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert!(text.stdout.lines().any(|l| l.contains("e1f2") && l.ends_with("blunder")), "{}", text.stdout);
    assert!(text.stdout.contains("White: 0 inaccuracies, 0 mistakes, 1 blunder;"), "{}", text.stdout);
}

#[test]
fn a_missing_or_broken_record_is_bad_input() {
    let missing = qchess(&["analyse", "--record", "/nonexistent/game.pgn"]);
    assert_eq!(missing.code, Some(2), "{}", missing.stderr);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bad.pgn");
    std::fs::write(&path, "1. e2e5 *\n").expect("written");
    let illegal = qchess(&["analyse", "--record", path.to_str().unwrap(), "--depth", "1"]);
    assert_eq!(illegal.code, Some(2), "{}", illegal.stderr);
    assert!(illegal.stderr.contains("e2e5"), "{}", illegal.stderr);
    let depth = qchess(&["analyse", "--record", path.to_str().unwrap(), "--depth", "0"]);
    assert_eq!(depth.code, Some(2));
}

/// Every record in `examples/` is analysed, one judgement per move `qchess game` replays, each
/// move as the record writes it (splits with their targets in either order among them).
#[test]
fn every_example_record_is_analysed() {
    let examples = all_examples();
    assert!(examples.len() >= 10, "{examples:?}");
    for path in &examples {
        let analysis = qchess(&["analyse", "--json", "--record", path, "--depth", "1"]);
        assert_eq!(analysis.code, Some(0), "{path}: {}", analysis.stderr);
        let judged: Vec<String> = analysis.json()["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_owned())
            .collect();
        let replayed = qchess_json("game", &["--record", path]);
        let moves: Vec<String> =
            replayed["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap().to_owned()).collect();
        assert_eq!(judged, moves, "{path}");
    }
}
