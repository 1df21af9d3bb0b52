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
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{FromRequestParts, Path};
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
mod iam;
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
        .route("/identity/token", post(iam::token))
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
