//! Sets of squares as `u64` bitboards, `a1` = bit 0.
//!
//! ```
//! use qchess_core::{Bitboard, Square};
//!
//! let start = Bitboard(0xFFFF_0000_0000_FFFF);
//! assert!(start.contains(Square::E2));
//! assert!(!start.contains(Square::E4));
//! assert_eq!(start.count(), 32);
//! let moved = start.without(Square::E2).with(Square::E4);
//! assert_eq!(moved.iter().find(|sq| sq.rank() == 3), Some(Square::E4));
//! ```

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

use serde::{Deserialize, Serialize};

use crate::Square;

/// A set of squares; bit `i` stands for the square with index `i`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Bitboard(pub u64);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 64 squares.
    pub const FULL: Bitboard = Bitboard(!0);
    /// The occupancy of the standard starting position.
    pub const START: Bitboard = Bitboard(0xFFFF_0000_0000_FFFF);

    /// The set holding only `sq`.
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    /// Whether `sq` is in the set.
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.index() & 1 == 1
    }

    /// The set with `sq` added.
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.index())
    }

    /// The set with `sq` removed.
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// The set with `sq` present exactly when `present` is true.
    #[must_use]
    pub const fn set(self, sq: Square, present: bool) -> Bitboard {
        if present { self.with(sq) } else { self.without(sq) }
    }

    /// Number of squares in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `self` and `other` share a square.
    pub const fn intersects(self, other: Bitboard) -> bool {
        self.0 & other.0 != 0
    }

    /// The lowest square in the set.
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 { None } else { Square::new(self.0.trailing_zeros() as u8) }
    }

    /// The squares in index order.
    pub fn iter(self) -> BitboardIter {
        BitboardIter(self.0)
    }
}

/// Iterator over the squares of a [`Bitboard`], lowest index first.
#[derive(Debug, Clone)]
pub struct BitboardIter(u64);

impl Iterator for BitboardIter {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Square::new(index)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BitboardIter {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = BitboardIter;

    fn into_iter(self) -> BitboardIter {
        self.iter()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

macro_rules! bit_ops {
    ($($trait:ident $method:ident $assign_trait:ident $assign_method:ident $op:tt),*) => {
        $(
            impl $trait for Bitboard {
                type Output = Bitboard;
                fn $method(self, rhs: Bitboard) -> Bitboard {
                    Bitboard(self.0 $op rhs.0)
                }
            }
            impl $assign_trait for Bitboard {
                fn $assign_method(&mut self, rhs: Bitboard) {
                    self.0 = self.0 $op rhs.0;
                }
            }
        )*
    };
}

bit_ops!(BitAnd bitand BitAndAssign bitand_assign &, BitOr bitor BitOrAssign bitor_assign |,
         BitXor bitxor BitXorAssign bitxor_assign ^);

impl Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// Debug output is the hexadecimal value, which is what logs and tests compare.
impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitboard({:#018x})", self.0)
    }
}

/// Display draws the board from White's side, rank 8 first, `1` for a member square.
impl fmt::Display for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            for file in 0..8 {
                let sq = Square::from_coords(file, rank).ok_or(fmt::Error)?;
                let mark = if self.contains(sq) { '1' } else { '.' };
                if file > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{mark}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_in_index_order() {
        let bb = Bitboard(0b1010_0001);
        let squares: Vec<Square> = bb.iter().collect();
        assert_eq!(squares, vec![Square::A1, Square::F1, Square::H1]);
        assert_eq!(squares.into_iter().collect::<Bitboard>(), bb);
    }

    #[test]
    fn start_position_has_both_back_ranks() {
        assert!(Bitboard::START.contains(Square::A1));
        assert!(Bitboard::START.contains(Square::H8));
        assert!(!Bitboard::START.contains(Square::A3));
        assert_eq!(Bitboard::START.first(), Some(Square::A1));
        assert_eq!(Bitboard::EMPTY.first(), None);
    }
}
