//! The gates a program may call without defining them, each as IR gates with its exact
//! matrix, global phase included (it matters once the gate is controlled).
//!
//! Two libraries: OpenQASM 3's `stdgates.inc`, whose gates mean what its definitions say (so
//! `u2` and `u3` carry the global phases written there), and Qiskit's standard gates (what a
//! QPY circuit names), where `u`, `u2` and `u3` are exactly `U` and a few more gates exist
//! (`sxdg`, `ecr`, `rzz`, `rzx`, `iswap`, `cs`, ...).

use std::f64::consts::{FRAC_PI_2, FRAC_PI_4};

use qchess_circuit::ir::GateKind;

/// Which gates are in scope without a definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GateLibrary {
    /// Only the built-in `U` and `gphase` (OpenQASM 3 without `include "stdgates.inc"`).
    #[default]
    Core,
    /// `stdgates.inc`.
    Stdgates,
    /// Qiskit's standard gates (QPY circuits).
    Qiskit,
}

/// A gate known without a definition: its name and shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StandardGate {
    /// Its name (`rz`, `cx`, ...).
    pub name: &'static str,
    /// Number of parameters.
    pub params: usize,
    /// Number of qubits.
    pub qubits: usize,
    /// Whether `stdgates.inc` defines it (otherwise only Qiskit's library has it).
    pub in_stdgates: bool,
}

const fn gate(name: &'static str, params: usize, qubits: usize, in_stdgates: bool) -> StandardGate {
    StandardGate { name, params, qubits, in_stdgates }
}

/// Every gate of both libraries.
pub const STANDARD_GATES: &[StandardGate] = &[
    gate("p", 1, 1, true),
    gate("phase", 1, 1, true),
    gate("x", 0, 1, true),
    gate("y", 0, 1, true),
    gate("z", 0, 1, true),
    gate("h", 0, 1, true),
    gate("s", 0, 1, true),
    gate("sdg", 0, 1, true),
    gate("t", 0, 1, true),
    gate("tdg", 0, 1, true),
    gate("sx", 0, 1, true),
    gate("rx", 1, 1, true),
    gate("ry", 1, 1, true),
    gate("rz", 1, 1, true),
    gate("id", 0, 1, true),
    gate("u1", 1, 1, true),
    gate("u2", 2, 1, true),
    gate("u3", 3, 1, true),
    gate("cx", 0, 2, true),
    gate("CX", 0, 2, true),
    gate("cy", 0, 2, true),
    gate("cz", 0, 2, true),
    gate("cp", 1, 2, true),
    gate("cphase", 1, 2, true),
    gate("crx", 1, 2, true),
    gate("cry", 1, 2, true),
    gate("crz", 1, 2, true),
    gate("ch", 0, 2, true),
    gate("cu", 4, 2, true),
    gate("swap", 0, 2, true),
    gate("ccx", 0, 3, true),
    gate("cswap", 0, 3, true),
    gate("u", 3, 1, false),
    gate("sxdg", 0, 1, false),
    gate("r", 2, 1, false),
    gate("cs", 0, 2, false),
    gate("csdg", 0, 2, false),
    gate("csx", 0, 2, false),
    gate("cu1", 1, 2, false),
    gate("cu3", 3, 2, false),
    gate("dcx", 0, 2, false),
    gate("ecr", 0, 2, false),
    gate("iswap", 0, 2, false),
    gate("rxx", 1, 2, false),
    gate("ryy", 1, 2, false),
    gate("rzz", 1, 2, false),
    gate("rzx", 1, 2, false),
    gate("ccz", 0, 3, false),
    gate("c3x", 0, 4, false),
    gate("c4x", 0, 5, false),
];

/// The gate `name` if `library` has it.
pub fn standard_gate(name: &str, library: GateLibrary) -> Option<&'static StandardGate> {
    let known = STANDARD_GATES.iter().find(|g| g.name == name)?;
    match library {
        GateLibrary::Core => None,
        GateLibrary::Stdgates if !known.in_stdgates => None,
        // Qiskit names CX `cx` and the phase gate `p`.
        GateLibrary::Qiskit if matches!(name, "CX" | "phase" | "cphase") => None,
        _ => Some(known),
    }
}

/// One piece of an expansion over the gate's operands (indices into them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Piece {
    /// A gate on operand `targets` under operand `controls` (operand, acts on |1>).
    Gate { kind: GateKind, targets: Vec<usize>, controls: Vec<(usize, bool)> },
    /// A global phase `e^{i angle}`.
    Phase(f64),
}

fn on(kind: GateKind, targets: &[usize]) -> Piece {
    Piece::Gate { kind, targets: targets.to_vec(), controls: Vec::new() }
}

fn controlled(kind: GateKind, controls: &[usize], targets: &[usize]) -> Piece {
    Piece::Gate { kind, targets: targets.to_vec(), controls: controls.iter().map(|&c| (c, true)).collect() }
}

/// The exact expansion of a library gate with `p` its parameters (as many as it takes);
/// `None` when the library has no such gate. `U` and `gphase` are not here: they are built in.
pub(crate) fn expand(name: &str, p: &[f64], library: GateLibrary) -> Option<Vec<Piece>> {
    use GateKind::*;
    let known = standard_gate(name, library)?;
    if p.len() != known.params {
        return None;
    }
    let arg = |i: usize| p[i];
    let qiskit = library == GateLibrary::Qiskit;
    Some(match name {
        "p" | "phase" | "u1" => vec![on(Phase(arg(0)), &[0])],
        "x" => vec![on(X, &[0])],
        "y" => vec![on(Y, &[0])],
        "z" => vec![on(Z, &[0])],
        "h" => vec![on(H, &[0])],
        "s" => vec![on(S, &[0])],
        "sdg" => vec![on(Sdg, &[0])],
        "t" => vec![on(T, &[0])],
        "tdg" => vec![on(Tdg, &[0])],
        "sx" => vec![on(Sx, &[0])],
        "sxdg" => vec![on(Sxdg, &[0])],
        "rx" => vec![on(Rx(arg(0)), &[0])],
        "ry" => vec![on(Ry(arg(0)), &[0])],
        "rz" => vec![on(Rz(arg(0)), &[0])],
        "id" => Vec::new(),
        "u" => vec![on(U(arg(0), arg(1), arg(2)), &[0])],
        "u2" if qiskit => vec![on(U(FRAC_PI_2, arg(0), arg(1)), &[0])],
        "u2" => vec![Piece::Phase(-(arg(0) + arg(1) + FRAC_PI_2) / 2.0), on(U(FRAC_PI_2, arg(0), arg(1)), &[0])],
        "u3" if qiskit => vec![on(U(arg(0), arg(1), arg(2)), &[0])],
        "u3" => vec![Piece::Phase(-(arg(1) + arg(2)) / 2.0), on(U(arg(0), arg(1), arg(2)), &[0])],
        "r" => vec![on(U(arg(0), arg(1) - FRAC_PI_2, FRAC_PI_2 - arg(1)), &[0])],
        "cx" | "CX" => vec![controlled(X, &[0], &[1])],
        "cy" => vec![controlled(Y, &[0], &[1])],
        "cz" => vec![controlled(Z, &[0], &[1])],
        "ch" => vec![controlled(H, &[0], &[1])],
        "cs" => vec![controlled(S, &[0], &[1])],
        "csdg" => vec![controlled(Sdg, &[0], &[1])],
        "csx" => vec![controlled(Sx, &[0], &[1])],
        "cp" | "cphase" | "cu1" => vec![controlled(Phase(arg(0)), &[0], &[1])],
        "crx" => vec![controlled(Rx(arg(0)), &[0], &[1])],
        "cry" => vec![controlled(Ry(arg(0)), &[0], &[1])],
        "crz" => vec![controlled(Rz(arg(0)), &[0], &[1])],
        "cu" => vec![on(Phase(arg(3)), &[0]), controlled(U(arg(0), arg(1), arg(2)), &[0], &[1])],
        "cu3" => vec![controlled(U(arg(0), arg(1), arg(2)), &[0], &[1])],
        "swap" => vec![on(Swap, &[0, 1])],
        "iswap" => vec![on(ISwap(1.0), &[0, 1])],
        "dcx" => vec![controlled(X, &[0], &[1]), controlled(X, &[1], &[0])],
        // Qiskit's ECR is e^{-i pi/4} (X on the first operand) CX (SX on the second)(S on the first).
        "ecr" => vec![Piece::Phase(-FRAC_PI_4), on(S, &[0]), on(Sx, &[1]), controlled(X, &[0], &[1]), on(X, &[0])],
        "rxx" => vec![on(Rxx(arg(0)), &[0, 1])],
        "ryy" => vec![on(Ryy(arg(0)), &[0, 1])],
        "rzz" => vec![on(Rzz(arg(0)), &[0, 1])],
        // exp(-i theta/2 Z(x)X), Z on the first operand: H on the second around exp(-i theta/2 ZZ).
        "rzx" => vec![on(H, &[1]), on(Rzz(arg(0)), &[0, 1]), on(H, &[1])],
        "ccx" => vec![controlled(X, &[0, 1], &[2])],
        "ccz" => vec![controlled(Z, &[0, 1], &[2])],
        "cswap" => vec![controlled(Swap, &[0], &[1, 2])],
        "c3x" => vec![controlled(X, &[0, 1, 2], &[3])],
        "c4x" => vec![controlled(X, &[0, 1, 2, 3], &[4])],
        _ => return None,
    })
}
