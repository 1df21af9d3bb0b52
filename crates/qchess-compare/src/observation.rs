//! What one backend showed for one move or circuit: an exact distribution, or shot counts.
//!
//! Outcomes are `u64` keys: a board's occupancy bitboard (a1 = bit 0) for games, the measured
//! bits (bit `i` = classical bit `i`, or qubit `i` when nothing is measured) for circuits.
//!
//! ```
//! use qchess_compare::observation::Observation;
//!
//! let exact = Observation::exact([(0b01, 0.5), (0b10, 0.5)])?;
//! let sampled = Observation::counts([(0b01, 480), (0b10, 520), (0b01, 0)])?;
//! assert_eq!(sampled.shots(), Some(1000));
//! assert!((sampled.probability(0b10) - 0.52).abs() < 1e-12);
//! assert_eq!(exact.certain(), None);
//! # Ok::<(), qchess_compare::observation::ObservationError>(())
//! ```

use std::collections::BTreeMap;

use serde::Serialize;
use thiserror::Error;

/// Exact probabilities at or below this are rounding noise: the outcome is impossible.
pub const IMPOSSIBLE: f64 = 1e-12;

/// How far the probabilities of an exact distribution may sum away from 1.
pub const SUM_TOLERANCE: f64 = 1e-6;

/// Why numbers do not make an observation.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ObservationError {
    /// A probability is negative, above 1 or not a number.
    #[error("outcome {key}: probability {probability} is not in [0, 1]")]
    BadProbability {
        /// The outcome.
        key: u64,
        /// Its probability.
        probability: f64,
    },
    /// The probabilities do not add up to 1.
    #[error("the probabilities add up to {sum}, not 1")]
    NotNormalised {
        /// Their sum.
        sum: f64,
    },
    /// No shot was counted.
    #[error("no shot was counted")]
    NoShots,
}

/// One backend's answer for one move or circuit. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Observation {
    /// Exact probabilities of the possible outcomes, by increasing key; each above
    /// [`IMPOSSIBLE`], summing to 1.
    Exact {
        /// `(outcome, probability)` pairs.
        probabilities: Vec<(u64, f64)>,
    },
    /// How many shots showed each outcome, by increasing key; outcomes never seen are absent.
    Counts {
        /// `(outcome, count)` pairs.
        counts: Vec<(u64, u64)>,
        /// The total of the counts.
        shots: u64,
    },
}

impl Observation {
    /// An exact distribution: repeated keys add up, probabilities at or below [`IMPOSSIBLE`]
    /// are dropped, and the rest is renormalised (the sum must be within [`SUM_TOLERANCE`] of 1).
    pub fn exact(pairs: impl IntoIterator<Item = (u64, f64)>) -> Result<Observation, ObservationError> {
        let mut merged: BTreeMap<u64, f64> = BTreeMap::new();
        for (key, probability) in pairs {
            if !(0.0..=1.0 + SUM_TOLERANCE).contains(&probability) {
                return Err(ObservationError::BadProbability { key, probability });
            }
            *merged.entry(key).or_insert(0.0) += probability;
        }
        let sum: f64 = merged.values().sum();
        if (sum - 1.0).abs() > SUM_TOLERANCE {
            return Err(ObservationError::NotNormalised { sum });
        }
        let kept: Vec<(u64, f64)> = merged.into_iter().filter(|&(_, p)| p > IMPOSSIBLE).collect();
        let total: f64 = kept.iter().map(|e| e.1).sum();
        Ok(Observation::Exact { probabilities: kept.into_iter().map(|(k, p)| (k, p / total)).collect() })
    }

    /// Shot counts: repeated keys add up and zero counts are dropped; at least one shot.
    pub fn counts(pairs: impl IntoIterator<Item = (u64, u64)>) -> Result<Observation, ObservationError> {
        let mut merged: BTreeMap<u64, u64> = BTreeMap::new();
        for (key, count) in pairs {
            *merged.entry(key).or_insert(0) += count;
        }
        let counts: Vec<(u64, u64)> = merged.into_iter().filter(|&(_, c)| c > 0).collect();
        let shots = counts.iter().map(|e| e.1).sum();
        if shots == 0 {
            return Err(ObservationError::NoShots);
        }
        Ok(Observation::Counts { counts, shots })
    }

    /// A single outcome with certainty (an exact, classical answer).
    pub fn certainly(key: u64) -> Observation {
        Observation::Exact { probabilities: vec![(key, 1.0)] }
    }

    /// Whether this is an exact distribution.
    pub fn is_exact(&self) -> bool {
        matches!(self, Observation::Exact { .. })
    }

    /// The number of shots, for counts.
    pub fn shots(&self) -> Option<u64> {
        match self {
            Observation::Exact { .. } => None,
            Observation::Counts { shots, .. } => Some(*shots),
        }
    }

    /// The probability (or observed frequency) of each outcome with one, by increasing key.
    pub fn probabilities(&self) -> Vec<(u64, f64)> {
        match self {
            Observation::Exact { probabilities } => probabilities.clone(),
            Observation::Counts { counts, shots } => {
                counts.iter().map(|&(key, count)| (key, count as f64 / *shots as f64)).collect()
            }
        }
    }

    /// The probability (or observed frequency) of one outcome.
    pub fn probability(&self, key: u64) -> f64 {
        match self {
            Observation::Exact { probabilities } => {
                probabilities.binary_search_by_key(&key, |e| e.0).map_or(0.0, |i| probabilities[i].1)
            }
            Observation::Counts { counts, shots } => {
                counts.binary_search_by_key(&key, |e| e.0).map_or(0.0, |i| counts[i].1 as f64 / *shots as f64)
            }
        }
    }

    /// The outcomes with a probability (or at least one shot), by increasing key.
    pub fn keys(&self) -> Vec<u64> {
        match self {
            Observation::Exact { probabilities } => probabilities.iter().map(|e| e.0).collect(),
            Observation::Counts { counts, .. } => counts.iter().map(|e| e.0).collect(),
        }
    }

    /// The outcome, when every shot (or all the probability) is on one.
    pub fn certain(&self) -> Option<u64> {
        let keys = self.keys();
        (keys.len() == 1).then(|| keys[0])
    }

    /// For each bit `0..64`, the probability (or frequency) that the outcome has it set: for
    /// games, each square's occupancy probability.
    pub fn bit_probabilities(&self) -> [f64; 64] {
        let mut bits = [0.0; 64];
        for (key, p) in self.probabilities() {
            for (bit, slot) in bits.iter_mut().enumerate() {
                if key >> bit & 1 == 1 {
                    *slot += p;
                }
            }
        }
        bits.map(|p: f64| p.clamp(0.0, 1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_distributions_are_merged_trimmed_and_checked() {
        let exact = Observation::exact([(3, 0.25), (1, 0.5), (3, 0.25), (9, 1e-15)]).expect("valid");
        assert_eq!(exact, Observation::Exact { probabilities: vec![(1, 0.5), (3, 0.5)] });
        assert_eq!(exact.probability(9), 0.0);
        assert_eq!(Observation::exact([(1, 0.5)]).expect_err("half"), ObservationError::NotNormalised { sum: 0.5 });
        assert!(matches!(
            Observation::exact([(1, -0.5), (2, 1.5)]),
            Err(ObservationError::BadProbability { key: 1, .. })
        ));
        assert!(Observation::exact([(1, f64::NAN)]).is_err());
    }

    #[test]
    fn counts_and_bit_probabilities() {
        let counts = Observation::counts([(0b11, 1), (0b01, 3), (0b10, 0)]).expect("valid");
        assert_eq!(counts.keys(), vec![0b01, 0b11]);
        let bits = counts.bit_probabilities();
        assert!((bits[0] - 1.0).abs() < 1e-12 && (bits[1] - 0.25).abs() < 1e-12 && bits[2] == 0.0);
        assert_eq!(Observation::counts([(1, 0)]), Err(ObservationError::NoShots));
        assert_eq!(Observation::certainly(7).certain(), Some(7));
        assert_eq!(counts.certain(), None);
    }
}
