//! Running a general circuit on the simulator that suits it: the sparse state while few basis
//! states are populated, the dense vector once the sparse form stops paying off.
//!
//! The sparse simulator runs a circuit whose only measurements are final (no reset, no
//! classical condition, no post-selection): the final state then holds the whole answer, and
//! its size follows the number of populated basis states, not `2^n`. It is given a cap of a
//! 64th of the dense vector's length (a quarter for small circuits, and at most
//! [`AutoLimits::max_sparse_states`]): past that, a dense vector is faster, and the circuit runs
//! densely instead.
//!
//! Circuits with mid-circuit measurements, resets or conditions run on sparse branches too:
//! exact probabilities as a mixture of branches merged when equal (`mixture`), shots as groups
//! that share a history (`shots`). A branch past the same cap hands the circuit to the dense
//! simulator. Every loop checks the deadline of [`Limits`] between operations.
//!
//! ```
//! use qchess_circuit::ir::{Circuit, Gate, GateKind, QubitRole};
//! use qchess_sim::auto::{AutoLimits, Engine, probabilities};
//!
//! // A 40-qubit GHZ state has two populated basis states: far too wide for a dense vector,
//! // trivial for the sparse one.
//! let mut ghz = Circuit::new();
//! let qubits: Vec<_> = (0..40).map(|_| ghz.add_qubit(QubitRole::General)).collect();
//! ghz.push_gate(Gate::one(GateKind::H, qubits[0]));
//! for pair in qubits.windows(2) {
//!     ghz.push_gate(Gate::cx(pair[0], pair[1]));
//! }
//! let outcomes = probabilities(&ghz, &AutoLimits::default()).unwrap();
//! assert_eq!(outcomes.engine, Engine::Sparse);
//! assert_eq!(outcomes.probabilities.len(), 2);
//! assert!((outcomes.probabilities[1].1 - 0.5).abs() < 1e-12);
//! assert_eq!(outcomes.probabilities[1].0, (1 << 40) - 1);
//! ```

use std::collections::BTreeMap;

use qchess_circuit::ir::{Circuit, Op, Qubit};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::deadline::TimeLimitExceeded;
use crate::dense::{Acceleration, CountKeys, Counts, DenseError, DenseSimulator, Limits, MAX_SHOTS};
use crate::sparse::{SimError, SparseState};

mod branches;
pub mod dynamic;
mod mixture;
mod outgrows;
mod schedule;
mod shots;

use branches::Stop;

/// The most classical bits a circuit run on sparse branches may have.
const MAX_BRANCH_CLBITS: u32 = 128;

/// Which simulator ran a circuit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The sparse map from basis states to amplitudes.
    Sparse,
    /// The dense `2^n` vector.
    Dense,
}

/// How far each simulator may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoLimits {
    /// The most basis states the sparse simulator may hold before the circuit moves to the
    /// dense one.
    pub max_sparse_states: usize,
    /// Limits of the dense simulator.
    pub dense: Limits,
    /// Fusion width, precision and threads of the dense simulator.
    pub acceleration: Acceleration,
}

impl Default for AutoLimits {
    fn default() -> AutoLimits {
        AutoLimits { max_sparse_states: 1 << 22, dense: Limits::default(), acceleration: Acceleration::default() }
    }
}

impl AutoLimits {
    fn dense_simulator(&self) -> DenseSimulator {
        DenseSimulator::with_limits(self.dense).with_acceleration(self.acceleration)
    }
}

/// Why a circuit could not be simulated.
#[derive(Debug, Error)]
pub enum AutoError {
    /// Results are 64-bit integers, so at most 64 qubits can be read.
    #[error("{qubits} qubits do not fit 64-bit results")]
    TooWide {
        /// Qubits of the circuit.
        qubits: usize,
    },
    /// The state outgrew the sparse limit and the circuit is too wide for a dense vector.
    #[error(
        "the state needs more than {states} basis states, and {qubits} qubits are more than the {max_dense} a dense simulation may use"
    )]
    TooLarge {
        /// Basis states the sparse simulator held when it stopped.
        states: usize,
        /// Qubits of the circuit.
        qubits: usize,
        /// The dense simulator's qubit limit.
        max_dense: usize,
    },
    /// The sparse simulator failed otherwise.
    #[error(transparent)]
    Sparse(#[from] SimError),
    /// The dense simulator failed.
    #[error(transparent)]
    Dense(#[from] DenseError),
    /// The deadline passed before the simulation finished.
    #[error(transparent)]
    TimeLimit(#[from] TimeLimitExceeded),
    /// A dynamic program's exact probabilities need sparse states, and its states outgrew them.
    #[error(
        "exact probabilities of a program that reads its measurements need sparse states, and its states need more than {states} basis states (sample shots instead)"
    )]
    DynamicNotSparse {
        /// Basis states held when it stopped.
        states: usize,
    },
    /// The program stopped with an error of its own.
    #[error(transparent)]
    Program(#[from] qchess_circuit::dynamic::ProgramError),
}

/// The exact distribution over every qubit, nonzero outcomes only, in increasing order of
/// outcome (qubit `i` = bit `i`).
#[derive(Debug, Clone, PartialEq)]
pub struct Outcomes {
    /// Number of qubits.
    pub num_qubits: usize,
    /// `(outcome, probability)`, conditioned on the circuit's post-selections.
    pub probabilities: Vec<(u64, f64)>,
    /// Probability that a run satisfies every post-selection (1 without post-selection).
    pub postselection_probability: f64,
    /// The simulator that computed it.
    pub engine: Engine,
}

/// The exact distribution of `circuit` over all its qubits.
pub fn probabilities(circuit: &Circuit, limits: &AutoLimits) -> Result<Outcomes, AutoError> {
    let qubits = circuit.num_qubits();
    if qubits > 64 {
        return Err(AutoError::TooWide { qubits });
    }
    if let Some(probabilities) = sparse_distribution(circuit, limits)? {
        return Ok(Outcomes {
            num_qubits: qubits,
            probabilities,
            postselection_probability: 1.0,
            engine: Engine::Sparse,
        });
    }
    if let Some(mixture) = branch_run(circuit, limits, |early, plan, cap| mixture::exact(early, plan, limits, cap))? {
        return Ok(Outcomes {
            num_qubits: qubits,
            probabilities: mixture.probabilities,
            postselection_probability: mixture.accepted,
            engine: Engine::Sparse,
        });
    }
    let dense = limits.dense_simulator().probabilities(circuit)?;
    let probabilities =
        dense.probabilities.iter().enumerate().filter(|&(_, &p)| p > 0.0).map(|(k, &p)| (k as u64, p)).collect();
    Ok(Outcomes {
        num_qubits: qubits,
        probabilities,
        postselection_probability: dense.postselection_probability,
        engine: Engine::Dense,
    })
}

/// `shots` seeded results of `circuit`, read from its classical bits (or from every qubit if
/// it measures nothing), as [`DenseSimulator::sample`] reads them.
pub fn sample(circuit: &Circuit, shots: u64, seed: u64, limits: &AutoLimits) -> Result<(Counts, Engine), AutoError> {
    if !(1..=MAX_SHOTS).contains(&shots) {
        return Err(DenseError::InvalidShots { shots, max: MAX_SHOTS }.into());
    }
    let qubits = circuit.num_qubits();
    if qubits > 64 {
        return Err(AutoError::TooWide { qubits });
    }
    let Some(measured) = final_measurements(circuit) else {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let sparse =
            branch_run(circuit, limits, |early, plan, cap| shots::sample(early, plan, shots, &mut rng, limits, cap))?;
        if let Some(counts) = sparse {
            return Ok((counts, Engine::Sparse));
        }
        return Ok((limits.dense_simulator().sample(circuit, shots, seed)?, Engine::Dense));
    };
    let Some(distribution) = sparse_distribution(circuit, limits)? else {
        return Ok((limits.dense_simulator().sample(circuit, shots, seed)?, Engine::Dense));
    };
    let keys = if measured.is_empty() {
        CountKeys::Qubits(qubits)
    } else {
        let bits = circuit.clbits as usize;
        if bits > 64 {
            return Err(DenseError::TooManyResultBits { bits }.into());
        }
        CountKeys::Clbits(bits)
    };
    let key_of = |outcome: u64| -> u64 {
        match keys {
            CountKeys::Qubits(_) => outcome,
            CountKeys::Clbits(_) => measured
                .iter()
                .filter(|(qubit, _)| outcome >> qubit.index() & 1 == 1)
                .fold(0, |key, (_, clbit)| key | 1 << clbit),
        }
    };
    let mut cumulative = Vec::with_capacity(distribution.len());
    let mut total = 0.0;
    for &(_, p) in &distribution {
        total += p;
        cumulative.push(total);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut counts = BTreeMap::new();
    for _ in 0..shots {
        let draw = rng.random::<f64>() * total;
        let index = cumulative.partition_point(|&c| c <= draw).min(distribution.len() - 1);
        *counts.entry(key_of(distribution[index].0)).or_insert(0) += 1;
    }
    Ok((Counts { keys, shots, counts }, Engine::Sparse))
}

/// Below this many basis states either simulator is instant, so small circuits stay sparse up
/// to a quarter of the dense vector.
const SMALL_SPARSE_STATES: usize = 1 << 12;

/// The most basis states one sparse state (or branch) of `qubits` qubits may hold: a 64th of
/// the dense vector (a sparse entry costs tens of times a dense amplitude: a dense random
/// 24-qubit circuit spent 3 s growing its sparse state to a quarter of the vector before moving
/// over, more than the whole dense run), a quarter for small circuits, and at most
/// [`AutoLimits::max_sparse_states`].
fn sparse_cap(qubits: usize, limits: &AutoLimits) -> usize {
    let fraction_of_dense = |shift: usize| if qubits >= shift { 1usize << (qubits - shift).min(62) } else { 1 };
    let small = fraction_of_dense(2).min(SMALL_SPARSE_STATES);
    limits.max_sparse_states.min(fraction_of_dense(6).max(small)).max(1)
}

/// The distribution from the sparse simulator, or `None` when the circuit is not one it runs
/// (see the module docs) or its state outgrew the cap and a dense run is possible.
fn sparse_distribution(circuit: &Circuit, limits: &AutoLimits) -> Result<Option<Vec<(u64, f64)>>, AutoError> {
    if final_measurements(circuit).is_none() {
        return Ok(None);
    }
    let qubits = circuit.num_qubits();
    let cap = sparse_cap(qubits, limits);
    if qubits <= limits.dense.max_qubits && outgrows::surely_outgrows(circuit, cap) {
        return Ok(None);
    }
    let run = || -> Result<SparseState, AutoError> {
        let mut state = SparseState::with_cap(cap);
        for index in 0..qubits {
            state.add_qubit_at(Qubit(index as u32), index as u8)?;
        }
        // Only unconditional gates and final measurements: the measurements are read from the
        // final distribution.
        for op in &circuit.ops {
            if let Op::Gate { gate, .. } = op {
                limits.dense.deadline.check()?;
                state.apply_gate(gate)?;
            }
        }
        Ok(state)
    };
    match run() {
        Ok(state) => Ok(Some(state.qubit_distribution().into_iter().map(|(k, p)| (k as u64, p)).collect())),
        Err(AutoError::Sparse(SimError::StateTooLarge { .. })) if qubits <= limits.dense.max_qubits => Ok(None),
        Err(AutoError::Sparse(SimError::StateTooLarge { needed, .. })) => {
            Err(AutoError::TooLarge { states: needed, qubits, max_dense: limits.dense.max_qubits })
        }
        Err(other) => Err(other),
    }
}

/// Runs a circuit with mid-circuit measurements, resets or conditions on sparse branches
/// (`run` gets the circuit with its measurements moved early, see [`schedule`], its plan and
/// the cap of one branch). `None` when the circuit does not fit them (too many classical bits)
/// or a branch outgrew the cap and a dense run is possible.
fn branch_run<T>(
    circuit: &Circuit,
    limits: &AutoLimits,
    run: impl FnOnce(&Circuit, &crate::dense::plan::Plan, usize) -> Result<T, Stop>,
) -> Result<Option<T>, AutoError> {
    let qubits = circuit.num_qubits();
    if circuit.clbits > MAX_BRANCH_CLBITS {
        return Ok(None);
    }
    // The plan checks the circuit before it is reordered.
    crate::dense::plan::plan(circuit)?;
    let early = schedule::measurements_early(circuit);
    let plan = crate::dense::plan::plan(&early)?;
    match run(&early, &plan, sparse_cap(qubits, limits)) {
        Ok(answer) => Ok(Some(answer)),
        Err(Stop::NotSparse) if qubits <= limits.dense.max_qubits => Ok(None),
        Err(Stop::NotSparse) => {
            Err(AutoError::TooLarge { states: sparse_cap(qubits, limits), qubits, max_dense: limits.dense.max_qubits })
        }
        Err(Stop::Failed(error)) => Err(error),
    }
}

/// The `(qubit, clbit)` pairs of a circuit whose only measurements are final (no gate touches a
/// measured qubit afterwards), which has no reset, condition or post-selection; `None` for any
/// other circuit.
fn final_measurements(circuit: &Circuit) -> Option<Vec<(Qubit, u32)>> {
    if !circuit.postselect.is_empty() {
        return None;
    }
    let mut measured: Vec<(Qubit, u32)> = Vec::new();
    for op in &circuit.ops {
        match op {
            Op::Measure { qubit, clbit } => measured.push((*qubit, clbit.0)),
            Op::Gate { gate, condition: None } => {
                if gate.qubits().any(|q| measured.iter().any(|(m, _)| *m == q)) {
                    return None;
                }
            }
            Op::Gate { condition: Some(_), .. } | Op::Reset { .. } => return None,
        }
    }
    Some(measured)
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::{Gate, GateKind, QubitRole};

    use super::*;

    fn bell_pairs(pairs: usize, measure: bool) -> Circuit {
        let mut circuit = Circuit::new();
        for _ in 0..pairs {
            let a = circuit.add_qubit(QubitRole::General);
            let b = circuit.add_qubit(QubitRole::General);
            circuit.push_gate(Gate::one(GateKind::H, a));
            circuit.push_gate(Gate::cx(a, b));
        }
        if measure {
            for q in 0..circuit.num_qubits() {
                circuit.push_measure(Qubit(q as u32));
            }
        }
        circuit
    }

    #[test]
    fn a_sparse_circuit_runs_sparse_and_matches_the_dense_simulator() {
        // Three Bell pairs: 8 populated basis states of 64, under a quarter of the dense vector.
        let circuit = bell_pairs(3, false);
        let sparse = probabilities(&circuit, &AutoLimits::default()).expect("runs");
        let dense = DenseSimulator::new().probabilities(&circuit).expect("runs");
        assert_eq!(sparse.engine, Engine::Sparse);
        assert_eq!(sparse.probabilities.len(), 8);
        for (k, p) in &sparse.probabilities {
            assert!((p - 0.125).abs() < 1e-12 && (p - dense.probabilities[*k as usize]).abs() < 1e-12);
        }
        let populated = dense.probabilities.iter().filter(|&&p| p > 1e-15).count();
        assert_eq!(populated, 8);
    }

    #[test]
    fn a_full_state_moves_to_the_dense_simulator() {
        let mut circuit = Circuit::new();
        let qubits: Vec<_> = (0..10).map(|_| circuit.add_qubit(QubitRole::General)).collect();
        for &q in &qubits {
            circuit.push_gate(Gate::one(GateKind::H, q));
        }
        let outcomes = probabilities(&circuit, &AutoLimits::default()).expect("runs");
        assert_eq!(outcomes.engine, Engine::Dense);
        assert_eq!(outcomes.probabilities.len(), 1024);
        assert!(outcomes.probabilities.iter().all(|(_, p)| (p - 1.0 / 1024.0).abs() < 1e-12));
    }

    #[test]
    fn a_state_past_a_64th_of_the_dense_vector_moves_to_the_dense_simulator() {
        // 20 qubits: 2^13 populated states (a 128th) stay sparse, 2^16 (a 16th) run densely.
        for (superposed, engine) in [(13, Engine::Sparse), (16, Engine::Dense)] {
            let mut circuit = Circuit::new();
            let qubits: Vec<_> = (0..20).map(|_| circuit.add_qubit(QubitRole::General)).collect();
            for &q in &qubits[..superposed] {
                circuit.push_gate(Gate::one(GateKind::H, q));
            }
            let outcomes = probabilities(&circuit, &AutoLimits::default()).expect("runs");
            assert_eq!(outcomes.engine, engine, "{superposed} qubits in superposition");
            assert_eq!(outcomes.probabilities.len(), 1 << superposed);
        }
    }

    #[test]
    fn too_wide_for_either_is_a_clear_error() {
        let mut circuit = Circuit::new();
        let qubits: Vec<_> = (0..40).map(|_| circuit.add_qubit(QubitRole::General)).collect();
        for &q in &qubits[..24] {
            circuit.push_gate(Gate::one(GateKind::H, q));
        }
        let limits = AutoLimits { max_sparse_states: 1 << 12, ..AutoLimits::default() };
        let error = probabilities(&circuit, &limits).expect_err("2^24 states, 40 qubits").to_string();
        assert!(error.contains("40 qubits are more than the 30"), "{error}");
    }

    #[test]
    fn mid_circuit_measurements_run_densely() {
        let mut circuit = bell_pairs(1, true);
        circuit.push_gate(Gate::x(Qubit(0)));
        let outcomes = probabilities(&circuit, &AutoLimits::default()).expect("runs");
        assert_eq!(outcomes.engine, Engine::Dense);
    }

    #[test]
    fn sampled_counts_read_the_classical_bits() {
        // Three Bell pairs (sparse: 8 states of 64); the first pair's qubit 0 is measured into
        // bit 1 and its qubit 1 into bit 0, so the two bits always agree.
        let mut circuit = bell_pairs(3, false);
        circuit.add_clbit();
        circuit.add_clbit();
        circuit.ops.push(Op::Measure { qubit: Qubit(0), clbit: qchess_circuit::ir::Clbit(1) });
        circuit.ops.push(Op::Measure { qubit: Qubit(1), clbit: qchess_circuit::ir::Clbit(0) });
        let (counts, engine) = sample(&circuit, 1000, 7, &AutoLimits::default()).expect("runs");
        assert_eq!(engine, Engine::Sparse);
        assert_eq!(counts.keys, CountKeys::Clbits(2));
        assert_eq!(counts.counts.keys().copied().collect::<Vec<_>>(), vec![0, 3]);
        assert_eq!(counts.counts.values().sum::<u64>(), 1000);
        // 1000 fair coin flips: 500 +- 5 sigma.
        let ones = counts.counts[&3];
        assert!((421..=579).contains(&ones), "{ones}");
    }
}

#[cfg(test)]
mod branch_tests;
