//! Why a workload failed.

use qchess_core::Square;
use qchess_engine::GameError;
use qchess_sim::dense::DenseError;
use thiserror::Error;

/// Why a benchmark workload could not finish, or finished with a wrong answer.
#[derive(Debug, Error)]
pub enum BenchError {
    /// The routing workload could not build, route or compare a circuit.
    #[error("routing: {0}")]
    Routing(String),
    /// The search or search-depth workload could not set up a position or search it.
    #[error("search workload: {0}")]
    Search(String),
    /// A workload name that does not exist.
    #[error("unknown workload `{}`; the workloads are {known}", qchess_core::text::excerpt(.name))]
    UnknownWorkload {
        /// The name given.
        name: String,
        /// The valid names, comma-separated.
        known: String,
    },
    /// A game refused or failed a move it should have taken.
    #[error("{workload}, game {game}, ply {ply}")]
    Game {
        /// The workload.
        workload: String,
        /// The game's index in the workload.
        game: usize,
        /// The ply (from 1) at which it failed.
        ply: usize,
        /// What the game said.
        #[source]
        source: GameError,
    },
    /// A fixed sequence produced another outcome or probability than the one pinned for it.
    #[error("fixed sequence `{sequence}`, repetition {repetition}: {what}")]
    Unpinned {
        /// The sequence's name.
        sequence: String,
        /// Which repetition (from 0).
        repetition: usize,
        /// What differed.
        what: String,
    },
    /// The sparse and dense simulators disagree on a square's probability.
    #[error(
        "{workload}, game {game}, ply {ply}: {square} has probability {sparse} on the local board but {dense} on the dense simulator"
    )]
    CrossCheck {
        /// The workload.
        workload: String,
        /// The game's index.
        game: usize,
        /// The ply checked.
        ply: usize,
        /// The square that disagrees.
        square: Square,
        /// The local (sparse) board's probability.
        sparse: f64,
        /// The dense simulator's probability.
        dense: f64,
    },
    /// The dense simulator failed.
    #[error("{workload}: the dense simulator failed")]
    Dense {
        /// The workload.
        workload: String,
        /// What it said.
        #[source]
        source: DenseError,
    },
    /// Unitary gates changed the norm of a dense state beyond rounding.
    #[error("dense: the norm of the {qubits}-qubit state drifted to {norm} after {gates} unitary gates")]
    NormDrift {
        /// Qubits of the state.
        qubits: usize,
        /// Gates applied.
        gates: usize,
        /// The squared norm at the end (1 before).
        norm: f64,
    },
    /// The growth workload did not behave as the state cap promises.
    #[error("growth: {0}")]
    Growth(String),
    /// Two configurations of one simulator gave different answers on the same circuit.
    #[error("dense-circuits: {what}")]
    Mismatch {
        /// Which configuration, and by how much.
        what: String,
    },
    /// A file could not be written.
    #[error("{what}: {detail}")]
    Io {
        /// What was being done.
        what: String,
        /// What the system said.
        detail: String,
    },
}

impl BenchError {
    /// A search workload's failure, with the error's causes.
    pub(crate) fn search(error: &(impl std::error::Error + 'static)) -> BenchError {
        BenchError::Search(qchess_core::text::with_causes(error))
    }
}
