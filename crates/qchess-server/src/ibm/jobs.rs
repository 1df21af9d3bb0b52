//! Sampler V2 jobs of the IBM stand-in: ISA circuits checked against the device, run on a state
//! vector over the qubits they use, sampled (through the device's noise when there is a
//! [`Calibration`]) with the IonQ stand-ins' shot sampler, and answered with per-shot samples per
//! register.

use std::collections::{BTreeMap, HashMap};

use num_complex::Complex64;
use qchess_route::verify::{State, run_isa};
use qchess_route::{IsaOp, Target};
use serde_json::{Value, json};

use super::isa::{IsaCircuit, read};
use super::noise::Calibration;
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

/// `shots` samples of a circuit whose measurements are all final, per register.
fn sample(
    circuit: &IsaCircuit,
    shots: u64,
    calibration: Option<&Calibration>,
    seed: u64,
    stop: &Stop,
) -> Result<Value, JobError> {
    let mut measured_at: BTreeMap<u32, usize> = BTreeMap::new();
    for (index, op) in circuit.ops.iter().enumerate() {
        if let Some(q) = op.qubits().find(|q| measured_at.contains_key(q)) {
            let message =
                format!("qubit {q} is used after its measurement; this stand-in runs only final measurements");
            return Err(JobError::Refused(message));
        }
        match op {
            IsaOp::Measure { qubit, .. } => {
                measured_at.insert(*qubit, index);
            }
            IsaOp::Reset { .. } => return Err(JobError::Refused("this stand-in runs no resets".to_owned())),
            _ => {}
        }
    }
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
    run_isa(&circuit.ops, &mut state, &dense)?;
    let exact: Vec<(u64, f64)> = state
        .amplitudes()
        .iter()
        .enumerate()
        .map(|(basis, a)| (basis as u64, a.norm_sqr()))
        .filter(|&(_, p)| p > 0.0)
        .collect();
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
    let record = |basis: u64| {
        let mut bits: u128 = 0;
        for &(position, clbit) in &measures {
            if basis >> position & 1 == 1 && clbit < 128 {
                bits |= 1 << clbit;
            }
        }
        for (register, out) in circuit.registers.iter().zip(&mut samples) {
            let value = (bits >> register.start) & ((1u128 << register.len.min(127)) - 1);
            out.push(format!("{value:#x}"));
        }
    };
    for_each_noisy_shot(&exact, used.len() as u32, shots, &noise, seed, stop, record)
        .map_err(|failure: JobFailure| JobError::Failed(failure.message))?;
    let data: serde_json::Map<String, Value> = circuit
        .registers
        .iter()
        .zip(samples)
        .map(|(register, samples)| (register.name.clone(), json!({ "samples": samples, "num_bits": register.len })))
        .collect();
    Ok(json!({ "data": data, "metadata": { "shots": shots, "circuit_metadata": {} } }))
}
