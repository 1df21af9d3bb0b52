//! The classical chess position: bitboards per role and colour, and how moves change them.

use thiserror::Error;

use super::{ClassicalMove, ClassicalMoveKind, attacks};
use crate::notation::{AlgebraicMove, ParseMoveError};
use crate::{CastlingRights, CastlingSide, Color, Fen, MoveSquares, Piece, Role, Square};

/// Why a FEN is not a classical chess position.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClassicalError {
    /// A side has no king or more than one.
    #[error("{color} has {count} kings; classical chess needs exactly one per side")]
    KingCount {
        /// The side.
        color: Color,
        /// How many kings it has.
        count: u32,
    },
    /// A pawn on the first or last rank.
    #[error("a pawn on {0}: pawns never stand on the first or last rank")]
    PawnOnBackRank(Square),
    /// A castling right whose king or rook is not on its home square.
    #[error("castling: {color} has the {} right but no {color} {missing_role} on {missing}", side_word(.side))]
    CastlingWithoutPieces {
        /// The side holding the right.
        color: Color,
        /// Which right.
        side: CastlingSide,
        /// The piece that is missing: the king or the rook.
        missing_role: Role,
        /// The home square it is missing from.
        missing: Square,
    },
    /// The en-passant square does not follow a two-step.
    #[error("en passant: {square} {reason}")]
    InvalidEnPassant {
        /// The en-passant square.
        square: Square,
        /// What is wrong.
        reason: &'static str,
    },
    /// The side that just moved left its king in check.
    #[error("{0} is not to move but is in check")]
    OpponentInCheck(Color),
}

fn side_word(side: &CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "king-side",
        CastlingSide::QueenSide => "queen-side",
    }
}

/// Why a move text is not a legal classical move here.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClassicalMoveError {
    /// The text is not a move.
    #[error(transparent)]
    Parse(#[from] ParseMoveError),
    /// Splits, merges, variant marks and outcomes do not exist in classical chess.
    #[error("{}: splits, merges, x/w marks and outcomes exist only in Quantum Chess", crate::text::excerpt(.0))]
    NotClassical(String),
    /// No legal move has these squares and promotion.
    #[error("{} is not a legal move in this position", crate::text::excerpt(.0))]
    Illegal(String),
}

/// How a classical game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassicalOutcome {
    /// The side to move is in check and has no legal move.
    Checkmate {
        /// The side that gave mate.
        winner: Color,
    },
    /// The side to move is not in check and has no legal move.
    Stalemate,
}

/// A classical chess position.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClassicalPosition {
    pub(super) by_role: [u64; 6],
    pub(super) by_color: [u64; 2],
    pub(super) turn: Color,
    pub(super) castling: CastlingRights,
    pub(super) en_passant: Option<Square>,
    halfmove_clock: u32,
    fullmove_number: u32,
}

pub(super) const fn bit(sq: Square) -> u64 {
    1 << sq.index()
}

pub(super) fn square(index: u32) -> Square {
    // Callers pass bit indices of nonzero u64 values, which are below 64.
    Square::new(index as u8).unwrap_or(Square::A1)
}

impl ClassicalPosition {
    /// The standard starting position.
    pub fn start() -> ClassicalPosition {
        // The start FEN passes every check; the fallback only keeps this free of panics.
        ClassicalPosition::from_fen(&Fen::start())
            .unwrap_or_else(|_| ClassicalPosition::from_fen_unchecked(&Fen::start()))
    }

    fn from_fen_unchecked(fen: &Fen) -> ClassicalPosition {
        let mut position = ClassicalPosition {
            by_role: [0; 6],
            by_color: [0; 2],
            turn: fen.turn,
            castling: fen.castling,
            en_passant: fen.en_passant,
            halfmove_clock: fen.halfmove_clock,
            fullmove_number: fen.fullmove_number.max(1),
        };
        for sq in Square::ALL {
            if let Some(piece) = fen.piece_at(sq) {
                position.by_role[piece.role as usize] |= bit(sq);
                position.by_color[piece.color as usize] |= bit(sq);
            }
        }
        position
    }

    /// The position a FEN describes, if it is one classical chess can reach: one king per
    /// side, no pawn on the first or last rank, castling rights backed by king and rook on
    /// their home squares, an en-passant square right behind a pawn that just made a two-step,
    /// and the side not to move not in check.
    pub fn from_fen(fen: &Fen) -> Result<ClassicalPosition, ClassicalError> {
        let position = ClassicalPosition::from_fen_unchecked(fen);
        for color in Color::ALL {
            let count = position.pieces(color, Role::King).count_ones();
            if count != 1 {
                return Err(ClassicalError::KingCount { color, count });
            }
        }
        let back_ranks = 0xFF00_0000_0000_00FF;
        if let Some(index) = bits(position.by_role[Role::Pawn as usize] & back_ranks).next() {
            return Err(ClassicalError::PawnOnBackRank(square(index)));
        }
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                if !position.castling.has(color, side) {
                    continue;
                }
                let king = Square::from_coords(4, color.back_rank()).unwrap_or(Square::E1);
                for (missing_role, missing) in [(Role::King, king), (Role::Rook, side.rook_from(color))] {
                    if position.pieces(color, missing_role) & bit(missing) == 0 {
                        return Err(ClassicalError::CastlingWithoutPieces { color, side, missing_role, missing });
                    }
                }
            }
        }
        position.check_en_passant()?;
        let them = !position.turn;
        if position.king_attackers(them) != 0 {
            return Err(ClassicalError::OpponentInCheck(them));
        }
        Ok(position)
    }

    fn check_en_passant(&self) -> Result<(), ClassicalError> {
        let Some(ep) = self.en_passant else { return Ok(()) };
        let them = !self.turn;
        let invalid = |reason| Err(ClassicalError::InvalidEnPassant { square: ep, reason });
        let (skipped_rank, pawn_step) = match them {
            Color::White => (2, 1),
            Color::Black => (5, -1),
        };
        if ep.rank() != skipped_rank {
            return invalid("is not on the rank a pawn of the side that just moved skips");
        }
        let pawn = ep.offset(0, pawn_step).map_or(0, bit);
        let origin = ep.offset(0, -pawn_step).map_or(0, bit);
        if self.pieces(them, Role::Pawn) & pawn == 0 {
            return invalid("is not right behind a pawn of the side that just moved");
        }
        if self.occupied() & (bit(ep) | origin) != 0 {
            return invalid("cannot follow a two-step: it or the square the pawn started from is occupied");
        }
        Ok(())
    }

    pub(super) fn occupied(&self) -> u64 {
        self.by_color[0] | self.by_color[1]
    }

    pub(super) fn pieces(&self, color: Color, role: Role) -> u64 {
        self.by_color[color as usize] & self.by_role[role as usize]
    }

    /// The square of `color`'s king (validated to be exactly one).
    pub(super) fn king_square(&self, color: Color) -> usize {
        self.pieces(color, Role::King).trailing_zeros() as usize & 63
    }

    /// Every piece of either colour attacking `sq`, given the occupied squares.
    pub(super) fn attackers_to(&self, sq: usize, occupied: u64) -> u64 {
        let [pawns, knights, bishops, rooks, queens, kings] = self.by_role;
        (attacks::PAWN[0][sq] & pawns & self.by_color[1])
            | (attacks::PAWN[1][sq] & pawns & self.by_color[0])
            | (attacks::KNIGHT[sq] & knights)
            | (attacks::KING[sq] & kings)
            | (attacks::rook(sq, occupied) & (rooks | queens))
            | (attacks::bishop(sq, occupied) & (bishops | queens))
    }

    /// The opponent's pieces giving check to `color`'s king.
    pub(super) fn king_attackers(&self, color: Color) -> u64 {
        self.attackers_to(self.king_square(color), self.occupied()) & self.by_color[(!color) as usize]
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let mask = bit(sq);
        let color = Color::ALL.into_iter().find(|&c| self.by_color[c as usize] & mask != 0)?;
        let role = Role::ALL.into_iter().find(|&r| self.by_role[r as usize] & mask != 0)?;
        Some(Piece::new(color, role))
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

    /// Plies since the last pawn move or capture.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The full-move number, from 1.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.king_attackers(self.turn) != 0
    }

    /// Checkmate or stalemate, when the side to move has no legal move.
    pub fn outcome(&self) -> Option<ClassicalOutcome> {
        if !self.legal_moves().is_empty() {
            None
        } else if self.is_check() {
            Some(ClassicalOutcome::Checkmate { winner: !self.turn })
        } else {
            Some(ClassicalOutcome::Stalemate)
        }
    }

    /// The FEN of this position.
    pub fn to_fen(&self) -> Fen {
        let mut board = [None; 64];
        for sq in Square::ALL {
            board[usize::from(sq)] = self.piece_at(sq);
        }
        Fen {
            board,
            turn: self.turn,
            castling: self.castling,
            en_passant: self.en_passant,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
        }
    }

    /// The legal move written `text` in UCI form (`e2e4`, `e7e8q`, `e1g1`).
    pub fn parse_move(&self, text: &str) -> Result<ClassicalMove, ClassicalMoveError> {
        let mv: AlgebraicMove = text.parse()?;
        let MoveSquares::Standard { from, to } = mv.squares else {
            return Err(ClassicalMoveError::NotClassical(text.to_owned()));
        };
        if mv.marker.is_some() || mv.outcome.is_some() {
            return Err(ClassicalMoveError::NotClassical(text.to_owned()));
        }
        let fits_piece =
            |m: &ClassicalMove| mv.piece.is_none_or(|role| self.piece_at(m.from).is_some_and(|p| p.role == role));
        self.legal_moves()
            .iter()
            .find(|m| m.from == from && m.to == to && m.promotion() == mv.promotion && fits_piece(m))
            .copied()
            .ok_or_else(|| ClassicalMoveError::Illegal(text.to_owned()))
    }

    /// Plays a move from [`legal_moves`](Self::legal_moves) of this position. Anything else
    /// leaves the position in an unspecified (but memory-safe) state.
    pub fn play(&mut self, mv: ClassicalMove) {
        let us = self.turn;
        let them = !us;
        let from = bit(mv.from);
        let to = bit(mv.to);
        let moving = Role::ALL.into_iter().find(|&r| self.by_role[r as usize] & from != 0).unwrap_or(Role::Pawn);
        let captured = self.by_color[them as usize] & to != 0;
        if captured {
            for role_board in &mut self.by_role {
                *role_board &= !to;
            }
            self.by_color[them as usize] &= !to;
        }
        self.by_role[moving as usize] ^= from;
        self.by_color[us as usize] ^= from | to;
        let lands_as = match mv.kind {
            ClassicalMoveKind::Promotion(role) => role,
            _ => moving,
        };
        self.by_role[lands_as as usize] |= to;
        match mv.kind {
            ClassicalMoveKind::EnPassant => {
                let victim = mv.to.offset(0, -us.forward()).map_or(0, bit);
                self.by_role[Role::Pawn as usize] &= !victim;
                self.by_color[them as usize] &= !victim;
            }
            ClassicalMoveKind::Castle(side) => {
                let rook_move = bit(side.rook_from(us)) | bit(side.rook_to(us));
                self.by_role[Role::Rook as usize] ^= rook_move;
                self.by_color[us as usize] ^= rook_move;
            }
            _ => {}
        }
        self.en_passant = match mv.kind {
            ClassicalMoveKind::DoublePush => mv.from.offset(0, us.forward()),
            _ => None,
        };
        self.castling = self.castling.without_square(mv.from).without_square(mv.to);
        let resets_clock = moving == Role::Pawn || captured || mv.kind == ClassicalMoveKind::EnPassant;
        self.halfmove_clock = if resets_clock { 0 } else { self.halfmove_clock.saturating_add(1) };
        if us == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.turn = them;
    }

    /// The position after a legal move.
    #[must_use]
    pub fn played(&self, mv: ClassicalMove) -> ClassicalPosition {
        let mut next = self.clone();
        next.play(mv);
        next
    }
}

/// The set bits of `board`, lowest first.
pub(super) fn bits(mut board: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if board == 0 {
            return None;
        }
        let index = board.trailing_zeros();
        board &= board - 1;
        Some(index)
    })
}
