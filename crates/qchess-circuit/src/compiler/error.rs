//! Why a move could not be compiled.

use qchess_core::BoardError;
use thiserror::Error;

/// Why [`Register::begin`](super::Register::begin) or [`Register::resolve`](super::Register::resolve)
/// refused. Nothing is appended to the circuit when one of these is returned.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CompileError {
    /// The move's squares do not fit its type (for example en passant that does not land on the
    /// third or sixth rank, or a castle with the CAPTURE variant).
    #[error("move {mv}: {reason}")]
    InvalidMove {
        /// The move, as text.
        mv: String,
        /// What is wrong.
        reason: String,
    },
    /// An outcome was forced on a move whose type and variant make no measurement.
    #[error("move {mv}: an outcome was given but this move makes no measurement")]
    NoMeasurement {
        /// The move, as text.
        mv: String,
    },
    /// The forced outcome contradicts a measurement of classical squares, whose result is certain.
    #[error("move {mv}: outcome m{} has probability 0 here", u8::from(*.outcome))]
    ImpossibleOutcome {
        /// The move, as text.
        mv: String,
        /// The outcome that was asked for.
        outcome: bool,
    },
    /// The driver resolved a measurement against the outcome the move forces.
    #[error("move {mv}: the outcome m{} contradicts the forced outcome", u8::from(*.outcome))]
    ContradictsForcedOutcome {
        /// The move, as text.
        mv: String,
        /// The outcome the driver gave.
        outcome: bool,
    },
    /// A move was begun while another one still waits for its measurement outcome.
    #[error("move {mv}: move {pending} still waits for its measurement outcome")]
    MeasurementPending {
        /// The move that waits.
        pending: String,
        /// The move that was begun.
        mv: String,
    },
    /// An outcome was given but no move waits for one.
    #[error("no move waits for a measurement outcome")]
    NothingPending,
}

impl From<CompileError> for BoardError {
    fn from(error: CompileError) -> BoardError {
        match error {
            CompileError::InvalidMove { mv, reason } => BoardError::InvalidMove { mv, reason },
            CompileError::NoMeasurement { mv } => BoardError::NoMeasurement { mv },
            CompileError::ImpossibleOutcome { mv, outcome } => BoardError::ImpossibleOutcome { mv, outcome },
            other @ (CompileError::ContradictsForcedOutcome { .. }
            | CompileError::MeasurementPending { .. }
            | CompileError::NothingPending) => BoardError::Backend(Box::new(other)),
        }
    }
}
