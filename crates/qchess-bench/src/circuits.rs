//! Dense circuits: the same seeded random circuits run gate by gate and fused, in double and
//! single precision, on one thread and on several, timed to the final state. Their OpenQASM 2
//! text (written by our exporter) can be saved so other simulators run exactly these circuits
//! (`scripts/bench_simulators.py`).
//!
//! A circuit has `layers` layers; each applies a random one-qubit gate (H, T, sqrt X, Ry, Rz)
//! to every qubit, then CX or CZ on a random pairing of the qubits.

use std::path::Path;
use std::time::Instant;

use qchess_circuit::ir::{Circuit, Gate, GateKind, Op, Qubit, QubitRole};
use qchess_sim::dense::{Acceleration, DEFAULT_FUSED_QUBITS, DenseSimulator, Limits, Precision, fusion};
use rand::seq::SliceRandom;
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
    /// Layers of gates.
    pub layers: usize,
}

impl CircuitSize {
    /// The standard depth for `qubits` qubits: 20 layers at 20 qubits, 12 at 24, 8 at 26
    /// (about the same work per circuit), 10 otherwise.
    pub fn standard(qubits: usize) -> CircuitSize {
        let layers = match qubits {
            20 => 20,
            24 => 12,
            26 => 8,
            _ => 10,
        };
        CircuitSize { qubits, layers }
    }
}

/// The seeded random circuit of `size` (seed: its qubit count).
pub fn random_circuit(size: CircuitSize) -> Circuit {
    let mut rng = ChaCha8Rng::seed_from_u64(0xC1C0 + size.qubits as u64);
    let mut circuit = Circuit::new();
    let qubits: Vec<Qubit> = (0..size.qubits).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    let angle = |rng: &mut ChaCha8Rng| rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
    for _ in 0..size.layers {
        for &q in &qubits {
            let kind = match rng.random_range(0..5) {
                0 => GateKind::H,
                1 => GateKind::T,
                2 => GateKind::Sx,
                3 => GateKind::Ry(angle(&mut rng)),
                _ => GateKind::Rz(angle(&mut rng)),
            };
            circuit.push_gate(Gate::one(kind, q));
        }
        let mut order = qubits.clone();
        order.shuffle(&mut rng);
        for pair in order.chunks_exact(2) {
            if rng.random_bool(0.5) {
                circuit.push_gate(Gate::cx(pair[0], pair[1]));
            } else {
                circuit.push_gate(Gate::one(GateKind::Z, pair[1]).controlled(pair[0]));
            }
        }
    }
    circuit
}

/// The configurations timed on every circuit: label and settings.
fn variants(threads: usize) -> Vec<(String, Acceleration)> {
    let fused = Acceleration::fused;
    let mut list = vec![
        ("unfused double 1t".to_owned(), Acceleration::unfused()),
        ("fused double 1t".to_owned(), fused(Precision::Double, 1)),
        ("fused single 1t".to_owned(), fused(Precision::Single, 1)),
    ];
    if threads > 1 {
        list.push((format!("fused double {threads}t"), fused(Precision::Double, threads)));
        list.push((format!("fused single {threads}t"), fused(Precision::Single, threads)));
    }
    list
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
        let mut results = Vec::new();
        let mut reference: Option<Vec<f64>> = None;
        for (label, acceleration) in variants(threads) {
            let simulator = DenseSimulator::with_limits(limits).with_acceleration(acceleration);
            let started = Instant::now();
            let distribution = simulator.probabilities(&circuit).map_err(failed)?;
            let seconds = started.elapsed().as_secs_f64();
            // Every variant must give the same distribution (single precision to 1e-5).
            let deviation = reference.as_ref().map_or(0.0, |r| {
                r.iter().zip(&distribution.probabilities).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max)
            });
            if deviation > 1e-5 {
                return Err(BenchError::Mismatch {
                    what: format!("{label} on {} qubits differs from unfused double by {deviation:e}", size.qubits),
                });
            }
            reference.get_or_insert(distribution.probabilities);
            let bytes = if acceleration.precision == Precision::Single { 8u64 } else { 16 } << size.qubits;
            results.push(json!({
                "variant": label,
                "seconds": seconds,
                "gates_per_s": gates as f64 / seconds,
                "state_mb": bytes as f64 / 1e6,
                "max_probability_deviation": deviation,
                "load": load_average(),
            }));
        }
        // Passes over the state the fused variants make, and how wide their blocks are.
        let unitary: Vec<Gate> = circuit
            .ops
            .iter()
            .filter_map(|op| if let Op::Gate { gate, .. } = op { Some(gate.clone()) } else { None })
            .collect();
        let blocks = fusion::fuse(&unitary, DEFAULT_FUSED_QUBITS);
        let widths: Vec<usize> =
            (1..=DEFAULT_FUSED_QUBITS).map(|w| blocks.iter().filter(|b| b.qubits.len() == w).count()).collect();
        per_size.push(json!({
            "qubits": size.qubits,
            "layers": size.layers,
            "gates": gates,
            "fused_blocks": blocks.len(),
            "fused_block_widths": widths,
            "runs": results,
        }));
    }
    let mut report = WorkloadReport::named("dense-circuits");
    report.peak_states = sizes.iter().map(|size| 1u64 << size.qubits).max();
    report.details = json!({
        "sizes": per_size,
        "timing": "one run per variant, time to the final distribution (allocation included)",
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
        let sizes = [CircuitSize { qubits: 15, layers: 3 }];
        let report = run(&sizes, 2, Some(dir.path())).expect("runs");
        let runs = report.details["sizes"][0]["runs"].as_array().expect("runs");
        assert_eq!(runs.len(), 5);
        let size = &report.details["sizes"][0];
        let (gates, blocks) = (size["gates"].as_u64().expect("gates"), size["fused_blocks"].as_u64().expect("blocks"));
        let widths: u64 =
            size["fused_block_widths"].as_array().expect("widths").iter().filter_map(|w| w.as_u64()).sum();
        assert!(
            blocks > 0 && 3 * blocks < gates && widths == blocks,
            "{blocks} blocks for {gates} gates, widths {widths}"
        );
        let text = std::fs::read_to_string(dir.path().join("random_15.qasm")).expect("written");
        assert!(text.starts_with("OPENQASM 2.0;"), "{text}");
        let parsed =
            qchess_qasm::parse::parse_source(&text, "random_15.qasm").expect("our parser reads our exporter's text");
        assert_eq!(parsed.num_qubits(), 15);
    }
}
