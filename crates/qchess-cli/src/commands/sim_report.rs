//! What `qchess sim --json` says of a run besides its results: which simulator ran it, where
//! the time went (`timings`, in seconds) and, for a dense run, its passes over the state.

use std::time::Duration;

use qchess_sim::auto::Engine;
use qchess_sim::dense::Precision;
use qchess_sim::dense::profile::{self, RunProfile};

/// Where the time of a run went, and which simulator ran it (the `--json` fields `engine`,
/// `timings` and `dense`).
#[derive(serde::Serialize)]
pub(super) struct RunReport {
    engine: &'static str,
    timings: Timings,
    dense: Option<DenseReport>,
}

/// Seconds of each phase; the dense phases are `null` when the sparse simulator ran.
#[derive(serde::Serialize)]
struct Timings {
    parse: f64,
    /// Choosing the simulator (a sparse attempt included), fusing and grouping into passes.
    plan: Option<f64>,
    allocate: Option<f64>,
    simulate: f64,
    sample: Option<f64>,
}

/// The passes of a dense run.
#[derive(serde::Serialize)]
struct DenseReport {
    precision: &'static str,
    threads: usize,
    passes: usize,
    blocks: usize,
    block_widths: Vec<usize>,
}

impl RunReport {
    /// The report of a run that parsed in `parse` and simulated (everything after parsing) in
    /// `run` on `engine`, with the dense profile the run left.
    pub(super) fn new(parse: Duration, run: Duration, engine: Engine) -> RunReport {
        let dense = profile::last_run().filter(|_| engine == Engine::Dense);
        let timings = match &dense {
            Some(RunProfile { allocate, simulate, sample, .. }) => Timings {
                parse: parse.as_secs_f64(),
                plan: Some(run.saturating_sub(*allocate + *simulate + *sample).as_secs_f64()),
                allocate: Some(allocate.as_secs_f64()),
                simulate: simulate.as_secs_f64(),
                sample: Some(sample.as_secs_f64()),
            },
            None => Timings {
                parse: parse.as_secs_f64(),
                plan: None,
                allocate: None,
                simulate: run.as_secs_f64(),
                sample: None,
            },
        };
        let dense = dense.map(|p| DenseReport {
            precision: match p.precision {
                Precision::Single => "single",
                Precision::Double => "double",
            },
            threads: p.threads,
            passes: p.passes,
            blocks: p.blocks,
            block_widths: p.block_widths,
        });
        let engine = match engine {
            Engine::Sparse => "sparse",
            Engine::Dense => "dense",
        };
        RunReport { engine, timings, dense }
    }
}
