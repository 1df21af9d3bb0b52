//! Castling rights.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{Color, Square};

/// Which side of the board a castle goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CastlingSide {
    /// King to the g-file, rook from h to f.
    KingSide,
    /// King to the c-file, rook from a to d.
    QueenSide,
}

impl CastlingSide {
    /// Both sides, king side first.
    pub const ALL: [CastlingSide; 2] = [CastlingSide::KingSide, CastlingSide::QueenSide];

    /// The king's target square for `color`.
    pub const fn king_to(self, color: Color) -> Square {
        self.square(
            color,
            match self {
                CastlingSide::KingSide => 6,
                CastlingSide::QueenSide => 2,
            },
        )
    }

    /// The rook's starting square for `color`.
    pub const fn rook_from(self, color: Color) -> Square {
        self.square(
            color,
            match self {
                CastlingSide::KingSide => 7,
                CastlingSide::QueenSide => 0,
            },
        )
    }

    /// The rook's target square for `color`.
    pub const fn rook_to(self, color: Color) -> Square {
        self.square(
            color,
            match self {
                CastlingSide::KingSide => 5,
                CastlingSide::QueenSide => 3,
            },
        )
    }

    const fn square(self, color: Color, file: u8) -> Square {
        match Square::from_coords(file, color.back_rank()) {
            Some(sq) => sq,
            None => Square::A1, // unreachable: file and rank are below 8
        }
    }
}

/// The four castling rights as bit flags (`K`, `Q`, `k`, `q` in FEN).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CastlingRights(u8);

impl CastlingRights {
    /// No castling rights.
    pub const NONE: CastlingRights = CastlingRights(0);
    /// All four castling rights.
    pub const ALL: CastlingRights = CastlingRights(0b1111);

    const fn bit(color: Color, side: CastlingSide) -> u8 {
        let shift = match (color, side) {
            (Color::White, CastlingSide::KingSide) => 0,
            (Color::White, CastlingSide::QueenSide) => 1,
            (Color::Black, CastlingSide::KingSide) => 2,
            (Color::Black, CastlingSide::QueenSide) => 3,
        };
        1 << shift
    }

    /// Whether `color` may still castle to `side`.
    pub const fn has(self, color: Color, side: CastlingSide) -> bool {
        self.0 & Self::bit(color, side) != 0
    }

    /// These rights with one right added or removed.
    #[must_use]
    pub const fn set(self, color: Color, side: CastlingSide, allowed: bool) -> CastlingRights {
        if allowed {
            CastlingRights(self.0 | Self::bit(color, side))
        } else {
            CastlingRights(self.0 & !Self::bit(color, side))
        }
    }

    /// These rights without any that depend on the king or a rook standing on `sq`
    /// (used when a piece leaves, is captured on, or is measured away from `sq`).
    #[must_use]
    pub fn without_square(self, sq: Square) -> CastlingRights {
        let mut rights = self;
        for color in Color::ALL {
            for side in CastlingSide::ALL {
                let king_home = Square::from_coords(4, color.back_rank());
                if Some(sq) == king_home || sq == side.rook_from(color) {
                    rights = rights.set(color, side, false);
                }
            }
        }
        rights
    }

    /// The rights as four bit flags (bit 0 `K`, 1 `Q`, 2 `k`, 3 `q`), for keys and tables.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Whether no right is left.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// FEN spelling: `KQkq`, any subset in that order, or `-`.
impl fmt::Display for CastlingRights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("-");
        }
        for (color, side, c) in [
            (Color::White, CastlingSide::KingSide, 'K'),
            (Color::White, CastlingSide::QueenSide, 'Q'),
            (Color::Black, CastlingSide::KingSide, 'k'),
            (Color::Black, CastlingSide::QueenSide, 'q'),
        ] {
            if self.has(color, side) {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for CastlingRights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CastlingRights({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_a_king_or_rook_drops_its_rights() {
        let rights = CastlingRights::ALL.without_square(Square::H1);
        assert_eq!(rights.to_string(), "Qkq");
        assert_eq!(rights.without_square(Square::E8).to_string(), "Q");
        assert_eq!(CastlingRights::ALL.without_square(Square::E4), CastlingRights::ALL);
        assert_eq!(CastlingRights::NONE.to_string(), "-");
    }

    #[test]
    fn castle_geometry() {
        assert_eq!(CastlingSide::KingSide.king_to(Color::White), Square::G1);
        assert_eq!(CastlingSide::QueenSide.rook_from(Color::Black), Square::A8);
        assert_eq!(CastlingSide::QueenSide.rook_to(Color::Black), Square::D8);
    }
}
