//! Sidecar JSON: valid sidecars round-trip, every check names what is wrong and where, and
//! random or mutated text never panics.

use proptest::prelude::*;
use qchess_circuit::ir::{Clbit, PostSelection, Qubit};
use qchess_core::{AlgebraicMove, Bitboard, Fen, Square, StartPosition, TypedMove};
use qchess_qasm::sidecar::{Setup, Sidecar, SidecarError};

fn example() -> Sidecar {
    Sidecar {
        squares: vec![(Square::A3, Qubit(1)), (Square::H5, Qubit(5))],
        classical: Bitboard::from_square(Square::D5),
        postselect: vec![PostSelection { qubit: Qubit(2), clbit: Clbit(0), value: true }],
        measure: vec![Qubit(1), Qubit(5)],
        setup: Some(Setup::Board {
            init: [Square::B1, Square::F6].into_iter().collect(),
            moves: ["b1^a3c3:SPLIT_JUMP:BASIC", "c3d5.m1:JUMP:CAPTURE"].map(|m| m.parse().expect("typed")).to_vec(),
            seed: 7,
        }),
    }
}

#[test]
fn the_documented_shape_round_trips() {
    let sidecar = example();
    let json = sidecar.to_json();
    assert_eq!(
        json,
        concat!(
            r#"{"squares":{"a3":1,"h5":5},"classical":34359738368,"#,
            r#""postselect":[{"qubit":2,"clbit":0,"value":1}],"measure":[1,5],"#,
            r#""setup":{"init":35184372088834,"moves":"b1^a3c3:SPLIT_JUMP:BASIC c3d5.m1:JUMP:CAPTURE","seed":7}}"#
        )
    );
    assert_eq!(json.parse::<Sidecar>(), Ok(sidecar.clone()));
    assert_eq!(sidecar.to_json_pretty().parse::<Sidecar>(), Ok(sidecar.clone()));
    let game = Sidecar {
        setup: Some(Setup::Game {
            start: StartPosition::Fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1".parse::<Fen>().expect("FEN")),
            moves: ["e1^e2d1", "e8xd8.m0"].map(|m| m.parse::<AlgebraicMove>().expect("move")).to_vec(),
            seed: 0,
        }),
        ..sidecar
    };
    let json = game.to_json();
    assert!(
        json.contains(
            r#""setup":{"position":"fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1","moves":"e1^e2d1 e8xd8.m0","seed":0}"#
        ),
        "{json}"
    );
    assert_eq!(json.parse::<Sidecar>(), Ok(game.clone()));
    assert_eq!(
        game.setup.expect("setup").to_string(),
        "position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1 moves e1^e2d1 e8xd8.m0"
    );
}

#[test]
fn reading_a_board_follows_qubits_then_the_classical_bits() {
    let sidecar = example();
    assert_eq!(sidecar.qubit_of(Square::H5), Some(Qubit(5)));
    assert_eq!(sidecar.qubit_of(Square::D5), None);
    let reads = |q: Qubit| matches!(q.0, 2 | 5);
    assert!(sidecar.keeps(reads));
    assert!(!sidecar.keeps(|q: Qubit| q.0 == 5));
    assert_eq!(sidecar.board(reads), [Square::D5, Square::H5].into_iter().collect());
}

fn error(text: &str) -> String {
    text.parse::<Sidecar>().expect_err(text).to_string()
}

#[test]
fn shape_errors_carry_line_and_column() {
    let base = r#"{"squares":{"a3":1},"classical":0,"postselect":[],"measure":[1]}"#;
    assert!(base.parse::<Sidecar>().is_ok());
    let cases = [
        ("", "sidecar JSON, line 1 column 0: EOF while parsing a value"),
        (r#"{"squares":{"a3":1,"a3":2},"classical":0,"postselect":[],"measure":[1,2]}"#, "square a3 is listed twice"),
        (r#"{"squares":{"z3":1},"classical":0,"postselect":[],"measure":[1]}"#, "in `squares`: `z3` is not a square"),
        (r#"{"squares":{},"classical":-1,"postselect":[],"measure":[]}"#, "invalid value: integer `-1`"),
        (
            r#"{"squares":{},"classical":0,"postselect":[{"qubit":1,"clbit":0,"value":2}],"measure":[]}"#,
            "post-selected value 2 of qubit 1: it must be 0 or 1",
        ),
        (r#"{"squares":{},"classical":0,"postselect":[],"measure":[],"extra":1}"#, "unknown field `extra`"),
        (r#"{"squares":{},"classical":0,"postselect":[]}"#, "missing field `measure`"),
        (
            r#"{"squares":{},"classical":0,"postselect":[],"measure":[],"setup":{"moves":"","seed":0}}"#,
            "give exactly one of `init` and `position`",
        ),
        (
            r#"{"squares":{},"classical":0,"postselect":[],"measure":[],"setup":{"init":2,"moves":"b1^a3c3:SPLIT","seed":0}}"#,
            "setup move 1: bad typed move",
        ),
        (
            r#"{"squares":{},"classical":0,"postselect":[],"measure":[],"setup":{"position":"startpos moves e2e4","moves":"","seed":0}}"#,
            "the moves belong in `moves`",
        ),
        (
            r#"{"squares":{},"classical":0,"postselect":[],"measure":[],"setup":{"position":"startpos","moves":"e2e4 e7","seed":0}}"#,
            "setup move 2",
        ),
    ];
    for (text, needle) in cases {
        let message = error(text);
        assert!(message.starts_with("sidecar JSON, line 1 column "), "{message}");
        assert!(message.contains(needle), "{text}: {message}");
    }
}

#[test]
fn consistency_errors_name_the_squares_and_qubits() {
    let cases = [
        (
            r#"{"squares":{"a3":1,"c3":1},"classical":0,"postselect":[],"measure":[1]}"#,
            SidecarError::SharedQubit { qubit: 1, first: Square::A3, second: Square::C3 },
        ),
        (
            r#"{"squares":{"a3":1},"classical":65536,"postselect":[],"measure":[1]}"#,
            SidecarError::ClassicalQuantumSquare { square: Square::A3 },
        ),
        (
            r#"{"squares":{"a3":1},"classical":0,"postselect":[],"measure":[]}"#,
            SidecarError::UnmeasuredSquare { square: Square::A3, qubit: 1 },
        ),
        (
            r#"{"squares":{},"classical":0,"postselect":[{"qubit":2,"clbit":0,"value":1},{"qubit":2,"clbit":1,"value":0}],"measure":[]}"#,
            SidecarError::RepeatedPostSelection { index: 1, what: "qubit" },
        ),
        (
            r#"{"squares":{},"classical":0,"postselect":[{"qubit":2,"clbit":0,"value":1},{"qubit":3,"clbit":0,"value":0}],"measure":[]}"#,
            SidecarError::RepeatedPostSelection { index: 1, what: "clbit" },
        ),
        (
            r#"{"squares":{"a3":2},"classical":0,"postselect":[{"qubit":2,"clbit":0,"value":1}],"measure":[2]}"#,
            SidecarError::PostSelectedSquare { qubit: 2, square: Square::A3 },
        ),
        (
            r#"{"squares":{},"classical":0,"postselect":[],"measure":[4,4]}"#,
            SidecarError::RepeatedMeasurement { qubit: 4 },
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(text.parse::<Sidecar>(), Err(expected), "{text}");
    }
    assert_eq!(
        error(r#"{"squares":{"a3":1,"c3":1},"classical":0,"postselect":[],"measure":[1]}"#),
        "sidecar: squares a3 and c3 both claim qubit 1"
    );
    // The same checks run when a sidecar is read as part of a larger document.
    let nested = r#"{"sidecar":{"squares":{"a3":1},"classical":0,"postselect":[],"measure":[]}}"#;
    #[derive(Debug, serde::Deserialize)]
    struct Document {
        #[allow(dead_code)]
        sidecar: Sidecar,
    }
    let message = serde_json::from_str::<Document>(nested).unwrap_err().to_string();
    assert!(message.contains("the qubit 1 of square a3 is missing from `measure`"), "{message}");
}

/// Valid sidecars: distinct squares with distinct qubits, post-selections on other qubits.
fn valid_sidecar() -> impl Strategy<Value = Sidecar> {
    (
        prop::sample::subsequence((0u8..64).collect::<Vec<_>>(), 0..10),
        prop::collection::vec(any::<bool>(), 0..6),
        any::<u64>(),
        prop::option::of((any::<u64>(), any::<u64>())),
    )
        .prop_map(|(squares, values, classical, setup)| {
            let squares: Vec<(Square, Qubit)> = squares
                .iter()
                .enumerate()
                .map(|(i, &sq)| (Square::new(sq).expect("index below 64"), Qubit(3 * i as u32 + 1)))
                .collect();
            let quantum: Bitboard = squares.iter().map(|&(sq, _)| sq).collect();
            let postselect = values
                .iter()
                .enumerate()
                .map(|(i, &value)| PostSelection { qubit: Qubit(3 * i as u32 + 2), clbit: Clbit(i as u32), value })
                .collect();
            let measure = squares.iter().rev().map(|&(_, q)| q).collect();
            let setup = setup.map(|(init, seed)| Setup::Board {
                init: Bitboard(init),
                moves: vec!["b1^a3c3:SPLIT_JUMP:BASIC".parse::<TypedMove>().expect("typed")],
                seed,
            });
            Sidecar { squares, classical: Bitboard(classical) & !quantum, postselect, measure, setup }
        })
}

proptest! {
    #[test]
    fn valid_sidecars_round_trip(sidecar in valid_sidecar()) {
        prop_assert_eq!(sidecar.to_json().parse::<Sidecar>(), Ok(sidecar.clone()));
        prop_assert_eq!(sidecar.to_json_pretty().parse::<Sidecar>(), Ok(sidecar));
    }

    #[test]
    fn random_text_never_panics(text in ".{0,200}") {
        let _ = text.parse::<Sidecar>();
    }

    #[test]
    fn mutated_sidecars_never_panic(sidecar in valid_sidecar(), position in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
        let mut bytes = sidecar.to_json().into_bytes();
        let at = position.index(bytes.len());
        if cut { bytes.truncate(at) } else { bytes[at] = byte }
        let _ = String::from_utf8_lossy(&bytes).parse::<Sidecar>();
    }
}
