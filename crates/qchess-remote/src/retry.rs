//! When to try a request again, and how long to wait first.

use std::time::Duration;

use crate::config::RetryPolicy;

/// The wait before retry number `retry` (0 for the first retry): the base delay doubled per
/// retry, capped at the policy's maximum, scaled by `jitter` in `[0, 1)` into its upper half so
/// that many clients do not retry in step. A server's `Retry-After` is honoured as a minimum,
/// capped at the same maximum.
pub fn retry_delay(policy: &RetryPolicy, retry: u32, retry_after: Option<Duration>, jitter: f64) -> Duration {
    let factor = 2f64.powi(retry.min(30) as i32);
    let backoff = policy.base_delay.as_secs_f64() * factor;
    let jittered = backoff.min(policy.max_delay.as_secs_f64()) * (0.5 + 0.5 * jitter.clamp(0.0, 1.0));
    let wait = Duration::from_secs_f64(jittered);
    match retry_after {
        Some(after) => wait.max(after).min(policy.max_delay),
        None => wait,
    }
}

/// Reads a `Retry-After` header given in seconds. (The HTTP-date form is not used by the
/// providers this crate talks to; it reads as absent.)
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(86_400.0)))
}

/// Whether an HTTP status is worth retrying: rate limiting, server trouble, and a conflict on
/// a read (both official clients retry these).
pub fn is_retryable(status: u16, idempotent: bool) -> bool {
    status == 429 || (500..600).contains(&status) || (status == 409 && idempotent)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy { max_retries: 5, base_delay: Duration::from_millis(100), max_delay: Duration::from_secs(2) }
    }

    #[test]
    fn delays_double_and_are_capped() {
        let p = policy();
        assert_eq!(retry_delay(&p, 0, None, 1.0), Duration::from_millis(100));
        assert_eq!(retry_delay(&p, 1, None, 1.0), Duration::from_millis(200));
        assert_eq!(retry_delay(&p, 3, None, 0.0), Duration::from_millis(400));
        assert_eq!(retry_delay(&p, 20, None, 1.0), Duration::from_secs(2));
        assert_eq!(retry_delay(&p, 0, Some(Duration::from_secs(1)), 0.0), Duration::from_secs(1));
        assert_eq!(retry_delay(&p, 0, Some(Duration::from_secs(60)), 0.0), Duration::from_secs(2));
    }

    #[test]
    fn retry_after_reads_seconds_only() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(" 0.5 "), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("-1"), None);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(parse_retry_after("NaN"), None);
    }

    #[test]
    fn retryable_statuses() {
        assert!(is_retryable(429, false) && is_retryable(503, false) && is_retryable(500, true));
        assert!(is_retryable(409, true) && !is_retryable(409, false));
        assert!(!is_retryable(400, true) && !is_retryable(401, true) && !is_retryable(404, true));
    }

    proptest! {
        #[test]
        fn delays_stay_within_bounds(retry in 0u32..100, jitter in 0.0f64..1.0, after in proptest::option::of(0u64..100_000)) {
            let p = policy();
            let delay = retry_delay(&p, retry, after.map(Duration::from_millis), jitter);
            prop_assert!(delay <= p.max_delay);
            prop_assert!(delay >= Duration::from_millis(50).min(p.max_delay));
        }
    }
}
