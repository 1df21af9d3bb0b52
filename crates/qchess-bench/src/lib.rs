//! The standard qchess benchmark workloads, behind `qchess bench`.
//!
//! | workload | what is timed |
//! |---|---|
//! | `fixed` | three fixed games (splits and merges; an opening with captures; measured captures), replayed with pinned outcomes and checked against hand-derived values |
//! | `random-default`, `random-split-heavy`, `random-no-merge` | seeded random games, end to end per ply: legal moves, the choice, the move on the exact local board, all 64 probabilities; a sample of games is cross-checked against the dense simulator |
//! | `growth` | splits until the state holds `2^k` basis states; time per state per gate, bytes per state, a clean refusal at the state cap, and the last move on one thread against `--threads` |
//! | `dense` | random one- and two-qubit gates on full state vectors against the memory-bandwidth floor |
//! | `dense-circuits` | seeded random circuits (`h` on every qubit, then 200 random `u3` and `cx`; 20, 24, 26 and 28 qubits) to the final state: fused in single and double precision on one and N threads, passes over the state and time per pass against the in-place memory floor, gate by gate as the reference up to 24 qubits; `--write-qasm DIR` saves them for other simulators |
//! | `search` | the search at a fixed move time on positions from random games: nodes per second on one thread, and each move's latency |
//! | `search-depth` | the search to a fixed depth on positions of its own games: the time and nodes each depth takes to finish, and how many finish within a match's move time and within the think time of the level that searches that deep |
//! | `routing` | whole-game circuits (example games, seeded random and computer-against-computer games) routed onto IBM Torino, Fez and Brisbane with their calibrations: estimated success probability, two-qubit gates, depth, compile time, gates on broken elements; with [`RoutingPlan::qiskit`], Qiskit's transpiler at level 3 with the backend's target on the same circuits, side by side |
//!
//! Every workload reports the fields of [`WorkloadReport`]; those that do not apply are `None`.
//! [`BenchOptions::quick`] shrinks every workload so the whole run takes seconds (for tests).
//!
//! ```
//! use qchess_bench::{BenchOptions, Workload, run};
//!
//! let options = BenchOptions { workloads: vec![Workload::Fixed], ..BenchOptions::quick() };
//! let report = run(&options, |_| {})?;
//! assert_eq!(report.workloads[0].name, "fixed");
//! assert!(report.workloads[0].median_move_us.is_some());
//! # Ok::<(), qchess_bench::BenchError>(())
//! ```

mod circuits;
mod crosscheck;
mod dense;
mod depth;
mod error;
mod fixed;
mod growth;
pub mod machine;
mod random;
mod report;
mod routing;
mod sampled;
mod search;
pub mod stats;

use std::fmt;
use std::str::FromStr;
use std::time::Instant;

pub use circuits::{CircuitSize, random_circuit};
pub use crosscheck::TOLERANCE as CROSSCHECK_TOLERANCE;
pub use dense::DenseSize;
pub use depth::DepthPlan;
pub use error::BenchError;
pub use random::{MoveMix, RandomPlan};
pub use report::{BenchReport, WorkloadReport};
pub use routing::RoutingPlan;
pub use search::SearchPlan;

/// One benchmark workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Workload {
    /// Three fixed games with pinned outcomes.
    Fixed,
    /// Random games, mostly standard moves.
    RandomDefault,
    /// Random games, half the plies splits.
    RandomSplitHeavy,
    /// Random games without merges.
    RandomNoMerge,
    /// State growth to `2^k` basis states and the cap.
    Growth,
    /// Dense gates against the bandwidth floor.
    Dense,
    /// Random circuits to the final state: unfused, fused, single precision, threads.
    DenseCircuits,
    /// The search's nodes per second and move latency.
    Search,
    /// The search's time to each depth on positions of its own games.
    SearchDepth,
    /// Whole-game circuits routed onto IBM devices, optionally against Qiskit.
    Routing,
}

impl Workload {
    /// The workloads a plain `qchess bench` runs, in order: all but `dense-circuits` and
    /// `search-depth`, which take minutes, and `routing`, a compiler comparison; those are
    /// asked for by name.
    pub const DEFAULT: [Workload; 7] = [
        Workload::Fixed,
        Workload::RandomDefault,
        Workload::RandomSplitHeavy,
        Workload::RandomNoMerge,
        Workload::Growth,
        Workload::Dense,
        Workload::Search,
    ];

    /// Every workload.
    pub const ALL: [Workload; 10] = [
        Workload::Fixed,
        Workload::RandomDefault,
        Workload::RandomSplitHeavy,
        Workload::RandomNoMerge,
        Workload::Growth,
        Workload::Dense,
        Workload::DenseCircuits,
        Workload::Search,
        Workload::SearchDepth,
        Workload::Routing,
    ];

    /// The workload's name.
    pub const fn name(self) -> &'static str {
        match self {
            Workload::Fixed => "fixed",
            Workload::RandomDefault => MoveMix::DEFAULT.name,
            Workload::RandomSplitHeavy => MoveMix::SPLIT_HEAVY.name,
            Workload::RandomNoMerge => MoveMix::NO_MERGE.name,
            Workload::Growth => "growth",
            Workload::Dense => "dense",
            Workload::DenseCircuits => "dense-circuits",
            Workload::Search => "search",
            Workload::SearchDepth => "search-depth",
            Workload::Routing => "routing",
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Workload {
    type Err = BenchError;

    fn from_str(text: &str) -> Result<Workload, BenchError> {
        Workload::ALL.into_iter().find(|w| w.name() == text).ok_or_else(|| BenchError::UnknownWorkload {
            name: text.to_owned(),
            known: Workload::ALL.map(Workload::name).join(", "),
        })
    }
}

/// How big each workload is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchOptions {
    /// The workloads to run, in order.
    pub workloads: Vec<Workload>,
    /// Repetitions of each fixed sequence.
    pub fixed_repetitions: usize,
    /// Games, plies and cross-checks of each random workload.
    pub random: RandomPlan,
    /// The growth workload's sizes: `2^k` basis states for `k` in this range.
    pub growth_k: (u32, u32),
    /// The dense workload's state sizes.
    pub dense: Vec<DenseSize>,
    /// The dense-circuits workload's circuits.
    pub circuits: Vec<CircuitSize>,
    /// Threads of the multi-threaded dense-circuits runs and of the growth workload's
    /// threaded sparse moves.
    pub threads: usize,
    /// Where the dense-circuits workload writes its circuits as OpenQASM 2, if anywhere.
    pub qasm_dir: Option<std::path::PathBuf>,
    /// The search workload's positions and move time.
    pub search: SearchPlan,
    /// The search-depth workload's positions, depth and move time.
    pub search_depth: DepthPlan,
    /// The routing workload's targets, games, repetitions and comparison.
    pub routing: RoutingPlan,
}

impl BenchOptions {
    /// The standard run: 100 repetitions, 1000 games of 60 plies, growth to `2^20`, dense
    /// gates at 20 and 24 qubits, 30 searches of 100 ms, 12 searches to depth 6.
    pub fn standard() -> BenchOptions {
        BenchOptions {
            workloads: Workload::DEFAULT.to_vec(),
            fixed_repetitions: 100,
            random: RandomPlan { games: 1000, plies: 60, crosscheck_every: 50, crosscheck_qubits: 18 },
            growth_k: (10, 20),
            dense: vec![DenseSize { qubits: 20, gates: 300 }, DenseSize { qubits: 24, gates: 60 }],
            circuits: [20, 24, 26, 28].map(CircuitSize::standard).to_vec(),
            threads: available_threads(),
            qasm_dir: None,
            search: SearchPlan { positions: 30, movetime_ms: 100 },
            search_depth: DepthPlan { positions: 12, depth: 6, movetime_ms: 100 },
            routing: RoutingPlan::standard(),
        }
    }

    /// Every workload shrunk to run in seconds, even unoptimised.
    pub fn quick() -> BenchOptions {
        BenchOptions {
            workloads: Workload::DEFAULT.to_vec(),
            fixed_repetitions: 3,
            random: RandomPlan { games: 20, plies: 40, crosscheck_every: 10, crosscheck_qubits: 12 },
            growth_k: (6, 12),
            dense: vec![DenseSize { qubits: 10, gates: 40 }, DenseSize { qubits: 14, gates: 20 }],
            circuits: vec![CircuitSize { qubits: 12, gates: 40 }],
            threads: available_threads(),
            qasm_dir: None,
            search: SearchPlan { positions: 4, movetime_ms: 20 },
            search_depth: DepthPlan { positions: 2, depth: 2, movetime_ms: 20 },
            routing: RoutingPlan::quick(),
        }
    }
}

/// The cores this process may use (1 when unknown).
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Runs the chosen workloads in order, calling `progress` with each workload before it starts.
pub fn run(options: &BenchOptions, mut progress: impl FnMut(Workload)) -> Result<BenchReport, BenchError> {
    let mut workloads = Vec::with_capacity(options.workloads.len());
    for &workload in &options.workloads {
        progress(workload);
        let measured_rss = machine::reset_peak_rss();
        let started = Instant::now();
        let mut report = match workload {
            Workload::Fixed => fixed::run(options.fixed_repetitions)?,
            Workload::RandomDefault => random::run(MoveMix::DEFAULT, options.random)?,
            Workload::RandomSplitHeavy => random::run(MoveMix::SPLIT_HEAVY, options.random)?,
            Workload::RandomNoMerge => random::run(MoveMix::NO_MERGE, options.random)?,
            Workload::Growth => growth::run(options.growth_k.0, options.growth_k.1, options.threads)?,
            Workload::Dense => dense::run(&options.dense)?,
            Workload::DenseCircuits => circuits::run(&options.circuits, options.threads, options.qasm_dir.as_deref())?,
            Workload::Search => search::run(options.search)?,
            Workload::SearchDepth => depth::run(options.search_depth)?,
            Workload::Routing => routing::run(&options.routing)?,
        };
        report.seconds = started.elapsed().as_secs_f64();
        report.peak_rss_mb = if measured_rss { machine::peak_rss_mb() } else { None };
        workloads.push(report);
    }
    Ok(BenchReport { machine: machine::describe(), workloads })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_names_round_trip() {
        for workload in Workload::ALL {
            assert_eq!(workload.name().parse::<Workload>().expect("known"), workload);
        }
        let error = "random".parse::<Workload>().expect_err("unknown");
        assert_eq!(
            error.to_string(),
            "unknown workload `random`; the workloads are fixed, random-default, random-split-heavy, random-no-merge, growth, dense, dense-circuits, search, search-depth, routing"
        );
    }
}
