//! The statistics against reference values (SciPy 1.17 where noted), and their behaviour
//! when the null hypothesis holds: p-values uniform (Kolmogorov-Smirnov, p > 1e-6), false
//! alarms at the nominal rate, and power against small differences. All samples are seeded.

use qchess_compare::observation::Observation;
use qchess_compare::stats::chi_squared::{MIN_EXPECTED, goodness_of_fit, homogeneity, pool};
use qchess_compare::stats::exact::{binomial_test, multinomial_test};
use qchess_compare::stats::pair::{Method, PairOptions, compare};
use qchess_compare::stats::uniformity::ks_uniform;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `shots` draws from `probabilities`, as counts in the same order.
fn sample(probabilities: &[f64], shots: u64, rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut counts = vec![0; probabilities.len()];
    for _ in 0..shots {
        let u: f64 = rng.random();
        let mut cumulative = 0.0;
        let index = probabilities
            .iter()
            .position(|p| {
                cumulative += p;
                u < cumulative
            })
            .unwrap_or(probabilities.len() - 1);
        counts[index] += 1;
    }
    counts
}

fn observation(counts: &[u64]) -> Observation {
    Observation::counts(counts.iter().enumerate().map(|(k, &c)| (k as u64, c))).expect("shots")
}

fn exact(probabilities: &[f64]) -> Observation {
    Observation::exact(probabilities.iter().enumerate().map(|(k, &p)| (k as u64, p))).expect("normalised")
}

#[test]
fn reference_p_values() {
    // Pooled goodness of fit: expected 40, 30, 20, 6, 3, 1; the rare bin (3 + 1 = 4 < 5) joins
    // the smallest other bin (6). scipy.stats.chisquare([41, 33, 17, 9], [40, 30, 20, 10]).
    let p = [0.4, 0.3, 0.2, 0.06, 0.03, 0.01];
    assert_eq!(pool(&[40.0, 30.0, 20.0, 6.0, 3.0, 1.0], MIN_EXPECTED), vec![vec![0], vec![1], vec![2], vec![3, 4, 5]]);
    let fit = goodness_of_fit(&[41, 33, 17, 5, 3, 1], &p, MIN_EXPECTED);
    assert!((fit.statistic - 0.875).abs() < 1e-12);
    assert_eq!((fit.df, fit.bins), (3, 4));
    assert!((fit.p_value - 0.831_456_304_592_444).abs() < 1e-12, "{}", fit.p_value);
    // scipy.stats.chi2_contingency([[30, 50, 20], [45, 40, 15]], correction=False).
    let table = homogeneity(&[30, 50, 20], &[45, 40, 15], MIN_EXPECTED);
    assert!((table.statistic - 4.825_396_825_396_825).abs() < 1e-12);
    assert_eq!(table.df, 2);
    assert!((table.p_value - 0.089_573_262_538_879_96).abs() < 1e-12, "{}", table.p_value);
    // scipy.stats.binomtest(480, 1000, 0.5) and binomtest(7, 30, 0.4).
    assert!((binomial_test(480, 1000, 0.5) - 0.217_448_293_204_141_5).abs() < 1e-10);
    assert!((binomial_test(7, 30, 0.4) - 0.064_763_995_106_515_54).abs() < 1e-12);
}

#[test]
fn the_exact_test_and_the_chi_squared_test_agree_for_large_samples() {
    let p = [0.5, 0.3, 0.2];
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for _ in 0..5 {
        let counts = sample(&p, 400, &mut rng);
        let exact = multinomial_test(&counts, &p);
        let approximate = goodness_of_fit(&counts, &p, MIN_EXPECTED).p_value;
        assert!((exact - approximate).abs() < 0.03, "{counts:?}: {exact} vs {approximate}");
    }
}

#[test]
fn goodness_of_fit_p_values_are_uniform_under_the_null() {
    let p = [0.3, 0.2, 0.2, 0.15, 0.1, 0.05];
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let p_values: Vec<f64> = (0..2000)
        .map(|_| {
            let counts = sample(&p, 1000, &mut rng);
            goodness_of_fit(&counts, &p, MIN_EXPECTED).p_value
        })
        .collect();
    let ks = ks_uniform(&p_values);
    assert!(ks.p_value > 1e-6, "D = {}, p = {}", ks.statistic, ks.p_value);
}

#[test]
fn homogeneity_p_values_are_uniform_under_the_null() {
    let p = [0.35, 0.25, 0.2, 0.1, 0.1];
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let p_values: Vec<f64> = (0..2000)
        .map(|_| {
            let (a, b) = (sample(&p, 800, &mut rng), sample(&p, 1200, &mut rng));
            homogeneity(&a, &b, MIN_EXPECTED).p_value
        })
        .collect();
    let ks = ks_uniform(&p_values);
    assert!(ks.p_value > 1e-6, "D = {}, p = {}", ks.statistic, ks.p_value);
}

/// How many of `trials` seeded comparisons under the null reject at `alpha`.
fn false_alarms(reference: &[f64], shots: u64, alpha: f64, trials: usize, seed: u64) -> (usize, Vec<Method>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let options = PairOptions { bootstrap: 0, ..PairOptions::default() };
    let mut methods = Vec::new();
    let alarms = (0..trials)
        .filter(|_| {
            let test = compare(&exact(reference), &observation(&sample(reference, shots, &mut rng)), &options, 0);
            if !methods.contains(&test.method) {
                methods.push(test.method);
            }
            test.p_value <= alpha
        })
        .count();
    (alarms, methods)
}

#[test]
fn false_alarms_stay_at_the_nominal_rate_with_rare_outcomes_pooled_or_tested_exactly() {
    // Rare outcomes (expected 0.5 to 3 of 1000 shots) are pooled; the test keeps its level.
    let rare = [0.6, 0.3, 0.0925, 0.003, 0.002, 0.0015, 0.001];
    let (alarms, methods) = false_alarms(&rare, 1000, 0.05, 2000, 21);
    assert_eq!(methods, vec![Method::ChiSquaredFit]);
    // 2000 trials at 5%: 100 expected, binomial sd 9.7; allow 4 sd above.
    assert!(alarms <= 139, "{alarms} false alarms of 2000 at 5%");
    // Two outcomes: the exact binomial test, which is conservative (never above the level).
    let (alarms, methods) = false_alarms(&[0.5, 0.5], 1000, 0.05, 2000, 22);
    assert_eq!(methods, vec![Method::ExactMultinomial]);
    assert!(alarms <= 139, "{alarms} false alarms of 2000 at 5%");
}

#[test]
fn small_differences_are_detected() {
    // A 5% bit flip on one of two equally likely boards moves 2.5% of the mass.
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let shifted = sample(&[0.475, 0.525], 8000, &mut rng);
    let test = compare(&exact(&[0.5, 0.5]), &observation(&shifted), &PairOptions::default(), 0);
    // Expected z = 0.025 / sqrt(0.25 / 8000) = 4.5; far below the default alpha of 0.01.
    assert!(test.p_value < 1e-3, "{}", test.p_value);
    assert!(test.tvd.low > 0.0 && test.tvd.low <= 0.025 && 0.025 <= test.tvd.high, "{:?}", test.tvd);
    // Two sampled backends, one shifted.
    let a = sample(&[0.25, 0.25, 0.25, 0.25], 4000, &mut rng);
    let b = sample(&[0.2, 0.25, 0.25, 0.3], 4000, &mut rng);
    let test = compare(&observation(&a), &observation(&b), &PairOptions::default(), 0);
    assert_eq!(test.method, Method::ChiSquaredHomogeneity);
    assert!(test.p_value < 1e-4, "{}", test.p_value);
}
