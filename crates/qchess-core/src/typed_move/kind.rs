//! Move types and variants, with the official integer codes and names.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::TypedMoveProblem;

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
