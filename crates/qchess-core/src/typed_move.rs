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

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::{Color, Piece, Role, Square};

/// How a move travels; the integer codes are those of the official engine and its REST API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MoveType {
    /// Knight or king move (2).
    Jump,
    /// Bishop, rook or queen move along a line (3).
    Slide,
    /// A jumping piece splits onto two targets (4).
    SplitJump,
    /// A sliding piece splits onto two targets (5).
    SplitSlide,
    /// Two halves of a jumping piece merge onto one target (6).
    MergeJump,
    /// Two halves of a sliding piece merge onto one target (7).
    MergeSlide,
    /// Pawn one square forward (8).
    PawnStep,
    /// Pawn two squares forward from its starting rank (9).
    PawnTwoStep,
    /// Pawn diagonal capture (10).
    PawnCapture,
    /// En passant (11).
    PawnEp,
    /// King-side castle (12).
    KsCastle,
    /// Queen-side castle (13).
    QsCastle,
}

/// Which squares a move names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// One source, one target.
    Standard,
    /// One source, two targets.
    Split,
    /// Two sources, one target.
    Merge,
}

impl MoveType {
    /// Every move type in code order.
    pub const ALL: [MoveType; 12] = [
        MoveType::Jump,
        MoveType::Slide,
        MoveType::SplitJump,
        MoveType::SplitSlide,
        MoveType::MergeJump,
        MoveType::MergeSlide,
        MoveType::PawnStep,
        MoveType::PawnTwoStep,
        MoveType::PawnCapture,
        MoveType::PawnEp,
        MoveType::KsCastle,
        MoveType::QsCastle,
    ];

    /// The official integer code (2 ..= 13).
    pub const fn code(self) -> u8 {
        match self {
            MoveType::Jump => 2,
            MoveType::Slide => 3,
            MoveType::SplitJump => 4,
            MoveType::SplitSlide => 5,
            MoveType::MergeJump => 6,
            MoveType::MergeSlide => 7,
            MoveType::PawnStep => 8,
            MoveType::PawnTwoStep => 9,
            MoveType::PawnCapture => 10,
            MoveType::PawnEp => 11,
            MoveType::KsCastle => 12,
            MoveType::QsCastle => 13,
        }
    }

    /// The move type with an official integer code; 0 (null) and 1 (unspecified) have none.
    pub fn from_code(code: u8) -> Option<MoveType> {
        MoveType::ALL.into_iter().find(|t| t.code() == code)
    }

    /// The upper-case name used in typed moves (`SPLIT_JUMP`).
    pub const fn name(self) -> &'static str {
        match self {
            MoveType::Jump => "JUMP",
            MoveType::Slide => "SLIDE",
            MoveType::SplitJump => "SPLIT_JUMP",
            MoveType::SplitSlide => "SPLIT_SLIDE",
            MoveType::MergeJump => "MERGE_JUMP",
            MoveType::MergeSlide => "MERGE_SLIDE",
            MoveType::PawnStep => "PAWN_STEP",
            MoveType::PawnTwoStep => "PAWN_TWO_STEP",
            MoveType::PawnCapture => "PAWN_CAPTURE",
            MoveType::PawnEp => "PAWN_EP",
            MoveType::KsCastle => "KS_CASTLE",
            MoveType::QsCastle => "QS_CASTLE",
        }
    }

    /// Which squares a move of this type names.
    pub const fn shape(self) -> Shape {
        match self {
            MoveType::SplitJump | MoveType::SplitSlide => Shape::Split,
            MoveType::MergeJump | MoveType::MergeSlide => Shape::Merge,
            _ => Shape::Standard,
        }
    }

    /// Whether the move travels along a line whose path squares matter.
    pub const fn is_slide(self) -> bool {
        matches!(self, MoveType::Slide | MoveType::SplitSlide | MoveType::MergeSlide | MoveType::PawnTwoStep)
    }
}

impl fmt::Display for MoveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MoveType {
    type Err = TypedMoveProblem;

    fn from_str(text: &str) -> Result<MoveType, TypedMoveProblem> {
        MoveType::ALL
            .into_iter()
            .find(|t| t.name() == text)
            .ok_or_else(|| TypedMoveProblem::UnknownType { found: text.to_owned() })
    }
}

/// What the target squares hold, which decides whether and what a move measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum MoveVariant {
    /// Targets empty or holding the same kind of piece (1).
    Basic,
    /// A target holds, in superposition, a piece the move cannot capture (2).
    Excluded,
    /// A target holds a piece the move captures (3).
    Capture,
}

impl MoveVariant {
    /// Every variant in code order.
    pub const ALL: [MoveVariant; 3] = [MoveVariant::Basic, MoveVariant::Excluded, MoveVariant::Capture];

    /// The official integer code (1 ..= 3).
    pub const fn code(self) -> u8 {
        match self {
            MoveVariant::Basic => 1,
            MoveVariant::Excluded => 2,
            MoveVariant::Capture => 3,
        }
    }

    /// The variant with an official integer code; 0 (unspecified) has none.
    pub fn from_code(code: u8) -> Option<MoveVariant> {
        MoveVariant::ALL.into_iter().find(|v| v.code() == code)
    }

    /// The upper-case name used in typed moves (`BASIC`).
    pub const fn name(self) -> &'static str {
        match self {
            MoveVariant::Basic => "BASIC",
            MoveVariant::Excluded => "EXCLUDED",
            MoveVariant::Capture => "CAPTURE",
        }
    }
}

impl fmt::Display for MoveVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MoveVariant {
    type Err = TypedMoveProblem;

    fn from_str(text: &str) -> Result<MoveVariant, TypedMoveProblem> {
        MoveVariant::ALL
            .into_iter()
            .find(|v| v.name() == text)
            .ok_or_else(|| TypedMoveProblem::UnknownVariant { found: text.to_owned() })
    }
}

/// The squares a move names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MoveSquares {
    /// `e2e4`
    Standard {
        /// Source.
        from: Square,
        /// Target.
        to: Square,
    },
    /// `b1^a3c3`
    Split {
        /// Source.
        from: Square,
        /// First target.
        to1: Square,
        /// Second target.
        to2: Square,
    },
    /// `a3c3^b5`
    Merge {
        /// First source.
        from1: Square,
        /// Second source.
        from2: Square,
        /// Target.
        to: Square,
    },
}

impl MoveSquares {
    /// Which squares these are.
    pub const fn shape(self) -> Shape {
        match self {
            MoveSquares::Standard { .. } => Shape::Standard,
            MoveSquares::Split { .. } => Shape::Split,
            MoveSquares::Merge { .. } => Shape::Merge,
        }
    }

    /// Source squares (one, or two for a merge).
    pub fn sources(self) -> Vec<Square> {
        match self {
            MoveSquares::Standard { from, .. } | MoveSquares::Split { from, .. } => vec![from],
            MoveSquares::Merge { from1, from2, .. } => vec![from1, from2],
        }
    }

    /// Target squares (one, or two for a split).
    pub fn targets(self) -> Vec<Square> {
        match self {
            MoveSquares::Standard { to, .. } | MoveSquares::Merge { to, .. } => vec![to],
            MoveSquares::Split { to1, to2, .. } => vec![to1, to2],
        }
    }

    /// The squares in API order: `square1`, `square2` and `square3` of the official REST API.
    pub fn api_squares(self) -> (Square, Square, Option<Square>) {
        match self {
            MoveSquares::Standard { from, to } => (from, to, None),
            MoveSquares::Split { from, to1, to2 } => (from, to1, Some(to2)),
            MoveSquares::Merge { from1, from2, to } => (from1, from2, Some(to)),
        }
    }

    /// Parses the squares part of a move: `e2e4`, `b1^a3c3`, `a3c3^b5`, or the reference
    /// implementation's quirk `f4^d6`, which is a standard move.
    pub fn parse(text: &str) -> Result<MoveSquares, TypedMoveProblem> {
        let square = |part: &str| -> Result<Square, TypedMoveProblem> {
            part.get(..).filter(|p| p.len() == 2).and_then(|p| p.parse().ok()).ok_or_else(|| {
                TypedMoveProblem::BadSquares { squares: text.to_owned(), reason: format!("`{part}` is not a square") }
            })
        };
        let pair = |part: &str| -> Result<(Square, Square), TypedMoveProblem> {
            if part.len() != 4 || !part.is_char_boundary(2) {
                return Err(TypedMoveProblem::BadSquares {
                    squares: text.to_owned(),
                    reason: format!("`{part}` is not two squares"),
                });
            }
            Ok((square(&part[..2])?, square(&part[2..])?))
        };
        let squares = match text.split_once('^') {
            None => {
                let (from, to) = pair(text)?;
                MoveSquares::Standard { from, to }
            }
            Some((left, right)) if left.len() == 2 && right.len() == 4 => {
                let (to1, to2) = pair(right)?;
                MoveSquares::Split { from: square(left)?, to1, to2 }
            }
            Some((left, right)) if left.len() == 4 && right.len() == 2 => {
                let (from1, from2) = pair(left)?;
                MoveSquares::Merge { from1, from2, to: square(right)? }
            }
            Some((left, right)) if left.len() == 2 && right.len() == 2 => {
                MoveSquares::Standard { from: square(left)?, to: square(right)? }
            }
            Some(_) => {
                return Err(TypedMoveProblem::BadSquares {
                    squares: text.to_owned(),
                    reason: "expected s^t1t2 (split) or s1s2^t (merge)".to_owned(),
                });
            }
        };
        squares.check_distinct()?;
        Ok(squares)
    }

    fn check_distinct(self) -> Result<(), TypedMoveProblem> {
        let mut all = self.sources();
        all.extend(self.targets());
        for (i, a) in all.iter().enumerate() {
            if all[i + 1..].contains(a) {
                return Err(TypedMoveProblem::BadSquares {
                    squares: self.to_string(),
                    reason: format!("{a} is named twice"),
                });
            }
        }
        Ok(())
    }
}

impl fmt::Display for MoveSquares {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MoveSquares::Standard { from, to } => write!(f, "{from}{to}"),
            MoveSquares::Split { from, to1, to2 } => write!(f, "{from}^{to1}{to2}"),
            MoveSquares::Merge { from1, from2, to } => write!(f, "{from1}{from2}^{to}"),
        }
    }
}

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
    #[error("bad squares `{squares}`: {reason}")]
    BadSquares {
        /// The squares part as given.
        squares: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The type is not one of the twelve move types.
    #[error(
        "unknown move type `{found}` (expected one of JUMP, SLIDE, SPLIT_JUMP, SPLIT_SLIDE, MERGE_JUMP, MERGE_SLIDE, PAWN_STEP, PAWN_TWO_STEP, PAWN_CAPTURE, PAWN_EP, KS_CASTLE, QS_CASTLE)"
    )]
    UnknownType {
        /// The type as given.
        found: String,
    },
    /// The variant is not BASIC, EXCLUDED or CAPTURE.
    #[error("unknown move variant `{found}` (expected BASIC, EXCLUDED or CAPTURE)")]
    UnknownVariant {
        /// The variant as given.
        found: String,
    },
    /// The outcome suffix is not `.m0` or `.m1`.
    #[error("bad outcome suffix `{found}` (expected .m0 or .m1)")]
    BadOutcome {
        /// The suffix as given.
        found: String,
    },
    /// The promotion letter is not one of `QRBN` / `qrbn`.
    #[error("bad promotion piece `{found}` (expected Q, R, B or N; lower case for Black)")]
    BadPromotion {
        /// The letter as given.
        found: String,
    },
    /// The number of squares does not fit the type.
    #[error("{move_type} needs {expected}, got `{squares}`")]
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
    #[error("{move_type} {squares}: {reason}")]
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
#[error("bad typed move `{text}`: {problem}")]
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
