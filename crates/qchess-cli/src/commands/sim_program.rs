//! `qchess sim` on a file that holds a program rather than a circuit: an OpenQASM 3 program
//! that reads its own measurement results (loops on them, computes with them, returns them
//! from subroutines) runs step by step ([`qchess_sim::auto::dynamic`]). Also reads the file
//! with the program's `--input` values and `--extern` bindings.

use std::io::Write;

use qchess_circuit::dynamic::{Dynamic, ProgramError};
use qchess_qasm::machine::{Bindings, Machine, Runnable, runnable_file};
use qchess_qasm::parse::Limits;
use qchess_sim::auto::{AutoError, dynamic};

use super::sim::{Args, failure, random_seed, write_counts_json, write_counts_table};
use super::sim::{write_probabilities_json, write_probabilities_table};
use crate::exit;

/// `--input NAME=VALUE`.
pub fn parse_input(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() && !value.trim().is_empty() => {
            Ok((name.trim().to_string(), value.trim().to_string()))
        }
        _ => Err("expected NAME=VALUE, such as `theta=pi/4`".into()),
    }
}

/// The file as a circuit or a program, with the inputs and `extern` bindings of `args`.
pub fn read(args: &Args) -> anyhow::Result<Runnable> {
    let mut bindings = Bindings { inputs: args.inputs.clone(), externs: Vec::new() };
    for path in &args.externs {
        let text =
            std::fs::read_to_string(path).map_err(|e| exit::bad_input(format!("--extern {}: {e}", path.display())))?;
        bindings.externs.push((path.display().to_string(), text));
    }
    runnable_file(&args.file, &Limits::default(), &bindings).map_err(exit::bad_input)
}

/// A program's error is bad input when the program is wrong, a runtime failure when it ran
/// into a bound.
fn program_failure(name: &str, error: AutoError) -> anyhow::Error {
    match error {
        AutoError::Program(ProgramError::Invalid(message)) => exit::bad_input(message),
        other => failure(name, &other),
    }
}

/// Runs `machine` as `qchess sim` runs a circuit: exact probabilities over every qubit, or
/// seeded shots over the program's output bits.
pub fn run(args: &Args, machine: Machine, json: bool) -> anyhow::Result<()> {
    let limits = super::sim::auto_limits(args);
    let name = args.file.display().to_string();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    match args.shots {
        None => {
            let distribution = dynamic::probabilities(&machine, &limits).map_err(|e| program_failure(&name, e))?;
            if json {
                write_probabilities_json(&mut out, &distribution, None)?;
            } else {
                write_probabilities_table(&mut out, &name, &distribution)?;
            }
        }
        Some(shots) => {
            let seed = args.seed.unwrap_or_else(random_seed);
            let (counts, _) = dynamic::sample(&machine, shots, seed, &limits).map_err(|e| program_failure(&name, e))?;
            if json {
                write_counts_json(&mut out, machine.num_qubits(), machine.result_width() as u32, &counts, seed, None)?;
            } else {
                write_counts_table(&mut out, &name, &counts, seed)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}
