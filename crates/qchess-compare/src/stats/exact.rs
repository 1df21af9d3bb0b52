//! Exact multinomial goodness-of-fit tests (the binomial test is the two-outcome case).
//!
//! The p-value is the probability, under the exact distribution, of every possible table of
//! counts that is no more likely than the one observed (the "probability ordering" of
//! Fisher's exact tests and of R's `binom.test`):
//! `p = Σ { P(x) : P(x) <= P(observed) (1 + 1e-7) }` over all `x` with `Σ x = n`,
//! where `P(x) = n! Π p_i^x_i / x_i!`. The relative tolerance keeps tables of equal
//! probability together despite rounding.

/// Tables within this relative probability of the observed one count as equally likely.
pub const RELATIVE_TOLERANCE: f64 = 1e-7;

/// How many tables of counts `n` shots over `k` outcomes can give: `C(n + k - 1, k - 1)`
/// (as a float: it overflows integers quickly).
pub fn tables(shots: u64, outcomes: usize) -> f64 {
    if outcomes <= 1 {
        return 1.0;
    }
    (1..outcomes).map(|i| (shots as f64 + i as f64) / i as f64).product()
}

/// The exact multinomial test of `observed` counts against `probabilities` (same order, each
/// above 0, summing to 1). Enumerates all [`tables`], so keep their number small.
///
/// ```
/// use qchess_compare::stats::exact::multinomial_test;
///
/// // 9 heads in 10 fair tosses: P(0, 1, 9 or 10 heads) = 22 / 1024.
/// assert!((multinomial_test(&[9, 1], &[0.5, 0.5]) - 22.0 / 1024.0).abs() < 1e-12);
/// ```
pub fn multinomial_test(observed: &[u64], probabilities: &[f64]) -> f64 {
    let shots: u64 = observed.iter().sum();
    if observed.len() <= 1 || shots == 0 {
        return 1.0;
    }
    let ln_factorial = ln_factorials(shots);
    let ln_p: Vec<f64> = probabilities.iter().map(|p| p.ln()).collect();
    let ln_probability = |counts: &[u64]| -> f64 {
        ln_factorial[shots as usize]
            + counts.iter().zip(&ln_p).map(|(&x, &lp)| x as f64 * lp - ln_factorial[x as usize]).sum::<f64>()
    };
    let threshold = ln_probability(observed) + RELATIVE_TOLERANCE.ln_1p();
    let mut total = 0.0;
    let mut counts = vec![0u64; observed.len()];
    enumerate(&mut counts, 0, shots, &mut |table| {
        let lp = ln_probability(table);
        if lp <= threshold {
            total += lp.exp();
        }
    });
    total.min(1.0)
}

/// The two-sided exact binomial test of `successes` in `trials` with success probability `p`
/// (in `(0, 1)`).
pub fn binomial_test(successes: u64, trials: u64, p: f64) -> f64 {
    multinomial_test(&[successes, trials.saturating_sub(successes)], &[p, 1.0 - p])
}

/// `ln(i!)` for `i = 0..=n`.
fn ln_factorials(n: u64) -> Vec<f64> {
    let mut table = Vec::with_capacity(n as usize + 1);
    let mut acc = 0.0;
    table.push(0.0);
    for i in 1..=n {
        acc += (i as f64).ln();
        table.push(acc);
    }
    table
}

/// Calls `visit` with every way to spread `remaining` shots over `counts[from..]`.
fn enumerate(counts: &mut [u64], from: usize, remaining: u64, visit: &mut impl FnMut(&[u64])) {
    if from + 1 == counts.len() {
        counts[from] = remaining;
        visit(counts);
        return;
    }
    for x in 0..=remaining {
        counts[from] = x;
        enumerate(counts, from + 1, remaining - x, visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomial_tests_by_hand() {
        // 10 fair tosses, 5 heads: every table is at most as likely as the mode.
        assert!((binomial_test(5, 10, 0.5) - 1.0).abs() < 1e-12);
        // 2 heads in 10 with p = 0.5: P(0,1,2,8,9,10) = 2 (1 + 10 + 45) / 1024 = 112 / 1024.
        assert!((binomial_test(2, 10, 0.5) - 112.0 / 1024.0).abs() < 1e-12);
        // 0 of 20 with p = 0.1: P(0) = 0.9^20; the tables no more likely are 0 and 4..=20.
        // Reference: scipy.stats.binomtest(0, 20, 0.1).pvalue.
        assert!((binomial_test(0, 20, 0.1) - 0.254_529_978_024_904_35).abs() < 1e-12);
    }

    #[test]
    fn multinomial_tests_by_hand() {
        // 3 shots on 3 equally likely outcomes: tables (3,0,0)-like have P = 1/27 each (3 of
        // them), (2,1,0)-like 3/27 each (6), (1,1,1) 6/27. Observing (2,1,0): p = 1 - 6/27.
        let p = [1.0 / 3.0; 3];
        assert!((multinomial_test(&[2, 1, 0], &p) - 21.0 / 27.0).abs() < 1e-12);
        assert!((multinomial_test(&[3, 0, 0], &p) - 3.0 / 27.0).abs() < 1e-12);
        assert!((multinomial_test(&[1, 1, 1], &p) - 1.0).abs() < 1e-12);
        assert_eq!(tables(3, 3), 10.0);
        assert_eq!(tables(1000, 2), 1001.0);
        assert_eq!(tables(7, 1), 1.0);
    }
}
