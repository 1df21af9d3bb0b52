//! Writes hand-built IR circuits as OpenQASM 2.0 and 3.0, each with its unitary from the dense
//! simulator, for the cross-checks under `tests/python` (which load the files in Qiskit and
//! compare unitaries).
//!
//! ```sh
//! cargo run -p qchess-qasm --example export_circuits -- OUT_DIR
//! ```
//!
//! For every circuit `NAME`, writes `NAME.qasm2`, `NAME.qasm3` and `NAME.json`
//! (`{"qubits": n, "unitary": [[[re, im], ...], ...]}`, row-major, qubit `i` = bit `i`),
//! and lists the names in `index.json`.

use std::path::{Path, PathBuf};

use qchess_circuit::ir::{Circuit, Control, Gate, GateKind, Qubit, QubitRole};
use qchess_core::Square;
use qchess_qasm::emit::{EmitOptions, to_qasm2, to_qasm3};
use qchess_sim::dense::unitary;

/// Control patterns: `true` = control on |1>, `false` = on |0>.
const PATTERNS: [&[bool]; 7] =
    [&[], &[true], &[false], &[true, false], &[false, false], &[true, false, true], &[false, true, false]];

fn slug(kind: GateKind) -> String {
    kind.name().replace(['(', ')', '^', ','], "_").replace('.', "p").replace('-', "m")
}

fn pattern_slug(pattern: &[bool]) -> String {
    if pattern.is_empty() { "bare".into() } else { pattern.iter().map(|&on| if on { 'c' } else { 'n' }).collect() }
}

/// A split, a blocked slide and a merge on named squares: the shapes the move compiler emits.
fn chess_sequence() -> Circuit {
    let mut circuit = Circuit::new();
    let b1 = circuit.add_qubit(QubitRole::square(Square::B1));
    let a3 = circuit.add_qubit(QubitRole::square(Square::A3));
    let c3 = circuit.add_qubit(QubitRole::square(Square::C3));
    let d2 = circuit.add_qubit(QubitRole::square(Square::D2));
    let path = circuit.add_qubit(QubitRole::Path);
    let e1 = circuit.add_qubit(QubitRole::square(Square::E1));
    circuit.push_gate(Gate::x(b1));
    circuit.push_gate(Gate::x(e1));
    circuit.push_gate(Gate::iswap(b1, a3, 0.5));
    circuit.push_gate(Gate::iswap(b1, c3, 1.0));
    circuit.push_gate(Gate::x(path).anti_controlled(c3).anti_controlled(d2));
    circuit.push_gate(Gate::iswap(e1, b1, 1.0).controlled(path));
    circuit.push_gate(Gate::x(path).anti_controlled(c3).anti_controlled(d2));
    circuit.push_gate(Gate::iswap(a3, d2, -1.0));
    circuit.push_gate(Gate::iswap(c3, d2, -0.5));
    circuit.push_gate(Gate::two(GateKind::Swap, b1, e1).anti_controlled(d2));
    circuit
}

/// Multi-controlled X with many mixed controls.
fn wide_mcx(controls: usize) -> Circuit {
    let mut circuit = Circuit::new();
    for _ in 0..=controls {
        circuit.add_qubit(QubitRole::General);
    }
    let list = (1..=controls).map(|i| Control { qubit: Qubit(i as u32), on: i % 3 != 0 });
    circuit.push_gate(Gate::x(Qubit(0)).with_controls(list));
    circuit
}

fn write(dir: &Path, name: &str, circuit: &Circuit) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::write(dir.join(format!("{name}.qasm2")), to_qasm2(circuit, &EmitOptions::default())?)?;
    std::fs::write(dir.join(format!("{name}.qasm3")), to_qasm3(circuit, &EmitOptions::default())?)?;
    let u = unitary(circuit)?;
    let rows: Vec<Vec<[f64; 2]>> =
        (0..u.dim()).map(|r| (0..u.dim()).map(|c| [u.entry(r, c).re, u.entry(r, c).im]).collect()).collect();
    let json = serde_json::json!({ "qubits": u.num_qubits(), "unitary": rows });
    std::fs::write(dir.join(format!("{name}.json")), serde_json::to_string(&json)?)?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir: PathBuf = std::env::args_os().nth(1).map(PathBuf::from).ok_or("usage: export_circuits OUT_DIR")?;
    std::fs::create_dir_all(&dir)?;
    let mut names = Vec::new();
    for kind in GateKind::samples() {
        for pattern in PATTERNS {
            let name = format!("{}_{}", slug(kind), pattern_slug(pattern));
            write(&dir, &name, &Circuit::single_gate(kind, pattern))?;
            names.push(name);
        }
    }
    for (name, circuit) in
        [("chess_sequence".to_string(), chess_sequence()), ("mcx_5".into(), wide_mcx(5)), ("mcx_6".into(), wide_mcx(6))]
    {
        write(&dir, &name, &circuit)?;
        names.push(name);
    }
    std::fs::write(dir.join("index.json"), serde_json::to_string(&names)?)?;
    println!("wrote {} circuits to {}", names.len(), dir.display());
    Ok(())
}
