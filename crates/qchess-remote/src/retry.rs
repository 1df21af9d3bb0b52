//! When to try a request again, how long to wait first, and the one loop both clients (IonQ's
//! and IBM's) send their requests through: `send_with_retries`, which reads every answer
//! with [`read_capped`] so that no answer is held beyond the client's size limit.

use std::time::Duration;

use reqwest::StatusCode;
use tokio::time::Instant;

use crate::config::RetryPolicy;
use crate::error::RemoteError;

/// Bytes read of an error answer: enough for any message worth showing.
pub const ERROR_BODY_LIMIT: u64 = 64 * 1024;

/// The end of the time one move may spend with the provider (`--timeout`): every request, retry,
/// back-off and wait for a job of the move fits before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    /// When the time runs out.
    pub at: Instant,
    /// The timeout it was set from, for error messages.
    pub timeout: Duration,
}

impl Deadline {
    /// The deadline `timeout` from now.
    pub fn after(timeout: Duration) -> Deadline {
        Deadline { at: Instant::now() + timeout, timeout }
    }

    /// Whether the time has run out.
    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// The error for `what` being cut short by this deadline.
    pub fn out_of_time(&self, what: &str) -> RemoteError {
        RemoteError::OutOfTime { what: what.to_owned(), timeout: self.timeout, last_failure: None }
    }
}

/// How one request is sent by [`send_with_retries`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attempts<'a> {
    /// What the request is for, in error messages (`the status of job ...`).
    pub what: &'a str,
    /// Whether sending it twice does no harm (a read, a cancel, a token exchange). A request
    /// that is not (a job submission) is sent again only when the server cannot have taken it:
    /// a refused connection, 429, 502, 503, 504.
    pub idempotent: bool,
    /// Retries and waits.
    pub policy: RetryPolicy,
    /// Timeout of one attempt (shortened to what is left before the deadline).
    pub request_timeout: Duration,
    /// When the move's time with the provider runs out whatever happens (see [`Deadline`]).
    pub deadline: Option<Deadline>,
    /// The most bytes of a successful answer read; a larger one is [`RemoteError::ResponseTooLarge`].
    pub max_response_bytes: u64,
}

/// Sends a request until it succeeds or may not be retried any more; returns the body of the
/// 2xx answer. `build` makes the request anew for each attempt (the loop sets its timeout);
/// `status_error` sorts a non-2xx answer (its status, the start of its body, the attempts so
/// far) into the taxonomy, as each service words its errors differently.
pub(crate) async fn send_with_retries(
    attempts_spec: &Attempts<'_>,
    build: impl Fn() -> reqwest::RequestBuilder,
    status_error: impl Fn(&str, StatusCode, &[u8], u32) -> RemoteError,
) -> Result<Vec<u8>, RemoteError> {
    let Attempts { what, idempotent, policy, request_timeout, deadline, max_response_bytes } = *attempts_spec;
    let timed_out = |after: Duration| RemoteError::Timeout { what: what.to_owned(), after };
    let past_deadline = || deadline.filter(Deadline::passed).map(|d| d.out_of_time(what));
    let mut attempts = 0u32;
    // A retry's wait can end past the deadline on a loaded machine: the failure before it is
    // then the cause to report.
    let mut last_failure: Option<RemoteError> = None;
    loop {
        attempts += 1;
        if let Some(error) = past_deadline() {
            return Err(match (error, last_failure) {
                (RemoteError::OutOfTime { what, timeout, .. }, Some(failure)) => {
                    RemoteError::OutOfTime { what, timeout, last_failure: Some(failure.to_string()) }
                }
                (error, _) => error,
            });
        }
        let timeout = match deadline {
            Some(deadline) => request_timeout.min(deadline.at - Instant::now()),
            None => request_timeout,
        };
        // What went wrong this time, if it may pass: the error to give up with, and a wait.
        let (failure, retry_after) = match build().timeout(timeout).send().await {
            Ok(response) => {
                let status = response.status();
                let retry_after = response
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(parse_retry_after);
                // Error answers are read only as far as their message needs.
                let limit = if status.is_success() { max_response_bytes } else { ERROR_BODY_LIMIT };
                match read_capped(response, limit).await {
                    Ok(Capped::Whole(body)) if status.is_success() => return Ok(body),
                    Ok(Capped::TooLarge) if status.is_success() => {
                        return Err(RemoteError::ResponseTooLarge { what: what.to_owned(), limit });
                    }
                    Ok(Capped::Whole(bytes) | Capped::Cut(bytes)) => {
                        let error = status_error(what, status, &bytes, attempts);
                        // A submission answered 500 may have been taken: do not send it twice.
                        let retry = is_retryable(status.as_u16(), idempotent)
                            && (idempotent || status != StatusCode::INTERNAL_SERVER_ERROR);
                        if !retry {
                            return Err(error);
                        }
                        (error, retry_after)
                    }
                    Ok(Capped::TooLarge) => (status_error(what, status, b"", attempts), retry_after),
                    Err(e) if idempotent => (network_error(what, attempts, &e), None),
                    Err(e) => return Err(network_error(what, attempts, &e)),
                }
            }
            Err(e) if e.is_timeout() => {
                if let Some(error) = past_deadline() {
                    return Err(error);
                }
                // A submission that timed out may have been taken.
                if !idempotent {
                    return Err(timed_out(timeout));
                }
                (timed_out(timeout), None)
            }
            // A refused connection never reached the server, so even a submission can be retried.
            Err(e) if idempotent || e.is_connect() => (network_error(what, attempts, &e), None),
            Err(e) => return Err(network_error(what, attempts, &e)),
        };
        if attempts > policy.max_retries {
            return Err(failure);
        }
        let wait = retry_delay(&policy, attempts - 1, retry_after, rand::random::<f64>());
        // No retry starts that could not finish in time: the failure so far is the answer.
        if deadline.is_some_and(|deadline| Instant::now() + wait >= deadline.at) {
            return Err(failure);
        }
        tokio::time::sleep(wait).await;
        last_failure = Some(failure);
    }
}

/// An answer's body, read no further than a limit.
#[derive(Debug, PartialEq, Eq)]
pub enum Capped {
    /// The whole body.
    Whole(Vec<u8>),
    /// The body's first bytes (of an error answer, whose message is all that matters).
    Cut(Vec<u8>),
    /// A successful answer larger than the limit: nothing of it is kept.
    TooLarge,
}

/// Reads at most `limit` bytes of a body, without ever holding more: a length announced
/// beyond the limit is refused before reading, and reading stops when the limit is passed.
/// Of an error answer the first `limit` bytes are kept.
pub async fn read_capped(mut response: reqwest::Response, limit: u64) -> Result<Capped, reqwest::Error> {
    let keep_start = !response.status().is_success();
    if response.content_length().is_some_and(|length| length > limit) && !keep_start {
        return Ok(Capped::TooLarge);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if (body.len() + chunk.len()) as u64 > limit {
            if keep_start {
                let room = (limit as usize).saturating_sub(body.len());
                body.extend_from_slice(&chunk[..room.min(chunk.len())]);
                return Ok(Capped::Cut(body));
            }
            return Ok(Capped::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Capped::Whole(body))
}

/// A failure to reach the server, with every cause of `error` spelled out.
pub(crate) fn network_error(what: &str, attempts: u32, error: &reqwest::Error) -> RemoteError {
    use std::error::Error as _;
    let mut detail = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    RemoteError::Network { what: what.to_owned(), attempts, detail }
}

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
