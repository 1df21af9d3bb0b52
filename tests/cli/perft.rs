//! `qchess perft`.

use crate::common::qchess;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn nodes(fen: &str, depth: &str) -> u64 {
    let run = qchess(&["perft", "--rules", "classical", "--fen", fen, "--depth", depth, "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run.json()["nodes"].as_u64().expect("nodes is a number")
}

fn assert_bad_input(args: &[&str], expected: &str) {
    let run = qchess(args);
    assert_eq!(run.code, Some(2), "{args:?}\nstdout: {}\nstderr: {}", run.stdout, run.stderr);
    assert_eq!(run.stderr.lines().count(), 1, "{args:?}: one line, got {}", run.stderr);
    assert!(run.stderr.contains(expected), "{args:?}: expected `{expected}` in {}", run.stderr);
}

#[test]
fn start_position_json() {
    let run = qchess(&["perft", "--rules", "classical", "--depth", "3", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.json(),
        serde_json::json!({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "depth": 3, "nodes": 8902})
    );
}

#[test]
fn published_counts_through_the_command_line() {
    assert_eq!(nodes(KIWIPETE, "3"), 97_862);
    assert_eq!(nodes("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "4"), 43_238);
    assert_eq!(nodes("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", "3"), 9_467);
    assert_eq!(nodes("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", "3"), 62_379);
    assert_eq!(nodes("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", "3"), 89_890);
    assert_eq!(nodes("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - -", "0"), 1, "four-field FEN, depth 0");
}

#[test]
fn divide_lists_each_first_move() {
    let run = qchess(&["perft", "--fen", KIWIPETE, "--depth", "2", "--divide", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["nodes"], 2039);
    let divide = json["divide"].as_array().expect("divide is a list");
    assert_eq!(divide.len(), 48);
    assert_eq!(divide.iter().map(|e| e["nodes"].as_u64().expect("count")).sum::<u64>(), 2039);
    assert!(divide.iter().any(|e| e["move"] == "e1g1"));
}

#[test]
fn human_output_names_the_count() {
    let run = qchess(&["perft", "--rules", "classical", "--depth", "2", "--divide"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.lines().any(|l| l == "e2e4: 20"), "{}", run.stdout);
    assert!(run.stdout.contains("400 nodes"), "{}", run.stdout);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    assert_bad_input(
        &[
            "perft",
            "--rules",
            "classical",
            "--fen",
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "--depth",
            "1",
        ],
        "piece placement: rank 6: `9` is not a count of empty squares",
    );
    assert_bad_input(
        &["perft", "--fen", "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "--depth", "1"],
        "rank 7 has 9 files",
    );
    assert_bad_input(&["perft", "--fen", "4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "--depth", "1"], "white has 2 kings");
    assert_bad_input(
        &["perft", "--rules", "official", "--depth", "1"],
        "--rules `official`: perft counts classical chess only",
    );
    assert_bad_input(&["perft", "--depth", "40"], "--depth 40: at most 15");
    let missing_depth = qchess(&["perft", "--rules", "classical"]);
    assert_eq!(missing_depth.code, Some(2), "{}", missing_depth.stderr);
}
