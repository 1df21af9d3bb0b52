//! Reading an exported circuit back as a board: the distribution over all qubits (from `qchess
//! sim --exact` for OpenQASM 2, from the dense simulator for IonQ JSON read back through
//! `IonqCircuit`), kept where the sidecar's post-selections hold, each square read through it.

use qchess_qasm::ionq::IonqCircuit;
use qchess_qasm::sidecar::Sidecar;
use qchess_sim::dense::DenseSimulator;
use serde_json::Value;

use crate::common::qchess;

/// Square probabilities from `(basis state over all qubits, probability)` pairs.
fn read_board(distribution: impl IntoIterator<Item = (u64, f64)>, sidecar: &Value) -> [f64; 64] {
    let sidecar: Sidecar = serde_json::from_value(sidecar.clone()).expect("a valid sidecar");
    let mut squares = [0.0; 64];
    let mut kept = 0.0;
    for (state, p) in distribution {
        let reads = |qubit: qchess_circuit::ir::Qubit| state >> qubit.0 & 1 == 1;
        if !sidecar.keeps(reads) {
            continue;
        }
        kept += p;
        for square in sidecar.board(reads) {
            squares[usize::from(square)] += p;
        }
    }
    assert!(kept > 0.0, "the post-selected outcomes have probability 0");
    squares.map(|p| p / kept)
}

/// `qchess board --json`'s square probabilities, by square index.
pub fn board_probabilities(init: &str, moves: &str) -> [f64; 64] {
    let run = qchess(&["board", "--init", init, "--moves", moves, "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    let mut squares = [0.0; 64];
    for (index, square) in squares.iter_mut().enumerate() {
        let name = format!("{}{}", char::from(b'a' + (index % 8) as u8), index / 8 + 1);
        *square = json["square_probabilities"][&name].as_f64().expect("a probability");
    }
    squares
}

/// An OpenQASM 2 program run exactly by `qchess sim`, read through its sidecar.
pub fn qasm2_probabilities(program: &str, sidecar: &Value) -> [f64; 64] {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("game.qasm");
    std::fs::write(&path, program).expect("write");
    let run = qchess(&["sim", path.to_str().expect("UTF-8"), "--exact", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    let distribution = json["probabilities"]
        .as_object()
        .expect("probabilities")
        .iter()
        .map(|(key, p)| (key.parse::<u64>().expect("integer key"), p.as_f64().expect("probability")));
    read_board(distribution, sidecar)
}

/// An IonQ JSON circuit read back and simulated exactly, read through its sidecar.
pub fn ionq_probabilities(ionq: &Value, sidecar: &Value) -> [f64; 64] {
    let circuit: IonqCircuit = serde_json::from_value(ionq.clone()).expect("an IonQ circuit");
    let circuit = circuit.to_circuit().expect("valid QIS gates");
    let exact = DenseSimulator::new().probabilities(&circuit).expect("simulates");
    read_board(exact.probabilities.iter().enumerate().map(|(state, &p)| (state as u64, p)), sidecar)
}
