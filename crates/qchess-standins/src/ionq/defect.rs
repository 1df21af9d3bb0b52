//! Deliberate defects (`qchess serve --defect`, for tests only): a provider that is wrong in
//! a small, known way, so that comparisons can be shown to catch it.
//!
//! - `bit-flip:Q:P`: each shot reads qubit `Q` flipped with probability `P` (exact results
//!   mix the same way: `p'(x) = (1 - P) p(x) + P p(x ^ 2^Q)`).
//! - `phase-flip:Q:N`: a Z gate on qubit `Q` right after the `N`-th gate that acts on it, a
//!   wrong phase that changes what a later merge does. IonQ's QIS lowering writes an iSWAP or
//!   a square root of one as an XX and a YY rotation, so `N = 2` puts the phase right after the
//!   qubit's first two-qubit gate, at the same place in every job of a game.
//!
//! Jobs with fewer qubits than `Q + 1` are not affected.
//!
//! ```
//! use qchess_standins::ionq::defect::Defect;
//!
//! let defect: Defect = "bit-flip:0:0.05".parse()?;
//! let mixed = defect.apply_to_exact(vec![(0b10, 1.0)], 2);
//! assert_eq!(mixed.len(), 2);
//! assert!((mixed[1].1 - 0.05).abs() < 1e-12); // 0b11
//! assert_eq!("phase-flip:1:2".parse::<Defect>()?, Defect::PhaseFlip { qubit: 1, after: 2 });
//! assert!("phase-flip:x".parse::<Defect>().is_err());
//! # Ok::<(), String>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use qchess_circuit::ir::{Circuit, Gate, GateKind, Op, Qubit};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A deliberate defect. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Defect {
    /// Each shot's bit `qubit` is flipped with probability `probability`.
    BitFlip {
        /// The qubit read wrong.
        qubit: u32,
        /// How often, in `(0, 1]`.
        probability: f64,
    },
    /// A Z gate on `qubit` after the `after`-th gate that acts on it.
    PhaseFlip {
        /// The qubit given the wrong phase.
        qubit: u32,
        /// How many gates on the qubit come before the wrong phase (at least 1).
        after: u32,
    },
}

impl FromStr for Defect {
    type Err = String;

    fn from_str(text: &str) -> Result<Defect, String> {
        let usage = || format!("defect `{text}`: expected bit-flip:QUBIT:PROBABILITY or phase-flip:QUBIT:GATES");
        let parts: Vec<&str> = text.trim().split(':').collect();
        let qubit = |s: &str| s.parse::<u32>().ok().filter(|&q| q < 64).ok_or_else(usage);
        match parts.as_slice() {
            ["bit-flip", q, p] => {
                let probability: f64 = p.parse().map_err(|_| usage())?;
                if !(probability > 0.0 && probability <= 1.0) {
                    return Err(format!("defect `{text}`: the probability must be in (0, 1]"));
                }
                Ok(Defect::BitFlip { qubit: qubit(q)?, probability })
            }
            ["phase-flip", q, n] => {
                let after = n.parse::<u32>().ok().filter(|&n| n >= 1).ok_or_else(usage)?;
                Ok(Defect::PhaseFlip { qubit: qubit(q)?, after })
            }
            _ => Err(usage()),
        }
    }
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Defect::BitFlip { qubit, probability } => write!(f, "bit-flip:{qubit}:{probability}"),
            Defect::PhaseFlip { qubit, after } => write!(f, "phase-flip:{qubit}:{after}"),
        }
    }
}

impl Defect {
    /// Puts a phase defect into a circuit before it runs.
    pub fn apply_to_circuit(&self, circuit: &mut Circuit) {
        let Defect::PhaseFlip { qubit, after } = *self else { return };
        let target = Qubit(qubit);
        let place = circuit
            .ops
            .iter()
            .enumerate()
            .filter(|(_, op)| matches!(op, Op::Gate { gate, .. } if gate.qubits().any(|q| q == target)))
            .nth(after as usize - 1)
            .map(|(index, _)| index);
        if let Some(index) = place {
            circuit.ops.insert(index + 1, Op::Gate { gate: Gate::one(GateKind::Z, target), condition: None });
        }
    }

    /// Mixes exact probabilities over `qubits` qubits as a bit-flip defect would.
    pub fn apply_to_exact(&self, results: Vec<(u64, f64)>, qubits: u32) -> Vec<(u64, f64)> {
        let Defect::BitFlip { qubit, probability } = *self else { return results };
        if qubit >= qubits {
            return results;
        }
        let mut mixed: BTreeMap<u64, f64> = BTreeMap::new();
        for (outcome, p) in results {
            *mixed.entry(outcome).or_insert(0.0) += (1.0 - probability) * p;
            *mixed.entry(outcome ^ (1 << qubit)).or_insert(0.0) += probability * p;
        }
        mixed.into_iter().filter(|&(_, p)| p > 0.0).collect()
    }

    /// Flips shots of sampled frequencies (of `shots` shots over `qubits` qubits) one by one
    /// with a generator seeded by `seed`.
    pub fn apply_to_shots(&self, frequencies: Vec<(u64, f64)>, shots: u64, qubits: u32, seed: u64) -> Vec<(u64, f64)> {
        let Defect::BitFlip { qubit, probability } = *self else { return frequencies };
        if qubit >= qubits || shots == 0 {
            return frequencies;
        }
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut counts: BTreeMap<u64, u64> = BTreeMap::new();
        for (outcome, frequency) in frequencies {
            let count = (frequency * shots as f64).round() as u64;
            for _ in 0..count {
                let read = if rng.random::<f64>() < probability { outcome ^ (1 << qubit) } else { outcome };
                *counts.entry(read).or_insert(0) += 1;
            }
        }
        counts.into_iter().map(|(outcome, count)| (outcome, count as f64 / shots as f64)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defects_parse_and_print_back() {
        for text in ["bit-flip:3:0.05", "phase-flip:0:2"] {
            assert_eq!(text.parse::<Defect>().expect(text).to_string(), text);
        }
        for bad in ["bit-flip:3", "bit-flip:3:0", "bit-flip:64:0.1", "phase-flip:1", "phase-flip:1:0", "flip:1", ""] {
            assert!(bad.parse::<Defect>().is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_fails_cleanly(text in "\\PC{0,24}") {
            if let Ok(defect) = text.parse::<Defect>() {
                proptest::prop_assert_eq!(defect.to_string().parse::<Defect>(), Ok(defect));
            }
        }

        #[test]
        fn valid_defects_round_trip(qubit in 0u32..64, after in 1u32..100, probability in 1e-6f64..=1.0) {
            for defect in [Defect::BitFlip { qubit, probability }, Defect::PhaseFlip { qubit, after }] {
                proptest::prop_assert_eq!(defect.to_string().parse::<Defect>(), Ok(defect));
            }
        }
    }

    #[test]
    fn a_phase_flip_follows_the_chosen_gate_on_its_qubit() {
        let mut circuit = Circuit::new();
        let a = circuit.add_qubit(qchess_circuit::ir::QubitRole::General);
        let b = circuit.add_qubit(qchess_circuit::ir::QubitRole::General);
        circuit.push_gate(Gate::x(a));
        circuit.push_gate(Gate::cx(a, b));
        circuit.push_gate(Gate::x(b));
        Defect::PhaseFlip { qubit: 1, after: 2 }.apply_to_circuit(&mut circuit);
        assert_eq!(circuit.ops[3], Op::Gate { gate: Gate::one(GateKind::Z, b), condition: None });
        assert_eq!(circuit.ops.len(), 4);
        Defect::PhaseFlip { qubit: 1, after: 4 }.apply_to_circuit(&mut circuit);
        assert_eq!(circuit.ops.len(), 4, "a qubit with fewer gates is left alone");
    }

    #[test]
    fn bit_flips_mix_and_sample() {
        let defect = Defect::BitFlip { qubit: 1, probability: 0.25 };
        let mixed = defect.apply_to_exact(vec![(0b00, 0.5), (0b10, 0.5)], 2);
        assert_eq!(mixed, vec![(0b00, 0.5), (0b10, 0.5)]);
        assert_eq!(defect.apply_to_exact(vec![(1, 1.0)], 1), vec![(1, 1.0)]);
        let shots = defect.apply_to_shots(vec![(0, 1.0)], 10_000, 2, 7);
        let flipped = shots.iter().find(|o| o.0 == 0b10).map_or(0.0, |o| o.1);
        assert!((flipped - 0.25).abs() < 0.02, "{flipped}");
        assert!((shots.iter().map(|o| o.1).sum::<f64>() - 1.0).abs() < 1e-12);
    }
}
