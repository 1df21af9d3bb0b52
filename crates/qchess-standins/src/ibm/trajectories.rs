//! Shots of an ISA circuit under the device noise (or none), grouped by what happened to them.
//!
//! Every shot starts in one group on one state. Wherever a shot's history can differ from its
//! group's (a depolarizing Pauli, a relaxation jump or phase flip after a gate, a mid-circuit
//! measurement or reset outcome, a misread bit), the group's shots draw their events at once
//! (binomial counts with the probabilities the state gives) and the shots that drew an event
//! go on as a group of their own, on a copy of the state with the event applied. Most shots
//! see no error, so a circuit costs one simulation per distinct history rather than one per
//! shot, and every shot is drawn exactly from the model's distribution. The final
//! measurements are read per shot from the group's final distribution, each bit misread with
//! its readout error. The shots come out shuffled, so any prefix of them is a fair sample.

use num_complex::Complex64;
use qchess_circuit::ir::{GateKind, Matrix2, Matrix4};
use qchess_qasm::program::BitTest;
use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};

use super::state::{Amplitudes, TooLarge};
use crate::stop::Stop;

/// Noise after a gate: a depolarizing channel and relaxation of each qubit.
#[derive(Debug, Clone, PartialEq)]
pub struct GateNoise {
    /// The gate's qubits (state positions).
    pub qubits: Vec<usize>,
    /// The depolarizing parameter on them.
    pub depolarizing: f64,
    /// `(qubit position, jump probability from |1>, phase-flip probability)`.
    pub relaxation: Vec<(usize, f64, f64)>,
}

/// One step of a schedule.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A one-qubit gate.
    One {
        /// State position.
        qubit: usize,
        /// Its matrix.
        matrix: Matrix2,
        /// The noise after it.
        noise: Option<GateNoise>,
    },
    /// A two-qubit gate (index bit 0 = `a`).
    Two {
        /// First operand.
        a: usize,
        /// Second operand.
        b: usize,
        /// Its matrix.
        matrix: Matrix4,
        /// The noise after it.
        noise: Option<GateNoise>,
    },
    /// A measurement into classical bit `clbit`, misread with probability `readout`.
    Measure {
        /// State position.
        qubit: usize,
        /// The bit written (below 128).
        clbit: u32,
        /// Probability the bit is written wrong.
        readout: f64,
    },
    /// A reset to |0>.
    Reset {
        /// State position.
        qubit: usize,
    },
}

/// A circuit ready to sample: its steps, each under an optional condition on classical bits.
#[derive(Debug, Clone, Default)]
pub struct Schedule {
    /// Qubits of the state.
    pub qubits: usize,
    /// The steps, each with the condition it runs under.
    pub steps: Vec<(Step, Option<BitTest>)>,
}

/// Why sampling stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum SampleError {
    /// The state grew past what is simulated.
    TooLarge(TooLarge),
    /// The job's time limit passed, or it was cancelled.
    Stopped(String),
}

const ZERO: Complex64 = Complex64::new(0.0, 0.0);
const ONE: Complex64 = Complex64::new(1.0, 0.0);

fn pauli(kind: u64) -> Matrix2 {
    match kind {
        1 => GateKind::X.matrix2(),
        2 => GateKind::Y.matrix2(),
        _ => GateKind::Z.matrix2(),
    }
    .unwrap_or([[ONE, ZERO], [ZERO, ONE]])
}

/// Shots that share a state, their classical bits, and where they are.
#[derive(Debug, Clone)]
struct Group {
    state: Amplitudes,
    shots: u64,
    bits: u128,
    step: usize,
    /// 0: the gate; 1: depolarizing; 2 + 2r, 3 + 2r: relaxation r's jump, then its phase flip.
    stage: usize,
    /// Probabilities of 1 already computed for the current state: (qubit, P(1)).
    known: Vec<(usize, f64)>,
}

impl Group {
    /// A group of `shots` shots on `state` that resumes at `step`, `stage`.
    fn resume(state: Amplitudes, shots: u64, bits: u128, step: usize, stage: usize) -> Group {
        Group { state, shots, bits, step, stage, known: Vec::new() }
    }

    /// The probability that qubit `q` reads 1, computed once per state.
    fn p_one(&mut self, q: usize) -> f64 {
        if let Some(&(_, p)) = self.known.iter().find(|(k, _)| *k == q) {
            return p;
        }
        let p = self.state.probability_of_one(q).clamp(0.0, 1.0);
        self.known.push((q, p));
        p
    }
}

/// Whether a probability of 1 says the qubit is in a definite basis state (to rounding).
fn definite(p_one: f64) -> bool {
    !(1e-12..=1.0 - 1e-12).contains(&p_one)
}

/// A binomial draw, exact for any `n` and `p` in [0, 1].
fn binomial(rng: &mut ChaCha8Rng, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    Binomial::new(n, p).map_or(0, |b| b.sample(rng))
}

impl Schedule {
    /// Where the final measurements start: after the last step that is not an unconditional
    /// measurement.
    fn tail(&self) -> usize {
        self.steps
            .iter()
            .rposition(|(step, test)| !matches!(step, Step::Measure { .. }) || test.is_some())
            .map_or(0, |i| i + 1)
    }

    /// `shots` shots, each its classical bits (bit `c` = classical bit `c`), in random order.
    pub fn sample(&self, shots: u64, rng: &mut ChaCha8Rng, stop: &Stop) -> Result<Vec<u128>, SampleError> {
        stop.check().map_err(|stopped| SampleError::Stopped(stopped.to_string()))?;
        let tail = self.tail();
        let mut out = Vec::with_capacity(shots as usize);
        let mut pending = vec![Group::resume(Amplitudes::zero(self.qubits), shots, 0, 0, 0)];
        let mut checks = 0u32;
        while let Some(mut group) = pending.pop() {
            while group.step < tail {
                checks = checks.wrapping_add(1);
                if checks.is_multiple_of(64) {
                    stop.check().map_err(|stopped| SampleError::Stopped(stopped.to_string()))?;
                }
                let (step, test) = &self.steps[group.step];
                if group.stage == 0
                    && test.as_ref().is_some_and(|t| !t.holds(|bit| bit < 128 && group.bits >> bit & 1 == 1))
                {
                    group.step += 1;
                    continue;
                }
                match self.advance(step, &mut group, rng, &mut pending).map_err(SampleError::TooLarge)? {
                    true => {
                        group.step += 1;
                        group.stage = 0;
                    }
                    false => group.stage += 1,
                }
                if group.shots == 0 {
                    break;
                }
            }
            if group.shots > 0 && group.step >= tail {
                self.finish(&group, tail, rng, &mut out);
            }
        }
        out.shuffle(rng);
        Ok(out)
    }

    /// Runs one stage of `step` on `group`, splitting off groups with events into `pending`;
    /// `true` once the step is done.
    fn advance(
        &self,
        step: &Step,
        group: &mut Group,
        rng: &mut ChaCha8Rng,
        pending: &mut Vec<Group>,
    ) -> Result<bool, TooLarge> {
        match step {
            Step::One { qubit, matrix, noise } => {
                if group.stage == 0 {
                    group.state.apply1(*qubit, matrix)?;
                    group.known.clear();
                }
                self.noise(noise.as_ref(), group, rng, pending)
            }
            Step::Two { a, b, matrix, noise } => {
                if group.stage == 0 {
                    group.state.apply2(*a, *b, matrix)?;
                    group.known.clear();
                }
                self.noise(noise.as_ref(), group, rng, pending)
            }
            Step::Measure { qubit, clbit, readout } => {
                let p_one = group.p_one(*qubit);
                let ones = binomial(rng, group.shots, p_one);
                let mut parts: Vec<(bool, bool, u64)> = Vec::new();
                for (value, count) in [(false, group.shots - ones), (true, ones)] {
                    let misread = binomial(rng, count, *readout);
                    parts.push((value, value, count - misread));
                    parts.push((value, !value, misread));
                }
                split(
                    group,
                    parts,
                    pending,
                    |state, value| state.project(*qubit, value),
                    |bits, written| {
                        if *clbit < 128 { if written { bits | 1 << clbit } else { bits & !(1 << clbit) } } else { bits }
                    },
                );
                Ok(true)
            }
            Step::Reset { qubit } => {
                let p_one = group.p_one(*qubit);
                let ones = binomial(rng, group.shots, p_one);
                let parts = vec![(false, false, group.shots - ones), (true, false, ones)];
                let x = pauli(1);
                split(
                    group,
                    parts,
                    pending,
                    |state, value| {
                        state.project(*qubit, value);
                        if value {
                            // Back to |0>: a permutation never grows the state.
                            let _ = state.apply1(*qubit, &x);
                        }
                    },
                    |bits, _| bits,
                );
                Ok(true)
            }
        }
    }

    /// One noise stage after a gate; `true` when the gate's noise is done.
    fn noise(
        &self,
        noise: Option<&GateNoise>,
        group: &mut Group,
        rng: &mut ChaCha8Rng,
        pending: &mut Vec<Group>,
    ) -> Result<bool, TooLarge> {
        let Some(noise) = noise else { return Ok(true) };
        let stage = group.stage;
        if stage == 0 {
            return Ok(noise.depolarizing == 0.0 && noise.relaxation.is_empty());
        }
        if stage == 1 {
            // A non-identity Pauli with probability p (4^k - 1)/4^k, each equally likely.
            let paulis = (1u64 << (2 * noise.qubits.len())) - 1;
            let p_any = noise.depolarizing * paulis as f64 / (paulis + 1) as f64;
            let hit = binomial(rng, group.shots, p_any);
            if hit > 0 {
                // On a qubit in a definite basis state Z is a global phase and Y acts as X: shots
                // whose Paulis reduce to the identity stay in the group, and Paulis that reduce
                // to the same operator share one group.
                let definite: Vec<bool> = noise.qubits.iter().map(|&q| definite(group.p_one(q))).collect();
                let mut counts = vec![0u64; paulis as usize + 1];
                for _ in 0..hit {
                    let mut code = rng.random_range(1..=paulis);
                    for (i, &fixed) in definite.iter().enumerate() {
                        let kind = code >> (2 * i) & 3;
                        if fixed && kind >= 2 {
                            code ^= (kind ^ u64::from(kind == 2)) << (2 * i);
                        }
                    }
                    counts[code as usize] += 1;
                }
                for (code, &count) in counts.iter().enumerate().skip(1).filter(|(_, c)| **c > 0) {
                    let mut child = Group::resume(group.state.clone(), count, group.bits, group.step, stage + 1);
                    for (i, &qubit) in noise.qubits.iter().enumerate() {
                        let kind = (code as u64) >> (2 * i) & 3;
                        if kind != 0 {
                            child.state.apply1(qubit, &pauli(kind))?;
                        }
                    }
                    pending.push(child);
                }
                group.shots -= hit - counts[0];
            }
        } else {
            let r = (stage - 2) / 2;
            let Some(&(qubit, jump, dephasing)) = noise.relaxation.get(r) else { return Ok(true) };
            if stage.is_multiple_of(2) {
                let p_one = group.p_one(qubit);
                let jumped = binomial(rng, group.shots, jump * p_one);
                if jumped > 0 {
                    let mut child = Group::resume(group.state.clone(), jumped, group.bits, group.step, stage + 2);
                    child.state.project(qubit, true);
                    child.state.apply1(qubit, &pauli(1))?;
                    child.known.push((qubit, 0.0));
                    pending.push(child);
                    group.shots -= jumped;
                }
                if !definite(p_one) && jump > 0.0 {
                    group.state.damp(qubit, jump, p_one);
                    let after = (1.0 - jump) * p_one / (1.0 - jump * p_one);
                    group.known.retain(|(k, _)| *k != qubit);
                    group.known.push((qubit, after));
                }
            } else if !definite(group.p_one(qubit)) {
                // A phase flip of a qubit in a basis state changes nothing observable.
                let flipped = binomial(rng, group.shots, dephasing);
                if flipped > 0 {
                    let mut child = Group::resume(group.state.clone(), flipped, group.bits, group.step, stage + 1);
                    child.state.apply1(qubit, &pauli(3))?;
                    pending.push(child);
                    group.shots -= flipped;
                }
            }
        }
        Ok(stage + 1 >= 2 + 2 * noise.relaxation.len())
    }

    /// Reads the final measurements of every shot of `group`.
    fn finish(&self, group: &Group, tail: usize, rng: &mut ChaCha8Rng, out: &mut Vec<u128>) {
        let distribution = group.state.distribution();
        let cumulative: Vec<f64> = distribution
            .iter()
            .scan(0.0, |sum, &(_, p)| {
                *sum += p;
                Some(*sum)
            })
            .collect();
        let total = cumulative.last().copied().unwrap_or(0.0);
        let finals: Vec<(usize, u32, f64)> = self.steps[tail..]
            .iter()
            .filter_map(|(step, _)| match *step {
                Step::Measure { qubit, clbit, readout } => Some((qubit, clbit, readout)),
                _ => None,
            })
            .collect();
        for _ in 0..group.shots {
            let u = rng.random::<f64>() * total;
            let index = cumulative.partition_point(|&sum| sum <= u).min(cumulative.len().saturating_sub(1));
            let basis = distribution.get(index).map_or(0, |&(k, _)| k);
            let mut bits = group.bits;
            for &(qubit, clbit, readout) in &finals {
                let value = (basis >> qubit & 1 == 1) != (readout > 0.0 && rng.random::<f64>() < readout);
                if clbit < 128 {
                    bits = if value { bits | 1 << clbit } else { bits & !(1 << clbit) };
                }
            }
            out.push(bits);
        }
    }
}

/// Splits `group` into parts `(outcome, written value, shots)`: the largest part goes on in
/// `group`, the others on copies pushed to `pending`.
fn split(
    group: &mut Group,
    parts: Vec<(bool, bool, u64)>,
    pending: &mut Vec<Group>,
    settle: impl Fn(&mut Amplitudes, bool),
    write: impl Fn(u128, bool) -> u128,
) {
    let parts: Vec<(bool, bool, u64)> = parts.into_iter().filter(|p| p.2 > 0).collect();
    let Some(largest) = parts.iter().enumerate().max_by_key(|(_, p)| p.2).map(|(i, _)| i) else {
        group.shots = 0;
        return;
    };
    for (i, &(value, written, shots)) in parts.iter().enumerate() {
        if i == largest {
            continue;
        }
        let mut state = group.state.clone();
        settle(&mut state, value);
        pending.push(Group::resume(state, shots, write(group.bits, written), group.step + 1, 0));
    }
    let (value, written, shots) = parts[largest];
    settle(&mut group.state, value);
    group.known.clear();
    group.bits = write(group.bits, written);
    group.shots = shots;
}

#[cfg(test)]
mod tests;
