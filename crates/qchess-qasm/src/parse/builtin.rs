//! Gates the translator maps straight to IR gates instead of expanding their definitions:
//! those of `qelib1.inc`, and the extra gates Qiskit's exporter writes without defining them
//! (`sx`, `p`, `swap`, `rzz`, `cp`, `c3x`, ...).
//!
//! Mapping is exact up to a global phase, the only freedom OpenQASM 2 leaves (it cannot control
//! a defined gate). Where `qelib1.inc`'s body and Qiskit disagree beyond that, Qiskit's meaning
//! is taken: `cu3` is the controlled `u3` (the body in `qelib1.inc` drops a phase on the
//! control).

use std::f64::consts::PI;

use qchess_circuit::ir::{Gate, GateKind, Qubit};

/// Qiskit's extensions of `qelib1.inc`, as `opaque` declarations: name, parameters, qubits.
const EXTENSIONS: &[(&str, usize, usize)] = &[
    ("u", 3, 1),
    ("p", 1, 1),
    ("u0", 1, 1),
    ("sx", 0, 1),
    ("sxdg", 0, 1),
    ("swap", 0, 2),
    ("cswap", 0, 3),
    ("crx", 1, 2),
    ("cry", 1, 2),
    ("cp", 1, 2),
    ("csx", 0, 2),
    ("cu", 4, 2),
    ("rxx", 1, 2),
    ("ryy", 1, 2),
    ("rzz", 1, 2),
    ("c3x", 0, 4),
    ("c4x", 0, 5),
];

/// The gates of `qelib1.inc` itself.
const QELIB1: &[&str] = &[
    "u3", "u2", "u1", "cx", "id", "x", "y", "z", "h", "s", "sdg", "t", "tdg", "rx", "ry", "rz", "cz", "cy", "ch",
    "ccx", "crz", "cu1", "cu3",
];

/// Whether `name` is a gate of `qelib1.inc`.
pub(crate) fn is_qelib1(name: &str) -> bool {
    QELIB1.contains(&name)
}

/// The `opaque` declarations of the extension gates among `names`.
pub(crate) fn extension_declarations<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let mut text = String::new();
    for name in names {
        if let Some((name, params, qubits)) = EXTENSIONS.iter().find(|(n, ..)| *n == name) {
            let params: Vec<String> = (0..*params).map(|i| format!("p{i}")).collect();
            let qubits: Vec<String> = (0..*qubits).map(|i| format!("a{i}")).collect();
            let params = if params.is_empty() { String::new() } else { format!("({})", params.join(",")) };
            text.push_str(&format!("opaque {name}{params} {};\n", qubits.join(",")));
        }
    }
    text
}

/// Whether `name` is an extension gate.
pub(crate) fn is_extension(name: &str) -> bool {
    EXTENSIONS.iter().any(|(n, ..)| *n == name)
}

/// The IR gates of builtin gate `name` with parameter values `p` on `qubits` (controls
/// first, as OpenQASM writes them); `None` if `name` is not a builtin.
pub(crate) fn builtin_gates(name: &str, p: &[f64], qubits: &[Qubit]) -> Option<Vec<Gate>> {
    use GateKind::*;
    let one = |kind: GateKind| vec![Gate::one(kind, qubits[qubits.len() - 1])];
    let controlled = |kind: GateKind, controls: usize| {
        let targets = &qubits[controls..];
        let gate =
            if kind.arity() == 1 { Gate::one(kind, targets[0]) } else { Gate::two(kind, targets[0], targets[1]) };
        vec![qubits[..controls].iter().fold(gate, |g, &c| g.controlled(c))]
    };
    let two = |kind: GateKind| vec![Gate::two(kind, qubits[0], qubits[1])];
    let arg = |i: usize| p.get(i).copied().unwrap_or(0.0);
    Some(match name {
        "u3" | "u" => one(U(arg(0), arg(1), arg(2))),
        "u2" => one(U(PI / 2.0, arg(0), arg(1))),
        "u1" | "p" => one(Phase(arg(0))),
        "id" | "u0" => vec![],
        "x" => one(X),
        "y" => one(Y),
        "z" => one(Z),
        "h" => one(H),
        "s" => one(S),
        "sdg" => one(Sdg),
        "t" => one(T),
        "tdg" => one(Tdg),
        "sx" => one(Sx),
        "sxdg" => one(Sxdg),
        "rx" => one(Rx(arg(0))),
        "ry" => one(Ry(arg(0))),
        "rz" => one(Rz(arg(0))),
        "cx" => controlled(X, 1),
        "cy" => controlled(Y, 1),
        "cz" => controlled(Z, 1),
        "ch" => controlled(H, 1),
        "ccx" => controlled(X, 2),
        "c3x" => controlled(X, 3),
        "c4x" => controlled(X, 4),
        "crx" => controlled(Rx(arg(0)), 1),
        "cry" => controlled(Ry(arg(0)), 1),
        "crz" => controlled(Rz(arg(0)), 1),
        "cu1" | "cp" => controlled(Phase(arg(0)), 1),
        "cu3" => controlled(U(arg(0), arg(1), arg(2)), 1),
        "csx" => controlled(Sx, 1),
        "cu" => {
            // Controlled (e^{i gamma} U): the phase lands on the control.
            let mut gates = vec![Gate::one(Phase(arg(3)), qubits[0])];
            gates.extend(controlled(U(arg(0), arg(1), arg(2)), 1));
            gates
        }
        "swap" => two(Swap),
        "cswap" => controlled(Swap, 1),
        "rxx" => two(Rxx(arg(0))),
        "ryy" => two(Ryy(arg(0))),
        "rzz" => two(Rzz(arg(0))),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_qelib1_gate_is_a_builtin() {
        for name in QELIB1 {
            assert!(builtin_gates(name, &[0.1; 3], &[Qubit(0), Qubit(1), Qubit(2)]).is_some(), "{name}");
        }
    }

    #[test]
    fn extension_declarations_match_the_builtin_table() {
        let text = extension_declarations(["cu", "sx", "nonsense"]);
        assert_eq!(text, "opaque cu(p0,p1,p2,p3) a0,a1;\nopaque sx a0;\n");
        for (name, params, qubits) in EXTENSIONS {
            let q: Vec<Qubit> = (0..*qubits as u32).map(Qubit).collect();
            let gates = builtin_gates(name, &vec![0.1; *params], &q).expect("every extension is a builtin");
            for gate in gates {
                assert!(gate.qubits().all(|g| q.contains(&g)), "{name}");
            }
        }
    }
}
