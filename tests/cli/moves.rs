//! `qchess moves`.

use std::collections::BTreeSet;

use crate::common::qchess;

fn assert_bad_input(args: &[&str], expected: &str) {
    let run = qchess(args);
    assert_eq!(run.code, Some(2), "{args:?}\nstdout: {}\nstderr: {}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "{args:?}: nothing on stdout, got {}", run.stdout);
    assert_eq!(run.stderr.lines().count(), 1, "{args:?}: one line, got {}", run.stderr);
    assert!(run.stderr.contains(expected), "{args:?}: expected `{expected}` in {}", run.stderr);
}

#[test]
fn start_position_json_lists_twenty_standard_moves_and_two_knight_splits() {
    let run = qchess(&["moves", "--position", "startpos", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    let entries = json.as_array().expect("a JSON array");
    assert_eq!(entries.len(), 22);
    let mut seen = BTreeSet::new();
    for entry in entries {
        let object = entry.as_object().expect("objects");
        assert_eq!(object.len(), 3, "only move, type and variant: {entry}");
        let mv = object["move"].as_str().expect("move is a string").to_owned();
        let move_type = object["type"].as_str().expect("type is a string");
        assert_eq!(object["variant"], "BASIC", "{entry}");
        let expected_type = match mv.as_str() {
            "b1^a3c3" | "g1^f3h3" => "SPLIT_JUMP",
            "b1a3" | "b1c3" | "g1f3" | "g1h3" => "JUMP",
            pawn if pawn.ends_with('3') => "PAWN_STEP",
            _ => "PAWN_TWO_STEP",
        };
        assert_eq!(move_type, expected_type, "{entry}");
        seen.insert(mv);
    }
    let mut expected: BTreeSet<String> =
        "abcdefgh".chars().flat_map(|f| [format!("{f}2{f}3"), format!("{f}2{f}4")]).collect();
    expected.extend(["b1a3", "b1c3", "g1f3", "g1h3", "b1^a3c3", "g1^f3h3"].map(String::from));
    assert_eq!(seen, expected);
}

#[test]
fn json_entries_have_the_documented_shape() {
    let run = qchess(&["moves", "--position", "startpos", "--json"]);
    let split = run.json().as_array().expect("array").iter().find(|e| e["move"] == "b1^a3c3").cloned();
    assert_eq!(split, Some(serde_json::json!({"move": "b1^a3c3", "type": "SPLIT_JUMP", "variant": "BASIC"})));
}

#[test]
fn human_output_is_a_readable_list() {
    let run = qchess(&["moves", "--position", "position startpos"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.starts_with("22 legal moves, White to move"), "{}", run.stdout);
    let split = run.stdout.lines().find(|l| l.trim_start().starts_with("b1^a3c3")).expect("the split is listed");
    assert!(split.contains("SPLIT_JUMP") && split.contains("BASIC"), "{split}");
    assert_eq!(run.stdout.lines().count(), 23);
}

#[test]
fn fen_positions_give_capture_variants() {
    let run = qchess(&["moves", "--position", "fen 4k3/8/8/8/8/2n5/8/1N2K3 w - - 0 1", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    let capture = json.as_array().expect("array").iter().find(|e| e["move"] == "b1xc3").cloned();
    assert_eq!(capture, Some(serde_json::json!({"move": "b1xc3", "type": "JUMP", "variant": "CAPTURE"})));
    let black = qchess(&["moves", "--position", "fen 4k3/8/8/8/8/8/8/4K3 b - - 0 1"]);
    assert!(black.stdout.contains("Black to move"), "{}", black.stdout);
}

#[test]
fn an_illegal_first_move_is_reported_with_its_rule() {
    assert_bad_input(
        &["moves", "--position", "startpos moves e2e5"],
        "move 1: e2e5: a pawn moves one square forward, or two from its starting rank",
    );
    assert_bad_input(&["moves", "--position", "startpos moves e2^e3e4"], "move 1: e2^e3e4: pawns cannot split");
    assert_bad_input(&["moves", "--position", "startpos moves 0000"], "the null move 0000 is not allowed");
}

#[test]
fn moves_after_a_replayed_split_include_the_merges() {
    let run = qchess(&["moves", "--position", "startpos moves b1^a3c3 e7e6", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let moves = run.json();
    let listed: Vec<(&str, &str)> = moves
        .as_array()
        .expect("a list")
        .iter()
        .map(|m| (m["move"].as_str().expect("move"), m["type"].as_str().expect("type")))
        .collect();
    assert!(listed.contains(&("a3c3^b5", "MERGE_JUMP")), "{listed:?}");
    assert!(listed.contains(&("a3c3^b1", "MERGE_JUMP")), "{listed:?}");
    // A pawn stepping onto the superposed knight must measure: excluded.
    assert!(listed.contains(&("a2wa3", "PAWN_STEP")), "{listed:?}");
}

#[test]
fn malformed_positions_exit_2_with_one_line() {
    assert_bad_input(
        &["moves", "--position", "fen rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"],
        "piece placement: rank 7 has 9 files",
    );
    assert_bad_input(&["moves", "--position", "startpos moves e2e9"], "move 1: bad move `e2e9`");
    assert_bad_input(&["moves", "--position", "begin"], "expected `startpos` or `fen <FEN>`, found `begin`");
    assert_bad_input(
        &["moves", "--position", "fen 4k2P/8/8/8/8/8/8/4K3 w - - 0 1"],
        "pawns never stand on the first or last rank",
    );
}
