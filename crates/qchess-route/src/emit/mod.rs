//! A compiled circuit as OpenQASM 3 or 2 over the device's physical qubits (or, with
//! [`to_braket`], as the program Amazon Braket runs as written): `q[p]` is physical qubit `p`;
//! the circuit's own classical bits are `c`, the final measurements `meas`; every native gate
//! outside the standard library is defined in the file. A header comment gives the
//! target, the figures, the estimated success probability with the calibration's date (and the
//! broken elements left out) when the target is calibrated, and the layout.

use std::fmt::Write as _;

use crate::compile::Compiled;
use crate::native::{IsaOp, NativeGate};
use crate::target::Target;

pub mod braket;

pub use braket::{BraketEmitError, to_braket};

/// The comment lines every program starts with: the target, the figures, the estimated success
/// probability with the calibration's date and what is left out, and the layout (physical qubits
/// written by `physical`).
fn header(compiled: &Compiled, target: &Target, info: &EmitInfo, physical: impl Fn(u32) -> String) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "// Compiled for {} ({} qubits, {} basis).", target.name, target.num_qubits, target.basis);
    let _ = writeln!(
        text,
        "// two-qubit gates: {}, depth: {}, swaps: {}",
        compiled.two_qubit_count(),
        compiled.depth(),
        compiled.swaps
    );
    if let Some(esp) = compiled.esp {
        let date = target.calibration.date.as_deref().unwrap_or("no date given");
        let _ = writeln!(text, "// estimated success probability: {esp:.6} (calibration of {date})");
        let (qubits, couplers) = (target.broken_qubits().len(), target.broken_couplers().len());
        if qubits + couplers > 0 {
            let _ = writeln!(text, "// left out as broken: {qubits} qubits, {couplers} couplers");
        }
    }
    let _ = writeln!(text, "// layout: logical qubit -> physical qubit at the start -> at the end");
    for (l, &end) in compiled.final_layout.iter().enumerate() {
        let name = info.qubit_names.get(l).map_or_else(|| format!("l{l}"), Clone::clone);
        let start =
            compiled.initial_layout.get(l).copied().flatten().map_or_else(|| "placed later".to_owned(), &physical);
        let _ = writeln!(text, "//   {name}: {start} -> {}", physical(end));
    }
    text
}

/// The native gates outside the standard libraries, each defined in a file that uses it.
const DEFINED: [NativeGate; 8] = [
    NativeGate::Ecr,
    NativeGate::SqrtIswap,
    NativeGate::Ms,
    NativeGate::ISwap,
    NativeGate::Zz,
    NativeGate::Gpi(0.0),
    NativeGate::Gpi2(0.0),
    NativeGate::Prx(0.0, 0.0),
];

/// A gate's angles as OpenQASM arguments: `(0.5)`, `(0.5, 1.2)`, or nothing.
pub fn arguments(gate: NativeGate) -> String {
    let angles = gate.parameters();
    if angles.is_empty() {
        return String::new();
    }
    let listed: Vec<String> = angles.iter().map(f64::to_string).collect();
    format!("({})", listed.join(", "))
}

/// OpenQASM version to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QasmVersion {
    /// OpenQASM 2.0 with `qelib1.inc`.
    V2,
    /// OpenQASM 3.0 with `stdgates.inc`.
    V3,
}

/// Names for the header: each logical qubit's name, and how many of the classical bits are the
/// circuit's own (`c`); the rest are the final measurements (`meas`).
#[derive(Debug, Clone, Default)]
pub struct EmitInfo {
    /// Name of each logical qubit (`e4`, `anc3_path`).
    pub qubit_names: Vec<String>,
    /// Classical bits of the circuit itself; bits from here on form `meas`.
    pub circuit_clbits: u32,
}

/// The program text.
pub fn to_qasm(compiled: &Compiled, target: &Target, info: &EmitInfo, version: QasmVersion) -> String {
    let mut text = header(compiled, target, info, |p| format!("q[{p}]"));
    match version {
        QasmVersion::V3 => text.push_str("OPENQASM 3.0;\ninclude \"stdgates.inc\";\n"),
        QasmVersion::V2 => text.push_str("OPENQASM 2.0;\ninclude \"qelib1.inc\";\n"),
    }
    let used = |name: &str| {
        compiled
            .ops
            .iter()
            .any(|op| matches!(op, IsaOp::One { gate, .. } | IsaOp::Two { gate, .. } if gate.name() == name))
    };
    if version == QasmVersion::V2 && (used("sx") || used("ecr")) {
        // Qiskit's qelib1.inc lacks sx (which the ecr definition uses too): H S H is exactly sqrt(X).
        text.push_str("gate sx a { h a; s a; h a; }\n");
    }
    for gate in DEFINED {
        if let Some(line) = gate.definition_line().filter(|_| used(gate.name())) {
            let _ = writeln!(text, "{line}");
        }
    }
    let own = info.circuit_clbits.min(compiled.num_clbits);
    let measured = compiled.num_clbits - own;
    let register = |clbit: u32| if clbit < own { format!("c[{clbit}]") } else { format!("meas[{}]", clbit - own) };
    match version {
        QasmVersion::V3 => {
            let _ = writeln!(text, "qubit[{}] q;", compiled.num_qubits);
            if own > 0 {
                let _ = writeln!(text, "bit[{own}] c;");
            }
            if measured > 0 {
                let _ = writeln!(text, "bit[{measured}] meas;");
            }
        }
        QasmVersion::V2 => {
            let _ = writeln!(text, "qreg q[{}];", compiled.num_qubits);
            if own > 0 {
                let _ = writeln!(text, "creg c[{own}];");
            }
            if measured > 0 {
                let _ = writeln!(text, "creg meas[{measured}];");
            }
        }
    }
    for op in &compiled.ops {
        let _ = match *op {
            IsaOp::One { gate, qubit } => writeln!(text, "{}{} q[{qubit}];", gate.name(), arguments(gate)),
            IsaOp::Two { gate, a, b } => writeln!(text, "{} q[{a}], q[{b}];", gate.name()),
            IsaOp::Measure { qubit, clbit } => match version {
                QasmVersion::V3 => writeln!(text, "{} = measure q[{qubit}];", register(clbit)),
                QasmVersion::V2 => writeln!(text, "measure q[{qubit}] -> {};", register(clbit)),
            },
            IsaOp::Reset { qubit } => writeln!(text, "reset q[{qubit}];"),
        };
    }
    text
}
