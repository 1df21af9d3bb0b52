//! The move compiler's emitted gates, its two-step protocol, unhooking and errors, and a
//! property test: random moves never panic and never touch a retired qubit again.

use proptest::prelude::*;
use qchess_circuit::compiler::{CompileError, Measurement, Register, Step, makes_measurement};
use qchess_circuit::ir::{Gate, Op, Qubit, QubitRole};
use qchess_core::{Bitboard, MoveSquares, MoveType, MoveVariant, Square, TypedMove};

fn sq(name: &str) -> Square {
    name.parse().expect("square")
}

fn bb(names: &str) -> Bitboard {
    names.split_whitespace().map(sq).collect()
}

fn mv(text: &str) -> TypedMove {
    text.parse().expect("typed move")
}

fn done(register: &mut Register, text: &str) -> Measurement {
    match register.begin(&mv(text)) {
        Ok(Step::Done(result)) => result.measurement,
        other => panic!("{text}: {other:?}"),
    }
}

fn gates(register: &Register, from: usize) -> Vec<Gate> {
    register.circuit().ops[from..]
        .iter()
        .map(|op| match op {
            Op::Gate { gate, .. } => gate.clone(),
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

fn q(register: &Register, name: &str) -> Qubit {
    register.square_qubit(sq(name)).expect("quantum square")
}

#[test]
fn split_jump_places_the_piece_then_sqrt_iswap_then_iswap() {
    let mut r = Register::new(bb("b1"));
    done(&mut r, "b1^a3c3:SPLIT_JUMP:BASIC");
    let circuit = r.circuit();
    assert_eq!(circuit.num_qubits(), 3);
    let (b1, a3, c3) = (Qubit(0), q(&r, "a3"), q(&r, "c3"));
    assert_eq!(gates(&r, 0), vec![Gate::x(b1), Gate::iswap(b1, a3, 0.5), Gate::iswap(b1, c3, 1.0)]);
    assert!(r.square_qubit(sq("b1")).is_none(), "the emptied source is unhooked");
    assert_eq!(r.quantum_squares(), bb("a3 c3"));
}

#[test]
fn merge_jump_is_iswap_dagger_then_sqrt_iswap_dagger() {
    let mut r = Register::new(bb("b1"));
    done(&mut r, "b1^a3c3:SPLIT_JUMP:BASIC");
    let start = r.circuit().ops.len();
    done(&mut r, "a3c3^b1:MERGE_JUMP:BASIC");
    let b1 = q(&r, "b1");
    assert_eq!(r.circuit().qubits[b1.index()].role, QubitRole::Square { square: sq("b1"), generation: 1 });
    assert_eq!(gates(&r, start), vec![Gate::iswap(q(&r, "a3"), b1, -1.0), Gate::iswap(q(&r, "c3"), b1, -0.5)]);
}

#[test]
fn classical_fast_paths_emit_nothing() {
    let mut r = Register::new(bb("b1 e5 d5 e1 h1 a1"));
    for text in ["b1c3:JUMP:BASIC", "a1a8:SLIDE:BASIC", "e5d6:PAWN_EP:BASIC", "e1g1:KS_CASTLE:BASIC"] {
        done(&mut r, text);
    }
    assert!(r.circuit().ops.is_empty());
    assert_eq!(r.classical_occupancy(), bb("c3 a8 d6 g1 f1"));
}

#[test]
fn slides_control_on_the_path() {
    let mut r = Register::new(bb("a1 b1 c4"));
    done(&mut r, "b1^a3c3:SPLIT_JUMP:BASIC");
    let start = r.circuit().ops.len();
    done(&mut r, "a1a4:SLIDE:BASIC");
    let (a1, a4, a3) = (q(&r, "a1"), q(&r, "a4"), q(&r, "a3"));
    assert_eq!(gates(&r, start), vec![Gate::x(a1), Gate::iswap(a1, a4, 1.0).anti_controlled(a3)]);

    done(&mut r, "c4^a5e5:SPLIT_JUMP:BASIC");
    let start = r.circuit().ops.len();
    done(&mut r, "a4a8:SLIDE:BASIC");
    // One path square (a5) is quantum, a6 and a7 are classically empty.
    assert_eq!(gates(&r, start), vec![Gate::iswap(a4, q(&r, "a8"), 1.0).anti_controlled(q(&r, "a5"))]);

    let start = r.circuit().ops.len();
    let before = r.circuit().num_qubits();
    done(&mut r, "a8a2:SLIDE:BASIC");
    // Path a7..a3: a5, a4 (the first slide's target) and a3 are quantum: flag = AND of
    // "empty", the controlled iSWAP, then the same gate uncomputes the flag.
    let flag = Qubit(r.circuit().num_qubits() as u32 - 1);
    assert_eq!(r.circuit().qubits[flag.index()].role, QubitRole::Path);
    assert_eq!(r.circuit().num_qubits(), before + 2, "a2 and the flag");
    let clear = Gate::x(flag).anti_controlled(q(&r, "a3")).anti_controlled(a4).anti_controlled(q(&r, "a5"));
    let expected = vec![clear.clone(), Gate::iswap(q(&r, "a8"), q(&r, "a2"), 1.0).controlled(flag), clear];
    assert_eq!(gates(&r, start), expected);
}

#[test]
fn rook_swap_castle_and_entangled_queen_side_castle() {
    let mut r = Register::new(bb("e1 h1 d2"));
    done(&mut r, "d2^f1b1:SPLIT_JUMP:BASIC");
    let start = r.circuit().ops.len();
    done(&mut r, "e1g1:KS_CASTLE:BASIC");
    let h1 = q(&r, "h1");
    assert_eq!(gates(&r, start), vec![Gate::x(h1), Gate::iswap(h1, q(&r, "f1"), 1.0)]);
    assert_eq!(r.classical_occupancy(), bb("g1"), "the king moved classically");

    let mut r = Register::new(bb("e1 a1 c3"));
    done(&mut r, "c3^b1a4:SPLIT_JUMP:BASIC");
    let start = r.circuit().ops.len();
    done(&mut r, "e1c1:QS_CASTLE:BASIC");
    let (e1, c1, a1, d1, b1) = (q(&r, "e1"), q(&r, "c1"), q(&r, "a1"), q(&r, "d1"), q(&r, "b1"));
    assert_eq!(
        gates(&r, start),
        vec![
            Gate::x(e1),
            Gate::x(a1),
            Gate::iswap(a1, d1, 1.0).anti_controlled(b1),
            Gate::iswap(e1, c1, 1.0).anti_controlled(b1)
        ]
    );
}

#[test]
fn measurement_protocol_records_the_post_selection_and_unhooks() {
    let mut r = Register::new(bb("c3 g1"));
    done(&mut r, "g1^e2h3:SPLIT_JUMP:BASIC");
    let e2 = q(&r, "e2");
    let Ok(Step::Measure(request)) = r.begin(&mv("c3e2:JUMP:EXCLUDED")) else { panic!("e2 is quantum") };
    assert_eq!((request.qubit, request.proceed_value, request.forced), (e2, false, None));
    assert!(matches!(r.circuit().ops.last(), Some(Op::Measure { qubit, .. }) if *qubit == e2));
    assert!(matches!(r.begin(&mv("c3e2:JUMP:BASIC")), Err(CompileError::MeasurementPending { .. })));
    let result = r.resolve(true).expect("resolves");
    assert!(result.proceeded);
    assert_eq!(result.measurement.outcome(), Some(true));
    let post = r.circuit().postselect[0];
    assert_eq!((post.qubit, post.clbit, post.value), (e2, request.clbit, false));
    assert_eq!(r.classical_occupancy(), bb("e2"), "the jump ran classically after the measurement");
    assert!(matches!(r.resolve(true), Err(CompileError::NothingPending)));
}

#[test]
fn abort_drops_the_pending_move() {
    let mut r = Register::new(bb("a1 c2 a8"));
    done(&mut r, "a1^a2b1:SPLIT_SLIDE:BASIC");
    done(&mut r, "c2^a3e3:SPLIT_JUMP:BASIC");
    let checkpoint = r.checkpoint();
    let circuit = r.circuit().clone();
    let Ok(Step::Measure(request)) = r.begin(&mv("a2a8.m1:SLIDE:CAPTURE")) else { panic!("measures") };
    assert_eq!(r.circuit().qubits[request.qubit.index()].role, QubitRole::Condition);
    assert_eq!(request.forced, Some(true));
    assert!(matches!(r.resolve(false), Err(CompileError::ContradictsForcedOutcome { .. })));
    assert!(r.abort());
    assert_eq!(r.circuit(), &circuit);
    assert_eq!(r.checkpoint(), checkpoint);
    assert!(!r.abort());
}

#[test]
fn re_entering_squares_get_new_generations() {
    let mut r = Register::new(bb("b1"));
    done(&mut r, "b1^a3c3:SPLIT_JUMP:BASIC");
    done(&mut r, "a3c3^b1:MERGE_JUMP:BASIC");
    done(&mut r, "b1^a3c3:SPLIT_JUMP:BASIC");
    let generations: Vec<u32> = r
        .circuit()
        .qubits
        .iter()
        .filter_map(|info| match info.role {
            QubitRole::Square { square, generation } if square == sq("b1") => Some(generation),
            _ => None,
        })
        .collect();
    assert_eq!(generations, vec![0, 1]);
    assert!(r.is_square_qubit(q(&r, "a3")));
    assert!(!r.is_square_qubit(Qubit(0)), "b1's first qubit was unhooked");
}

#[test]
fn errors_name_the_move_and_append_nothing() {
    let mut r = Register::new(bb("b1 e1 h1 g1 e2"));
    type Expect = fn(&CompileError) -> bool;
    let cases: [(&str, Expect); 5] = [
        ("b1c3.m1:JUMP:BASIC", |e| matches!(e, CompileError::NoMeasurement { .. })),
        ("b1^a3c3.m0:SPLIT_JUMP:BASIC", |e| matches!(e, CompileError::NoMeasurement { .. })),
        ("e1g1.m1:KS_CASTLE:EXCLUDED", |e| matches!(e, CompileError::ImpossibleOutcome { outcome: true, .. })),
        ("e1g1:KS_CASTLE:CAPTURE", |e| matches!(e, CompileError::InvalidMove { .. })),
        ("e2d3:PAWN_EP:BASIC", |e| matches!(e, CompileError::InvalidMove { .. })),
    ];
    for (text, expected) in cases {
        let error = r.begin(&mv(text)).expect_err(text);
        assert!(expected(&error), "{text}: {error:?}");
        assert!(error.to_string().contains(text), "{error}");
        assert!(r.circuit().ops.is_empty());
    }
    // A hand-built move whose squares do not fit its type.
    let bad = TypedMove { squares: MoveSquares::Standard { from: sq("a1"), to: sq("b3") }, ..mv("a1a2:SLIDE:BASIC") };
    assert!(matches!(r.begin(&bad), Err(CompileError::InvalidMove { .. })));
}

#[test]
fn which_moves_measure() {
    assert!(!makes_measurement(MoveType::Jump, MoveVariant::Basic));
    assert!(makes_measurement(MoveType::Jump, MoveVariant::Excluded));
    assert!(makes_measurement(MoveType::PawnCapture, MoveVariant::Basic));
    assert!(makes_measurement(MoveType::QsCastle, MoveVariant::Excluded));
    assert!(!makes_measurement(MoveType::MergeSlide, MoveVariant::Basic));
}

fn typed_move() -> impl Strategy<Value = TypedMove> {
    (0..12usize, 0..3usize, 0u8..64, 0u8..64, 0u8..64, prop::option::of(any::<bool>())).prop_filter_map(
        "valid geometry",
        |(t, v, a, b, c, outcome)| {
            let move_type = MoveType::ALL[t];
            let [a, b, c] = [a, b, c].map(|i| Square::new(i).expect("below 64"));
            let squares = match move_type.shape() {
                qchess_core::Shape::Standard => MoveSquares::Standard { from: a, to: b },
                qchess_core::Shape::Split => MoveSquares::Split { from: a, to1: b, to2: c },
                qchess_core::Shape::Merge => MoveSquares::Merge { from1: a, from2: b, to: c },
            };
            TypedMove::new(squares, move_type, MoveVariant::ALL[v]).ok().map(|m| m.with_outcome(outcome))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random moves on random boards: no panic, nothing appended on error, and no op ever
    /// touches a qubit after it stopped being a square's current qubit.
    #[test]
    fn random_moves_never_touch_retired_qubits(
        occupancy in any::<u64>(),
        moves in prop::collection::vec((typed_move(), any::<bool>()), 1..25),
    ) {
        let mut r = Register::new(Bitboard(occupancy));
        let mut retired_after: Vec<(Qubit, usize)> = Vec::new();
        for (mv, drawn) in moves {
            let before = r.circuit().clone();
            match r.begin(&mv) {
                Err(_) => prop_assert_eq!(r.circuit(), &before),
                Ok(Step::Done(_)) => {}
                Ok(Step::Measure(request)) => {
                    r.resolve(request.forced.unwrap_or(drawn)).expect("resolves");
                }
            }
            prop_assert!(r.pending().is_none());
            let circuit = r.circuit();
            for index in 0..circuit.num_qubits() {
                let qubit = Qubit(index as u32);
                if !r.is_square_qubit(qubit) && !retired_after.iter().any(|(q, _)| *q == qubit) {
                    retired_after.push((qubit, circuit.ops.len()));
                }
            }
        }
        let circuit = r.circuit();
        for (qubit, from) in retired_after {
            for op in &circuit.ops[from..] {
                let touches = match op {
                    Op::Gate { gate, .. } => gate.qubits().any(|q| q == qubit),
                    Op::Measure { qubit: q, .. } | Op::Reset { qubit: q } => *q == qubit,
                };
                prop_assert!(!touches, "qubit {} touched after it was retired: {:?}", qubit.0, op);
            }
        }
        // Classical and quantum squares never overlap.
        prop_assert!(!r.classical_occupancy().intersects(r.quantum_squares()));
    }
}
