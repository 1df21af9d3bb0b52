//! A stand-in for IBM Quantum's authentication and device routes, so the IBM client runs in
//! tests without the service.
//!
//! * `POST /identity/token`: IBM Cloud IAM's API-key exchange. The form body must carry
//!   `grant_type=urn:ibm:params:oauth:grant-type:apikey` and an `apikey` (the server's
//!   `--api-key` when it has one, any non-empty key otherwise); the answer is a bearer token with
//!   `access_token`, `token_type`, `expires_in` and `expiration`, as IAM gives it.
//! * `GET /api/v1/backends` (`{"devices": [{"name", "qubits", "status", ...}]}`),
//!   `GET /api/v1/backends/{name}/configuration` and
//!   `GET /api/v1/backends/{name}/properties`: the devices this server describes (`ibm_fez`,
//!   Heron; `ibm_brisbane`, Eagle), their configurations and calibrations as IBM publishes them
//!   (the calibrations with an `operational` flag on every qubit and gate, 0 on the broken ones,
//!   as the live service serves them).
//!   `.../status` says each is online, with a queue as long as `--ibm-busy-jobs`, and
//!   `GET /api/v1/instances/usage` the seconds the jobs ran in the current period (the last
//!   28 days). They need `Authorization: Bearer
//!   TOKEN` with a live token and a `Service-CRN` header; a
//!   missing, unknown or expired token is 401, as on the service.
//!
//! * `POST /api/v1/jobs`: Sampler V2 and Estimator V2 jobs (`program_id` `sampler` or
//!   `estimator`), with pubs as IBM's REST guides write them (OpenQASM 3 circuits) or as the
//!   unmodified `qiskit-ibm-runtime` client sends them (QPY circuits, NumPy parameter values,
//!   Pauli observables: see [`pubs`]), and the client-side primitives' quantum programs
//!   (`program_id` `executor`: see [`executor`]). Every circuit must be an ISA circuit of the device
//!   ([`isa`]: its basis gates only, two-qubit gates on coupled pairs in their direction,
//!   nothing on a qubit or coupler its calibration marks broken), else 400 naming what is not, as are malformed pubs (naming the pub and the
//!   part). The job then waits `--queue-delay-ms` in the queue and runs in the background
//!   ([`jobs`]): each bound circuit's shots are drawn on a state over the qubits it uses, with the
//!   device's calibrated noise or without ([`noise`], `--ibm-noise`), from the server's seed
//!   mixed with the job's number (or the job's `simulator.seed_simulator`).
//!   `GET /api/v1/jobs/{id}` gives its status (`Queued`, `Running`, `Completed`, `Failed`,
//!   `Cancelled`, with the reason and reason code), `GET /api/v1/jobs/{id}/results` its results
//!   (Qiskit's typed `PrimitiveResult` JSON when the client sends `support_qiskit`, else the
//!   REST guides' JSON; the reason as text for a failed or cancelled job),
//!   `GET /api/v1/jobs/{id}/metrics` its timestamps and usage (the seconds it ran), `.../logs` its life as the
//!   stand-in saw it (queued, running, over, with the reason), and
//!   `POST /api/v1/jobs/{id}/cancel` cancels it (204; 409 once it is over).
//!   `GET /api/v1/jobs` lists the jobs kept, filtered and paged as the client asks
//!   ([`job_list`]).
//! * `POST /api/v1/sessions` (`mode` `dedicated` or `batch`, `backend`, `instance`,
//!   `max_ttl`), `GET /api/v1/sessions/{id}` (its state, `accepting_jobs`, limits and times),
//!   `PATCH /api/v1/sessions/{id}` with `{"accepting_jobs": false}` (closes it to new jobs; the
//!   queued ones finish) and `DELETE /api/v1/sessions/{id}/close` (closes it and cancels its
//!   queued jobs): sessions and batches as [`sessions`] describes them. A job names its session
//!   with `session_id`; one for an unknown, closed or expired session, or for another device
//!   than its session's, is refused. An instance on the Open Plan (`--ibm-plan open`,
//!   [`IbmPlan`]) is refused dedicated sessions with the service's error 1352.
//! * Devices kept busy by other users' jobs (`--ibm-busy-jobs`, [`busy`]): a lone job waits
//!   behind them, a dedicated session's jobs go ahead once it holds the device.
//!
//! Jobs and sessions live in memory ([`service`], [`IbmStandIn::new`]), or, with `qchess serve
//! --db`, in the game store's database as well ([`IbmStandIn::open`], [`persist`]): each change
//! is written as it happens, and after a restart the jobs (status, results, metrics, logs,
//! tags, usage) and sessions are found as they were; jobs left queued or running are failed
//! with the reason.
//!
//! Errors have the service's shapes ([`IamError`], [`IbmError`]): IAM's
//! `{"errorCode", "errorMessage"}`, and the API's `{"errors": [{"code", "message"}],
//! "status_code"}`. Tokens live [`IbmOptions::token_lifetime`]: IAM's hour by default
//! ([`DEFAULT_TOKEN_SECONDS`]), shorter in tests that watch one expire.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use serde_json::{Value, json};

pub mod bound;
pub mod busy;
mod clock;
mod components;
mod error;
pub mod estimator;
pub mod executor;
pub mod isa;
pub mod job_list;
mod job_routes;
pub mod jobs;
pub mod noise;
pub mod persist;
pub mod pubs;
pub mod record;
mod rows;
pub mod runtime;
pub mod sampler;
mod session_routes;
pub mod sessions;
mod sparse;
pub mod state;
pub mod trajectories;
pub mod turns;
mod usage;

pub use self::error::{IamError, IbmError};

use self::noise::IbmNoise;
use crate::key::ServerKey;
use crate::run::RunOptions;

/// How long a token lives by default (IAM's `expires_in`).
pub const DEFAULT_TOKEN_SECONDS: u64 = 3600;

/// The grant type of an API-key exchange.
const APIKEY_GRANT: &str = "urn:ibm:params:oauth:grant-type:apikey";

/// A device described here: its API name and the configuration and properties IBM publishes.
#[derive(Debug, Clone, Copy)]
struct Device {
    name: &'static str,
    configuration: &'static str,
    properties: &'static str,
}

/// The devices described here.
fn devices() -> [Device; 2] {
    use qchess_route::target::presets::{BRISBANE_CONF, BRISBANE_PROPS, FEZ_CONF, FEZ_PROPS};
    [
        Device { name: "ibm_fez", configuration: FEZ_CONF, properties: FEZ_PROPS },
        Device { name: "ibm_brisbane", configuration: BRISBANE_CONF, properties: BRISBANE_PROPS },
    ]
}

/// The device named `name`.
fn device(name: &str) -> Option<Device> {
    devices().into_iter().find(|device| device.name == name)
}

/// How the stand-in is set up.
#[derive(Debug, Clone)]
pub struct IbmOptions {
    /// The one API key IAM accepts (any non-empty key when `None`).
    pub key: Option<ServerKey>,
    /// How long a token lives.
    pub token_lifetime: Duration,
    /// Whether jobs are sampled with the device's noise.
    pub noise: IbmNoise,
    /// Seed, queue delay, workers and time limit of its jobs.
    pub run: RunOptions,
    /// How long an active session waits for its next job before it lets go of its device.
    pub interactive_ttl: Duration,
    /// The service instance's plan: whether it may open dedicated sessions.
    pub plan: IbmPlan,
    /// Other users' jobs that keep every device busy (none by default).
    pub busy: busy::BusyLoad,
}

/// The plan of the service instance the stand-in plays (`--ibm-plan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IbmPlan {
    /// A paid plan: dedicated sessions and batches.
    #[default]
    Premium,
    /// IBM's Open Plan: batches and lone jobs only; a dedicated session is refused with the
    /// service's error 1352.
    Open,
}

impl std::str::FromStr for IbmPlan {
    type Err = String;

    fn from_str(text: &str) -> Result<IbmPlan, String> {
        match text.trim() {
            "premium" => Ok(IbmPlan::Premium),
            "open" => Ok(IbmPlan::Open),
            other => Err(format!("`{}` is not a plan: use premium or open", other.escape_debug())),
        }
    }
}

impl IbmOptions {
    /// `key`, tokens living `token_lifetime`, no noise, the default [`RunOptions`] with a
    /// worker per processor.
    pub fn new(key: Option<ServerKey>, token_lifetime: Duration) -> IbmOptions {
        let workers = std::thread::available_parallelism().map_or(1, usize::from);
        IbmOptions {
            key,
            token_lifetime,
            noise: IbmNoise::Ideal,
            run: RunOptions { workers, ..RunOptions::default() },
            interactive_ttl: Duration::from_secs(sessions::DEFAULT_INTERACTIVE_TTL_SECONDS),
            plan: IbmPlan::Premium,
            busy: busy::BusyLoad::default(),
        }
    }
}

/// Tokens handed out and when each expires, and the jobs run.
#[derive(Debug)]
struct Tokens {
    options: IbmOptions,
    issued: Mutex<HashMap<String, Instant>>,
    jobs: Arc<Mutex<jobs::Jobs>>,
    /// Jobs submitted so far, numbering each job's seed.
    submitted: AtomicU64,
    /// How many jobs may run at once.
    slots: Arc<turns::Slots>,
    /// Sessions and batches.
    sessions: Arc<Mutex<sessions::Sessions>>,
    /// The devices' queues under other users' jobs.
    queues: Arc<busy::DeviceQueues>,
    /// Where jobs and sessions are kept, with `--db`.
    recorder: Option<persist::Recorder>,
}

impl Tokens {
    /// Resolves once every change of a job or session so far is kept (at once without a
    /// database).
    async fn kept(&self) -> Result<(), IbmError> {
        match &self.recorder {
            None => Ok(()),
            Some(recorder) => recorder.flushed().await.map_err(|e| IbmError::Internal(e.to_string())),
        }
    }
}

/// The routes of the [module docs](self) with their own token and job store, in memory.
pub fn service<S: Clone + Send + Sync + 'static>(options: IbmOptions) -> Router<S> {
    IbmStandIn::new(options).router()
}

/// The stand-in: its tokens, jobs and sessions, kept in memory or in a database.
#[derive(Debug, Clone)]
pub struct IbmStandIn(Arc<Tokens>);

impl IbmStandIn {
    /// A stand-in that keeps its jobs and sessions in memory.
    pub fn new(options: IbmOptions) -> IbmStandIn {
        let sessions = sessions::Sessions::new(options.interactive_ttl.as_secs());
        IbmStandIn::with(options, jobs::Jobs::default(), sessions, None)
    }

    /// A stand-in that keeps its jobs and sessions in `database` and takes back those it kept
    /// there before: see [`persist`].
    pub async fn open(options: IbmOptions, database: &persist::Database) -> Result<IbmStandIn, persist::PersistError> {
        let kept = persist::open(database).await?;
        let mut jobs = jobs::Jobs::default();
        jobs.restore(kept.jobs, kept.forgotten, kept.recorder.jobs());
        let mut sessions = sessions::Sessions::new(options.interactive_ttl.as_secs());
        sessions.restore(kept.sessions, kept.recorder.sessions());
        Ok(IbmStandIn::with(options, jobs, sessions, Some(kept.recorder)))
    }

    fn with(
        options: IbmOptions,
        jobs: jobs::Jobs,
        sessions: sessions::Sessions,
        recorder: Option<persist::Recorder>,
    ) -> IbmStandIn {
        let slots = Arc::new(turns::Slots::new(options.run.workers, jobs.wake()));
        let queues = Arc::new(busy::DeviceQueues::new(options.busy));
        IbmStandIn(Arc::new(Tokens {
            options,
            issued: Mutex::new(HashMap::new()),
            submitted: AtomicU64::new(jobs.submitted()),
            jobs: Arc::new(Mutex::new(jobs)),
            slots,
            sessions: Arc::new(Mutex::new(sessions)),
            queues,
            recorder,
        }))
    }

    /// Resolves once every change of a job or session so far is kept (at once without a
    /// database): a server stopping waits for it.
    pub async fn kept(&self) -> Result<(), IbmError> {
        self.0.kept().await
    }

    /// The routes of the [module docs](self).
    pub fn router<S: Clone + Send + Sync + 'static>(&self) -> Router<S> {
        routes(Arc::clone(&self.0))
    }
}

/// The routes of the [module docs](self) over `tokens`.
fn routes<S: Clone + Send + Sync + 'static>(tokens: Arc<Tokens>) -> Router<S> {
    Router::new()
        .route("/identity/token", post(token))
        .route("/api/v1/backends", get(backends))
        .route("/api/v1/backends/{name}/configuration", get(configuration))
        .route("/api/v1/backends/{name}/properties", get(properties))
        .route("/api/v1/backends/{name}/status", get(status))
        .route("/api/v1/instances/usage", get(usage::usage))
        .route("/api/v1/jobs", post(job_routes::submit).get(job_list::list))
        .route("/api/v1/jobs/{id}", get(job_routes::job))
        .route("/api/v1/jobs/{id}/results", get(job_routes::results))
        .route("/api/v1/jobs/{id}/metrics", get(job_routes::metrics))
        .route("/api/v1/jobs/{id}/logs", get(job_routes::logs))
        .route("/api/v1/jobs/{id}/cancel", post(job_routes::cancel))
        .route("/api/v1/sessions", post(session_routes::create))
        .route("/api/v1/sessions/{id}", get(session_routes::details).patch(session_routes::update))
        .route("/api/v1/sessions/{id}/close", delete(session_routes::cancel))
        .with_state(tokens)
}

/// `POST /identity/token`.
async fn token(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, body: Bytes) -> Result<Response, IamError> {
    let form_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !form_type.starts_with("application/x-www-form-urlencoded") {
        return Err(IamError::NotForm);
    }
    let form = form_fields(&body);
    if form.get("grant_type").map(String::as_str) != Some(APIKEY_GRANT) {
        return Err(IamError::UnsupportedGrant);
    }
    let key = form.get("apikey").map(String::as_str).unwrap_or("");
    let accepted = match &tokens.options.key {
        Some(expected) => expected.matches(key),
        None => !key.is_empty(),
    };
    if !accepted {
        return Err(IamError::UnknownKey);
    }
    let expires_in = tokens.options.token_lifetime.as_secs();
    let issued_at = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let expiration = issued_at + expires_in;
    let access = jwt(issued_at, expiration);
    let mut issued = tokens.issued.lock().unwrap_or_else(|p| p.into_inner());
    let now = Instant::now();
    issued.retain(|_, expiry| *expiry > now);
    issued.insert(access.clone(), now + tokens.options.token_lifetime);
    Ok(axum::Json(json!({
        "access_token": access,
        "refresh_token": "not_supported",
        "token_type": "Bearer",
        "expires_in": expires_in,
        "expiration": expiration,
        "scope": "ibm openid",
    }))
    .into_response())
}

/// An access token shaped as IAM's: a JWT (`header.claims.signature`, base64url) whose claims
/// give `iat` and `exp`, which IBM's own SDKs decode to schedule a refresh. The signature is
/// random bytes: nothing verifies it but this server, by looking the token up.
fn jwt(issued_at: u64, expiration: u64) -> String {
    let header = json!({ "alg": "RS256", "typ": "JWT", "kid": "qchess" });
    let claims = json!({
        "iam_id": "qchess-serve", "sub": "qchess-serve", "iat": issued_at, "exp": expiration,
        "jti": format!("{:032x}", rand::random::<u128>()),
    });
    let signature: [u8; 32] = rand::random();
    [base64url(header.to_string().as_bytes()), base64url(claims.to_string().as_bytes()), base64url(&signature)]
        .join(".")
}

/// `bytes` in unpadded base64url.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk.iter().enumerate().fold(0u32, |word, (i, &b)| word | u32::from(b) << (16 - 8 * i));
        for sextet in 0..=chunk.len() {
            text.push(char::from(ALPHABET[(word >> (18 - 6 * sextet) & 63) as usize]));
        }
    }
    text
}

/// The fields of a form body (`a=b&c=d`, `+` and `%XX` decoded).
fn form_fields(body: &[u8]) -> HashMap<String, String> {
    let decode = |text: &[u8]| {
        let hex = |byte: u8| (byte as char).to_digit(16);
        let mut out = Vec::with_capacity(text.len());
        let mut i = 0;
        while i < text.len() {
            match (text[i], text.get(i + 1).copied().and_then(hex), text.get(i + 2).copied().and_then(hex)) {
                (b'+', _, _) => out.push(b' '),
                (b'%', Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 2;
                }
                (byte, _, _) => out.push(byte),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    body.split(|&b| b == b'&')
        .filter_map(|pair| {
            let at = pair.iter().position(|&b| b == b'=')?;
            Some((decode(&pair[..at]), decode(&pair[at + 1..])))
        })
        .collect()
}

/// A request let in: it carries a live bearer token and a service instance header. Taken
/// after a route's path, as the service checks them.
struct Admitted(Arc<Tokens>);

impl FromRequestParts<Arc<Tokens>> for Admitted {
    type Rejection = IbmError;

    async fn from_request_parts(parts: &mut Parts, tokens: &Arc<Tokens>) -> Result<Admitted, IbmError> {
        admit(tokens, &parts.headers)?;
        Ok(Admitted(Arc::clone(tokens)))
    }
}

/// The device named `name`, or the service's 404.
fn named_device(name: String) -> Result<Device, IbmError> {
    device(&name).ok_or(IbmError::UnknownBackend(name))
}

/// Lets a request in only with a live bearer token and a service instance header.
fn admit(tokens: &Tokens, headers: &HeaderMap) -> Result<(), IbmError> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .ok_or(IbmError::MissingBearer)?;
    let issued = tokens.issued.lock().unwrap_or_else(|p| p.into_inner());
    match issued.get(bearer) {
        Some(expiry) if *expiry > Instant::now() => {}
        Some(_) => return Err(IbmError::ExpiredBearer),
        None => return Err(IbmError::UnknownBearer),
    }
    if headers.get("service-crn").and_then(|v| v.to_str().ok()).is_none_or(|v| v.trim().is_empty()) {
        return Err(IbmError::MissingCrn);
    }
    Ok(())
}

/// The JSON body of a request let in by [`admit`], or the service's 400.
fn admitted_json(tokens: &Tokens, headers: &HeaderMap, body: &[u8]) -> Result<Value, IbmError> {
    admit(tokens, headers)?;
    serde_json::from_slice(body).map_err(|e| IbmError::NotJson(e.to_string()))
}

/// `GET /api/v1/backends`.
async fn backends(_: Admitted) -> Result<Response, IbmError> {
    let listed: Vec<Value> = devices()
        .iter()
        .map(|device| {
            let qubits = serde_json::from_str::<Value>(device.configuration).ok().and_then(|c| c["n_qubits"].as_u64());
            json!({
                "name": device.name,
                "qubits": qubits,
                "is_simulator": false,
                "status": { "name": "online", "reason": "available" },
            })
        })
        .collect();
    Ok(axum::Json(json!({ "devices": listed })).into_response())
}

/// `GET /api/v1/backends/{name}/configuration`.
async fn configuration(Path(name): Path<String>, _: Admitted) -> Result<Response, IbmError> {
    let value = serde_json::from_str::<Value>(named_device(name)?.configuration)
        .map_err(|e| IbmError::Internal(format!("stored description: {e}")))?;
    Ok(axum::Json(value).into_response())
}

/// `GET /api/v1/backends/{name}/properties`: the published calibration with each element's
/// `operational` flag, as the service serves it ([`isa::live_properties`]).
async fn properties(Path(name): Path<String>, _: Admitted) -> Result<Response, IbmError> {
    let device = named_device(name)?;
    let value = isa::live_properties(device.configuration, device.properties, device.name)
        .map_err(|e| IbmError::Internal(format!("stored description: {e}")))?;
    Ok(axum::Json(value).into_response())
}

/// `GET /api/v1/backends/{name}/status`: every device here is online, its queue as long as
/// the other users' jobs kept on it (`--ibm-busy-jobs`).
async fn status(Path(name): Path<String>, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    let device = named_device(name)?;
    let queued = tokens.options.busy.jobs;
    Ok(axum::Json(json!({
        "name": device.name, "state": true, "status": "active", "message": "available", "length_queue": queued,
    }))
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_the_rfc_vectors() {
        for (bytes, text) in
            [(&b""[..], ""), (b"f", "Zg"), (b"fo", "Zm8"), (b"foo", "Zm9v"), (b"foob", "Zm9vYg"), (b"fooba", "Zm9vYmE")]
        {
            assert_eq!(base64url(bytes), text);
        }
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn tokens_are_jwts_with_their_times() {
        let token = jwt(1_000, 4_600);
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3, "{token}");
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "{token}");
        let claims = base64url(json!({}).to_string().as_bytes());
        assert_eq!(claims, "e30");
        assert!(parts[1].starts_with(&base64url(b"{\"exp\":4600,\"iam_id\"")[..20]), "{token}");
    }
}
