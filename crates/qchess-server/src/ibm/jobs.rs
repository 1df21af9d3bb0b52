//! Sampler V2 jobs of the IBM stand-in: ISA circuits checked against the device, run on a state
//! vector over the qubits they use, sampled (through the device's noise when there is a
//! [`Calibration`]) with the IonQ stand-ins' shot sampler or, for circuits that measure or reset
//! mid-way, shot by shot on branches, and answered with per-shot samples per
//! register.

use std::collections::HashMap;

use num_complex::Complex64;
use qchess_route::verify::{State, run_isa};
use qchess_route::{IsaOp, Target};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::isa::{IsaCircuit, read};
use super::noise::Calibration;
use super::shots::sample_shots;
use crate::jobs::JobFailure;
use crate::simulate::{ShotNoise, Stop, for_each_noisy_shot};

/// Shots of a pub that gives none (Sampler V2's default).
pub const DEFAULT_SHOTS: u64 = 4096;

/// The most shots one pub may ask for.
pub const MAX_SHOTS: u64 = 100_000;

/// The most qubits a circuit may use: its state vector is simulated whole.
pub const MAX_USED_QUBITS: usize = 24;

/// A finished job.
#[derive(Debug, Clone)]
pub struct Job {
    /// The device.
    pub backend: String,
    /// `Completed` or `Failed`.
    pub status: &'static str,
    /// The results body (of a completed job).
    pub results: Value,
    /// Why a failed job failed.
    pub reason: Option<String>,
}

/// Why a job did not complete.
#[derive(Debug, Clone, PartialEq)]
pub enum JobError {
    /// The request is not a job the service runs: the message of a 400.
    Refused(String),
    /// The job was taken but failed while running (its time limit): the reason it reports.
    Failed(String),
}

impl From<String> for JobError {
    fn from(message: String) -> JobError {
        JobError::Refused(message)
    }
}

/// Jobs by id.
pub type Jobs = HashMap<String, Job>;

/// Runs a Sampler V2 request on `target`, through `calibration`'s noise when given, drawing
/// shots from `seed` until `stop` says to give up.
pub fn run(
    request: &Value,
    target: &Target,
    calibration: Option<&Calibration>,
    seed: u64,
    stop: &Stop,
) -> Result<Value, JobError> {
    if request.get("program_id").and_then(Value::as_str) != Some("sampler") {
        return Err(JobError::Refused("program_id must be `sampler`".to_owned()));
    }
    let params = request.get("params").ok_or("the job has no params".to_owned())?;
    let default_shots = params.pointer("/options/default_shots").and_then(Value::as_u64).unwrap_or(DEFAULT_SHOTS);
    let pubs = params
        .get("pubs")
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty())
        .ok_or("params.pubs must be a non-empty list".to_owned())?;
    let mut results = Vec::new();
    for (index, pub_) in pubs.iter().enumerate() {
        // qiskit-ibm-runtime sends its circuits as QPY (`{"__type__": "QuantumCircuit", "__value__":
        // base64 QPY}`), which this stand-in does not read.
        let circuit_of = |value: &Value| value.as_array().and_then(|parts| parts.first()).unwrap_or(value).clone();
        if circuit_of(pub_).get("__type__").and_then(Value::as_str) == Some("QuantumCircuit") {
            return Err(JobError::Refused(format!(
                "pub {index} is a QPY circuit; this stand-in reads OpenQASM 3 circuits only"
            )));
        }
        let (text, shots) = match pub_ {
            Value::String(text) => (text.as_str(), default_shots),
            Value::Array(parts) => {
                let text =
                    parts.first().and_then(Value::as_str).ok_or_else(|| format!("pub {index} has no circuit"))?;
                (text, parts.get(2).and_then(Value::as_u64).unwrap_or(default_shots))
            }
            _ => return Err(JobError::Refused(format!("pub {index} is neither a circuit nor a list"))),
        };
        if !(1..=MAX_SHOTS).contains(&shots) {
            return Err(JobError::Refused(format!("pub {index} asks for {shots} shots; 1 to {MAX_SHOTS} are allowed")));
        }
        let circuit = read(text, target)
            .map_err(|e| format!("pub {index} is not an ISA circuit for backend {}: {e}", target.name))?;
        // Each pub draws from its own stream of the job's seed.
        let pub_seed = seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        results.push(sample(&circuit, shots, calibration, pub_seed, stop).map_err(|e| match e {
            JobError::Refused(message) => JobError::Refused(format!("pub {index}: {message}")),
            failed => failed,
        })?);
    }
    Ok(json!({ "results": results, "metadata": { "version": 2 } }))
}

/// `shots` samples of a circuit, per register. A circuit whose measurements are all final is
/// simulated once and sampled with the IonQ stand-ins' shot sampler; one that measures or
/// resets mid-way splits its shots between the outcomes ([`sample_shots`]). Noise is applied to
/// each shot the same way in both: with the depolarised probability every measured bit is a coin,
/// then each bit is read wrong with its qubit's readout error.
fn sample(
    circuit: &IsaCircuit,
    shots: u64,
    calibration: Option<&Calibration>,
    seed: u64,
    stop: &Stop,
) -> Result<Value, JobError> {
    let mut used: Vec<u32> = circuit.ops.iter().flat_map(IsaOp::qubits).collect();
    used.sort_unstable();
    used.dedup();
    if used.len() > MAX_USED_QUBITS {
        let message = format!("it uses {} qubits; this stand-in simulates at most {MAX_USED_QUBITS}", used.len());
        return Err(JobError::Refused(message));
    }
    let dense = |q: u32| used.binary_search(&q).unwrap_or(0);
    let mut amplitudes = vec![Complex64::new(0.0, 0.0); 1 << used.len()];
    amplitudes[0] = Complex64::new(1.0, 0.0);
    let mut state = State::from_amplitudes(amplitudes);
    let noise = match calibration {
        Some(calibration) => calibration.shot_noise(&circuit.ops, &used),
        None => ShotNoise { depolarized: 0.0, readout: Vec::new() },
    };
    let measures: Vec<(usize, u32)> = circuit
        .ops
        .iter()
        .filter_map(|op| match *op {
            IsaOp::Measure { qubit, clbit } => Some((dense(qubit), clbit)),
            _ => None,
        })
        .collect();
    let mut samples: Vec<Vec<String>> = vec![Vec::with_capacity(shots as usize); circuit.registers.len()];
    let mut record = |bits: u128| {
        for (register, out) in circuit.registers.iter().zip(&mut samples) {
            let value = (bits >> register.start) & ((1u128 << register.len.min(127)) - 1);
            out.push(format!("{value:#x}"));
        }
    };
    let bits_of =
        |basis: u64| {
            measures.iter().fold(0u128, |bits, &(position, clbit)| {
                if basis >> position & 1 == 1 && clbit < 128 { bits | 1 << clbit } else { bits }
            })
        };
    if measures_only_at_the_end(&circuit.ops) {
        run_isa(&circuit.ops, &mut state, &dense)?;
        let exact: Vec<(u64, f64)> = state
            .amplitudes()
            .iter()
            .enumerate()
            .map(|(basis, a)| (basis as u64, a.norm_sqr()))
            .filter(|&(_, p)| p > 0.0)
            .collect();
        for_each_noisy_shot(&exact, used.len() as u32, shots, &noise, seed, stop, |basis| record(bits_of(basis)))
            .map_err(|failure: JobFailure| JobError::Failed(failure.message))?;
    } else {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for mut bits in sample_shots(&circuit.ops, state, &dense, shots, stop, &mut rng)? {
            if noise.depolarized > 0.0 && rng.random::<f64>() < noise.depolarized {
                for &(_, clbit) in &measures {
                    if clbit < 128 && rng.random::<bool>() {
                        bits ^= 1 << clbit;
                    }
                }
            }
            for &(position, clbit) in &measures {
                if clbit < 128 && rng.random::<f64>() < noise.readout.get(position).copied().unwrap_or(0.0) {
                    bits ^= 1 << clbit;
                }
            }
            record(bits);
        }
    }
    let data: serde_json::Map<String, Value> = circuit
        .registers
        .iter()
        .zip(samples)
        .map(|(register, samples)| (register.name.clone(), json!({ "samples": samples, "num_bits": register.len })))
        .collect();
    Ok(json!({ "data": data, "metadata": { "shots": shots, "circuit_metadata": {} } }))
}

/// Whether no operation follows a measurement on its qubit and nothing is reset.
fn measures_only_at_the_end(ops: &[IsaOp]) -> bool {
    let mut measured = std::collections::BTreeSet::new();
    for op in ops {
        if matches!(op, IsaOp::Reset { .. }) || op.qubits().any(|q| measured.contains(&q)) {
            return false;
        }
        if let IsaOp::Measure { qubit, .. } = op {
            measured.insert(*qubit);
        }
    }
    true
}
