//! How a stand-in runs its jobs: the seed of their sampling, how long they wait in the queue,
//! how many run at once, and how long one may run. Both stand-ins take the same settings.

use std::time::Duration;

use qchess_core::setting::{SettingError, check_duration, check_range};

/// How a stand-in runs its jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    /// Seed of shot sampling, mixed with each job's number unless the job gives its own.
    pub seed: u64,
    /// How long a job waits in the queue before it runs (a stand-in for a provider's queue).
    pub queue_delay: Duration,
    /// Jobs simulated at once.
    pub workers: usize,
    /// Longest time one job may run; then it stops (IonQ: `failed` with `TimeLimitExceeded`;
    /// IBM: `Cancelled`, ran too long).
    pub time_limit: Duration,
}

impl Default for RunOptions {
    /// Seed 0, no queue delay, two workers, five minutes a job.
    fn default() -> RunOptions {
        RunOptions { seed: 0, queue_delay: Duration::ZERO, workers: 2, time_limit: Duration::from_secs(300) }
    }
}

impl RunOptions {
    /// Checks the ranges of the settings, naming their flags.
    pub fn validate(&self) -> Result<(), SettingError> {
        check_range("--workers", self.workers as u64, 1, 256)?;
        check_duration("--time-limit", self.time_limit, Duration::from_secs(7 * 86_400))
    }
}
