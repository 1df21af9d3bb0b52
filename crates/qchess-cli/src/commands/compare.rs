//! `qchess compare`: run the same games (or circuits) on two backends and test whether their
//! outcome distributions agree.
//!
//! Games come from records (`--record FILE...`, outcomes pinned) or from `--position` /
//! `--moves` (outcomes not pinned are drawn by the first backend and pinned for the second);
//! circuits from OpenQASM 2 or 3 files (`--qasm FILE...`). The statistics are `qchess-compare`'s:
//! one test per move or circuit, Holm-Bonferroni across them, a verdict at `--alpha`.
//!
//! Output: a Markdown summary on stdout (or the JSON report with `--json`), the JSON report in
//! `--report-json FILE`, SVG plots in `--plots DIR`. Exit codes: 0 the backends agree, 1 they
//! disagree (the report says so; nothing goes to stderr) or a backend failed, 2 bad input.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use qchess_compare::circuits::{CircuitInput, run_circuit};
use qchess_compare::game::{GameInput, ItemRun, run_game};
use qchess_compare::report::markdown;
use qchess_compare::stats::pair::PairOptions;
use qchess_compare::{CompareError, Report, Settings};
use qchess_core::{Notation, PositionSpec};
use qchess_engine::RuleSet;
use qchess_engine::record::GameRecord;

use crate::backend::{Backend, BackendSpec, RemoteArgs};
use crate::exit::{Verdict, bad_input, bad_input_at};

/// Shots per job when `--shots` is not given.
const DEFAULT_SHOTS: u64 = 1000;

/// Flags of `qchess compare`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Game records to compare, outcomes pinned (several may follow, or repeat the flag).
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["position", "moves", "qasm"])]
    record: Vec<PathBuf>,
    /// The start of one game: `startpos` or `fen <FEN>`, optionally followed by `moves ...`.
    #[arg(long, value_name = "POSITION", conflicts_with = "qasm")]
    position: Option<String>,
    /// Moves of that game in official notation; outcomes not pinned with `.m0` / `.m1` are
    /// drawn by the first backend.
    #[arg(long, value_name = "MOVES", conflicts_with = "qasm")]
    moves: Option<String>,
    /// OpenQASM 2.0 or 3 circuits to compare, read on their measured bits (several may follow).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    qasm: Vec<PathBuf>,
    /// The first backend (the reference): local, ionq, ibm:DEVICE, or a qchess serve URL, with
    /// `,target=...`, `,noise=...`, `,mitigation` options.
    #[arg(long, default_value = "local", value_name = "BACKEND")]
    backend: BackendSpec,
    /// The second backend, in the same form.
    #[arg(long, value_name = "BACKEND")]
    vs: BackendSpec,
    /// Flags of remote backends.
    #[command(flatten)]
    remote: RemoteArgs,
    /// The rules of the --position / --moves game: official, classical, observer or checkmate
    /// (records keep their own `Rules` tag).
    #[arg(long, default_value = "official", value_name = "RULES", conflicts_with = "qasm")]
    rules: RuleSet,
    /// Seed of drawn outcomes and of the bootstrap intervals.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Family-wise significance level of the verdict (Holm-Bonferroni across steps).
    #[arg(long, default_value_t = 0.01)]
    alpha: f64,
    /// Confidence level of the distance intervals.
    #[arg(long, default_value_t = 0.95)]
    confidence: f64,
    /// Bootstrap replicates of the distance intervals (0: none).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    bootstrap: u32,
    /// Also write the JSON report to this file.
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// Write SVG plots into this directory.
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// Stop with an error (exit code 1) once the comparison has run this many seconds; no
    /// limit without the flag.
    #[arg(long, value_name = "SECONDS", value_parser = crate::time_limit::parse_seconds)]
    time_limit: Option<std::time::Duration>,
}

/// Runs `qchess compare`.
pub fn run(args: Args, json: bool) -> anyhow::Result<()> {
    let settings = settings(&args)?;
    if let Some(limit) = args.time_limit {
        crate::time_limit::exit_after(limit, "compare");
    }
    let backend = Backend::resolve(&args.backend, &args.remote)?;
    let vs = Backend::resolve(&args.vs, &args.remote)?;
    let work = Work::from_args(&args)?;
    let mut items: Vec<ItemRun> = Vec::new();
    let failed = |e: CompareError| if e.is_input_error() { bad_input(e) } else { anyhow::Error::new(e) };
    match &work {
        Work::Games(games) => {
            for game in games {
                items.push(run_game(game, &backend, &vs, &settings.pair, settings.seed).map_err(failed)?);
            }
        }
        Work::Circuits(circuits) => {
            for circuit in circuits {
                let item = run_circuit(circuit, &backend, &vs, settings.shots, &settings.pair, settings.seed);
                items.push(item.map_err(failed)?);
            }
        }
    }
    let mut report = Report::new(backend.label(), vs.label(), settings, items);
    if let Some(dir) = &args.plots {
        let files = qchess_compare::plots::write_plots(&report, dir)?;
        report.plots = files.iter().map(|f| f.display().to_string()).collect();
    }
    if let Some(path) = &args.report_json {
        std::fs::write(path, format!("{}\n", report.to_json()))
            .with_context(|| format!("writing the report to {}", path.display()))?;
    }
    let text = if json { format!("{}\n", report.to_json()) } else { markdown::render(&report) };
    crate::output::print(&text)?;
    if report.agree {
        return Ok(());
    }
    // The report's verdict says it; an error line would claim the comparison could not run.
    Err(Verdict(format!("the backends disagree on {} of {} tests", report.rejected, report.tests)).into())
}

fn settings(args: &Args) -> anyhow::Result<Settings> {
    let open = |x: f64| x.is_finite() && x > 0.0 && x < 1.0;
    if !open(args.alpha) {
        return Err(bad_input(format!("--alpha must be between 0 and 1 (exclusive), got {}", args.alpha)));
    }
    if !open(args.confidence) {
        return Err(bad_input(format!("--confidence must be between 0 and 1 (exclusive), got {}", args.confidence)));
    }
    let shots = args.remote.shots.unwrap_or(DEFAULT_SHOTS);
    if !(1..=1_000_000).contains(&shots) {
        return Err(bad_input(format!("--shots must be between 1 and 1000000, got {shots}")));
    }
    let pair = PairOptions { bootstrap: args.bootstrap, confidence: args.confidence, ..PairOptions::default() };
    Ok(Settings { alpha: args.alpha, shots, seed: args.seed, pair })
}

/// What to compare.
enum Work {
    Games(Vec<GameInput>),
    Circuits(Vec<CircuitInput>),
}

impl Work {
    fn from_args(args: &Args) -> anyhow::Result<Work> {
        if !args.qasm.is_empty() {
            return args.qasm.iter().map(|path| circuit(path)).collect::<anyhow::Result<_>>().map(Work::Circuits);
        }
        if !args.record.is_empty() {
            return args.record.iter().map(|path| record(path)).collect::<anyhow::Result<_>>().map(Work::Games);
        }
        if args.position.is_none() && args.moves.is_none() {
            return Err(bad_input(
                "nothing to compare: give --record FILE..., --position / --moves, or --qasm FILE...",
            ));
        }
        let spec: PositionSpec =
            args.position.as_deref().unwrap_or("startpos").parse().map_err(|e| bad_input_at("--position", e))?;
        let moves = args
            .moves
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .enumerate()
            .map(|(i, text)| text.parse::<Notation>().map_err(|e| bad_input_at(format!("--moves, move {}", i + 1), e)))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let mut game = GameInput::from_position("--moves", &spec, moves, args.seed);
        game.options.rules = args.rules;
        Ok(Work::Games(vec![game]))
    }
}

fn record(path: &Path) -> anyhow::Result<GameInput> {
    let record = GameRecord::load(path).map_err(bad_input)?;
    GameInput::from_record(&path.display().to_string(), &record).map_err(bad_input)
}

fn circuit(path: &Path) -> anyhow::Result<CircuitInput> {
    let circuit = qchess_qasm::parse::parse_file(path).map_err(bad_input)?;
    Ok(CircuitInput { name: path.display().to_string(), circuit })
}
