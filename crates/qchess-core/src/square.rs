//! Squares of the board, `a1` = 0 through `h8` = 63.
//!
//! ```
//! use qchess_core::Square;
//!
//! let e4: Square = "e4".parse().unwrap();
//! assert_eq!(e4.index(), 28);
//! assert_eq!((e4.file(), e4.rank()), (4, 3));
//! assert_eq!(e4.to_string(), "e4");
//! assert_eq!(e4.offset(1, 1), Some(Square::F5));
//! assert_eq!(Square::H8.offset(1, 0), None);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// One of the 64 squares. `a1` is 0, `b1` is 1, ..., `h1` is 7, `a2` is 8, ..., `h8` is 63.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

/// A square name that is not `a1` ... `h8`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`{}` is not a square (expected a file a-h and a rank 1-8, like e4)", crate::text::excerpt(.text))]
pub struct ParseSquareError {
    /// The text that was given.
    pub text: String,
}

macro_rules! square_consts {
    ($($name:ident = $idx:expr),* $(,)?) => {
        impl Square {
            $(
                #[doc = concat!("The square ", stringify!($name), ".")]
                pub const $name: Square = Square($idx);
            )*
        }
    };
}

square_consts! {
    A1 = 0, B1 = 1, C1 = 2, D1 = 3, E1 = 4, F1 = 5, G1 = 6, H1 = 7,
    A2 = 8, B2 = 9, C2 = 10, D2 = 11, E2 = 12, F2 = 13, G2 = 14, H2 = 15,
    A3 = 16, B3 = 17, C3 = 18, D3 = 19, E3 = 20, F3 = 21, G3 = 22, H3 = 23,
    A4 = 24, B4 = 25, C4 = 26, D4 = 27, E4 = 28, F4 = 29, G4 = 30, H4 = 31,
    A5 = 32, B5 = 33, C5 = 34, D5 = 35, E5 = 36, F5 = 37, G5 = 38, H5 = 39,
    A6 = 40, B6 = 41, C6 = 42, D6 = 43, E6 = 44, F6 = 45, G6 = 46, H6 = 47,
    A7 = 48, B7 = 49, C7 = 50, D7 = 51, E7 = 52, F7 = 53, G7 = 54, H7 = 55,
    A8 = 56, B8 = 57, C8 = 58, D8 = 59, E8 = 60, F8 = 61, G8 = 62, H8 = 63,
}

impl Square {
    /// Every square in index order, `a1` first.
    pub const ALL: [Square; 64] = {
        let mut all = [Square(0); 64];
        let mut i = 0;
        while i < 64 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square with this index, if it is below 64.
    pub const fn new(index: u8) -> Option<Square> {
        if index < 64 { Some(Square(index)) } else { None }
    }

    /// The square on `file` (0 = a) and `rank` (0 = first rank), if both are below 8.
    pub const fn from_coords(file: u8, rank: u8) -> Option<Square> {
        if file < 8 && rank < 8 { Some(Square(rank * 8 + file)) } else { None }
    }

    /// Index 0..64, `a1` = 0.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// File 0..8, `a` = 0.
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    /// Rank 0..8, the first rank = 0.
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let file = self.file() as i8 + df;
        let rank = self.rank() as i8 + dr;
        if file >= 0 && file < 8 && rank >= 0 && rank < 8 { Some(Square((rank * 8 + file) as u8)) } else { None }
    }

    /// The square with the same file on the other side of the board (`a1` <-> `a8`).
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The unit step from `self` towards `other` when both lie on one rank, file or diagonal.
    pub fn direction_to(self, other: Square) -> Option<(i8, i8)> {
        if self == other {
            return None;
        }
        let df = other.file() as i8 - self.file() as i8;
        let dr = other.rank() as i8 - self.rank() as i8;
        if df == 0 || dr == 0 || df.abs() == dr.abs() { Some((df.signum(), dr.signum())) } else { None }
    }

    /// The squares strictly between `self` and `other` on their rank, file or diagonal, or
    /// `None` when the two squares are equal or not on one line.
    pub fn between(self, other: Square) -> Option<crate::Bitboard> {
        let (df, dr) = self.direction_to(other)?;
        let mut squares = crate::Bitboard::EMPTY;
        let mut sq = self.offset(df, dr)?;
        while sq != other {
            squares = squares.with(sq);
            sq = sq.offset(df, dr)?;
        }
        Some(squares)
    }

    /// Chebyshev (king-move) distance between two squares.
    pub fn distance(self, other: Square) -> u8 {
        self.file().abs_diff(other.file()).max(self.rank().abs_diff(other.rank()))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = [b'a' + self.file(), b'1' + self.rank()];
        f.write_str(std::str::from_utf8(&name).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(text: &str) -> Result<Square, ParseSquareError> {
        match text.as_bytes() {
            [file @ b'a'..=b'h', rank @ b'1'..=b'8'] => Ok(Square((rank - b'1') * 8 + (file - b'a'))),
            _ => Err(ParseSquareError { text: text.to_owned() }),
        }
    }
}

impl From<Square> for u8 {
    fn from(sq: Square) -> u8 {
        sq.0
    }
}

impl From<Square> for usize {
    fn from(sq: Square) -> usize {
        sq.0 as usize
    }
}

impl TryFrom<u8> for Square {
    type Error = ParseSquareError;

    fn try_from(index: u8) -> Result<Square, ParseSquareError> {
        Square::new(index).ok_or_else(|| ParseSquareError { text: index.to_string() })
    }
}

/// Squares serialise as their names (`"e4"`).
impl Serialize for Square {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Square, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_for_every_square() {
        for sq in Square::ALL {
            let name = sq.to_string();
            assert_eq!(name.parse::<Square>(), Ok(sq));
            assert_eq!(Square::from_coords(sq.file(), sq.rank()), Some(sq));
        }
        assert_eq!(Square::H8.to_string(), "h8");
        assert_eq!(Square::A2.index(), 8);
    }

    #[test]
    fn rejects_bad_names() {
        for bad in ["", "a", "i1", "a9", "a0", "A1", "e44", "é4"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
    }

    #[test]
    fn between_follows_lines_only() {
        assert_eq!(Square::A1.between(Square::A4).map(|b| b.count()), Some(2));
        assert_eq!(Square::A1.between(Square::H8).map(|b| b.count()), Some(6));
        assert_eq!(Square::A1.between(Square::B3), None);
        assert_eq!(Square::A1.between(Square::A1), None);
        assert_eq!(Square::A1.between(Square::B2).map(|b| b.count()), Some(0));
    }
}
