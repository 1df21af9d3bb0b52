//! Property tests: every parser survives random and mutated input and round-trips valid
//! input; move generation and move validation agree on random superposed positions.

use std::collections::BTreeSet;
use std::error::Error;
use std::fmt::Display;
use std::str::FromStr;

use proptest::prelude::*;
use qchess_core::notation::{AlgebraicMove, Notation, VariantMarker};
use qchess_core::text::with_causes;
use qchess_core::{
    Bitboard, CastlingRights, CastlingSide, Color, Fen, MoveSquares, MoveType, MoveVariant, Piece, Position,
    PositionSpec, Role, Square, SquareProbabilities, StartPosition, TypedMove,
};

fn square() -> impl Strategy<Value = Square> {
    (0u8..64).prop_filter_map("a square", Square::new)
}

fn color() -> impl Strategy<Value = Color> {
    prop_oneof![Just(Color::White), Just(Color::Black)]
}

fn role() -> impl Strategy<Value = Role> {
    prop::sample::select(Role::ALL.to_vec())
}

fn piece() -> impl Strategy<Value = Piece> {
    (color(), role()).prop_map(|(c, r)| Piece::new(c, r))
}

fn castling() -> impl Strategy<Value = CastlingRights> {
    prop::array::uniform4(any::<bool>()).prop_map(|bits| {
        let mut rights = CastlingRights::NONE;
        let all = [
            (Color::White, CastlingSide::KingSide),
            (Color::White, CastlingSide::QueenSide),
            (Color::Black, CastlingSide::KingSide),
            (Color::Black, CastlingSide::QueenSide),
        ];
        for ((color, side), on) in all.into_iter().zip(bits) {
            rights = rights.set(color, side, on);
        }
        rights
    })
}

fn board(piece_chance: f64) -> impl Strategy<Value = [Option<Piece>; 64]> {
    prop::collection::vec(prop::option::weighted(piece_chance, piece()), 64).prop_map(|squares| {
        let mut board = [None; 64];
        board.copy_from_slice(&squares);
        board
    })
}

fn fen() -> impl Strategy<Value = Fen> {
    (board(0.4), color(), castling(), prop::option::of(0u8..8), 0u32..500, 1u32..500).prop_map(
        |(board, turn, castling, ep_file, halfmove_clock, fullmove_number)| {
            let ep_rank = if turn == Color::White { 5 } else { 2 };
            let en_passant = ep_file.and_then(|file| Square::from_coords(file, ep_rank));
            Fen { board, turn, castling, en_passant, halfmove_clock, fullmove_number }
        },
    )
}

fn distinct(squares: &[Square]) -> bool {
    squares.iter().collect::<BTreeSet<_>>().len() == squares.len()
}

fn move_squares() -> impl Strategy<Value = MoveSquares> {
    prop_oneof![
        (square(), square()).prop_map(|(from, to)| MoveSquares::Standard { from, to }),
        (square(), square(), square()).prop_map(|(from, to1, to2)| MoveSquares::Split { from, to1, to2 }),
        (square(), square(), square()).prop_map(|(from1, from2, to)| MoveSquares::Merge { from1, from2, to }),
    ]
    .prop_filter("distinct squares", |s| {
        let mut all = s.sources();
        all.extend(s.targets());
        distinct(&all)
    })
}

fn algebraic() -> impl Strategy<Value = AlgebraicMove> {
    let marker = prop::option::of(prop_oneof![Just(VariantMarker::Capture), Just(VariantMarker::Excluded)]);
    let promotion = prop::option::of(prop::sample::select(Role::PROMOTIONS.to_vec()));
    (prop::option::of(role()), move_squares(), marker, promotion, prop::option::of(any::<bool>())).prop_map(
        |(piece, squares, marker, promotion, outcome)| {
            let standard = matches!(squares, MoveSquares::Standard { .. });
            AlgebraicMove {
                piece,
                squares,
                marker: marker.filter(|_| standard),
                promotion: promotion.filter(|_| standard),
                outcome,
            }
        },
    )
}

fn notation() -> impl Strategy<Value = Notation> {
    prop_oneof![1 => Just(Notation::Null), 9 => algebraic().prop_map(Notation::Move)]
}

fn position_spec() -> impl Strategy<Value = PositionSpec> {
    let start = prop_oneof![Just(StartPosition::StartPos), fen().prop_map(StartPosition::Fen)];
    (start, prop::collection::vec(notation(), 0..6)).prop_map(|(start, moves)| PositionSpec { start, moves })
}

fn typed_move() -> impl Strategy<Value = TypedMove> {
    let move_type = prop::sample::select(MoveType::ALL.to_vec());
    let variant = prop::sample::select(MoveVariant::ALL.to_vec());
    let promotion = prop::option::of((color(), prop::sample::select(Role::PROMOTIONS.to_vec())));
    (move_squares(), move_type, variant, promotion, prop::option::of(any::<bool>())).prop_filter_map(
        "a well-formed typed move",
        |(squares, move_type, variant, promotion, outcome)| {
            let promotion =
                promotion.filter(|_| matches!(squares, MoveSquares::Standard { .. })).map(|(c, r)| Piece::new(c, r));
            let mv = TypedMove::new(squares, move_type, variant).ok()?;
            Some(mv.with_promotion(promotion).with_outcome(outcome))
        },
    )
}

/// Characters that mutations insert: the notation alphabets and some troublemakers.
const MUTATION_CHARS: &[char] = &[
    'a', 'e', 'h', 'i', 'x', 'w', 'q', 'K', 'N', 'P', 'Q', 'Z', '0', '1', '8', '9', '^', '.', 'm', ':', '/', '-', ' ',
    '\t', 'é', '♔', '\u{212A}', '\u{0}',
];

/// Random edits (delete, insert, replace at char positions) applied to a valid text.
fn mutated(valid: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    let edit = (0u8..3, any::<prop::sample::Index>(), prop::sample::select(MUTATION_CHARS));
    (valid, prop::collection::vec(edit, 1..4)).prop_map(|(text, edits)| {
        let mut chars: Vec<char> = text.chars().collect();
        for (kind, at, c) in edits {
            let position = at.index(chars.len() + 1);
            match kind {
                0 if position < chars.len() => {
                    chars.remove(position);
                }
                1 => chars.insert(position, c),
                _ if position < chars.len() => chars[position] = c,
                _ => chars.push(c),
            }
        }
        chars.into_iter().collect()
    })
}

proptest! {
    #[test]
    fn fen_round_trips(fen in fen()) {
        let text = fen.to_string();
        prop_assert_eq!(text.parse::<Fen>(), Ok(fen));
    }

    #[test]
    fn fen_parser_survives_random_text(text in "\\PC*") {
        let _ = text.parse::<Fen>();
    }

    #[test]
    fn fen_parser_survives_mutations(text in mutated(fen().prop_map(|f| f.to_string()))) {
        if let Ok(fen) = text.parse::<Fen>() {
            prop_assert_eq!(fen.to_string().parse::<Fen>(), Ok(fen));
        }
    }

    #[test]
    fn notation_round_trips(mv in notation()) {
        prop_assert_eq!(mv.to_string().parse::<Notation>(), Ok(mv));
    }

    #[test]
    fn notation_parser_survives_random_text(text in "\\PC{0,12}") {
        let _ = text.parse::<Notation>();
    }

    #[test]
    fn notation_parser_survives_mutations(text in mutated(notation().prop_map(|m| m.to_string()))) {
        if let Ok(mv) = text.parse::<Notation>() {
            prop_assert_eq!(mv.to_string().parse::<Notation>(), Ok(mv));
        }
    }

    #[test]
    fn position_spec_round_trips(spec in position_spec()) {
        let text = spec.to_string();
        prop_assert_eq!(text.parse::<PositionSpec>(), Ok(spec.clone()));
        prop_assert_eq!(format!("position {text}").parse::<PositionSpec>(), Ok(spec));
    }

    #[test]
    fn position_spec_parser_survives_random_text(text in "\\PC*") {
        let _ = text.parse::<PositionSpec>();
    }

    #[test]
    fn position_spec_parser_survives_mutations(text in mutated(position_spec().prop_map(|s| s.to_string()))) {
        let _ = text.parse::<PositionSpec>();
    }

    #[test]
    fn typed_moves_round_trip(mv in typed_move()) {
        prop_assert_eq!(mv.to_string().parse::<TypedMove>(), Ok(mv));
    }

    #[test]
    fn typed_move_parser_survives_random_text(text in "\\PC{0,30}") {
        let _ = text.parse::<TypedMove>();
    }

    #[test]
    fn typed_move_parser_survives_mutations(text in mutated(typed_move().prop_map(|m| m.to_string()))) {
        let _ = text.parse::<TypedMove>();
    }
}

/// Text as a hostile user or a corrupt file gives it: random bytes (invalid UTF-8 replaced),
/// any characters, control characters among move letters, and very long runs.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..300).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        any::<String>(),
        "[\\x00-\\x1f\\x7f\\u{9b}\\u{202e} a-h1-8^.:xwm0-9/KQkqw-]{0,80}",
        ("[a-h1-8\\x1b ]{1,4}", 1000usize..20_000).prop_map(|(unit, times)| unit.repeat(times)),
    ]
}

/// Parses `text`: an error must be readable (no raw control character, no long echo of the
/// input), and a value must print back to itself.
fn check_parser<T>(text: &str) -> Result<(), TestCaseError>
where
    T: FromStr + Display + PartialEq + std::fmt::Debug,
    T::Err: Error + 'static,
{
    match text.parse::<T>() {
        Ok(value) => {
            let printed = value.to_string();
            let again = printed.parse::<T>().map_err(|e| TestCaseError::fail(format!("{printed:?}: {e}")))?;
            prop_assert_eq!(again, value, "{:?} printed as {:?}", text, printed);
        }
        Err(error) => {
            let message = with_causes(&error);
            prop_assert!(!message.chars().any(char::is_control), "raw control characters in {:?}", message);
            prop_assert!(message.chars().count() <= 400, "{} characters: {}", message.chars().count(), message);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_parser_gives_a_value_that_round_trips_or_a_readable_error(text in hostile_text()) {
        check_parser::<Fen>(&text)?;
        check_parser::<Notation>(&text)?;
        check_parser::<PositionSpec>(&text)?;
        check_parser::<TypedMove>(&text)?;
        check_parser::<Square>(&text)?;
        // Inside a position string, the text is a FEN or a move.
        check_parser::<PositionSpec>(&format!("fen {text}"))?;
        check_parser::<PositionSpec>(&format!("startpos moves e2e4 {text}"))?;
    }
}

/// Random quantum positions: pieces anywhere but pawns off the back ranks, each square's
/// probability drawn from {0, 1/4, 1/2, 1}, sometimes an en-passant square.
fn quantum_position() -> impl Strategy<Value = Position> {
    let probabilities = prop::collection::vec(prop::sample::select(vec![0.0, 0.25, 0.5, 1.0, 1.0]), 64);
    (board(0.35), color(), castling(), prop::option::of(0u8..8), probabilities).prop_filter_map(
        "a valid position",
        |(mut board, turn, castling, ep_file, chances)| {
            for sq in Square::ALL {
                if matches!(sq.rank(), 0 | 7) && board[usize::from(sq)].is_some_and(|p| p.role == Role::Pawn) {
                    board[usize::from(sq)] = None;
                }
            }
            // An en-passant square needs the opponent's pawn in front of it.
            let (ep_rank, pawn_rank) = if turn == Color::White { (5, 4) } else { (2, 3) };
            let en_passant = ep_file.and_then(|file| {
                let pawn = Square::from_coords(file, pawn_rank)?;
                board[usize::from(pawn)] = Some(Piece::new(!turn, Role::Pawn));
                Square::from_coords(file, ep_rank)
            });
            let mut squares = SquareProbabilities::classical(Bitboard::EMPTY);
            for sq in Square::ALL {
                if board[usize::from(sq)].is_some() {
                    squares.probabilities[usize::from(sq)] = chances[usize::from(sq)];
                }
            }
            if let Some(pawn) = en_passant.and_then(|ep| Square::from_coords(ep.file(), pawn_rank)) {
                squares.probabilities[usize::from(pawn)] = 0.5;
            }
            let setup = Fen { board, turn, castling, en_passant, halfmove_clock: 0, fullmove_number: 1 };
            Position::new(setup, squares).ok()
        },
    )
}

/// A move's identity up to the order of split targets / merge sources.
fn key(squares: MoveSquares, promotion: Option<Role>) -> (Vec<Square>, Vec<Square>, Option<Role>) {
    let mut sources = squares.sources();
    let mut targets = squares.targets();
    sources.sort();
    targets.sort();
    (sources, targets, promotion)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn listed_moves_validate_to_themselves(position in quantum_position()) {
        let moves = position.legal_moves();
        let mut seen = BTreeSet::new();
        for mv in &moves {
            let text = mv.to_string();
            prop_assert!(seen.insert(key(mv.notation.squares, mv.notation.promotion)), "{} listed twice", text);
            prop_assert_eq!(position.parse_move(&text), Ok(*mv));
            for source in mv.typed.sources() {
                prop_assert_eq!(position.piece_at(source).map(|p| p.color), Some(position.turn()));
            }
            if mv.typed.squares.shape() != qchess_core::Shape::Standard {
                prop_assert_eq!(mv.variant(), MoveVariant::Basic);
            }
        }
    }

    #[test]
    fn validation_accepts_exactly_the_listed_moves(
        position in quantum_position(),
        candidates in prop::collection::vec((move_squares(), prop::option::of(prop::sample::select(Role::PROMOTIONS.to_vec()))), 64),
    ) {
        let listed: BTreeSet<_> =
            position.legal_moves().iter().map(|m| key(m.notation.squares, m.notation.promotion)).collect();
        // Candidates around the side to move's pieces, so that many are legal.
        let ours: Vec<Square> = position.pieces_of(position.turn()).iter().collect();
        for (i, (squares, promotion)) in candidates.into_iter().enumerate() {
            let squares = match (squares, ours.get(i % ours.len().max(1))) {
                (MoveSquares::Standard { to, .. }, Some(&from)) if from != to => MoveSquares::Standard { from, to },
                (MoveSquares::Split { to1, to2, .. }, Some(&from)) if from != to1 && from != to2 => {
                    MoveSquares::Split { from, to1, to2 }
                }
                (other, _) => other,
            };
            let promotion = promotion.filter(|_| matches!(squares, MoveSquares::Standard { .. }));
            let mv = AlgebraicMove { promotion, ..AlgebraicMove::new(squares) };
            let accepted = position.validate(&Notation::Move(mv));
            prop_assert_eq!(
                accepted.is_ok(),
                listed.contains(&key(squares, promotion)),
                "{} in {}: {:?}", mv, position, accepted
            );
        }
    }
}

/// Random classical positions: one king per side, pawns off the back ranks, random rights
/// (kept only where king and rook stand at home).
fn classical_position() -> impl Strategy<Value = qchess_core::classical::ClassicalPosition> {
    (board(0.2), square(), square(), color(), castling()).prop_filter_map(
        "a valid classical position",
        |(mut board, white_king, black_king, turn, castling)| {
            for sq in Square::ALL {
                let piece = board[usize::from(sq)];
                if piece.is_some_and(|p| p.role == Role::King || (p.role == Role::Pawn && matches!(sq.rank(), 0 | 7))) {
                    board[usize::from(sq)] = None;
                }
            }
            board[usize::from(white_king)] = Some(Piece::new(Color::White, Role::King));
            board[usize::from(black_king)] = Some(Piece::new(Color::Black, Role::King));
            let mut fen = Fen { board, turn, castling, en_passant: None, halfmove_clock: 0, fullmove_number: 1 };
            for color in Color::ALL {
                for side in CastlingSide::ALL {
                    let king_home = Square::from_coords(4, color.back_rank())?;
                    let at_home = fen.piece_at(king_home) == Some(Piece::new(color, Role::King))
                        && fen.piece_at(side.rook_from(color)) == Some(Piece::new(color, Role::Rook));
                    fen.castling = fen.castling.set(color, side, fen.castling.has(color, side) && at_home);
                }
            }
            qchess_core::classical::ClassicalPosition::from_fen(&fen).ok()
        },
    )
}

proptest! {
    #[test]
    fn classical_moves_never_leave_the_king_in_check(position in classical_position()) {
        use qchess_core::classical::ClassicalPosition;
        for &mv in &position.legal_moves() {
            let next = position.played(mv);
            // Re-reading the position checks, among the rest, that the side that just moved
            // is not in check.
            prop_assert_eq!(ClassicalPosition::from_fen(&next.to_fen()), Ok(next.clone()), "{} after {}", position.to_fen(), mv);
            prop_assert_eq!(position.parse_move(&mv.to_string()), Ok(mv));
        }
    }
}
