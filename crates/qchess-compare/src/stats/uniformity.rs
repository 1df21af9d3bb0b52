//! The one-sample Kolmogorov-Smirnov test against the uniform distribution on `[0, 1]`: how
//! the p-values of a test are checked to be uniform when the null hypothesis holds.

/// The result of a Kolmogorov-Smirnov test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KsTest {
    /// `D = sup |F_n(x) - x|`.
    pub statistic: f64,
    /// The asymptotic p-value with Stephens' small-sample correction:
    /// `Q((sqrt(n) + 0.12 + 0.11 / sqrt(n)) D)`, `Q(λ) = 2 Σ_{j>=1} (-1)^(j-1) exp(-2 j² λ²)`
    /// (Numerical Recipes, 3rd ed., section 14.3.3).
    pub p_value: f64,
}

/// Tests whether `samples` (all in `[0, 1]`) look uniform.
///
/// ```
/// use qchess_compare::stats::uniformity::ks_uniform;
///
/// let even: Vec<f64> = (0..1000).map(|i| (i as f64 + 0.5) / 1000.0).collect();
/// assert!(ks_uniform(&even).p_value > 0.99);
/// let low: Vec<f64> = (0..1000).map(|i| i as f64 / 2000.0).collect();
/// assert!(ks_uniform(&low).p_value < 1e-6);
/// ```
pub fn ks_uniform(samples: &[f64]) -> KsTest {
    let n = samples.len();
    if n == 0 {
        return KsTest { statistic: 0.0, p_value: 1.0 };
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let count = n as f64;
    let statistic = sorted
        .iter()
        .enumerate()
        .map(|(i, &x)| ((i + 1) as f64 / count - x).max(x - i as f64 / count))
        .fold(0.0, f64::max);
    let root = count.sqrt();
    KsTest { statistic, p_value: kolmogorov_q((root + 0.12 + 0.11 / root) * statistic) }
}

/// `Q(λ) = 2 Σ_{j>=1} (-1)^(j-1) exp(-2 j² λ²)`, the Kolmogorov distribution's upper tail.
fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda < 0.2 {
        return 1.0; // the series converges badly here and the tail is 1 to 1e-20
    }
    let mut sum = 0.0;
    let mut sign = 1.0;
    for j in 1..=100 {
        let term = (-2.0 * f64::from(j * j) * lambda * lambda).exp();
        sum += sign * term;
        if term < 1e-16 * sum.abs() {
            break;
        }
        sign = -sign;
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kolmogorov_tail_matches_known_values() {
        // Q(1.3581) = 0.05 and Q(1.6276) = 0.01: the classical critical values.
        assert!((kolmogorov_q(1.358_098_8) - 0.05).abs() < 1e-6);
        assert!((kolmogorov_q(1.627_623_1) - 0.01).abs() < 1e-6);
        assert_eq!(kolmogorov_q(0.1), 1.0);
    }

    #[test]
    fn statistic_by_hand() {
        // One sample at 0.3: D = max(1 - 0.3, 0.3 - 0) = 0.7.
        assert!((ks_uniform(&[0.3]).statistic - 0.7).abs() < 1e-12);
    }
}
