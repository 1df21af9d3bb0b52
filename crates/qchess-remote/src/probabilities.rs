//! Job results normalised to `{outcome: probability}` with qubit `i` as bit `i` of the outcome,
//! and converters between that order and the bit orders other tools print.
//!
//! IonQ answers `{"5": 0.5, "0": 0.5}`: decimal keys over all the job's qubits, zeros omitted,
//! summing to 1 within about 1e-5 (QPU results are rounded shot frequencies).
//!
//! ```
//! use qchess_remote::probabilities::{Probabilities, from_braket_string, to_cirq_order, to_qiskit_string};
//!
//! let results = Probabilities::from_json(&serde_json::json!({"1": 1.0}), 3)?;
//! assert_eq!(results.outcomes(), &[(1, 1.0)]);
//! // X on qubit 0 of 3: Qiskit prints "001", Cirq's histogram key (q0 first) is 4,
//! // Braket prints qubit 0 first.
//! assert_eq!(to_qiskit_string(1, 3), "001");
//! assert_eq!(to_cirq_order(1, &[0, 1, 2]), 4);
//! assert_eq!(from_braket_string("100"), Some(1));
//! # Ok::<(), qchess_remote::probabilities::ResultsError>(())
//! ```

use serde_json::Value;
use thiserror::Error;

/// Probabilities may sum to 1 within this much (IonQ rounds its results).
pub const SUM_TOLERANCE: f64 = 1e-5;

/// Why a results body is not a probability distribution over the job's qubits.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ResultsError {
    /// The body is not a JSON object.
    #[error("expected an object of outcome -> probability, got {0}")]
    NotAnObject(String),
    /// A key is not a decimal outcome of the job's qubits.
    #[error("key {key:?} is not an outcome of {qubits} qubits")]
    BadOutcome {
        /// The key.
        key: String,
        /// The job's qubits.
        qubits: u32,
    },
    /// A value is not a probability.
    #[error("outcome {key}: {value} is not a probability")]
    BadProbability {
        /// The key.
        key: String,
        /// The value, as JSON.
        value: String,
    },
    /// The probabilities do not sum to 1.
    #[error("the probabilities sum to {0}, not 1")]
    BadSum(f64),
    /// Results are keyed by 64-bit outcomes.
    #[error("{0} qubits do not fit 64-bit outcomes")]
    TooManyQubits(u32),
}

/// A normalised distribution over the outcomes of a job's qubits.
#[derive(Debug, Clone, PartialEq)]
pub struct Probabilities {
    qubits: u32,
    outcomes: Vec<(u64, f64)>,
}

impl Probabilities {
    /// Reads IonQ's results body for a job of `qubits` qubits, checks it, and renormalises it
    /// to sum to exactly 1.
    pub fn from_json(body: &Value, qubits: u32) -> Result<Probabilities, ResultsError> {
        if qubits > 64 {
            return Err(ResultsError::TooManyQubits(qubits));
        }
        let Value::Object(map) = body else {
            let mut shown = body.to_string();
            shown.truncate(80);
            return Err(ResultsError::NotAnObject(shown));
        };
        let mut outcomes = Vec::with_capacity(map.len());
        for (key, value) in map {
            let outcome = key
                .parse::<u64>()
                .ok()
                .filter(|&o| qubits == 64 || o >> qubits == 0)
                .filter(|_| key.bytes().all(|b| b.is_ascii_digit()))
                .ok_or_else(|| ResultsError::BadOutcome { key: key.clone(), qubits })?;
            let probability = value
                .as_f64()
                .filter(|p| p.is_finite() && (0.0..=1.0 + SUM_TOLERANCE).contains(p))
                .ok_or_else(|| ResultsError::BadProbability { key: key.clone(), value: value.to_string() })?;
            if probability > 0.0 {
                outcomes.push((outcome, probability));
            }
        }
        Probabilities::new(qubits, outcomes)
    }

    /// A distribution from outcome weights that sum to 1 within [`SUM_TOLERANCE`]; repeated
    /// outcomes are added up.
    pub fn new(qubits: u32, mut outcomes: Vec<(u64, f64)>) -> Result<Probabilities, ResultsError> {
        let sum: f64 = outcomes.iter().map(|&(_, p)| p).sum();
        if !sum.is_finite() || (sum - 1.0).abs() > SUM_TOLERANCE {
            return Err(ResultsError::BadSum(sum));
        }
        outcomes.sort_by_key(|&(outcome, _)| outcome);
        outcomes.dedup_by(|later, earlier| {
            let same = later.0 == earlier.0;
            if same {
                earlier.1 += later.1;
            }
            same
        });
        outcomes.iter_mut().for_each(|(_, p)| *p /= sum);
        Ok(Probabilities { qubits, outcomes })
    }

    /// Number of qubits the outcomes cover.
    pub fn qubits(&self) -> u32 {
        self.qubits
    }

    /// Outcomes with nonzero probability, in increasing order; qubit `i` is bit `i`.
    pub fn outcomes(&self) -> &[(u64, f64)] {
        &self.outcomes
    }
}

/// Cirq's histogram key of `outcome` measured as `measured` (in `measure(...)` order): the first
/// measured qubit is the most significant bit.
pub fn to_cirq_order(outcome: u64, measured: &[u32]) -> u64 {
    measured.iter().fold(0, |key, &qubit| (key << 1) | (outcome >> qubit & 1))
}

/// The inverse of [`to_cirq_order`]: the outcome whose `measured` qubits read `key`.
pub fn from_cirq_order(key: u64, measured: &[u32]) -> u64 {
    let n = measured.len();
    measured
        .iter()
        .enumerate()
        .fold(0, |outcome, (position, &qubit)| outcome | ((key >> (n - 1 - position) & 1) << qubit))
}

/// Qiskit's bit string of `outcome` over `bits` bits: bit `bits - 1` leftmost, bit 0 rightmost.
pub fn to_qiskit_string(outcome: u64, bits: u32) -> String {
    (0..bits).rev().map(|i| if outcome >> i & 1 == 1 { '1' } else { '0' }).collect()
}

/// Reads a Braket measurement string, qubit 0 leftmost; `None` unless it is 1 to 64 `0`/`1`s.
pub fn from_braket_string(text: &str) -> Option<u64> {
    if text.is_empty() || text.len() > 64 {
        return None;
    }
    text.bytes().enumerate().try_fold(0u64, |outcome, (i, b)| match b {
        b'0' => Some(outcome),
        b'1' => Some(outcome | 1 << i),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    #[test]
    fn bell_results_read_and_bad_ones_are_named() {
        let bell = Probabilities::from_json(&json!({"0": 0.5, "3": 0.500001}), 2).expect("valid");
        assert_eq!(bell.outcomes().len(), 2);
        assert!((bell.outcomes().iter().map(|o| o.1).sum::<f64>() - 1.0).abs() < 1e-15);
        let cases = [
            (json!([1]), "expected an object"),
            (json!({"4": 1.0}), "key \"4\" is not an outcome of 2 qubits"),
            (json!({"x": 1.0}), "key \"x\""),
            (json!({"+1": 1.0}), "key \"+1\""),
            (json!({"1": "1.0"}), "is not a probability"),
            (json!({"1": -0.5, "0": 1.5}), "is not a probability"),
            (json!({"1": 0.5}), "sum to 0.5"),
        ];
        for (body, expected) in cases {
            let error = Probabilities::from_json(&body, 2).expect_err(&body.to_string()).to_string();
            assert!(error.contains(expected), "{body}: {error}");
        }
        assert!(Probabilities::from_json(&json!({}), 65).is_err());
    }

    proptest! {
        #[test]
        fn cirq_order_round_trips(outcome in any::<u64>(), n in 1usize..=20) {
            let measured: Vec<u32> = (0..n as u32).map(|i| (i * 7 + 3) % 64).collect();
            let mut unique = measured.clone();
            unique.sort_unstable();
            unique.dedup();
            prop_assume!(unique.len() == measured.len());
            let mask = measured.iter().fold(0u64, |m, &q| m | 1 << q);
            let key = to_cirq_order(outcome, &measured);
            prop_assert!(key < 1u64 << n);
            prop_assert_eq!(from_cirq_order(key, &measured), outcome & mask);
        }

        #[test]
        fn qiskit_and_braket_strings_mirror_each_other(outcome in any::<u64>(), bits in 1u32..=64) {
            let masked = if bits == 64 { outcome } else { outcome & ((1u64 << bits) - 1) };
            let qiskit = to_qiskit_string(masked, bits);
            let braket: String = qiskit.chars().rev().collect();
            prop_assert_eq!(from_braket_string(&braket), Some(masked));
        }

        #[test]
        fn arbitrary_bodies_never_panic(keys in proptest::collection::vec("[0-9a-z+-]{0,5}", 0..6), values in proptest::collection::vec(-2.0f64..2.0, 6)) {
            let body: serde_json::Map<String, Value> = keys.iter().zip(&values).map(|(k, v)| (k.clone(), json!(v))).collect();
            let _ = Probabilities::from_json(&Value::Object(body), 8);
        }

        #[test]
        fn braket_strings_never_panic(text in "[01x]{0,70}") {
            let _ = from_braket_string(&text);
        }
    }
}
