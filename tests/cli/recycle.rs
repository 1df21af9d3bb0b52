//! Long games on a served backend: qubits of squares that became classical are reused, so a
//! 265-ply game fits `qchess serve`'s default 29 qubits and agrees with the local board; a
//! position that truly needs more qubits than the device stops with an error naming the move,
//! the count and the device's size.

use crate::common::{Served, qchess, qchess_json};

/// Two knights in superposition wander for 265 plies (the same game as the engine's recycling
/// test): each jump leaves a square certainly empty and takes a fresh qubit, so without reuse
/// the circuit passes 29 qubits by ply 30.
fn wandering_knights() -> String {
    let mut moves = String::from("g1^f3h3 g8^f6h6 e2e3 e7e5 f3xe5.m1 f6g4 e5^c4d3");
    for _ in 0..64 {
        moves.push_str(" g4f6 c4b6 f6g4 b6c4");
    }
    moves + " g4f6 c4b6"
}

#[test]
fn a_265_ply_game_fits_the_default_served_backend() {
    let served = Served::start(&[]);
    let moves = wandering_knights();
    let local = qchess_json("game", &["--no-win-check", "--moves", &moves]);
    let remote = qchess_json("game", &["--no-win-check", "--moves", &moves, "--backend", &served.url]);
    assert_eq!(remote["ply"], 265);
    assert_eq!(remote["pieces"], local["pieces"]);
    let (local_moves, remote_moves) =
        (local["moves"].as_array().expect("moves"), remote["moves"].as_array().expect("moves"));
    assert_eq!(local_moves.len(), remote_moves.len());
    for (l, r) in local_moves.iter().zip(remote_moves) {
        assert_eq!((&l["move"], &l["outcome"], &l["proceeded"]), (&r["move"], &r["outcome"], &r["proceeded"]));
    }
    let local = local["probabilities"].as_object().expect("object");
    let superposed = local.values().filter(|p| p.as_f64().is_some_and(|p| p > 0.0 && p < 1.0)).count();
    assert_eq!(superposed, 4, "both knights end in superposition: {local:?}");
    for (square, p) in local {
        let q = remote["probabilities"][square].as_f64().expect("a probability");
        assert!((p.as_f64().expect("a probability") - q).abs() < 1e-9, "{square}: {p} vs {q}");
    }
}

#[test]
fn a_position_wider_than_the_device_names_the_move_the_count_and_the_size() {
    let served = Served::start(&["--max-qubits", "4"]);
    // Two split knights: four squares in superposition plus the qubit g1 and g8 take turns on.
    let run = qchess(&["game", "--moves", "g1^f3h3 g8^f6h6 e2e3", "--backend", &served.url]);
    assert_eq!(run.code, Some(1), "stdout: {}\nstderr: {}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    for expected in ["move 2", "g8^f6h6", "needs 5 qubits", "the 4 qubits of backend simulator"] {
        assert!(run.stderr.contains(expected), "`{expected}` missing from: {}", run.stderr);
    }
}
