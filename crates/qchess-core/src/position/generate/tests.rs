//! The bitboard generator against classifying every candidate one by one: same moves, same
//! order, on fixed and random positions (superposed squares, blockers, castling, en passant,
//! promotions).

use proptest::prelude::*;

use crate::notation::AlgebraicMove;
use crate::position::rules::moves_like;
use crate::{
    Bitboard, CastlingRights, Color, Fen, LegalMove, MoveSquares, MoveVariant, Piece, Position, Role, Square,
    SquareProbabilities,
};

/// Every legal move found by classifying every candidate one by one, in the documented
/// order: the reference the bitboard generator is held to.
fn legal_moves_by_classification(position: &Position) -> Vec<LegalMove> {
    let keep_if_legal = |squares: MoveSquares, promotion: Option<Role>, moves: &mut Vec<LegalMove>| {
        let mv = AlgebraicMove { promotion, ..AlgebraicMove::new(squares) };
        if let Ok(legal) = position.classify(&mv) {
            moves.push(legal);
        }
    };
    let mut moves = Vec::new();
    let ours = position.pieces_of(position.turn());
    for from in ours {
        let Some(mover) = position.piece_at(from) else { continue };
        let last_rank = (!mover.color).back_rank();
        for to in Square::ALL.into_iter().filter(|&to| to != from) {
            let squares = MoveSquares::Standard { from, to };
            if mover.role == Role::Pawn && to.rank() == last_rank {
                for role in Role::PROMOTIONS {
                    keep_if_legal(squares, Some(role), &mut moves);
                }
            } else {
                keep_if_legal(squares, None, &mut moves);
            }
        }
        if mover.role != Role::Pawn {
            let candidates: Vec<Square> = Square::ALL
                .into_iter()
                .filter(|&to| moves_like(mover.role, from, to) && position.piece_at(to).is_none_or(|p| p == mover))
                .collect();
            for (i, &to1) in candidates.iter().enumerate() {
                for &to2 in &candidates[i + 1..] {
                    keep_if_legal(MoveSquares::Split { from, to1, to2 }, None, &mut moves);
                }
            }
        }
    }
    for from1 in ours.iter().filter(|&sq| position.piece_at(sq).is_some_and(|p| p.role != Role::Pawn)) {
        for from2 in ours.iter().filter(|&sq| sq > from1 && position.piece_at(sq) == position.piece_at(from1)) {
            for to in Square::ALL.into_iter().filter(|&to| to != from1 && to != from2) {
                keep_if_legal(MoveSquares::Merge { from1, from2, to }, None, &mut moves);
            }
        }
    }
    moves
}

fn assert_same(position: &Position) {
    let fast = position.legal_moves();
    let reference = legal_moves_by_classification(position);
    assert_eq!(fast, reference, "{position}");
    assert_eq!(position.legal_captures(), captures_of(&reference), "{position}");
}

/// The captures among `moves`, in their order: what [`Position::legal_captures`] must list.
fn captures_of(moves: &[LegalMove]) -> Vec<LegalMove> {
    moves.iter().filter(|mv| mv.typed.variant == MoveVariant::Capture).copied().collect()
}

#[test]
fn fixed_positions_agree() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/8/8/8/8/8/8/RNBQKBNR w - - 0 1",
        "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPpP/R3K2R b KQkq - 0 1",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "8/P6k/8/8/8/8/p6K/8 b - - 0 1",
    ] {
        let fen: Fen = fen.parse().expect("valid FEN");
        assert_same(&Position::from_fen(&fen).expect("valid position"));
    }
}

#[test]
fn superposed_blockers_and_same_kind_targets_agree() {
    // Certain rooks on a1 and a4, a superposed one on h4, a superposed knight: merges, splits
    // onto a same-kind square and past it (a1^a4a5 passes the certain a4), blocked arms.
    let fen: Fen = "r2qk2r/8/2n5/8/R6R/8/3Q4/R3K3 w Qkq - 0 1".parse().expect("valid FEN");
    let mut probabilities = SquareProbabilities::classical(fen.occupancy());
    for (square, p) in [(Square::H4, 0.5), (Square::C6, 0.25), (Square::D8, 0.5)] {
        probabilities.probabilities[usize::from(square)] = p;
    }
    let position = Position::new(fen, probabilities).expect("valid position");
    assert_same(&position);
    let moves: Vec<String> = position.legal_moves().iter().map(ToString::to_string).collect();
    for expected in ["a4h4^e4", "a1a4^a3", "a1^a4a5", "h4^a4b4", "a1^a2a3"] {
        assert!(moves.contains(&expected.to_owned()), "{expected} missing: {moves:?}");
    }
    // Past a certain piece only when it is the other target.
    assert!(!moves.contains(&"a1^a3a5".to_owned()));
}

fn piece() -> impl Strategy<Value = Piece> {
    (prop::sample::select(Color::ALL.to_vec()), prop::sample::select(Role::ALL.to_vec()))
        .prop_map(|(color, role)| Piece::new(color, role))
}

prop_compose! {
    fn random_position()(
        density in 0.05f64..0.6,
    )(
        board in prop::collection::vec(prop::option::weighted(density, piece()), 64),
        chances in prop::collection::vec(prop::sample::select(vec![0.0, 0.25, 0.5, 1.0, 1.0, 1.0]), 64),
        white in any::<bool>(),
        rights in 0u8..16,
        ep_file in prop::option::of(0u8..8),
    ) -> Option<Position> {
        let turn = if white { Color::White } else { Color::Black };
        let mut pieces = [None; 64];
        for (sq, piece) in Square::ALL.into_iter().zip(board) {
            let back_rank_pawn = piece.is_some_and(|p: Piece| p.role == Role::Pawn) && matches!(sq.rank(), 0 | 7);
            pieces[usize::from(sq)] = if back_rank_pawn { None } else { piece };
        }
        // Kings and rooks at home often, so castling is exercised.
        if rights != 0 {
            for (sq, piece) in [(Square::E1, Piece::new(Color::White, Role::King)), (Square::H1, Piece::new(Color::White, Role::Rook)),
                (Square::A1, Piece::new(Color::White, Role::Rook)), (Square::E8, Piece::new(Color::Black, Role::King)),
                (Square::H8, Piece::new(Color::Black, Role::Rook)), (Square::A8, Piece::new(Color::Black, Role::Rook))] {
                pieces[usize::from(sq)] = Some(piece);
            }
        }
        let (ep_rank, pawn_rank) = if turn == Color::White { (5, 4) } else { (2, 3) };
        let en_passant = ep_file.and_then(|file| {
            let pawn = Square::from_coords(file, pawn_rank)?;
            pieces[usize::from(pawn)] = Some(Piece::new(!turn, Role::Pawn));
            Square::from_coords(file, ep_rank)
        });
        let mut probabilities = SquareProbabilities::classical(Bitboard::EMPTY);
        for sq in Square::ALL {
            if pieces[usize::from(sq)].is_some() {
                probabilities.probabilities[usize::from(sq)] = chances[usize::from(sq)];
            }
        }
        if let Some(pawn) = en_passant.and_then(|ep| Square::from_coords(ep.file(), pawn_rank)) {
            probabilities.probabilities[usize::from(pawn)] = 0.5;
        }
        let castling = CastlingRights::NONE
            .set(Color::White, crate::CastlingSide::KingSide, rights & 1 != 0)
            .set(Color::White, crate::CastlingSide::QueenSide, rights & 2 != 0)
            .set(Color::Black, crate::CastlingSide::KingSide, rights & 4 != 0)
            .set(Color::Black, crate::CastlingSide::QueenSide, rights & 8 != 0);
        let fen = Fen { board: pieces, turn, castling, en_passant, halfmove_clock: 0, fullmove_number: 1 };
        Position::new(fen, probabilities).ok()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_positions_agree(position in random_position()) {
        if let Some(position) = position {
            let fast = position.legal_moves();
            let reference = legal_moves_by_classification(&position);
            prop_assert_eq!(position.legal_captures(), captures_of(&reference), "{}", position);
            prop_assert_eq!(fast, reference, "{}", position);
        }
    }
}
