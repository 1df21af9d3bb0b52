//! Dense circuits: the same seeded random circuits run fused in single and double precision,
//! on one thread and on several, timed to the final state, each against the in-place memory
//! floor of its state measured in the same run; and gate by gate in double precision as the
//! reference (up to 24 qubits). Their OpenQASM 2 text (written by our exporter) can be saved so
//! other simulators run exactly these circuits (`scripts/bench_simulators.py`).
//!
//! A circuit applies `h` to every qubit, then `gates` random gates, each with even odds a `u3`
//! with three uniform angles on a random qubit or a `cx` on a random ordered pair.

use std::path::Path;
use std::time::Instant;

use qchess_circuit::ir::{Circuit, Gate, GateKind, Qubit, QubitRole};
use qchess_sim::dense::{Acceleration, DenseSimulator, Limits, Precision, profile};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::error::BenchError;
use crate::report::WorkloadReport;

/// One circuit of the workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CircuitSize {
    /// Qubits.
    pub qubits: usize,
    /// Random gates after the layer of `h`.
    pub gates: usize,
}

impl CircuitSize {
    /// The standard circuit on `qubits` qubits: 200 random gates.
    pub fn standard(qubits: usize) -> CircuitSize {
        CircuitSize { qubits, gates: 200 }
    }
}

/// Above this many qubits the gate-by-gate reference is not run (minutes) and the variants are
/// compared with the first fused one.
const REFERENCE_UP_TO: usize = 24;

/// Probabilities compared between variants: every `2^n / COMPARED`-th basis state, so that a
/// 28-qubit comparison keeps 8 MiB, not 2 GiB, per variant.
const COMPARED: usize = 1 << 20;

/// The seeded random circuit of `size` (seed: its qubit count).
pub fn random_circuit(size: CircuitSize) -> Circuit {
    let mut rng = ChaCha8Rng::seed_from_u64(0xC1C0 + size.qubits as u64);
    let mut circuit = Circuit::new();
    let qubits: Vec<Qubit> = (0..size.qubits).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    for &q in &qubits {
        circuit.push_gate(Gate::one(GateKind::H, q));
    }
    let angle = |rng: &mut ChaCha8Rng| rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
    for _ in 0..size.gates {
        if size.qubits < 2 || rng.random_bool(0.5) {
            let kind = GateKind::U(angle(&mut rng), angle(&mut rng), angle(&mut rng));
            circuit.push_gate(Gate::one(kind, qubits[rng.random_range(0..size.qubits)]));
        } else {
            let control = rng.random_range(0..size.qubits);
            let target = (control + rng.random_range(1..size.qubits)) % size.qubits;
            circuit.push_gate(Gate::cx(qubits[control], qubits[target]));
        }
    }
    circuit
}

/// The configurations timed on every circuit: label and settings.
fn variants(qubits: usize, threads: usize) -> Vec<(String, Acceleration)> {
    let fused = Acceleration::fused;
    let mut list = Vec::new();
    if qubits <= REFERENCE_UP_TO {
        list.push(("unfused double 1t".to_owned(), Acceleration::unfused()));
    }
    list.push(("fused double 1t".to_owned(), fused(Precision::Double, 1)));
    list.push(("fused single 1t".to_owned(), fused(Precision::Single, 1)));
    if threads > 1 {
        list.push((format!("fused double {threads}t"), fused(Precision::Double, threads)));
        list.push((format!("fused single {threads}t"), fused(Precision::Single, threads)));
    }
    list
}

/// Median seconds of five in-place passes over `2^qubits` amplitudes of `bytes`-byte parts (4:
/// single precision, 8: double) on `threads` threads, each scaling its contiguous share: the
/// least a pass that reads and writes every amplitude takes.
fn in_place_floor(qubits: usize, bytes: usize, threads: usize) -> f64 {
    fn passes<T: Copy + std::ops::Mul<Output = T> + Send + Sync>(values: &mut [T], factor: T, threads: usize) -> f64 {
        let share = values.len().div_ceil(threads.max(1));
        let mut seconds: Vec<f64> = (0..6)
            .map(|_| {
                let started = Instant::now();
                std::thread::scope(|scope| {
                    for part in values.chunks_mut(share) {
                        scope.spawn(move || part.iter_mut().for_each(|x| *x = *x * factor));
                    }
                });
                std::hint::black_box(&mut *values);
                started.elapsed().as_secs_f64()
            })
            .collect();
        // The first pass also faults the pages in.
        seconds.remove(0);
        seconds.sort_by(f64::total_cmp);
        seconds[seconds.len() / 2]
    }
    let values = 2usize << qubits;
    if bytes == 4 {
        passes(&mut vec![1.0f32; values], 0.999, threads)
    } else {
        passes(&mut vec![1.0f64; values], 0.999, threads)
    }
}

/// Times each variant on each circuit once; writes `random_<n>.qasm` into `qasm_dir` if given.
pub(crate) fn run(
    sizes: &[CircuitSize],
    threads: usize,
    qasm_dir: Option<&Path>,
) -> Result<WorkloadReport, BenchError> {
    let failed = |source| BenchError::Dense { workload: "dense-circuits".to_owned(), source };
    let mut per_size = Vec::new();
    for &size in sizes {
        let circuit = random_circuit(size);
        let gates = circuit.ops.len();
        if let Some(dir) = qasm_dir {
            let text = qchess_qasm::emit::to_qasm2(&circuit, &qchess_qasm::emit::EmitOptions::default())
                .map_err(|e| BenchError::Io { what: "exporting a random circuit".to_owned(), detail: e.to_string() })?;
            let path = dir.join(format!("random_{}.qasm", size.qubits));
            std::fs::write(&path, text)
                .map_err(|e| BenchError::Io { what: format!("writing {}", path.display()), detail: e.to_string() })?;
        }
        let limits = Limits::with_max_qubits(size.qubits);
        let stride = ((1usize << size.qubits) / COMPARED).max(1);
        let mut floors = Vec::new();
        let mut results = Vec::new();
        let mut reference: Option<(String, Vec<f64>)> = None;
        for (label, acceleration) in variants(size.qubits, threads) {
            let bytes = if acceleration.precision == Precision::Single { 4 } else { 8 };
            let floor_key = (bytes, acceleration.threads);
            let floor = match floors.iter().find(|(key, _)| *key == floor_key) {
                Some(&(_, floor)) => floor,
                None => {
                    let floor = in_place_floor(size.qubits, bytes, acceleration.threads);
                    floors.push((floor_key, floor));
                    floor
                }
            };
            let simulator = DenseSimulator::with_limits(limits).with_acceleration(acceleration);
            profile::last_run();
            let started = Instant::now();
            let distribution = simulator.probabilities(&circuit).map_err(failed)?;
            let seconds = started.elapsed().as_secs_f64();
            let run = profile::last_run();
            let compared: Vec<f64> = distribution.probabilities.iter().step_by(stride).copied().collect();
            drop(distribution);
            // Every variant must give the same distribution (single precision to 1e-5).
            let deviation = reference
                .as_ref()
                .map_or(0.0, |(_, r)| r.iter().zip(&compared).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max));
            if deviation > 1e-5 {
                let against = reference.as_ref().map_or("", |(name, _)| name.as_str());
                return Err(BenchError::Mismatch {
                    what: format!("{label} on {} qubits differs from {against} by {deviation:e}", size.qubits),
                });
            }
            let simulate = run.as_ref().map(|p| p.simulate.as_secs_f64());
            let passes = run.as_ref().map(|p| p.passes);
            let per_pass = simulate.zip(passes).filter(|&(_, p)| p > 0).map(|(s, p)| s / p as f64);
            results.push(json!({
                "variant": label,
                "seconds": seconds,
                "simulate_seconds": simulate,
                "passes": passes,
                "blocks": run.as_ref().map(|p| p.blocks),
                "block_widths": run.as_ref().map(|p| p.block_widths.clone()),
                "seconds_per_pass": per_pass,
                "in_place_floor_seconds": floor,
                "pass_to_floor": per_pass.map(|s| s / floor),
                "gates_per_s": gates as f64 / seconds,
                "state_mb": ((2 * bytes) << size.qubits) as f64 / 1e6,
                "max_probability_deviation": deviation,
                "load": load_average(),
            }));
            reference.get_or_insert((label, compared));
        }
        per_size.push(json!({
            "qubits": size.qubits,
            "gates": gates,
            "runs": results,
        }));
    }
    let mut report = WorkloadReport::named("dense-circuits");
    report.peak_states = sizes.iter().map(|size| 1u64 << size.qubits).max();
    report.details = json!({
        "sizes": per_size,
        "timing": "one run per variant, time to the final distribution (allocation included); simulate_seconds: the passes alone; in_place_floor_seconds: the median of five in-place passes over a state of that size and precision on the variant's threads",
    });
    Ok(report)
}

/// The load average of the last minute (`/proc/loadavg`), if the system reports one: timings
/// on a shared machine mean little without it.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_agrees_and_the_qasm_is_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let sizes = [CircuitSize { qubits: 15, gates: 40 }];
        let report = run(&sizes, 2, Some(dir.path())).expect("runs");
        let size = &report.details["sizes"][0];
        let runs = size["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 5);
        assert_eq!(size["gates"].as_u64(), Some(55));
        for run in &runs[1..] {
            let passes = run["passes"].as_u64().expect("fused runs report their passes");
            assert!((1..55).contains(&passes), "{run}");
            assert!(run["pass_to_floor"].as_f64().is_some_and(|r| r > 0.0), "{run}");
        }
        let text = std::fs::read_to_string(dir.path().join("random_15.qasm")).expect("written");
        assert!(text.starts_with("OPENQASM 2.0;"), "{text}");
        let parsed =
            qchess_qasm::parse::parse_source(&text, "random_15.qasm").expect("our parser reads our exporter's text");
        assert_eq!(parsed.num_qubits(), 15);
        assert_eq!(parsed.ops.len(), 55);
    }
}
