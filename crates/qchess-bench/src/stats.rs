//! Per-move timings and their summary figures.

use std::time::Duration;

/// The durations of many timed operations, in nanoseconds.
#[derive(Debug, Clone, Default)]
pub struct Timings {
    nanos: Vec<u64>,
}

/// Median, 99th percentile and maximum of a set of timings, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// How many operations were timed.
    pub count: u64,
    /// The median.
    pub median_us: f64,
    /// The 99th percentile (nearest rank).
    pub p99_us: f64,
    /// The slowest.
    pub max_us: f64,
}

impl Timings {
    /// No timings yet, with room for `capacity` of them.
    pub fn with_capacity(capacity: usize) -> Timings {
        Timings { nanos: Vec::with_capacity(capacity) }
    }

    /// Records one duration.
    pub fn push(&mut self, elapsed: Duration) {
        self.nanos.push(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
    }

    /// How many durations were recorded.
    pub fn len(&self) -> usize {
        self.nanos.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.nanos.is_empty()
    }

    /// Median, p99 and maximum; `None` when nothing was recorded.
    pub fn summary(&self) -> Option<Summary> {
        if self.nanos.is_empty() {
            return None;
        }
        let mut sorted = self.nanos.clone();
        sorted.sort_unstable();
        let n = sorted.len();
        let micros = |index: usize| sorted[index.min(n - 1)] as f64 / 1000.0;
        let median = if n % 2 == 1 { micros(n / 2) } else { (micros(n / 2 - 1) + micros(n / 2)) / 2.0 };
        // Nearest rank: the smallest value with at least 99% of the values at or below it.
        let p99_rank = (n * 99).div_ceil(100).max(1);
        Some(Summary { count: n as u64, median_us: median, p99_us: micros(p99_rank - 1), max_us: micros(n - 1) })
    }
}

/// The median of a non-empty list of values (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    Some(if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timings(micros: &[u64]) -> Timings {
        let mut t = Timings::default();
        for &m in micros {
            t.push(Duration::from_micros(m));
        }
        t
    }

    #[test]
    fn summary_of_known_values() {
        let summary = timings(&[5, 1, 3]).summary().expect("three values");
        assert_eq!(summary, Summary { count: 3, median_us: 3.0, p99_us: 5.0, max_us: 5.0 });
        let even = timings(&[4, 1, 3, 2]).summary().expect("four values");
        assert_eq!(even.median_us, 2.5);
    }

    #[test]
    fn p99_is_the_nearest_rank() {
        // 1..=200 us: the 99th percentile by nearest rank is the 198th value.
        let values: Vec<u64> = (1..=200).collect();
        let summary = timings(&values).summary().expect("values");
        assert_eq!(summary.p99_us, 198.0);
        assert_eq!(summary.max_us, 200.0);
        assert_eq!(summary.median_us, 100.5);
    }

    #[test]
    fn empty_timings_have_no_summary() {
        assert!(Timings::default().summary().is_none());
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
    }
}
