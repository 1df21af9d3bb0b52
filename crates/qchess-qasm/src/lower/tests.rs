//! Unitary-equivalence tests of the lowering passes.

use qchess_circuit::ir::{Circuit, Clbit, Condition, Control, Gate, GateKind, Op, Qubit, QubitRole};
use qchess_sim::dense::unitary;

use super::*;

/// Control patterns with 0 to 3 controls, positive and negative mixed.
const PATTERNS: [&[bool]; 8] = [
    &[],
    &[true],
    &[false],
    &[true, false],
    &[false, false],
    &[true, true, true],
    &[false, true, false],
    &[false, false, false],
];

fn circuit_with(gate: Gate, qubits: usize) -> Circuit {
    let mut circuit = Circuit::new();
    for _ in 0..qubits {
        circuit.add_qubit(QubitRole::General);
    }
    circuit.push_gate(gate);
    circuit
}

/// Lowers a one-gate circuit and checks gate-set membership and unitary equivalence.
fn check_equivalent(gate: Gate, qubits: usize, target: GateSet) {
    let original = circuit_with(gate.clone(), qubits);
    let lowered = lower(&original, target).unwrap_or_else(|e| panic!("{gate} to {}: {e}", target.name()));
    for op in &lowered.ops {
        let Op::Gate { gate: out, .. } = op else { panic!("{gate}: lowering produced a non-gate") };
        assert!(target.admits(out), "{gate} to {}: {out} is not in the gate set", target.name());
    }
    let (u, v) = (unitary(&original).expect("small"), unitary(&lowered).expect("small"));
    let distance = u.distance_up_to_global_phase(&v);
    assert!(distance < 1e-10, "{gate} to {}: distance {distance}", target.name());
}

/// The gate `kind` with controls `pattern`, on qubits spread so targets sit among controls.
fn spread_gate(kind: GateKind, pattern: &[bool]) -> (Gate, usize) {
    let qubits = pattern.len() + kind.arity() + 1;
    // Interleave: controls on even positions from the top, targets from the bottom.
    let order: Vec<u32> = (0..qubits as u32).rev().collect();
    let controls: Vec<Control> =
        pattern.iter().zip(order.iter().step_by(2)).map(|(&on, &q)| Control { qubit: Qubit(q), on }).collect();
    let used: Vec<u32> = controls.iter().map(|c| c.qubit.0).collect();
    let targets: Vec<Qubit> = (0..qubits as u32).filter(|q| !used.contains(q)).take(kind.arity()).map(Qubit).collect();
    (Gate { kind, targets: targets.into_iter().collect(), controls: controls.into_iter().collect() }, qubits)
}

#[test]
fn every_kind_with_up_to_three_mixed_controls_lowers_exactly() {
    for target in GateSet::ALL {
        for kind in GateKind::samples() {
            for pattern in PATTERNS {
                let (gate, qubits) = spread_gate(kind, pattern);
                check_equivalent(gate, qubits, target);
            }
        }
    }
}

#[test]
fn the_compilers_gates_lower_exactly() {
    // Controlled and anti-controlled iSWAP powers, multi-controlled X, SWAP.
    for target in GateSet::ALL {
        for t in [1.0, -1.0, 0.5, -0.5] {
            for pattern in [&[false][..], &[true], &[false, true], &[true, true], &[false, false, true]] {
                let (gate, qubits) = spread_gate(GateKind::ISwap(t), pattern);
                check_equivalent(gate, qubits, target);
            }
        }
        for controls in 0..=6usize {
            let pattern: Vec<bool> = (0..controls).map(|i| i % 3 != 1).collect();
            let (gate, qubits) = spread_gate(GateKind::X, &pattern);
            check_equivalent(gate, qubits, target);
        }
        for pattern in [&[][..], &[true], &[false, true]] {
            let (gate, qubits) = spread_gate(GateKind::Swap, pattern);
            check_equivalent(gate, qubits, target);
        }
    }
}

#[test]
fn native_gates_are_kept_and_the_cheap_routes_are_taken() {
    let cx = Gate::cx(Qubit(0), Qubit(1));
    assert_eq!(lower_gate(&cx, GateSet::CxSingleQubit).expect("native"), std::slice::from_ref(&cx));
    assert_eq!(lower_gate(&cx, GateSet::IonqQis).expect("native"), std::slice::from_ref(&cx));
    // CX costs two sqrt-iSWAPs; an uncontrolled iSWAP two, and its inverse too.
    let count = |gates: Vec<Gate>| gates.iter().filter(|g| g.kind == GateKind::ISwap(0.5)).count();
    assert_eq!(count(lower_gate(&cx, GateSet::SqrtIswap).expect("lowers")), 2);
    assert_eq!(count(lower_gate(&Gate::iswap(Qubit(0), Qubit(1), -1.0), GateSet::SqrtIswap).expect("lowers")), 2);
    // IonQ takes iSWAP powers as xx + yy.
    let ionq = lower_gate(&Gate::iswap(Qubit(0), Qubit(1), 0.5), GateSet::IonqQis).expect("lowers");
    assert_eq!(
        ionq.iter().map(|g| g.kind.name()).collect::<Vec<_>>(),
        ["rxx(-0.7853981633974483)", "ryy(-0.7853981633974483)"]
    );
    // A singly controlled iSWAP in CX form: the reference rule's 3 CX plus a Toffoli and a CS.
    let controlled = Gate::iswap(Qubit(1), Qubit(2), 1.0).controlled(Qubit(0));
    let cx_count = lower_gate(&controlled, GateSet::CxSingleQubit)
        .expect("lowers")
        .iter()
        .filter(|g| !g.controls.is_empty())
        .count();
    assert_eq!(cx_count, 2 + 6 + 2);
}

#[test]
fn whole_circuits_keep_measurements_conditions_and_post_selections() {
    let mut circuit = Circuit::new();
    let q: Vec<Qubit> = (0..3).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    let register = circuit.add_register("c", 1);
    circuit.push_gate(Gate::iswap(q[0], q[1], 0.5).anti_controlled(q[2]));
    circuit.ops.push(Op::Measure { qubit: q[0], clbit: Clbit(0) });
    circuit.ops.push(Op::Gate {
        gate: Gate::one(GateKind::Rx(0.2), q[1]).controlled(q[2]),
        condition: Some(Condition { register, value: 1 }),
    });
    circuit.ops.push(Op::Reset { qubit: q[2] });
    circuit.postselect.push(qchess_circuit::ir::PostSelection { qubit: q[0], clbit: Clbit(0), value: true });
    for target in GateSet::ALL {
        let lowered = lower(&circuit, target).expect("lowers");
        assert_eq!(lowered.qubits, circuit.qubits);
        assert_eq!(lowered.registers, circuit.registers);
        assert_eq!(lowered.postselect, circuit.postselect);
        let measure = lowered.ops.iter().position(|op| matches!(op, Op::Measure { .. })).expect("kept");
        assert!(
            lowered.ops[measure + 1..]
                .iter()
                .take_while(|op| matches!(op, Op::Gate { .. }))
                .all(|op| matches!(op, Op::Gate { condition: Some(Condition { value: 1, .. }), .. }))
        );
        assert!(matches!(lowered.ops.last(), Some(Op::Reset { .. })));
    }
}

#[test]
fn bad_gates_are_errors_not_panics() {
    let mut circuit = circuit_with(Gate::cx(Qubit(0), Qubit(0)), 2);
    assert_eq!(
        qchess_core::text::with_causes(&lower(&circuit, GateSet::CxSingleQubit).expect_err("repeated")),
        "operation 0: qubit 0 is used twice"
    );
    circuit.ops.clear();
    circuit.push_gate(Gate::x(Qubit(7)));
    assert!(lower(&circuit, GateSet::IonqQis).is_err());
    let wide = Gate::x(Qubit(0)).with_controls((1..=13).map(|q| Control { qubit: Qubit(q), on: true }));
    let error = lower_gate(&wide, GateSet::CxSingleQubit).expect_err("too wide");
    assert!(matches!(error, LowerError::TooManyControls { controls: 13, .. }), "{error}");
    assert!(lower_gate(&Gate::one(GateKind::Rz(f64::INFINITY), Qubit(0)), GateSet::IonqQis).is_err());
}
