//! State-vector simulators for circuits in the `qchess-circuit` IR.
//!
//! * [`sparse`]: a map from basis states to amplitudes, exact and fast while few basis states
//!   are populated; it backs the local quantum board.
//! * [`dense`]: a full `2^n` amplitude vector for general circuits.
//! * [`auto`]: runs a general circuit sparsely while that pays off, densely otherwise.
//! * [`local_board`]: the exact local [`QuantumBoard`](qchess_core::QuantumBoard), the move
//!   compiler driving the sparse simulator.
//!
//! ```
//! use qchess_core::{Bitboard, QuantumBoard, Square, TypedMove};
//! use qchess_sim::local_board::LocalBoard;
//!
//! // A knight split onto a3 and c3 is on each with probability 1/2, exactly.
//! let mut board = LocalBoard::new(Bitboard::from_square(Square::B1));
//! board.apply(&"b1^a3c3:SPLIT_JUMP:BASIC".parse::<TypedMove>()?)?;
//! let probabilities = board.square_probabilities()?;
//! assert_eq!(probabilities.standard_errors, None);
//! assert!((probabilities.get(Square::A3) - 0.5).abs() < 1e-12);
//! assert!((probabilities.get(Square::C3) - 0.5).abs() < 1e-12);
//! // Two boards, one with the knight on a3 and one with it on c3.
//! assert_eq!(board.distribution()?.len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Depends on `qchess-core` and `qchess-circuit`.

pub mod auto;
mod canonical;
pub mod deadline;
pub mod dense;
pub mod local_board;
pub mod sparse;
