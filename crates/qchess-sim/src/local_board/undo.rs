//! Undo, and the state's versions.
//!
//! A move's state is snapshotted at the moment the move first changes it (before its first
//! gate, new qubit, projection or retirement), so a move that changes nothing (one on
//! classical squares only, which only flips the register's classical bits) needs no snapshot
//! and is undone by rolling back the register. Snapshot buffers given back by undo are reused.
//!
//! Every change of the state gives it a new *version*, and undo puts back the version the
//! state had before the move: two equal versions on one board always mean the same state, with
//! the same qubit on every square ([`LocalBoard::state_version`]). The board reuses the
//! low-word probabilities it read from a state of the same version, and a caller can do the
//! same with anything it derives from the state (a search's hash of it). After a move that
//! changed the state by gates only (no measurement), it reads again only the positions the
//! move's gates, new qubits and retired qubits touched: a gate leaves every other qubit's
//! probability as it was, so those keep the value read before the move, to the bit.

use qchess_core::BoardError;

use super::{LocalBoard, SNAPSHOT_MAX_STATES, new_state};
use crate::sparse::SparseState;

/// Snapshot buffers kept for reuse at most.
const SPARE_SNAPSHOTS: usize = 32;

/// What one move did to the state so far.
#[derive(Debug, Default)]
pub(super) struct Change {
    /// Whether to snapshot the state before its first change (replays do not).
    snapshot_wanted: bool,
    changed: bool,
    snapshot: Option<Box<SparseState>>,
    /// The low-word positions whose probability the move's gates, new qubits and retired
    /// qubits may have changed.
    touched: u64,
    /// Whether the move measured (then any position's probability may have changed).
    measured: bool,
}

impl Change {
    /// A change that snapshots the state first (if the snapshot policy says so).
    pub(super) fn with_snapshot() -> Change {
        Change { snapshot_wanted: true, ..Change::default() }
    }

    /// Whether the state changed.
    pub(super) fn changed(&self) -> bool {
        self.changed
    }

    /// The snapshot of the state before the change, if one was taken.
    pub(super) fn into_snapshot(self) -> Option<Box<SparseState>> {
        self.snapshot
    }

    /// Notes that the probabilities of the positions in `positions` (low word) may change.
    pub(super) fn touch(&mut self, positions: u128) {
        self.touched |= positions as u64;
    }

    /// Notes that the move measured.
    pub(super) fn measure(&mut self) {
        self.measured = true;
    }

    /// The positions whose probability may differ from the state's before the move, when that
    /// is all that may (the move changed the state and measured nothing).
    fn touched_only(&self) -> Option<u64> {
        (self.changed && !self.measured).then_some(self.touched)
    }
}

/// A move that changed the state by gates (and new and retired qubits) only: the state's
/// versions before and after it, and the low-word positions whose probability may differ.
#[derive(Debug, Clone, Copy)]
pub(super) struct GatesOnly {
    before: u64,
    after: u64,
    touched: u64,
}

impl GatesOnly {
    /// What `change` did, between the versions `before` and `after`, when it only ran gates.
    pub(super) fn of(change: &Change, before: u64, after: u64) -> Option<GatesOnly> {
        change.touched_only().map(|touched| GatesOnly { before, after, touched })
    }
}

/// Low-word probabilities of recent states, one slot per history depth: a move that leaves
/// the state untouched finds its parent's one slot up.
#[derive(Debug, Clone, Default)]
pub(super) struct LowWords {
    slots: Vec<(u64, [f64; 64])>,
}

impl LowWords {
    /// The probabilities read at `depth` or the one before, from the state of `version`.
    fn find(&self, depth: usize, version: u64) -> Option<&[f64; 64]> {
        [depth, depth.wrapping_sub(1)]
            .into_iter()
            .filter_map(|d| self.slots.get(d))
            .find(|(v, _)| *v == version)
            .map(|(_, p)| p)
    }

    fn store(&mut self, depth: usize, version: u64, probabilities: &[f64; 64]) {
        if self.slots.len() <= depth {
            self.slots.resize(depth + 1, (u64::MAX, [0.0; 64]));
        }
        let slot = &mut self.slots[depth];
        slot.0 = version;
        slot.1 = *probabilities;
    }
}

impl LocalBoard {
    /// The state's version: it changes whenever the state does, and undo puts back the one
    /// before the move, so on one board equal versions mean the same state with the same
    /// qubit on every square. See the [module docs](self).
    pub fn state_version(&self) -> u64 {
        self.version
    }

    /// Writes the probability of each low-word position (each quantum square's occupancy)
    /// into `out`, reused from an earlier read of a state of the same version.
    pub(super) fn read_low_word_probabilities(&mut self, out: &mut [f64; 64]) {
        let depth = self.history.len();
        if let Some(probabilities) = self.low_words.find(depth, self.version) {
            *out = *probabilities;
            return;
        }
        // After a move of gates only, the probabilities read before it stand but on the
        // positions it touched.
        let before = self
            .last_gates_only
            .filter(|gates| gates.after == self.version)
            .and_then(|gates| Some((self.low_words.find(depth.checked_sub(1)?, gates.before)?, gates.touched)));
        match before {
            Some((before, touched)) => self.state.low_word_probabilities_after(before, touched, out),
            None => *out = self.state.low_word_probabilities(),
        }
        self.low_words.store(depth, self.version, out);
    }

    /// Called before a move first changes the state: snapshots it if wanted and gives the
    /// state its new version.
    pub(super) fn before_change(&mut self, change: &mut Change) {
        if self.begin_change(change) {
            change.snapshot = self.snapshot_buffer().map(|mut snapshot| {
                snapshot.as_mut().clone_from(&self.state);
                snapshot
            });
        }
    }

    /// Collapses `qubit` to `value` ([`SparseState::collapse_counting`]) as a change of the
    /// move. When it is the move's first change and the move snapshots the state, the state
    /// itself becomes the snapshot and the collapse writes the new state into the snapshot's
    /// buffer: one pass over the state instead of a copy and a pass.
    pub(super) fn collapse_counting(
        &mut self,
        change: &mut Change,
        qubit: qchess_circuit::ir::Qubit,
        value: bool,
    ) -> Result<f64, crate::sparse::SimError> {
        // An unknown qubit (the one error of a collapse) fails before the state changes.
        if self.state.position(qubit).is_none() || !self.begin_change(change) {
            return self.state.collapse_counting(qubit, value);
        }
        match self.snapshot_buffer() {
            Some(mut snapshot) => {
                std::mem::swap(snapshot.as_mut(), &mut self.state);
                let one = self.state.collapse_counting_from(&snapshot, qubit, value);
                change.snapshot = Some(snapshot);
                one
            }
            None => self.state.collapse_counting(qubit, value),
        }
    }

    /// Marks the move changed and gives the state its new version, on its first change;
    /// says whether the state must be snapshotted first.
    fn begin_change(&mut self, change: &mut Change) -> bool {
        if change.changed {
            return false;
        }
        change.changed = true;
        self.version = self.next_version;
        self.next_version += 1;
        change.snapshot_wanted
    }

    /// Puts the board back as it was before a move that failed: the register alone when the
    /// state was not touched, else the state from the move's snapshot or by replay.
    pub(super) fn put_back(
        &mut self,
        mv: &qchess_core::TypedMove,
        before: qchess_circuit::compiler::Checkpoint,
        version_before: u64,
        change: Change,
    ) -> Result<(), BoardError> {
        if !change.changed {
            self.register.rollback(&before);
            self.sync_counters();
            return Ok(());
        }
        let snapshot = change.into_snapshot();
        if let Some(state) = &snapshot {
            self.snapshot_states -= state.len();
        }
        let moves = self.history.len();
        let placeholder = qchess_core::MoveReport { proceeded: false, outcome: None, outcome_probability: None };
        self.history.push(super::AppliedMove {
            mv: *mv,
            report: placeholder,
            before,
            snapshot: None,
            kept_state: false,
            version_before,
        });
        let restored = self.restore(moves, snapshot);
        self.history.pop();
        self.version = version_before;
        restored
    }

    /// Rebuilds the state after the first `moves` recorded moves, from `snapshot` (the state
    /// after `moves` moves) if given, else from the nearest earlier snapshot or the start.
    pub(super) fn restore(&mut self, moves: usize, snapshot: Option<Box<SparseState>>) -> Result<(), BoardError> {
        if let Some(mut state) = snapshot {
            let Some(entry) = self.history.get(moves) else {
                return Err(BoardError::Backend("undo record missing".into()));
            };
            self.register.rollback(&entry.before);
            std::mem::swap(&mut self.state, &mut state);
            self.recycle(state);
            self.sync_counters();
            return Ok(());
        }
        let start = (0..moves).rev().find(|&k| self.history[k].snapshot.is_some());
        match start {
            Some(k) => {
                self.register.rollback(&self.history[k].before);
                if let Some(snapshot) = self.history[k].snapshot.as_deref() {
                    self.state.clone_from(snapshot);
                }
            }
            None => {
                self.register = qchess_circuit::compiler::Register::new(self.initial);
                self.state = new_state(&self.options);
            }
        }
        self.sync_counters();
        let first = start.unwrap_or(0);
        for k in first..moves {
            let mv = self.history[k].mv;
            self.run_move(&mv, &mut Change::default())?;
        }
        Ok(())
    }

    pub(super) fn sync_counters(&mut self) {
        self.applied_ops = self.register.circuit().ops.len();
        self.known_qubits = self.register.circuit().num_qubits();
    }

    /// Keeps a snapshot buffer undo gave back for the next snapshot.
    fn recycle(&mut self, state: Box<SparseState>) {
        if self.spare.len() < SPARE_SNAPSHOTS && state.len() <= SNAPSHOT_MAX_STATES {
            self.spare.push(state);
        }
    }

    /// A buffer for a snapshot of the current state for undo (the caller fills it), if the
    /// last snapshot is the snapshot interval's moves back and the state fits the budget.
    fn snapshot_buffer(&mut self) -> Option<Box<SparseState>> {
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
                self.recycle(dropped);
            }
            oldest += 1;
        }
        self.snapshot_states += size;
        Some(self.spare.pop().unwrap_or_default())
    }
}
