//! Classical chess: the "classical mode" of the mode-toggle variant, and a check on our
//! bitboard machinery.
//!
//! Ordinary chess rules: check, checkmate, stalemate, pins, no castling out of or through
//! check, en-passant captures that would expose the king refused. Moves are generated legal
//! (checkers and pins are worked out first, not by trying moves), and [`perft`] counts the
//! leaf nodes of the move tree, the standard test of a move generator.
//!
//! ```
//! use qchess_core::Fen;
//! use qchess_core::classical::{perft, ClassicalPosition};
//!
//! let start = ClassicalPosition::start();
//! assert_eq!(start.legal_moves().len(), 20);
//! assert_eq!(perft(&start, 3), 8902);
//!
//! let after = start.played(start.parse_move("e2e4")?);
//! assert_eq!(after.to_fen().to_string(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
//!
//! let fools_mate: Fen = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3".parse()?;
//! let mated = ClassicalPosition::from_fen(&fools_mate)?;
//! assert!(mated.is_check() && mated.legal_moves().is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod attacks;
mod movegen;
mod perft;
mod position;

use std::fmt;
use std::ops::Deref;

use smallvec::SmallVec;

pub use attacks::piece_attacks;
pub use perft::{perft, perft_divide};
pub use position::{ClassicalError, ClassicalMoveError, ClassicalOutcome, ClassicalPosition};

use crate::{CastlingSide, Role, Square};

/// What kind of classical move it is, beyond its squares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassicalMoveKind {
    /// Any move or capture without a special rule.
    Normal,
    /// A pawn's two-step from its starting rank.
    DoublePush,
    /// An en-passant capture.
    EnPassant,
    /// Castling; the move's squares are the king's.
    Castle(CastlingSide),
    /// A pawn move to the last rank, promoting to the role.
    Promotion(Role),
}

/// A legal classical move. Prints in UCI form: `e2e4`, `e7e8q`, castling as the king's move
/// (`e1g1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClassicalMove {
    /// The moving piece's square (the king's, for castling).
    pub from: Square,
    /// Where it goes.
    pub to: Square,
    /// Which rule it follows.
    pub kind: ClassicalMoveKind,
}

impl ClassicalMove {
    /// The piece a pawn promotes to, if this is a promotion.
    pub fn promotion(&self) -> Option<Role> {
        match self.kind {
            ClassicalMoveKind::Promotion(role) => Some(role),
            _ => None,
        }
    }
}

impl fmt::Display for ClassicalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(role) = self.promotion() {
            write!(f, "{}", role.char())?;
        }
        Ok(())
    }
}

/// The legal moves of a position, stored inline (no allocation below 256 moves).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MoveList(SmallVec<[ClassicalMove; 256]>);

impl MoveList {
    fn push(&mut self, mv: ClassicalMove) {
        self.0.push(mv);
    }
}

impl Deref for MoveList {
    type Target = [ClassicalMove];

    fn deref(&self) -> &[ClassicalMove] {
        &self.0
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a ClassicalMove;
    type IntoIter = std::slice::Iter<'a, ClassicalMove>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}
