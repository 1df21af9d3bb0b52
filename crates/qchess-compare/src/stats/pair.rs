//! Comparing two backends' observations of one move or circuit: the right test for what each
//! side is (exact or sampled), and the distances between them.

use serde::Serialize;

use super::chi_squared::{self, MIN_EXPECTED};
use super::distance::{Estimate, distances};
use super::exact;
use crate::observation::Observation;

/// How the two observations were compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Both sides are certain of the same outcome: nothing to test (not counted among the tests).
    BothCertain,
    /// Both sides are exact: they agree when their total variation distance is at most the
    /// tolerance (p = 1), and disagree otherwise (p = 0).
    ExactEquality,
    /// The sampled side saw an outcome the exact side gives probability 0 (p = 0).
    OutsideSupport,
    /// The exact side has one possible outcome and every shot showed it (p = 1).
    CertainOutcome,
    /// The exact multinomial (binomial, for two outcomes) goodness-of-fit test.
    ExactMultinomial,
    /// Pearson's chi-squared goodness-of-fit test against the exact side, rare outcomes pooled.
    ChiSquaredFit,
    /// Pearson's chi-squared test of homogeneity of two samples, rare outcomes pooled.
    ChiSquaredHomogeneity,
    /// A sampling backend could not follow a pinned outcome: none of its `n` shots showed it;
    /// `p = (1 - p_exact)^n`.
    OutcomeUnseen,
}

impl Method {
    /// A short description for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Method::BothCertain => "both certain",
            Method::ExactEquality => "exact equality",
            Method::OutsideSupport => "outside support",
            Method::CertainOutcome => "certain outcome",
            Method::ExactMultinomial => "exact multinomial",
            Method::ChiSquaredFit => "chi-squared fit",
            Method::ChiSquaredHomogeneity => "chi-squared homogeneity",
            Method::OutcomeUnseen => "outcome unseen",
        }
    }
}

/// Settings of the per-move comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairOptions {
    /// Two exact distributions agree when their total variation distance is at most this.
    pub exact_tolerance: f64,
    /// Bins expected below this count are pooled (chi-squared tests).
    pub min_expected: f64,
    /// The exact multinomial test is used while the number of possible tables is at most this.
    pub exact_table_limit: f64,
    /// Bootstrap replicates of the distance intervals.
    pub bootstrap: u32,
    /// Confidence level of the distance intervals.
    pub confidence: f64,
}

impl Default for PairOptions {
    fn default() -> PairOptions {
        PairOptions {
            exact_tolerance: 1e-9,
            min_expected: MIN_EXPECTED,
            exact_table_limit: 200_000.0,
            bootstrap: 1000,
            confidence: 0.95,
        }
    }
}

/// The comparison of two observations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairTest {
    /// The test used.
    pub method: Method,
    /// The test statistic (chi-squared tests).
    pub statistic: Option<f64>,
    /// Degrees of freedom (chi-squared tests).
    pub df: Option<u32>,
    /// Bins after pooling (chi-squared tests).
    pub bins: Option<usize>,
    /// The p-value of the hypothesis that both sides follow the same distribution.
    pub p_value: f64,
    /// Outcomes the sampled side saw that the exact side says are impossible.
    pub outside_support: Vec<u64>,
    /// Total variation distance with its interval.
    pub tvd: Estimate,
    /// Hellinger fidelity with its interval.
    pub fidelity: Estimate,
}

impl PairTest {
    /// Whether the comparison is a test that counts toward the multiple-testing correction
    /// (everything but two sides certain of the same outcome).
    pub fn counts_as_test(&self) -> bool {
        self.method != Method::BothCertain
    }
}

/// The outcome of a test before the distances are added.
struct Decision {
    method: Method,
    statistic: Option<f64>,
    df: Option<u32>,
    bins: Option<usize>,
    p_value: f64,
    outside_support: Vec<u64>,
}

impl Decision {
    fn plain(method: Method, p_value: f64) -> Decision {
        Decision { method, statistic: None, df: None, bins: None, p_value, outside_support: Vec::new() }
    }

    fn chi_squared(method: Method, test: chi_squared::ChiSquaredTest) -> Decision {
        Decision {
            method,
            statistic: Some(test.statistic),
            df: Some(test.df),
            bins: Some(test.bins),
            p_value: test.p_value,
            outside_support: Vec::new(),
        }
    }
}

/// Compares two observations (see the [module docs](super) for the rules); `seed` seeds the
/// bootstrap.
///
/// ```
/// use qchess_compare::observation::Observation;
/// use qchess_compare::stats::pair::{Method, PairOptions, compare};
///
/// let exact = Observation::exact([(1, 0.5), (2, 0.5)])?;
/// let fair = Observation::counts([(1, 510), (2, 490)])?;
/// let test = compare(&exact, &fair, &PairOptions::default(), 0);
/// assert_eq!(test.method, Method::ExactMultinomial);
/// assert!(test.p_value > 0.5);
/// let broken = Observation::counts([(1, 500), (2, 450), (3, 50)])?;
/// assert_eq!(compare(&exact, &broken, &PairOptions::default(), 0).method, Method::OutsideSupport);
/// # Ok::<(), qchess_compare::observation::ObservationError>(())
/// ```
pub fn compare(a: &Observation, b: &Observation, options: &PairOptions, seed: u64) -> PairTest {
    let decision = decide(a, b, options);
    let (tvd, fidelity) = distances(a, b, options.bootstrap, options.confidence, seed);
    PairTest {
        method: decision.method,
        statistic: decision.statistic,
        df: decision.df,
        bins: decision.bins,
        p_value: decision.p_value,
        outside_support: decision.outside_support,
        tvd,
        fidelity,
    }
}

fn decide(a: &Observation, b: &Observation, options: &PairOptions) -> Decision {
    if let (Some(x), Some(y)) = (a.certain(), b.certain())
        && x == y
    {
        return Decision::plain(Method::BothCertain, 1.0);
    }
    match (a, b) {
        (Observation::Exact { .. }, Observation::Exact { .. }) => {
            let tvd = super::distance::total_variation(&a.probabilities(), &b.probabilities());
            Decision::plain(Method::ExactEquality, if tvd <= options.exact_tolerance { 1.0 } else { 0.0 })
        }
        (Observation::Exact { probabilities }, Observation::Counts { counts, .. })
        | (Observation::Counts { counts, .. }, Observation::Exact { probabilities }) => {
            goodness_of_fit(counts, probabilities, options)
        }
        (Observation::Counts { counts: first, .. }, Observation::Counts { counts: second, .. }) => {
            let keys: Vec<u64> = {
                let mut keys: Vec<u64> = first.iter().chain(second).map(|e| e.0).collect();
                keys.sort_unstable();
                keys.dedup();
                keys
            };
            let count_of =
                |counts: &[(u64, u64)], key: u64| counts.binary_search_by_key(&key, |e| e.0).map_or(0, |i| counts[i].1);
            let x: Vec<u64> = keys.iter().map(|&k| count_of(first, k)).collect();
            let y: Vec<u64> = keys.iter().map(|&k| count_of(second, k)).collect();
            Decision::chi_squared(Method::ChiSquaredHomogeneity, chi_squared::homogeneity(&x, &y, options.min_expected))
        }
    }
}

/// Counts against exact probabilities: support, then an exact or a chi-squared test.
fn goodness_of_fit(counts: &[(u64, u64)], probabilities: &[(u64, f64)], options: &PairOptions) -> Decision {
    let outside: Vec<u64> = counts
        .iter()
        .filter(|(key, _)| probabilities.binary_search_by_key(key, |e| e.0).is_err())
        .map(|e| e.0)
        .collect();
    if !outside.is_empty() {
        return Decision { outside_support: outside, ..Decision::plain(Method::OutsideSupport, 0.0) };
    }
    if probabilities.len() == 1 {
        return Decision::plain(Method::CertainOutcome, 1.0);
    }
    let observed: Vec<u64> = probabilities
        .iter()
        .map(|(key, _)| counts.binary_search_by_key(key, |e| e.0).map_or(0, |i| counts[i].1))
        .collect();
    let p: Vec<f64> = probabilities.iter().map(|e| e.1).collect();
    let shots: u64 = observed.iter().sum();
    if exact::tables(shots, p.len()) <= options.exact_table_limit {
        Decision::plain(Method::ExactMultinomial, exact::multinomial_test(&observed, &p))
    } else {
        Decision::chi_squared(Method::ChiSquaredFit, chi_squared::goodness_of_fit(&observed, &p, options.min_expected))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> PairOptions {
        PairOptions { bootstrap: 50, ..PairOptions::default() }
    }

    #[test]
    fn the_method_follows_the_sides() {
        let exact = Observation::exact([(1, 0.25), (2, 0.25), (3, 0.5)]).expect("valid");
        let other = Observation::exact([(1, 0.25), (2, 0.25), (3, 0.5 - 1e-10), (4, 1e-10)]).expect("valid");
        assert_eq!(compare(&exact, &other, &options(), 0).p_value, 1.0);
        let far = Observation::exact([(1, 0.5), (3, 0.5)]).expect("valid");
        let test = compare(&exact, &far, &options(), 0);
        assert_eq!((test.method, test.p_value), (Method::ExactEquality, 0.0));

        let many = Observation::counts([(1, 2500), (2, 2400), (3, 5100)]).expect("valid");
        let test = compare(&many, &exact, &options(), 0);
        assert_eq!(test.method, Method::ChiSquaredFit);
        // X² = (0)²/2500 + 100²/2500 + 100²/5000 = 6, df 2: p = exp(-3).
        assert!((test.statistic.expect("chi2") - 6.0).abs() < 1e-12);
        assert!((test.p_value - (-3.0f64).exp()).abs() < 1e-12);

        let few = Observation::counts([(1, 2), (3, 2)]).expect("valid");
        assert_eq!(compare(&exact, &few, &options(), 0).method, Method::ExactMultinomial);

        let certain = Observation::certainly(3);
        let all_three = Observation::counts([(3, 1000)]).expect("valid");
        assert_eq!(compare(&certain, &all_three, &options(), 0).method, Method::BothCertain);
        assert!(!compare(&certain, &all_three, &options(), 0).counts_as_test());
        let stray = Observation::counts([(3, 999), (7, 1)]).expect("valid");
        let test = compare(&certain, &stray, &options(), 0);
        assert_eq!((test.method, test.outside_support.as_slice()), (Method::OutsideSupport, &[7u64][..]));
        let two = Observation::counts([(3, 999), (7, 1)]).expect("valid");
        assert_eq!(compare(&stray, &two, &options(), 0).method, Method::ChiSquaredHomogeneity);
    }
}
