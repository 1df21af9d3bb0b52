//! Where the time of a dense run went, for `qchess sim --json` and the benchmarks.
//!
//! A run that needs no trajectory (every measurement final) records its profile here, on the
//! thread that ran it; [`last_run`] takes it. A side channel rather than a return value, so that
//! the callers between the command line and the simulator (the choice between the sparse and the
//! dense simulator) need not carry it.

use std::cell::RefCell;
use std::time::Duration;

use super::accelerated::Precision;

/// The phases of one dense run and the passes it made over the state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunProfile {
    /// Fusing the gates into blocks and grouping the blocks into passes.
    pub plan: Duration,
    /// Allocating the state (its pages are faulted in by the first pass that touches them,
    /// counted in `simulate`).
    pub allocate: Duration,
    /// Applying the passes.
    pub simulate: Duration,
    /// Reading the result: sampling shots, or the probabilities of every basis state.
    pub sample: Duration,
    /// Passes over the whole state (each reads and writes every amplitude once).
    pub passes: usize,
    /// Fused blocks applied (several may share a pass).
    pub blocks: usize,
    /// How many blocks of each width (index 0: one qubit) were applied.
    pub block_widths: Vec<usize>,
    /// Qubits of the state.
    pub qubits: usize,
    /// The precision of the amplitudes.
    pub precision: Precision,
    /// Threads the passes ran on.
    pub threads: usize,
}

thread_local! {
    static LAST: RefCell<Option<RunProfile>> = const { RefCell::new(None) };
}

/// Records the profile of the run that just finished on this thread.
pub(crate) fn record(profile: RunProfile) {
    LAST.with(|last| *last.borrow_mut() = Some(profile));
}

/// The profile of the last dense run without trajectories on this thread, taken (a second call
/// returns `None` until another run finishes).
pub fn last_run() -> Option<RunProfile> {
    LAST.with(|last| last.borrow_mut().take())
}
