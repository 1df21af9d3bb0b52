//! Sampler V2 jobs of the IBM stand-in: ISA circuits checked against the device, run on a state
//! vector over the qubits they use, and answered with per-shot samples per register.

use std::collections::HashMap;

use num_complex::Complex64;
use qchess_route::verify::State;
use qchess_route::{IsaOp, Target};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::isa::{IsaCircuit, read};
use super::shots::sample_shots;

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
    /// `Completed` or `Cancelled`.
    pub status: &'static str,
    /// The results body.
    pub results: Value,
}

/// Jobs by id.
pub type Jobs = HashMap<String, Job>;

/// Runs a Sampler V2 request on `target`; the error is the message of a 400.
pub fn run(request: &Value, target: &Target, seed: u64) -> Result<Value, String> {
    if request.get("program_id").and_then(Value::as_str) != Some("sampler") {
        return Err("program_id must be `sampler`".to_owned());
    }
    let params = request.get("params").ok_or("the job has no params")?;
    let default_shots = params.pointer("/options/default_shots").and_then(Value::as_u64).unwrap_or(DEFAULT_SHOTS);
    let pubs = params
        .get("pubs")
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty())
        .ok_or("params.pubs must be a non-empty list")?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut results = Vec::new();
    for (index, pub_) in pubs.iter().enumerate() {
        let (text, shots) = match pub_ {
            Value::String(text) => (text.as_str(), default_shots),
            Value::Array(parts) => {
                let text =
                    parts.first().and_then(Value::as_str).ok_or_else(|| format!("pub {index} has no circuit"))?;
                (text, parts.get(2).and_then(Value::as_u64).unwrap_or(default_shots))
            }
            _ => return Err(format!("pub {index} is neither a circuit nor a list")),
        };
        if !(1..=MAX_SHOTS).contains(&shots) {
            return Err(format!("pub {index} asks for {shots} shots; 1 to {MAX_SHOTS} are allowed"));
        }
        let circuit = read(text, target)
            .map_err(|e| format!("pub {index} is not an ISA circuit for backend {}: {e}", target.name))?;
        results.push(sample(&circuit, shots, &mut rng).map_err(|e| format!("pub {index}: {e}"))?);
    }
    Ok(json!({ "results": results, "metadata": { "version": 2 } }))
}

/// `shots` samples of a circuit, per register: see [`sample_shots`].
fn sample(circuit: &IsaCircuit, shots: u64, rng: &mut ChaCha8Rng) -> Result<Value, String> {
    let mut used: Vec<u32> = circuit.ops.iter().flat_map(IsaOp::qubits).collect();
    used.sort_unstable();
    used.dedup();
    if used.len() > MAX_USED_QUBITS {
        return Err(format!("it uses {} qubits; this stand-in simulates at most {MAX_USED_QUBITS}", used.len()));
    }
    let dense = |q: u32| used.binary_search(&q).unwrap_or(0);
    let mut amplitudes = vec![Complex64::new(0.0, 0.0); 1 << used.len()];
    amplitudes[0] = Complex64::new(1.0, 0.0);
    let bits_per_shot = sample_shots(&circuit.ops, State::from_amplitudes(amplitudes), &dense, shots, rng)?;
    let mut samples: Vec<Vec<String>> = vec![Vec::with_capacity(bits_per_shot.len()); circuit.registers.len()];
    for bits in bits_per_shot {
        for (register, out) in circuit.registers.iter().zip(&mut samples) {
            let value = (bits >> register.start) & ((1u128 << register.len.min(127)) - 1);
            out.push(format!("{value:#x}"));
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
