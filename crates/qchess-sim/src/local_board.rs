//! The local quantum board: the move compiler driving the exact sparse simulator.
//!
//! [`LocalBoard`] implements [`QuantumBoard`]. Each typed move is compiled into the register's
//! accumulated circuit; every new op is applied to the [`SparseState`] at once, and the move's
//! measurement is decided there exactly (forced, or drawn from a seeded ChaCha generator).
//! Square `s`'s current qubit sits at key position `s`, so the low word of every basis state is
//! the quantum part of a bitboard; qubits the register no longer uses are retired after each move.
//!
//! Undo restores the exact earlier state without drawing anything again: a move that ran on
//! classical squares only leaves the state untouched, so undoing it rolls back the register
//! alone; of the others, a small state is kept as a snapshot every few moves
//! ([`SNAPSHOT_INTERVAL`]) within a fixed budget, and the rest is rebuilt by replaying the
//! recorded moves (with their recorded outcomes) from the nearest snapshot or from the start.
//! Moves in between cost no copy of the state. See [`undo`] for the state's versions, which
//! let callers (and the board's own probabilities) reuse what they read from an equal state.
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
pub mod undo;

use qchess_circuit::compiler::{Checkpoint, Register, Step};
use qchess_circuit::ir::{Circuit, Op, Qubit, QubitRole};
use qchess_core::{
    Bitboard, BoardError, MoveReport, QuantumBoard, Square, SquarePairDensity, SquareProbabilities, TypedMove,
};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::sparse::{DEFAULT_STATE_CAP, IMPOSSIBLE_PROBABILITY, SimError, SparseState};
use undo::{Change, GatesOnly, LowWords};

/// A snapshot is taken before a move when none of the previous `SNAPSHOT_INTERVAL - 1` moves
/// has one, so undo replays at most that many moves after a snapshot of a small state.
pub const SNAPSHOT_INTERVAL: usize = 8;
/// Largest state (in basis states) kept as an undo snapshot.
pub(crate) const SNAPSHOT_MAX_STATES: usize = 1 << 14;
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
    /// After every move, each square whose qubit reads the same value in every basis state
    /// becomes classical again (its qubit is dropped), so later moves on it run classically:
    /// no gates, no snapshot, nothing measured. The probabilities, distributions and outcomes
    /// are the same; the accumulated circuit is not one to export. For a search, whose
    /// moves are mostly on squares that are certain. Off by default.
    pub classical_when_certain: bool,
}

impl Default for LocalBoardOptions {
    fn default() -> LocalBoardOptions {
        LocalBoardOptions {
            seed: 0,
            state_cap: DEFAULT_STATE_CAP,
            snapshot_budget: DEFAULT_SNAPSHOT_BUDGET,
            snapshot_interval: SNAPSHOT_INTERVAL,
            threads: 1,
            classical_when_certain: false,
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
    /// The move left the state untouched (it ran on classical squares only): undo rolls
    /// back the register alone.
    kept_state: bool,
    /// The state's version before the move.
    version_before: u64,
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
    /// The state's version (see [`undo`]) and the next one to hand out.
    version: u64,
    next_version: u64,
    /// Snapshot buffers undo gave back, reused by later snapshots (boxed as the history
    /// keeps them, so reusing one allocates nothing).
    #[allow(clippy::vec_box)]
    spare: Vec<Box<SparseState>>,
    /// Low-word probabilities read from recent states.
    low_words: LowWords,
    /// The last move, when it changed the state by gates only: its probabilities are read
    /// again on the positions it touched alone.
    last_gates_only: Option<GatesOnly>,
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
            version: 0,
            next_version: 1,
            spare: Vec::new(),
            low_words: LowWords::default(),
            last_gates_only: None,
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

    /// [`QuantumBoard::square_probabilities`] written into `out`, whose storage is reused
    /// (a game reads them after every move).
    pub fn read_square_probabilities(&mut self, out: &mut SquareProbabilities) {
        self.read_low_word_probabilities(&mut out.probabilities);
        out.standard_errors = None;
        for square in self.register.classical_occupancy() {
            out.probabilities[usize::from(square)] = 1.0;
        }
    }

    /// The moves applied so far, with their recorded outcomes.
    pub fn history(&self) -> &[AppliedMove] {
        &self.history
    }

    /// The occupancy the board started from.
    pub fn initial_occupancy(&self) -> Bitboard {
        self.initial
    }

    /// Compiles and simulates one move, telling `change` before it first changes the state;
    /// on error the caller puts the board back.
    fn run_move(&mut self, mv: &TypedMove, change: &mut Change) -> Result<MoveReport, BoardError> {
        let step = self.register.begin(mv)?;
        if matches!(step, Step::Measure(_)) {
            change.measure();
        }
        let report = match step {
            Step::Done(result) => {
                self.sync(change)?;
                MoveReport {
                    proceeded: result.proceeded,
                    outcome: result.measurement.outcome(),
                    outcome_probability: None,
                }
            }
            Step::Measure(request) => {
                // Everything before the measurement op, then the measurement itself here.
                let measure_index = self.register.circuit().ops.len() - 1;
                self.sync_to(measure_index, change)?;
                let (outcome, probability) = match request.forced {
                    // A forced outcome is kept in the same pass that finds its probability; the
                    // caller puts the state back if it was impossible.
                    Some(outcome) => {
                        let one = self.collapse_counting(change, request.qubit, request.qubit_value(outcome))?;
                        let proceed = if request.proceed_value { one } else { 1.0 - one };
                        (outcome, if outcome { proceed } else { 1.0 - proceed })
                    }
                    None => {
                        let proceed = self.state.probability(request.qubit, request.proceed_value)?;
                        let outcome = self.rng.random::<f64>() < proceed;
                        let probability = if outcome { proceed } else { 1.0 - proceed };
                        if probability > IMPOSSIBLE_PROBABILITY {
                            self.before_change(change);
                            self.state.collapse(request.qubit, request.qubit_value(outcome))?;
                        }
                        (outcome, probability)
                    }
                };
                if probability <= IMPOSSIBLE_PROBABILITY {
                    return Err(BoardError::ImpossibleOutcome { mv: mv.to_string(), outcome });
                }
                self.applied_ops = measure_index + 1;
                let result = self.register.resolve(outcome)?;
                self.sync(change)?;
                MoveReport {
                    proceeded: result.proceeded,
                    outcome: Some(outcome),
                    outcome_probability: Some(probability),
                }
            }
        };
        self.retire_unused(change)?;
        Ok(report)
    }

    /// Brings the state up to the end of the circuit.
    fn sync(&mut self, change: &mut Change) -> Result<(), BoardError> {
        self.sync_to(self.register.circuit().ops.len(), change)
    }

    /// Adds new qubits and applies the ops before `end`. Only gates can appear here: the one
    /// measurement of a move is handled by [`LocalBoard::run_move`].
    fn sync_to(&mut self, end: usize, change: &mut Change) -> Result<(), BoardError> {
        if self.known_qubits < self.register.circuit().num_qubits() || self.applied_ops < end {
            self.before_change(change);
        }
        let circuit = self.register.circuit();
        for index in self.known_qubits..circuit.num_qubits() {
            let qubit = Qubit(index as u32);
            match circuit.qubits[index].role {
                QubitRole::Square { square, .. } => {
                    let position = u8::from(square);
                    change.touch(1 << position);
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
                Op::Gate { gate, condition: None } => {
                    for &qubit in &gate.targets {
                        change.touch(self.state.position(qubit).map_or(0, |position| 1 << position));
                    }
                    self.state.apply_gate(gate)?
                }
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

    /// Retires every qubit that is no longer a square's current qubit (nothing touches it
    /// again) and, with [`LocalBoardOptions::classical_when_certain`], makes every square whose
    /// qubit reads the same value in every basis state classical, dropping the qubit. The
    /// qubits that are constant are dropped together after one pass over the state.
    fn retire_unused(&mut self, change: &mut Change) -> Result<(), BoardError> {
        // A square's current qubit sits at the square's own position: every live qubit
        // elsewhere, or no longer its square's, is unused.
        let live = self.state.live_positions();
        let mut unused = live & !u128::from(u64::MAX);
        let mut low = live & u128::from(u64::MAX);
        while low != 0 {
            let position = low.trailing_zeros() as u8;
            low &= low - 1;
            let square = Square::new(position);
            if self.state.qubit_at(position) != square.and_then(|square| self.register.square_qubit(square)) {
                unused |= 1 << position;
            }
        }
        let certain_squares = self.options.classical_when_certain;
        if unused == 0 && !certain_squares {
            return Ok(());
        }
        let (constant, ones) = self.state.constant_positions();
        let mut dropped = unused & constant;
        if certain_squares {
            let mut certain = self.state.live_positions() & constant & u128::from(u64::MAX) & !unused;
            while certain != 0 {
                let position = certain.trailing_zeros() as u8;
                certain &= certain - 1;
                let (Some(qubit), Some(square)) = (self.state.qubit_at(position), Square::new(position)) else {
                    continue;
                };
                if self.register.square_qubit(square) == Some(qubit) {
                    self.register.make_classical(square, ones >> position & 1 == 1);
                    dropped |= 1 << position;
                }
            }
        }
        if dropped == 0 && unused == 0 {
            return Ok(());
        }
        self.before_change(change);
        change.touch(dropped | unused);
        self.state.retire_constant(dropped, ones)?;
        // The entangled ones become branch labels, one by one. Retiring a qubit never moves
        // another live one, so the positions stay valid.
        let mut entangled = unused & !constant;
        while entangled != 0 {
            let position = entangled.trailing_zeros() as u8;
            entangled &= entangled - 1;
            if let Some(qubit) = self.state.qubit_at(position) {
                self.state.retire(qubit)?;
            }
        }
        Ok(())
    }
}

impl QuantumBoard for LocalBoard {
    fn init(&mut self, occupancy: Bitboard) -> Result<(), BoardError> {
        // Versions keep growing, so no earlier state's version is ever met again.
        let version = self.next_version;
        *self = LocalBoard::with_options(occupancy, self.options);
        (self.version, self.next_version) = (version, version + 1);
        Ok(())
    }

    fn apply(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError> {
        let before = self.register.checkpoint();
        let version_before = self.version;
        let mut change = Change::with_snapshot();
        self.last_gates_only = None;
        match self.run_move(mv, &mut change) {
            Ok(report) => {
                let recorded = mv.with_outcome(report.outcome);
                let kept_state = !change.changed();
                self.last_gates_only = GatesOnly::of(&change, version_before, self.version);
                let snapshot = change.into_snapshot();
                self.history.push(AppliedMove { mv: recorded, report, before, snapshot, kept_state, version_before });
                Ok(report)
            }
            Err(error) => {
                self.put_back(mv, before, version_before, change)?;
                Err(error)
            }
        }
    }

    fn undo(&mut self) -> Result<(), BoardError> {
        let moves = self.history.len().checked_sub(1).ok_or(BoardError::NothingToUndo)?;
        self.last_gates_only = None;
        if self.history[moves].kept_state {
            self.register.rollback(&self.history[moves].before);
            self.sync_counters();
        } else {
            let snapshot = self.history[moves].snapshot.take();
            if let Some(state) = &snapshot {
                self.snapshot_states -= state.len();
            }
            self.restore(moves, snapshot)?;
        }
        self.version = self.history[moves].version_before;
        self.history.pop();
        Ok(())
    }

    fn square_probabilities(&mut self) -> Result<SquareProbabilities, BoardError> {
        let mut probabilities = SquareProbabilities::exact([0.0; 64]);
        self.read_square_probabilities(&mut probabilities);
        Ok(probabilities)
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
