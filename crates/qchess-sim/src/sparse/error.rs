//! Why the sparse simulator refused an operation.

use qchess_circuit::ir::Qubit;
use qchess_core::BoardError;
use thiserror::Error;

/// Why a [`SparseState`](super::SparseState) operation failed. The state is unchanged whenever
/// one of these is returned.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SimError {
    /// The state would grow past the configured number of basis states.
    #[error("the quantum state would need at least {needed} basis states, more than the limit of {limit}")]
    StateTooLarge {
        /// How many basis states the operation needed when it stopped (a lower bound).
        needed: usize,
        /// The configured cap.
        limit: usize,
    },
    /// A forced (or post-selected) measurement outcome has probability 0.
    #[error("qubit {} cannot read {}: that outcome has probability 0", .qubit.0, u8::from(*.value))]
    ImpossibleOutcome {
        /// The measured qubit.
        qubit: Qubit,
        /// The value that was asked for.
        value: bool,
    },
    /// An operation names a qubit that is not in the state (never added, or retired).
    #[error("qubit {} is not in the state (never added, or retired)", .0.0)]
    UnknownQubit(Qubit),
    /// A qubit was added twice.
    #[error("qubit {} is already in the state", .0.0)]
    QubitExists(Qubit),
    /// A qubit was asked to sit at a key position that another qubit or branch label holds.
    #[error("key position {position} is already taken")]
    PositionTaken {
        /// The position asked for.
        position: u8,
    },
    /// More than 128 qubits (with branch labels) would be live at once.
    #[error("more than 128 live qubits and branch labels")]
    OutOfPositions,
    /// A gate is malformed: wrong number of targets, or a qubit used twice.
    #[error("malformed gate: {0}")]
    MalformedGate(String),
    /// A classical condition names a register that does not exist.
    #[error("classical register {0} does not exist")]
    UnknownRegister(usize),
}

impl From<SimError> for BoardError {
    fn from(error: SimError) -> BoardError {
        match error {
            SimError::StateTooLarge { needed, limit } => BoardError::StateTooLarge { needed, limit },
            other => BoardError::Backend(Box::new(other)),
        }
    }
}
