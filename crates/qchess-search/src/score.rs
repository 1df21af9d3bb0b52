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
