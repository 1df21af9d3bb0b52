//! Fitting the evaluation's weights to game outcomes: a Texel-style fit.
//!
//! Each sample is a quiet position from a finished game (no capture that expects to gain
//! material is pending, so the static evaluation means what it says), its [`terms`] and the
//! game's result from the side to move's view (1, 1/2 or 0; a game adjudicated at the move
//! limit counts as a draw). The evaluation predicts the result through the logistic curve
//! `1 / (1 + 10^(-k * eval / 400))`; the fit first finds the scale `k` that makes the current
//! weights predict best, then moves the weights to lower the mean squared error of the
//! predictions (Adam steps on the exact gradient). Games are split into training and test
//! sets by their index ([`is_test_game`]), so a fit that only learns its own games shows up
//! as a test error that does not fall.

use qchess_engine::GameResult;
use qchess_engine::record::{GameRecord, ReplayError};

use crate::eval::{TERMS, Weights, terms};
use crate::order::{CaptureOutlook, is_capture};

/// Plies at the start of a game whose positions are not used (the opening repeats across a
/// match's games).
pub const SKIPPED_PLIES: usize = 8;

/// One position: its terms and the result from the side to move's view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    /// The evaluation's terms ([`terms`]).
    pub terms: [f64; TERMS],
    /// 1 for a win of the side to move, 1/2 for a draw, 0 for a loss.
    pub result: f64,
}

/// Whether game `index` (from 0) of a set belongs to the test set: every fifth.
pub fn is_test_game(index: usize) -> bool {
    index % 5 == 4
}

/// The samples of a game record: every quiet position after the first [`SKIPPED_PLIES`]
/// plies, until the game ends.
pub fn samples(record: &GameRecord) -> Result<Vec<Sample>, ReplayError> {
    let mut game = record.replay()?;
    let white_score = match game.result() {
        GameResult::WhiteWins => 1.0,
        GameResult::BlackWins => 0.0,
        // Draws, and games adjudicated at the move limit.
        _ => 0.5,
    };
    let weights = Weights::default();
    let mut found = Vec::new();
    loop {
        let position = game.position();
        if game.moves().len() >= SKIPPED_PLIES && !game.is_over() && is_quiet(&game, &weights) {
            let white = position.turn() == qchess_core::Color::White;
            found.push(Sample { terms: terms(position), result: if white { white_score } else { 1.0 - white_score } });
        }
        if game.undo().is_err() {
            break;
        }
    }
    found.reverse();
    Ok(found)
}

/// No capture of the side to move expects to gain material (a king capture counts).
fn is_quiet(game: &qchess_engine::Game, weights: &Weights) -> bool {
    let position = game.position();
    !game.legal_captures().iter().filter(|mv| is_capture(mv)).any(|mv| {
        let outlook = CaptureOutlook::of(mv, position, weights);
        outlook.takes_king || (outlook.gain > 0.0 && !outlook.is_losing(mv, position))
    })
}

/// The predicted score of a sample whose evaluation is `eval`, at scale `k`.
fn predicted(eval: f64, k: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * eval / 400.0))
}

/// The evaluation of a sample's position under `weights`.
fn evaluation(sample: &Sample, weights: &[f64; TERMS]) -> f64 {
    sample.terms.iter().zip(weights).map(|(t, w)| t * w).sum()
}

/// The mean squared error of the predictions of `weights` at scale `k` (0 with no samples).
pub fn error(samples: &[Sample], weights: &Weights, k: f64) -> f64 {
    let vector = weights.to_vector();
    let total: f64 = samples.iter().map(|s| (s.result - predicted(evaluation(s, &vector), k)).powi(2)).sum();
    total / samples.len().max(1) as f64
}

/// The scale `k` (between 0.05 and 5) at which `weights` predict `samples` best, by golden
/// section search.
pub fn fit_scale(samples: &[Sample], weights: &Weights) -> f64 {
    let (mut low, mut high) = (0.05_f64, 5.0_f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = high - ratio * (high - low);
        let b = low + ratio * (high - low);
        if error(samples, weights, a) < error(samples, weights, b) {
            high = b;
        } else {
            low = a;
        }
    }
    (low + high) / 2.0
}

/// Weights fitted to `samples` from `start` at scale `k`: `steps` Adam steps of the exact
/// gradient of the mean squared error, each term's step scaled to its typical size so that
/// a weight moves by about `rate` times its own size per step at most.
pub fn fit(samples: &[Sample], start: &Weights, k: f64, steps: usize, rate: f64) -> Weights {
    fit_some(samples, start, k, steps, rate, &[true; TERMS])
}

/// [`fit`] of the weights `free` marks (in the order of [`Weights::to_vector`]); the others
/// keep their values.
pub fn fit_some(samples: &[Sample], start: &Weights, k: f64, steps: usize, rate: f64, free: &[bool; TERMS]) -> Weights {
    let mut weights = start.to_vector();
    let scale = weights.map(|w| w.abs().max(1.0));
    let (mut first, mut second) = ([0.0; TERMS], [0.0; TERMS]);
    let (beta1, beta2, epsilon) = (0.9, 0.999, 1e-12);
    let slope = k * std::f64::consts::LN_10 / 400.0;
    for step in 1..=steps {
        let mut gradient = [0.0; TERMS];
        for sample in samples {
            let p = predicted(evaluation(sample, &weights), k);
            // d/dw (r - p)^2 = -2 (r - p) p (1 - p) slope * term
            let factor = -2.0 * (sample.result - p) * p * (1.0 - p) * slope;
            for (g, t) in gradient.iter_mut().zip(&sample.terms) {
                *g += factor * t;
            }
        }
        let count = samples.len().max(1) as f64;
        for i in (0..TERMS).filter(|&i| free[i]) {
            // In units of the weight's size, so every weight learns at the same pace.
            let g = gradient[i] / count * scale[i];
            first[i] = beta1 * first[i] + (1.0 - beta1) * g;
            second[i] = beta2 * second[i] + (1.0 - beta2) * g * g;
            let corrected = (first[i] / (1.0 - beta1.powi(step as i32)), second[i] / (1.0 - beta2.powi(step as i32)));
            weights[i] -= rate * scale[i] * corrected.0 / (corrected.1.sqrt() + epsilon);
        }
    }
    Weights::from_vector(weights)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples whose result follows one term: the fit must raise that term's weight and lower
    /// the error on samples it has not seen.
    #[test]
    fn the_fit_learns_a_term_that_predicts_the_result() {
        let make = |seed: u64| -> Vec<Sample> {
            let mut state = seed;
            (0..400)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let mobility = ((state >> 33) % 41) as f64 - 20.0;
                    let mut terms = [0.0; TERMS];
                    terms[6] = mobility;
                    terms[10] = 1.0;
                    // The side with more mobility wins; equal is a draw.
                    let result = if mobility > 0.0 {
                        1.0
                    } else if mobility < 0.0 {
                        0.0
                    } else {
                        0.5
                    };
                    Sample { terms, result }
                })
                .collect()
        };
        let (train, test) = (make(1), make(2));
        let start = Weights { mobility: 1.0, tempo: 0.0, ..Weights::default() };
        let k = fit_scale(&train, &start);
        let fitted = fit(&train, &start, k, 300, 0.05);
        assert!(fitted.mobility > 3.0, "mobility weight {}", fitted.mobility);
        assert!(error(&test, &fitted, k) < error(&test, &start, k) * 0.8);
    }

    #[test]
    fn a_recorded_game_gives_quiet_samples_with_its_result() {
        let mut game = qchess_engine::Game::standard();
        for mv in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6", "f3g5", "d7d5", "e4xd5", "f6xd5", "g5xf7", "e8xf7"] {
            game.play(mv).unwrap();
        }
        game.concede(qchess_core::Color::White, qchess_engine::EndReason::Resignation).unwrap();
        let record = GameRecord::from_game(&game, &Default::default());
        let found = samples(&record).unwrap();
        assert!(!found.is_empty() && found.len() <= 12 - SKIPPED_PLIES);
        // Black won: a win for the side to move when Black is to move.
        for sample in &found {
            assert!(sample.result == 0.0 || sample.result == 1.0);
        }
    }
}
