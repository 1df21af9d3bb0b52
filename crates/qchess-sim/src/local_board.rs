//! The local quantum board: the move compiler driving the exact sparse simulator.
//!
//! [`LocalBoard`] implements [`QuantumBoard`]. Each typed move is compiled into the register's
//! accumulated circuit; every new op is applied to the [`SparseState`] at once, and the move's
//! measurement is decided there exactly (forced, or drawn from a seeded ChaCha generator).
//! Square `s`'s current qubit sits at key position `s`, so the low word of every basis state is
//! the quantum part of a bitboard; qubits the register no longer uses are retired after each move.
//!
//! Undo restores the exact earlier state without drawing anything again: a small state is kept
//! as a snapshot every few moves ([`SNAPSHOT_INTERVAL`]) within a fixed budget, and the rest is
//! rebuilt by replaying the recorded moves (with their recorded outcomes) from the nearest
//! snapshot or from the start. Moves in between cost no copy of the state.
//!
//! ```
//! use qchess_core::{Bitboard, QuantumBoard, Square, TypedMove};
//! use qchess_sim::local_board::LocalBoard;
//!
//! let mut board = LocalBoard::new(Bitboard::from_square(Square::B1));
//! board.apply(&"b1^a3c3:SPLIT_JUMP:BASIC".parse::<TypedMove>()?)?;
//! let probabilities = board.square_probabilities()?;
//! assert!((probabilities.get(Square::A3) - 0.5).abs() < 1e-12);
//!
//! // Merging back brings the whole piece home (the phases interfere).
//! board.apply(&"a3c3^b1:MERGE_JUMP:BASIC".parse::<TypedMove>()?)?;
//! assert!((board.square_probabilities()?.get(Square::B1) - 1.0).abs() < 1e-12);
//! board.undo()?;
//! assert_eq!(board.distribution()?.len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod density;

use qchess_circuit::compiler::{Checkpoint, Register, Step};
use qchess_circuit::ir::{Circuit, Op, Qubit, QubitRole};
use qchess_core::{
    Bitboard, BoardError, MoveReport, QuantumBoard, Square, SquarePairDensity, SquareProbabilities, TypedMove,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::sparse::{DEFAULT_STATE_CAP, IMPOSSIBLE_PROBABILITY, SimError, SparseState};

/// A snapshot is taken before a move when none of the previous `SNAPSHOT_INTERVAL - 1` moves
/// has one, so undo replays at most that many moves after a snapshot of a small state.
pub const SNAPSHOT_INTERVAL: usize = 8;
/// Largest state (in basis states) kept as an undo snapshot.
const SNAPSHOT_MAX_STATES: usize = 1 << 14;
/// Default total of basis states kept in undo snapshots (32 bytes each).
pub const DEFAULT_SNAPSHOT_BUDGET: usize = 1 << 20;

/// How a [`LocalBoard`] is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalBoardOptions {
    /// Seed of the ChaCha generator that draws unforced measurement outcomes and samples.
    pub seed: u64,
    /// Largest number of basis states the simulator may hold.
    pub state_cap: usize,
    /// Total basis states kept in undo snapshots (older ones are dropped beyond it); moves
    /// without a snapshot are undone by replaying recorded outcomes. 0 always replays.
    pub snapshot_budget: usize,
    /// A snapshot is taken before a move when none of the previous `snapshot_interval - 1`
    /// moves has one ([`SNAPSHOT_INTERVAL`] by default). 1 snapshots every move, so undo never
    /// replays: what a search, which undoes every move it tries, wants.
    pub snapshot_interval: usize,
    /// Threads for gates and probabilities on states of at least 2^16 basis states (see
    /// [`SparseState::set_threads`]); results do not depend on it.
    pub threads: usize,
}

impl Default for LocalBoardOptions {
    fn default() -> LocalBoardOptions {
        LocalBoardOptions {
            seed: 0,
            state_cap: DEFAULT_STATE_CAP,
            snapshot_budget: DEFAULT_SNAPSHOT_BUDGET,
            snapshot_interval: SNAPSHOT_INTERVAL,
            threads: 1,
        }
    }
}

/// The empty state with the cap and threads of `options`.
fn new_state(options: &LocalBoardOptions) -> SparseState {
    let mut state = SparseState::with_cap(options.state_cap);
    state.set_threads(options.threads);
    state
}

/// One applied move, as recorded for undo and replay.
#[derive(Debug, Clone)]
pub struct AppliedMove {
    /// The move with the outcome that happened (when it measured), so it replays exactly.
    pub mv: TypedMove,
    /// What happened.
    pub report: MoveReport,
    before: Checkpoint,
    snapshot: Option<Box<SparseState>>,
}

/// An exact, stateful occupancy board: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct LocalBoard {
    options: LocalBoardOptions,
    initial: Bitboard,
    register: Register,
    state: SparseState,
    rng: ChaCha8Rng,
    /// How many circuit ops and qubits the state has taken in.
    applied_ops: usize,
    known_qubits: usize,
    history: Vec<AppliedMove>,
    snapshot_states: usize,
}

impl LocalBoard {
    /// A board with the default options (seed 0, cap 2^22).
    pub fn new(occupancy: Bitboard) -> LocalBoard {
        LocalBoard::with_options(occupancy, LocalBoardOptions::default())
    }

    /// A board with explicit options.
    pub fn with_options(occupancy: Bitboard, options: LocalBoardOptions) -> LocalBoard {
        LocalBoard {
            options,
            initial: occupancy,
            register: Register::new(occupancy),
            state: new_state(&options),
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            applied_ops: 0,
            known_qubits: 0,
            // A game's worth of moves, so the history rarely grows.
            history: Vec::with_capacity(64),
            snapshot_states: 0,
        }
    }

    /// The options the board was made with.
    pub fn options(&self) -> LocalBoardOptions {
        self.options
    }

    /// The register: accumulated circuit, square-to-qubit map and classical occupancy.
    pub fn register(&self) -> &Register {
        &self.register
    }

    /// The accumulated circuit since the initial position.
    pub fn circuit(&self) -> &Circuit {
        self.register.circuit()
    }

    /// The simulator state.
    pub fn state(&self) -> &SparseState {
        &self.state
    }

    /// The moves applied so far, with their recorded outcomes.
    pub fn history(&self) -> &[AppliedMove] {
        &self.history
    }

    /// The occupancy the board started from.
    pub fn initial_occupancy(&self) -> Bitboard {
        self.initial
    }

    /// Compiles and simulates one move; on error the board is as before.
    fn run_move(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError> {
        let step = self.register.begin(mv)?;
        let report = match step {
            Step::Done(result) => {
                self.sync()?;
                MoveReport {
                    proceeded: result.proceeded,
                    outcome: result.measurement.outcome(),
                    outcome_probability: None,
                }
            }
            Step::Measure(request) => {
                // Everything before the measurement op, then the measurement itself here.
                let measure_index = self.register.circuit().ops.len() - 1;
                self.sync_to(measure_index)?;
                let proceed = self.state.probability(request.qubit, request.proceed_value)?;
                let outcome = match request.forced {
                    Some(forced) => forced,
                    None => self.rng.random::<f64>() < proceed,
                };
                let probability = if outcome { proceed } else { 1.0 - proceed };
                if probability <= IMPOSSIBLE_PROBABILITY {
                    return Err(BoardError::ImpossibleOutcome { mv: mv.to_string(), outcome });
                }
                self.state.project(request.qubit, request.qubit_value(outcome))?;
                self.applied_ops = measure_index + 1;
                let result = self.register.resolve(outcome)?;
                self.sync()?;
                MoveReport {
                    proceeded: result.proceeded,
                    outcome: Some(outcome),
                    outcome_probability: Some(probability),
                }
            }
        };
        self.retire_unused()?;
        Ok(report)
    }

    /// Brings the state up to the end of the circuit.
    fn sync(&mut self) -> Result<(), BoardError> {
        self.sync_to(self.register.circuit().ops.len())
    }

    /// Adds new qubits and applies the ops before `end`. Only gates can appear here: the one
    /// measurement of a move is handled by [`LocalBoard::run_move`].
    fn sync_to(&mut self, end: usize) -> Result<(), BoardError> {
        let circuit = self.register.circuit();
        for index in self.known_qubits..circuit.num_qubits() {
            let qubit = Qubit(index as u32);
            match circuit.qubits[index].role {
                QubitRole::Square { square, .. } => {
                    let position = u8::from(square);
                    // The square's previous qubit was unhooked before this one was made.
                    if let Some(previous) = self.state.qubit_at(position) {
                        self.state.retire(previous)?;
                    }
                    self.state.add_qubit_at(qubit, position)?;
                }
                _ => {
                    self.state.add_qubit(qubit)?;
                }
            }
            self.known_qubits = index + 1;
        }
        for index in self.applied_ops..end {
            match &circuit.ops[index] {
                Op::Gate { gate, condition: None } => self.state.apply_gate(gate)?,
                other => {
                    return Err(BoardError::Backend(Box::new(SimError::MalformedGate(format!(
                        "the move compiler emitted an unexpected op: {other:?}"
                    )))));
                }
            }
            self.applied_ops = index + 1;
        }
        Ok(())
    }

    /// Retires every qubit that is no longer a square's current qubit: nothing touches it again.
    fn retire_unused(&mut self) -> Result<(), BoardError> {
        let mut unused = 0u128;
        let mut live = self.state.live_positions();
        while live != 0 {
            let position = live.trailing_zeros() as u8;
            live &= live - 1;
            if self.state.qubit_at(position).is_some_and(|q| !self.register.is_square_qubit(q)) {
                unused |= 1 << position;
            }
        }
        // Retiring a qubit never moves another live one, so the positions stay valid.
        while unused != 0 {
            let position = unused.trailing_zeros() as u8;
            unused &= unused - 1;
            if let Some(qubit) = self.state.qubit_at(position) {
                self.state.retire(qubit)?;
            }
        }
        Ok(())
    }

    /// Rebuilds the state after the first `moves` recorded moves, from `snapshot` (the state
    /// after `moves` moves) if given, else from the nearest earlier snapshot or the start.
    fn restore(&mut self, moves: usize, snapshot: Option<Box<SparseState>>) -> Result<(), BoardError> {
        if let Some(state) = snapshot {
            let before = match self.history.get(moves) {
                Some(entry) => entry.before.clone(),
                None => return Err(BoardError::Backend("undo record missing".into())),
            };
            self.register.rollback(&before);
            self.state = *state;
            self.sync_counters();
            return Ok(());
        }
        let start = (0..moves).rev().find(|&k| self.history[k].snapshot.is_some());
        match start {
            Some(k) => {
                let before = self.history[k].before.clone();
                self.register.rollback(&before);
                self.state = self.history[k].snapshot.as_deref().cloned().unwrap_or_default();
            }
            None => {
                self.register = Register::new(self.initial);
                self.state = new_state(&self.options);
            }
        }
        self.sync_counters();
        let first = start.unwrap_or(0);
        for k in first..moves {
            let mv = self.history[k].mv;
            self.run_move(&mv)?;
        }
        Ok(())
    }

    fn sync_counters(&mut self) {
        self.applied_ops = self.register.circuit().ops.len();
        self.known_qubits = self.register.circuit().num_qubits();
    }

    /// A snapshot of the current state for undo, if the last one is the snapshot interval's
    /// moves back and it fits the budget.
    fn take_snapshot(&mut self) -> Option<Box<SparseState>> {
        let recent = self.history.len().saturating_sub(self.options.snapshot_interval.max(1) - 1);
        if self.history[recent..].iter().any(|applied| applied.snapshot.is_some()) {
            return None;
        }
        let size = self.state.len();
        let budget = self.options.snapshot_budget;
        if size > SNAPSHOT_MAX_STATES.min(budget) {
            return None;
        }
        // Oldest snapshots go first; replay covers the gap.
        let mut oldest = 0;
        while self.snapshot_states + size > budget && oldest < self.history.len() {
            if let Some(dropped) = self.history[oldest].snapshot.take() {
                self.snapshot_states -= dropped.len();
            }
            oldest += 1;
        }
        self.snapshot_states += size;
        Some(Box::new(self.state.clone()))
    }
}

impl QuantumBoard for LocalBoard {
    fn init(&mut self, occupancy: Bitboard) -> Result<(), BoardError> {
        *self = LocalBoard::with_options(occupancy, self.options);
        Ok(())
    }

    fn apply(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError> {
        let before = self.register.checkpoint();
        let snapshot = self.take_snapshot();
        match self.run_move(mv) {
            Ok(report) => {
                let recorded = mv.with_outcome(report.outcome);
                self.history.push(AppliedMove { mv: recorded, report, before, snapshot });
                Ok(report)
            }
            Err(error) => {
                // Put the board back as it was before the move.
                if let Some(state) = &snapshot {
                    self.snapshot_states -= state.len();
                }
                let moves = self.history.len();
                let placeholder = MoveReport { proceeded: false, outcome: None, outcome_probability: None };
                self.history.push(AppliedMove { mv: *mv, report: placeholder, before, snapshot: None });
                let restored = self.restore(moves, snapshot);
                self.history.pop();
                restored?;
                Err(error)
            }
        }
    }

    fn undo(&mut self) -> Result<(), BoardError> {
        let moves = self.history.len().checked_sub(1).ok_or(BoardError::NothingToUndo)?;
        let snapshot = self.history[moves].snapshot.take();
        if let Some(state) = &snapshot {
            self.snapshot_states -= state.len();
        }
        self.restore(moves, snapshot)?;
        self.history.pop();
        Ok(())
    }

    fn square_probabilities(&mut self) -> Result<SquareProbabilities, BoardError> {
        let mut probabilities = self.state.low_word_probabilities();
        for square in self.register.classical_occupancy() {
            probabilities[usize::from(square)] = 1.0;
        }
        Ok(SquareProbabilities::exact(probabilities))
    }

    fn distribution(&mut self) -> Result<Vec<(Bitboard, f64)>, BoardError> {
        let classical = self.register.classical_occupancy();
        Ok(self.state.low_word_distribution().into_iter().map(|(word, p)| (Bitboard(word) | classical, p)).collect())
    }

    fn sample(&mut self, shots: usize) -> Result<Vec<Bitboard>, BoardError> {
        let classical = self.register.classical_occupancy();
        Ok(self
            .state
            .sample_low_words(shots, &mut self.rng)
            .into_iter()
            .map(|word| Bitboard(word) | classical)
            .collect())
    }

    fn state_size(&self) -> usize {
        self.state.len()
    }

    fn is_exact(&self) -> bool {
        true
    }

    fn pair_density(&mut self, first: Square, second: Square) -> Result<SquarePairDensity, BoardError> {
        self.exact_pair_density(first, second)
    }
}
