//! An asynchronous client of the IonQ v0.4 jobs API.
//!
//! [`IonqClient::run`] does the whole round trip for one circuit: lower it to IonQ's QIS gates,
//! submit an `ionq.circuit.v1` job, poll its status with growing waits (showing a progress bar
//! on a terminal), fetch its probabilities, and cancel it when the overall timeout passes or
//! the user presses Ctrl-C. Every request goes through the retry loop shared with the IBM
//! client ([`crate::retry`]): it has its own timeout, is retried within the
//! [`RetryPolicy`](crate::config::RetryPolicy) on 429 (honouring `Retry-After`), on 5xx and on
//! a dropped connection (submissions only when the server cannot have taken them: a refused
//! connection, 429, 502, 503, 504), and its answer is read no further than
//! `--max-response-bytes`.
//!
//! ```no_run
//! use qchess_circuit::ir::{Circuit, Gate, QubitRole};
//! use qchess_remote::client::IonqClient;
//! use qchess_remote::config::{ApiKey, ProviderConfig};
//!
//! # async fn run() -> Result<(), qchess_remote::RemoteError> {
//! let config = ProviderConfig::new("http://127.0.0.1:8080/v0.4")?.with_api_key(ApiKey::new("key")?);
//! let client = IonqClient::new(config)?;
//! let mut circuit = Circuit::new();
//! let q = circuit.add_qubit(QubitRole::General);
//! circuit.push_gate(Gate::x(q));
//! let result = client.run(&circuit, 100).await?;
//! assert_eq!(result.probabilities.outcomes(), &[(1, 1.0)]);
//! # Ok(()) }
//! ```

use std::time::Duration;

use qchess_circuit::ir::Circuit;
use qchess_qasm::ionq::{IonqCircuit, to_ionq};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use tokio::time::Instant;

use crate::config::ProviderConfig;
use crate::error::RemoteError;
use crate::interrupt::InterruptGuard;
use crate::probabilities::Probabilities;
use crate::progress::Progress;
use crate::retry::{Attempts, Deadline, send_with_retries};
use crate::wire::{CIRCUIT_JOB_TYPE, ErrorBody, JobCreated, JobInfo, JobRequest, JobStatus, Noise};

/// How often a waiting loop looks for Ctrl-C between polls.
const INTERRUPT_CHECK: Duration = Duration::from_millis(100);

/// How long canceling a job may take when the wait is being abandoned anyway.
pub(crate) const CANCEL_TIMEOUT: Duration = Duration::from_secs(5);

/// Longest error text kept from a provider's answer.
const MESSAGE_LIMIT: usize = 300;

/// A finished job's results.
#[derive(Debug, Clone, PartialEq)]
pub struct JobResult {
    /// The job's id.
    pub job_id: String,
    /// Shots the job was submitted with.
    pub shots: u64,
    /// The normalised probabilities over all the job's qubits.
    pub probabilities: Probabilities,
}

/// A client of one provider configuration: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct IonqClient {
    http: reqwest::Client,
    config: ProviderConfig,
}

/// A request's answer: status and body.
pub(crate) struct Answer {
    pub(crate) body: Vec<u8>,
}

impl IonqClient {
    /// A client for `config`.
    pub fn new(config: ProviderConfig) -> Result<IonqClient, RemoteError> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("qchess/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.request_timeout())
            .build()
            .map_err(|e| RemoteError::Network { what: "setting up HTTP".into(), attempts: 0, detail: e.to_string() })?;
        Ok(IonqClient { http, config })
    }

    /// The configuration this client was made with.
    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// Runs `circuit` for `shots` shots: lowers, submits, waits and fetches the results, all
    /// within the configured overall timeout.
    pub async fn run(&self, circuit: &Circuit, shots: u64) -> Result<JobResult, RemoteError> {
        self.run_before(circuit, shots, self.deadline()).await
    }

    /// [`IonqClient::run`] within `deadline` (shared with the rest of a move's requests).
    pub async fn run_before(
        &self,
        circuit: &Circuit,
        shots: u64,
        deadline: Deadline,
    ) -> Result<JobResult, RemoteError> {
        let input = to_ionq(circuit)?;
        self.run_ionq_before(&input, shots, deadline).await
    }

    /// Runs an IonQ JSON circuit for `shots` shots.
    pub async fn run_ionq(&self, input: &IonqCircuit, shots: u64) -> Result<JobResult, RemoteError> {
        self.run_ionq_before(input, shots, self.deadline()).await
    }

    async fn run_ionq_before(
        &self,
        input: &IonqCircuit,
        shots: u64,
        deadline: Deadline,
    ) -> Result<JobResult, RemoteError> {
        let job_id = self.submit_before(input, shots, None, deadline).await?;
        self.wait_before(&job_id, deadline).await?;
        let probabilities = self.probabilities_before(&job_id, input.qubits, deadline).await?;
        Ok(JobResult { job_id, shots, probabilities })
    }

    /// The job request this client sends for `input`.
    pub fn job_request(&self, input: &IonqCircuit, shots: u64) -> Result<JobRequest, RemoteError> {
        let input = serde_json::to_value(input)
            .map_err(|e| RemoteError::MalformedResponse { what: "writing the job".into(), detail: e.to_string() })?;
        let noise = (!self.config.target().is_qpu())
            .then(|| Noise { model: self.config.noise_model().as_str().to_owned(), seed: None });
        Ok(JobRequest {
            job_type: Some(CIRCUIT_JOB_TYPE.into()),
            backend: Some(self.config.target().as_str().to_owned()),
            shots: Some(shots),
            name: None,
            metadata: Some(serde_json::json!({ "shots": shots.to_string(), "client": "qchess" })),
            noise,
            input,
        })
    }

    /// Submits a job and returns its id.
    pub async fn submit(&self, input: &IonqCircuit, shots: u64) -> Result<String, RemoteError> {
        self.submit_before(input, shots, None, self.deadline()).await
    }

    /// The overall timeout from now.
    pub fn deadline(&self) -> Deadline {
        Deadline::after(self.config.overall_timeout())
    }

    /// Submits a job, named when `name` is given, within `deadline`; returns its id.
    async fn submit_before(
        &self,
        input: &IonqCircuit,
        shots: u64,
        name: Option<&str>,
        deadline: Deadline,
    ) -> Result<String, RemoteError> {
        let mut request = self.job_request(input, shots)?;
        request.name = name.map(str::to_owned);
        let body = serde_json::to_vec(&request)
            .map_err(|e| RemoteError::MalformedResponse { what: "writing the job".into(), detail: e.to_string() })?;
        let answer =
            self.send("submitting the job", Method::POST, &self.config.jobs_url(), Some(body), deadline).await?;
        let created: JobCreated = parse(&answer, "submitting the job")?;
        if created.id.is_empty() {
            return Err(malformed("submitting the job", "the job id is empty"));
        }
        Ok(created.id)
    }

    /// The job's current state.
    pub async fn job(&self, job_id: &str) -> Result<JobInfo, RemoteError> {
        self.job_before(job_id, self.deadline()).await
    }

    /// [`IonqClient::job`] within `deadline`.
    pub async fn job_before(&self, job_id: &str, deadline: Deadline) -> Result<JobInfo, RemoteError> {
        let what = format!("the status of job {job_id}");
        let answer = self.send(&what, Method::GET, &self.job_url(job_id, ""), None, deadline).await?;
        let info: JobInfo = parse(&answer, &what)?;
        if info.id != job_id {
            return Err(malformed(&what, &format!("it describes job {}", info.id)));
        }
        Ok(info)
    }

    /// The results of a completed job of `qubits` qubits.
    pub async fn probabilities(&self, job_id: &str, qubits: u32) -> Result<Probabilities, RemoteError> {
        self.probabilities_before(job_id, qubits, self.deadline()).await
    }

    /// [`IonqClient::probabilities`] within `deadline`.
    pub async fn probabilities_before(
        &self,
        job_id: &str,
        qubits: u32,
        deadline: Deadline,
    ) -> Result<Probabilities, RemoteError> {
        let what = format!("the results of job {job_id}");
        let url = self.job_url(job_id, "/results/probabilities");
        let answer = self.send(&what, Method::GET, &url, None, deadline).await?;
        let body: Value = parse(&answer, &what)?;
        Probabilities::from_json(&body, qubits).map_err(|e| malformed(&what, &e.to_string()))
    }

    /// How many qubits the configured backend has (`GET /backends/{backend}`).
    pub async fn backend_qubits(&self) -> Result<u32, RemoteError> {
        self.backend_qubits_before(self.deadline()).await
    }

    /// [`IonqClient::backend_qubits`] within `deadline`.
    pub async fn backend_qubits_before(&self, deadline: Deadline) -> Result<u32, RemoteError> {
        let target = self.config.target().as_str();
        let what = format!("the description of backend {target}");
        let url = format!("{}/backends/{target}", self.config.base_url());
        let answer = self.send(&what, Method::GET, &url, None, deadline).await?;
        let body: Value = parse(&answer, &what)?;
        body.get("qubits")
            .and_then(Value::as_u64)
            .and_then(|q| u32::try_from(q).ok())
            .ok_or_else(|| malformed(&what, "it has no qubit count"))
    }

    /// Asks the provider to cancel a job.
    pub async fn cancel(&self, job_id: &str) -> Result<(), RemoteError> {
        // A cancel is sent when time is up, so it gets a short time of its own.
        let deadline = Deadline::after(self.config.request_timeout().min(CANCEL_TIMEOUT) * 2);
        let what = format!("canceling job {job_id}");
        self.send(&what, Method::PUT, &self.job_url(job_id, "/status/cancel"), None, deadline).await.map(|_| ())
    }

    /// Polls a job until it completes. A failed or canceled job is an error; so is reaching the
    /// overall timeout or Ctrl-C, after which the job is canceled.
    pub async fn wait(&self, job_id: &str) -> Result<JobInfo, RemoteError> {
        self.wait_before(job_id, self.deadline()).await
    }

    async fn wait_before(&self, job_id: &str, deadline: Deadline) -> Result<JobInfo, RemoteError> {
        let interrupt = if self.config.cancel_on_interrupt() { InterruptGuard::listen() } else { None };
        let progress = Progress::new(self.config.progress(), job_id);
        let poll = self.config.poll();
        let mut delay = poll.initial;
        loop {
            let info = match self.job_before(job_id, deadline).await {
                Err(RemoteError::OutOfTime { .. }) => return Err(self.abandon(job_id, false, deadline).await),
                Err(error @ RemoteError::Timeout { .. }) => {
                    // Best effort: the job is abandoned whether or not the provider hears us.
                    let _ = self.cancel(job_id).await;
                    return Err(error);
                }
                other => other?,
            };
            progress.update(&info.status);
            match info.status {
                JobStatus::Completed => return Ok(info),
                JobStatus::Failed => {
                    let failure = info.failure.unwrap_or_default();
                    return Err(RemoteError::from_failure(job_id, &failure.code, &failure.message));
                }
                JobStatus::Canceled => return Err(RemoteError::Canceled { job_id: job_id.into(), by_user: false }),
                _ => {}
            }
            let wake = Instant::now() + delay;
            while Instant::now() < wake {
                if interrupt.as_ref().is_some_and(InterruptGuard::interrupted) {
                    return Err(self.abandon(job_id, true, deadline).await);
                }
                if deadline.passed() {
                    return Err(self.abandon(job_id, false, deadline).await);
                }
                let until = wake.min(deadline.at).min(Instant::now() + INTERRUPT_CHECK);
                tokio::time::sleep_until(until).await;
            }
            delay = (delay + delay / 2).min(poll.max).max(Duration::from_millis(1));
        }
    }

    /// Cancels a job that will not be waited for any longer and says why.
    async fn abandon(&self, job_id: &str, by_user: bool, deadline: Deadline) -> RemoteError {
        // Best effort: the wait is over whether or not the provider hears us.
        let _ = self.cancel(job_id).await;
        if by_user {
            RemoteError::Canceled { job_id: job_id.into(), by_user: true }
        } else {
            deadline.out_of_time(&format!("job {job_id} (canceled)"))
        }
    }

    fn job_url(&self, job_id: &str, rest: &str) -> String {
        // Job ids are opaque; keep them from changing the path.
        let id: String = job_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c.to_string()
                } else {
                    format!("%{:02X}", c as u32 & 0xff)
                }
            })
            .collect();
        format!("{}/{id}{rest}", self.config.jobs_url())
    }

    /// Sends one request with retries (see [`send_with_retries`]); returns the body of a 2xx answer.
    async fn send(
        &self,
        what: &str,
        method: Method,
        url: &str,
        body: Option<Vec<u8>>,
        deadline: Deadline,
    ) -> Result<Answer, RemoteError> {
        let attempts = Attempts {
            what,
            idempotent: method != Method::POST,
            policy: self.config.retry(),
            request_timeout: self.config.request_timeout(),
            deadline: Some(deadline),
            max_response_bytes: self.config.max_response_bytes(),
        };
        let build = || {
            let mut request = self.http.request(method.clone(), url);
            if let Some(key) = self.config.api_key() {
                request = request.header(reqwest::header::AUTHORIZATION, key.header_value());
            }
            if let Some(body) = &body {
                request = request.header(reqwest::header::CONTENT_TYPE, "application/json").body(body.clone());
            }
            request
        };
        send_with_retries(&attempts, build, status_error).await.map(|body| Answer { body })
    }
}

/// Jobs submitted under a name, and found again by it: a client that crashed between sending a
/// submission and reading its answer asks the provider whether the job was taken before it
/// submits the circuit again (so a job is never submitted twice).
impl IonqClient {
    /// Submits a job named `name` within `deadline` and returns its id.
    pub async fn submit_named(
        &self,
        input: &IonqCircuit,
        shots: u64,
        name: &str,
        deadline: Deadline,
    ) -> Result<String, RemoteError> {
        self.submit_before(input, shots, Some(name), deadline).await
    }

    /// The id of the job named `name` among the newest `within` jobs the provider lists
    /// (`GET /jobs?limit=&next=`, newest first), `None` when there is none; every page within
    /// `deadline`.
    pub async fn find_job_named(
        &self,
        name: &str,
        within: usize,
        deadline: Deadline,
    ) -> Result<Option<String>, RemoteError> {
        const PAGE: usize = 100;
        let what = format!("the job list (looking for job {name})");
        let mut next: Option<String> = None;
        let mut seen = 0;
        while seen < within {
            let mut url = format!("{}?limit={PAGE}", self.config.jobs_url());
            if let Some(after) = &next {
                url.push_str(&format!("&next={}", query_escape(after)));
            }
            let answer = self.send(&what, Method::GET, &url, None, deadline).await?;
            let page: Value = parse(&answer, &what)?;
            let jobs = page.get("jobs").and_then(Value::as_array).ok_or_else(|| malformed(&what, "it has no jobs"))?;
            if let Some(job) = jobs.iter().find(|job| job.get("name").and_then(Value::as_str) == Some(name)) {
                let id = job.get("id").and_then(Value::as_str).ok_or_else(|| malformed(&what, "a job has no id"))?;
                return Ok(Some(id.to_owned()));
            }
            seen += jobs.len();
            next = page.get("next").and_then(Value::as_str).map(str::to_owned);
            if jobs.is_empty() || next.is_none() {
                break;
            }
        }
        Ok(None)
    }
}

/// `text` for a URL query value: anything but `[A-Za-z0-9._~-]` escaped.
fn query_escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub(crate) fn parse<T: serde::de::DeserializeOwned>(answer: &Answer, what: &str) -> Result<T, RemoteError> {
    serde_json::from_slice(&answer.body).map_err(|e| malformed(what, &format!("{e} in {}", excerpt(&answer.body))))
}

pub(crate) fn malformed(what: &str, detail: &str) -> RemoteError {
    RemoteError::MalformedResponse { what: what.to_owned(), detail: detail.to_owned() }
}

/// Sorts a non-2xx answer into the error taxonomy.
pub(crate) fn status_error(what: &str, status: StatusCode, body: &[u8], attempts: u32) -> RemoteError {
    let message = match serde_json::from_slice::<ErrorBody>(body) {
        Ok(error) if !error.message.is_empty() => error.message,
        Ok(error) if !error.error.is_empty() => error.error,
        _ if body.is_empty() => status.canonical_reason().unwrap_or("no message").to_owned(),
        _ => excerpt(body),
    };
    classify(what, status.as_u16(), message, attempts)
}

/// The error for an answer with HTTP status `code` and the provider's `message`.
pub(crate) fn classify(what: &str, code: u16, message: String, attempts: u32) -> RemoteError {
    match code {
        401 | 403 => RemoteError::Auth { status: code, message },
        429 => RemoteError::RateLimited { attempts, message },
        402 => RemoteError::QuotaExhausted { message },
        500..=599 => RemoteError::Server { what: what.to_owned(), status: code, attempts, message },
        _ => RemoteError::Rejected { what: what.to_owned(), status: code, message },
    }
}

/// The start of a body, as text, for error messages.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let mut shown: String = text.chars().take(MESSAGE_LIMIT).collect();
    if text.chars().count() > MESSAGE_LIMIT {
        shown.push('…');
    }
    if shown.is_empty() { "an empty body".to_owned() } else { format!("`{shown}`") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_sort_into_the_taxonomy() {
        let body = br#"{"statusCode":401,"error":"Unauthorized Error","message":"Invalid key provided."}"#;
        let auth = status_error("x", StatusCode::UNAUTHORIZED, body, 1);
        assert!(matches!(&auth, RemoteError::Auth { status: 401, message } if message == "Invalid key provided."));
        assert!(matches!(
            status_error("x", StatusCode::TOO_MANY_REQUESTS, b"", 3),
            RemoteError::RateLimited { attempts: 3, .. }
        ));
        assert!(matches!(
            status_error("x", StatusCode::BAD_GATEWAY, b"<html>", 2),
            RemoteError::Server { status: 502, .. }
        ));
        let rejected = status_error("submitting the job", StatusCode::BAD_REQUEST, b"not json", 1).to_string();
        assert_eq!(rejected, "the provider rejected submitting the job (400): `not json`");
    }

    #[test]
    fn long_bodies_are_cut() {
        let long = vec![b'a'; 1000];
        assert_eq!(excerpt(&long).chars().count(), MESSAGE_LIMIT + 3);
    }
}
