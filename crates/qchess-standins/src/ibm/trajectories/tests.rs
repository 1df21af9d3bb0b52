//! Tests of the trajectory sampler: mid-circuit measurements and resets split the shots, and
//! noisy circuits give the exact distribution of an independent density-matrix calculation.

use std::f64::consts::FRAC_PI_2;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use num_complex::Complex64;
use qchess_route::NativeGate;
use rand::SeedableRng;

use super::*;

static RUNNING: AtomicBool = AtomicBool::new(false);

fn stop() -> Stop<'static> {
    Stop::new(Duration::from_secs(3600), &RUNNING)
}

fn one(gate: NativeGate, qubit: usize) -> (Step, Option<BitTest>) {
    (Step::One { qubit, matrix: gate.matrix2().expect("one qubit"), noise: None }, None)
}

fn measure(qubit: usize, clbit: u32) -> (Step, Option<BitTest>) {
    (Step::Measure { qubit, clbit, readout: 0.0 }, None)
}

/// Hadamard as the device writes it.
fn h(qubit: usize) -> Vec<(Step, Option<BitTest>)> {
    vec![one(NativeGate::Rz(FRAC_PI_2), qubit), one(NativeGate::Sx, qubit), one(NativeGate::Rz(FRAC_PI_2), qubit)]
}

fn counts(schedule: &Schedule, shots: u64, outcomes: usize) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let bits = schedule.sample(shots, &mut rng, &stop()).expect("samples");
    assert_eq!(bits.len() as u64, shots);
    let mut counts = vec![0; outcomes];
    bits.iter().for_each(|&b| counts[b as usize % outcomes] += 1);
    counts
}

/// Within 6 binomial sigmas of `shots * p` (p < 2e-9 per cell).
fn near(count: u64, shots: u64, p: f64) -> bool {
    let sigma = (shots as f64 * p * (1.0 - p)).sqrt().max(0.5);
    (count as f64 - shots as f64 * p).abs() <= 6.0 * sigma
}

#[test]
fn a_measured_qubit_is_reset_and_used_again() {
    let steps = vec![one(NativeGate::X, 0), measure(0, 0), (Step::Reset { qubit: 0 }, None), measure(0, 1)];
    // c0 = 1 and c1 = 0 in every shot.
    assert_eq!(counts(&Schedule { qubits: 1, steps }, 500, 4), [0, 500, 0, 0]);
}

#[test]
fn shots_split_at_each_mid_circuit_measurement_and_follow_conditions() {
    let mut steps = h(0);
    steps.extend([measure(0, 0), (Step::Reset { qubit: 0 }, None)]);
    steps.extend(h(0));
    steps.push(measure(0, 1));
    let counted = counts(&Schedule { qubits: 1, steps: steps.clone() }, 4000, 4);
    assert!(counted.iter().all(|&n| near(n, 4000, 0.25)), "{counted:?}");
    // X on qubit 1 when c0 reads 1: c2 copies c0.
    let x = NativeGate::X.matrix2().expect("x");
    steps
        .push((Step::One { qubit: 1, matrix: x, noise: None }, Some(BitTest { bits: vec![0], value: 1, equal: true })));
    steps.push(measure(1, 2));
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let bits = Schedule { qubits: 2, steps }.sample(2000, &mut rng, &stop()).expect("samples");
    assert!(bits.iter().all(|b| b & 1 == b >> 2 & 1), "the condition copies c0 into c2");
    assert!(bits.iter().any(|b| b & 1 == 1) && bits.iter().any(|b| b & 1 == 0));
}

/// A density matrix over `n` qubits, channels applied as Kraus operators.
struct Density {
    n: usize,
    rho: Vec<Vec<Complex64>>,
}

type Operator = Vec<Vec<Complex64>>;

impl Density {
    fn new(n: usize) -> Density {
        let d = 1 << n;
        let mut rho = vec![vec![Complex64::new(0.0, 0.0); d]; d];
        rho[0][0] = Complex64::new(1.0, 0.0);
        Density { n, rho }
    }

    /// The full matrix of `op` on `qubits` (index bit i of `op` = `qubits[i]`).
    fn lift(&self, op: &Operator, qubits: &[usize]) -> Operator {
        let d = 1 << self.n;
        let others = qubits.iter().fold(0, |m, &q| m | 1 << q);
        let local = |x: usize| qubits.iter().enumerate().fold(0, |m, (i, &q)| m | (x >> q & 1) << i);
        (0..d)
            .map(|r| {
                (0..d)
                    .map(|c| if r & !others != c & !others { Complex64::new(0.0, 0.0) } else { op[local(r)][local(c)] })
                    .collect()
            })
            .collect()
    }

    /// rho -> sum_k K rho K^dagger.
    fn channel(&mut self, kraus: &[Operator], qubits: &[usize]) {
        let d = 1 << self.n;
        let mut out = vec![vec![Complex64::new(0.0, 0.0); d]; d];
        for k in kraus {
            let full = self.lift(k, qubits);
            for (r, row) in out.iter_mut().enumerate() {
                for (c, entry) in row.iter_mut().enumerate() {
                    for i in 0..d {
                        for j in 0..d {
                            *entry += full[r][i] * self.rho[i][j] * full[c][j].conj();
                        }
                    }
                }
            }
        }
        self.rho = out;
    }
}

fn operator(m: &[[Complex64; 2]; 2]) -> Operator {
    m.iter().map(|row| row.to_vec()).collect()
}

fn scaled(m: &Operator, weight: f64) -> Operator {
    m.iter().map(|row| row.iter().map(|x| x * weight.sqrt()).collect()).collect()
}

/// `a` on the first qubit and `b` on the second (index bit 0 = `a`'s qubit).
fn kron(a: &Operator, b: &Operator) -> Operator {
    (0..4).map(|r| (0..4).map(|c| a[r & 1][c & 1] * b[r >> 1][c >> 1]).collect()).collect()
}

/// The exact distribution of a noisy gate sequence that ends by measuring every qubit.
fn exact(steps: &[(Step, Option<BitTest>)], n: usize) -> Vec<f64> {
    let c = |x: f64| Complex64::new(x, 0.0);
    let identity = vec![vec![c(1.0), c(0.0)], vec![c(0.0), c(1.0)]];
    let paulis: Vec<Operator> =
        (0..4u64).map(|k| if k == 0 { identity.clone() } else { operator(&pauli(k)) }).collect();
    let mut density = Density::new(n);
    let mut readout = vec![0.0; n];
    for (step, _) in steps {
        let (noise, qubits) = match step {
            Step::One { qubit, matrix, noise } => {
                density.channel(&[operator(matrix)], &[*qubit]);
                (noise, vec![*qubit])
            }
            Step::Two { a, b, matrix, noise } => {
                density.channel(&[matrix.iter().map(|row| row.to_vec()).collect()], &[*a, *b]);
                (noise, vec![*a, *b])
            }
            Step::Measure { qubit, readout: r, .. } => {
                readout[*qubit] = *r;
                continue;
            }
            Step::Reset { .. } => unreachable!("not in these tests"),
        };
        let Some(noise) = noise else { continue };
        // Depolarizing: (1 - p) rho + p/4^k sum_P P rho P.
        let k = qubits.len();
        let count = 1usize << (2 * k);
        let p = noise.depolarizing;
        let kraus: Vec<Operator> = (0..count)
            .map(|code| {
                let weight = if code == 0 { 1.0 - p + p / count as f64 } else { p / count as f64 };
                let op = if k == 1 { paulis[code].clone() } else { kron(&paulis[code & 3], &paulis[code >> 2]) };
                scaled(&op, weight)
            })
            .collect();
        density.channel(&kraus, &qubits);
        for &(qubit, jump, dephasing) in &noise.relaxation {
            let k0 = vec![vec![c(1.0), c(0.0)], vec![c(0.0), c((1.0 - jump).sqrt())]];
            let k1 = vec![vec![c(0.0), c(jump.sqrt())], vec![c(0.0), c(0.0)]];
            density.channel(&[k0, k1], &[qubit]);
            density.channel(&[scaled(&identity, 1.0 - dephasing), scaled(&paulis[3], dephasing)], &[qubit]);
        }
    }
    let d = 1 << n;
    (0..d)
        .map(|read| {
            (0..d)
                .map(|actual| {
                    let flips: f64 = (0..n)
                        .map(|q| if (read ^ actual) >> q & 1 == 1 { readout[q] } else { 1.0 - readout[q] })
                        .product();
                    density.rho[actual][actual].re * flips
                })
                .sum()
        })
        .collect()
}

/// A Bell pair (H, H, CZ, H) measured in the X basis (H on both), every kind of noise on
/// every sx and the CZ, exaggerated so that each shows at 200,000 shots: the sampled frequencies
/// match the density-matrix distribution within 6 sigmas per outcome.
#[test]
fn noisy_shots_follow_the_exact_channel() {
    let noise = |qubits: Vec<usize>, p: f64| GateNoise {
        relaxation: qubits.iter().map(|&q| (q, 0.08 + 0.02 * q as f64, 0.05)).collect(),
        qubits,
        depolarizing: p,
    };
    let sx = NativeGate::Sx.matrix2().expect("sx");
    let noisy_h = |qubit: usize, p: f64| -> Vec<(Step, Option<BitTest>)> {
        h(qubit)
            .into_iter()
            .map(|(step, _)| match step {
                Step::One { qubit, matrix, .. } if matrix == sx => {
                    (Step::One { qubit, matrix, noise: Some(noise(vec![qubit], p)) }, None)
                }
                other => (other, None),
            })
            .collect()
    };
    let mut steps = noisy_h(0, 0.3);
    steps.extend(noisy_h(1, 0.2));
    let cz = NativeGate::Cz.matrix4().expect("cz");
    steps.push((Step::Two { a: 0, b: 1, matrix: cz, noise: Some(noise(vec![0, 1], 0.4)) }, None));
    steps.extend(noisy_h(1, 0.1));
    steps.extend(noisy_h(0, 0.05));
    steps.extend(noisy_h(1, 0.0));
    steps.push((Step::Measure { qubit: 0, clbit: 0, readout: 0.03 }, None));
    steps.push((Step::Measure { qubit: 1, clbit: 1, readout: 0.07 }, None));
    let expected = exact(&steps, 2);
    assert!((expected.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    let shots = 200_000;
    let counted = counts(&Schedule { qubits: 2, steps }, shots, 4);
    for (outcome, (&count, &p)) in counted.iter().zip(&expected).enumerate() {
        assert!(near(count, shots, p), "outcome {outcome}: {count} of {shots} vs p = {p} ({expected:?})");
    }
    // Without noise only 00 and 11 would be read; the errors make the others likely.
    assert!(expected[1] > 0.05 && expected[2] > 0.05, "{expected:?}");
}
