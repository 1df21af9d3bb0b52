//! Listing every legal move, and checking one typed by a user.

use super::rules::moves_like;
use super::{IllegalMove, LegalMove, MoveError, Position};
use crate::notation::{AlgebraicMove, Notation};
use crate::{MoveSquares, Piece, Role, Square};

impl Position {
    /// Every legal move of the side to move.
    ///
    /// Order: by source square (`a1` first); for each source its standard moves by target
    /// (promotions as `q`, `r`, `b`, `n`), then its splits; merges come last, by source pair.
    /// A split or merge appears once, with the lower square index first (`b1^a3c3`).
    pub fn legal_moves(&self) -> Vec<LegalMove> {
        let mut moves = Vec::new();
        let ours = self.pieces_of(self.turn);
        for from in ours {
            let Some(mover) = self.piece_at(from) else { continue };
            self.standard_moves(mover, from, &mut moves);
            if mover.role != Role::Pawn {
                self.splits(mover, from, &mut moves);
            }
        }
        for from1 in ours.iter().filter(|&sq| self.piece_at(sq).is_some_and(|p| p.role != Role::Pawn)) {
            for from2 in ours.iter().filter(|&sq| sq > from1 && self.piece_at(sq) == self.piece_at(from1)) {
                for to in Square::ALL {
                    let squares = MoveSquares::Merge { from1, from2, to };
                    if to != from1 && to != from2 {
                        self.keep_if_legal(squares, None, &mut moves);
                    }
                }
            }
        }
        moves
    }

    fn standard_moves(&self, mover: Piece, from: Square, moves: &mut Vec<LegalMove>) {
        let last_rank = (!mover.color).back_rank();
        for to in Square::ALL.into_iter().filter(|&to| to != from) {
            let squares = MoveSquares::Standard { from, to };
            if mover.role == Role::Pawn && to.rank() == last_rank {
                for role in Role::PROMOTIONS {
                    self.keep_if_legal(squares, Some(role), moves);
                }
            } else {
                self.keep_if_legal(squares, None, moves);
            }
        }
    }

    fn splits(&self, mover: Piece, from: Square, moves: &mut Vec<LegalMove>) {
        // Cheap filter first: squares the piece could reach on an empty board that are free
        // for it; `classify` then checks the paths of each pair.
        let candidates: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|&to| moves_like(mover.role, from, to) && self.piece_at(to).is_none_or(|p| p == mover))
            .collect();
        for (i, &to1) in candidates.iter().enumerate() {
            for &to2 in &candidates[i + 1..] {
                self.keep_if_legal(MoveSquares::Split { from, to1, to2 }, None, moves);
            }
        }
    }

    fn keep_if_legal(&self, squares: MoveSquares, promotion: Option<Role>, moves: &mut Vec<LegalMove>) {
        let mv = AlgebraicMove { promotion, ..AlgebraicMove::new(squares) };
        if let Ok(legal) = self.classify(&mv) {
            moves.push(legal);
        }
    }

    /// Checks a move and works out its type and variant from this position.
    ///
    /// A bare move is accepted whatever its variant turns out to be; an `x` or `w` mark or a
    /// piece letter that contradicts the position is refused. The returned move's notation
    /// is canonical (see [`LegalMove`]); split targets and merge sources keep the order given,
    /// and a recorded outcome is kept.
    pub fn validate(&self, mv: &Notation) -> Result<LegalMove, IllegalMove> {
        let illegal = |reason| IllegalMove { text: mv.to_string(), reason };
        match mv {
            Notation::Null => Err(illegal(super::Illegal::NullMove)),
            Notation::Move(algebraic) => self.classify(algebraic).map_err(illegal),
        }
    }

    /// Parses a move in official notation and [validates](Position::validate) it.
    pub fn parse_move(&self, text: &str) -> Result<LegalMove, MoveError> {
        let notation: Notation = text.parse()?;
        self.validate(&notation).map_err(|error| MoveError::Illegal(IllegalMove { text: text.to_owned(), ..error }))
    }
}
