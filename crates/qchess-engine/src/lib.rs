//! The Quantum Chess game engine: a classical tracker on top of any quantum board.
//!
//! - [`Game`]: official notation in, legality and classification by the rules, the typed move
//!   run on a [`QuantumBoard`](qchess_core::QuantumBoard) (the exact local simulator by
//!   default), the outcome fed back into pieces, castling rights, en passant, counters and the
//!   end of the game; exact undo. [`GameOptions`] are the official engine's options plus the
//!   [`RuleSet`].
//! - [`rules`]: one [`Rules`] implementation per rule set (official, classical, observer, checkmate): legal moves,
//!   what a move does on the board, and how the game ends.
//! - [`record`]: game records (PGN-style tags and movetext with every measurement outcome),
//!   parsed with line and column in errors, printed so they parse back, saved atomically, and
//!   replayed with every recorded outcome forced.
//! - [`analysis`]: Bell correlations and log negativity between squares.
//! - [`ai`]: a seeded random mover.
//! - [`clock`]: Fischer chess clocks (`5+3`) and the PGN clock comment `[%clk H:MM:SS]`.
//! - [`diagram`]: a terminal board with each square's piece and probability.
//!
//! Depends on `qchess-core` (rules, notation) and `qchess-sim` (the local board).
//!
//! ```
//! use qchess_engine::{EndReason, Game, GameResult, MoveCode};
//!
//! // The official engine's example: kings split, nobody is captured.
//! let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1".parse()?;
//! let mut game = Game::new(&fen, Default::default())?;
//! game.play("e1^e2d1")?;
//! let reply = game.play("e8^d8f8")?;
//! assert_eq!(reply.code, MoveCode::Success);
//! assert!((game.probability("d8".parse()?) - 0.5).abs() < 1e-12);
//! assert_eq!(game.result(), GameResult::Ongoing);
//! # let _ = EndReason::KingCaptured;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod ai;
pub mod analysis;
pub mod clock;
pub mod diagram;
mod error;
pub mod game;
mod options;
mod outcome;
pub mod record;
pub mod rules;
pub mod tracker;

pub use error::GameError;
pub use game::{Game, GameBoard, ModeChange, ParseModeError, PlayedMove, Turn};
pub use options::GameOptions;
pub use outcome::{EndReason, GameEnd, GameResult, MoveCode, ParseResultError};
pub use rules::{ParseRuleSetError, RuleSet, RuleViolation, Rules};
