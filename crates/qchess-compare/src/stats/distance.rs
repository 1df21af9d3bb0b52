//! How far apart two distributions are: total variation distance and Hellinger fidelity,
//! with percentile-bootstrap confidence intervals for the sampled sides.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::Serialize;

use crate::observation::Observation;

/// A point estimate with a confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The plug-in value from the observed frequencies.
    pub value: f64,
    /// The lower end of the interval.
    pub low: f64,
    /// The upper end of the interval.
    pub high: f64,
}

impl Estimate {
    /// A value known exactly: an interval of width 0.
    pub fn exact(value: f64) -> Estimate {
        Estimate { value, low: value, high: value }
    }
}

/// Walks two key-sorted lists together, calling `f(p, q)` for every key in either.
fn merged(a: &[(u64, f64)], b: &[(u64, f64)], mut f: impl FnMut(f64, f64)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                f(x.1, y.1);
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                f(x.1, 0.0);
                i += 1;
            }
            (Some(x), None) => {
                f(x.1, 0.0);
                i += 1;
            }
            (_, Some(y)) => {
                f(0.0, y.1);
                j += 1;
            }
            (None, None) => break,
        }
    }
}

/// Total variation distance `½ Σ |p_i - q_i|` of two key-sorted distributions: the largest
/// difference in probability the two give any set of outcomes (0 = equal, 1 = disjoint).
///
/// ```
/// use qchess_compare::stats::distance::total_variation;
///
/// assert!((total_variation(&[(0, 0.5), (1, 0.5)], &[(1, 0.75), (2, 0.25)]) - 0.5).abs() < 1e-12);
/// ```
pub fn total_variation(p: &[(u64, f64)], q: &[(u64, f64)]) -> f64 {
    let mut sum = 0.0;
    merged(p, q, |x, y| sum += (x - y).abs());
    (sum / 2.0).clamp(0.0, 1.0)
}

/// Hellinger fidelity `(Σ sqrt(p_i q_i))²`, the square of the Bhattacharyya coefficient, as
/// Qiskit's `hellinger_fidelity` defines it (1 = equal, 0 = disjoint).
///
/// ```
/// use qchess_compare::stats::distance::hellinger_fidelity;
///
/// let f = hellinger_fidelity(&[(0, 0.5), (1, 0.5)], &[(0, 1.0)]);
/// assert!((f - 0.5).abs() < 1e-12);
/// ```
pub fn hellinger_fidelity(p: &[(u64, f64)], q: &[(u64, f64)]) -> f64 {
    let mut coefficient = 0.0;
    merged(p, q, |x, y| coefficient += (x * y).sqrt());
    (coefficient * coefficient).clamp(0.0, 1.0)
}

/// Draws a multinomial sample of `shots` from `probabilities` (key-sorted) by conditional
/// binomials, keeping the keys.
fn resample(probabilities: &[(u64, f64)], shots: u64, rng: &mut ChaCha8Rng) -> Vec<(u64, f64)> {
    let mut remaining = shots;
    let mut mass = 1.0;
    let mut out = Vec::with_capacity(probabilities.len());
    for (index, &(key, p)) in probabilities.iter().enumerate() {
        let drawn = if index + 1 == probabilities.len() || remaining == 0 {
            remaining
        } else {
            let conditional = (p / mass).clamp(0.0, 1.0);
            Binomial::new(remaining, conditional).map_or(0, |b| b.sample(rng))
        };
        remaining -= drawn;
        mass -= p;
        if drawn > 0 {
            out.push((key, drawn as f64 / shots as f64));
        }
    }
    out
}

/// The `q` quantile (0 ..= 1) of sorted values, interpolating linearly between ranks.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let position = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = position.ceil() as usize;
    let weight = position - below as f64;
    sorted[below] * (1.0 - weight) + sorted[above] * weight
}

/// Total variation distance and Hellinger fidelity of two observations, with percentile
/// bootstrap intervals at `confidence` (e.g. 0.95): each sampled side is redrawn
/// `replicates` times as a multinomial sample of its own size from its observed frequencies
/// (exact sides are held fixed), with a ChaCha8 generator seeded by `seed`. Two exact sides
/// give intervals of width 0.
pub fn distances(
    a: &Observation,
    b: &Observation,
    replicates: u32,
    confidence: f64,
    seed: u64,
) -> (Estimate, Estimate) {
    let (pa, pb) = (a.probabilities(), b.probabilities());
    let tvd = total_variation(&pa, &pb);
    let fidelity = hellinger_fidelity(&pa, &pb);
    if (a.is_exact() && b.is_exact()) || replicates == 0 {
        return (Estimate::exact(tvd), Estimate::exact(fidelity));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut tvds = Vec::with_capacity(replicates as usize);
    let mut fidelities = Vec::with_capacity(replicates as usize);
    for _ in 0..replicates {
        let ra = a.shots().map_or_else(|| pa.clone(), |n| resample(&pa, n, &mut rng));
        let rb = b.shots().map_or_else(|| pb.clone(), |n| resample(&pb, n, &mut rng));
        tvds.push(total_variation(&ra, &rb));
        fidelities.push(hellinger_fidelity(&ra, &rb));
    }
    tvds.sort_by(f64::total_cmp);
    fidelities.sort_by(f64::total_cmp);
    let tail = (1.0 - confidence.clamp(0.0, 1.0)) / 2.0;
    let interval = |value: f64, sorted: &[f64]| Estimate {
        value,
        low: quantile(sorted, tail).min(value),
        high: quantile(sorted, 1.0 - tail).max(value),
    };
    (interval(tvd, &tvds), interval(fidelity, &fidelities))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_by_hand() {
        let p = [(1, 0.2), (2, 0.3), (4, 0.5)];
        let q = [(2, 0.3), (4, 0.2), (8, 0.5)];
        // |0.2| + 0 + |0.3| + |0.5| = 1.0, halved.
        assert!((total_variation(&p, &q) - 0.5).abs() < 1e-12);
        // (sqrt(0.09) + sqrt(0.1))² = (0.3 + 0.316227766...)²
        let expected = (0.3 + 0.1f64.sqrt()).powi(2);
        assert!((hellinger_fidelity(&p, &q) - expected).abs() < 1e-12);
        assert_eq!(total_variation(&p, &p), 0.0);
        assert!((hellinger_fidelity(&p, &p) - 1.0).abs() < 1e-12);
        assert_eq!(total_variation(&[], &[]), 0.0);
    }

    #[test]
    fn quantiles_interpolate() {
        let sorted = [0.0, 1.0, 2.0, 3.0];
        assert_eq!(quantile(&sorted, 0.0), 0.0);
        assert_eq!(quantile(&sorted, 1.0), 3.0);
        assert!((quantile(&sorted, 0.5) - 1.5).abs() < 1e-12);
    }

    #[test]
    fn resampling_keeps_the_shot_count_and_is_seeded() {
        let p = [(1, 0.25), (2, 0.25), (3, 0.5)];
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let sample = resample(&p, 1000, &mut rng);
        assert!((sample.iter().map(|e| e.1).sum::<f64>() - 1.0).abs() < 1e-12);
        let again = resample(&p, 1000, &mut ChaCha8Rng::seed_from_u64(3));
        assert_eq!(sample, again);
    }

    #[test]
    fn bootstrap_intervals_cover_the_estimate() {
        let exact = Observation::exact([(0, 0.5), (1, 0.5)]).expect("valid");
        let sampled = Observation::counts([(0, 530), (1, 470)]).expect("valid");
        let (tvd, fidelity) = distances(&exact, &sampled, 500, 0.95, 1);
        assert!((tvd.value - 0.03).abs() < 1e-12);
        assert!(tvd.low <= tvd.value && tvd.value <= tvd.high && tvd.high < 0.1);
        assert!(fidelity.low <= fidelity.value && fidelity.high <= 1.0 && fidelity.low > 0.99);
        assert_eq!(distances(&exact, &sampled, 500, 0.95, 1), (tvd, fidelity));
        let (same, _) = distances(&exact, &exact, 500, 0.95, 1);
        assert_eq!(same, Estimate::exact(0.0));
    }
}
