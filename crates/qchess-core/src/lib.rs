//! Quantum Chess vocabulary and rules: squares, bitboards, pieces, castling, FEN, official
//! notation, position strings, typed moves, the legal moves of the official game, classical
//! chess with perft, and the [`QuantumBoard`] seam that every backend implements.
//!
//! This crate is the bottom of the workspace: it depends on no other qchess crate.
//!
//! ```
//! use qchess_core::{Position, PositionSpec};
//!
//! let spec: PositionSpec = "startpos".parse()?;
//! let position = Position::from_fen(&spec.start.to_fen())?;
//! let split = position.parse_move("b1^a3c3")?;
//! assert_eq!(split.typed.to_string(), "b1^a3c3:SPLIT_JUMP:BASIC");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bitboard;
pub mod calendar;
mod castling;
pub mod classical;
mod color;
pub mod fen;
pub mod notation;
mod piece;
pub mod position;
pub mod position_spec;
pub mod quantum_board;
mod role;
pub mod setting;
mod square;
pub mod text;
pub mod typed_move;

pub use bitboard::{Bitboard, BitboardIter};
pub use castling::{CastlingRights, CastlingSide};
pub use color::Color;
pub use fen::{Fen, FenError, FenField, START_FEN};
pub use notation::{AlgebraicMove, Notation, ParseMoveError};
pub use piece::Piece;
pub use position::{Illegal, IllegalMove, LegalMove, MoveError, Occupancy, Position, PositionError};
pub use position_spec::{ParsePositionError, PositionSpec, StartPosition};
pub use quantum_board::{BoardError, MoveReport, QuantumBoard, SquarePairDensity, SquareProbabilities};
pub use role::Role;
pub use square::{ParseSquareError, Square};
pub use typed_move::{MoveSquares, MoveType, MoveVariant, ParseTypedMoveError, Shape, TypedMove, TypedMoveProblem};
