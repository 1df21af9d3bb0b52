//! What a gate costs on each part of the device, in the currency of the estimated success
//! probability: `-ln(1 - e)` per gate, so that costs add up where probabilities multiply.
//!
//! SWAP paths are weighed by these costs rather than by hop counts: [`Costs::distance`] is the
//! cheapest path between two qubits with each coupler weighted by its two-qubit gate's cost,
//! divided by the median coupler's (so one typical hop is 1). Without a calibration every
//! coupler weighs 1 and distances are hop counts.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::target::Target;
use crate::target::calibration::cost_of;

/// The cost tables of one (usable) target.
#[derive(Debug, Clone)]
pub struct Costs {
    n: usize,
    /// Cost of the two-qubit gate on each pair, `n * n`, infinite where uncoupled.
    gate: Vec<f64>,
    /// Cheapest path weight between two qubits, in median couplers, `n * n`.
    distance: Vec<f64>,
    /// Cost of a one-qubit `sx` on each qubit.
    pub one_qubit: Vec<f64>,
    /// Cost of measuring each qubit.
    pub readout: Vec<f64>,
    /// How good each qubit is to hold an interacting qubit (see [`Costs::quality`]).
    quality: Vec<f64>,
    /// The median coupler's gate cost.
    median: f64,
}

/// A queue entry of Dijkstra's search: a distance and a qubit, nearest first.
#[derive(Debug, PartialEq)]
struct Entry(f64, u32);

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Entry) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Entry) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl Costs {
    /// The costs of `target`'s couplings and qubits.
    pub fn new(target: &Target) -> Costs {
        let n = target.num_qubits as usize;
        let mut gate = vec![f64::INFINITY; n * n];
        let mut known: Vec<f64> = Vec::new();
        for a in 0..target.num_qubits {
            for &b in target.neighbours(a) {
                let cost = if target.is_calibrated() { cost_of(target.coupler_error(a, b)) } else { 1.0 };
                gate[a as usize * n + b as usize] = cost;
                if cost.is_finite() && a < b {
                    known.push(cost);
                }
            }
        }
        known.sort_by(f64::total_cmp);
        let median = known.get(known.len() / 2).copied().filter(|&m| m > 0.0).unwrap_or(1.0);
        // A hop weighs at least a tenth of a typical one (a perfect coupler is not free) and at
        // most twenty (a bad one is still a way through).
        let weight = |cost: f64| (cost / median).clamp(0.1, 20.0);
        let mut distance = vec![f64::INFINITY; n * n];
        if !target.is_calibrated() {
            // Every coupler weighs 1: the hop counts the target already has.
            for (a, row) in distance.chunks_mut(n.max(1)).enumerate() {
                for (b, entry) in row.iter_mut().enumerate() {
                    let hops = target.distance(a as u32, b as u32);
                    if hops < u16::MAX {
                        *entry = f64::from(hops);
                    }
                }
            }
        }
        for start in (0..n).filter(|_| target.is_calibrated()) {
            let row = &mut distance[start * n..(start + 1) * n];
            row[start] = 0.0;
            let mut heap = BinaryHeap::from([Entry(0.0, start as u32)]);
            while let Some(Entry(d, q)) = heap.pop() {
                if d > row[q as usize] {
                    continue;
                }
                for &next in target.neighbours(q) {
                    let step = gate[q as usize * n + next as usize];
                    if !step.is_finite() {
                        continue;
                    }
                    let candidate = d + weight(step);
                    if candidate < row[next as usize] {
                        row[next as usize] = candidate;
                        heap.push(Entry(candidate, next));
                    }
                }
            }
        }
        let one_qubit: Vec<f64> =
            (0..target.num_qubits).map(|q| cost_of(target.one_qubit_error(crate::native::NativeGate::Sx, q))).collect();
        let readout: Vec<f64> = (0..target.num_qubits).map(|q| cost_of(target.readout_error(q))).collect();
        let quality = (0..target.num_qubits)
            .map(|q| {
                if target.is_excluded(q) {
                    return f64::NEG_INFINITY;
                }
                let couplings: f64 = target
                    .neighbours(q)
                    .iter()
                    .map(|&p| (1.0 - 0.3 * weight(gate[q as usize * n + p as usize])).max(0.0))
                    .sum();
                couplings - 10.0 * readout[q as usize].min(1.0)
            })
            .collect();
        Costs { n, gate, distance, one_qubit, readout, quality, median }
    }

    /// The cost of the two-qubit gate on `a` and `b` (infinite when not coupled).
    pub fn gate(&self, a: u32, b: u32) -> f64 {
        self.gate[a as usize * self.n + b as usize]
    }

    /// The cheapest path between `a` and `b`, couplers weighted by their gates' costs in units of
    /// the median coupler's (infinite when unreachable).
    pub fn distance(&self, a: u32, b: u32) -> f64 {
        self.distance[a as usize * self.n + b as usize]
    }

    /// The cost of one hop on the coupling `a`-`b` in median couplers (for SWAP scores).
    pub fn hop(&self, a: u32, b: u32) -> f64 {
        (self.gate(a, b) / self.median).clamp(0.1, 20.0)
    }

    /// How good each qubit is to hold an interacting qubit: the couplers around it (each the
    /// less the worse its gate), less its readout cost; excluded qubits are the worst.
    pub fn quality(&self) -> &[f64] {
        &self.quality
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_coupler_is_walked_around_and_hops_count_without_a_calibration() {
        // A square 0-1-2-3-0 whose coupler 0-1 is 20 times the others' error.
        let text = r#"{"name": "square", "qubits": 4, "basis": "cz", "coupling": [[0, 1], [1, 2], [2, 3], [3, 0]],
                       "pair_errors": [[0, 1, 0.2], [1, 2, 0.01], [2, 3, 0.01], [3, 0, 0.01]]}"#;
        let square = Target::from_json(text, "square").expect("valid");
        let costs = Costs::new(&square);
        assert!((costs.gate(1, 2) - -(0.99f64).ln()).abs() < 1e-12);
        assert!((costs.distance(0, 1) - 3.0).abs() < 1e-9, "around: {}", costs.distance(0, 1));
        assert!((costs.distance(0, 2) - 2.0).abs() < 1e-9);
        let plain = Costs::new(&Target::resolve("line:4").expect("preset"));
        assert_eq!((plain.distance(0, 3), plain.gate(1, 2), plain.gate(0, 2)), (3.0, 1.0, f64::INFINITY));
    }
}
