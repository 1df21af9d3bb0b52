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
//! simulator) and `qchess-engine` (the game tracker and records). Backends come from the
//! caller (the `qchess` binary maps `--backend` flags to them).
//!
//! ```
//! use qchess_compare::observation::Observation;
//! use qchess_compare::stats::pair::{PairOptions, compare};
//! use qchess_compare::stats::holm::holm_adjusted;
//!
//! // A split knight: exact on one backend, 1000 shots on the other, for two moves.
//! let exact = Observation::exact([(0b01, 0.5), (0b10, 0.5)])?;
//! let fair = Observation::counts([(0b01, 489), (0b10, 511)])?;
//! let broken = Observation::counts([(0b01, 489), (0b10, 461), (0b11, 50)])?;
//! let options = PairOptions::default();
//! let p = [compare(&exact, &fair, &options, 0).p_value, compare(&exact, &broken, &options, 0).p_value];
//! let adjusted = holm_adjusted(&p);
//! assert!(adjusted[0] > 0.01 && adjusted[1] <= 0.01); // only the second move differs
//! # Ok::<(), qchess_compare::observation::ObservationError>(())
//! ```

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
