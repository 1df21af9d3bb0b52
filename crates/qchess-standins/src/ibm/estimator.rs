//! Estimator V2 pubs: expectation values of Pauli-sum observables.
//!
//! Without noise they are exact: the bound circuit's final state, `<psi|P|psi>` for each
//! term, and standard errors of 0. With the device's noise they are estimated from shots, as
//! the service estimates them: the terms of the pub's observables are grouped into
//! qubit-wise commuting sets; each set is measured in its basis (an `sx`-like basis change, with
//! an `sx`'s noise, on each X or Y qubit) for the pub's shots through the device noise; each
//! observable's value is the sum over sets of the mean of its terms' eigenvalues, and its
//! standard error the square root of the sum of the sets' variances over their shots.

use num_complex::Complex64;
use qchess_circuit::ir::{GateKind, Matrix2};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::noise::Calibration;
use super::pubs::{EstimatorPub, Pauli, broadcast, broadcast_index};
use super::runtime;
use super::sampler::{PubError, basis_change_noise, schedule, used_qubits};
use super::state::Amplitudes;
use super::trajectories::Step;
use crate::stop::Stop;

/// Expectation values and standard errors of a pub, shaped as its broadcast shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimates {
    /// The broadcast shape.
    pub shape: Vec<usize>,
    /// Expectation values, row-major.
    pub evs: Vec<f64>,
    /// Standard errors, row-major.
    pub stds: Vec<f64>,
}

/// Runs an Estimator pub.
pub fn run(
    pub_: &EstimatorPub,
    target: &qchess_route::Target,
    calibration: Option<&Calibration>,
    rng: &mut ChaCha8Rng,
    stop: &Stop,
) -> Result<Estimates, PubError> {
    let shape = broadcast(&pub_.observables.shape, &pub_.bindings.shape)
        .ok_or_else(|| PubError::Invalid("shapes do not broadcast".into()))?;
    let count: usize = shape.iter().product();
    let (mut evs, mut stds) = (vec![0.0; count], vec![0.0; count]);
    for (binding, values) in pub_.bindings.rows.iter().enumerate() {
        stop.check().map_err(|stopped| PubError::Stopped(stopped.to_string()))?;
        // The result elements that read this binding, and their observables.
        let elements: Vec<(usize, usize)> = (0..count)
            .filter(|&flat| broadcast_index(&pub_.bindings.shape, &shape, flat) == binding)
            .map(|flat| (flat, broadcast_index(&pub_.observables.shape, &shape, flat)))
            .collect();
        let circuit = pub_.circuit.bind(values, target).map_err(PubError::Invalid)?;
        let support = elements
            .iter()
            .flat_map(|&(_, o)| pub_.observables.items[o].iter().flat_map(|(p, _)| p.iter().map(|&(q, _)| q)));
        let used = used_qubits(&circuit, support.collect::<Vec<u32>>());
        let base = schedule(&circuit, &used, calibration).map_err(PubError::Invalid)?;
        let position = |q: u32| used.binary_search(&q).unwrap_or(0);
        let observables: Vec<&Vec<(Pauli, f64)>> = elements.iter().map(|&(_, o)| &pub_.observables.items[o]).collect();
        let estimates = match calibration {
            None => {
                let mut state = Amplitudes::zero(used.len());
                for (step, _) in &base.steps {
                    match step {
                        Step::One { qubit, matrix, .. } => state.apply1(*qubit, matrix),
                        Step::Two { a, b, matrix, .. } => state.apply2(*a, *b, matrix),
                        Step::Measure { .. } | Step::Reset { .. } => Ok(()),
                    }
                    .map_err(|t| PubError::Invalid(format!("its state grew past {} basis states", t.states)))?;
                }
                observables
                    .iter()
                    .map(|terms| {
                        let ev = terms.iter().map(|(pauli, c)| c * exact(&state, pauli, &position)).sum();
                        (ev, 0.0)
                    })
                    .collect::<Vec<(f64, f64)>>()
            }
            Some(calibration) => sampled(&base, &observables, &position, calibration, pub_.shots, rng, stop)?,
        };
        for (&(flat, _), (ev, std)) in elements.iter().zip(estimates) {
            evs[flat] = ev;
            stds[flat] = std;
        }
    }
    Ok(Estimates { shape, evs, stds })
}

/// `<psi|P|psi>` of a Pauli term.
fn exact(state: &Amplitudes, pauli: &Pauli, position: &dyn Fn(u32) -> usize) -> f64 {
    let (mut x, mut z) = (0u64, 0u64);
    for &(q, p) in pauli {
        let bit = 1u64 << position(q);
        if p != 'Z' {
            x |= bit;
        }
        if p != 'X' {
            z |= bit;
        }
    }
    state.pauli_expectation(x, z)
}

/// Whether two terms commute qubit by qubit (each qubit: the same Pauli or an identity).
fn compatible(a: &[(u32, char)], basis: &[(u32, char)]) -> bool {
    a.iter().all(|&(q, p)| basis.iter().all(|&(r, s)| r != q || s == p))
}

/// The rotation that takes a Pauli's eigenbasis to the computational one: H for X, H S† for Y.
fn basis_change(pauli: char) -> Matrix2 {
    let h = GateKind::H.matrix2().unwrap_or_default();
    match pauli {
        'X' => h,
        _ => {
            let sdg = GateKind::Sdg.matrix2().unwrap_or_default();
            let mut m = [[Complex64::new(0.0, 0.0); 2]; 2];
            for (r, row) in m.iter_mut().enumerate() {
                for (c, entry) in row.iter_mut().enumerate() {
                    *entry = h[r][0] * sdg[0][c] + h[r][1] * sdg[1][c];
                }
            }
            m
        }
    }
}

/// Estimates from `shots` noisy shots per measurement basis.
#[allow(clippy::too_many_arguments)]
fn sampled(
    base: &super::trajectories::Schedule,
    observables: &[&Vec<(Pauli, f64)>],
    position: &dyn Fn(u32) -> usize,
    calibration: &Calibration,
    shots: u64,
    rng: &mut ChaCha8Rng,
    stop: &Stop,
) -> Result<Vec<(f64, f64)>, PubError> {
    // Qubit-wise commuting sets, greedily: each set's basis is the union of its terms.
    let mut bases: Vec<Vec<(u32, char)>> = Vec::new();
    let mut set_of: Vec<Vec<Option<usize>>> = Vec::new();
    for terms in observables {
        let mut sets = Vec::new();
        for (pauli, _) in terms.iter() {
            if pauli.is_empty() {
                sets.push(None);
                continue;
            }
            let set = match bases.iter().position(|basis| compatible(pauli, basis)) {
                Some(i) => i,
                None => {
                    bases.push(Vec::new());
                    bases.len() - 1
                }
            };
            for &(q, p) in pauli {
                if !bases[set].iter().any(|&(r, _)| r == q) {
                    bases[set].push((q, p));
                }
            }
            sets.push(Some(set));
        }
        set_of.push(sets);
    }
    let mut results = vec![(0.0, 0.0); observables.len()];
    // Identity terms are constants.
    for (o, terms) in observables.iter().enumerate() {
        results[o].0 += terms.iter().filter(|(p, _)| p.is_empty()).map(|(_, c)| c).sum::<f64>();
    }
    for (set, basis) in bases.iter().enumerate() {
        let mut schedule = base.clone();
        for (clbit, &(q, p)) in basis.iter().enumerate() {
            if p != 'Z' {
                let noise = basis_change_noise(Some(calibration), q, position(q));
                schedule.steps.push((Step::One { qubit: position(q), matrix: basis_change(p), noise }, None));
            }
            let readout = calibration.readout_error(q);
            schedule.steps.push((Step::Measure { qubit: position(q), clbit: clbit as u32, readout }, None));
        }
        let outcomes = schedule.sample(shots, rng, stop)?;
        for (o, terms) in observables.iter().enumerate() {
            let members: Vec<(u128, f64)> = terms
                .iter()
                .zip(&set_of[o])
                .filter(|(_, s)| **s == Some(set))
                .map(|((pauli, c), _)| {
                    let mask = pauli
                        .iter()
                        .fold(0u128, |m, &(q, _)| m | 1 << basis.iter().position(|&(r, _)| r == q).unwrap_or(0));
                    (mask, *c)
                })
                .collect();
            if members.is_empty() {
                continue;
            }
            let values: Vec<f64> = outcomes
                .iter()
                .map(|&bits| {
                    members.iter().map(|&(mask, c)| if (bits & mask).count_ones() % 2 == 1 { -c } else { c }).sum()
                })
                .collect();
            let n = values.len() as f64;
            let mean = values.iter().sum::<f64>() / n;
            let variance = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0).max(1.0);
            results[o].0 += mean;
            results[o].1 += variance / n;
        }
    }
    Ok(results.into_iter().map(|(ev, var)| (ev, var.sqrt())).collect())
}

/// The typed result of a pub (`PubResult` of a `DataBin` of `evs`, `stds` and
/// `ensemble_standard_error`).
pub fn typed_result(pub_: &EstimatorPub, estimates: &Estimates) -> Value {
    let array = |data: &[f64]| runtime::ndarray_f64(&estimates.shape, data);
    let data = runtime::data_bin(
        &estimates.shape,
        vec![
            ("evs".into(), array(&estimates.evs)),
            ("stds".into(), array(&estimates.stds)),
            ("ensemble_standard_error".into(), array(&estimates.stds)),
        ],
    );
    runtime::pub_result("PubResult", data, metadata(pub_))
}

fn metadata(pub_: &EstimatorPub) -> Value {
    json!({ "target_precision": pub_.precision, "shots": pub_.shots, "circuit_metadata": {} })
}

/// Row-major `data` of `shape` as nested lists.
fn nested(shape: &[usize], data: &[f64]) -> Value {
    match shape.split_first() {
        None => json!(data.first().copied().unwrap_or(f64::NAN)),
        Some((&n, rest)) => {
            let size: usize = rest.iter().product();
            Value::Array((0..n).map(|i| nested(rest, &data[i * size..(i + 1) * size])).collect())
        }
    }
}

/// The plain result of a pub: nested lists of values and standard errors.
pub fn plain_result(pub_: &EstimatorPub, estimates: &Estimates) -> Value {
    let stds = nested(&estimates.shape, &estimates.stds);
    json!({
        "data": { "evs": nested(&estimates.shape, &estimates.evs), "stds": stds.clone(), "ensemble_standard_error": stds },
        "metadata": metadata(pub_),
    })
}
