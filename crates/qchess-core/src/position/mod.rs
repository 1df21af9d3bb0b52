//! The classical side of a quantum position, and the legal moves of the official game.
//!
//! A [`Position`] knows which piece kind each square may hold, whose turn it is, the castling
//! rights, the en-passant square, the move counters, and the occupancy probability of every
//! square (fed by the quantum board; all 0 or 1 for a position read from a FEN). From the
//! probabilities each square is [`Occupancy::Empty`] (probability 0: its piece label is
//! dropped), [`Occupancy::Full`] (probability 1) or [`Occupancy::Superposed`].
//!
//! [`Position::legal_moves`] lists every move the official rules allow, each a [`LegalMove`]
//! pairing the move in official notation with the [`TypedMove`](crate::TypedMove) a quantum board runs.
//! [`Position::validate`] checks and classifies a move a user typed, with a reason naming
//! the rule when it is refused. The rules are those of the official Quantum Chess:
//!
//! - Superposed squares on a slide's path count as empty; a certainly full one blocks.
//! - Jump and slide targets: empty or the same kind of piece is BASIC; a superposed piece of
//!   the mover's side of another kind is EXCLUDED (certainly full: illegal); an opponent's
//!   piece is CAPTURE. There is no check.
//! - Pawn steps and two-steps (the square in between not certainly full): empty or own pawn
//!   is BASIC, any other superposed piece EXCLUDED, any other certainly full piece illegal.
//!   Diagonal moves capture an opponent's piece (PAWN_CAPTURE) or go to the en-passant square
//!   (PAWN_EP: empty or own pawn BASIC, own superposed non-pawn EXCLUDED, opponent CAPTURE).
//!   A pawn reaching the last rank must promote.
//! - Castling (the king's move `e1g1` / `e1c1`): right held, own rook on its square. BASIC when
//!   the king's target is certainly empty and the rook's target certainly empty or a superposed
//!   own rook; illegal when either is certainly full; EXCLUDED otherwise. Queen side, the
//!   b-file square must not be certainly full.
//! - Splits and merges (not pawns): every target/source pair connected by the piece's own
//!   jump or slide (a split arm's path may pass the other target, a merge arm's path the other
//!   source), targets empty or holding the same kind; always BASIC.
//!
//! ```
//! use qchess_core::{MoveType, MoveVariant, Position};
//!
//! let start = Position::start();
//! let moves = start.legal_moves();
//! assert_eq!(moves.len(), 22); // 20 standard moves and the knight splits b1^a3c3, g1^f3h3
//! let split = moves.iter().find(|m| m.to_string() == "b1^a3c3").unwrap();
//! assert_eq!((split.move_type(), split.variant()), (MoveType::SplitJump, MoveVariant::Basic));
//!
//! let err = start.parse_move("e2e5").unwrap_err();
//! assert_eq!(err.to_string(), "e2e5: a pawn moves one square forward, or two from its starting rank");
//! ```

mod generate;
mod illegal;
mod legal_move;
mod rules;
mod update;

use std::fmt;

use thiserror::Error;

pub use illegal::{Illegal, IllegalMove, MoveError};
pub use legal_move::LegalMove;

use crate::quantum_board::CERTAINTY_TOLERANCE;
use crate::{Bitboard, CastlingRights, Color, Fen, Piece, Role, Square, SquareProbabilities};

/// The first and last ranks.
const BACK_RANKS: Bitboard = Bitboard(0xFF00_0000_0000_00FF);

/// What a square's occupancy probability says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Occupancy {
    /// Probability 0 (within [`CERTAINTY_TOLERANCE`]).
    Empty,
    /// Strictly between 0 and 1.
    Superposed,
    /// Probability 1 (within [`CERTAINTY_TOLERANCE`]).
    Full,
}

/// Why a position cannot be built.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum PositionError {
    /// A probability is not a number between 0 and 1.
    #[error("the occupancy probability of {square} is {value}; probabilities lie between 0 and 1")]
    ProbabilityOutOfRange {
        /// The square.
        square: Square,
        /// The value given.
        value: f64,
    },
    /// A square may be occupied but has no piece kind.
    #[error("{square} has occupancy probability {probability} but no piece")]
    Unlabelled {
        /// The square.
        square: Square,
        /// Its probability.
        probability: f64,
    },
    /// A pawn on the first or last rank.
    #[error("a {} on {square}: pawns never stand on the first or last rank", illegal::piece_name(.piece))]
    PawnOnBackRank {
        /// The square.
        square: Square,
        /// The pawn.
        piece: Piece,
    },
    /// The en-passant square is not behind an opponent's pawn that just made a two-step.
    #[error("en passant square {square}: {reason}")]
    InvalidEnPassant {
        /// The en-passant square.
        square: Square,
        /// What is wrong.
        reason: String,
    },
}

/// The classical side of a quantum position: piece kinds, turn, rights, counters and the
/// occupancy probability of every square.
#[derive(Debug, PartialEq)]
pub struct Position {
    board: [Option<Piece>; 64],
    probabilities: SquareProbabilities,
    full: Bitboard,
    empty: Bitboard,
    /// Squares labelled with a piece of each colour (`[white, black]`).
    colors: [Bitboard; 2],
    /// Squares labelled with each kind of piece, by [`kind_index`].
    kinds: [Bitboard; 12],
    turn: Color,
    castling: CastlingRights,
    en_passant: Option<Square>,
    halfmove_clock: u32,
    fullmove_number: u32,
    /// The Zobrist key (see [`Position::zobrist`]).
    key: u64,
}

impl Clone for Position {
    fn clone(&self) -> Position {
        Position {
            board: self.board,
            probabilities: self.probabilities.clone(),
            full: self.full,
            empty: self.empty,
            colors: self.colors,
            kinds: self.kinds,
            turn: self.turn,
            castling: self.castling,
            en_passant: self.en_passant,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
            key: self.key,
        }
    }

    /// Copies in place, field by field: a game keeps the position before every move and
    /// puts it back on undo, so a search copies positions at every node.
    fn clone_from(&mut self, source: &Position) {
        let Position {
            board,
            probabilities,
            full,
            empty,
            colors,
            kinds,
            turn,
            castling,
            en_passant,
            halfmove_clock,
            fullmove_number,
            key,
        } = source;
        self.board = *board;
        self.probabilities.clone_from(probabilities);
        (self.full, self.empty, self.colors, self.kinds) = (*full, *empty, *colors, *kinds);
        (self.turn, self.castling, self.en_passant) = (*turn, *castling, *en_passant);
        (self.halfmove_clock, self.fullmove_number, self.key) = (*halfmove_clock, *fullmove_number, *key);
    }
}

impl Position {
    /// The standard starting position, every square certain.
    pub fn start() -> Position {
        // The start FEN satisfies every check, so this cannot fail; the fallback keeps the
        // constructor total without a panic path.
        Position::from_fen(&Fen::start()).unwrap_or_else(|_| Position::blank())
    }

    fn blank() -> Position {
        Position {
            board: [None; 64],
            probabilities: SquareProbabilities::classical(Bitboard::EMPTY),
            full: Bitboard::EMPTY,
            empty: Bitboard::FULL,
            colors: [Bitboard::EMPTY; 2],
            kinds: [Bitboard::EMPTY; 12],
            turn: Color::White,
            castling: CastlingRights::NONE,
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
            key: update::side_key(Color::White, CastlingRights::NONE, None),
        }
    }

    /// A classical position: every piece of the FEN certainly present, every other square
    /// certainly empty.
    pub fn from_fen(fen: &Fen) -> Result<Position, PositionError> {
        Position::new(fen.clone(), SquareProbabilities::classical(fen.occupancy()))
    }

    /// A position from piece kinds, turn, rights and counters (`setup`) and the occupancy
    /// probability of each square.
    ///
    /// Squares with probability 0 lose their piece label. Probabilities within
    /// [`CERTAINTY_TOLERANCE`] outside `[0, 1]` are clamped; any other value, or a square that
    /// may be occupied but has no piece, is an error. So are pawns on the first or last rank
    /// and an en-passant square that is not on the rank behind an opponent's pawn.
    pub fn new(setup: Fen, probabilities: SquareProbabilities) -> Result<Position, PositionError> {
        let mut board = setup.board;
        let mut clamped = probabilities;
        // One pass sorting squares into masks (exact 0 and 1, the common cases, first); errors
        // are then reported for the lowest square at fault. Labels of empty squares are dropped
        // on the way.
        let (mut out_of_range, mut full, mut empty, mut labelled) = (0u64, 0u64, 0u64, 0u64);
        let mut rounding_noise = false;
        let mut next_bit = 1u64;
        for (piece, &value) in board.iter_mut().zip(&clamped.probabilities) {
            let bit = next_bit;
            next_bit <<= 1;
            if value == 0.0 {
                empty |= bit;
                *piece = None;
                continue;
            }
            if piece.is_some() {
                labelled |= bit;
            }
            if value == 1.0 {
                full |= bit;
            } else if !(-CERTAINTY_TOLERANCE..=1.0 + CERTAINTY_TOLERANCE).contains(&value) {
                out_of_range |= bit;
            } else {
                rounding_noise |= !(0.0..=1.0).contains(&value);
                if value <= CERTAINTY_TOLERANCE {
                    empty |= bit;
                    *piece = None;
                } else if value >= 1.0 - CERTAINTY_TOLERANCE {
                    full |= bit;
                }
            }
        }
        labelled &= !empty;
        let unlabelled = !labelled & !empty & !out_of_range;
        let back_rank_pawn = Bitboard(labelled & !out_of_range & BACK_RANKS.0)
            .iter()
            .find(|&sq| board[usize::from(sq)].is_some_and(|p| p.role == Role::Pawn));
        let faults = [Bitboard(out_of_range).first(), Bitboard(unlabelled).first(), back_rank_pawn];
        if let Some(&square) = faults.iter().flatten().min() {
            let value = clamped.probabilities[usize::from(square)];
            return Err(if faults[0] == Some(square) {
                PositionError::ProbabilityOutOfRange { square, value }
            } else if faults[1] == Some(square) {
                PositionError::Unlabelled { square, probability: value.clamp(0.0, 1.0) }
            } else {
                let piece = board[usize::from(square)].unwrap_or(Piece::new(setup.turn, Role::Pawn));
                PositionError::PawnOnBackRank { square, piece }
            });
        }
        if rounding_noise {
            for value in &mut clamped.probabilities {
                *value = value.clamp(0.0, 1.0);
            }
        }
        let mut colors = [Bitboard::EMPTY; 2];
        let mut kinds = [Bitboard::EMPTY; 12];
        let mut remaining = labelled;
        while remaining != 0 {
            let index = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            if let Some(piece) = board[index] {
                colors[color_index(piece.color)].0 |= 1 << index;
                kinds[kind_index(piece)].0 |= 1 << index;
            }
        }
        let (full, empty) = (Bitboard(full), Bitboard(empty));
        let key = update::board_key(&board) ^ update::side_key(setup.turn, setup.castling, setup.en_passant);
        let position = Position {
            board,
            colors,
            kinds,
            full,
            empty,
            probabilities: clamped,
            turn: setup.turn,
            castling: setup.castling,
            en_passant: setup.en_passant,
            halfmove_clock: setup.halfmove_clock,
            fullmove_number: setup.fullmove_number.max(1),
            key,
        };
        position.check_en_passant()?;
        Ok(position)
    }

    fn check_en_passant(&self) -> Result<(), PositionError> {
        update::en_passant_error(self.turn, self.en_passant, |square| self.piece_at(square))
    }

    /// The piece kind on `sq`; `None` when the square is certainly empty.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[usize::from(sq)]
    }

    /// The piece kind of every square, indexed by square.
    pub fn board(&self) -> &[Option<Piece>; 64] {
        &self.board
    }

    /// The occupancy probability of `sq`.
    pub fn probability(&self, sq: Square) -> f64 {
        self.probabilities.get(sq)
    }

    /// The occupancy probabilities of all squares.
    pub fn probabilities(&self) -> &SquareProbabilities {
        &self.probabilities
    }

    /// Whether `sq` is certainly empty, certainly full or superposed.
    pub fn occupancy(&self, sq: Square) -> Occupancy {
        if self.full.contains(sq) {
            Occupancy::Full
        } else if self.empty.contains(sq) {
            Occupancy::Empty
        } else {
            Occupancy::Superposed
        }
    }

    /// Squares that are certainly occupied.
    pub fn certainly_full(&self) -> Bitboard {
        self.full
    }

    /// Squares that are certainly empty.
    pub fn certainly_empty(&self) -> Bitboard {
        self.empty
    }

    /// Squares in superposition.
    pub fn superposed(&self) -> Bitboard {
        !(self.full | self.empty)
    }

    /// Squares that may hold a piece of `color`.
    pub fn pieces_of(&self, color: Color) -> Bitboard {
        self.colors[color_index(color)]
    }

    /// Squares that may hold exactly `piece` (its colour and role).
    pub fn squares_of(&self, piece: Piece) -> Bitboard {
        self.kinds[kind_index(piece)]
    }

    /// The probability that `color`'s king is present: the sum over the squares labelled with
    /// it, as it stands on at most one of them in each basis state (below 1 once part of it
    /// was captured).
    pub fn king_presence(&self, color: Color) -> f64 {
        let kings = self.squares_of(Piece::new(color, Role::King));
        kings.into_iter().map(|square| self.probability(square)).sum::<f64>().min(1.0)
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Castling rights still held.
    pub fn castling(&self) -> CastlingRights {
        self.castling
    }

    /// The square a pawn skipped with a two-step on the last move, if any.
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    /// The fifty-move counter: plies since it was last reset.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The full-move number, from 1.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// Plies played since the start of the game, as the move counters tell them.
    pub fn ply(&self) -> u32 {
        crate::fen::ply_from_counters(self.fullmove_number, self.turn)
    }

    /// The FEN of this position: every square that may be occupied shows its piece.
    /// Probabilities are not part of a FEN.
    pub fn to_fen(&self) -> Fen {
        Fen {
            board: self.board,
            turn: self.turn,
            castling: self.castling,
            en_passant: self.en_passant,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
        }
    }
}

/// The index of a colour in per-colour arrays: white 0, black 1.
const fn color_index(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// The index of a kind of piece in per-kind arrays: white pawn to king 0 to 5, black 6 to 11.
const fn kind_index(piece: Piece) -> usize {
    let role = match piece.role {
        Role::Pawn => 0,
        Role::Knight => 1,
        Role::Bishop => 2,
        Role::Rook => 3,
        Role::Queen => 4,
        Role::King => 5,
    };
    color_index(piece.color) * 6 + role
}

/// Prints the FEN (without probabilities).
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_fen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen(text: &str) -> Fen {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn from_fen_is_classical() {
        let position = Position::start();
        assert_eq!(position.certainly_full(), Bitboard::START);
        assert_eq!(position.certainly_empty(), !Bitboard::START);
        assert!(position.superposed().is_empty());
        assert_eq!(position.occupancy(Square::E2), Occupancy::Full);
        assert_eq!(position.occupancy(Square::E4), Occupancy::Empty);
        assert_eq!(position.to_fen(), Fen::start());
        assert_eq!(position.ply(), 0);
        assert_eq!(position.pieces_of(Color::Black).count(), 16);
        assert_eq!(position.squares_of(Piece::new(Color::White, Role::Knight)), Bitboard(0x42));
        assert_eq!(position.squares_of(Piece::new(Color::Black, Role::Pawn)), Bitboard(0xFF << 48));
    }

    #[test]
    fn a_copy_in_place_is_the_position_with_its_errors_and_key() {
        let source = fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
        let mut probabilities = SquareProbabilities::classical(source.occupancy());
        probabilities.probabilities[usize::from(Square::B1)] = 0.5;
        probabilities.standard_errors = Some(Box::new([0.01; 64]));
        let source = Position::new(source, probabilities).expect("valid");
        let mut copy = Position::start();
        copy.clone_from(&source);
        assert_eq!(copy, source);
        assert_eq!(copy.zobrist(), source.zobrist());
        assert_eq!(source.clone(), source);
        copy.clone_from(&Position::start());
        assert_eq!(copy, Position::start());
    }

    #[test]
    fn huge_move_counters_do_not_overflow() {
        let position = Position::from_fen(&fen("4k3/8/8/8/8/8/8/4K3 w - - 0 4294967295")).expect("valid");
        assert_eq!(position.ply(), u32::MAX, "saturates");
    }

    #[test]
    fn probability_zero_drops_the_label_and_halves_are_superposed() {
        let mut probabilities = SquareProbabilities::classical(Bitboard::START);
        probabilities.probabilities[usize::from(Square::B1)] = 0.0;
        probabilities.probabilities[usize::from(Square::G1)] = 0.5;
        let position = Position::new(Fen::start(), probabilities).expect("valid");
        assert_eq!(position.piece_at(Square::B1), None);
        assert_eq!(position.occupancy(Square::B1), Occupancy::Empty);
        assert_eq!(position.occupancy(Square::G1), Occupancy::Superposed);
        assert_eq!(position.superposed(), Bitboard::from_square(Square::G1));
    }

    #[test]
    fn bad_probabilities_are_refused() {
        let mut probabilities = SquareProbabilities::classical(Bitboard::START);
        probabilities.probabilities[usize::from(Square::E2)] = 1.5;
        let err = Position::new(Fen::start(), probabilities.clone()).expect_err("1.5");
        assert_eq!(err.to_string(), "the occupancy probability of e2 is 1.5; probabilities lie between 0 and 1");
        probabilities.probabilities[usize::from(Square::E2)] = f64::NAN;
        assert!(Position::new(Fen::start(), probabilities.clone()).is_err());
        probabilities.probabilities[usize::from(Square::E2)] = 1.0 + 1e-12;
        let position = Position::new(Fen::start(), probabilities.clone()).expect("rounding noise is clamped");
        assert_eq!(position.probability(Square::E2), 1.0);
        probabilities.probabilities[usize::from(Square::E4)] = 0.25;
        let err = Position::new(Fen::start(), probabilities).expect_err("unlabelled");
        assert_eq!(err.to_string(), "e4 has occupancy probability 0.25 but no piece");
    }

    #[test]
    fn the_lowest_square_at_fault_is_reported() {
        let mut probabilities = SquareProbabilities::classical(Bitboard::START);
        probabilities.probabilities[usize::from(Square::E4)] = 0.25;
        probabilities.probabilities[usize::from(Square::H8)] = 2.0;
        let err = Position::new(Fen::start(), probabilities.clone()).expect_err("unlabelled e4 first");
        assert_eq!(err, PositionError::Unlabelled { square: Square::E4, probability: 0.25 });
        probabilities.probabilities[usize::from(Square::D2)] = -0.5;
        let err = Position::new(Fen::start(), probabilities).expect_err("d2 out of range first");
        assert_eq!(err, PositionError::ProbabilityOutOfRange { square: Square::D2, value: -0.5 });
        let mut setup: Fen = "4k2P/8/8/8/8/8/8/p3K3 w - - 0 1".parse().expect("valid FEN");
        setup.turn = Color::Black;
        let err = Position::from_fen(&setup).expect_err("a1 pawn first");
        assert_eq!(err.to_string(), "a black pawn on a1: pawns never stand on the first or last rank");
    }

    #[test]
    fn pawns_on_back_ranks_and_bad_en_passant_are_refused() {
        let err = Position::from_fen(&fen("4k2P/8/8/8/8/8/8/4K3 w - - 0 1")).expect_err("pawn on h8");
        assert!(err.to_string().contains("a white pawn on h8"), "{err}");
        let err = Position::from_fen(&fen("4k3/8/8/8/8/8/8/4K3 w - e6 0 1")).expect_err("no pawn");
        assert_eq!(err.to_string(), "en passant square e6: no black pawn stands on e5 to be captured");
        let ok = Position::from_fen(&fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")).expect("valid ep");
        assert_eq!(ok.en_passant(), Some(Square::D6));
        let mut setup = fen("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1");
        setup.en_passant = Some(Square::D3);
        let err = Position::from_fen(&setup).expect_err("wrong rank");
        assert!(err.to_string().contains("not on rank 6"), "{err}");
    }
}
