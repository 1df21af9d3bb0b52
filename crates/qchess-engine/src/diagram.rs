//! A text diagram of a position: each square's piece with its occupancy probability under it.
//!
//! Fits in 60 columns. Probabilities print as whole percentages; a square that may hold a
//! piece but rounds to 0% or 100% prints `<1%` or `>99%`, so "certain" is never claimed for a
//! square in superposition.
//!
//! ```
//! use qchess_engine::diagram::Diagram;
//! use qchess_engine::Game;
//!
//! let mut game = Game::standard();
//! game.play("g1^f3h3")?;
//! let text = Diagram::unicode().render(game.position());
//! assert!(text.contains("♘")); // the white knights
//! assert!(text.contains("50%"));
//! assert!(Diagram::ascii().render(game.position()).contains(" N "));
//! # Ok::<(), qchess_engine::GameError>(())
//! ```

use std::fmt::Write as _;

use qchess_core::quantum_board::CERTAINTY_TOLERANCE;
use qchess_core::{Color, Position, Square};

/// How to draw a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Diagram {
    /// Unicode chess symbols (`♘`) rather than FEN letters (`N`).
    pub unicode: bool,
    /// The side drawn at the bottom.
    pub bottom: Color,
}

impl Diagram {
    /// Unicode symbols, White at the bottom.
    pub const fn unicode() -> Diagram {
        Diagram { unicode: true, bottom: Color::White }
    }

    /// FEN letters, White at the bottom.
    pub const fn ascii() -> Diagram {
        Diagram { unicode: false, bottom: Color::White }
    }

    /// The diagram of `position`, ending in a newline.
    pub fn render(&self, position: &Position) -> String {
        let files: Vec<u8> = match self.bottom {
            Color::White => (0..8).collect(),
            Color::Black => (0..8).rev().collect(),
        };
        let ranks: Vec<u8> = match self.bottom {
            Color::White => (0..8).rev().collect(),
            Color::Black => (0..8).collect(),
        };
        let mut header = String::from("   ");
        for &file in &files {
            let _ = write!(header, "   {}  ", char::from(b'a' + file));
        }
        let mut out = format!("{}\n", header.trim_end());
        for &rank in &ranks {
            let mut pieces = format!(" {} ", rank + 1);
            let mut numbers = String::from("   ");
            for &file in &files {
                let Some(square) = Square::from_coords(file, rank) else { continue };
                let (symbol, percent) = self.cell(position, square);
                let _ = write!(pieces, "   {symbol}  ");
                let _ = write!(numbers, "{percent:^6}");
            }
            let _ = writeln!(out, "{}  {}", pieces.trim_end(), rank + 1);
            let numbers = numbers.trim_end();
            if numbers.is_empty() {
                out.push('\n')
            } else {
                let _ = writeln!(out, "{numbers}");
            }
        }
        let _ = writeln!(out, "{}", header.trim_end());
        out
    }

    fn cell(&self, position: &Position, square: Square) -> (char, String) {
        match position.piece_at(square) {
            None => ('·', String::new()),
            Some(piece) => {
                let symbol = if self.unicode { piece.symbol() } else { piece.char() };
                (symbol, percent(position.probability(square)))
            }
        }
    }
}

/// A probability as a whole percentage that never rounds a superposed square to 0 or 100.
pub fn percent(probability: f64) -> String {
    if probability >= 1.0 - CERTAINTY_TOLERANCE {
        "100%".to_owned()
    } else if probability <= CERTAINTY_TOLERANCE {
        "0%".to_owned()
    } else {
        match (probability * 100.0).round() as u32 {
            0 => "<1%".to_owned(),
            100 => ">99%".to_owned(),
            n => format!("{n}%"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_never_claim_certainty_falsely() {
        assert_eq!(percent(1.0), "100%");
        assert_eq!(percent(0.5), "50%");
        assert_eq!(percent(0.001), "<1%");
        assert_eq!(percent(0.999), ">99%");
        assert_eq!(percent(0.0), "0%");
    }

    #[test]
    fn the_start_position_fits_in_60_columns() {
        let text = Diagram::unicode().render(&Position::start());
        assert!(text.lines().all(|line| line.chars().count() <= 60), "{text}");
        assert_eq!(text.matches('♟').count(), 8);
        assert_eq!(text.matches("100%").count(), 32);
        let flipped = Diagram { bottom: Color::Black, ..Diagram::ascii() }.render(&Position::start());
        let first_rank_line = flipped.lines().nth(1).unwrap_or_default();
        assert!(first_rank_line.starts_with(" 1 "), "{flipped}");
        assert!(first_rank_line.contains('R'));
    }
}
