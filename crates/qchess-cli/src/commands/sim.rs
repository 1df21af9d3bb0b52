//! `qchess sim`: run an OpenQASM 2.0 or 3 file on the built-in simulator.
//!
//! Exact mode prints the probability of every basis state over all qubits; shot mode prints
//! counts over the classical bits (or over every qubit when the program measures nothing).
//! Keys are decimal integers with qubit / bit `i` as bit `i`. The circuit runs on the sparse
//! simulator while its state stays small and on the dense one otherwise
//! ([`qchess_sim::auto`]). A circuit declaring more than 64 qubits (an ISA circuit over a
//! whole device) runs on the qubits it touches; a note on stderr names them.
//!
//! `--json` also reports where the time went (`timings`, in seconds: parsing, planning,
//! allocating the state, simulating, sampling) and, for a dense run, its passes over the state
//! (`dense`).

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use qchess_circuit::ir::Circuit;
use qchess_qasm::machine::Runnable;
use qchess_sim::auto::{self, AutoError, AutoLimits, Outcomes};
use qchess_sim::deadline::Deadline;
use qchess_sim::dense::profile;
use qchess_sim::dense::{
    Acceleration, CountKeys, Counts, DEFAULT_MAX_BRANCHES, DEFAULT_MAX_QUBITS, DenseError, Limits, MAX_SHOTS, Precision,
};
use qchess_sim::sparse::SimError;
use serde::ser::{SerializeMap, Serializer};

use super::sim_report::RunReport;

/// Flags of `qchess sim`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The OpenQASM 2.0 or 3 file to run (the version line decides; none means 3).
    pub file: PathBuf,
    /// Sample this many shots (counts over the classical bits) instead of exact probabilities.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_SHOTS), conflicts_with = "exact")]
    pub shots: Option<u64>,
    /// Seed of the shot sampler; without it a random seed is drawn and printed.
    #[arg(long, requires = "shots")]
    pub seed: Option<u64>,
    /// Print exact probabilities over all qubits (the default without --shots).
    #[arg(long)]
    pub exact: bool,
    /// The most qubits a dense state vector may have (circuits whose states stay sparse run
    /// on the sparse simulator, up to 64 qubits).
    #[arg(long, default_value_t = DEFAULT_MAX_QUBITS)]
    pub max_qubits: usize,
    /// The most basis states the sparse simulator may hold before the circuit moves to the
    /// dense one.
    #[arg(long, default_value_t = AutoLimits::default().max_sparse_states)]
    pub max_states: usize,
    /// The most measurement branches exact probabilities may keep (circuits with mid-circuit
    /// measurements or resets); past it the run stops with an error.
    #[arg(long, default_value_t = DEFAULT_MAX_BRANCHES)]
    pub max_branches: usize,
    /// Stop with an error (exit code 1) once the simulation has run this many seconds; no
    /// limit without the flag.
    #[arg(long, value_name = "SECONDS", value_parser = crate::time_limit::parse_seconds)]
    pub time_limit: Option<Duration>,
    /// Amplitude precision of dense simulation: `single` halves memory and bandwidth (for
    /// circuits whose measurements are final; others run in double).
    #[arg(long, value_enum, default_value_t = PrecisionArg::Double)]
    pub precision: PrecisionArg,
    /// Threads for dense passes (default: every core); results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
    /// Fuse runs of dense gates into blocks of at most this many qubits (0: apply each gate
    /// on its own kernel). Default: 6, the widest; the simulator picks the width and the
    /// grouping of blocks into passes that its cost model prices cheapest.
    #[arg(long, value_name = "QUBITS", value_parser = clap::value_parser!(u8).range(0..=6))]
    pub fuse: Option<u8>,
    /// The value of an OpenQASM 3 `input` variable, such as `theta=pi/4` (a constant
    /// expression); repeat for each input.
    #[arg(long = "input", value_name = "NAME=VALUE", value_parser = super::sim_program::parse_input)]
    pub inputs: Vec<(String, String)>,
    /// An OpenQASM file of `def`s that implement the program's `extern` functions, each with
    /// the same name and signature; repeatable.
    #[arg(long = "extern", value_name = "FILE")]
    pub externs: Vec<PathBuf>,
}

/// `--precision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PrecisionArg {
    /// Complex numbers of two doubles.
    Double,
    /// Complex numbers of two floats.
    Single,
}

/// Probabilities below this are rounding noise, not outcomes, and are not printed.
const NOISE: f64 = 1e-20;

/// Rows of the human table before it is cut short.
const HUMAN_ROWS: usize = 64;

/// Runs `qchess sim`.
pub fn run(args: Args, json: bool) -> anyhow::Result<()> {
    let started = Instant::now();
    let mut circuit = match super::sim_program::read(&args)? {
        Runnable::Circuit(circuit) => circuit,
        Runnable::Program(machine) => return super::sim_program::run(&args, machine, json),
    };
    let parsed = started.elapsed();
    if circuit.num_qubits() > 64
        && let Some((used, names)) = without_idle_qubits(&circuit)
    {
        let listed = if names.len() <= 16 { names.join(", ") } else { format!("{}, ...", names[..16].join(", ")) };
        eprintln!(
            "note: {} declares {} qubits and uses {}; results are over those, qubit 0 first: {listed}",
            args.file.display(),
            circuit.num_qubits(),
            names.len()
        );
        circuit = used;
    }
    let limits = auto_limits(&args);
    let name = args.file.display().to_string();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // Forget any earlier run's profile, so that the report is this run's.
    profile::last_run();
    let started = Instant::now();
    match args.shots {
        None => {
            let distribution = auto::probabilities(&circuit, &limits).map_err(|e| failure(&name, &e))?;
            let report = RunReport::new(parsed, started.elapsed(), distribution.engine);
            if json {
                write_probabilities_json(&mut out, &distribution, Some(&report))?;
            } else {
                write_probabilities_table(&mut out, &name, &distribution)?;
            }
        }
        Some(shots) => {
            let seed = args.seed.unwrap_or_else(random_seed);
            let (counts, engine) = auto::sample(&circuit, shots, seed, &limits).map_err(|e| failure(&name, &e))?;
            let report = RunReport::new(parsed, started.elapsed(), engine);
            if json {
                write_counts_json(&mut out, circuit.num_qubits(), circuit.clbits, &counts, seed, Some(&report))?;
            } else {
                write_counts_table(&mut out, &name, &counts, seed)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The simulators' limits from the flags.
pub(super) fn auto_limits(args: &Args) -> AutoLimits {
    let deadline = args.time_limit.map_or_else(Deadline::none, Deadline::after);
    let dense = Limits::with_max_qubits(args.max_qubits).max_branches(args.max_branches).deadline(deadline);
    let precision = match args.precision {
        PrecisionArg::Double => Precision::Double,
        PrecisionArg::Single => Precision::Single,
    };
    let threads = args.threads.map_or_else(|| std::thread::available_parallelism().map_or(1, usize::from), usize::from);
    let mut acceleration = Acceleration::fused(precision, threads);
    if let Some(width) = args.fuse {
        acceleration.max_fused_qubits = usize::from(width);
    }
    AutoLimits { max_sparse_states: args.max_states, dense, acceleration }
}

/// The circuit over only the qubits some operation or post-selection touches (in order), and
/// their names; `None` when every qubit is used.
fn without_idle_qubits(circuit: &Circuit) -> Option<(Circuit, Vec<String>)> {
    use qchess_circuit::ir::{Op, Qubit};
    let mut used = vec![false; circuit.num_qubits()];
    for op in &circuit.ops {
        match op {
            Op::Gate { gate, .. } => gate.qubits().for_each(|q| used[q.index()] = true),
            Op::Measure { qubit, .. } | Op::Reset { qubit } => used[qubit.index()] = true,
        }
    }
    circuit.postselect.iter().for_each(|p| used[p.qubit.index()] = true);
    if used.iter().all(|&u| u) {
        return None;
    }
    let mut index = vec![Qubit(u32::MAX); circuit.num_qubits()];
    let mut compact = Circuit { clbits: circuit.clbits, registers: circuit.registers.clone(), ..Circuit::default() };
    for (q, info) in circuit.qubits.iter().enumerate().filter(|&(q, _)| used[q]) {
        index[q] = compact.add_qubit_info(info.clone());
    }
    let map = |q: Qubit| index[q.index()];
    compact.ops = circuit
        .ops
        .iter()
        .map(|op| match op {
            Op::Gate { gate, condition } => {
                let mut gate = gate.clone();
                gate.targets.iter_mut().for_each(|q| *q = map(*q));
                gate.controls.iter_mut().for_each(|c| c.qubit = map(c.qubit));
                Op::Gate { gate, condition: *condition }
            }
            Op::Measure { qubit, clbit } => Op::Measure { qubit: map(*qubit), clbit: *clbit },
            Op::Reset { qubit } => Op::Reset { qubit: map(*qubit) },
        })
        .collect();
    compact.postselect =
        circuit.postselect.iter().map(|p| qchess_circuit::ir::PostSelection { qubit: map(p.qubit), ..*p }).collect();
    let names = compact.qubits.iter().map(|q| q.name().into_owned()).collect();
    Some((compact, names))
}

/// The error of a simulation that could not finish, with the flag that raises the limit it hit.
pub(super) fn failure(name: &str, error: &AutoError) -> anyhow::Error {
    let flag = match error {
        AutoError::TimeLimit(_) | AutoError::Dense(DenseError::TimeLimit(_)) => Some("--time-limit"),
        AutoError::Dense(DenseError::TooManyOutcomeBranches { .. }) => Some("--max-branches"),
        // The branch budget is capped whatever the qubit limit, so it has no flag to name.
        AutoError::Dense(DenseError::TooManyQubits { .. }) | AutoError::TooLarge { .. } => Some("--max-qubits"),
        AutoError::Sparse(SimError::StateTooLarge { .. }) => Some("--max-states"),
        _ => None,
    };
    match flag {
        Some(flag) => anyhow::anyhow!("cannot simulate {name}: {error} (raise it with {flag})"),
        None => anyhow::anyhow!("cannot simulate {name}: {error}"),
    }
}

/// A seed from the clock and the process id, for runs that did not ask for one.
pub(super) fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    // SplitMix64 finaliser: nearby times give unrelated seeds.
    let mut z = nanos ^ (u64::from(std::process::id()) << 32);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `{"5": 0.5, ...}` in increasing key order.
struct Entries<'a, T: serde::Serialize>(&'a [(u64, T)]);

impl<T: serde::Serialize> serde::Serialize for Entries<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in self.0 {
            map.serialize_entry(&key.to_string(), value)?;
        }
        map.end()
    }
}

fn nonzero(distribution: &Outcomes) -> Vec<(u64, f64)> {
    distribution.probabilities.iter().copied().filter(|&(_, p)| p > NOISE).collect()
}

pub(super) fn write_probabilities_json(
    out: &mut impl Write,
    distribution: &Outcomes,
    report: Option<&RunReport>,
) -> anyhow::Result<()> {
    #[derive(serde::Serialize)]
    struct Output<'a> {
        qubits: usize,
        probabilities: Entries<'a, f64>,
        #[serde(flatten)]
        report: Option<&'a RunReport>,
    }
    let entries = nonzero(distribution);
    let output = Output { qubits: distribution.num_qubits, probabilities: Entries(&entries), report };
    serde_json::to_writer(&mut *out, &output)?;
    writeln!(out)?;
    Ok(())
}

pub(super) fn write_counts_json(
    out: &mut impl Write,
    qubits: usize,
    clbits: u32,
    counts: &Counts,
    seed: u64,
    report: Option<&RunReport>,
) -> anyhow::Result<()> {
    #[derive(serde::Serialize)]
    struct Output<'a> {
        qubits: usize,
        clbits: u32,
        shots: u64,
        seed: u64,
        counts: Entries<'a, u64>,
        #[serde(flatten)]
        report: Option<&'a RunReport>,
    }
    let entries: Vec<(u64, u64)> = counts.counts.iter().map(|(&k, &v)| (k, v)).collect();
    let output = Output { qubits, clbits, shots: counts.shots, seed, counts: Entries(&entries), report };
    serde_json::to_writer(&mut *out, &output)?;
    writeln!(out)?;
    Ok(())
}

/// `key` as `width` binary digits, most significant first.
fn bits(key: u64, width: usize) -> String {
    (0..width).rev().map(|i| if key >> i & 1 == 1 { '1' } else { '0' }).collect()
}

/// The rows worth showing: all if few, else the most likely.
fn shown_rows<T: Copy + PartialOrd>(mut rows: Vec<(u64, T)>) -> (Vec<(u64, T)>, usize) {
    if rows.len() <= HUMAN_ROWS {
        return (rows, 0);
    }
    rows.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(a.0.cmp(&b.0)));
    let hidden = rows.len() - HUMAN_ROWS;
    rows.truncate(HUMAN_ROWS);
    (rows, hidden)
}

pub(super) fn write_probabilities_table(
    out: &mut impl Write,
    name: &str,
    distribution: &Outcomes,
) -> anyhow::Result<()> {
    let n = distribution.num_qubits;
    writeln!(out, "{name}: {n} qubits, exact probabilities")?;
    let (rows, hidden) = shown_rows(nonzero(distribution));
    let label = if n == 0 { "(no qubits)".to_string() } else { format!("q{}..q0", n - 1) };
    let width = label.len().max(n);
    writeln!(out, "{:>12}  {:<width$}  probability", "outcome", label)?;
    for (key, p) in rows {
        writeln!(out, "{key:>12}  {:<width$}  {p:.12}", bits(key, n))?;
    }
    if hidden > 0 {
        writeln!(out, "... and {hidden} less likely outcomes (--json prints all)")?;
    }
    Ok(())
}

pub(super) fn write_counts_table(out: &mut impl Write, name: &str, counts: &Counts, seed: u64) -> anyhow::Result<()> {
    let (width, what) = match counts.keys {
        CountKeys::Clbits(n) => (n, format!("classical bits c{}..c0", n.saturating_sub(1))),
        CountKeys::Qubits(n) => {
            (n, format!("every qubit, q{}..q0 (the program measures nothing)", n.saturating_sub(1)))
        }
    };
    writeln!(out, "{name}: {} shots, seed {seed}, read on {what}", counts.shots)?;
    let (rows, hidden) = shown_rows(counts.counts.iter().map(|(&k, &v)| (k, v)).collect());
    let column = width.max(4);
    writeln!(out, "{:>12}  {:<column$}  {:>10}  frequency", "outcome", "bits", "count")?;
    for (key, count) in rows {
        let frequency = count as f64 / counts.shots as f64;
        writeln!(out, "{key:>12}  {:<column$}  {count:>10}  {frequency:.6}", bits(key, width))?;
    }
    if hidden > 0 {
        writeln!(out, "... and {hidden} rarer outcomes (--json prints all)")?;
    }
    Ok(())
}
