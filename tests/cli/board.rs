//! `qchess board`: JSON shape and exact values, human output, and input errors (exit code 2).

use serde_json::Value;

use crate::common::{close, qchess, qchess_json};

fn board_json(args: &[&str]) -> Value {
    qchess_json("board", args)
}

#[test]
fn split_gives_two_boards_of_one_half() {
    let out = board_json(&["--init", "b1", "--moves", "b1^a3c3:SPLIT_JUMP:BASIC"]);
    let boards = out["boards"].as_array().expect("boards array");
    assert_eq!(boards.len(), 2);
    let mut bitboards: Vec<u64> = boards.iter().map(|b| b["bitboard"].as_u64().expect("u64")).collect();
    bitboards.sort_unstable();
    assert_eq!(bitboards, vec![1 << 16, 1 << 18], "a3 = bit 16, c3 = bit 18");
    assert!(boards.iter().all(|b| close(&b["probability"], 0.5)));
    let squares = out["square_probabilities"].as_object().expect("object");
    assert_eq!(squares.len(), 64);
    assert!(close(&squares["a3"], 0.5) && close(&squares["c3"], 0.5) && close(&squares["b1"], 0.0));
    let moves = out["moves"].as_array().expect("moves array");
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["move"], "b1^a3c3:SPLIT_JUMP:BASIC");
    assert_eq!(moves[0]["proceeded"], true);
    assert!(moves[0]["outcome_probability"].is_null());
}

#[test]
fn merge_brings_the_piece_back_exactly() {
    let out = board_json(&["--init", "0x2", "--moves", "b1^a3c3:SPLIT_JUMP:BASIC a3c3^b1:MERGE_JUMP:BASIC"]);
    let boards = out["boards"].as_array().expect("boards array");
    assert_eq!(boards.len(), 1);
    assert_eq!(boards[0]["bitboard"], 2);
    assert!(close(&boards[0]["probability"], 1.0));
    assert!(close(&out["square_probabilities"]["b1"], 1.0));
    assert_eq!(out["moves"].as_array().map(Vec::len), Some(2));
}

#[test]
fn measured_moves_echo_their_outcome_and_replay() {
    let moves = "b1^a3c3:SPLIT_JUMP:BASIC c3e4:JUMP:CAPTURE";
    let out = board_json(&["--init", "b1,e4", "--moves", moves, "--seed", "11"]);
    let echoed = out["moves"][1]["move"].as_str().expect("string").to_owned();
    assert!(echoed == "c3e4.m0:JUMP:CAPTURE" || echoed == "c3e4.m1:JUMP:CAPTURE", "{echoed}");
    assert!(close(&out["moves"][1]["outcome_probability"], 0.5));
    // Replaying the echoed list with any seed gives the same result.
    let replay = format!("b1^a3c3:SPLIT_JUMP:BASIC {echoed}");
    let again = board_json(&["--init", "b1,e4", "--moves", &replay, "--seed", "999"]);
    assert_eq!(again["boards"], out["boards"]);
    // The same seed gives the same outcome.
    assert_eq!(board_json(&["--init", "b1,e4", "--moves", moves, "--seed", "11"]), out);
}

#[test]
fn decimal_init_and_no_moves() {
    let out = board_json(&["--init", "18446462598732906495"]); // 0xFFFF00000000FFFF
    assert_eq!(out["boards"][0]["bitboard"], 0xFFFF_0000_0000_FFFFu64);
    assert!(close(&out["square_probabilities"]["e2"], 1.0));
    assert_eq!(out["moves"].as_array().map(Vec::len), Some(0));
}

#[test]
fn human_output_draws_the_board() {
    let run = qchess(&["board", "--init", "b1", "--moves", "b1^a3c3:SPLIT_JUMP:BASIC"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("0.50"), "{}", run.stdout);
    assert!(run.stdout.contains("b1^a3c3:SPLIT_JUMP:BASIC proceeded"), "{}", run.stdout);
    assert!(run.stdout.contains("    a    b    c"), "{}", run.stdout);
}

#[test]
fn occupancy_board_checks_no_legality() {
    // A jump onto a full square is the identity; a classically blocked slide does nothing.
    let out = board_json(&["--init", "b1,c3", "--moves", "b1c3:JUMP:BASIC"]);
    assert_eq!(out["boards"][0]["bitboard"], (1u64 << 1) | (1 << 18));
    let out = board_json(&["--init", "a1,a3", "--moves", "a1a5:SLIDE:BASIC"]);
    assert_eq!(out["boards"][0]["bitboard"], 1u64 | (1 << 16));
    // An excluded castle with a classical blocker fails with certainty.
    let out = board_json(&["--init", "e1,h1,g1", "--moves", "e1g1:KS_CASTLE:EXCLUDED"]);
    assert_eq!(out["moves"][0]["proceeded"], false);
    assert_eq!(out["moves"][0]["move"], "e1g1.m0:KS_CASTLE:EXCLUDED");
    assert!(out["moves"][0]["outcome_probability"].is_null());
}

fn assert_bad_input(args: &[&str], needle: &str) {
    let run = qchess(args);
    assert_eq!(run.code, Some(2), "{args:?}: stdout {} stderr {}", run.stdout, run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "one line: {}", run.stderr);
    assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn bad_typed_moves_exit_2_naming_the_move() {
    let cases = [
        ("b1a3:HOP:BASIC", "b1a3:HOP:BASIC"),
        ("b1a3:JUMP:SOMETIMES", "b1a3:JUMP:SOMETIMES"),
        ("b1^a3c3:JUMP:BASIC", "JUMP needs a source and a target"),
        ("b1a3:SPLIT_JUMP:BASIC", "SPLIT_JUMP needs a source and two targets"),
        ("b1z9:JUMP:BASIC", "`z9` is not a square"),
        ("b1a3", "b1a3"),
        ("b1c3.m1:JUMP:BASIC", "makes no measurement"),
        ("e1g1:KS_CASTLE:CAPTURE", "no CAPTURE variant"),
    ];
    for (text, needle) in cases {
        let moves = format!("b1^a3c3:SPLIT_JUMP:BASIC {text}");
        assert_bad_input(&["board", "--json", "--init", "b1", "--moves", &moves], needle);
        assert_bad_input(&["board", "--json", "--init", "b1", "--moves", &moves], "move 2");
    }
}

#[test]
fn impossible_forced_outcome_exits_2() {
    assert_bad_input(&["board", "--init", "b1", "--moves", "b1a3.m0:JUMP:EXCLUDED"], "probability 0");
}

#[test]
fn bad_init_exits_2() {
    for (init, needle) in [
        ("", "bad --init"),
        ("b1,zz", "`zz` is not a square"),
        ("0xZZ", "hexadecimal"),
        ("18446744073709551616", "not a u64"),
        ("b1,b1", "listed twice"),
        ("-5", "not a square"),
    ] {
        let flag = format!("--init={init}");
        assert_bad_input(&["board", &flag, "--moves", ""], needle);
    }
}
