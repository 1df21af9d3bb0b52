//! Forsyth-Edwards Notation: the six fields of a chess position as text.
//!
//! [`Fen`] holds what a FEN says and nothing more: which piece kind stands on each square,
//! the side to move, castling rights, the en-passant square and the two move counters. It
//! checks the syntax of every field (and that an en-passant square lies on the rank the side
//! to move captures onto); whether the position makes sense for a game is for
//! [`Position`](crate::Position) and [`ClassicalPosition`](crate::classical::ClassicalPosition)
//! to decide.
//!
//! The four-field form without the move counters is accepted; the counters then default to
//! `0 1`. Printing always gives six fields.
//!
//! ```
//! use qchess_core::{Color, Fen, Piece, Role, Square};
//!
//! let fen: Fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse()?;
//! assert_eq!(fen.board[Square::E4.index() as usize], Some(Piece::new(Color::White, Role::Pawn)));
//! assert_eq!(fen.turn, Color::Black);
//! assert_eq!(fen.en_passant, Some(Square::E3));
//! assert_eq!(fen.to_string(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
//!
//! let short: Fen = "8/8/8/8/8/8/8/K6k w - -".parse()?;
//! assert_eq!((short.halfmove_clock, short.fullmove_number), (0, 1));
//!
//! let err = "rnbqkbnr/pppppppp/8/8/8/p8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".parse::<Fen>().unwrap_err();
//! assert_eq!(err.to_string(), "piece placement: rank 3 has 9 files");
//! # Ok::<(), qchess_core::FenError>(())
//! ```

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::text::excerpt;
use crate::{Bitboard, CastlingRights, CastlingSide, Color, Piece, Role, Square};

/// The FEN of the standard starting position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The six fields of a FEN record.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Fen {
    /// The piece kind on each square, indexed by square (`a1` = 0).
    pub board: [Option<Piece>; 64],
    /// The side to move.
    pub turn: Color,
    /// Castling rights still held.
    pub castling: CastlingRights,
    /// The square a pawn just skipped with its two-step, if any.
    pub en_passant: Option<Square>,
    /// Plies since the last pawn move or capture (the fifty-move counter).
    pub halfmove_clock: u32,
    /// The number of the full move, starting at 1 and growing after each Black move.
    pub fullmove_number: u32,
}

/// One of the six FEN fields, named in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FenField {
    /// The ranks, from the eighth down to the first.
    PiecePlacement,
    /// `w` or `b`.
    SideToMove,
    /// `KQkq`, a subset, or `-`.
    Castling,
    /// A square on the third or sixth rank, or `-`.
    EnPassant,
    /// Plies since the last pawn move or capture.
    HalfmoveClock,
    /// The full-move number.
    FullmoveNumber,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::PiecePlacement => "piece placement",
            FenField::SideToMove => "side to move",
            FenField::Castling => "castling",
            FenField::EnPassant => "en passant",
            FenField::HalfmoveClock => "halfmove clock",
            FenField::FullmoveNumber => "fullmove number",
        })
    }
}

/// Why a text is not a FEN.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FenError {
    /// The text does not have four or six space-separated fields.
    #[error(
        "expected 6 space-separated fields (piece placement, side to move, castling, en passant, \
         halfmove clock, fullmove number) or the first 4, got {0}"
    )]
    FieldCount(usize),
    /// One field is malformed.
    #[error("{field}: {problem}")]
    Field {
        /// The field at fault.
        field: FenField,
        /// What is wrong with it.
        problem: String,
    },
}

fn field_error(field: FenField, problem: impl Into<String>) -> FenError {
    FenError::Field { field, problem: problem.into() }
}

impl Fen {
    /// The standard starting position.
    pub fn start() -> Fen {
        let mut board = [None; 64];
        let back =
            [Role::Rook, Role::Knight, Role::Bishop, Role::Queen, Role::King, Role::Bishop, Role::Knight, Role::Rook];
        for (file, role) in (0u8..).zip(back) {
            for (color, back_rank, pawn_rank) in [(Color::White, 0, 1), (Color::Black, 7, 6)] {
                board[usize::from(rank_file(back_rank, file))] = Some(Piece::new(color, role));
                board[usize::from(rank_file(pawn_rank, file))] = Some(Piece::new(color, Role::Pawn));
            }
        }
        Fen {
            board,
            turn: Color::White,
            castling: CastlingRights::ALL,
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// A position with no pieces, White to move, no rights, counters `0 1`.
    pub fn empty() -> Fen {
        Fen {
            board: [None; 64],
            turn: Color::White,
            castling: CastlingRights::NONE,
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[usize::from(sq)]
    }

    /// The squares that hold a piece.
    pub fn occupancy(&self) -> Bitboard {
        Square::ALL.into_iter().filter(|&sq| self.piece_at(sq).is_some()).collect()
    }

    /// Plies played since the start of the game, as the move counters tell them:
    /// `2 * (fullmove_number - 1)`, plus one when Black is to move.
    pub fn ply(&self) -> u32 {
        ply_from_counters(self.fullmove_number, self.turn)
    }
}

impl Default for Fen {
    fn default() -> Fen {
        Fen::start()
    }
}

/// Plies before the move `fullmove_number` of `turn` (saturating for absurd counters).
pub(crate) fn ply_from_counters(fullmove_number: u32, turn: Color) -> u32 {
    fullmove_number.saturating_sub(1).saturating_mul(2).saturating_add(u32::from(turn == Color::Black))
}

fn rank_file(rank: u8, file: u8) -> Square {
    // Both arguments come from bounded loops below 8, so the fallback is never taken.
    Square::from_coords(file, rank).unwrap_or(Square::A1)
}

fn parse_placement(text: &str) -> Result<[Option<Piece>; 64], FenError> {
    let error = |problem: String| field_error(FenField::PiecePlacement, problem);
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 8 {
        return Err(error(format!("expected 8 ranks separated by '/', got {}", ranks.len())));
    }
    let mut board = [None; 64];
    for (row, rank_text) in ranks.iter().enumerate() {
        let rank = 7 - row as u8;
        let rank_name = rank + 1;
        let mut file: u32 = 0;
        let mut previous_was_digit = false;
        for c in rank_text.chars() {
            if let Some(skip) = c.to_digit(10) {
                if !(1..=8).contains(&skip) {
                    return Err(error(format!(
                        "rank {rank_name}: `{}` is not a count of empty squares (1-8)",
                        excerpt(&c.to_string())
                    )));
                }
                if previous_was_digit {
                    return Err(error(format!(
                        "rank {rank_name}: two digits in a row; write one count of empty squares"
                    )));
                }
                previous_was_digit = true;
                file += skip;
            } else if let Some(piece) = Piece::from_char(c).filter(|_| c.is_ascii()) {
                previous_was_digit = false;
                if file < 8 {
                    board[usize::from(rank_file(rank, file as u8))] = Some(piece);
                }
                file += 1;
            } else {
                return Err(error(format!(
                    "rank {rank_name}: `{}` is not a piece letter (PNBRQK, pnbrqk) or a count of empty squares",
                    excerpt(&c.to_string())
                )));
            }
        }
        if file != 8 {
            return Err(error(format!("rank {rank_name} has {file} files")));
        }
    }
    Ok(board)
}

fn parse_castling(text: &str) -> Result<CastlingRights, FenError> {
    if text == "-" {
        return Ok(CastlingRights::NONE);
    }
    let mut rights = CastlingRights::NONE;
    if text.is_empty() {
        return Err(field_error(FenField::Castling, "empty; write - for no rights"));
    }
    for c in text.chars() {
        let (color, side) = match c {
            'K' => (Color::White, CastlingSide::KingSide),
            'Q' => (Color::White, CastlingSide::QueenSide),
            'k' => (Color::Black, CastlingSide::KingSide),
            'q' => (Color::Black, CastlingSide::QueenSide),
            _ => {
                return Err(field_error(
                    FenField::Castling,
                    format!("`{}` is not one of K, Q, k, q (or - alone for no rights)", excerpt(&c.to_string())),
                ));
            }
        };
        if rights.has(color, side) {
            return Err(field_error(FenField::Castling, format!("`{c}` appears twice")));
        }
        rights = rights.set(color, side, true);
    }
    Ok(rights)
}

fn parse_en_passant(text: &str, turn: Color) -> Result<Option<Square>, FenError> {
    if text == "-" {
        return Ok(None);
    }
    let sq: Square = text
        .parse()
        .map_err(|_| field_error(FenField::EnPassant, format!("`{}` is not a square (like e3) or -", excerpt(text))))?;
    // The skipped square lies behind the pawn that just moved: rank 3 after a White two-step
    // (Black to move), rank 6 after a Black one.
    let expected_rank = match turn {
        Color::White => 5,
        Color::Black => 2,
    };
    if sq.rank() != expected_rank {
        return Err(field_error(
            FenField::EnPassant,
            format!("{sq} is not on rank {} (the rank {turn} captures en passant onto)", expected_rank + 1),
        ));
    }
    Ok(Some(sq))
}

fn parse_counter(text: &str, field: FenField, minimum: u32) -> Result<u32, FenError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(field_error(field, format!("`{}` is not a whole number", excerpt(text))));
    }
    let value: u32 = text.parse().map_err(|_| field_error(field, format!("`{}` is too large", excerpt(text))))?;
    if value < minimum {
        return Err(field_error(field, format!("must be at least {minimum}, got {value}")));
    }
    Ok(value)
}

impl FromStr for Fen {
    type Err = FenError;

    fn from_str(text: &str) -> Result<Fen, FenError> {
        let fields: Vec<&str> = text.split_ascii_whitespace().collect();
        if fields.len() != 4 && fields.len() != 6 {
            return Err(FenError::FieldCount(fields.len()));
        }
        let board = parse_placement(fields[0])?;
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(field_error(FenField::SideToMove, format!("expected w or b, got `{}`", excerpt(other))));
            }
        };
        let castling = parse_castling(fields[2])?;
        let en_passant = parse_en_passant(fields[3], turn)?;
        let (halfmove_clock, fullmove_number) = if fields.len() == 6 {
            (
                parse_counter(fields[4], FenField::HalfmoveClock, 0)?,
                parse_counter(fields[5], FenField::FullmoveNumber, 1)?,
            )
        } else {
            (0, 1)
        };
        Ok(Fen { board, turn, castling, en_passant, halfmove_clock, fullmove_number })
    }
}

impl fmt::Display for Fen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.piece_at(rank_file(rank, file)) {
                    Some(piece) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        write!(f, "{}", piece.char())?;
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_str("/")?;
            }
        }
        write!(f, " {} {} ", self.turn.char(), self.castling)?;
        match self.en_passant {
            Some(sq) => write!(f, "{sq}")?,
            None => f.write_str("-")?,
        }
        write!(f, " {} {}", self.halfmove_clock, self.fullmove_number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_round_trips() {
        let fen: Fen = START_FEN.parse().expect("the start FEN parses");
        assert_eq!(fen, Fen::start());
        assert_eq!(fen.to_string(), START_FEN);
        assert_eq!(fen.occupancy(), Bitboard::START);
        assert_eq!(fen.ply(), 0);
    }

    #[test]
    fn four_fields_default_the_counters() {
        let fen: Fen = "4k3/8/8/8/8/8/8/4K3 b - -".parse().expect("four fields");
        assert_eq!(fen.to_string(), "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
        assert_eq!(fen.ply(), 1);
    }

    #[test]
    fn huge_counters_parse_and_saturate_the_ply() {
        let fen: Fen = "4k3/8/8/8/8/8/8/4K3 b - - 4294967295 4294967295".parse().expect("u32 counters");
        assert_eq!(fen.ply(), u32::MAX);
        assert_eq!(fen.to_string(), "4k3/8/8/8/8/8/8/4K3 b - - 4294967295 4294967295");
    }

    #[test]
    fn extra_whitespace_is_tolerated() {
        let fen: Fen = "  4k3/8/8/8/8/8/8/4K3   w  -  -  3  7 ".parse().expect("spaces");
        assert_eq!((fen.halfmove_clock, fen.fullmove_number, fen.ply()), (3, 7, 12));
    }

    #[test]
    fn errors_name_the_field_and_the_problem() {
        let cases = [
            ("", "expected 6 space-separated fields"),
            ("8/8/8/8/8/8/8/8 w - - 0", "got 5"),
            ("8/8/8/8/8/8/8 w - - 0 1", "piece placement: expected 8 ranks separated by '/', got 7"),
            ("8/8/8/8/8/8/8/9 w - - 0 1", "piece placement: rank 1: `9` is not a count"),
            ("8/8/8/8/8/8/8/0 w - - 0 1", "piece placement: rank 1: `0` is not a count"),
            ("8/8/8/8/8/8/8/44 w - - 0 1", "two digits in a row"),
            ("8/8/8/8/8/8/7/8 w - - 0 1", "piece placement: rank 2 has 7 files"),
            ("8/8/8/8/8/8/8/ppppppppp w - - 0 1", "piece placement: rank 1 has 9 files"),
            ("x7/8/8/8/8/8/8/8 w - - 0 1", "piece placement: rank 8: `x` is not a piece letter"),
            ("8/8/8/8/8/8/8/8 x - - 0 1", "side to move: expected w or b, got `x`"),
            ("8/8/8/8/8/8/8/8 w KK - 0 1", "castling: `K` appears twice"),
            ("8/8/8/8/8/8/8/8 w A - 0 1", "castling: `A` is not one of K, Q, k, q"),
            ("8/8/8/8/8/8/8/8 w -K - 0 1", "castling: `-` is not one of"),
            ("8/8/8/8/8/8/8/8 w - e9 0 1", "en passant: `e9` is not a square"),
            ("8/8/8/8/8/8/8/8 w - e3 0 1", "en passant: e3 is not on rank 6"),
            ("8/8/8/8/8/8/8/8 b - e6 0 1", "en passant: e6 is not on rank 3"),
            ("8/8/8/8/8/8/8/8 w - - -1 1", "halfmove clock: `-1` is not a whole number"),
            ("8/8/8/8/8/8/8/8 w - - 99999999999 1", "halfmove clock: `99999999999` is too large"),
            ("8/8/8/8/8/8/8/8 w - - 0 0", "fullmove number: must be at least 1, got 0"),
            ("8/8/8/8/8/8/8/8 w - - 0 x", "fullmove number: `x` is not a whole number"),
        ];
        for (text, expected) in cases {
            let err = text.parse::<Fen>().expect_err(text).to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }

    #[test]
    fn non_ascii_letters_are_rejected_not_misread() {
        // `K` (Kelvin sign) lower-cases to an ASCII k in Unicode; it must not count as a king.
        let err = "\u{212A}7/8/8/8/8/8/8/8 w - - 0 1".parse::<Fen>().expect_err("kelvin sign");
        assert!(err.to_string().contains("is not a piece letter"), "{err}");
    }
}
