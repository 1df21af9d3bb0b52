//! The official algebraic notation of Quantum Chess.
//!
//! | form | meaning |
//! |---|---|
//! | `e2e4`, `Pe2e4` | a standard move, with an optional upper-case piece letter |
//! | `b1^a3c3`, `Nb1^a3c3` | a split: one source, two targets |
//! | `a3c3^b5` | a merge: two sources, one target |
//! | `b1xc3` / `b1wc3` | a standard move marked as capture / excluded (bare means any variant) |
//! | `e7e8q` | a promotion (`q`, `r`, `b` or `n`; upper case is read too) |
//! | `b1wc3.m0`, `e7e8q.m1` | the measurement outcome, after any promotion letter |
//! | `0000` | the null move |
//! | `?e4`, `?e4.m1` | measure a square (the checkmate rules); the outcome says whether it was occupied |
//! | `e5e8\|c2c7`, `e5e8\|c2xc7.m1` | a pair: one standard move for each half of a piece in superposition (the observer rules); the outcome goes at the end |
//!
//! Castling is written as the king's move (`e1g1`). Parsing checks only the text; whether a
//! move is allowed in a position is [`Position::validate`](crate::Position::validate)'s
//! question, and its errors are a separate type.
//!
//! ```
//! use qchess_core::notation::{AlgebraicMove, Notation, VariantMarker};
//! use qchess_core::{MoveSquares, Role, Square};
//!
//! let split: AlgebraicMove = "Nb1^a3c3".parse()?;
//! assert_eq!(split.piece, Some(Role::Knight));
//! assert_eq!(split.squares, MoveSquares::Split { from: Square::B1, to1: Square::A3, to2: Square::C3 });
//!
//! let excluded: AlgebraicMove = "b1wc3.m0".parse()?;
//! assert_eq!(excluded.marker, Some(VariantMarker::Excluded));
//! assert_eq!(excluded.outcome, Some(false));
//! assert_eq!(excluded.to_string(), "b1wc3.m0");
//!
//! assert_eq!("0000".parse::<Notation>()?, Notation::Null);
//! assert!("e2e9".parse::<Notation>().is_err());
//! # Ok::<(), qchess_core::notation::ParseMoveError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::text::excerpt;
use crate::{MoveSquares, MoveVariant, Role, Square};

/// The explicit variant mark of a standard move: `x` for a capture, `w` for an excluded move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VariantMarker {
    /// `x`: the move captures.
    Capture,
    /// `w`: the target holds, in superposition, a piece the move cannot capture.
    Excluded,
}

impl VariantMarker {
    /// The letter, `x` or `w`.
    pub const fn char(self) -> char {
        match self {
            VariantMarker::Capture => 'x',
            VariantMarker::Excluded => 'w',
        }
    }

    /// The variant this marker names.
    pub const fn variant(self) -> MoveVariant {
        match self {
            VariantMarker::Capture => MoveVariant::Capture,
            VariantMarker::Excluded => MoveVariant::Excluded,
        }
    }

    /// The marker a move of `variant` is written with (`None` for basic moves).
    pub const fn for_variant(variant: MoveVariant) -> Option<VariantMarker> {
        match variant {
            MoveVariant::Basic => None,
            MoveVariant::Capture => Some(VariantMarker::Capture),
            MoveVariant::Excluded => Some(VariantMarker::Excluded),
        }
    }
}

/// A move (not the null move) in official notation.
///
/// `marker` and `promotion` belong to standard moves only; the parser never sets them on a
/// split or merge, and [`Display`](fmt::Display) prints them only on standard moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AlgebraicMove {
    /// The optional piece letter in front (`N` in `Nb1^a3c3`).
    pub piece: Option<Role>,
    /// The source and target squares.
    pub squares: MoveSquares,
    /// The optional `x` / `w` variant mark of a standard move.
    pub marker: Option<VariantMarker>,
    /// The piece a pawn promotes to.
    pub promotion: Option<Role>,
    /// The recorded or forced measurement outcome (`Some(true)` = `.m1`).
    pub outcome: Option<bool>,
}

impl AlgebraicMove {
    /// A bare move over `squares`: no piece letter, marker, promotion or outcome.
    pub const fn new(squares: MoveSquares) -> AlgebraicMove {
        AlgebraicMove { piece: None, squares, marker: None, promotion: None, outcome: None }
    }

    /// This move with a measurement outcome.
    #[must_use]
    pub const fn with_outcome(mut self, outcome: Option<bool>) -> AlgebraicMove {
        self.outcome = outcome;
        self
    }
}

/// A move in official notation, or the null move `0000`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notation {
    /// `0000`: parses, but is never legal in Quantum Chess.
    Null,
    /// Any other move.
    Move(AlgebraicMove),
    /// `first|second`: a move for each half of a piece in superposition, for rule sets that
    /// have them (the observer rules). Both are standard moves; only `second` carries the
    /// pair's outcome suffix, which belongs to the pair.
    Pair(AlgebraicMove, AlgebraicMove),
    /// `?e4`, `?e4.m1`: measure a square, for rule sets that have the action (the checkmate
    /// rules); the outcome says whether it was found occupied.
    Measure(Square, Option<bool>),
}

impl Notation {
    /// The recorded or forced measurement outcome of the move (of the pair, for a pair).
    pub const fn outcome(&self) -> Option<bool> {
        match self {
            Notation::Null => None,
            Notation::Move(mv) | Notation::Pair(_, mv) => mv.outcome,
            Notation::Measure(_, outcome) => *outcome,
        }
    }
}

/// What is wrong with the text of a move.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NotationProblem {
    /// Nothing was given.
    #[error("the move is empty")]
    Empty,
    /// An upper-case letter in front that is not a piece.
    #[error("`{}` is not a piece letter (P, N, B, R, Q or K)", excerpt(&.0.to_string()))]
    BadPiece(char),
    /// A square was expected.
    #[error("expected a square (a1-h8) at `{}`", excerpt(.found))]
    ExpectedSquare {
        /// The text from where the square should start (empty at the end of the move).
        found: String,
    },
    /// A split or merge lacks one of its squares.
    #[error("a split needs a source and two targets (b1^a3c3), a merge two sources and a target (a3c3^b5)")]
    IncompleteSplitOrMerge,
    /// A promotion letter that is not `q`, `r`, `b` or `n`.
    #[error("`{}` is not a promotion piece (q, r, b or n)", excerpt(&.0.to_string()))]
    BadPromotion(char),
    /// An outcome suffix other than `.m0` / `.m1`.
    #[error("bad outcome suffix `{}` (expected .m0 or .m1)", excerpt(.0))]
    BadOutcome(String),
    /// Text left over after a complete move.
    #[error("unexpected `{}` after the move", excerpt(.0))]
    Trailing(String),
    /// A square named twice.
    #[error("{0} is named twice")]
    RepeatedSquare(Square),
    /// The null move where a move of a piece is needed.
    #[error("0000 is the null move, not a move of a piece")]
    NullMove,
    /// A half of a pair that is not a standard move, or an outcome in the middle of a pair.
    #[error("a pair is two standard moves with the outcome at its end, like e5e8|c2c7.m1")]
    BadPair,
}

/// A move text that is not official notation: the text and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad move `{}`: {problem}", excerpt(.text))]
pub struct ParseMoveError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it.
    pub problem: NotationProblem,
}

/// A byte cursor over the move text; every read is bounds-checked.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let hit = self.peek() == Some(byte);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn rest(&self) -> String {
        self.text.get(self.pos..).unwrap_or_default().to_owned()
    }

    fn square(&mut self) -> Result<Square, NotationProblem> {
        let square = self.text.get(self.pos..self.pos + 2).and_then(|s| s.parse::<Square>().ok());
        match square {
            Some(sq) => {
                self.pos += 2;
                Ok(sq)
            }
            None => Err(NotationProblem::ExpectedSquare { found: self.rest() }),
        }
    }
}

fn parse(text: &str) -> Result<Notation, NotationProblem> {
    if let Some(rest) = text.strip_prefix('?') {
        let (name, outcome) = match rest.split_once('.') {
            Some((name, "m0")) => (name, Some(false)),
            Some((name, "m1")) => (name, Some(true)),
            Some((_, suffix)) => return Err(NotationProblem::BadOutcome(format!(".{suffix}"))),
            None => (rest, None),
        };
        let square = name.parse().map_err(|_| NotationProblem::ExpectedSquare { found: name.to_owned() })?;
        return Ok(Notation::Measure(square, outcome));
    }
    if let Some((first, second)) = text.split_once('|') {
        let half = |part: &str| match parse(part)? {
            Notation::Move(mv) if matches!(mv.squares, MoveSquares::Standard { .. }) => Ok(mv),
            _ => Err(NotationProblem::BadPair),
        };
        let (first, second) = (half(first)?, half(second)?);
        if first.outcome.is_some() {
            return Err(NotationProblem::BadPair);
        }
        return Ok(Notation::Pair(first, second));
    }
    if text.is_empty() {
        return Err(NotationProblem::Empty);
    }
    if let Some(rest) = text.strip_prefix("0000") {
        return if rest.is_empty() { Ok(Notation::Null) } else { Err(NotationProblem::Trailing(rest.to_owned())) };
    }
    let mut cursor = Cursor { text, pos: 0 };
    let piece = match cursor.peek() {
        Some(b) if b.is_ascii_uppercase() => {
            cursor.pos += 1;
            Some(Role::from_char(char::from(b)).ok_or(NotationProblem::BadPiece(char::from(b)))?)
        }
        _ => None,
    };
    let first = cursor.square()?;
    let mut marker = None;
    let mut promotion = None;
    let squares = if cursor.eat(b'^') {
        let to1 = cursor.square().map_err(|_| NotationProblem::IncompleteSplitOrMerge)?;
        let to2 = cursor.square().map_err(|_| NotationProblem::IncompleteSplitOrMerge)?;
        MoveSquares::Split { from: first, to1, to2 }
    } else {
        marker = match cursor.peek() {
            Some(b'x') => Some(VariantMarker::Capture),
            Some(b'w') => Some(VariantMarker::Excluded),
            _ => None,
        };
        if marker.is_some() {
            cursor.pos += 1;
        }
        let second = cursor.square()?;
        if marker.is_none() && cursor.eat(b'^') {
            let to = cursor.square().map_err(|_| NotationProblem::IncompleteSplitOrMerge)?;
            MoveSquares::Merge { from1: first, from2: second, to }
        } else {
            // A letter ending the move (or before its outcome) is a promotion; anything longer
            // is left over and reported as such.
            let after = text.as_bytes().get(cursor.pos + 1).copied();
            let promotion_letter =
                cursor.peek().filter(|b| b.is_ascii_alphabetic() && matches!(after, None | Some(b'.')));
            if let Some(b) = promotion_letter {
                let letter = char::from(b);
                let role = Role::from_char(letter).filter(|r| Role::PROMOTIONS.contains(r));
                promotion = Some(role.ok_or(NotationProblem::BadPromotion(letter))?);
                cursor.pos += 1;
            }
            MoveSquares::Standard { from: first, to: second }
        }
    };
    let outcome = if cursor.peek() == Some(b'.') {
        let suffix = cursor.rest();
        let outcome = match suffix.as_str() {
            ".m0" => false,
            ".m1" => true,
            _ => return Err(NotationProblem::BadOutcome(suffix)),
        };
        cursor.pos = text.len();
        Some(outcome)
    } else {
        None
    };
    if cursor.pos < text.len() {
        return Err(NotationProblem::Trailing(cursor.rest()));
    }
    check_distinct(squares)?;
    Ok(Notation::Move(AlgebraicMove { piece, squares, marker, promotion, outcome }))
}

fn check_distinct(squares: MoveSquares) -> Result<(), NotationProblem> {
    let mut all = squares.sources();
    all.extend(squares.targets());
    for (i, sq) in all.iter().enumerate() {
        if all[i + 1..].contains(sq) {
            return Err(NotationProblem::RepeatedSquare(*sq));
        }
    }
    Ok(())
}

impl FromStr for Notation {
    type Err = ParseMoveError;

    fn from_str(text: &str) -> Result<Notation, ParseMoveError> {
        parse(text).map_err(|problem| ParseMoveError { text: text.to_owned(), problem })
    }
}

impl FromStr for AlgebraicMove {
    type Err = ParseMoveError;

    /// Parses a move; the null move `0000` is refused here since it is no [`AlgebraicMove`].
    fn from_str(text: &str) -> Result<AlgebraicMove, ParseMoveError> {
        match text.parse::<Notation>()? {
            Notation::Move(mv) => Ok(mv),
            Notation::Null => Err(ParseMoveError { text: text.to_owned(), problem: NotationProblem::NullMove }),
            Notation::Pair(..) | Notation::Measure(..) => {
                Err(ParseMoveError { text: text.to_owned(), problem: NotationProblem::BadPair })
            }
        }
    }
}

impl fmt::Display for AlgebraicMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(role) = self.piece {
            write!(f, "{}", role.upper_char())?;
        }
        match self.squares {
            MoveSquares::Standard { from, to } => {
                write!(f, "{from}")?;
                if let Some(marker) = self.marker {
                    write!(f, "{}", marker.char())?;
                }
                write!(f, "{to}")?;
                if let Some(role) = self.promotion {
                    write!(f, "{}", role.char())?;
                }
            }
            squares => write!(f, "{squares}")?,
        }
        match self.outcome {
            Some(true) => f.write_str(".m1"),
            Some(false) => f.write_str(".m0"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for Notation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notation::Null => f.write_str("0000"),
            Notation::Move(mv) => write!(f, "{mv}"),
            Notation::Pair(first, second) => write!(f, "{first}|{second}"),
            Notation::Measure(square, outcome) => {
                write!(f, "?{square}")?;
                match outcome {
                    Some(outcome) => write!(f, ".m{}", u8::from(*outcome)),
                    None => Ok(()),
                }
            }
        }
    }
}

impl From<AlgebraicMove> for Notation {
    fn from(mv: AlgebraicMove) -> Notation {
        Notation::Move(mv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> AlgebraicMove {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn every_documented_form_round_trips() {
        for text in [
            "e2e4",
            "Pe2e4",
            "b1^a3c3",
            "Nb1^a3c3",
            "a3c3^b5",
            "Na3c3^b5",
            "b1xc3",
            "b1wc3",
            "Nb1xc3.m1",
            "e7e8q",
            "e7e8q.m1",
            "d7xc8n.m0",
            "b1wc3.m0",
            "c8^g4f5.m0",
            "e1g1",
        ] {
            assert_eq!(parse_ok(text).to_string(), text);
        }
        assert_eq!("0000".parse::<Notation>().map(|n| n.to_string()), Ok("0000".to_owned()));
    }

    #[test]
    fn pairs_parse_with_their_outcome_at_the_end() {
        let pair: Notation = "e5e8|c2xc7.m1".parse().expect("pair");
        let Notation::Pair(first, second) = pair else { panic!("{pair:?}") };
        assert_eq!(first.squares, MoveSquares::Standard { from: Square::E5, to: Square::E8 });
        assert_eq!((second.marker, pair.outcome()), (Some(VariantMarker::Capture), Some(true)));
        assert_eq!(pair.to_string(), "e5e8|c2xc7.m1");
        for bad in ["e5e8.m1|c2c7", "e5e8|c2^c7d6", "e5e8|", "|c2c7", "e5e8|c2c7|d1d2"] {
            assert!(bad.parse::<Notation>().is_err(), "{bad}");
        }
        assert!("e5e8|c2c7".parse::<AlgebraicMove>().is_err());
        assert_eq!("?e4.m1".parse::<Notation>(), Ok(Notation::Measure(Square::E4, Some(true))));
        assert_eq!("?e4".parse::<Notation>().map(|n| n.to_string()), Ok("?e4".to_owned()));
        assert!("?e9".parse::<Notation>().is_err() && "?e4.m2".parse::<Notation>().is_err());
    }

    #[test]
    fn upper_case_promotion_prints_in_lower_case() {
        let mv = parse_ok("e7e8Q");
        assert_eq!(mv.promotion, Some(Role::Queen));
        assert_eq!(mv.to_string(), "e7e8q");
    }

    #[test]
    fn parts_land_in_their_fields() {
        let mv = parse_ok("Qd1xh5.m0");
        assert_eq!(mv.piece, Some(Role::Queen));
        assert_eq!(mv.squares, MoveSquares::Standard { from: Square::D1, to: Square::H5 });
        assert_eq!(mv.marker, Some(VariantMarker::Capture));
        assert_eq!(mv.outcome, Some(false));
        let merge = parse_ok("a3c3^b5");
        assert_eq!(merge.squares, MoveSquares::Merge { from1: Square::A3, from2: Square::C3, to: Square::B5 });
    }

    #[test]
    fn malformed_text_names_the_problem() {
        let cases = [
            ("", "the move is empty"),
            ("e2", "expected a square (a1-h8) at ``"),
            ("e2e9", "expected a square (a1-h8) at `e9`"),
            ("Xe2e4", "`X` is not a piece letter"),
            ("pe2e4", "expected a square (a1-h8) at `pe2e4`"),
            ("b1^a3", "a split needs a source and two targets"),
            ("a3c3^", "a split needs a source and two targets"),
            ("e7e8k", "`k` is not a promotion piece"),
            ("e2e4.m2", "bad outcome suffix `.m2`"),
            ("e2e4.", "bad outcome suffix `.`"),
            ("e2e4 ", "unexpected ` ` after the move"),
            ("e2e4e5", "unexpected `e5` after the move"),
            ("b1^xa3c3", "a split needs"),
            ("b1xa3^c3", "unexpected `^c3`"),
            ("e2e2", "e2 is named twice"),
            ("b1^a3b1", "b1 is named twice"),
            ("0000.m1", "unexpected `.m1`"),
            ("é2e4", "expected a square"),
        ];
        for (text, expected) in cases {
            let err = text.parse::<Notation>().expect_err(text);
            let message = err.to_string();
            assert!(message.contains(expected), "{text:?}: {message}");
            assert!(message.contains(&format!("`{text}`")), "{text:?}: {message}");
        }
    }

    #[test]
    fn the_null_move_is_not_an_algebraic_move() {
        assert!("0000".parse::<AlgebraicMove>().is_err());
    }

    #[test]
    fn markers_match_variants() {
        for variant in MoveVariant::ALL {
            assert_eq!(VariantMarker::for_variant(variant).map_or(MoveVariant::Basic, VariantMarker::variant), variant);
        }
    }
}
