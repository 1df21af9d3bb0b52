//! What can go wrong talking to a provider, sorted by what the user can do about it.

use std::time::Duration;

use thiserror::Error;

use crate::config::ConfigError;

/// Why a provider request or job did not give results.
#[derive(Debug, Error)]
pub enum RemoteError {
    /// The configuration is not usable.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The circuit cannot be written as an IonQ JSON job.
    #[error("the circuit cannot be sent to the provider")]
    Circuit(#[from] qchess_qasm::ionq::IonqError),
    /// The provider refused the API key (401 or 403), or none was given.
    #[error("the provider refused the request ({status}): {message}; check the API key (IONQ_API_KEY or --api-key)")]
    Auth {
        /// HTTP status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// AWS refused the request (401 or 403): unknown, wrong or expired credentials, or a
    /// signature it does not accept.
    #[error("AWS refused the request ({status}): {message}; the credentials came from {credentials}")]
    AwsAuth {
        /// HTTP status.
        status: u16,
        /// AWS's code and message.
        message: String,
        /// Where the credentials were found.
        credentials: String,
    },
    /// The provider kept answering 429 Too Many Requests.
    #[error("rate limited by the provider: still 429 Too Many Requests after {attempts} attempts: {message}")]
    RateLimited {
        /// Requests sent.
        attempts: u32,
        /// The provider's last message.
        message: String,
    },
    /// The account's quota is used up.
    #[error("the provider's quota is exhausted: {message}")]
    QuotaExhausted {
        /// The provider's message.
        message: String,
    },
    /// The circuit uses a gate the backend does not run.
    #[error("the backend does not support a gate of the circuit: {message}")]
    UnsupportedGate {
        /// The provider's message.
        message: String,
    },
    /// The circuit needs more qubits than the backend has.
    #[error("the circuit needs more qubits than the backend has: {message}")]
    TooManyQubits {
        /// The provider's message.
        message: String,
    },
    /// The job ran and failed.
    #[error("job {job_id} failed with {code}: {message}")]
    JobFailed {
        /// The job.
        job_id: String,
        /// The provider's failure code (`SimulationError`, `CompilationError`, ...).
        code: String,
        /// The provider's failure message.
        message: String,
    },
    /// The provider rejected the request (a 4xx other than 401, 403 and 429).
    #[error("the provider rejected {what} ({status}): {message}")]
    Rejected {
        /// What was asked.
        what: String,
        /// HTTP status.
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The provider kept failing with a server error (5xx).
    #[error("the provider failed on {what}: {status} after {attempts} attempts: {message}")]
    Server {
        /// What was asked.
        what: String,
        /// The last HTTP status.
        status: u16,
        /// Requests sent.
        attempts: u32,
        /// The provider's last message.
        message: String,
    },
    /// The provider could not be reached, or the connection broke.
    #[error("cannot reach the provider for {what} after {attempts} attempts: {detail}")]
    Network {
        /// What was asked.
        what: String,
        /// Requests sent.
        attempts: u32,
        /// What the network layer said.
        detail: String,
    },
    /// One request got no answer within its own timeout (and could not be retried).
    #[error("{what} got no answer within {:.1} s", .after.as_secs_f64())]
    Timeout {
        /// What was asked.
        what: String,
        /// The request's timeout.
        after: Duration,
    },
    /// The time the command may spend with the provider for one move (`--timeout`: every
    /// request, retry, back-off and wait for the job) ran out.
    #[error(
        "{what} did not finish within the --timeout of {:.1} s{}",
        .timeout.as_secs_f64(),
        .last_failure.as_ref().map(|f| format!(" (its last attempt: {f})")).unwrap_or_default()
    )]
    OutOfTime {
        /// What was under way: a request, or the wait for a job (and whether it was canceled).
        what: String,
        /// The `--timeout`.
        timeout: Duration,
        /// Why the attempt before the time ran out failed, when one did: the cause, said once.
        last_failure: Option<String>,
    },
    /// The provider answered something that is not what the API promises.
    #[error("malformed answer to {what}: {detail}")]
    MalformedResponse {
        /// What was asked.
        what: String,
        /// What is wrong with the answer.
        detail: String,
    },
    /// A successful answer is larger than the client reads (`--max-response-bytes`).
    #[error("the answer to {what} is larger than {limit} bytes, the most this client reads (--max-response-bytes)")]
    ResponseTooLarge {
        /// What was asked.
        what: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The job was canceled (by the provider, or by the user with Ctrl-C).
    #[error("job {job_id} was canceled{}", if *.by_user { " at the user's request" } else { "" })]
    Canceled {
        /// The job.
        job_id: String,
        /// Whether the user asked for it (Ctrl-C).
        by_user: bool,
    },
}

impl RemoteError {
    /// Sorts a job's failure by its provider code.
    pub fn from_failure(job_id: &str, code: &str, message: &str) -> RemoteError {
        let message = message.to_owned();
        match code {
            "UnsupportedGate" | "TooManyControls" => {
                RemoteError::UnsupportedGate { message: format!("{code}: {message}") }
            }
            "NotEnoughQubits" => RemoteError::TooManyQubits { message },
            "QuotaExhaustedError" => RemoteError::QuotaExhausted { message },
            _ => RemoteError::JobFailed { job_id: job_id.to_owned(), code: code.to_owned(), message },
        }
    }
}
