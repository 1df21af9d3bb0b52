//! The scale of the search's values: centipawns, or expected score.
//!
//! With chance nodes the scale of a value matters, not only its order: a chance node's value is
//! the probability-weighted mean of its outcomes' values, and a mean of centipawns is not a
//! mean of winning chances. A king capture is worth [`WIN`]; measured in centipawns, a split
//! that loses the king with probability 0.01 costs a thousand of them, more than a queen.
//!
//! Played for expected score ([`SearchConfig::score_scale`](crate::SearchConfig)), the
//! search takes every evaluation of `cp` centipawns as [`leaf_value`]: `WIN * (2E - 1)`, where
//! `E = 1 / (1 + 10^(-cp / scale))` is the expected score the evaluation stands for. A king
//! capture (`E = 1`) and a position then mix by their probabilities as the game's results
//! do: that split is worth `0.99 * E(rest)` of the score.
//!
//! The search reports its values in centipawns all the same ([`centipawns`]): a value short of
//! the certain wins goes back through the inverse, `scale * log10(E / (1 - E))`, so an
//! evaluation reads as itself and a mixture as the centipawns of its expected score.

use std::f64::consts::LN_10;

use crate::{CERTAIN_WIN, WIN};

/// An evaluation of `cp` centipawns as a search with `score_scale` weighs it: `cp` itself
/// without a scale, else `WIN * (2E - 1)` for its expected score `E`, kept short of the
/// certain wins. See the [module docs](self).
pub fn leaf_value(cp: f64, score_scale: Option<f64>) -> f64 {
    match score_scale {
        Some(scale) => (WIN * (cp * LN_10 / (2.0 * scale)).tanh()).clamp(-CERTAIN_WIN + 1.0, CERTAIN_WIN - 1.0),
        None => cp,
    }
}

/// A value of a search with `score_scale` in centipawns: a certain win or loss as it is,
/// any other value through the inverse of [`leaf_value`].
pub fn centipawns(value: f64, score_scale: Option<f64>) -> f64 {
    match score_scale {
        Some(scale) if value.abs() < CERTAIN_WIN => (value / WIN).atanh() * 2.0 * scale / LN_10,
        _ => value,
    }
}

/// The evaluation in centipawns below which [`leaf_value`] falls below `value`: for any `cp`,
/// `leaf_value(cp) < value` exactly when `cp < evaluation_below(value)` (to the rounding of
/// `tanh` and its inverse). Lets a node compare many evaluations with one bound at the price
/// of one inverse.
pub(crate) fn evaluation_below(value: f64, score_scale: Option<f64>) -> f64 {
    match score_scale {
        // Every evaluation maps below a value past the clamp, none below one at its floor.
        Some(_) if value > CERTAIN_WIN - 1.0 => f64::INFINITY,
        Some(_) if value <= -CERTAIN_WIN + 1.0 => f64::NEG_INFINITY,
        _ => centipawns(value, score_scale),
    }
}

/// One value of a search's scale that many evaluations in centipawns are compared with:
/// mapped back once ([`evaluation_below`]) instead of mapping every evaluation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ValueBound {
    value: f64,
    floor: f64,
    score_scale: Option<f64>,
}

impl ValueBound {
    /// The bound at `value`, for a search with `score_scale`.
    pub(crate) fn new(value: f64, score_scale: Option<f64>) -> ValueBound {
        ValueBound { value, floor: evaluation_below(value, score_scale), score_scale }
    }

    /// Whether `leaf_value(cp) < value`, as mapping `cp` would say: an evaluation so close
    /// to the floor that rounding could decide is mapped after all.
    pub(crate) fn maps_below(&self, cp: f64) -> bool {
        let near = self.floor.is_finite() && (cp - self.floor).abs() <= 1e-6 * (1.0 + self.floor.abs());
        if near { leaf_value(cp, self.score_scale) < self.value } else { cp < self.floor }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{SCORE_SCALE, expected_score};

    #[test]
    fn centipawns_read_back_the_evaluation() {
        for scale in [400.0, 2170.0] {
            for cp in [-900.0, -310.0, -1.0, 0.0, 0.5, 100.0, 900.0] {
                let back = centipawns(leaf_value(cp, Some(scale)), Some(scale));
                assert!((back - cp).abs() < 1e-9, "{cp} at {scale}: {back}");
            }
        }
        // Far past a 99-to-1 favourite, evaluations stop short of the certain wins.
        let far = centipawns(leaf_value(-1500.0, Some(400.0)), Some(400.0));
        assert!((-920.0..-919.0).contains(&far), "{far}");
        assert_eq!(leaf_value(123.0, None), 123.0);
        assert_eq!(centipawns(WIN - 5.0, Some(400.0)), WIN - 5.0);
    }

    #[test]
    fn evaluations_below_a_value_are_the_ones_that_map_below_it() {
        for scale in [None, Some(400.0), Some(2170.0)] {
            for value in
                [-WIN, -CERTAIN_WIN + 1.0, -50_000.0, -3.0, 0.0, 250.0, 99_000.0, CERTAIN_WIN - 1.0, CERTAIN_WIN, WIN]
            {
                let bound = evaluation_below(value, scale);
                for cp in [-100_000.0, -5000.0, -901.0, -1.0, 0.0, 3.0, 450.0, 5000.0, 100_000.0] {
                    assert_eq!(leaf_value(cp, scale) < value, cp < bound, "{cp} against {value} at {scale:?}");
                    let mapped = leaf_value(cp, scale) < value;
                    assert_eq!(ValueBound::new(value, scale).maps_below(cp), mapped);
                    // At the floor itself, the mapping decides.
                    if bound.is_finite() {
                        let at = ValueBound::new(value, scale);
                        assert_eq!(at.maps_below(bound), leaf_value(bound, scale) < value);
                    }
                }
            }
        }
    }

    #[test]
    fn a_chance_on_the_king_mixes_linearly_in_expected_score() {
        // The coach's curve: exact for values of a search at its scale.
        let scale = Some(SCORE_SCALE);
        // Even otherwise, and the king lost with probability 0.3: 0.7 of an even game.
        let value = 0.3 * -WIN + 0.7 * leaf_value(0.0, scale);
        assert!((expected_score(centipawns(value, scale)) - 0.35).abs() < 1e-12);
        // A rook up and a 0.2 chance to take the king.
        let rook = expected_score(500.0);
        let value = 0.2 * WIN + 0.8 * leaf_value(500.0, scale);
        let expected = expected_score(centipawns(value, scale));
        assert!((expected - (0.2 + 0.8 * rook)).abs() < 1e-12, "{expected}");
    }
}
