//! What can go wrong in a comparison.

use std::path::PathBuf;

use qchess_core::BoardError;
use thiserror::Error;

use crate::observation::ObservationError;

/// Why a comparison could not be run.
#[derive(Debug, Error)]
pub enum CompareError {
    /// A game cannot be set up or replayed on the exact reference (a bad record, an illegal
    /// move, a pinned outcome of probability 0).
    #[error("{game}: {reason}")]
    Game {
        /// The game's name.
        game: String,
        /// What is wrong.
        reason: String,
    },
    /// A backend failed to run a move or answer a query.
    #[error("{item}: backend {backend}")]
    Board {
        /// The game or circuit.
        item: String,
        /// The backend's label.
        backend: String,
        /// What the board said.
        #[source]
        source: BoardError,
    },
    /// A circuit cannot be compared (it measures mid-way, resets, or is too large).
    #[error("{item}: {reason}")]
    Circuit {
        /// The circuit's name.
        item: String,
        /// What is wrong.
        reason: String,
    },
    /// A backend failed to run a circuit.
    #[error("{item}: backend {backend}: {reason}")]
    Run {
        /// The circuit's name.
        item: String,
        /// The backend's label.
        backend: String,
        /// What went wrong.
        reason: String,
    },
    /// A backend's answer is not a distribution.
    #[error("{item}: backend {backend}")]
    Observation {
        /// The game or circuit.
        item: String,
        /// The backend's label.
        backend: String,
        /// What is wrong with the numbers.
        #[source]
        source: ObservationError,
    },
    /// A plot could not be drawn or written.
    #[error("plot {}: {reason}", .path.display())]
    Plot {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// Nothing was given to compare.
    #[error("nothing to compare: give games or circuits")]
    Empty,
}

impl CompareError {
    /// Whether the user's input is at fault (a bad game or circuit) rather than a backend or
    /// the file system.
    pub fn is_input_error(&self) -> bool {
        matches!(self, CompareError::Game { .. } | CompareError::Circuit { .. } | CompareError::Empty)
    }
}
