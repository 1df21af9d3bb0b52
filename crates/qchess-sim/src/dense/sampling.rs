//! Drawing basis states from unnormalised weights: the draws are sorted and matched against
//! the cumulative distribution in one pass.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// `shots` uniform draws from `[0, total)`, sorted.
pub(crate) fn sorted_draws(shots: u64, total: f64, rng: &mut ChaCha8Rng) -> Vec<f64> {
    let mut draws: Vec<f64> = (0..shots).map(|_| rng.random::<f64>() * total).collect();
    draws.sort_unstable_by(f64::total_cmp);
    draws
}

/// How often each basis state was drawn, in index order: `weights` are those of the states from
/// `first_index` on, and `draws` (sorted) are offsets into their cumulative sum. Draws that
/// rounding leaves at or past the final sum go to the last state of nonzero weight.
pub(crate) fn count_draws(weights: impl Iterator<Item = f64>, first_index: usize, draws: &[f64]) -> Vec<(usize, u64)> {
    let mut result: Vec<(usize, u64)> = Vec::new();
    let mut cumulative = 0.0;
    let mut next = 0usize;
    let mut last_nonzero = None;
    for (index, weight) in weights.enumerate() {
        if next == draws.len() {
            break;
        }
        if weight == 0.0 {
            continue;
        }
        last_nonzero = Some(first_index + index);
        cumulative += weight;
        let start = next;
        while next < draws.len() && draws[next] < cumulative {
            next += 1;
        }
        if next > start {
            result.push((first_index + index, (next - start) as u64));
        }
    }
    if next < draws.len()
        && let Some(index) = last_nonzero
    {
        let extra = (draws.len() - next) as u64;
        match result.last_mut() {
            Some((last, hits)) if *last == index => *hits += extra,
            _ => result.push((index, extra)),
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_land_on_the_states_whose_cumulative_range_holds_them() {
        let weights = [0.0, 0.25, 0.0, 0.5, 0.25];
        let draws = [0.0, 0.2, 0.25, 0.7, 0.75, 0.9, 1.0, 1.5];
        // 1.0 and 1.5 are past the total (rounding): they go to the last state of weight.
        assert_eq!(count_draws(weights.into_iter(), 10, &draws), [(11, 2), (13, 2), (14, 4)]);
        assert_eq!(count_draws([0.0, 0.0].into_iter(), 0, &[0.5]), []);
    }
}
