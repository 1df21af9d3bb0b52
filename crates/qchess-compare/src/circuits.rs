//! Circuits as comparisons see them: which bits an outcome reads, and running a circuit
//! exactly (the dense simulator) or on a provider.
//!
//! An outcome key holds the measured classical bits (bit `i` = classical bit `i`); a circuit
//! that measures nothing is read on every qubit (bit `i` = qubit `i`), as providers do. Only
//! circuits whose measurements are all final can run on a provider, so only those are
//! compared: no gate or reset may touch a measured qubit, and no gate may be conditional.
//! Post-selections in the circuit are applied to both sides.
//!
//! ```
//! use qchess_circuit::ir::{Circuit, Gate, GateKind, QubitRole};
//! use qchess_compare::circuits::{OutcomeBits, run_exact};
//!
//! let mut bell = Circuit::new();
//! let a = bell.add_qubit(QubitRole::General);
//! let b = bell.add_qubit(QubitRole::General);
//! bell.push_gate(Gate::one(GateKind::H, a));
//! bell.push_gate(Gate::cx(a, b));
//! bell.push_measure(b);
//! let bits = OutcomeBits::of(&bell)?;
//! assert_eq!(bits.width(), 1);
//! let exact = run_exact(&bell)?;
//! assert!((exact.probability(1) - 0.5).abs() < 1e-12);
//! # Ok::<(), String>(())
//! ```

use qchess_circuit::ir::{Circuit, Op};
use qchess_sim::dense::DenseSimulator;

use crate::backend::Backend;
use crate::error::CompareError;
use crate::game::{ItemRun, KeyKind, StepRun, step_seed};
use crate::observation::Observation;
use crate::stats::pair::{PairOptions, compare};

/// A circuit to compare, with the name reports give it (its file).
#[derive(Debug, Clone, PartialEq)]
pub struct CircuitInput {
    /// The name.
    pub name: String,
    /// The circuit.
    pub circuit: Circuit,
}

/// Runs one circuit on both backends (`shots` for sampling ones) and compares the outcomes.
pub fn run_circuit(
    input: &CircuitInput,
    a: &dyn Backend,
    b: &dyn Backend,
    shots: u64,
    options: &PairOptions,
    seed: u64,
) -> Result<ItemRun, CompareError> {
    let name = input.name.as_str();
    let bits = OutcomeBits::of(&input.circuit).map_err(|reason| CompareError::Circuit {
        item: name.to_owned(),
        reason: format!("cannot compare it: {reason}"),
    })?;
    let run_on = |backend: &dyn Backend, seed: u64| {
        backend.run_circuit(&input.circuit, shots, seed).map_err(|reason| CompareError::Run {
            item: name.to_owned(),
            backend: backend.label(),
            reason,
        })
    };
    let (a_seen, b_seen) = (run_on(a, seed)?, run_on(b, seed.wrapping_add(1))?);
    let test = compare(&a_seen, &b_seen, options, step_seed(seed, name, 0));
    let detail = format!(
        "{} qubits, outcomes over {} {}",
        input.circuit.num_qubits(),
        bits.width(),
        if input.circuit.ops.iter().any(|op| matches!(op, Op::Measure { .. })) { "measured bits" } else { "qubits" }
    );
    let step = StepRun {
        label: name.to_owned(),
        detail,
        outcome_probability: None,
        a: Some(a_seen),
        b: Some(b_seen),
        test,
        note: None,
    };
    Ok(ItemRun { name: name.to_owned(), keys: KeyKind::Bits(bits.width()), steps: vec![step], stopped: None })
}

/// Which qubit feeds each bit of an outcome key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutcomeBits {
    /// `(qubit, bit)` pairs: the qubit's final value is written to the key's bit.
    sources: Vec<(usize, usize)>,
    width: usize,
}

impl OutcomeBits {
    /// The outcome bits of `circuit`, or why it cannot be compared.
    pub fn of(circuit: &Circuit) -> Result<OutcomeBits, String> {
        let mut touched_later = vec![false; circuit.num_qubits()];
        let mut sources = Vec::new();
        for op in circuit.ops.iter().rev() {
            match op {
                Op::Gate { condition: Some(_), .. } => return Err("it has a conditional gate".into()),
                Op::Reset { .. } => return Err("it resets a qubit".into()),
                Op::Gate { gate, .. } => {
                    for qubit in gate.qubits() {
                        if let Some(slot) = touched_later.get_mut(qubit.index()) {
                            *slot = true;
                        }
                    }
                }
                Op::Measure { qubit, .. } if touched_later.get(qubit.index()).copied().unwrap_or(false) => {
                    return Err(format!("it measures qubit {} before gates that act on it", qubit.index()));
                }
                Op::Measure { qubit, clbit } => sources.push((qubit.index(), clbit.index())),
            }
        }
        let width = if sources.is_empty() { circuit.num_qubits() } else { circuit.clbits as usize };
        if width > 64 {
            return Err(format!("its outcomes have {width} bits; at most 64 can be compared"));
        }
        if sources.is_empty() {
            sources = (0..circuit.num_qubits()).map(|q| (q, q)).collect();
        }
        Ok(OutcomeBits { sources, width })
    }

    /// Bits per outcome key.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The key of a run whose qubits read `qubits` (qubit `i` = bit `i`).
    pub fn key(&self, qubits: u64) -> u64 {
        self.sources.iter().fold(0, |key, &(qubit, bit)| key | ((qubits >> qubit & 1) << bit))
    }
}

/// Whether a run with qubit values `qubits` satisfies every post-selection of `circuit`.
pub fn postselected(circuit: &Circuit, qubits: u64) -> bool {
    circuit.postselect.iter().all(|p| p.qubit.index() < 64 && (qubits >> p.qubit.index() & 1 == 1) == p.value)
}

/// The exact distribution of `circuit`'s outcome keys, from the dense simulator.
pub fn run_exact(circuit: &Circuit) -> Result<Observation, String> {
    let bits = OutcomeBits::of(circuit)?;
    let distribution = DenseSimulator::new().probabilities(circuit).map_err(|e| e.to_string())?;
    let pairs = distribution.probabilities.iter().enumerate().map(|(index, &p)| (bits.key(index as u64), p));
    Observation::exact(pairs).map_err(|e| e.to_string())
}

/// The outcome keys of provider results over all qubits (qubit `i` = bit `i`): post-selected,
/// then exact probabilities, or counts for `shots` shots (frequencies times shots, rounded).
pub fn from_qubit_results(
    circuit: &Circuit,
    results: &[(u64, f64)],
    shots: Option<u64>,
) -> Result<Observation, String> {
    let bits = OutcomeBits::of(circuit)?;
    let kept: Vec<(u64, f64)> =
        results.iter().filter(|(qubits, _)| postselected(circuit, *qubits)).map(|&(q, p)| (bits.key(q), p)).collect();
    let total: f64 = kept.iter().map(|e| e.1).sum();
    if total <= 0.0 {
        return Err("no result satisfies the circuit's post-selections".into());
    }
    match shots {
        None => Observation::exact(kept.into_iter().map(|(k, p)| (k, p / total))).map_err(|e| e.to_string()),
        Some(n) => Observation::counts(kept.into_iter().map(|(k, p)| (k, (p * n as f64).round() as u64)))
            .map_err(|e| e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::{Gate, GateKind, QubitRole};

    use super::*;

    #[test]
    fn keys_follow_measurements() {
        let mut circuit = Circuit::new();
        let q0 = circuit.add_qubit(QubitRole::General);
        let q1 = circuit.add_qubit(QubitRole::General);
        circuit.push_gate(Gate::x(q1));
        circuit.push_measure(q1); // bit 0 reads qubit 1
        let bits = OutcomeBits::of(&circuit).expect("final measurement");
        assert_eq!((bits.width(), bits.key(0b10), bits.key(0b01)), (1, 1, 0));
        assert_eq!(run_exact(&circuit).expect("runs"), Observation::certainly(1));
        circuit.push_gate(Gate::x(q1));
        assert!(OutcomeBits::of(&circuit).expect_err("mid-circuit").contains("before gates"));
        let mut plain = Circuit::new();
        let a = plain.add_qubit(QubitRole::General);
        plain.add_qubit(QubitRole::General);
        plain.push_gate(Gate::one(GateKind::H, a));
        let bits = OutcomeBits::of(&plain).expect("no measurement");
        assert_eq!((bits.width(), bits.key(0b11)), (2, 0b11));
        let _ = q0;
    }

    #[test]
    fn provider_results_become_counts() {
        let mut plain = Circuit::new();
        plain.add_qubit(QubitRole::General);
        let observed = from_qubit_results(&plain, &[(0, 0.25), (1, 0.75)], Some(100)).expect("counts");
        assert_eq!(observed, Observation::counts([(0, 25), (1, 75)]).expect("valid"));
        let exact = from_qubit_results(&plain, &[(0, 0.25), (1, 0.75)], None).expect("exact");
        assert!((exact.probability(1) - 0.75).abs() < 1e-12);
    }
}
