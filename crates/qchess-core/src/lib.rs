//! Quantum Chess vocabulary: squares, bitboards, pieces, castling, typed moves and the
//! [`QuantumBoard`] seam that every backend implements.
//!
//! This crate is the bottom of the workspace: it depends on no other qchess crate.

mod bitboard;
mod castling;
mod color;
mod piece;
pub mod quantum_board;
mod role;
mod square;
pub mod typed_move;

pub use bitboard::{Bitboard, BitboardIter};
pub use castling::{CastlingRights, CastlingSide};
pub use color::Color;
pub use piece::Piece;
pub use quantum_board::{BoardError, MoveReport, QuantumBoard, SquareProbabilities};
pub use role::Role;
pub use square::{ParseSquareError, Square};
pub use typed_move::{MoveSquares, MoveType, MoveVariant, ParseTypedMoveError, Shape, TypedMove, TypedMoveProblem};
