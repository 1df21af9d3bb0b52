//! Typed moves: what a quantum board executes.
//!
//! A typed move names its squares, its [`MoveType`] and its [`MoveVariant`] explicitly, so a
//! quantum board can run it without knowing any pieces. The text form is the one the public
//! reference implementation uses in its tests:
//! `<squares>[promotion][.m0|.m1]:<TYPE>:<VARIANT>`.
//!
//! ```
//! use qchess_core::{MoveType, MoveVariant, Square, TypedMove};
//!
//! let split: TypedMove = "b1^a3c3:SPLIT_JUMP:BASIC".parse().unwrap();
//! assert_eq!(split.move_type, MoveType::SplitJump);
//! assert_eq!(split.targets(), vec![Square::A3, Square::C3]);
//!
//! let capture: TypedMove = "c3d5.m1:JUMP:CAPTURE".parse().unwrap();
//! assert_eq!(capture.variant, MoveVariant::Capture);
//! assert_eq!(capture.outcome, Some(true));
//! assert_eq!(capture.to_string(), "c3d5.m1:JUMP:CAPTURE");
//!
//! // A slide whose squares are not on one line is malformed.
//! assert!("a1b3:SLIDE:BASIC".parse::<TypedMove>().is_err());
//! ```

mod kind;
mod squares;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

pub use kind::{MoveType, MoveVariant, Shape};
pub use squares::MoveSquares;

use crate::text::excerpt;
use crate::{Color, Piece, Role, Square};

/// A move as a quantum board executes it: squares, type, variant, optional promotion and
/// optional forced measurement outcome (`Some(true)` = `.m1` = the move proceeds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypedMove {
    /// The squares the move names.
    pub squares: MoveSquares,
    /// How the move travels.
    pub move_type: MoveType,
    /// What the targets hold.
    pub variant: MoveVariant,
    /// The piece a pawn promotes to; the occupancy board ignores it.
    pub promotion: Option<Piece>,
    /// The forced or recorded measurement outcome.
    pub outcome: Option<bool>,
}

/// What is wrong with a typed move.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TypedMoveProblem {
    /// The text is not `<squares>:<TYPE>:<VARIANT>`.
    #[error("expected <squares>[.m0|.m1]:<TYPE>:<VARIANT>, like b1^a3c3:SPLIT_JUMP:BASIC")]
    Layout,
    /// The squares part is malformed.
    #[error("bad squares `{}`: {reason}", excerpt(.squares))]
    BadSquares {
        /// The squares part as given.
        squares: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The type is not one of the twelve move types.
    #[error(
        "unknown move type `{}` (expected one of JUMP, SLIDE, SPLIT_JUMP, SPLIT_SLIDE, MERGE_JUMP, MERGE_SLIDE, PAWN_STEP, PAWN_TWO_STEP, PAWN_CAPTURE, PAWN_EP, KS_CASTLE, QS_CASTLE)",
        excerpt(.found)
    )]
    UnknownType {
        /// The type as given.
        found: String,
    },
    /// The variant is not BASIC, EXCLUDED or CAPTURE.
    #[error("unknown move variant `{}` (expected BASIC, EXCLUDED or CAPTURE)", excerpt(.found))]
    UnknownVariant {
        /// The variant as given.
        found: String,
    },
    /// The outcome suffix is not `.m0` or `.m1`.
    #[error("bad outcome suffix `{}` (expected .m0 or .m1)", excerpt(.found))]
    BadOutcome {
        /// The suffix as given.
        found: String,
    },
    /// The promotion letter is not one of `QRBN` / `qrbn`.
    #[error("bad promotion piece `{}` (expected Q, R, B or N; lower case for Black)", excerpt(.found))]
    BadPromotion {
        /// The letter as given.
        found: String,
    },
    /// The number of squares does not fit the type.
    #[error("{move_type} needs {expected}, got `{}`", excerpt(.squares))]
    WrongSquareCount {
        /// The move type.
        move_type: MoveType,
        /// What the type needs.
        expected: &'static str,
        /// The squares given.
        squares: String,
    },
    /// Split and merge moves have only the basic variant.
    #[error("{move_type} has only the BASIC variant, got {variant}")]
    VariantNotAllowed {
        /// The move type.
        move_type: MoveType,
        /// The variant given.
        variant: MoveVariant,
    },
    /// The squares do not have the geometry the move type needs.
    #[error("{move_type} {}: {reason}", excerpt(.squares))]
    Geometry {
        /// The move type.
        move_type: MoveType,
        /// The squares given.
        squares: String,
        /// What is wrong.
        reason: &'static str,
    },
}

/// A typed move that could not be parsed: the text and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("bad typed move `{}`: {problem}", excerpt(.text))]
pub struct ParseTypedMoveError {
    /// The text that was given.
    pub text: String,
    /// What is wrong with it.
    pub problem: TypedMoveProblem,
}

impl TypedMove {
    /// A typed move, checked for the squares and geometry its type needs.
    pub fn new(squares: MoveSquares, move_type: MoveType, variant: MoveVariant) -> Result<TypedMove, TypedMoveProblem> {
        let mv = TypedMove { squares, move_type, variant, promotion: None, outcome: None };
        mv.check()?;
        Ok(mv)
    }

    /// This move with a forced outcome.
    #[must_use]
    pub const fn with_outcome(mut self, outcome: Option<bool>) -> TypedMove {
        self.outcome = outcome;
        self
    }

    /// This move with a promotion piece.
    #[must_use]
    pub const fn with_promotion(mut self, promotion: Option<Piece>) -> TypedMove {
        self.promotion = promotion;
        self
    }

    /// Source squares (one, or two for a merge).
    pub fn sources(&self) -> Vec<Square> {
        self.squares.sources()
    }

    /// Target squares (one, or two for a split).
    pub fn targets(&self) -> Vec<Square> {
        self.squares.targets()
    }

    /// For en passant: the square of the pawn that is captured (target file, source rank).
    pub fn en_passant_victim(&self) -> Option<Square> {
        match (self.move_type, self.squares) {
            (MoveType::PawnEp, MoveSquares::Standard { from, to }) => Square::from_coords(to.file(), from.rank()),
            _ => None,
        }
    }

    fn geometry(&self, reason: &'static str) -> TypedMoveProblem {
        TypedMoveProblem::Geometry { move_type: self.move_type, squares: self.squares.to_string(), reason }
    }

    fn check(&self) -> Result<(), TypedMoveProblem> {
        let expected = match self.move_type.shape() {
            Shape::Standard => "a source and a target (e2e4)",
            Shape::Split => "a source and two targets (b1^a3c3)",
            Shape::Merge => "two sources and a target (a3c3^b5)",
        };
        if self.move_type.shape() != self.squares.shape() {
            return Err(TypedMoveProblem::WrongSquareCount {
                move_type: self.move_type,
                expected,
                squares: self.squares.to_string(),
            });
        }
        self.squares.check_distinct()?;
        if self.move_type.shape() != Shape::Standard && self.variant != MoveVariant::Basic {
            return Err(TypedMoveProblem::VariantNotAllowed { move_type: self.move_type, variant: self.variant });
        }
        let on_line = |a: Square, b: Square| a.direction_to(b).is_some();
        match (self.move_type, self.squares) {
            (MoveType::Slide | MoveType::PawnTwoStep, MoveSquares::Standard { from, to }) if !on_line(from, to) => {
                Err(self.geometry("source and target are not on one rank, file or diagonal"))
            }
            (MoveType::SplitSlide, MoveSquares::Split { from, to1, to2 })
                if !on_line(from, to1) || !on_line(from, to2) =>
            {
                Err(self.geometry("each target must be on a rank, file or diagonal through the source"))
            }
            (MoveType::MergeSlide, MoveSquares::Merge { from1, from2, to })
                if !on_line(from1, to) || !on_line(from2, to) =>
            {
                Err(self.geometry("each source must be on a rank, file or diagonal through the target"))
            }
            (MoveType::PawnEp, MoveSquares::Standard { from, to })
                if from.file().abs_diff(to.file()) != 1 || from.rank().abs_diff(to.rank()) != 1 =>
            {
                Err(self.geometry("en passant moves one square diagonally"))
            }
            (MoveType::KsCastle | MoveType::QsCastle, MoveSquares::Standard { from, to }) => {
                let king_file = if self.move_type == MoveType::KsCastle { 6 } else { 2 };
                if from.file() != 4
                    || to.file() != king_file
                    || from.rank() != to.rank()
                    || !matches!(from.rank(), 0 | 7)
                {
                    Err(self.geometry("the king castles from the e-file to the g-file (king side) or c-file (queen side) of its back rank"))
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }
}

impl FromStr for TypedMove {
    type Err = ParseTypedMoveError;

    fn from_str(text: &str) -> Result<TypedMove, ParseTypedMoveError> {
        parse_typed_move(text).map_err(|problem| ParseTypedMoveError { text: text.to_owned(), problem })
    }
}

fn parse_typed_move(text: &str) -> Result<TypedMove, TypedMoveProblem> {
    let mut fields = text.split(':');
    let (Some(head), Some(type_name), Some(variant_name), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(TypedMoveProblem::Layout);
    };
    let move_type: MoveType = type_name.parse()?;
    let variant: MoveVariant = variant_name.parse()?;
    let (head, outcome) = match head.split_once(".m") {
        Some((rest, "0")) => (rest, Some(false)),
        Some((rest, "1")) => (rest, Some(true)),
        Some((_, suffix)) => return Err(TypedMoveProblem::BadOutcome { found: format!(".m{suffix}") }),
        None => (head, None),
    };
    // A promotion letter may follow the squares of a standard move (`c7c8Q`).
    let (head, promotion) = match head.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() && !head.contains('^') && head.len() == 5 => {
            let role = Role::from_char(c).filter(|r| Role::PROMOTIONS.contains(r));
            let role = role.ok_or_else(|| TypedMoveProblem::BadPromotion { found: c.to_string() })?;
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            (&head[..i], Some(Piece::new(color, role)))
        }
        _ => (head, None),
    };
    let squares = MoveSquares::parse(head)?;
    Ok(TypedMove::new(squares, move_type, variant)?.with_outcome(outcome).with_promotion(promotion))
}

impl fmt::Display for TypedMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.squares)?;
        if let Some(piece) = self.promotion {
            write!(f, "{}", piece.char())?;
        }
        match self.outcome {
            Some(true) => f.write_str(".m1")?,
            Some(false) => f.write_str(".m0")?,
            None => {}
        }
        write!(f, ":{}:{}", self.move_type, self.variant)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_examples_round_trip() {
        for text in [
            "b1^a3c3:SPLIT_JUMP:BASIC",
            "a3c3^b1:MERGE_JUMP:BASIC",
            "c8^g4f5.m0:SPLIT_SLIDE:BASIC",
            "e4f3.m1:PAWN_EP:CAPTURE",
            "c7c8Q.m0:PAWN_STEP:BASIC",
            "e2f1q:PAWN_CAPTURE:CAPTURE",
            "e1g1:KS_CASTLE:EXCLUDED",
            "e8c8:QS_CASTLE:BASIC",
        ] {
            let mv: TypedMove = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(mv.to_string(), text);
        }
    }

    #[test]
    fn single_target_after_caret_is_a_standard_move() {
        let mv: TypedMove = "f4^d6:SLIDE:BASIC".parse().expect("quirk form");
        assert_eq!(mv.squares, MoveSquares::Standard { from: Square::F4, to: Square::D6 });
    }

    #[test]
    fn malformed_moves_name_the_problem() {
        let cases = [
            ("b1a3", "expected <squares>"),
            ("b1a3:JUMP", "expected <squares>"),
            ("b1a3:HOP:BASIC", "unknown move type `HOP`"),
            ("b1a3:JUMP:SOMETIMES", "unknown move variant"),
            ("b1a3.m2:JUMP:BASIC", "bad outcome suffix `.m2`"),
            ("b1z3:JUMP:BASIC", "`z3` is not a square"),
            ("b1^a3c3:JUMP:BASIC", "JUMP needs a source and a target"),
            ("b1a3:SPLIT_JUMP:BASIC", "SPLIT_JUMP needs a source and two targets"),
            ("b1^a3c3:SPLIT_JUMP:CAPTURE", "only the BASIC variant"),
            ("b1^a3a3:SPLIT_JUMP:BASIC", "a3 is named twice"),
            ("a1b3:SLIDE:BASIC", "not on one rank"),
            ("e1f1:KS_CASTLE:BASIC", "castles from the e-file"),
            ("e5d5:PAWN_EP:BASIC", "one square diagonally"),
            ("c7c8K:PAWN_STEP:BASIC", "bad promotion piece `K`"),
        ];
        for (text, expected) in cases {
            let err = text.parse::<TypedMove>().expect_err(text).to_string();
            assert!(err.contains(expected), "{text}: {err}");
            assert!(err.contains(text), "{text}: {err}");
        }
    }

    #[test]
    fn en_passant_victim_is_beside_the_source() {
        let mv: TypedMove = "e5d6:PAWN_EP:BASIC".parse().expect("valid");
        assert_eq!(mv.en_passant_victim(), Some(Square::D5));
    }

    #[test]
    fn codes_round_trip() {
        for t in MoveType::ALL {
            assert_eq!(MoveType::from_code(t.code()), Some(t));
        }
        for v in MoveVariant::ALL {
            assert_eq!(MoveVariant::from_code(v.code()), Some(v));
        }
        assert_eq!(MoveType::from_code(0), None);
        assert_eq!(MoveVariant::from_code(0), None);
    }
}
