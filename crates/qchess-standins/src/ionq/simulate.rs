//! Running a provider job: read its QIS circuit, simulate it exactly (sparse while few basis
//! states are populated, dense otherwise), and for hardware stand-ins sample noisy shots
//! ([`for_each_noisy_shot`]).

use qchess_circuit::ir::{Circuit, Gate, Op, Qubit};
use qchess_core::text::{excerpt, excerpt_line};
use qchess_qasm::ionq::IonqCircuit;
use qchess_sim::auto::{self, AutoError, AutoLimits};
use qchess_sim::dense::{DenseError, DenseState, Limits as DenseLimits};
use qchess_sim::sparse::{SimError, SparseState};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

use super::jobs::JobFailure;
use super::options::{JobLimits, NoiseOptions};
use crate::stop::Stop;

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
        return Err(failure(
            "UnsupportedGate",
            format!("gate set `{}` is not supported; only `qis` is", excerpt(gateset)),
        ));
    }
    let Some(gates) = input.get("circuit").and_then(Value::as_array) else {
        return Err(failure("InvalidInput", "input.circuit must be a list of gates"));
    };
    for (index, gate) in gates.iter().enumerate() {
        let name = gate.get("gate").and_then(Value::as_str).unwrap_or("");
        if !QIS_GATES.contains(&name) {
            return Err(failure(
                "UnsupportedGate",
                format!("gate {index}: `{}` is not supported (supported: {})", excerpt(name), QIS_GATES.join(", ")),
            ));
        }
    }
    let mut normalised = input.clone();
    if let Some(object) = normalised.as_object_mut() {
        object.insert("qubits".into(), Value::from(qubits));
        object.insert("gateset".into(), Value::from("qis"));
    }
    let circuit: IonqCircuit = serde_json::from_value(normalised)
        .map_err(|e| failure("InvalidInput", format!("input: {}", excerpt_line(&e.to_string()))))?;
    circuit.to_circuit().map_err(|e| failure("InvalidInput", e.to_string()))
}

/// The exact distribution over every qubit of a gate-only circuit: sparse while its state
/// stays small, dense otherwise (the policy of `qchess_sim::auto`), gate by gate so that the
/// job stops at its time limit or at shutdown.
pub fn exact_distribution(circuit: &Circuit, limits: &JobLimits, stop: &Stop) -> Result<Vec<(u64, f64)>, JobFailure> {
    let qubits = circuit.num_qubits();
    let gates: Vec<&Gate> = circuit
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::Gate { gate, condition: None } => Some(gate),
            _ => None,
        })
        .collect();
    let auto_limits = AutoLimits {
        max_sparse_states: limits.max_sparse_states,
        dense: DenseLimits::with_max_qubits(limits.max_dense_qubits),
        ..AutoLimits::default()
    };
    let outcomes = if qubits > 64 {
        return Err(failure("NotEnoughQubits", AutoError::TooWide { qubits }.to_string()));
    } else if gates.len() != circuit.ops.len() {
        // Not a provider job's circuit (those are gates only): the simulators' own policy.
        auto::probabilities(circuit, &auto_limits)
            .map_err(|error| failure("SimulationError", error.to_string()))?
            .probabilities
    } else {
        match sparse_run(&gates, qubits, &auto_limits, stop)? {
            Some(outcomes) => outcomes,
            None => dense_run(&gates, qubits, &auto_limits, stop)?,
        }
    };
    Ok(outcomes.into_iter().filter(|&(_, p)| p > REPORT_THRESHOLD).collect())
}

/// The sparse run, or `None` once the state outgrows the sparse cap of a circuit that fits a
/// dense vector.
fn sparse_run(
    gates: &[&Gate],
    qubits: usize,
    limits: &AutoLimits,
    stop: &Stop,
) -> Result<Option<Vec<(u64, f64)>>, JobFailure> {
    let simulation_error = |error: SimError| failure("SimulationError", error.to_string());
    let quarter_of_dense = if qubits >= 2 { 1usize << (qubits - 2).min(62) } else { 1 };
    let mut state = SparseState::with_cap(limits.max_sparse_states.min(quarter_of_dense).max(1));
    for index in 0..qubits {
        state.add_qubit_at(Qubit(index as u32), index as u8).map_err(simulation_error)?;
    }
    for gate in gates {
        stop.check()?;
        match state.apply_gate(gate) {
            Ok(()) => {}
            Err(SimError::StateTooLarge { .. }) if qubits <= limits.dense.max_qubits => return Ok(None),
            Err(SimError::StateTooLarge { needed, .. }) => {
                let error = AutoError::TooLarge { states: needed, qubits, max_dense: limits.dense.max_qubits };
                return Err(failure("SimulationError", error.to_string()));
            }
            Err(other) => return Err(simulation_error(other)),
        }
    }
    Ok(Some(state.qubit_distribution().into_iter().map(|(k, p)| (k as u64, p)).collect()))
}

/// The dense run.
fn dense_run(gates: &[&Gate], qubits: usize, limits: &AutoLimits, stop: &Stop) -> Result<Vec<(u64, f64)>, JobFailure> {
    let simulation_error = |error: DenseError| failure("SimulationError", error.to_string());
    let mut state = DenseState::zero(qubits, &limits.dense).map_err(simulation_error)?;
    for gate in gates {
        stop.check()?;
        state.apply_gate(gate).map_err(simulation_error)?;
    }
    // Normalised by their sum, as the dense simulator reports them.
    let probabilities = state.probabilities();
    let total: f64 = probabilities.iter().sum();
    Ok(probabilities.into_iter().enumerate().filter(|&(_, p)| p > 0.0).map(|(k, p)| (k as u64, p / total)).collect())
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
    stop: &Stop,
) -> Result<Vec<(u64, f64)>, JobFailure> {
    let noise = ShotNoise::uniform(noise, gates, qubits);
    let mut counts: std::collections::HashMap<u64, u64> = std::collections::HashMap::new();
    for_each_noisy_shot(exact, qubits, shots, &noise, seed, stop, |outcome| *counts.entry(outcome).or_insert(0) += 1)?;
    let mut frequencies: Vec<(u64, f64)> =
        counts.into_iter().map(|(outcome, count)| (outcome, count as f64 / shots as f64)).collect();
    frequencies.sort_by_key(|&(outcome, _)| outcome);
    Ok(frequencies)
}

/// The noise each shot goes through: with probability `depolarized` the shot is a uniformly
/// random outcome over every qubit (global depolarizing noise), and then bit `i` is read
/// flipped with probability `readout[i]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ShotNoise {
    /// The probability that a shot is a uniformly random outcome.
    pub depolarized: f64,
    /// Per bit, the probability of reading it wrong (missing bits read right).
    pub readout: Vec<f64>,
}

impl ShotNoise {
    /// The same error on every gate and every bit: `NoiseOptions` on a circuit of `gates` gates
    /// over `qubits` qubits.
    pub fn uniform(noise: NoiseOptions, gates: usize, qubits: u32) -> ShotNoise {
        let readout =
            if noise.readout_error > 0.0 { vec![noise.readout_error; qubits.min(64) as usize] } else { vec![] };
        ShotNoise { depolarized: 1.0 - (1.0 - noise.depolarizing).powf(gates as f64), readout }
    }
}

/// Draws `shots` outcomes over `qubits` qubits from an exact distribution through `noise`,
/// with a generator seeded by `seed`, handing each to `record` in the order drawn.
pub fn for_each_noisy_shot(
    exact: &[(u64, f64)],
    qubits: u32,
    shots: u64,
    noise: &ShotNoise,
    seed: u64,
    stop: &Stop,
    mut record: impl FnMut(u64),
) -> Result<(), JobFailure> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mask = if qubits >= 64 { u64::MAX } else { (1u64 << qubits) - 1 };
    let mut cumulative = Vec::with_capacity(exact.len());
    let mut total = 0.0;
    for &(_, p) in exact {
        total += p;
        cumulative.push(total);
    }
    let read_wrong = noise.readout.iter().any(|&p| p > 0.0);
    for shot in 0..shots {
        if shot % 4096 == 0 {
            stop.check()?;
        }
        let mut outcome = if noise.depolarized > 0.0 && rng.random::<f64>() < noise.depolarized {
            rng.random::<u64>() & mask
        } else {
            let u = rng.random::<f64>() * total;
            let index = cumulative.partition_point(|&c| c <= u).min(exact.len().saturating_sub(1));
            exact.get(index).map_or(0, |o| o.0)
        };
        if read_wrong {
            for bit in 0..qubits.min(64) {
                if rng.random::<f64>() < noise.readout.get(bit as usize).copied().unwrap_or(0.0) {
                    outcome ^= 1 << bit;
                }
            }
        }
        record(outcome);
    }
    Ok(())
}

/// Number of gates of a circuit.
pub fn gate_count(circuit: &Circuit) -> usize {
    circuit.ops.iter().filter(|op| matches!(op, Op::Gate { .. })).count()
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};

    use serde_json::json;

    use super::*;

    static RUNNING: AtomicBool = AtomicBool::new(false);

    fn unbounded() -> Stop<'static> {
        Stop::new(Duration::from_secs(3600), &RUNNING)
    }

    #[test]
    fn jobs_stop_at_their_time_limit_or_at_shutdown() {
        let gates: Vec<Value> = (0..200_000).map(|i| json!({"gate": "h", "target": i % 16})).collect();
        let circuit = read_circuit(&json!({"qubits": 16, "circuit": gates}), 16).expect("valid");
        let limit = Duration::from_millis(200);
        let started = Instant::now();
        let error = exact_distribution(&circuit, &JobLimits::default(), &Stop::new(limit, &RUNNING)).expect_err("slow");
        assert_eq!(error.code, "TimeLimitExceeded");
        assert!(error.message.contains("0.2 s") && error.message.contains("--time-limit"), "{}", error.message);
        assert!(started.elapsed() < limit + Duration::from_secs(2), "stopped soon after the limit");
        let stopping = AtomicBool::new(true);
        let error =
            exact_distribution(&circuit, &JobLimits::default(), &Stop::new(limit, &stopping)).expect_err("stops");
        assert_eq!(error.code, "ServerShutdown");
        let shots =
            sample_shots(&[(0, 1.0)], 1, 1, 10, NoiseOptions::default(), 1, &Stop::new(Duration::ZERO, &RUNNING));
        assert_eq!(shots.expect_err("no time").code, "TimeLimitExceeded");
    }

    #[test]
    fn bell_state_and_x_on_qubit_zero() {
        let limits = JobLimits::default();
        let x = read_circuit(&json!({"gateset":"qis","qubits":3,"circuit":[{"gate":"x","targets":[0]}]}), 3)
            .expect("valid");
        assert_eq!(exact_distribution(&x, &limits, &unbounded()).expect("runs"), vec![(1, 1.0)]);
        let bell = json!({"gateset":"qis","qubits":2,"circuit":[{"gate":"h","targets":[0]},{"gate":"cnot","control":0,"target":1}]});
        let bell = exact_distribution(&read_circuit(&bell, 2).expect("valid"), &limits, &unbounded()).expect("runs");
        assert_eq!(bell.len(), 2);
        assert_eq!((bell[0].0, bell[1].0), (0, 3));
        assert!((bell[0].1 - 0.5).abs() < 1e-12);
    }

    #[test]
    fn dense_fallback_for_wide_superpositions() {
        let limits = JobLimits { max_sparse_states: 16, ..JobLimits::default() };
        let gates: Vec<Value> = (0..6).map(|q| json!({"gate":"h","target":q})).collect();
        let circuit = read_circuit(&json!({"qubits":6,"circuit":gates}), 6).expect("valid");
        let distribution = exact_distribution(&circuit, &limits, &unbounded()).expect("dense runs");
        assert_eq!(distribution.len(), 64);
        assert!(distribution.iter().all(|&(_, p)| (p - 1.0 / 64.0).abs() < 1e-12));
        let tight = JobLimits { max_sparse_states: 16, max_dense_qubits: 5, ..JobLimits::default() };
        let error = exact_distribution(&circuit, &tight, &unbounded()).expect_err("too wide");
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
        let clean = sample_shots(&exact, 3, 10, 1000, NoiseOptions::default(), 1, &unbounded()).expect("in time");
        assert_eq!(clean, vec![(1, 1.0)]);
        let noisy = NoiseOptions { depolarizing: 0.01, readout_error: 0.02 };
        let a = sample_shots(&exact, 3, 10, 10_000, noisy, 7, &unbounded()).expect("in time");
        assert_eq!(a, sample_shots(&exact, 3, 10, 10_000, noisy, 7, &unbounded()).expect("in time"));
        let kept = a.iter().find(|o| o.0 == 1).map_or(0.0, |o| o.1);
        // Depolarized with 1 - 0.99^10 = 0.0956 (then 1/8 lands on 001), each of 3 bits read
        // right with 0.98.
        let expected = ((1.0 - 0.0956) + 0.0956 / 8.0) * 0.98f64.powi(3);
        assert!((kept - expected).abs() < 0.02, "{kept} vs {expected}");
        assert!((a.iter().map(|o| o.1).sum::<f64>() - 1.0).abs() < 1e-12);
    }
}
