//! IonQ's `ionq.circuit.v1` JSON with the `qis` gate set, both ways.
//!
//! [`to_ionq`] lowers a circuit to IonQ's QIS gates ([`GateSet::IonqQis`]) and writes it as
//! `{"gateset": "qis", "qubits": n, "circuit": [...]}`; rotations carry `rotation` in
//! radians. IonQ measures every qubit at the end of a JSON circuit and reports results over all
//! of them with qubit `i` as bit `i`, so final measurements are dropped, and a circuit that
//! measures mid-way, resets or has a condition cannot be written (the caller post-selects on
//! the circuit's `postselect` list from the results). [`IonqCircuit::to_circuit`] reads a
//! circuit back, accepting both spellings clients send (`target`/`targets`,
//! `control`/`controls`, `cnot`/`x` with a control).
//!
//! ```
//! use qchess_circuit::ir::{Circuit, Gate, QubitRole};
//! use qchess_qasm::ionq::to_ionq;
//!
//! let mut circuit = Circuit::new();
//! let a = circuit.add_qubit(QubitRole::General);
//! let b = circuit.add_qubit(QubitRole::General);
//! circuit.push_gate(Gate::x(a));
//! circuit.push_gate(Gate::iswap(a, b, 1.0));
//! let json = serde_json::to_string(&to_ionq(&circuit).unwrap()).unwrap();
//! assert_eq!(
//!     json,
//!     r#"{"gateset":"qis","qubits":2,"circuit":[{"gate":"x","targets":[0]},{"gate":"xx","targets":[0,1],"rotation":-1.5707963267948966},{"gate":"yy","targets":[0,1],"rotation":-1.5707963267948966}]}"#
//! );
//! ```

use qchess_circuit::ir::{Circuit, Control, Gate, GateKind, Op, Qubit, QubitRole};
use serde::{Deserialize, Serialize};

use crate::lower::{GateSet, LowerError, lower};

/// A QIS gate name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QisGate {
    /// Pauli X.
    X,
    /// Pauli Y.
    Y,
    /// Pauli Z.
    Z,
    /// X rotation by `rotation`.
    Rx,
    /// Y rotation by `rotation`.
    Ry,
    /// Z rotation by `rotation`.
    Rz,
    /// Hadamard.
    H,
    /// X (another name).
    Not,
    /// X with one control.
    Cnot,
    /// S.
    S,
    /// S dagger.
    Si,
    /// T.
    T,
    /// T dagger.
    Ti,
    /// sqrt(X).
    V,
    /// sqrt(X) dagger.
    Vi,
    /// SWAP.
    Swap,
    /// `exp(-i rotation/2 X(x)X)`.
    Xx,
    /// `exp(-i rotation/2 Y(x)Y)`.
    Yy,
    /// `exp(-i rotation/2 Z(x)Z)`.
    Zz,
}

/// One gate of a QIS circuit. Reading accepts `target` and `control` as well.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IonqGate {
    /// The gate.
    pub gate: QisGate,
    /// Target qubits (also read from `target`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<u32>,
    /// A single target, as some clients send it.
    #[serde(default, skip_serializing)]
    pub target: Option<u32>,
    /// Control qubits (also read from `control`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<u32>,
    /// A single control, as some clients send it.
    #[serde(default, skip_serializing)]
    pub control: Option<u32>,
    /// Rotation angle in radians, for `rx`, `ry`, `rz`, `xx`, `yy`, `zz`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<f64>,
}

/// A circuit in IonQ's `qis` gate set: the `input` of an `ionq.circuit.v1` job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IonqCircuit {
    /// Always `"qis"`.
    pub gateset: String,
    /// Number of qubits; results cover all of them.
    pub qubits: u32,
    /// The gates in order.
    pub circuit: Vec<IonqGate>,
}

/// Why a circuit cannot be written as, or read from, IonQ JSON.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IonqError {
    /// Lowering to QIS gates failed.
    #[error(transparent)]
    Lowering(#[from] LowerError),
    /// IonQ JSON circuits measure only at the end.
    #[error(
        "operation {op}: {what} cannot be expressed in an IonQ JSON circuit, which only measures every qubit at the end"
    )]
    Unsupported {
        /// Index of the operation.
        op: usize,
        /// What the operation is.
        what: &'static str,
    },
    /// A gate read from JSON is malformed.
    #[error("gate {index} ({gate:?}): {reason}")]
    InvalidGate {
        /// Index of the gate in `circuit`.
        index: usize,
        /// The gate name.
        gate: QisGate,
        /// What is wrong.
        reason: String,
    },
    /// The gate set is not `qis`.
    #[error("gate set {0:?} is not supported; only \"qis\" is")]
    UnsupportedGateset(String),
}

/// Lowers `circuit` to IonQ QIS gates and writes it as an IonQ JSON circuit.
pub fn to_ionq(circuit: &Circuit) -> Result<IonqCircuit, IonqError> {
    // Measurements must be final: no later gate or reset touches the qubit.
    let mut touched_later = vec![false; circuit.num_qubits()];
    for (index, op) in circuit.ops.iter().enumerate().rev() {
        match op {
            Op::Gate { condition: Some(_), .. } => {
                return Err(IonqError::Unsupported { op: index, what: "a conditional gate" });
            }
            Op::Gate { gate, .. } => {
                for qubit in gate.qubits() {
                    if let Some(touched) = touched_later.get_mut(qubit.index()) {
                        *touched = true;
                    }
                }
            }
            Op::Reset { .. } => return Err(IonqError::Unsupported { op: index, what: "a reset" }),
            Op::Measure { qubit, .. } if touched_later.get(qubit.index()).copied().unwrap_or(false) => {
                return Err(IonqError::Unsupported { op: index, what: "a mid-circuit measurement" });
            }
            Op::Measure { .. } => {}
        }
    }
    let lowered = lower(circuit, GateSet::IonqQis)?;
    let gates = lowered
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::Gate { gate, .. } => Some(qis_gate(gate)),
            _ => None,
        })
        .collect();
    Ok(IonqCircuit { gateset: "qis".into(), qubits: circuit.num_qubits() as u32, circuit: gates })
}

/// A gate already in [`GateSet::IonqQis`] as JSON.
fn qis_gate(gate: &Gate) -> IonqGate {
    use GateKind::*;
    let (name, rotation) = match gate.kind {
        X => (QisGate::X, None),
        Y => (QisGate::Y, None),
        Z => (QisGate::Z, None),
        H => (QisGate::H, None),
        S => (QisGate::S, None),
        Sdg => (QisGate::Si, None),
        T => (QisGate::T, None),
        Tdg => (QisGate::Ti, None),
        Sx => (QisGate::V, None),
        Sxdg => (QisGate::Vi, None),
        Rx(a) => (QisGate::Rx, Some(a)),
        Ry(a) => (QisGate::Ry, Some(a)),
        Rz(a) => (QisGate::Rz, Some(a)),
        Swap => (QisGate::Swap, None),
        Rxx(a) => (QisGate::Xx, Some(a)),
        Ryy(a) => (QisGate::Yy, Some(a)),
        Rzz(a) => (QisGate::Zz, Some(a)),
        // Not in the QIS set after lowering.
        Phase(a) => (QisGate::Rz, Some(a)),
        U(..) | ISwap(_) => (QisGate::X, None),
    };
    IonqGate {
        gate: name,
        targets: gate.targets.iter().map(|q| q.0).collect(),
        target: None,
        controls: gate.controls.iter().map(|c| c.qubit.0).collect(),
        control: None,
        rotation,
    }
}

impl IonqCircuit {
    /// The circuit as IR, with `General` qubits; every gate's controls are active on |1>.
    pub fn to_circuit(&self) -> Result<Circuit, IonqError> {
        if self.gateset != "qis" {
            return Err(IonqError::UnsupportedGateset(self.gateset.clone()));
        }
        let mut circuit = Circuit::new();
        for _ in 0..self.qubits {
            circuit.add_qubit(QubitRole::General);
        }
        for (index, json) in self.circuit.iter().enumerate() {
            let invalid = |reason: String| IonqError::InvalidGate { index, gate: json.gate, reason };
            let targets: Vec<Qubit> = json.targets.iter().chain(&json.target).map(|&q| Qubit(q)).collect();
            let controls: Vec<Control> =
                json.controls.iter().chain(&json.control).map(|&q| Control { qubit: Qubit(q), on: true }).collect();
            let rotation = || json.rotation.ok_or_else(|| invalid("needs a rotation".into()));
            use QisGate as Q;
            let kind = match json.gate {
                Q::X | Q::Not | Q::Cnot => GateKind::X,
                Q::Y => GateKind::Y,
                Q::Z => GateKind::Z,
                Q::H => GateKind::H,
                Q::S => GateKind::S,
                Q::Si => GateKind::Sdg,
                Q::T => GateKind::T,
                Q::Ti => GateKind::Tdg,
                Q::V => GateKind::Sx,
                Q::Vi => GateKind::Sxdg,
                Q::Rx => GateKind::Rx(rotation()?),
                Q::Ry => GateKind::Ry(rotation()?),
                Q::Rz => GateKind::Rz(rotation()?),
                Q::Swap => GateKind::Swap,
                Q::Xx => GateKind::Rxx(rotation()?),
                Q::Yy => GateKind::Ryy(rotation()?),
                Q::Zz => GateKind::Rzz(rotation()?),
            };
            if json.gate == Q::Cnot && controls.len() != 1 {
                return Err(invalid(format!("cnot needs exactly one control, got {}", controls.len())));
            }
            let gate = Gate { kind, targets: targets.into_iter().collect(), controls: controls.into_iter().collect() };
            gate.check_shape(circuit.num_qubits()).map_err(|e| invalid(e.to_string()))?;
            circuit.push_gate(gate);
        }
        Ok(circuit)
    }
}

#[cfg(test)]
mod tests {
    use qchess_sim::dense::unitary;

    use super::*;

    #[test]
    fn round_trip_through_json_keeps_the_unitary() {
        let mut circuit = Circuit::new();
        let q: Vec<Qubit> = (0..4).map(|_| circuit.add_qubit(QubitRole::General)).collect();
        circuit.push_gate(Gate::one(GateKind::U(0.3, 1.2, -0.4), q[0]));
        circuit.push_gate(Gate::iswap(q[0], q[1], 0.5).anti_controlled(q[2]));
        circuit.push_gate(Gate::x(q[3]).controlled(q[0]).controlled(q[1]).anti_controlled(q[2]));
        circuit.push_gate(Gate::one(GateKind::Phase(0.7), q[3]).controlled(q[1]));
        circuit.push_gate(Gate::two(GateKind::Swap, q[1], q[3]));
        circuit.push_measure(q[0]);
        let json = serde_json::to_string(&to_ionq(&circuit).expect("lowers")).expect("serialises");
        let read: IonqCircuit = serde_json::from_str(&json).expect("parses");
        assert!(read.circuit.iter().all(|g| g.controls.len() <= 1));
        let back = read.to_circuit().expect("valid");
        let mut unitary_part = circuit.clone();
        unitary_part.ops.pop();
        let distance =
            unitary(&unitary_part).expect("small").distance_up_to_global_phase(&unitary(&back).expect("small"));
        assert!(distance < 1e-10, "{distance}");
    }

    #[test]
    fn both_client_spellings_are_read() {
        let cirq = r#"{"gateset":"qis","qubits":3,"circuit":[{"gate":"x","targets":[0]},{"gate":"cnot","control":0,"target":1}]}"#;
        let qiskit = r#"{"gateset":"qis","qubits":3,"circuit":[{"gate":"x","targets":[0]},{"gate":"x","controls":[0],"targets":[1]}]}"#;
        let a = serde_json::from_str::<IonqCircuit>(cirq).expect("parses").to_circuit().expect("valid");
        let b = serde_json::from_str::<IonqCircuit>(qiskit).expect("parses").to_circuit().expect("valid");
        assert_eq!(unitary(&a).expect("small"), unitary(&b).expect("small"));
    }

    #[test]
    fn mid_circuit_operations_and_bad_gates_are_errors() {
        let mut circuit = Circuit::new();
        let a = circuit.add_qubit(QubitRole::General);
        circuit.push_measure(a);
        circuit.push_gate(Gate::x(a));
        assert_eq!(to_ionq(&circuit), Err(IonqError::Unsupported { op: 0, what: "a mid-circuit measurement" }));
        let missing_rotation = r#"{"gateset":"qis","qubits":1,"circuit":[{"gate":"rx","targets":[0]}]}"#;
        let error =
            serde_json::from_str::<IonqCircuit>(missing_rotation).expect("parses").to_circuit().expect_err("no angle");
        assert_eq!(error.to_string(), "gate 0 (Rx): needs a rotation");
        let out_of_range = r#"{"gateset":"qis","qubits":1,"circuit":[{"gate":"cnot","controls":[0],"targets":[1]}]}"#;
        assert!(serde_json::from_str::<IonqCircuit>(out_of_range).expect("parses").to_circuit().is_err());
        let native = r#"{"gateset":"native","qubits":1,"circuit":[]}"#;
        assert!(serde_json::from_str::<IonqCircuit>(native).expect("parses").to_circuit().is_err());
    }
}
