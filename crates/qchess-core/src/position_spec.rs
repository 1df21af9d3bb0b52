//! Position strings: a starting position and the moves played from it.
//!
//! The form is the official engine's `position` command: `position startpos [moves m1 m2 ...]`
//! or `position fen <FEN> [moves ...]`. The leading word `position` may be left out, which is
//! how the command line passes positions (`--position "startpos moves e2e4"`). A FEN may have
//! six fields or the first four. Printing leaves out the word `position`, and the word `moves`
//! when there are none.
//!
//! Parsing checks the syntax of the FEN and of every move; replaying the moves needs a quantum
//! board and is the game engine's job.
//!
//! ```
//! use qchess_core::{PositionSpec, StartPosition};
//!
//! let spec: PositionSpec = "position startpos moves b1^a3c3 g8f6".parse()?;
//! assert_eq!(spec.start, StartPosition::StartPos);
//! assert_eq!(spec.moves.len(), 2);
//! assert_eq!(spec.to_string(), "startpos moves b1^a3c3 g8f6");
//!
//! let spec: PositionSpec = "fen 4k3/8/8/8/8/8/8/4K3 w - - moves e1e2".parse()?;
//! assert_eq!(spec.to_string(), "fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1 moves e1e2");
//!
//! let err = "startpos moves e2e4 e7e9".parse::<PositionSpec>().unwrap_err();
//! assert_eq!(err.to_string(), "move 2: bad move `e7e9`: expected a square (a1-h8) at `e9`");
//! # Ok::<(), qchess_core::ParsePositionError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::notation::{Notation, ParseMoveError};
use crate::text::excerpt;
use crate::{Fen, FenError};

/// Where a game starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StartPosition {
    /// `startpos`: the standard starting position.
    StartPos,
    /// `fen <FEN>`: any position.
    Fen(Fen),
}

impl StartPosition {
    /// The FEN of this start.
    pub fn to_fen(&self) -> Fen {
        match self {
            StartPosition::StartPos => Fen::start(),
            StartPosition::Fen(fen) => fen.clone(),
        }
    }
}

/// A starting position and the moves played from it, in official notation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PositionSpec {
    /// Where the game starts.
    pub start: StartPosition,
    /// The moves played from there, in order.
    pub moves: Vec<Notation>,
}

impl PositionSpec {
    /// The standard starting position with no moves.
    pub fn startpos() -> PositionSpec {
        PositionSpec { start: StartPosition::StartPos, moves: Vec::new() }
    }
}

/// Why a text is not a position string.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParsePositionError {
    /// The text has no start position.
    #[error("expected `startpos` or `fen <FEN>`, optionally after the word `position`")]
    Empty,
    /// The first word is neither `startpos` nor `fen`.
    #[error("expected `startpos` or `fen <FEN>`, found `{}`", excerpt(.0))]
    UnknownStart(String),
    /// The FEN after `fen` is malformed.
    #[error("FEN `{}`: {error}", excerpt(.text))]
    Fen {
        /// The FEN text as given.
        text: String,
        /// What is wrong with it.
        error: FenError,
    },
    /// Something other than `moves ...` follows the start position.
    #[error("expected `moves` after the start position, found `{}`", excerpt(.0))]
    ExpectedMoves(String),
    /// A move is malformed.
    #[error("move {index}: {error}")]
    Move {
        /// The move's number in the list, counting from 1.
        index: usize,
        /// What is wrong with it.
        error: ParseMoveError,
    },
}

impl FromStr for PositionSpec {
    type Err = ParsePositionError;

    fn from_str(text: &str) -> Result<PositionSpec, ParsePositionError> {
        let mut words = text.split_ascii_whitespace().peekable();
        if words.peek() == Some(&"position") {
            words.next();
        }
        let start = match words.next() {
            None => return Err(ParsePositionError::Empty),
            Some("startpos") => StartPosition::StartPos,
            Some("fen") => {
                let mut fields = Vec::new();
                while let Some(&word) = words.peek() {
                    if word == "moves" {
                        break;
                    }
                    fields.push(word);
                    words.next();
                }
                let fen_text = fields.join(" ");
                let fen = fen_text.parse().map_err(|error| ParsePositionError::Fen { text: fen_text, error })?;
                StartPosition::Fen(fen)
            }
            Some(other) => return Err(ParsePositionError::UnknownStart(other.to_owned())),
        };
        let mut moves = Vec::new();
        match words.next() {
            None => {}
            Some("moves") => {
                for (i, word) in words.enumerate() {
                    let mv = word.parse().map_err(|error| ParsePositionError::Move { index: i + 1, error })?;
                    moves.push(mv);
                }
            }
            Some(other) => return Err(ParsePositionError::ExpectedMoves(other.to_owned())),
        }
        Ok(PositionSpec { start, moves })
    }
}

impl fmt::Display for PositionSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.start {
            StartPosition::StartPos => f.write_str("startpos")?,
            StartPosition::Fen(fen) => write!(f, "fen {fen}")?,
        }
        if !self.moves.is_empty() {
            f.write_str(" moves")?;
            for mv in &self.moves {
                write!(f, " {mv}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_both_forms_and_empty_move_lists() {
        for text in ["startpos", "position startpos", "startpos moves", "  position   startpos  "] {
            let spec: PositionSpec = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(spec, PositionSpec::startpos(), "{text}");
        }
        let spec: PositionSpec = "position fen 4k3/8/8/8/8/8/8/4K3 b - - 5 9".parse().expect("fen");
        assert_eq!(spec.start.to_fen().fullmove_number, 9);
        assert!(spec.moves.is_empty());
    }

    #[test]
    fn null_moves_and_outcomes_parse() {
        let spec: PositionSpec = "startpos moves b1^a3c3 0000 a3wb5.m1".parse().expect("moves");
        assert_eq!(spec.moves[1], Notation::Null);
        assert_eq!(spec.to_string(), "startpos moves b1^a3c3 0000 a3wb5.m1");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let cases = [
            ("", "expected `startpos` or `fen <FEN>`"),
            ("position", "expected `startpos` or `fen <FEN>`"),
            ("startpos e2e4", "expected `moves` after the start position, found `e2e4`"),
            ("begin", "found `begin`"),
            ("fen", "FEN ``: expected 6 space-separated fields"),
            (
                "fen 8/8/8/8/8/8/8/ppppppppp w - - 0 1",
                "FEN `8/8/8/8/8/8/8/ppppppppp w - - 0 1`: piece placement: rank 1 has 9 files",
            ),
            ("fen 4k3/8/8/8/8/8/8/4K3 w - - 0 moves e1e2", "got 5"),
            ("startpos moves e2e4 x", "move 2: bad move `x`"),
        ];
        for (text, expected) in cases {
            let err = text.parse::<PositionSpec>().expect_err(text).to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }
}
