//! Running a provider job: read its QIS circuit, simulate it exactly (sparse while few basis
//! states are populated, dense otherwise), and for hardware stand-ins sample noisy shots.

use qchess_circuit::ir::{Circuit, Op};
use qchess_qasm::ionq::IonqCircuit;
use qchess_sim::auto::{self, AutoError, AutoLimits};
use qchess_sim::dense::Limits as DenseLimits;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use crate::config::{Limits, NoiseOptions};
use crate::jobs::JobFailure;

/// QIS gate names this server runs.
const QIS_GATES: [&str; 19] =
    ["x", "y", "z", "rx", "ry", "rz", "h", "not", "cnot", "s", "si", "t", "ti", "v", "vi", "swap", "xx", "yy", "zz"];

/// Exact probabilities smaller than this are rounding noise and are not reported.
const REPORT_THRESHOLD: f64 = 1e-15;

fn failure(code: &'static str, message: impl Into<String>) -> JobFailure {
    JobFailure { code, message: message.into() }
}

/// The number of qubits a job's input declares (or, if it declares none, uses).
pub fn declared_qubits(input: &Value) -> Option<u64> {
    if let Some(qubits) = input.get("qubits") {
        return qubits.as_u64();
    }
    let gates = input.get("circuit")?.as_array()?;
    let mut highest = None;
    for gate in gates {
        for key in ["target", "control"] {
            if let Some(q) = gate.get(key).and_then(Value::as_u64) {
                highest = highest.max(Some(q));
            }
        }
        for key in ["targets", "controls"] {
            for q in gate.get(key).and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_u64) {
                highest = highest.max(Some(q));
            }
        }
    }
    Some(highest.map_or(1, |q| q + 1))
}

/// Reads a job's `input` as a circuit of `qubits` qubits; a gate the server does not run is an
/// `UnsupportedGate` failure, anything else malformed an `InvalidInput` failure.
pub fn read_circuit(input: &Value, qubits: u32) -> Result<Circuit, JobFailure> {
    let gateset = input.get("gateset").and_then(Value::as_str).unwrap_or("qis");
    if gateset != "qis" {
        return Err(failure("UnsupportedGate", format!("gate set `{gateset}` is not supported; only `qis` is")));
    }
    let Some(gates) = input.get("circuit").and_then(Value::as_array) else {
        return Err(failure("InvalidInput", "input.circuit must be a list of gates"));
    };
    for (index, gate) in gates.iter().enumerate() {
        let name = gate.get("gate").and_then(Value::as_str).unwrap_or("");
        if !QIS_GATES.contains(&name) {
            return Err(failure(
                "UnsupportedGate",
                format!("gate {index}: `{name}` is not supported (supported: {})", QIS_GATES.join(", ")),
            ));
        }
    }
    let mut normalised = input.clone();
    if let Some(object) = normalised.as_object_mut() {
        object.insert("qubits".into(), Value::from(qubits));
        object.insert("gateset".into(), Value::from("qis"));
    }
    let circuit: IonqCircuit =
        serde_json::from_value(normalised).map_err(|e| failure("InvalidInput", format!("input: {e}")))?;
    circuit.to_circuit().map_err(|e| failure("InvalidInput", e.to_string()))
}

/// The exact distribution over every qubit of a gate-only circuit: sparse while its state
/// stays small, dense otherwise.
pub fn exact_distribution(circuit: &Circuit, limits: &Limits) -> Result<Vec<(u64, f64)>, JobFailure> {
    let auto_limits = AutoLimits {
        max_sparse_states: limits.max_sparse_states,
        dense: DenseLimits::with_max_qubits(limits.max_dense_qubits),
        ..AutoLimits::default()
    };
    match auto::probabilities(circuit, &auto_limits) {
        Ok(outcomes) => Ok(outcomes.probabilities.into_iter().filter(|&(_, p)| p > REPORT_THRESHOLD).collect()),
        Err(error @ AutoError::TooWide { .. }) => Err(failure("NotEnoughQubits", error.to_string())),
        Err(error) => Err(failure("SimulationError", error.to_string())),
    }
}

/// Shot frequencies of `shots` noisy runs drawn from an exact distribution over `qubits`
/// qubits of a circuit with `gates` gates (see [`NoiseOptions`]).
pub fn sample_shots(
    exact: &[(u64, f64)],
    qubits: u32,
    gates: usize,
    shots: u64,
    noise: NoiseOptions,
    seed: u64,
) -> Vec<(u64, f64)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let depolarized = 1.0 - (1.0 - noise.depolarizing).powf(gates as f64);
    let mask = if qubits >= 64 { u64::MAX } else { (1u64 << qubits) - 1 };
    let mut cumulative = Vec::with_capacity(exact.len());
    let mut total = 0.0;
    for &(_, p) in exact {
        total += p;
        cumulative.push(total);
    }
    let mut counts: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    for _ in 0..shots {
        let mut outcome = if depolarized > 0.0 && rng.random::<f64>() < depolarized {
            rng.random::<u64>() & mask
        } else {
            let u = rng.random::<f64>() * total;
            let index = cumulative.partition_point(|&c| c <= u).min(exact.len().saturating_sub(1));
            exact.get(index).map_or(0, |o| o.0)
        };
        if noise.readout_error > 0.0 {
            for bit in 0..qubits.min(64) {
                if rng.random::<f64>() < noise.readout_error {
                    outcome ^= 1 << bit;
                }
            }
        }
        *counts.entry(outcome).or_insert(0) += 1;
    }
    let mut frequencies: Vec<(u64, f64)> =
        counts.into_iter().map(|(outcome, count)| (outcome, count as f64 / shots as f64)).collect();
    frequencies.sort_by_key(|&(outcome, _)| outcome);
    frequencies
}

/// Number of gates of a circuit.
pub fn gate_count(circuit: &Circuit) -> usize {
    circuit.ops.iter().filter(|op| matches!(op, Op::Gate { .. })).count()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn bell_state_and_x_on_qubit_zero() {
        let limits = Limits::default();
        let x = read_circuit(&json!({"gateset":"qis","qubits":3,"circuit":[{"gate":"x","targets":[0]}]}), 3)
            .expect("valid");
        assert_eq!(exact_distribution(&x, &limits).expect("runs"), vec![(1, 1.0)]);
        let bell = json!({"gateset":"qis","qubits":2,"circuit":[{"gate":"h","targets":[0]},{"gate":"cnot","control":0,"target":1}]});
        let bell = exact_distribution(&read_circuit(&bell, 2).expect("valid"), &limits).expect("runs");
        assert_eq!(bell.len(), 2);
        assert_eq!((bell[0].0, bell[1].0), (0, 3));
        assert!((bell[0].1 - 0.5).abs() < 1e-12);
    }

    #[test]
    fn dense_fallback_for_wide_superpositions() {
        let limits = Limits { max_sparse_states: 16, ..Limits::default() };
        let gates: Vec<Value> = (0..6).map(|q| json!({"gate":"h","target":q})).collect();
        let circuit = read_circuit(&json!({"qubits":6,"circuit":gates}), 6).expect("valid");
        let distribution = exact_distribution(&circuit, &limits).expect("dense runs");
        assert_eq!(distribution.len(), 64);
        assert!(distribution.iter().all(|&(_, p)| (p - 1.0 / 64.0).abs() < 1e-12));
        let tight = Limits { max_sparse_states: 16, max_dense_qubits: 5, ..Limits::default() };
        let error = exact_distribution(&circuit, &tight).expect_err("too wide");
        assert_eq!(error.code, "SimulationError");
    }

    #[test]
    fn bad_gates_fail_with_codes() {
        let u3 = json!({"gateset":"qis","qubits":1,"circuit":[{"gate":"u3","targets":[0]}]});
        assert_eq!(read_circuit(&u3, 1).expect_err("unsupported").code, "UnsupportedGate");
        let native = json!({"gateset":"native","qubits":1,"circuit":[]});
        assert_eq!(read_circuit(&native, 1).expect_err("unsupported").code, "UnsupportedGate");
        let out_of_range = json!({"qubits":1,"circuit":[{"gate":"x","targets":[3]}]});
        assert_eq!(read_circuit(&out_of_range, 1).expect_err("invalid").code, "InvalidInput");
        assert_eq!(declared_qubits(&json!({"circuit":[{"gate":"cnot","control":4,"target":1}]})), Some(5));
    }

    #[test]
    fn noisy_shots_are_seeded_and_noisy() {
        let exact = vec![(0b001, 1.0)];
        let clean = sample_shots(&exact, 3, 10, 1000, NoiseOptions::default(), 1);
        assert_eq!(clean, vec![(1, 1.0)]);
        let noisy = NoiseOptions { depolarizing: 0.01, readout_error: 0.02 };
        let a = sample_shots(&exact, 3, 10, 10_000, noisy, 7);
        assert_eq!(a, sample_shots(&exact, 3, 10, 10_000, noisy, 7));
        let kept = a.iter().find(|o| o.0 == 1).map_or(0.0, |o| o.1);
        // Depolarized with 1 - 0.99^10 = 0.0956 (then 1/8 lands on 001), each of 3 bits read
        // right with 0.98.
        let expected = ((1.0 - 0.0956) + 0.0956 / 8.0) * 0.98f64.powi(3);
        assert!((kept - expected).abs() < 0.02, "{kept} vs {expected}");
        assert!((a.iter().map(|o| o.1).sum::<f64>() - 1.0).abs() < 1e-12);
    }
}
