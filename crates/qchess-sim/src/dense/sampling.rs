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
    let mut matcher = Matcher::new(draws);
    for (index, weight) in weights.enumerate() {
        if matcher.done() {
            break;
        }
        matcher.add(first_index + index, weight);
    }
    matcher.finish()
}

/// Matches sorted draws against a cumulative sum built state by state, or a run of states at a
/// time where no draw falls inside the run ([`Matcher::passes`]).
pub(crate) struct Matcher<'a> {
    draws: &'a [f64],
    cumulative: f64,
    next: usize,
    last_nonzero: Option<usize>,
    hits: Vec<(usize, u64)>,
}

impl<'a> Matcher<'a> {
    /// A matcher of `draws` (sorted offsets into the cumulative sum, which starts at zero).
    pub(crate) fn new(draws: &'a [f64]) -> Matcher<'a> {
        Matcher { draws, cumulative: 0.0, next: 0, last_nonzero: None, hits: Vec::new() }
    }

    /// Whether every draw is matched.
    pub(crate) fn done(&self) -> bool {
        self.next == self.draws.len()
    }

    /// Whether states whose weights sum to `sum` hold no draw, so that they can be passed over
    /// with [`Matcher::pass`].
    pub(crate) fn passes(&self, sum: f64) -> bool {
        self.draws.get(self.next).is_none_or(|&draw| draw >= self.cumulative + sum)
    }

    /// Passes over states whose weights sum to `sum` (nonzero), the last of nonzero weight being
    /// `last_nonzero`.
    pub(crate) fn pass(&mut self, sum: f64, last_nonzero: usize) {
        self.cumulative += sum;
        self.last_nonzero = Some(last_nonzero);
    }

    /// Adds state `index` of weight `weight`, matching the draws that fall in it.
    pub(crate) fn add(&mut self, index: usize, weight: f64) {
        if weight == 0.0 {
            return;
        }
        self.last_nonzero = Some(index);
        self.cumulative += weight;
        let start = self.next;
        while self.next < self.draws.len() && self.draws[self.next] < self.cumulative {
            self.next += 1;
        }
        if self.next > start {
            self.hits.push((index, (self.next - start) as u64));
        }
    }

    /// The hits, in index order, the draws left over by rounding given to the last state of
    /// nonzero weight.
    pub(crate) fn finish(mut self) -> Vec<(usize, u64)> {
        if !self.done()
            && let Some(index) = self.last_nonzero
        {
            let extra = (self.draws.len() - self.next) as u64;
            match self.hits.last_mut() {
                Some((last, hits)) if *last == index => *hits += extra,
                _ => self.hits.push((index, extra)),
            }
        }
        self.hits
    }
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

    #[test]
    fn passing_over_runs_matches_adding_their_states() {
        let weights = [0.0, 0.25, 0.0, 0.5, 0.25, 0.0];
        let draws = [0.1, 0.8, 0.9, 1.0, 1.2];
        let mut matcher = Matcher::new(&draws);
        // States 0-2 (sum 0.25) hold the draw at 0.1: they cannot be passed over.
        assert!(!matcher.passes(0.25));
        for (index, &weight) in weights[..3].iter().enumerate() {
            matcher.add(10 + index, weight);
        }
        // State 3 (0.25..0.75) holds none: passed over; its last nonzero state is 13.
        assert!(matcher.passes(0.5));
        matcher.pass(0.5, 13);
        // State 4 holds 0.8 and 0.9; 1.0 and 1.2 are past the total and go to state 14.
        assert!(!matcher.passes(0.25));
        matcher.add(14, 0.25);
        matcher.add(15, 0.0);
        assert_eq!(matcher.finish(), count_draws(weights.into_iter(), 10, &draws));
        // Draws past the total after a passed-over run go to that run's last nonzero state.
        let mut matcher = Matcher::new(&[0.5]);
        matcher.pass(0.25, 7);
        assert_eq!(matcher.finish(), [(7, 1)]);
    }
}
