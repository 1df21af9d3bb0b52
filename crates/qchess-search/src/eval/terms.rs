//! The evaluation terms a search keeps from move to move: material and piece-square terms,
//! and mobility, updated by the squares a move changed instead of recomputed.
//!
//! A square's material and piece-square term depends on its label and probability alone, so
//! only the squares a move changed ([`PlayedMove::changed`](qchess_engine::PlayedMove::changed))
//! change it. A piece's mobility (the squares it reaches, not certainly full of its own side)
//! depends on its own square and on the squares it could reach on an empty board: it is
//! counted again only for the changed squares and for the pieces that could reach a square
//! whose label changed or that became, or stopped being, certainly full.

use qchess_core::classical::piece_attacks;
use qchess_core::{Bitboard, Color, Piece, Position, Role, Square};

use super::{Weights, piece_square, reach};

/// Each piece kind's value on each square, material plus weighted piece-square bonus: the
/// evaluation's per-square terms.
#[derive(Debug, Clone, PartialEq)]
pub struct SquareValues {
    /// By [`kind_index`], then square.
    values: [[f64; 64]; 12],
}

impl SquareValues {
    /// The table for `weights`.
    pub fn new(weights: &Weights) -> SquareValues {
        let mut values = [[0.0; 64]; 12];
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece::new(color, role);
                for square in Square::ALL {
                    values[kind_index(piece)][usize::from(square)] =
                        weights.value(role) + weights.piece_square * piece_square(piece, square);
                }
            }
        }
        SquareValues { values }
    }

    /// What `piece` with probability `p` on `square` adds, from White's view.
    pub fn term(&self, piece: Piece, square: Square, p: f64) -> f64 {
        let value = p * self.values[kind_index(piece)][usize::from(square)];
        if piece.color == Color::White { value } else { -value }
    }

    /// The sum of the terms of `squares`.
    pub fn sum_over(&self, position: &Position, squares: Bitboard) -> f64 {
        squares
            .into_iter()
            .filter_map(|square| position.piece_at(square).map(|p| self.term(p, square, position.probability(square))))
            .sum()
    }
}

/// The index of a piece kind: White pawn to king 0 to 5, Black 6 to 11.
fn kind_index(piece: Piece) -> usize {
    let role = match piece.role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    };
    side(piece.color) * 6 + role
}

/// White 0, Black 1.
fn side(color: Color) -> usize {
    usize::from(color == Color::Black)
}

/// Adds `value` to `color`'s entry of a per-side pair.
fn add(pair: &mut [f64; 2], color: Color, value: f64) {
    pair[side(color)] += value;
}

/// The terms a search keeps per ply: material and piece-square terms and mobility, updated
/// from the squares a move changed ([`KeptTerms::after`]) instead of recomputed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeptTerms {
    /// Material and piece-square terms, from White's view.
    squares: f64,
    /// Each side's mobility: reachable squares times the piece's probability.
    mobility: [f64; 2],
    /// The squares each square's piece reaches (0 for an empty square).
    reach: [u8; 64],
}

impl KeptTerms {
    /// The terms of `position`, computed square by square.
    pub fn new(position: &Position, values: &SquareValues) -> KeptTerms {
        let labelled = position.pieces_of(Color::White) | position.pieces_of(Color::Black);
        let mut terms = KeptTerms { squares: values.sum_over(position, labelled), mobility: [0.0; 2], reach: [0; 64] };
        for square in labelled {
            terms.count(position, square);
        }
        terms
    }

    /// The terms of `position`, which a move that changed the labels or probabilities of
    /// `changed` made from `previous` (whose terms these are).
    pub fn after(
        &self,
        previous: &Position,
        position: &Position,
        changed: Bitboard,
        values: &SquareValues,
    ) -> KeptTerms {
        let mut terms = *self;
        // Sums in locals, so the additions are not chained through memory.
        let (mut squares, mut mobility) = (0.0, [0.0; 2]);
        // What a piece reaches changes only when a square in its reach changed its label or
        // became, or stopped being, certainly full; a probability that changed otherwise only
        // weighs the piece's count differently.
        let mut relabelled = Bitboard::EMPTY;
        for square in changed {
            let reach = f64::from(terms.reach[usize::from(square)]);
            let (old, new) = (previous.piece_at(square), position.piece_at(square));
            if let Some(old) = old {
                let p = previous.probability(square);
                squares -= values.term(old, square, p);
                add(&mut mobility, old.color, -p * reach);
            }
            if let Some(new) = new {
                let p = position.probability(square);
                squares += values.term(new, square, p);
                add(&mut mobility, new.color, p * reach);
            }
            if old != new {
                relabelled = relabelled.with(square);
            }
        }
        let moved = relabelled | (previous.certainly_full() ^ position.certainly_full());
        if !moved.is_empty() {
            let reachers = Reachers::of(position);
            let mut recount = relabelled;
            for square in moved {
                recount |= reachers.reaching(square);
            }
            // Recount: take the count out (at the new weight, as it stands now) and count again.
            let blockers = position.certainly_full();
            for square in recount {
                let index = usize::from(square);
                let Some(piece) = position.piece_at(square) else {
                    terms.reach[index] = 0;
                    continue;
                };
                let own_full = blockers & position.pieces_of(piece.color);
                let count = (reach(piece, square, blockers) & !own_full).count();
                let p = position.probability(square);
                add(&mut mobility, piece.color, p * (f64::from(count) - f64::from(terms.reach[index])));
                terms.reach[index] = count as u8;
            }
        }
        terms.squares += squares;
        terms.mobility[0] += mobility[0];
        terms.mobility[1] += mobility[1];
        terms
    }

    /// Counts what the piece on `square` reaches, and adds it to its side's mobility.
    fn count(&mut self, position: &Position, square: Square) {
        let Some(piece) = position.piece_at(square) else { return };
        let blockers = position.certainly_full();
        let own_full = blockers & position.pieces_of(piece.color);
        let count = (reach(piece, square, blockers) & !own_full).count();
        self.reach[usize::from(square)] = count as u8;
        self.mobility[side(piece.color)] += position.probability(square) * f64::from(count);
    }

    /// Material and piece-square terms, from White's view.
    pub fn squares(&self) -> f64 {
        self.squares
    }

    /// `color`'s mobility: reachable squares times the piece's probability.
    pub fn mobility(&self, color: Color) -> f64 {
        self.mobility[side(color)]
    }
}

/// The pieces of each kind, for finding the pieces whose reach a square can be part of.
struct Reachers {
    knights: Bitboard,
    kings: Bitboard,
    orthogonal: Bitboard,
    diagonal: Bitboard,
    pawns: [Bitboard; 2],
}

impl Reachers {
    fn of(position: &Position) -> Reachers {
        let kind = |role: Role| {
            position.squares_of(Piece::new(Color::White, role)) | position.squares_of(Piece::new(Color::Black, role))
        };
        let queens = kind(Role::Queen);
        Reachers {
            knights: kind(Role::Knight),
            kings: kind(Role::King),
            orthogonal: kind(Role::Rook) | queens,
            diagonal: kind(Role::Bishop) | queens,
            pawns: Color::ALL.map(|color| position.squares_of(Piece::new(color, Role::Pawn))),
        }
    }

    /// The pieces whose reach `square` can be part of: those that reach it on an empty board
    /// (a piece's moves run both ways), and the pawns that step onto it.
    fn reaching(&self, square: Square) -> Bitboard {
        let lines = |role: Role| piece_attacks(Piece::new(Color::White, role), square, Bitboard::EMPTY);
        let mut pieces = (lines(Role::Knight) & self.knights)
            | (lines(Role::King) & self.kings)
            | (lines(Role::Rook) & self.orthogonal)
            | (lines(Role::Bishop) & self.diagonal);
        for color in Color::ALL {
            if let Some(behind) = square.offset(0, -color.forward()) {
                pieces |= Bitboard::from_square(behind) & self.pawns[side(color)];
            }
        }
        pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qchess_core::{Fen, SquareProbabilities};

    /// Mobility counted from scratch, piece by piece.
    fn mobility(position: &Position, color: Color) -> f64 {
        let blockers = position.certainly_full();
        let own_full = blockers & position.pieces_of(color);
        position
            .pieces_of(color)
            .into_iter()
            .map(|square| {
                let piece = position.piece_at(square).unwrap();
                position.probability(square) * f64::from((reach(piece, square, blockers) & !own_full).count())
            })
            .sum()
    }

    #[test]
    fn kept_terms_follow_a_change_of_labels_and_fullness() {
        let values = SquareValues::new(&Weights::default());
        let before = Position::from_fen(&"r3k3/8/8/8/8/8/8/R3K2N w - - 0 1".parse::<Fen>().unwrap()).unwrap();
        let terms = KeptTerms::new(&before, &values);
        // The a1 rook goes to a4, and the knight becomes half on h1 and half on g3.
        let mut fen: Fen = "r3k3/8/8/8/R7/6N1/8/4K2N b - - 0 1".parse().unwrap();
        fen.castling = qchess_core::CastlingRights::NONE;
        let mut probabilities = SquareProbabilities::classical(fen.occupancy());
        probabilities.probabilities[usize::from(Square::H1)] = 0.5;
        probabilities.probabilities[usize::from(Square::G3)] = 0.5;
        let after = Position::new(fen, probabilities).unwrap();
        let changed = after.changed_squares(&before);
        let kept = terms.after(&before, &after, changed, &values);
        let fresh = KeptTerms::new(&after, &values);
        assert!((kept.squares() - fresh.squares()).abs() < 1e-9);
        for color in Color::ALL {
            assert!((kept.mobility(color) - mobility(&after, color)).abs() < 1e-9, "{color:?}");
            assert!((fresh.mobility(color) - mobility(&after, color)).abs() < 1e-9, "{color:?}");
        }
        assert_eq!(kept.reach, fresh.reach);
    }
}
