//! The shots of an ISA circuit that measures or resets mid-way.
//!
//! Every shot starts on one state vector. A measurement or reset before the final measurements
//! splits the shots still together between its two outcomes (each shot draws its own with the
//! branch's probability), and each part goes on with its own collapsed state; a reset that
//! read 1 flips the qubit back to 0. The smaller part is followed first on a copy, so at most
//! `log2(shots)` copies are alive at once, and a circuit whose measurements are all final costs
//! a single state. The final measurements are drawn per shot from the branch's distribution.

use qchess_route::IsaOp;
use qchess_route::verify::{State, run_isa};
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::jobs::JobError;
use crate::simulate::Stop;

/// The classical bits of each shot (bit `c` = classical bit `c`; bits past 127 are dropped).
pub fn sample_shots(
    ops: &[IsaOp],
    state: State,
    dense: &dyn Fn(u32) -> usize,
    shots: u64,
    stop: &Stop,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<u128>, JobError> {
    // Past `tail` only measurements remain: those are read off the final distribution.
    let tail = ops.iter().rposition(|op| !matches!(op, IsaOp::Measure { .. })).map_or(0, |last| last + 1);
    let branching = Branching { ops, tail, dense, stop };
    let mut out = Vec::with_capacity(shots as usize);
    branching.follow(0, state, shots, 0, rng, &mut out)?;
    Ok(out)
}

/// A circuit's ops split at `tail`, and where each of its qubits sits in the state.
struct Branching<'a> {
    ops: &'a [IsaOp],
    tail: usize,
    dense: &'a dyn Fn(u32) -> usize,
    stop: &'a Stop<'a>,
}

impl Branching<'_> {
    /// Runs `shots` shots that share `state` and `bits` from op `start` on.
    fn follow(
        &self,
        mut start: usize,
        mut state: State,
        mut shots: u64,
        mut bits: u128,
        rng: &mut ChaCha8Rng,
        out: &mut Vec<u128>,
    ) -> Result<(), JobError> {
        loop {
            self.stop.check().map_err(|failure| JobError::Failed(failure.message))?;
            let unitary = self.ops[start..self.tail]
                .iter()
                .position(|op| matches!(op, IsaOp::Measure { .. } | IsaOp::Reset { .. }))
                .map_or(self.tail, |offset| start + offset);
            run_isa(&self.ops[start..unitary], &mut state, self.dense)?;
            if unitary == self.tail {
                self.finish(&state, shots, bits, rng, out);
                return Ok(());
            }
            // `unitary` stopped at a measurement or a reset: the rest cannot occur.
            let (qubit, clbit) = match self.ops[unitary] {
                IsaOp::Measure { qubit, clbit } => (qubit, Some(clbit)),
                IsaOp::Reset { qubit } => (qubit, None),
                _ => return Err(JobError::Failed("the shot sampler stopped at a gate".to_owned())),
            };
            let position = (self.dense)(qubit);
            let p_one = state.probability_of_one(position);
            let ones = (0..shots).filter(|_| rng.random::<f64>() < p_one).count() as u64;
            let record = |bits: u128, value: bool| match clbit {
                Some(c) if value && c < 128 => bits | 1 << c,
                _ => bits,
            };
            let settle = |state: &mut State, value: bool| {
                state.collapse(position, value);
                if value && clbit.is_none() {
                    state.apply1(position, &X);
                }
            };
            // The smaller part on a copy, then the larger one on this state.
            let (small, large) = if ones * 2 <= shots { (true, false) } else { (false, true) };
            let small_shots = if small { ones } else { shots - ones };
            if small_shots > 0 {
                let mut copy = state.clone();
                settle(&mut copy, small);
                self.follow(unitary + 1, copy, small_shots, record(bits, small), rng, out)?;
            }
            settle(&mut state, large);
            bits = record(bits, large);
            shots -= small_shots;
            start = unitary + 1;
        }
    }

    /// Draws the final measurements of `shots` shots from `state`.
    fn finish(&self, state: &State, shots: u64, bits: u128, rng: &mut ChaCha8Rng, out: &mut Vec<u128>) {
        let cumulative: Vec<f64> = state
            .amplitudes()
            .iter()
            .scan(0.0, |sum, a| {
                *sum += a.norm_sqr();
                Some(*sum)
            })
            .collect();
        let total = cumulative.last().copied().unwrap_or(0.0);
        let measures: Vec<(usize, u32)> = self.ops[self.tail..]
            .iter()
            .filter_map(|op| match *op {
                IsaOp::Measure { qubit, clbit } => Some(((self.dense)(qubit), clbit)),
                _ => None,
            })
            .collect();
        for _ in 0..shots {
            let u = rng.random::<f64>() * total;
            let basis = cumulative.partition_point(|&sum| sum <= u).min(cumulative.len() - 1);
            let shot = measures.iter().fold(bits, |shot, &(position, clbit)| {
                if basis >> position & 1 == 1 && clbit < 128 { shot | 1 << clbit } else { shot }
            });
            out.push(shot);
        }
    }
}

const ZERO: num_complex::Complex64 = num_complex::Complex64::new(0.0, 0.0);
const ONE: num_complex::Complex64 = num_complex::Complex64::new(1.0, 0.0);
/// Pauli X, which returns a qubit a reset found in |1> to |0>.
const X: qchess_circuit::ir::Matrix2 = [[ZERO, ONE], [ONE, ZERO]];

#[cfg(test)]
mod tests {
    use std::f64::consts::FRAC_PI_2;

    use qchess_route::NativeGate;
    use rand::SeedableRng;

    use super::*;

    fn one(gate: NativeGate, qubit: u32) -> IsaOp {
        IsaOp::One { gate, qubit }
    }

    /// Hadamard as the device writes it.
    fn h(qubit: u32) -> [IsaOp; 3] {
        [one(NativeGate::Rz(FRAC_PI_2), qubit), one(NativeGate::Sx, qubit), one(NativeGate::Rz(FRAC_PI_2), qubit)]
    }

    fn run(ops: &[IsaOp], qubits: usize, shots: u64) -> [u64; 4] {
        let mut amplitudes = vec![ZERO; 1 << qubits];
        amplitudes[0] = ONE;
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        static RUNNING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        let stop = Stop::new(std::time::Duration::from_secs(3600), &RUNNING);
        let bits =
            sample_shots(ops, State::from_amplitudes(amplitudes), &|q| q as usize, shots, &stop, &mut rng).unwrap();
        assert_eq!(bits.len() as u64, shots);
        let mut counts = [0; 4];
        bits.iter().for_each(|&b| counts[(b & 3) as usize] += 1);
        counts
    }

    /// Within 6 binomial sigmas of `shots * p` (p < 2e-9 per cell).
    fn near(count: u64, shots: u64, p: f64) -> bool {
        let sigma = (shots as f64 * p * (1.0 - p)).sqrt();
        (count as f64 - shots as f64 * p).abs() <= 6.0 * sigma
    }

    #[test]
    fn a_measured_qubit_is_reset_and_used_again() {
        let ops = [
            one(NativeGate::X, 0),
            IsaOp::Measure { qubit: 0, clbit: 0 },
            IsaOp::Reset { qubit: 0 },
            IsaOp::Measure { qubit: 0, clbit: 1 },
        ];
        // c0 = 1 and c1 = 0 in every shot.
        assert_eq!(run(&ops, 1, 500), [0, 500, 0, 0]);
    }

    #[test]
    fn shots_split_at_each_mid_circuit_measurement() {
        let mut ops: Vec<IsaOp> = h(0).into();
        ops.extend([IsaOp::Measure { qubit: 0, clbit: 0 }, IsaOp::Reset { qubit: 0 }]);
        ops.extend(h(0));
        ops.push(IsaOp::Measure { qubit: 0, clbit: 1 });
        let counts = run(&ops, 1, 4000);
        assert!(counts.iter().all(|&n| near(n, 4000, 0.25)), "{counts:?}");
    }

    #[test]
    fn resetting_half_of_a_bell_pair_leaves_the_other_half_mixed() {
        // H on 0, CNOT 0 -> 1 as H CZ H on 1, then reset 0: qubit 1 stays 50/50, qubit 0 reads 0.
        let mut ops: Vec<IsaOp> = h(0).into();
        ops.extend(h(1));
        ops.push(IsaOp::Two { gate: NativeGate::Cz, a: 0, b: 1 });
        ops.extend(h(1));
        ops.push(IsaOp::Reset { qubit: 0 });
        ops.extend([IsaOp::Measure { qubit: 0, clbit: 0 }, IsaOp::Measure { qubit: 1, clbit: 1 }]);
        let counts = run(&ops, 2, 4000);
        assert_eq!(counts[1] + counts[3], 0, "{counts:?}");
        assert!(near(counts[2], 4000, 0.5), "{counts:?}");
    }
}
