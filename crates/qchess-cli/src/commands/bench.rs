//! `qchess bench`: the standard benchmark workloads (see `qchess-bench`).

use anyhow::Result;
use qchess_bench::{BenchOptions, Workload};

use crate::exit::bad_input;
use crate::output::print;

/// Flags of `qchess bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Run only this workload (repeat the flag for several): fixed, random-default,
    /// random-split-heavy, random-no-merge, growth, dense, search, and three asked for by name
    /// only: dense-circuits, search-depth and routing.
    #[arg(long = "workload", value_name = "NAME")]
    workloads: Vec<String>,
    /// Shrink every workload so the run takes seconds (figures are then only indicative).
    #[arg(long)]
    quick: bool,
    /// Threads of the multi-threaded dense-circuits runs and of the growth workload's
    /// threaded sparse moves (default: every core).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
    /// Write the dense-circuits workload's random circuits here as OpenQASM 2
    /// (`random_<qubits>.qasm`), for running them on other simulators.
    #[arg(long, value_name = "DIR")]
    write_qasm: Option<std::path::PathBuf>,
    /// Run the dense-circuits workload only on circuits of these sizes (repeat the flag; the
    /// standard sizes are 20, 24, 26 and 28 qubits).
    #[arg(long, value_name = "QUBITS", value_parser = clap::value_parser!(u8).range(2..=30))]
    circuit_qubits: Vec<u8>,
    /// With the routing workload, also transpile its circuits with Qiskit (optimisation level 3,
    /// the device's fake backend as target) using this Python interpreter, which needs qiskit,
    /// qiskit-qasm3-import and qiskit-ibm-runtime (without it, Qiskit targets are built from the
    /// published files), and print both side by side.
    #[arg(long, value_name = "PYTHON")]
    qiskit: Option<std::path::PathBuf>,
}

/// Runs `qchess bench`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let mut options = if args.quick { BenchOptions::quick() } else { BenchOptions::standard() };
    if let Some(threads) = args.threads {
        options.threads = usize::from(threads);
    }
    options.qasm_dir = args.write_qasm;
    options.routing.qiskit = args.qiskit;
    if !args.circuit_qubits.is_empty() {
        options.circuits =
            args.circuit_qubits.iter().map(|&q| qchess_bench::CircuitSize::standard(usize::from(q))).collect();
    }
    if !args.workloads.is_empty() {
        options.workloads = args
            .workloads
            .iter()
            .map(|name| name.parse::<Workload>().map_err(|e| bad_input(format!("--workload: {e}"))))
            .collect::<Result<_>>()?;
    }
    let report = qchess_bench::run(&options, |workload| {
        if !json {
            eprintln!("running {workload} ...");
        }
    })?;
    if json { print(&format!("{}\n", serde_json::to_string(&report)?)) } else { print(&report.to_table()) }
}
