//! Exports of board circuits: simulating the exported circuit (as IR, and parsed back from its
//! OpenQASM 2 text) and reading it through the sidecar gives the local board's probabilities
//! exactly, for hand-picked sequences and random ones; errors of the export itself.

use proptest::prelude::*;
use qchess_circuit::compiler::{Register, Step};
use qchess_circuit::ir::{Circuit, Qubit};
use qchess_core::{Bitboard, MoveSquares, MoveType, MoveVariant, QuantumBoard, Square, TypedMove};
use qchess_qasm::export::{Export, ExportError, Format, Rendered};
use qchess_qasm::parse::parse_source;
use qchess_qasm::sidecar::Sidecar;
use qchess_sim::dense::DenseSimulator;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

/// Square probabilities of `circuit` (its post-selections applied) read through `sidecar`.
fn read_board(circuit: &Circuit, sidecar: &Sidecar) -> [f64; 64] {
    let exact = DenseSimulator::new().probabilities(circuit).expect("small enough to simulate");
    let mut squares = [0.0; 64];
    for (state, &p) in exact.probabilities.iter().enumerate() {
        let reads = |qubit: Qubit| state >> qubit.0 & 1 == 1;
        assert!(p < 1e-15 || sidecar.keeps(reads), "state {state} breaks a post-selection but has p = {p}");
        for square in sidecar.board(reads) {
            squares[usize::from(square)] += p;
        }
    }
    squares
}

/// Checks an export of `board` three ways against the board's own probabilities.
fn assert_export_matches(board: &mut LocalBoard) {
    let expected = board.square_probabilities().expect("probabilities").probabilities;
    let export = Export::from_register(board.register()).expect("nothing pending");
    let direct = read_board(&export.circuit, &export.sidecar);
    let Rendered::Qasm(text) = export.render(Format::Qasm2).expect("writes") else { panic!("OpenQASM 2 is text") };
    let mut parsed = parse_source(&text, "game.qasm").expect("our own OpenQASM 2 parses");
    // The sidecar's post-selections name the same qubits and classical bits in the text.
    parsed.postselect = export.sidecar.postselect.clone();
    let reparsed = read_board(&parsed, &export.sidecar);
    let from_json: Sidecar = export.sidecar.to_json().parse().expect("the sidecar parses back");
    assert_eq!(from_json, export.sidecar);
    for square in 0..64 {
        assert!(
            (direct[square] - expected[square]).abs() < 1e-12,
            "square {square}: {} vs {}",
            direct[square],
            expected[square]
        );
        assert!((reparsed[square] - expected[square]).abs() < 1e-12, "square {square} from the text");
    }
}

fn run(init: &[Square], moves: &str) -> LocalBoard {
    let mut board = LocalBoard::new(init.iter().copied().collect());
    for text in moves.split_whitespace() {
        board.apply(&text.parse::<TypedMove>().expect("a typed move")).expect("the move runs");
    }
    board
}

#[test]
fn hand_picked_sequences_read_back_exactly() {
    use Square as S;
    let cases: [(&[Square], &str); 6] = [
        (&[S::B1], "b1^a3c3:SPLIT_JUMP:BASIC c3e4:JUMP:BASIC e4c3:JUMP:BASIC a3c3^b1:MERGE_JUMP:BASIC"),
        (&[S::B1, S::F6], "b1^a3c3:SPLIT_JUMP:BASIC f6^d5h5:SPLIT_JUMP:BASIC c3d5.m0:JUMP:CAPTURE"),
        (&[S::A1, S::B5], "a1^a5e1:SPLIT_SLIDE:BASIC b5^a3d6:SPLIT_JUMP:BASIC a5e1^a1:MERGE_SLIDE:BASIC"),
        (&[S::A1, S::A6, S::B7], "a1^a3c1:SPLIT_SLIDE:BASIC b7^a5d6:SPLIT_JUMP:BASIC a3a6.m1:SLIDE:CAPTURE"),
        (&[S::E5, S::D7, S::B7], "b7^d6c5:SPLIT_JUMP:BASIC d7d5:PAWN_TWO_STEP:BASIC e5d6:PAWN_EP:CAPTURE"),
        (&[S::E1, S::A1, S::D2, S::E3], "d2^b1f3:SPLIT_JUMP:BASIC e3^d1g4:SPLIT_JUMP:BASIC e1c1.m1:QS_CASTLE:EXCLUDED"),
    ];
    for (init, moves) in cases {
        assert_export_matches(&mut run(init, moves));
    }
}

#[test]
fn measuring_every_square_post_selects_the_measured_board() {
    let mut board = run(&[Square::B1], "b1^a3c3:SPLIT_JUMP:BASIC");
    let mut export = Export::from_register(board.register()).expect("nothing pending");
    let measured = Bitboard::from_square(Square::C3);
    export.measure_every_square(measured).expect("c3 is possible");
    assert!(export.sidecar.squares.is_empty() && export.sidecar.measure.is_empty());
    assert_eq!(export.sidecar.classical, measured);
    assert_eq!(export.sidecar.postselect.len(), 2);
    let squares = read_board(&export.circuit, &export.sidecar);
    assert_eq!(squares[usize::from(Square::C3)], 1.0);
    assert_eq!(squares[usize::from(Square::A3)], 0.0);
    let exact = DenseSimulator::new().probabilities(&export.circuit).expect("simulates");
    assert!((exact.postselection_probability - 0.5).abs() < 1e-12);
    // b1 is classically empty: a board with b1 occupied cannot have been measured.
    let mut export = Export::from_register(board.register()).expect("nothing pending");
    let error = export.measure_every_square(Bitboard::from_square(Square::B1)).unwrap_err();
    assert_eq!(error, ExportError::MeasuredBoardMismatch { square: Square::B1, measured: true });
    assert_eq!(error.to_string(), "the measured board has b1 occupied, but the board knows it is empty");
    board.undo().expect("undo");
}

#[test]
fn a_move_waiting_for_its_outcome_cannot_be_exported() {
    let mut register = Register::new([Square::B1, Square::F6].into_iter().collect());
    for text in ["b1^a3c3:SPLIT_JUMP:BASIC", "f6^d5h5:SPLIT_JUMP:BASIC"] {
        assert!(matches!(register.begin(&text.parse().expect("typed")).expect("compiles"), Step::Done(_)));
    }
    let capture: TypedMove = "c3d5:JUMP:CAPTURE".parse().expect("typed");
    assert!(matches!(register.begin(&capture).expect("compiles"), Step::Measure(_)));
    assert_eq!(Export::from_register(&register).unwrap_err(), ExportError::MovePending);
    register.resolve(true).expect("resolves");
    assert!(Export::from_register(&register).is_ok());
}

#[test]
fn formats_parse_and_print_their_names() {
    for format in Format::ALL {
        assert_eq!(format.name().parse::<Format>(), Ok(format));
        assert_eq!(format.to_string(), format.name());
    }
    let error = "qasm4".parse::<Format>().unwrap_err();
    assert_eq!(error.to_string(), "unknown format `qasm4`: expected qasm2, qasm3 or ionq-json");
    let empty = Export::from_register(&Register::new(Bitboard::EMPTY)).expect("empty");
    assert_eq!(
        empty.render(Format::IonqJson).expect("writes").text(),
        "{\"gateset\": \"qis\", \"qubits\": 0, \"circuit\": []}\n"
    );
}

/// A random move over the squares a1-d4: splits, merges, jumps and slides most often (they fit
/// any squares, or any squares on a line), every other type too; invalid ones are skipped.
fn random_move() -> impl Strategy<Value = (MoveType, MoveVariant, [u8; 3], Option<bool>)> {
    use MoveType::*;
    let move_type = prop_oneof![
        3 => Just(SplitJump), 3 => Just(MergeJump), 3 => Just(Jump), 2 => Just(Slide), 2 => Just(SplitSlide),
        2 => Just(MergeSlide), 1 => Just(PawnStep), 1 => Just(PawnTwoStep), 1 => Just(PawnCapture),
        1 => Just(PawnEp), 1 => Just(KsCastle), 1 => Just(QsCastle),
    ];
    let variant =
        prop_oneof![3 => Just(MoveVariant::Basic), 1 => Just(MoveVariant::Excluded), 1 => Just(MoveVariant::Capture)];
    (move_type, variant, prop::array::uniform3(0u8..16), prop::option::weighted(0.2, any::<bool>()))
}

fn small_square(index: u8) -> Square {
    Square::from_coords(index % 4, index / 4).expect("on the board")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random sequences of random moves on a small board: whatever ran exports exactly.
    #[test]
    fn random_sequences_read_back_exactly(
        init in prop::collection::vec(0u8..16, 2..8),
        moves in prop::collection::vec(random_move(), 4..32),
        seed in any::<u64>(),
    ) {
        let occupancy: Bitboard = init.iter().map(|&i| small_square(i)).collect();
        let mut board = LocalBoard::with_options(occupancy, LocalBoardOptions { seed, ..LocalBoardOptions::default() });
        for (move_type, variant, squares, outcome) in moves {
            let [a, b, c] = squares.map(small_square);
            let squares = match move_type.shape() {
                qchess_core::Shape::Standard => MoveSquares::Standard { from: a, to: b },
                qchess_core::Shape::Split => MoveSquares::Split { from: a, to1: b, to2: c },
                qchess_core::Shape::Merge => MoveSquares::Merge { from1: a, from2: b, to: c },
            };
            let Ok(mv) = TypedMove::new(squares, move_type, variant) else { continue };
            // Invalid or impossible moves leave the board as it was.
            let _ = board.apply(&mv.with_outcome(outcome));
            if board.circuit().num_qubits() > 16 {
                break;
            }
        }
        assert_export_matches(&mut board);
    }
}
