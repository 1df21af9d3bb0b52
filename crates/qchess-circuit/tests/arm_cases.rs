//! Gate-level check of every split-slide and merge-slide arm case: on every basis input of the
//! move's squares (ancillas at 0), the emitted ops must act exactly like the controlled split
//! (merge) of the reference (both arms clear: the split/merge jump; one arm: a full iSWAP /
//! iSWAP dagger along it; none: nothing) and return every ancilla to 0.

use std::collections::BTreeMap;

use num_complex::Complex64;
use qchess_circuit::compiler::{Register, Step};
use qchess_circuit::ir::{Gate, GateKind, Op, Qubit, QubitRole};
use qchess_core::{Bitboard, Square, TypedMove};

type State = BTreeMap<u64, Complex64>;

fn sq(name: &str) -> Square {
    name.parse().expect("square")
}

/// Applies a gate to a sparse state over circuit-qubit indices, straight from the IR matrices.
fn apply(state: &State, gate: &Gate) -> State {
    let targets: Vec<u64> = gate.targets.iter().map(|q| 1u64 << q.0).collect();
    let (dim, matrix): (usize, Vec<Vec<Complex64>>) = match (gate.kind.matrix2(), gate.kind.matrix4()) {
        (Some(m), _) => (2, m.iter().map(|r| r.to_vec()).collect()),
        (None, Some(m)) => (4, m.iter().map(|r| r.to_vec()).collect()),
        _ => unreachable!(),
    };
    let bits = |k: usize| targets.iter().enumerate().filter(|(j, _)| k >> j & 1 == 1).map(|(_, t)| *t).sum::<u64>();
    let mask: u64 = targets.iter().sum();
    let mut out = State::new();
    for (&index, &amp) in state {
        if !gate.controls.iter().all(|c| (index >> c.qubit.0 & 1 == 1) == c.on) {
            *out.entry(index).or_default() += amp;
            continue;
        }
        let column = (0..dim).find(|&k| index & mask == bits(k)).expect("column");
        for (row, values) in matrix.iter().enumerate().take(dim) {
            if values[column].norm() > 1e-15 {
                *out.entry((index & !mask) | bits(row)).or_default() += values[column] * amp;
            }
        }
    }
    out.retain(|_, a| a.norm() > 1e-13);
    out
}

fn run(state: State, gates: &[Gate]) -> State {
    gates.iter().fold(state, |s, g| apply(&s, g))
}

struct Case {
    occupancy: &'static str,
    setup: &'static str,
    mv: &'static str,
    /// Quantum path squares of each arm.
    arm1: &'static [&'static str],
    arm2: &'static [&'static str],
    /// An arm classically blocked for good.
    blocked1: bool,
    blocked2: bool,
}

const fn case(
    setup: &'static str,
    mv: &'static str,
    arm1: &'static [&'static str],
    arm2: &'static [&'static str],
) -> Case {
    Case { occupancy: "d1 b2 b3 b5 c2 h2 h3", setup, mv, arm1, arm2, blocked1: false, blocked2: false }
}

const SPLITS: &[Case] = &[
    case("h2^f1g4:SPLIT_JUMP:BASIC", "d1^d5h1:SPLIT_SLIDE:BASIC", &[], &["f1"]),
    case("c2^e1a3:SPLIT_JUMP:BASIC h3^g1g5:SPLIT_JUMP:BASIC", "d1^d5h1:SPLIT_SLIDE:BASIC", &[], &["e1", "g1"]),
    case("b2^d3a4:SPLIT_JUMP:BASIC", "d1^d5h1:SPLIT_SLIDE:BASIC", &["d3"], &[]),
    case("b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC", "d1^d5h1:SPLIT_SLIDE:BASIC", &["d2", "d4"], &[]),
    case("b2^d3a4:SPLIT_JUMP:BASIC", "d1^d4d6:SPLIT_SLIDE:BASIC", &["d3"], &["d3"]),
    case("b2^d3a4:SPLIT_JUMP:BASIC h2^f1g4:SPLIT_JUMP:BASIC", "d1^d5h1:SPLIT_SLIDE:BASIC", &["d3"], &["f1"]),
    case(
        "b2^d3a4:SPLIT_JUMP:BASIC c2^e1a3:SPLIT_JUMP:BASIC h3^g1g5:SPLIT_JUMP:BASIC",
        "d1^d5h1:SPLIT_SLIDE:BASIC",
        &["d3"],
        &["e1", "g1"],
    ),
    case(
        "b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC h2^f1g4:SPLIT_JUMP:BASIC",
        "d1^d5h1:SPLIT_SLIDE:BASIC",
        &["d2", "d4"],
        &["f1"],
    ),
    case(
        "b3^d2a5:SPLIT_JUMP:BASIC b5^d4a7:SPLIT_JUMP:BASIC c2^e1a3:SPLIT_JUMP:BASIC h3^g1g5:SPLIT_JUMP:BASIC",
        "d1^d5h1:SPLIT_SLIDE:BASIC",
        &["d2", "d4"],
        &["e1", "g1"],
    ),
    Case {
        occupancy: "d1 d3 h2",
        setup: "h2^f1g4:SPLIT_JUMP:BASIC",
        mv: "d1^d5h1:SPLIT_SLIDE:BASIC",
        arm1: &[],
        arm2: &["f1"],
        blocked1: true,
        blocked2: false,
    },
];

/// The merge cases: the same path squares, merging d5 and h1 (d4 and d6) into d1.
fn merge_of(split: &Case) -> String {
    match split.mv {
        "d1^d4d6:SPLIT_SLIDE:BASIC" => "d4d6^d1:MERGE_SLIDE:BASIC".to_owned(),
        _ => "d5h1^d1:MERGE_SLIDE:BASIC".to_owned(),
    }
}

fn check(case: &Case, mv_text: &str) {
    let occupancy: Bitboard = case.occupancy.split_whitespace().map(sq).collect();
    let mut register = Register::new(occupancy);
    for text in case.setup.split_whitespace() {
        let mv: TypedMove = text.parse().expect("setup move");
        assert!(matches!(register.begin(&mv), Ok(Step::Done(_))));
    }
    let (ops_before, qubits_before) = (register.circuit().ops.len(), register.circuit().num_qubits());
    let mv: TypedMove = mv_text.parse().expect("move");
    assert!(matches!(register.begin(&mv), Ok(Step::Done(_))), "{mv_text}");
    let circuit = register.circuit();
    let squares_of = |names: &[&str]| -> Vec<Qubit> {
        names.iter().map(|n| register.square_qubit(sq(n)).unwrap_or_else(|| panic!("{n} is quantum"))).collect()
    };
    let (hub, end1, end2, split) = match mv.squares {
        qchess_core::MoveSquares::Split { from, to1, to2 } => (from, to1, to2, true),
        qchess_core::MoveSquares::Merge { from1, from2, to } => (to, from1, from2, false),
        _ => unreachable!(),
    };
    // A square the move never needed a qubit for (behind a classical blocker) stands in as an
    // untouched spare qubit.
    let [hub, end1, end2] = [hub, end1, end2].map(|s| register.square_qubit(s).unwrap_or(Qubit(63)));
    let (path1, path2) = (squares_of(case.arm1), squares_of(case.arm2));
    // Drop the placement X of squares first allocated by this move: inputs are chosen freely.
    let mut placed = Vec::new();
    let mut gates = Vec::new();
    for op in &circuit.ops[ops_before..] {
        let Op::Gate { gate, condition: None } = op else { panic!("only gates expected: {op:?}") };
        let fresh_square = gate.targets[0].index() >= qubits_before
            && matches!(circuit.qubits[gate.targets[0].index()].role, QubitRole::Square { .. });
        if gate.kind == GateKind::X && gate.controls.is_empty() && fresh_square && !placed.contains(&gate.targets[0]) {
            placed.push(gate.targets[0]);
            continue;
        }
        placed.extend(gate.qubits());
        gates.push(gate.clone());
    }
    let mut inputs: Vec<Qubit> = vec![hub, end1, end2];
    for q in path1.iter().chain(&path2) {
        if !inputs.contains(q) {
            inputs.push(*q);
        }
    }
    let ancillas: u64 = (qubits_before..circuit.num_qubits())
        .filter(|&i| !matches!(circuit.qubits[i].role, QubitRole::Square { .. }))
        .map(|i| 1u64 << i)
        .sum();
    for assignment in 0..1u64 << inputs.len() {
        let index: u64 =
            inputs.iter().enumerate().filter(|(j, _)| assignment >> j & 1 == 1).map(|(_, q)| 1u64 << q.0).sum();
        let input: State = [(index, Complex64::new(1.0, 0.0))].into_iter().collect();
        let clear = |path: &[Qubit], blocked: bool| !blocked && path.iter().all(|q| index >> q.0 & 1 == 0);
        let (c1, c2) = (clear(&path1, case.blocked1), clear(&path2, case.blocked2));
        let spec: Vec<Gate> = match (split, c1, c2) {
            (true, true, true) => vec![Gate::iswap(hub, end1, 0.5), Gate::iswap(hub, end2, 1.0)],
            (true, true, false) => vec![Gate::iswap(hub, end1, 1.0)],
            (true, false, true) => vec![Gate::iswap(hub, end2, 1.0)],
            (false, true, true) => vec![Gate::iswap(end1, hub, -1.0), Gate::iswap(end2, hub, -0.5)],
            (false, true, false) => vec![Gate::iswap(end1, hub, -1.0)],
            (false, false, true) => vec![Gate::iswap(end2, hub, -1.0)],
            (_, false, false) => vec![],
        };
        let expected = run(input.clone(), &spec);
        let actual = run(input, &gates);
        for (key, amp) in &actual {
            assert_eq!(key & ancillas, 0, "{mv_text}: an ancilla was left set (input {assignment:#b})");
            let want = expected.get(key).copied().unwrap_or_default();
            assert!((amp - want).norm() < 1e-12, "{mv_text} input {assignment:#b}: {actual:?} vs {expected:?}");
        }
        assert_eq!(actual.len(), expected.len(), "{mv_text} input {assignment:#b}: {actual:?} vs {expected:?}");
        // test_merge_slide: with both paths clear and only s1 set, s1 always ends empty.
        if !split && c1 && c2 && index & (1 << end1.0) != 0 && index & ((1 << end2.0) | (1 << hub.0)) == 0 {
            assert!(actual.keys().all(|k| k & (1 << end1.0) == 0), "{mv_text}: s1 kept its piece");
        }
    }
}

#[test]
fn every_split_slide_arm_case_is_the_controlled_split() {
    for case in SPLITS {
        check(case, case.mv);
    }
}

#[test]
fn every_merge_slide_arm_case_is_the_controlled_merge() {
    for case in SPLITS {
        check(case, &merge_of(case));
    }
}

#[test]
fn arm_cases_use_the_reference_ancilla_counts() {
    // (0,1) 0, (0,>=2) 1, (1,0) 0, (>=2,0) 1, (1,1) same 0, (1,1) different 1, (1,>=2) 2,
    // (>=2,1) 2, (>=2,>=2) 3, blocked arm + one square 0.
    let expected = [0, 1, 0, 1, 0, 1, 2, 2, 3, 0];
    for (case, ancillas) in SPLITS.iter().zip(expected) {
        for mv_text in [case.mv.to_owned(), merge_of(case)] {
            let occupancy: Bitboard = case.occupancy.split_whitespace().map(sq).collect();
            let mut register = Register::new(occupancy);
            for text in case.setup.split_whitespace() {
                register.begin(&text.parse().expect("setup")).expect("setup runs");
            }
            let before = register.circuit().num_qubits();
            register.begin(&mv_text.parse().expect("move")).expect("runs");
            let circuit = register.circuit();
            let added = (before..circuit.num_qubits())
                .filter(|&i| !matches!(circuit.qubits[i].role, QubitRole::Square { .. }))
                .count();
            assert_eq!(added, ancillas, "{mv_text} after {}", case.setup);
        }
    }
}
