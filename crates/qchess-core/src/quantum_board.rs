//! The seam between the classical game and a quantum backend.
//!
//! A [`QuantumBoard`] is an occupancy-level quantum board: it knows nothing of piece types. It
//! takes [`TypedMove`]s, says whether each went ahead, and answers occupancy probabilities. The
//! local simulator implements it exactly; a remote provider implements it by sampling.

use num_complex::Complex64;
use thiserror::Error;

use crate::{Bitboard, Square, TypedMove};

/// Probabilities at or within this distance of 0 or 1 count as certain.
pub const CERTAINTY_TOLERANCE: f64 = 1e-9;

/// What happened when a quantum board ran one move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveReport {
    /// Whether the move went ahead: its measurement said m1, or it measured nothing.
    pub proceeded: bool,
    /// The outcome of the move's measurement (`true` = m1), when its type and variant made one.
    pub outcome: Option<bool>,
    /// The probability that outcome had before it happened; `None` when the move measured
    /// nothing or only classical squares, so the outcome was certain.
    pub outcome_probability: Option<f64>,
}

/// Occupancy probability of each square, indexed by square, with an optional standard error
/// for backends that estimate them from samples.
#[derive(Debug, PartialEq)]
pub struct SquareProbabilities {
    /// Probability that each square is occupied.
    pub probabilities: [f64; 64],
    /// Standard error of each probability; `None` when they are exact. Boxed, so that exact
    /// probabilities (what a search copies at every move) carry no second table.
    pub standard_errors: Option<Box<[f64; 64]>>,
}

impl Clone for SquareProbabilities {
    fn clone(&self) -> SquareProbabilities {
        SquareProbabilities { probabilities: self.probabilities, standard_errors: self.standard_errors.clone() }
    }

    /// Copies in place: a search copies the probabilities at every move.
    fn clone_from(&mut self, source: &SquareProbabilities) {
        let SquareProbabilities { probabilities, standard_errors } = source;
        self.probabilities = *probabilities;
        self.standard_errors.clone_from(standard_errors);
    }
}

impl SquareProbabilities {
    /// Exact probabilities.
    pub fn exact(probabilities: [f64; 64]) -> SquareProbabilities {
        SquareProbabilities { probabilities, standard_errors: None }
    }

    /// The probabilities of a classical occupancy: 1 on its squares, 0 elsewhere.
    pub fn classical(occupancy: Bitboard) -> SquareProbabilities {
        let mut probabilities = [0.0; 64];
        for sq in occupancy {
            probabilities[usize::from(sq)] = 1.0;
        }
        SquareProbabilities::exact(probabilities)
    }

    /// Probability that `sq` is occupied.
    pub fn get(&self, sq: Square) -> f64 {
        self.probabilities[usize::from(sq)]
    }

    /// Squares that are certainly occupied.
    pub fn certainly_full(&self) -> Bitboard {
        Square::ALL.into_iter().filter(|&sq| self.get(sq) >= 1.0 - CERTAINTY_TOLERANCE).collect()
    }

    /// Squares that are certainly empty.
    pub fn certainly_empty(&self) -> Bitboard {
        Square::ALL.into_iter().filter(|&sq| self.get(sq) <= CERTAINTY_TOLERANCE).collect()
    }

    /// Squares in superposition: neither certainly empty nor certainly full.
    pub fn superposed(&self) -> Bitboard {
        !(self.certainly_full() | self.certainly_empty())
    }

    /// Expected number of pieces on the board: the sum of all probabilities.
    pub fn expected_piece_count(&self) -> f64 {
        self.probabilities.iter().sum()
    }
}

/// The reduced density matrix of the occupancy of two squares, everything else traced out.
///
/// Rows and columns are the basis states `|x y>` of the two squares in the order `|00>`, `|01>`,
/// `|10>`, `|11>` (index `2 * x + y`), where `x` is the first square's occupancy (1 = occupied)
/// and `y` the second's. A square without a qubit contributes its classical value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SquarePairDensity {
    /// The first square (`x`, the left of each ket).
    pub first: Square,
    /// The second square (`y`, the right of each ket).
    pub second: Square,
    /// The matrix entries `rho[row][column]`.
    pub matrix: [[Complex64; 4]; 4],
}

impl SquarePairDensity {
    /// The density matrix of a product of two classical occupancies.
    pub fn classical(first: Square, second: Square, first_full: bool, second_full: bool) -> SquarePairDensity {
        let mut matrix = [[Complex64::new(0.0, 0.0); 4]; 4];
        let index = 2 * usize::from(first_full) + usize::from(second_full);
        matrix[index][index] = Complex64::new(1.0, 0.0);
        SquarePairDensity { first, second, matrix }
    }
}

/// Why a quantum board could not do what was asked. The move variants keep the move's text for
/// callers, but their messages leave it out: whoever names the move says it once.
#[derive(Debug, Error)]
pub enum BoardError {
    /// A forced (or replayed) outcome has probability 0 in the current state.
    #[error("outcome m{} has probability 0 here", u8::from(*.outcome))]
    ImpossibleOutcome {
        /// The move, as text.
        mv: String,
        /// The outcome that was asked for.
        outcome: bool,
    },
    /// An outcome was forced on a move that makes no measurement.
    #[error("an outcome was given but this move makes no measurement")]
    NoMeasurement {
        /// The move, as text.
        mv: String,
    },
    /// The move cannot be run as given (for example, a slide whose squares are not on a line).
    #[error("{reason}")]
    InvalidMove {
        /// The move, as text.
        mv: String,
        /// What is wrong.
        reason: String,
    },
    /// The state would grow past the configured number of basis states.
    #[error("the quantum state would need {needed} basis states, more than the limit of {limit}")]
    StateTooLarge {
        /// How many basis states the next step needs (at least).
        needed: usize,
        /// The configured cap.
        limit: usize,
    },
    /// There is no move to undo.
    #[error("there is no move to undo")]
    NothingToUndo,
    /// The backend cannot answer this kind of question (for example, a sampling backend
    /// asked for the phases of a density matrix).
    #[error("this backend cannot give {what}")]
    Unsupported {
        /// What was asked for.
        what: String,
    },
    /// A remote or otherwise external backend failed; the source says how.
    #[error("the backend failed")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// An occupancy-level quantum board, local or remote.
///
/// Queries take `&mut self` because a sampling backend runs (and caches) jobs to answer them.
pub trait QuantumBoard {
    /// Starts over from a classical occupancy, forgetting all moves.
    fn init(&mut self, occupancy: Bitboard) -> Result<(), BoardError>;

    /// Runs one typed move. `mv.outcome`, when given, forces the measurement outcome.
    fn apply(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError>;

    /// Restores the exact state from before the last move; random outcomes are not re-drawn.
    fn undo(&mut self) -> Result<(), BoardError>;

    /// Occupancy probability of every square.
    fn square_probabilities(&mut self) -> Result<SquareProbabilities, BoardError>;

    /// Probability of each board occupancy with nonzero probability, most likely first.
    fn distribution(&mut self) -> Result<Vec<(Bitboard, f64)>, BoardError>;

    /// `shots` occupancies drawn from the current state.
    fn sample(&mut self, shots: usize) -> Result<Vec<Bitboard>, BoardError>;

    /// For a sampling backend, the shot counts behind [`distribution`](Self::distribution):
    /// each board with the number of (post-selected) shots that showed it. `None` when the
    /// answer is exact, which is what this default says.
    fn distribution_counts(&mut self) -> Result<Option<Vec<(Bitboard, u64)>>, BoardError> {
        Ok(None)
    }

    /// Number of basis states (or distinct sampled boards) the backend currently holds.
    fn state_size(&self) -> usize;

    /// Whether probabilities are exact (a simulator) rather than estimated from shots.
    fn is_exact(&self) -> bool;

    /// The reduced density matrix of two different squares' occupancy (see
    /// [`SquarePairDensity`]). Backends that keep no amplitudes answer
    /// [`BoardError::Unsupported`], which is what this default does.
    fn pair_density(&mut self, first: Square, second: Square) -> Result<SquarePairDensity, BoardError> {
        let _ = (first, second);
        Err(BoardError::Unsupported { what: "two-square density matrices".to_owned() })
    }
}

/// A boxed board is a board, so code that takes any `QuantumBoard` also takes a
/// `Box<dyn QuantumBoard>`.
impl<B: QuantumBoard + ?Sized> QuantumBoard for Box<B> {
    fn init(&mut self, occupancy: Bitboard) -> Result<(), BoardError> {
        (**self).init(occupancy)
    }

    fn apply(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError> {
        (**self).apply(mv)
    }

    fn undo(&mut self) -> Result<(), BoardError> {
        (**self).undo()
    }

    fn square_probabilities(&mut self) -> Result<SquareProbabilities, BoardError> {
        (**self).square_probabilities()
    }

    fn distribution(&mut self) -> Result<Vec<(Bitboard, f64)>, BoardError> {
        (**self).distribution()
    }

    fn sample(&mut self, shots: usize) -> Result<Vec<Bitboard>, BoardError> {
        (**self).sample(shots)
    }

    fn distribution_counts(&mut self) -> Result<Option<Vec<(Bitboard, u64)>>, BoardError> {
        (**self).distribution_counts()
    }

    fn state_size(&self) -> usize {
        (**self).state_size()
    }

    fn is_exact(&self) -> bool {
        (**self).is_exact()
    }

    fn pair_density(&mut self, first: Square, second: Square) -> Result<SquarePairDensity, BoardError> {
        (**self).pair_density(first, second)
    }
}
