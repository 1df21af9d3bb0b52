//! What the IonQ stand-in is set up with: the flags it reads, checked together.

use std::time::Duration;

use qchess_core::setting::{SettingError, check_duration, check_probability, check_range};

use super::defect::Defect;
use crate::key::ServerKey;
use crate::run::RunOptions;

/// Bounds on what one job, and all stored jobs together, may ask of the stand-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobLimits {
    /// Qubits of the `simulator` backend; QPU stand-ins have their device's size, at most this.
    pub max_qubits: u32,
    /// Largest state the dense simulator may allocate, in qubits. Circuits that stay sparse
    /// (few basis states, as game circuits do) may have up to `max_qubits`.
    pub max_dense_qubits: usize,
    /// Basis states the sparse simulator may hold before a job falls back to the dense one.
    pub max_sparse_states: usize,
    /// Most shots one job may ask for.
    pub max_shots: u64,
    /// Most gates one circuit may have.
    pub max_gates: usize,
    /// Jobs kept at once; the oldest read jobs (or unread ones past
    /// [`IonqOptions::result_ttl`]) are dropped to make room, and a submission finding none is
    /// answered 429. A finished job keeps only its results (at most `2^max_dense_qubits`
    /// outcomes, or the basis states of a sparse run), not its circuit.
    pub max_jobs: usize,
    /// Outcomes all stored results may hold together (16 bytes each). Only results that were
    /// fetched, or are older than [`IonqOptions::result_ttl`], are dropped to make room; while
    /// unread results fill the store, submissions are answered 429 with `Retry-After`.
    pub max_result_entries: usize,
}

impl Default for JobLimits {
    fn default() -> JobLimits {
        JobLimits {
            max_qubits: 29,
            max_dense_qubits: 20,
            max_sparse_states: 1 << 20,
            max_shots: 1_000_000,
            max_gates: 100_000,
            max_jobs: 10_000,
            max_result_entries: 1 << 24,
        }
    }
}

/// Noise of the hardware stand-ins: `qpu.*` backends and simulators with a non-ideal model.
/// Each shot is, with probability `1 - (1 - depolarizing)^gates`, replaced by a uniformly random
/// outcome (global depolarizing noise), and then each bit is flipped with probability
/// `readout_error`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NoiseOptions {
    /// Depolarizing probability per gate, in `[0, 1]`.
    pub depolarizing: f64,
    /// Probability of reading each bit wrong, in `[0, 0.5]`.
    pub readout_error: f64,
}

/// Everything the IonQ stand-in is set up with.
#[derive(Debug, Clone)]
pub struct IonqOptions {
    /// When set, the job routes and `whoami` need `Authorization: apiKey KEY`; the backends are
    /// open, as the board's backend chooser reads them.
    pub key: Option<ServerKey>,
    /// What jobs may ask for.
    pub limits: JobLimits,
    /// Noise of the hardware stand-ins.
    pub noise: NoiseOptions,
    /// Seed, queue delay, workers and time limit of its jobs.
    pub run: RunOptions,
    /// How long a finished job's results are kept for their owner when nobody fetched them.
    pub result_ttl: Duration,
    /// A deliberate defect of every job's results (tests of comparisons only).
    pub defect: Option<Defect>,
}

impl Default for IonqOptions {
    /// No key, default limits, no noise, the default [`RunOptions`], results kept an hour, no
    /// defect.
    fn default() -> IonqOptions {
        IonqOptions {
            key: None,
            limits: JobLimits::default(),
            noise: NoiseOptions::default(),
            run: RunOptions::default(),
            result_ttl: Duration::from_secs(3600),
            defect: None,
        }
    }
}

impl IonqOptions {
    /// Checks the ranges of every setting, naming its flag.
    pub fn validate(&self) -> Result<(), SettingError> {
        check_probability("--depolarizing", self.noise.depolarizing, 1.0)?;
        check_probability("--readout-error", self.noise.readout_error, 0.5)?;
        let l = &self.limits;
        check_range("--max-qubits", u64::from(l.max_qubits), 1, 64)?;
        check_range("the dense qubit limit", l.max_dense_qubits as u64, 1, 30)?;
        check_range("--max-shots", l.max_shots, 1, 100_000_000)?;
        check_range("--max-jobs", l.max_jobs as u64, 1, 10_000_000)?;
        check_range("the gate limit", l.max_gates as u64, 1, 10_000_000)?;
        self.run.validate()?;
        check_duration("--result-ttl", self.result_ttl, Duration::from_secs(30 * 86_400))
    }
}
