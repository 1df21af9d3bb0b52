//! Pearson's chi-squared tests with pooled bins: goodness of fit against exact probabilities,
//! and homogeneity of two samples.

use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The smallest expected count a bin may have before it is pooled (Cochran's rule).
pub const MIN_EXPECTED: f64 = 5.0;

/// The upper tail `P(X >= statistic)` of a chi-squared distribution with `df` degrees of
/// freedom (1 when `df` is 0 or the statistic is not positive).
pub fn survival(statistic: f64, df: u32) -> f64 {
    if df == 0 || statistic.is_nan() || statistic <= 0.0 {
        return 1.0;
    }
    match ChiSquared::new(f64::from(df)) {
        Ok(distribution) => distribution.sf(statistic).clamp(0.0, 1.0),
        Err(_) => 1.0,
    }
}

/// Groups bins so that every group's expected count is at least `min_expected`, looking at
/// the expected counts only (never at what was observed, so the test keeps its level):
/// bins expected at least `min_expected` stay alone, in order; all others are pooled into one
/// rare bin, placed last; if that bin is still expected below `min_expected`, it joins the
/// smallest other bin. With no other bin, everything is one group.
///
/// ```
/// use qchess_compare::stats::chi_squared::pool;
///
/// assert_eq!(pool(&[10.0, 1.0, 2.0, 20.0, 3.0], 5.0), vec![vec![0], vec![3], vec![1, 2, 4]]);
/// assert_eq!(pool(&[10.0, 1.0, 20.0], 5.0), vec![vec![0, 1], vec![2]]);
/// assert_eq!(pool(&[1.0, 2.0], 5.0), vec![vec![0, 1]]);
/// ```
pub fn pool(expected: &[f64], min_expected: f64) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut rare: Vec<usize> = Vec::new();
    for (index, &e) in expected.iter().enumerate() {
        if e >= min_expected { groups.push(vec![index]) } else { rare.push(index) }
    }
    if rare.is_empty() {
        return groups;
    }
    let rare_total: f64 = rare.iter().map(|&i| expected[i]).sum();
    if rare_total >= min_expected || groups.is_empty() {
        groups.push(rare);
        return groups;
    }
    let total = |group: &Vec<usize>| group.iter().map(|&i| expected[i]).sum::<f64>();
    let smallest = (0..groups.len()).min_by(|&x, &y| total(&groups[x]).total_cmp(&total(&groups[y]))).unwrap_or(0);
    groups[smallest].extend(rare);
    groups[smallest].sort_unstable();
    groups
}

/// The result of a chi-squared test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChiSquaredTest {
    /// Pearson's statistic over the pooled bins.
    pub statistic: f64,
    /// Degrees of freedom: pooled bins minus one.
    pub df: u32,
    /// The upper-tail p-value (1 when fewer than two bins remain).
    pub p_value: f64,
    /// Bins after pooling.
    pub bins: usize,
}

impl ChiSquaredTest {
    fn from_statistic(statistic: f64, bins: usize) -> ChiSquaredTest {
        let df = bins.saturating_sub(1) as u32;
        let statistic = if df == 0 { 0.0 } else { statistic };
        ChiSquaredTest { statistic, df, p_value: survival(statistic, df), bins }
    }
}

/// Goodness of fit of `observed` counts to exact `probabilities` (same order, every
/// probability above 0, summing to 1): `X² = Σ (O - E)² / E` over bins pooled by [`pool`],
/// with `E = n p`, against a chi-squared distribution with `bins - 1` degrees of freedom.
pub fn goodness_of_fit(observed: &[u64], probabilities: &[f64], min_expected: f64) -> ChiSquaredTest {
    let shots: u64 = observed.iter().sum();
    let expected: Vec<f64> = probabilities.iter().map(|&p| p * shots as f64).collect();
    let groups = pool(&expected, min_expected);
    let statistic = groups
        .iter()
        .map(|group| {
            let o: u64 = group.iter().map(|&i| observed[i]).sum();
            let e: f64 = group.iter().map(|&i| expected[i]).sum();
            if e > 0.0 { (o as f64 - e).powi(2) / e } else { 0.0 }
        })
        .sum();
    ChiSquaredTest::from_statistic(statistic, groups.len())
}

/// Homogeneity of two samples over the same outcomes (`first[j]` and `second[j]` count
/// outcome `j`; every outcome seen at least once in either): the 2 × k contingency test with
/// `E_rj = n_r c_j / N`, outcomes pooled by [`pool`] on the smaller sample's expected counts,
/// and `bins - 1` degrees of freedom.
pub fn homogeneity(first: &[u64], second: &[u64], min_expected: f64) -> ChiSquaredTest {
    let (n1, n2) = (first.iter().sum::<u64>() as f64, second.iter().sum::<u64>() as f64);
    let total = n1 + n2;
    if n1 == 0.0 || n2 == 0.0 {
        return ChiSquaredTest::from_statistic(0.0, 1);
    }
    let columns: Vec<f64> = first.iter().zip(second).map(|(&a, &b)| (a + b) as f64).collect();
    let smaller = n1.min(n2);
    let expected_small: Vec<f64> = columns.iter().map(|c| smaller * c / total).collect();
    let groups = pool(&expected_small, min_expected);
    let statistic = groups
        .iter()
        .map(|group| {
            let a: u64 = group.iter().map(|&i| first[i]).sum();
            let b: u64 = group.iter().map(|&i| second[i]).sum();
            let c = (a + b) as f64;
            let (e1, e2) = (n1 * c / total, n2 * c / total);
            let term = |o: u64, e: f64| if e > 0.0 { (o as f64 - e).powi(2) / e } else { 0.0 };
            term(a, e1) + term(b, e2)
        })
        .sum();
    ChiSquaredTest::from_statistic(statistic, groups.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survival_matches_tables() {
        // Critical values of the chi-squared table (Abramowitz and Stegun, table 26.8).
        assert!((survival(3.841_458_820_694_128_5, 1) - 0.05).abs() < 1e-12);
        assert!((survival(6.634_896_601_021_217, 1) - 0.01).abs() < 1e-12);
        assert!((survival(9.210_340_371_976_182, 2) - 0.01).abs() < 1e-12);
        assert!((survival(2.0 * 10.0_f64.ln(), 2) - 0.1).abs() < 1e-12); // df 2: exp(-x/2)
        assert_eq!(survival(0.0, 3), 1.0);
        assert_eq!(survival(5.0, 0), 1.0);
    }

    #[test]
    fn pooling_is_by_expected_counts() {
        assert_eq!(pool(&[5.0, 5.0], 5.0), vec![vec![0], vec![1]]);
        assert_eq!(pool(&[4.9, 5.0, 6.0], 5.0), vec![vec![0, 1], vec![2]]);
        assert_eq!(pool(&[], 5.0), Vec::<Vec<usize>>::new());
        assert_eq!(pool(&[3.0, 3.0, 100.0], 5.0), vec![vec![2], vec![0, 1]]);
    }

    #[test]
    fn goodness_of_fit_by_hand() {
        // 60 rolls of a die against a fair one.
        let observed = [5, 8, 9, 8, 10, 20];
        let p = [1.0 / 6.0; 6];
        let test = goodness_of_fit(&observed, &p, MIN_EXPECTED);
        // E = 10 each: (25 + 4 + 1 + 4 + 0 + 100) / 10 = 13.4, df 5.
        assert!((test.statistic - 13.4).abs() < 1e-12);
        assert_eq!((test.df, test.bins), (5, 6));
        // scipy.stats.chi2.sf(13.4, 5)
        assert!((test.p_value - 0.019_905_220_334_774_38).abs() < 1e-12, "{}", test.p_value);
    }

    #[test]
    fn homogeneity_by_hand() {
        // [[10, 20], [30, 40]]: E = [[12, 18], [28, 42]];
        // X² = 4/12 + 4/18 + 4/28 + 4/42 = 0.793650793650...
        let test = homogeneity(&[10, 20], &[30, 40], MIN_EXPECTED);
        assert!((test.statistic - 0.793_650_793_650_793_6).abs() < 1e-12);
        assert_eq!(test.df, 1);
        // scipy.stats.chi2.sf(0.7936507936507936, 1)
        assert!((test.p_value - 0.372_998_483_613_486_86).abs() < 1e-12, "{}", test.p_value);
        let lonely = homogeneity(&[3, 0], &[0, 0], MIN_EXPECTED);
        assert_eq!((lonely.df, lonely.p_value), (0, 1.0));
    }
}
