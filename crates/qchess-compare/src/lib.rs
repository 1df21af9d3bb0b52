//! Comparing backends: run the same game or circuits on two backends and test, with
//! statistics one can trust, whether their outcome distributions agree.
//!
//! - [`backend`]: the [`Backend`] trait a comparison runs on (boards for games, circuit runs).
//! - [`game`]: one game on an exact reference and two backends, outcomes pinned for both.
//! - [`circuits`]: one circuit on two backends, read on its measured bits.
//! - [`observation`]: what one backend showed for one move or circuit (exact or counts).
//! - [`stats`]: the tests, distances, intervals and the multiple-testing correction.
//! - [`report`]: the verdict, JSON and Markdown; [`plots`]: SVG charts.
//!
//! Depends on `qchess-core`, `qchess-circuit`, `qchess-sim` (the exact reference and the dense
//! simulator) and `qchess-engine` (the game tracker and records).

pub mod backend;
pub mod circuits;
mod error;
pub mod game;
pub mod observation;
pub mod plots;
pub mod report;
pub mod stats;

pub use backend::Backend;
pub use error::CompareError;
pub use report::{Report, Settings};
