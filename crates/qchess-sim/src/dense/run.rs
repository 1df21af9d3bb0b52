//! Running whole circuits: exact distributions and sampled counts.

use std::collections::BTreeMap;
use std::time::Instant;

use qchess_circuit::ir::{Circuit, Condition, Gate, Op};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::accelerated::{self, Acceleration, Precision};
use super::block_kernel::Real;
use super::error::DenseError;
use super::plan::{Plan, Step, plan};
use super::planar_state::PlanarState;
use super::profile::{self, RunProfile};
use super::sampling::{count_draws, sorted_draws};
use super::state::{DenseState, Limits};

/// The most shots one call samples.
pub const MAX_SHOTS: u64 = 10_000_000;

/// Sampling with post-selection gives up after this many rejected runs per requested shot.
const MAX_REJECTIONS_PER_SHOT: u64 = 1000;

/// Outcome weights below this fraction of a branch are rounding noise, not a branch.
pub(super) const NEGLIGIBLE_WEIGHT: f64 = 1e-20;

/// An exact probability distribution over the basis states of every qubit.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    /// Number of qubits.
    pub num_qubits: usize,
    /// `probabilities[k]` = probability that the qubits read `k` (qubit `i` = bit `i`),
    /// conditioned on the post-selections.
    pub probabilities: Vec<f64>,
    /// Probability that a run satisfies every post-selection (1 without post-selection).
    pub postselection_probability: f64,
}

/// What the keys of sampled counts mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountKeys {
    /// Classical bit `i` is bit `i` of the key; the circuit has this many bits.
    Clbits(usize),
    /// The circuit measures nothing, so every qubit was read at the end: qubit `i` is bit `i`.
    Qubits(usize),
}

/// Sampled results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    /// What the keys mean.
    pub keys: CountKeys,
    /// Shots taken (the counts add up to this).
    pub shots: u64,
    /// How often each result occurred; results that never occurred are absent.
    pub counts: BTreeMap<u64, u64>,
}

/// The dense state-vector simulator for general circuits.
///
/// ```
/// use qchess_circuit::ir::{Circuit, Gate, GateKind, QubitRole};
/// use qchess_sim::dense::DenseSimulator;
///
/// let mut bell = Circuit::new();
/// let a = bell.add_qubit(QubitRole::General);
/// let b = bell.add_qubit(QubitRole::General);
/// bell.push_gate(Gate::one(GateKind::H, a));
/// bell.push_gate(Gate::cx(a, b));
/// let exact = DenseSimulator::new().probabilities(&bell).unwrap();
/// assert!((exact.probabilities[0b00] - 0.5).abs() < 1e-12);
/// assert!((exact.probabilities[0b11] - 0.5).abs() < 1e-12);
///
/// let counts = DenseSimulator::new().sample(&bell, 1000, 7).unwrap();
/// assert_eq!(counts.counts.keys().copied().collect::<Vec<_>>(), [0b00, 0b11]);
/// assert_eq!(counts.counts.values().sum::<u64>(), 1000);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DenseSimulator {
    limits: Limits,
    acceleration: Acceleration,
}

fn condition_holds(circuit: &Circuit, condition: &Condition, clbits: &[bool]) -> bool {
    let Some(register) = circuit.registers.get(condition.register) else { return false };
    let start = register.start as usize;
    let value =
        clbits[start..start + register.len as usize].iter().rev().fold(0u64, |acc, &bit| (acc << 1) | u64::from(bit));
    value == condition.value
}

impl DenseSimulator {
    /// A simulator with the default limits.
    pub fn new() -> DenseSimulator {
        DenseSimulator::default()
    }

    /// A simulator with the given limits.
    pub fn with_limits(limits: Limits) -> DenseSimulator {
        DenseSimulator { limits, acceleration: Acceleration::default() }
    }

    /// This simulator with another fusion width, precision or thread count.
    pub fn with_acceleration(self, acceleration: Acceleration) -> DenseSimulator {
        DenseSimulator { acceleration, ..self }
    }

    /// The fusion width, precision and threads in force.
    pub fn acceleration(&self) -> Acceleration {
        self.acceleration
    }

    /// The limits in force.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Runs the gates of a circuit that needs no trajectory (no mid-circuit measurement read
    /// later, no reset, no condition) and returns the final state. Post-selected measurements
    /// project the state without renormalising it, so its squared norm is the post-selection
    /// probability; other measurements are left to the caller (they are all final).
    pub fn final_state(&self, circuit: &Circuit) -> Result<DenseState, DenseError> {
        let plan = plan(circuit)?;
        if let Some(index) = plan.steps.iter().position(|s| s.is_dynamic()) {
            return Err(DenseError::NotUnitary {
                op: index,
                what: "a measurement read later, a reset or a conditional gate",
            });
        }
        if self.runs_planar() {
            return self.run_planar::<f64>(circuit, &plan, &mut self.profile(circuit))?.into_dense();
        }
        let mut state = DenseState::zero(circuit.num_qubits(), &self.limits)?;
        self.run_static(circuit, &plan, &mut state, circuit.ops.len())?;
        Ok(state)
    }

    /// Whether a run without trajectory goes through a planar state: fused, or in single
    /// precision (otherwise each gate runs on its own kernel, bit for bit as before fusion).
    fn runs_planar(&self) -> bool {
        self.acceleration.fuses() || self.acceleration.precision == Precision::Single
    }

    /// An empty profile of a run of `circuit`.
    fn profile(&self, circuit: &Circuit) -> RunProfile {
        RunProfile {
            qubits: circuit.num_qubits(),
            precision: self.acceleration.precision,
            threads: self.acceleration.threads,
            ..RunProfile::default()
        }
    }

    /// Runs the gates and post-selections of a circuit that needs no trajectory on a planar
    /// state. Post-selected measurements project the state without renormalising it.
    fn run_planar<T: Real>(
        &self,
        circuit: &Circuit,
        plan: &Plan,
        profile: &mut RunProfile,
    ) -> Result<PlanarState<T>, DenseError> {
        let started = Instant::now();
        let mut state = PlanarState::zero(circuit.num_qubits(), &self.limits)?;
        profile.allocate = started.elapsed();
        let acceleration = Acceleration {
            max_fused_qubits: self.acceleration.max_fused_qubits.max(1),
            threads: self.acceleration.threads.max(1),
            ..self.acceleration
        };
        let deadline = &self.limits.deadline;
        let mut segment: Vec<Gate> = Vec::new();
        for (op, step) in circuit.ops.iter().zip(&plan.steps) {
            match (op, step) {
                (Op::Gate { gate, .. }, Step::Gate) => segment.push(gate.clone()),
                (Op::Measure { qubit, .. }, Step::Postselect { value }) => {
                    state.run(&segment, &acceleration, deadline, profile)?;
                    segment.clear();
                    state.project(qubit.index(), *value);
                }
                _ => {}
            }
        }
        state.run(&segment, &acceleration, deadline, profile)?;
        Ok(state)
    }

    /// [`DenseSimulator::static_weights`] on a planar state in precision `T`.
    fn planar_weights<T: Real>(&self, circuit: &Circuit, plan: &Plan) -> Result<Vec<f64>, DenseError> {
        let mut profile = self.profile(circuit);
        let state = self.run_planar::<T>(circuit, plan, &mut profile)?;
        let started = Instant::now();
        let weights = state.probabilities();
        profile.sample = started.elapsed();
        profile::record(profile);
        Ok(weights)
    }

    /// Shots of a circuit that needs no trajectory, drawn from its final planar state in
    /// precision `T`.
    fn planar_sample<T: Real>(
        &self,
        circuit: &Circuit,
        plan: &Plan,
        keys: CountKeys,
        shots: u64,
        rng: &mut ChaCha8Rng,
    ) -> Result<Counts, DenseError> {
        let mut profile = self.profile(circuit);
        let state = self.run_planar::<T>(circuit, plan, &mut profile)?;
        let started = Instant::now();
        let (_, hits) = state
            .sample(shots, rng, self.acceleration.threads, NEGLIGIBLE_WEIGHT)
            .ok_or(DenseError::PostSelectionImpossible)?;
        let clbits = postselected_bits(circuit, plan);
        let mut counts = BTreeMap::new();
        for (index, hits) in hits {
            *counts.entry(key_of(circuit, plan, keys, &clbits, index)).or_insert(0) += hits;
        }
        profile.sample = started.elapsed();
        profile::record(profile);
        Ok(Counts { keys, shots, counts })
    }

    /// Applies the static steps `0..end` (gates, post-selection projections) to `state`.
    fn run_static(&self, circuit: &Circuit, plan: &Plan, state: &mut DenseState, end: usize) -> Result<(), DenseError> {
        let fused = self.acceleration.fuses();
        let mut segment: Vec<Gate> = Vec::new();
        for (op, step) in circuit.ops[..end].iter().zip(&plan.steps) {
            self.limits.deadline.check()?;
            match (op, step) {
                (Op::Gate { gate, .. }, Step::Gate) if fused => segment.push(gate.clone()),
                (Op::Gate { gate, .. }, Step::Gate) => state.apply_checked(gate),
                (Op::Measure { qubit, .. }, Step::Postselect { value }) => {
                    self.run_fused(state, &segment)?;
                    segment.clear();
                    state.project_scaled(qubit.index(), *value, 1.0);
                }
                _ => {}
            }
        }
        self.run_fused(state, &segment)
    }

    fn run_fused(&self, state: &mut DenseState, gates: &[Gate]) -> Result<(), DenseError> {
        if gates.is_empty() {
            return Ok(());
        }
        accelerated::run_gates(state.amplitudes_mut(), gates, &self.acceleration, &self.limits.deadline)
    }

    /// Applies `gates` to `state`, fused when the acceleration fuses.
    pub(super) fn run_gates(&self, state: &mut DenseState, gates: &[Gate]) -> Result<(), DenseError> {
        if self.acceleration.fuses() {
            return self.run_fused(state, gates);
        }
        for gate in gates {
            self.limits.deadline.check()?;
            state.apply_checked(gate);
        }
        Ok(())
    }

    /// Unnormalised final weights of every basis state of a circuit that needs no trajectory.
    fn static_weights(&self, circuit: &Circuit, plan: &Plan) -> Result<Vec<f64>, DenseError> {
        if self.runs_planar() {
            return match self.acceleration.precision {
                Precision::Single => self.planar_weights::<f32>(circuit, plan),
                Precision::Double => self.planar_weights::<f64>(circuit, plan),
            };
        }
        let mut state = DenseState::zero(circuit.num_qubits(), &self.limits)?;
        self.run_static(circuit, plan, &mut state, circuit.ops.len())?;
        Ok(state.probabilities())
    }

    /// The exact distribution over every qubit at the end of the circuit, conditioned on the
    /// circuit's post-selections. Mid-circuit measurements and resets branch on both outcomes
    /// (within the memory budget); final measurements do not change the distribution.
    pub fn probabilities(&self, circuit: &Circuit) -> Result<Distribution, DenseError> {
        let plan = plan(circuit)?;
        let num_qubits = circuit.num_qubits();
        if !plan.is_dynamic() {
            let mut probabilities = self.static_weights(circuit, &plan)?;
            let accepted: f64 = probabilities.iter().sum();
            if accepted < NEGLIGIBLE_WEIGHT {
                return Err(DenseError::PostSelectionImpossible);
            }
            probabilities.iter_mut().for_each(|p| *p /= accepted);
            return Ok(Distribution { num_qubits, probabilities, postselection_probability: accepted.min(1.0) });
        }
        self.mixture(circuit, &plan)
    }

    /// Samples `shots` runs of the circuit with a seeded ChaCha8 generator and counts the
    /// results, read from the classical bits (or from every qubit if the circuit measures
    /// nothing). Runs that miss a post-selection are thrown away and retried. A circuit whose
    /// measurements are all final is simulated once and its final distribution sampled;
    /// otherwise each shot runs the circuit from its first mid-circuit measurement, reset or
    /// condition onwards.
    pub fn sample(&self, circuit: &Circuit, shots: u64, seed: u64) -> Result<Counts, DenseError> {
        if !(1..=MAX_SHOTS).contains(&shots) {
            return Err(DenseError::InvalidShots { shots, max: MAX_SHOTS });
        }
        let plan = plan(circuit)?;
        let keys = if plan.measures {
            CountKeys::Clbits(circuit.clbits as usize)
        } else {
            CountKeys::Qubits(circuit.num_qubits())
        };
        let key_bits = match keys {
            CountKeys::Clbits(bits) | CountKeys::Qubits(bits) => bits,
        };
        if key_bits > 64 {
            return Err(DenseError::TooManyResultBits { bits: key_bits });
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        if !plan.is_dynamic() && self.runs_planar() {
            return match self.acceleration.precision {
                Precision::Single => self.planar_sample::<f32>(circuit, &plan, keys, shots, &mut rng),
                Precision::Double => self.planar_sample::<f64>(circuit, &plan, keys, shots, &mut rng),
            };
        }
        let mut state = DenseState::zero(circuit.num_qubits(), &self.limits)?;
        self.run_static(circuit, &plan, &mut state, plan.first_dynamic)?;
        let weight = state.norm_sqr();
        if weight < NEGLIGIBLE_WEIGHT {
            return Err(DenseError::PostSelectionImpossible);
        }

        let key_of = |clbits: &[bool], index: usize| key_of(circuit, &plan, keys, clbits, index);

        let mut counts = BTreeMap::new();
        if !plan.is_dynamic() {
            let clbits = postselected_bits(circuit, &plan);
            let weights = state.amplitudes().iter().map(|a| a.norm_sqr());
            for (index, hits) in sample_indices(weights, weight, shots, &mut rng) {
                *counts.entry(key_of(&clbits, index)).or_insert(0) += hits;
            }
            return Ok(Counts { keys, shots, counts });
        }

        // Each shot restarts from the state before the first dynamic step.
        let prefix = {
            let mut normalised = state;
            let scale = 1.0 / weight.sqrt();
            normalised.amplitudes_mut().iter_mut().for_each(|a| *a *= scale);
            normalised
        };
        let mut work = prefix.try_clone()?;
        let mut clbits = vec![false; circuit.clbits as usize];
        let (mut accepted, mut rejected) = (0u64, 0u64);
        while accepted < shots {
            self.limits.deadline.check()?;
            work.copy_from(&prefix);
            clbits.iter_mut().for_each(|b| *b = false);
            if self.run_trajectory(circuit, &plan, &mut work, &mut clbits, &mut rng) {
                let index = work.sample_index(&mut rng);
                *counts.entry(key_of(&clbits, index)).or_insert(0) += 1;
                accepted += 1;
            } else {
                rejected += 1;
                if rejected > shots.saturating_mul(MAX_REJECTIONS_PER_SHOT) {
                    return Err(DenseError::PostSelectionTooRare { accepted, rejected });
                }
            }
        }
        Ok(Counts { keys, shots, counts })
    }

    /// Runs the dynamic part of one shot; returns `false` if a post-selection failed.
    fn run_trajectory(
        &self,
        circuit: &Circuit,
        plan: &Plan,
        state: &mut DenseState,
        clbits: &mut [bool],
        rng: &mut ChaCha8Rng,
    ) -> bool {
        for (op, step) in circuit.ops.iter().zip(&plan.steps).skip(plan.first_dynamic) {
            match (op, *step) {
                (Op::Gate { gate, .. }, Step::Gate) => state.apply_checked(gate),
                (Op::Gate { gate, condition: Some(condition) }, Step::ConditionalGate)
                    if condition_holds(circuit, condition, clbits) =>
                {
                    state.apply_checked(gate);
                }
                (Op::Measure { .. }, Step::DeferredMeasure) => {}
                (Op::Measure { qubit, clbit }, Step::Postselect { value }) => {
                    if state.measure_index(qubit.index(), rng) != value {
                        return false;
                    }
                    clbits[clbit.index()] = value;
                }
                (Op::Measure { qubit, clbit }, _) => clbits[clbit.index()] = state.measure_index(qubit.index(), rng),
                (Op::Reset { qubit }, _) => {
                    let was_one = state.measure_index(qubit.index(), rng);
                    if was_one {
                        state.apply_checked(&qchess_circuit::ir::Gate::x(*qubit));
                    }
                }
                _ => {}
            }
        }
        true
    }
}

/// The classical bits a run without trajectory reads before its final measurements: the
/// post-selected values.
fn postselected_bits(circuit: &Circuit, plan: &Plan) -> Vec<bool> {
    let mut clbits = vec![false; circuit.clbits as usize];
    for (op, step) in circuit.ops.iter().zip(&plan.steps) {
        if let (Op::Measure { clbit, .. }, Step::Postselect { value }) = (op, step) {
            clbits[clbit.index()] = *value;
        }
    }
    clbits
}

/// The result key of a run that read `clbits` and ended in basis state `index` (deferred
/// measurements read from it).
fn key_of(circuit: &Circuit, plan: &Plan, keys: CountKeys, clbits: &[bool], index: usize) -> u64 {
    match keys {
        CountKeys::Qubits(_) => index as u64,
        CountKeys::Clbits(_) => {
            let mut bits = clbits.to_vec();
            for (op, step) in circuit.ops.iter().zip(&plan.steps) {
                if let (Op::Measure { qubit, clbit }, Step::DeferredMeasure) = (op, step) {
                    bits[clbit.index()] = index >> qubit.index() & 1 == 1;
                }
            }
            bits.iter().rev().fold(0u64, |acc, &bit| (acc << 1) | u64::from(bit))
        }
    }
}

/// Draws `shots` basis states from unnormalised `weights` (summing to `total`) and returns how
/// often each was drawn, in index order.
fn sample_indices(
    weights: impl Iterator<Item = f64>,
    total: f64,
    shots: u64,
    rng: &mut ChaCha8Rng,
) -> Vec<(usize, u64)> {
    count_draws(weights, 0, &sorted_draws(shots, total, rng))
}
