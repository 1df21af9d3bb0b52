//! An asynchronous client of IBM Quantum's REST API: authentication, device descriptions and
//! Sampler V2 jobs.
//!
//! * **Tokens.** The IBM Cloud API key is exchanged at IAM (`POST {iam}/identity/token`, a form
//!   with `grant_type=urn:ibm:params:oauth:grant-type:apikey`) for a bearer token. The token is
//!   kept and exchanged again shortly before it expires ([`REFRESH_MARGIN`], or a tenth of its
//!   life when that is shorter), and at once when the API answers 401: the request is then sent
//!   once more with the new token.
//! * **Requests** carry `Authorization: Bearer TOKEN` and `Service-CRN: CRN`. They go through
//!   the retry loop the IonQ client uses ([`crate::retry`]): each has its own timeout, is retried
//!   on 429 (honouring `Retry-After`), 5xx and dropped connections within the [`RetryPolicy`]
//!   (a job submission only when the service cannot have taken it), its answer is read no
//!   further than [`IbmConfig::max_response_bytes`], and failures sort into the same
//!   [`RemoteError`] taxonomy as the IonQ client's.
//! * **Device descriptions.** [`IbmClient::configuration`] fetches
//!   `GET {api}/backends/{device}/configuration` (the JSON `qchess-route` reads as a target) and
//!   keeps it on disk in the cache directory, reused for [`CONFIGURATION_TTL`].
//!   [`IbmClient::properties`] fetches `GET {api}/backends/{device}/properties` (the calibration:
//!   error rates, elements not operational, `last_update_date`) and caches it the same way, with
//!   the time it was fetched; it is reused for at most [`PROPERTIES_TTL`], and once the cached
//!   calibration is a day old (IBM calibrates daily, so a newer one is due) for at most
//!   [`PROPERTIES_RECHECK`].
//! * **Jobs.** [`IbmClient::run`] submits one OpenQASM 3 ISA circuit as a Sampler V2 job
//!   (`POST {api}/jobs`), polls `GET {api}/jobs/{id}` with growing waits until its status is
//!   final (asking the service to cancel it on Ctrl-C), and reads `GET {api}/jobs/{id}/results`:
//!   per classical register, one hex sample per shot ([`SamplerResult`]). A job may go into a
//!   session or batch ([`IbmClient::open_session`], [`IbmMode`]).
//!
//! ```no_run
//! use qchess_remote::config::ApiKey;
//! use qchess_remote::ibm::{IbmClient, IbmConfig};
//!
//! # async fn run() -> Result<(), qchess_remote::RemoteError> {
//! let config = IbmConfig::new(ApiKey::new("key")?, "crn:v1:...", "ibm_fez");
//! let client = IbmClient::new(config)?;
//! let configuration = client.configuration().await?;
//! assert_eq!(configuration["backend_name"], "ibm_fez");
//! # Ok(()) }
//! ```

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Mutex;
use tokio::time::Instant;

use crate::client::{Answer, classify, excerpt, malformed, parse};
use crate::config::{ApiKey, DEFAULT_MAX_RESPONSE_BYTES, RetryPolicy};
use crate::error::RemoteError;
use crate::interrupt::InterruptGuard;
use crate::retry::{Attempts, Deadline, send_with_retries};

mod jobs;

pub use jobs::{IbmJobPhase, IbmJobState};

mod cache;
mod game_session;
mod sessions;

pub use game_session::GameSession;
pub use sessions::{IbmMode, SessionInfo, plan_refuses_sessions};

pub use cache::unix_seconds;

/// IBM Cloud's IAM service.
pub const DEFAULT_IAM_URL: &str = "https://iam.cloud.ibm.com";

/// IBM Quantum's API.
pub const DEFAULT_API_URL: &str = "https://quantum.cloud.ibm.com/api/v1";

/// How long before its expiry a token is exchanged again.
pub const REFRESH_MARGIN: Duration = Duration::from_secs(60);

/// How long a cached device configuration is reused before it is fetched again.
pub const CONFIGURATION_TTL: Duration = Duration::from_secs(24 * 3600);

/// How long cached properties (a calibration) are reused at most.
pub const PROPERTIES_TTL: Duration = Duration::from_secs(3 * 3600);

/// How long cached properties are reused once their calibration is a day old.
pub const PROPERTIES_RECHECK: Duration = Duration::from_secs(10 * 60);

/// The grant type of an API-key exchange.
const APIKEY_GRANT: &str = "urn:ibm:params:oauth:grant-type:apikey";

/// A validated IBM Quantum connection.
#[derive(Debug, Clone)]
pub struct IbmConfig {
    /// IAM's base URL (the token route is `/identity/token` under it).
    pub iam_url: String,
    /// The API's base URL, ending in `/api/v1`.
    pub api_url: String,
    /// The IBM Cloud API key.
    pub api_key: ApiKey,
    /// The service instance's CRN, sent as `Service-CRN`.
    pub crn: String,
    /// The device, as the API names it (`ibm_fez`).
    pub device: String,
    /// Where device configurations are cached (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
    /// Timeout of one request.
    pub request_timeout: Duration,
    /// The most time one run (a move's requests, retries, back-off and the wait for its job)
    /// may take (`--timeout`); the job is canceled when it runs out.
    pub overall_timeout: Duration,
    /// Retries of a failed request.
    pub retry: RetryPolicy,
    /// The most bytes of one successful answer read (`--max-response-bytes`); a larger answer
    /// is [`RemoteError::ResponseTooLarge`].
    pub max_response_bytes: u64,
    /// How a game's jobs go to the device: in one session, one batch, or alone.
    pub mode: IbmMode,
}

impl IbmConfig {
    /// The public service's URLs, 30 s per request, the default retries, no cache, answers of
    /// at most [`DEFAULT_MAX_RESPONSE_BYTES`], a game's jobs in one session.
    pub fn new(api_key: ApiKey, crn: impl Into<String>, device: impl Into<String>) -> IbmConfig {
        IbmConfig {
            iam_url: DEFAULT_IAM_URL.to_owned(),
            api_url: DEFAULT_API_URL.to_owned(),
            api_key,
            crn: crn.into(),
            device: device.into(),
            cache_dir: None,
            request_timeout: Duration::from_secs(30),
            overall_timeout: Duration::from_secs(3600),
            retry: RetryPolicy::default(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            mode: IbmMode::Session,
        }
    }

    /// Both services at one base URL (a `qchess serve`): IAM at `base`, the API at `base/api/v1`.
    #[must_use]
    pub fn at(mut self, base: &str) -> IbmConfig {
        let base = base.trim_end_matches('/');
        self.iam_url = base.to_owned();
        self.api_url = format!("{base}/api/v1");
        self
    }
}

/// A bearer token and when to exchange the key again.
#[derive(Debug, Clone)]
struct Token {
    access: String,
    refresh_at: Instant,
}

/// IAM's answer to a key exchange.
#[derive(Debug, Deserialize)]
struct TokenAnswer {
    access_token: String,
    expires_in: u64,
}

/// A client of one IBM Quantum connection: see the [module docs](self).
#[derive(Debug)]
pub struct IbmClient {
    http: reqwest::Client,
    config: IbmConfig,
    token: Mutex<Option<Token>>,
}

impl IbmClient {
    /// A client for `config`.
    pub fn new(config: IbmConfig) -> Result<IbmClient, RemoteError> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("qchess/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.request_timeout)
            .build()
            .map_err(|e| RemoteError::Network { what: "setting up HTTP".into(), attempts: 0, detail: e.to_string() })?;
        Ok(IbmClient { http, config, token: Mutex::new(None) })
    }

    /// The configuration this client was made with.
    pub fn config(&self) -> &IbmConfig {
        &self.config
    }

    /// The overall timeout from now.
    pub fn deadline(&self) -> Deadline {
        Deadline::after(self.config.overall_timeout)
    }

    /// A live bearer token, exchanging the API key when there is none or it is about to expire.
    pub async fn token(&self) -> Result<String, RemoteError> {
        self.token_before(self.deadline()).await
    }

    async fn token_before(&self, deadline: Deadline) -> Result<String, RemoteError> {
        let mut token = self.token.lock().await;
        match token.as_ref() {
            Some(live) if Instant::now() < live.refresh_at => Ok(live.access.clone()),
            _ => {
                let fresh = self.exchange(deadline).await?;
                let access = fresh.access.clone();
                *token = Some(fresh);
                Ok(access)
            }
        }
    }

    /// Forgets the token, so the next request exchanges the key again.
    async fn drop_token(&self, stale: &str) {
        let mut token = self.token.lock().await;
        if token.as_ref().is_some_and(|t| t.access == stale) {
            *token = None;
        }
    }

    /// Exchanges the API key for a token at IAM.
    async fn exchange(&self, deadline: Deadline) -> Result<Token, RemoteError> {
        let what = "exchanging the IBM Cloud API key for a token";
        let body =
            format!("grant_type={}&apikey={}", form_encode(APIKEY_GRANT), form_encode(self.config.api_key.secret()));
        let url = format!("{}/identity/token", self.config.iam_url.trim_end_matches('/'));
        let request = Request { method: Method::POST, url, body: Some(body.into_bytes()), form: true, bearer: None };
        let answer = self.send(what, &request, deadline).await?;
        let token: TokenAnswer = parse(&answer, what)?;
        if token.access_token.is_empty() {
            return Err(malformed(what, "the access token is empty"));
        }
        let life = Duration::from_secs(token.expires_in);
        let margin = REFRESH_MARGIN.min(life / 10);
        Ok(Token { access: token.access_token, refresh_at: Instant::now() + life.saturating_sub(margin) })
    }

    /// `GET {api}/{path}` with the token; on 401 the key is exchanged again and the request
    /// sent once more.
    pub async fn get(&self, what: &str, path: &str) -> Result<Value, RemoteError> {
        self.call(what, Method::GET, path, None, self.deadline()).await
    }

    /// A request to the API with the token, exchanging the key again once on 401.
    async fn call(
        &self,
        what: &str,
        method: Method,
        path: &str,
        body: Option<&Value>,
        deadline: Deadline,
    ) -> Result<Value, RemoteError> {
        let url = format!("{}/{}", self.config.api_url.trim_end_matches('/'), path.trim_start_matches('/'));
        let body = body.map(|b| serde_json::to_vec(b).unwrap_or_default());
        let mut refreshed = false;
        loop {
            let token = self.token_before(deadline).await?;
            let request = Request {
                method: method.clone(),
                url: url.clone(),
                body: body.clone(),
                form: false,
                bearer: Some(token.clone()),
            };
            match self.send(what, &request, deadline).await {
                Err(RemoteError::Auth { status: 401, .. }) if !refreshed => {
                    self.drop_token(&token).await;
                    refreshed = true;
                }
                Ok(answer) if answer.body.is_empty() => return Ok(Value::Null),
                other => return parse(&other?, what),
            }
        }
    }

    /// Runs one OpenQASM 3 ISA circuit for `shots` shots as a Sampler V2 job: submits it,
    /// polls until it is final (canceling it on Ctrl-C or when the overall timeout runs out),
    /// and decodes its samples.
    pub async fn run(&self, circuit: &str, shots: u64) -> Result<SamplerResult, RemoteError> {
        self.run_before(circuit, shots, self.deadline()).await
    }

    /// [`IbmClient::run`] within `deadline` (shared with the rest of a move's requests).
    pub async fn run_before(
        &self,
        circuit: &str,
        shots: u64,
        deadline: Deadline,
    ) -> Result<SamplerResult, RemoteError> {
        let job_id = self.submit(circuit, shots, deadline).await?;
        self.follow(job_id, shots, deadline).await
    }

    /// Waits for job `job_id` until it is final (canceling it on Ctrl-C or when `deadline`
    /// passes) and reads its samples.
    pub async fn follow(&self, job_id: String, shots: u64, deadline: Deadline) -> Result<SamplerResult, RemoteError> {
        let interrupt = InterruptGuard::listen();
        let mut delay = Duration::from_millis(100);
        loop {
            let state = match self.job_state(&job_id, deadline).await {
                Err(RemoteError::OutOfTime { .. }) => return Err(self.abandon(&job_id, false, deadline).await),
                other => other?,
            };
            match state.phase {
                IbmJobPhase::Completed => break,
                IbmJobPhase::Failed => {
                    let message = state.reason.unwrap_or_else(|| "no reason given".to_owned());
                    return Err(RemoteError::JobFailed { job_id, code: "Failed".into(), message });
                }
                // `Cancelled - Ran too long` too.
                IbmJobPhase::Cancelled => return Err(RemoteError::Canceled { job_id, by_user: false }),
                IbmJobPhase::Queued | IbmJobPhase::Running => {}
            }
            if interrupt.as_ref().is_some_and(InterruptGuard::interrupted) {
                return Err(self.abandon(&job_id, true, deadline).await);
            }
            if deadline.passed() {
                return Err(self.abandon(&job_id, false, deadline).await);
            }
            tokio::time::sleep_until((Instant::now() + delay).min(deadline.at)).await;
            delay = (delay * 3 / 2).min(Duration::from_secs(5));
        }
        self.results(&job_id, shots, deadline).await
    }

    /// Asks the service to cancel a job that will not be waited for any longer, and says why.
    async fn abandon(&self, job_id: &str, by_user: bool, deadline: Deadline) -> RemoteError {
        // Best effort, with a short time of its own: the wait is over whether or not the
        // service hears us.
        let _ = self.cancel(job_id).await;
        if by_user {
            RemoteError::Canceled { job_id: job_id.to_owned(), by_user: true }
        } else {
            deadline.out_of_time(&format!("job {job_id} (canceled)"))
        }
    }

    /// Sends one request with retries (see [`send_with_retries`]); returns the body of a 2xx answer.
    async fn send(&self, what: &str, request: &Request, deadline: Deadline) -> Result<Answer, RemoteError> {
        let attempts = Attempts {
            what,
            // Exchanging the key again does no harm; a job submitted twice would run twice.
            idempotent: request.method != Method::POST || request.form,
            policy: self.config.retry,
            request_timeout: self.config.request_timeout,
            deadline: Some(deadline),
            max_response_bytes: self.config.max_response_bytes,
        };
        let build = || {
            let mut builder = self
                .http
                .request(request.method.clone(), &request.url)
                .header(reqwest::header::ACCEPT, "application/json");
            if let Some(token) = &request.bearer {
                builder = builder
                    .header(reqwest::header::AUTHORIZATION, format!("Bearer {token}"))
                    .header("Service-CRN", &self.config.crn);
            }
            if let Some(body) = &request.body {
                let kind = if request.form { "application/x-www-form-urlencoded" } else { "application/json" };
                builder = builder.header(reqwest::header::CONTENT_TYPE, kind).body(body.clone());
            }
            builder
        };
        send_with_retries(&attempts, build, status_error).await.map(|body| Answer { body })
    }
}

/// One classical register's samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegisterSamples {
    /// The register's name.
    pub name: String,
    /// Its bits.
    pub num_bits: u32,
    /// One value per shot, bit `i` = the register's bit `i`.
    pub samples: Vec<u64>,
}

/// A finished Sampler job's first pub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplerResult {
    /// The job's id.
    pub job_id: String,
    /// Shots asked for.
    pub shots: u64,
    /// Each register's samples, in the order the service lists them.
    pub registers: Vec<RegisterSamples>,
}

impl SamplerResult {
    /// Reads `{"results": [{"data": {NAME: {"samples": ["0x..."], "num_bits": n}}}]}`.
    pub fn from_json(job_id: String, shots: u64, body: &Value) -> Result<SamplerResult, String> {
        let data = body.pointer("/results/0/data").and_then(Value::as_object).ok_or("no results[0].data")?;
        let mut registers = Vec::new();
        for (name, register) in data {
            let num_bits =
                register.get("num_bits").and_then(Value::as_u64).ok_or(format!("register {name} has no num_bits"))?;
            if num_bits > 64 {
                return Err(format!("register {name} has {num_bits} bits; at most 64 are read"));
            }
            let samples = register
                .get("samples")
                .and_then(Value::as_array)
                .ok_or(format!("register {name} has no samples"))?
                .iter()
                .map(|s| {
                    let text = s.as_str().unwrap_or("");
                    u64::from_str_radix(text.trim_start_matches("0x"), 16)
                        .map_err(|_| format!("register {name}: bad sample `{text}`"))
                })
                .collect::<Result<Vec<u64>, String>>()?;
            registers.push(RegisterSamples { name: name.clone(), num_bits: num_bits as u32, samples });
        }
        Ok(SamplerResult { job_id, shots, registers })
    }

    /// How often each value of register `name` occurred.
    pub fn counts(&self, name: &str) -> Option<std::collections::BTreeMap<u64, u64>> {
        let register = self.registers.iter().find(|r| r.name == name)?;
        let mut counts = std::collections::BTreeMap::new();
        for &sample in &register.samples {
            *counts.entry(sample).or_insert(0) += 1;
        }
        Some(counts)
    }
}

/// One request as [`IbmClient::send`] sends it.
struct Request {
    method: Method,
    url: String,
    body: Option<Vec<u8>>,
    /// The body is a form (IAM), not JSON.
    form: bool,
    /// The API's bearer token, with which the `Service-CRN` goes too.
    bearer: Option<String>,
}

/// Sorts a non-2xx answer of IAM or the API into the error taxonomy, reading the message from
/// the API's `{"errors": [{"message"}]}` or IAM's `{"errorMessage"}`.
fn status_error(what: &str, status: StatusCode, body: &[u8], attempts: u32) -> RemoteError {
    let json: Option<Value> = serde_json::from_slice(body).ok();
    let message = json
        .as_ref()
        .and_then(|v| v.pointer("/errors/0/message").or_else(|| v.get("errorMessage")).or_else(|| v.get("message")))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| excerpt(body));
    let code = status.as_u16();
    // IAM refuses an unknown key with 400, not 401.
    let iam_refusal = json.as_ref().and_then(|v| v.get("errorCode")).is_some() && code == 400;
    classify(what, if iam_refusal { 401 } else { code }, message, attempts)
}

/// `text` encoded for a form body.
fn form_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `text` as one URL path segment (and a file name): anything but `[A-Za-z0-9._-]` escaped.
fn path_segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iam_and_api_errors_sort_into_the_taxonomy() {
        let iam = br#"{"errorCode":"BXNIM0415E","errorMessage":"Provided API key could not be found."}"#;
        let refused = status_error("x", StatusCode::BAD_REQUEST, iam, 1);
        assert!(
            matches!(&refused, RemoteError::Auth { status: 401, message } if message.contains("could not be found"))
        );
        let api = br#"{"errors":[{"code":"1216","message":"Backend ibm_x not found."}],"status_code":404}"#;
        let missing = status_error("x", StatusCode::NOT_FOUND, api, 1);
        assert!(
            matches!(&missing, RemoteError::Rejected { status: 404, message, .. } if message == "Backend ibm_x not found.")
        );
        assert!(matches!(
            status_error("x", StatusCode::TOO_MANY_REQUESTS, b"", 3),
            RemoteError::RateLimited { attempts: 3, .. }
        ));
        assert!(matches!(status_error("x", StatusCode::BAD_GATEWAY, b"", 2), RemoteError::Server { status: 502, .. }));
    }

    #[test]
    fn form_and_path_encoding_escape_what_they_must() {
        assert_eq!(form_encode("urn:ibm:params"), "urn%3Aibm%3Aparams");
        assert_eq!(form_encode("a b&c=d"), "a%20b%26c%3Dd");
        assert_eq!(path_segment("ibm_fez"), "ibm_fez");
        assert_eq!(path_segment("../x"), "..%2Fx");
    }
}
