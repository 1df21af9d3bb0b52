//! The Holm-Bonferroni correction for testing many moves (or circuits) at once.

/// Holm-adjusted p-values, in the order given: with `p_(1) <= ... <= p_(m)` sorted,
/// `p̃_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))`. Rejecting every hypothesis whose adjusted
/// p-value is at most `alpha` keeps the chance of any false rejection at most `alpha`, whatever
/// the dependence between the tests (Holm 1979).
///
/// ```
/// use qchess_compare::stats::holm::holm_adjusted;
///
/// let adjusted = holm_adjusted(&[0.01, 0.04, 0.03, 0.005]);
/// // sorted 0.005, 0.01, 0.03, 0.04 -> 0.02, 0.03, 0.06, 0.06
/// let expected = [0.03, 0.06, 0.06, 0.02];
/// assert!(adjusted.iter().zip(expected).all(|(a, e)| (a - e).abs() < 1e-12));
/// ```
pub fn holm_adjusted(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &index) in order.iter().enumerate() {
        let scaled = ((m - rank) as f64 * p_values[index]).min(1.0);
        running = running.max(scaled);
        adjusted[index] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holm_by_hand() {
        assert!(holm_adjusted(&[]).is_empty());
        assert_eq!(holm_adjusted(&[0.3]), vec![0.3]);
        // m = 3: 0.001 * 3, max(0.003, 0.02 * 2), max(0.04, 0.5).
        let adjusted = holm_adjusted(&[0.5, 0.02, 0.001]);
        let expected = [0.5, 0.04, 0.003];
        assert!(adjusted.iter().zip(expected).all(|(a, e)| (a - e).abs() < 1e-15), "{adjusted:?}");
        // Never above 1, never below the raw p-value.
        let adjusted = holm_adjusted(&[0.9, 0.8]);
        assert_eq!(adjusted, vec![1.0, 1.0]);
    }
}
