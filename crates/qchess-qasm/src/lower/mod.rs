//! Lowering passes: rewrite a circuit into a hardware gate set, exactly up to global phase.
//!
//! * [`GateSet::CxSingleQubit`]: CX plus uncontrolled one-qubit gates (what OpenQASM 2's
//!   `qelib1.inc` and most devices accept);
//! * [`GateSet::SqrtIswap`]: sqrt-iSWAP plus uncontrolled one-qubit gates (Google-style
//!   devices);
//! * [`GateSet::IonqQis`]: IonQ's QIS gates: Paulis, H, S, T, sqrt(X), their inverses,
//!   `rx`/`ry`/`rz`, CNOT, SWAP and `xx`/`yy`/`zz`.
//!
//! Anti-controls become X conjugations; controls are removed by the exact, ancilla-free
//! constructions in the `synth` module, whose cost grows as `2^controls`, so gates with more
//! than [`MAX_CONTROLS`] controls are refused. Measurements, resets, conditions (copied onto
//! every gate of a lowered gate) and post-selections are kept.
//!
//! ```
//! use qchess_circuit::ir::{Circuit, Gate, QubitRole};
//! use qchess_qasm::lower::{GateSet, lower};
//!
//! let mut circuit = Circuit::new();
//! let c = circuit.add_qubit(QubitRole::General);
//! let a = circuit.add_qubit(QubitRole::General);
//! let b = circuit.add_qubit(QubitRole::General);
//! circuit.push_gate(Gate::iswap(a, b, 0.5).anti_controlled(c));
//! let lowered = lower(&circuit, GateSet::CxSingleQubit).unwrap();
//! assert!(lowered.ops.iter().all(|op| match op {
//!     qchess_circuit::ir::Op::Gate { gate, .. } => GateSet::CxSingleQubit.admits(gate),
//!     _ => true,
//! }));
//! ```

mod synth;

use std::f64::consts::{FRAC_PI_2, PI};

use qchess_circuit::ir::{Circuit, Gate, GateKind, GateShapeError, Op, Qubit};

use synth::Emitter;

/// The most positive-or-negative controls a lowered gate may have.
pub const MAX_CONTROLS: usize = 12;

/// A target gate set of a lowering pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GateSet {
    /// CX plus any uncontrolled one-qubit gate.
    CxSingleQubit,
    /// sqrt-iSWAP (`ISwap(0.5)`) plus any uncontrolled one-qubit gate.
    SqrtIswap,
    /// IonQ's `qis` gates: uncontrolled X, Y, Z, H, S, S†, T, T†, sqrt(X), sqrt(X)†, Rx, Ry,
    /// Rz, SWAP, Rxx, Ryy, Rzz, and CX.
    IonqQis,
}

/// Why a circuit could not be lowered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LowerError {
    /// A gate does not fit the circuit.
    #[error("operation {op}")]
    InvalidGate {
        /// Index of the operation.
        op: usize,
        /// What is wrong with the gate.
        source: GateShapeError,
    },
    /// A gate has more controls than the decompositions support.
    #[error("operation {op}: {gate} has {controls} controls; at most {MAX_CONTROLS} can be decomposed")]
    TooManyControls {
        /// Index of the operation.
        op: usize,
        /// The gate, printed.
        gate: String,
        /// Its number of controls.
        controls: usize,
    },
}

impl GateSet {
    /// Every gate set.
    pub const ALL: [GateSet; 3] = [GateSet::CxSingleQubit, GateSet::SqrtIswap, GateSet::IonqQis];

    /// A short name (`cx`, `sqrt-iswap`, `ionq-qis`).
    pub fn name(self) -> &'static str {
        match self {
            GateSet::CxSingleQubit => "cx",
            GateSet::SqrtIswap => "sqrt-iswap",
            GateSet::IonqQis => "ionq-qis",
        }
    }

    /// Whether `gate` belongs to the gate set as it is.
    pub fn admits(self, gate: &Gate) -> bool {
        use GateKind::*;
        let uncontrolled = gate.controls.is_empty();
        let is_cx = gate.kind == X && gate.controls.len() == 1 && gate.controls[0].on;
        match self {
            GateSet::CxSingleQubit => (uncontrolled && gate.kind.arity() == 1) || is_cx,
            GateSet::SqrtIswap => uncontrolled && (gate.kind.arity() == 1 || gate.kind == ISwap(0.5)),
            GateSet::IonqQis => {
                is_cx
                    || uncontrolled
                        && matches!(
                            gate.kind,
                            X | Y
                                | Z
                                | H
                                | S
                                | Sdg
                                | T
                                | Tdg
                                | Sx
                                | Sxdg
                                | Rx(_)
                                | Ry(_)
                                | Rz(_)
                                | Swap
                                | Rxx(_)
                                | Ryy(_)
                                | Rzz(_)
                        )
            }
        }
    }
}

/// Lowers every gate of `circuit` into `target`; everything else is copied.
pub fn lower(circuit: &Circuit, target: GateSet) -> Result<Circuit, LowerError> {
    let mut lowered = Circuit { ops: Vec::with_capacity(circuit.ops.len()), ..circuit.clone() };
    for (index, op) in circuit.ops.iter().enumerate() {
        match op {
            Op::Gate { gate, condition } => {
                gate.check_shape(circuit.num_qubits())
                    .map_err(|source| LowerError::InvalidGate { op: index, source })?;
                let gates = lower_checked(gate, target).map_err(|controls| LowerError::TooManyControls {
                    op: index,
                    gate: gate.to_string(),
                    controls,
                })?;
                lowered.ops.extend(gates.into_iter().map(|gate| Op::Gate { gate, condition: *condition }));
            }
            other => lowered.ops.push(other.clone()),
        }
    }
    Ok(lowered)
}

/// Lowers one gate into `target`, returning the replacement sequence (in time order).
pub fn lower_gate(gate: &Gate, target: GateSet) -> Result<Vec<Gate>, LowerError> {
    let width = gate.qubits().map(|q| q.index() + 1).max().unwrap_or(0);
    gate.check_shape(width).map_err(|source| LowerError::InvalidGate { op: 0, source })?;
    lower_checked(gate, target).map_err(|controls| LowerError::TooManyControls {
        op: 0,
        gate: gate.to_string(),
        controls,
    })
}

/// Lowers a gate whose shape is valid; `Err` carries the control count when it is too large.
fn lower_checked(gate: &Gate, target: GateSet) -> Result<Vec<Gate>, usize> {
    if target.admits(gate) {
        return Ok(vec![gate.clone()]);
    }
    if gate.controls.len() > MAX_CONTROLS {
        return Err(gate.controls.len());
    }
    let anti: Vec<Qubit> = gate.controls.iter().filter(|c| !c.on).map(|c| c.qubit).collect();
    let controls: Vec<Qubit> = gate.controls.iter().map(|c| c.qubit).collect();
    let mut out = Emitter::default();
    anti.iter().for_each(|&q| out.gates.push(Gate::x(q)));
    let core = match target {
        GateSet::CxSingleQubit => to_cx(gate.kind, &controls, &gate.targets),
        GateSet::SqrtIswap => to_sqrt_iswap(gate.kind, &controls, &gate.targets),
        GateSet::IonqQis => to_ionq(gate.kind, &controls, &gate.targets),
    };
    out.gates.extend(core);
    anti.iter().for_each(|&q| out.gates.push(Gate::x(q)));
    Ok(out.gates)
}

/// `kind` on `targets` under positive `controls`, in CX + one-qubit gates.
fn to_cx(kind: GateKind, controls: &[Qubit], targets: &[Qubit]) -> Vec<Gate> {
    let mut out = Emitter::default();
    match *targets {
        [t] => out.controlled_one(kind, controls, t),
        [a, b] => out.controlled_two(kind, controls, a, b),
        _ => {}
    }
    out.gates
}

/// `kind` under positive `controls` in sqrt-iSWAP + one-qubit gates.
fn to_sqrt_iswap(kind: GateKind, controls: &[Qubit], targets: &[Qubit]) -> Vec<Gate> {
    if let (true, GateKind::ISwap(t), &[a, b]) = (controls.is_empty(), kind, targets) {
        // Whole and half powers need no CX: iSWAP^-t = Z_a iSWAP^t Z_a.
        let halves = match t {
            t if t == 0.5 || t == -0.5 => Some(1),
            t if t == 1.0 || t == -1.0 => Some(2),
            _ => None,
        };
        if let Some(count) = halves {
            let mut gates = Vec::new();
            if t < 0.0 {
                gates.push(Gate::one(GateKind::Z, a));
            }
            gates.extend(std::iter::repeat_n(Gate::iswap(a, b, 0.5), count));
            if t < 0.0 {
                gates.push(Gate::one(GateKind::Z, a));
            }
            return gates;
        }
    }
    to_cx(kind, controls, targets)
        .into_iter()
        .flat_map(|gate| match (gate.kind, gate.controls.as_slice()) {
            (GateKind::X, [control]) => cx_by_sqrt_iswap(control.qubit, gate.targets[0]),
            _ => vec![gate],
        })
        .collect()
}

/// CX(c, t) up to a global phase from two sqrt-iSWAPs: X_c conjugation turns the second one
/// into `exp(i pi/8 (XX - YY))`, so the pair is `exp(i pi/4 XX)`; H on the control makes that
/// `exp(i pi/4 ZX)`, which with `Rz(pi/2)` on the control and `Rx(pi/2)` on the target is CX.
fn cx_by_sqrt_iswap(c: Qubit, t: Qubit) -> Vec<Gate> {
    vec![
        Gate::one(GateKind::Rx(FRAC_PI_2), t),
        Gate::one(GateKind::Rz(FRAC_PI_2), c),
        Gate::one(GateKind::H, c),
        Gate::iswap(c, t, 0.5),
        Gate::x(c),
        Gate::iswap(c, t, 0.5),
        Gate::x(c),
        Gate::one(GateKind::H, c),
    ]
}

/// `kind` under positive `controls` in IonQ QIS gates.
fn to_ionq(kind: GateKind, controls: &[Qubit], targets: &[Qubit]) -> Vec<Gate> {
    if controls.is_empty() {
        match (kind, targets) {
            (GateKind::ISwap(t), &[a, b]) => {
                // iSWAP^t = Rxx(-pi t/2) Ryy(-pi t/2); the two commute.
                let angle = -PI * t / 2.0;
                return vec![Gate::two(GateKind::Rxx(angle), a, b), Gate::two(GateKind::Ryy(angle), a, b)];
            }
            (_, &[t]) => return ionq_one(kind, t),
            _ => {}
        }
    }
    to_cx(kind, controls, targets)
        .into_iter()
        .flat_map(|gate| if gate.controls.is_empty() { ionq_one(gate.kind, gate.targets[0]) } else { vec![gate] })
        .collect()
}

/// An uncontrolled one-qubit gate in IonQ QIS gates (up to global phase).
fn ionq_one(kind: GateKind, target: Qubit) -> Vec<Gate> {
    match kind {
        GateKind::Phase(lambda) => vec![Gate::one(GateKind::Rz(lambda), target)],
        GateKind::U(theta, phi, lambda) => vec![
            Gate::one(GateKind::Rz(lambda), target),
            Gate::one(GateKind::Ry(theta), target),
            Gate::one(GateKind::Rz(phi), target),
        ],
        _ => vec![Gate::one(kind, target)],
    }
}

#[cfg(test)]
mod tests;
