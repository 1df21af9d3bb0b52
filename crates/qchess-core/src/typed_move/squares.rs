//! The squares a move names: standard, split or merge.

use std::fmt;

use super::{Shape, TypedMoveProblem};
use crate::Square;

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

    pub(super) fn check_distinct(self) -> Result<(), TypedMoveProblem> {
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
