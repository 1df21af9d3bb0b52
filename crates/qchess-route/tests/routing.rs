//! Every routed circuit is checked: only basis gates, every two-qubit gate on a pair the target
//! allows, and the same action as the logical circuit up to the layouts (our own state-vector
//! simulation on random inputs).

use qchess_circuit::compiler::{Register, Step};
use qchess_circuit::ir::{Circuit, Gate, GateKind, Qubit, QubitRole};
use qchess_core::{Bitboard, Square, TypedMove};
use qchess_route::program::{Instr, Program, from_circuit};
use qchess_route::verify::{Equivalence, SplitMix, check_equivalence, check_structure};
use qchess_route::{CompileOptions, Incremental, RouteError, Target, compile};

const TARGETS: [&str; 13] = [
    "line:6",
    "grid:2x3@ecr",
    "grid:3x3",
    "sycamore",
    "all:6",
    "ibm-heron",
    "ibm-eagle",
    "line:7@sqrt-iswap",
    "tee",
    "braket:iqm-garnet",
    "braket:rigetti-ankaa-3",
    "braket:rigetti-cepheus-1-108q",
    "braket:ionq-forte-enterprise-1",
];

fn target(spec: &str) -> Target {
    if spec == "tee" {
        let text = r#"{"name": "tee", "qubits": 6, "basis": "ecr", "directed": true,
                       "coupling": [[0, 1], [2, 1], [1, 3], [3, 4], [5, 3]]}"#;
        return Target::from_json(text, "tee").expect("valid");
    }
    Target::resolve(spec).expect("preset")
}

/// A random circuit of CX and one-qubit gates over `n` qubits.
fn random_program(n: u32, gates: usize, seed: u64) -> Program {
    let mut rng = SplitMix(seed);
    let mut instrs = Vec::new();
    for _ in 0..gates {
        let a = rng.below(n as usize) as u32;
        if rng.below(3) == 0 {
            let kind = GateKind::U(rng.next_f64() * 3.0, rng.next_f64() * 6.0 - 3.0, rng.next_f64() * 6.0 - 3.0);
            instrs.push(Instr::One { qubit: a, matrix: kind.matrix2().expect("1q") });
        } else {
            let b = (a + 1 + rng.below(n as usize - 1) as u32) % n;
            instrs.push(Instr::Cx { control: a, target: b });
        }
    }
    Program { num_qubits: n, num_clbits: 0, instrs }
}

#[test]
fn random_circuits_route_exactly_onto_every_target() {
    for spec in TARGETS {
        let target = target(spec);
        for seed in 0..3 {
            let logical = random_program(6, 40, seed);
            let compiled = compile(&logical, &target, &CompileOptions::default()).expect("routes");
            check_structure(&compiled.ops, &target).expect("ISA");
            assert_eq!(compiled.equivalence, Equivalence::Equivalent, "{spec} seed {seed}");
            assert!(compiled.initial_layout.iter().all(Option::is_some), "{spec}: a full initial layout");
        }
    }
}

#[test]
fn a_wrong_layout_or_gate_is_caught() {
    let target = target("line:6");
    let logical = random_program(4, 30, 9);
    let compiled = compile(&logical, &target, &CompileOptions::default()).expect("routes");
    let mut wrong_layout = compiled.final_layout.clone();
    wrong_layout.swap(0, 1);
    assert!(check_equivalence(&logical, &compiled.ops, &compiled.initial_layout, &wrong_layout, 1).is_err());
    let mut wrong_ops = compiled.ops.clone();
    let index = wrong_ops.iter().position(|op| matches!(op, qchess_route::IsaOp::One { .. })).expect("a 1q gate");
    wrong_ops.remove(index);
    assert!(check_equivalence(&logical, &wrong_ops, &compiled.initial_layout, &compiled.final_layout, 1).is_err());
    let mut uncoupled = compiled.ops.clone();
    uncoupled.push(qchess_route::IsaOp::Two { gate: qchess_route::NativeGate::Cz, a: 0, b: 5 });
    assert!(check_structure(&uncoupled, &target).unwrap_err().contains("not a coupled pair"));
}

#[test]
fn routing_on_a_line_needs_swaps_and_all_to_all_needs_none() {
    let mut logical = Program { num_qubits: 5, num_clbits: 0, instrs: Vec::new() };
    for (a, b) in [(0, 4), (1, 3), (4, 2), (0, 3), (2, 1)] {
        logical.instrs.push(Instr::Cx { control: a, target: b });
    }
    let line = compile(&logical, &target("line:5"), &CompileOptions::default()).expect("routes");
    let all =
        compile(&logical, &Target::resolve("all:5").expect("preset"), &CompileOptions::default()).expect("routes");
    assert_eq!(all.swaps, 0);
    assert!(line.two_qubit_count() >= 5 && line.equivalence == Equivalence::Equivalent);
}

#[test]
fn a_too_small_target_names_both_sizes() {
    let logical = random_program(7, 10, 3);
    let error = compile(&logical, &target("line:5"), &CompileOptions::default()).unwrap_err();
    assert_eq!(error, RouteError::TooSmall { needed: 7, available: 5, target: "line:5".into() });
    assert_eq!(error.to_string(), "the circuit needs 7 qubits but target `line:5` has 5");
}

/// A register after some moves that need no measurement.
fn game(moves: &[&str], squares: &[Square]) -> Register {
    let mut register = Register::new(squares.iter().copied().collect::<Bitboard>());
    for text in moves {
        let mv: TypedMove = text.parse().expect("typed move");
        assert!(matches!(register.begin(&mv).expect("legal"), Step::Done(_)), "{text}");
    }
    register
}

const MOVES: [&str; 5] = [
    "b1^a3c3:SPLIT_JUMP:BASIC",
    "g1^f3h3:SPLIT_JUMP:BASIC",
    "c3e4:JUMP:BASIC",
    "a1^a2a4:SPLIT_SLIDE:BASIC",
    "a3e4^c5:MERGE_JUMP:BASIC",
];

#[test]
fn game_circuits_route_exactly_onto_heron_and_eagle() {
    let register = game(&MOVES, &[Square::A1, Square::B1, Square::G1]);
    let measure: Vec<Qubit> = register.square_qubits().map(|(_, q)| q).collect();
    let logical = from_circuit(register.circuit(), 0, &measure).expect("lowered");
    assert!(logical.num_qubits <= 12, "{} qubits", logical.num_qubits);
    for spec in ["ibm-heron", "ibm-eagle", "sycamore"] {
        let target = target(spec);
        let compiled = compile(&logical, &target, &CompileOptions::default()).expect("routes");
        check_structure(&compiled.ops, &target).expect("ISA");
        assert_eq!(compiled.equivalence, Equivalence::Equivalent, "{spec}");
        let measured = compiled.ops.iter().filter(|op| matches!(op, qchess_route::IsaOp::Measure { .. })).count();
        assert_eq!(measured, measure.len());
    }
}

#[test]
fn incremental_routing_keeps_what_came_before() {
    let mut register = Register::new([Square::A1, Square::B1, Square::G1].into_iter().collect::<Bitboard>());
    for spec in ["ibm-eagle", "sycamore"] {
        let mut router = Incremental::new(target(spec), 5);
        let mut done = 0;
        let mut before: Vec<qchess_route::IsaOp> = Vec::new();
        for text in MOVES {
            if spec == "ibm-eagle" {
                let mv: TypedMove = text.parse().expect("typed move");
                assert!(matches!(register.begin(&mv).expect("legal"), Step::Done(_)));
            }
            let segment = from_circuit(register.circuit(), done, &[]).expect("lowered");
            done = register.circuit().ops.len();
            let range = router.extend(&segment).expect("routes");
            assert_eq!(&router.ops()[..range.start], &before[..], "{spec}: earlier operations unchanged");
            before = router.ops().to_vec();
        }
        let compiled = router.compiled(3, &[0, 1], register.circuit().clbits).expect("verified");
        assert_eq!(compiled.equivalence, Equivalence::Equivalent, "{spec}");
        check_structure(&compiled.ops, &target(spec)).expect("ISA");
    }
}

#[test]
fn conditional_gates_are_refused() {
    let mut circuit = Circuit::new();
    let q = circuit.add_qubit(QubitRole::General);
    let register = circuit.add_register("c", 1);
    circuit.ops.push(qchess_circuit::ir::Op::Gate {
        gate: Gate::x(q),
        condition: Some(qchess_circuit::ir::Condition { register, value: 1 }),
    });
    assert_eq!(from_circuit(&circuit, 0, &[]).unwrap_err(), RouteError::Conditional { op: 0 });
}
