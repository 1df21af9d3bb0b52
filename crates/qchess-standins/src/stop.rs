//! When a running job must give up: at its time limit, or when it is told to (the server shuts
//! down, or the job's owner cancelled it). Simulations check between gates and shot batches.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use thiserror::Error;

/// Why a job stopped before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum Stopped {
    /// Its stop flag was set (the server shut down, or the job was cancelled).
    #[error("the server shut down before the job finished")]
    Told,
    /// It ran into its time limit.
    #[error("the job ran longer than this server's limit of {} s per job (--time-limit)", .limit.as_secs_f64())]
    TimeLimit {
        /// The limit.
        limit: Duration,
    },
}

/// A running job's limits: see the [module docs](self).
#[derive(Debug, Clone, Copy)]
pub struct Stop<'a> {
    deadline: Instant,
    limit: Duration,
    told: &'a AtomicBool,
}

impl<'a> Stop<'a> {
    /// A job started now may run for `limit`, and stops early once `told` is set.
    pub fn new(limit: Duration, told: &'a AtomicBool) -> Stop<'a> {
        let now = Instant::now();
        Stop { deadline: now.checked_add(limit).unwrap_or(now + Duration::from_secs(86_400 * 365)), limit, told }
    }

    /// `Err` once the job must stop.
    pub fn check(&self) -> Result<(), Stopped> {
        if self.told.load(Ordering::Relaxed) {
            return Err(Stopped::Told);
        }
        if Instant::now() >= self.deadline {
            return Err(Stopped::TimeLimit { limit: self.limit });
        }
        Ok(())
    }
}
