//! Dense gates: random one- and two-qubit gates on full state vectors, timed one by one and
//! compared with the memory-bandwidth floor of the same run.
//!
//! The floor is the time to copy the state vector once (every amplitude read and written once,
//! what a gate on every amplitude must do at least), measured with a plain copy loop into a
//! buffer of the same size. An in-place pass (every amplitude read, scaled and written back)
//! is measured too: it moves the same bytes without the copy's extra read of the target, so it
//! is the stricter floor for kernels that work in place.

use std::hint::black_box;
use std::time::Instant;

use num_complex::Complex64;
use qchess_circuit::ir::{Gate, GateKind, Qubit};
use qchess_sim::dense::{DenseState, Limits};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::error::BenchError;
use crate::report::WorkloadReport;
use crate::stats::{Timings, median};

/// One state size of the dense workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DenseSize {
    /// Qubits of the state.
    pub qubits: usize,
    /// Gates applied.
    pub gates: usize,
}

/// A random gate on `n` qubits: half one-qubit (H, X, T, sqrt X, Rx, Rz), half two-qubit
/// (CX, CZ, SWAP, iSWAP, sqrt-iSWAP, Rzz).
fn random_gate(n: usize, rng: &mut ChaCha8Rng) -> Gate {
    let qubit = |rng: &mut ChaCha8Rng| Qubit(rng.random_range(0..n as u32));
    let angle = |rng: &mut ChaCha8Rng| rng.random_range(-std::f64::consts::PI..std::f64::consts::PI);
    let a = qubit(rng);
    if rng.random_bool(0.5) {
        let kind = match rng.random_range(0..6) {
            0 => GateKind::H,
            1 => GateKind::X,
            2 => GateKind::T,
            3 => GateKind::Sx,
            4 => GateKind::Rx(angle(rng)),
            _ => GateKind::Rz(angle(rng)),
        };
        return Gate::one(kind, a);
    }
    let mut b = qubit(rng);
    while b == a {
        b = qubit(rng);
    }
    match rng.random_range(0..6) {
        0 => Gate::cx(a, b),
        1 => Gate::one(GateKind::Z, b).controlled(a),
        2 => Gate::two(GateKind::Swap, a, b),
        3 => Gate::iswap(a, b, 1.0),
        4 => Gate::iswap(a, b, 0.5),
        _ => Gate::two(GateKind::Rzz(angle(rng)), a, b),
    }
}

/// Median seconds to copy `source` into another buffer, and to scale it in place, over
/// `repeats` runs each (the first run of each also pays for fresh pages; the median drops it).
fn floors(source: &[Complex64], repeats: usize) -> (f64, f64) {
    let mut target = vec![Complex64::new(0.0, 0.0); source.len()];
    let mut copies = Vec::with_capacity(repeats);
    let mut passes = Vec::with_capacity(repeats);
    let phase = Complex64::new(0.0, 1.0);
    for _ in 0..repeats {
        let started = Instant::now();
        target.copy_from_slice(black_box(source));
        black_box(&mut target);
        copies.push(started.elapsed().as_secs_f64());
        let started = Instant::now();
        target.iter_mut().for_each(|a| *a *= phase);
        black_box(&mut target);
        passes.push(started.elapsed().as_secs_f64());
    }
    (median(&copies).unwrap_or(f64::NAN), median(&passes).unwrap_or(f64::NAN))
}

/// Runs `sizes` in order; the state starts in an equal superposition so no amplitude is zero.
pub(crate) fn run(sizes: &[DenseSize]) -> Result<WorkloadReport, BenchError> {
    let mut all = Timings::default();
    let mut per_size = Vec::new();
    let mut rng = ChaCha8Rng::seed_from_u64(0xD15E);
    for size in sizes {
        let limits = Limits::with_max_qubits(size.qubits);
        let amplitude = Complex64::new((0.5f64).powf(size.qubits as f64 / 2.0), 0.0);
        let mut state = DenseState::zero(size.qubits, &limits)
            .map_err(|source| BenchError::Dense { workload: "dense".to_owned(), source })?;
        state.amplitudes_mut().iter_mut().for_each(|a| *a = amplitude);
        let (floor, in_place) = floors(state.amplitudes(), 5);
        let mut timings = Timings::with_capacity(size.gates);
        for _ in 0..size.gates {
            let gate = random_gate(size.qubits, &mut rng);
            let started = Instant::now();
            state.apply_gate(&gate).map_err(|source| BenchError::Dense { workload: "dense".to_owned(), source })?;
            let elapsed = started.elapsed();
            timings.push(elapsed);
            all.push(elapsed);
        }
        let norm = state.norm_sqr();
        if (norm - 1.0).abs() > 1e-9 {
            return Err(BenchError::NormDrift { qubits: size.qubits, gates: size.gates, norm });
        }
        let summary = timings.summary();
        let median_s = summary.map_or(f64::NAN, |s| s.median_us / 1e6);
        let bytes = (16usize << size.qubits) as f64;
        per_size.push(json!({
            "qubits": size.qubits,
            "gates": size.gates,
            "median_gate_us": summary.map(|s| s.median_us),
            "p99_gate_us": summary.map(|s| s.p99_us),
            "gates_per_s": 1.0 / median_s,
            "copy_bandwidth_gb_per_s": 2.0 * bytes / floor / 1e9,
            "floor_us": floor * 1e6,
            "ratio_to_floor": median_s / floor,
            "in_place_floor_us": in_place * 1e6,
            "ratio_to_in_place_floor": median_s / in_place,
        }));
        drop(state);
    }
    let mut report = WorkloadReport::named("dense").with_summary(all.summary());
    // A dense state holds every amplitude: 2^n of 16 bytes.
    report.peak_states = sizes.iter().map(|size| 1u64 << size.qubits).max();
    report.bytes_per_state = Some(std::mem::size_of::<Complex64>() as f64);
    report.details = json!({
        "sizes": per_size,
        "floor": "one copy of the state vector (every amplitude read and written once), measured in the same run; in_place_floor: one read-scale-write pass",
    });
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_gates_are_well_formed() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..200 {
            let gate = random_gate(5, &mut rng);
            gate.check_shape(5).expect("valid gate");
        }
    }

    #[test]
    fn a_small_run_reports_each_size() {
        let report = run(&[DenseSize { qubits: 6, gates: 20 }, DenseSize { qubits: 8, gates: 10 }]).expect("runs");
        assert_eq!(report.moves, Some(30));
        let sizes = report.details["sizes"].as_array().expect("sizes");
        assert_eq!(sizes.len(), 2);
        assert!(sizes[1]["ratio_to_floor"].as_f64().is_some_and(|r| r > 0.0));
    }
}
