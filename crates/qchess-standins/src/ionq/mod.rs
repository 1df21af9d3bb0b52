//! A stand-in for IonQ's v0.4 provider API, compatible with the unmodified `cirq-ionq` and
//! `qiskit-ionq` clients.
//!
//! * `POST /v0.4/jobs`, `GET /v0.4/jobs?status=&limit=&next=`, `GET` / `DELETE /v0.4/jobs/{id}`,
//!   `PUT /v0.4/jobs/{id}/status/cancel`, `GET /v0.4/jobs/{id}/results/probabilities` (and
//!   `.../aggregated`), `GET /v0.4/backends`, `GET /v0.4/backends/{backend}`, `GET /v0.4/whoami`.
//! * Statuses `submitted|ready|started|completed|failed|canceled`, the relative results URL,
//!   `shots` as a number or string, `target(s)` and `control(s)`, echoed metadata, unknown
//!   fields ignored, errors as `{"statusCode", "error", "message"}` ([`IonqError`]), and jobs
//!   moved along by a [`Worker`] rather than in the request.
//! * The `simulator` backend with the `ideal` noise model answers exact probabilities
//!   ([`simulate`]); `qpu.*` backends and noisy models answer shot frequencies with the
//!   configured [`NoiseOptions`]. Jobs are bounded ([`JobLimits`]) in qubits, shots, gates,
//!   stored jobs and stored outcomes, and in time ([`RunOptions::time_limit`](crate::RunOptions::time_limit)).
//! * With a key ([`IonqOptions::key`]) the job routes and `whoami` need
//!   `Authorization: apiKey KEY`; the backends stay open.
//!
//! ```
//! use qchess_standins::ionq::{IonqOptions, IonqStandIn};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (stand_in, worker) = IonqStandIn::new(IonqOptions::default());
//! let runtime = tokio::runtime::Runtime::new()?;
//! runtime.block_on(async {
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//!     let _worker = tokio::spawn(worker.run());
//!     let _serving = tokio::spawn(async move { axum::serve(listener, stand_in.router::<()>()).await });
//!     Ok::<(), std::io::Error>(())
//! })?;
//! # Ok(()) }
//! ```

pub mod defect;
mod error;
pub mod jobs;
mod options;
pub mod results_body;
mod routes;
pub mod simulate;
mod worker;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use tokio::sync::mpsc;

pub use error::{IonqError, error_body, error_response};
pub use options::{IonqOptions, JobLimits, NoiseOptions};
pub use worker::Worker;

use jobs::{JobFailure, JobStore, Phase};

/// The IonQ stand-in: its settings, its jobs, and the queue its [`Worker`] runs.
#[derive(Debug)]
pub struct IonqStandIn {
    options: IonqOptions,
    jobs: Mutex<JobStore>,
    /// Ids of submitted jobs, for the worker.
    queue: mpsc::UnboundedSender<String>,
    /// When it started (the backends' `last_updated`).
    started: SystemTime,
    /// Set once the server is shutting down: submissions are refused.
    shutting_down: AtomicBool,
    /// Set when running jobs must stop.
    stop_jobs: AtomicBool,
}

impl IonqStandIn {
    /// A stand-in set up by `options` (checked by [`IonqOptions::validate`]), and the worker
    /// that runs its jobs.
    pub fn new(options: IonqOptions) -> (Arc<IonqStandIn>, Worker) {
        let (sender, queue) = mpsc::unbounded_channel();
        let jobs = JobStore::new(options.limits.max_jobs, options.limits.max_result_entries, options.result_ttl);
        let stand_in = Arc::new(IonqStandIn {
            options,
            jobs: Mutex::new(jobs),
            queue: sender,
            started: SystemTime::now(),
            shutting_down: AtomicBool::new(false),
            stop_jobs: AtomicBool::new(false),
        });
        let worker = Worker { stand_in: Arc::clone(&stand_in), queue };
        (stand_in, worker)
    }

    /// Its settings.
    pub fn options(&self) -> &IonqOptions {
        &self.options
    }

    /// The routes of the [module docs](self), with the key check.
    pub fn router<S: Clone + Send + Sync + 'static>(self: &Arc<Self>) -> Router<S> {
        let guarded = Router::new()
            .route("/v0.4/jobs", post(routes::create_job).get(routes::list_jobs))
            .route("/v0.4/jobs/{id}", get(routes::get_job).delete(routes::delete_job))
            .route("/v0.4/jobs/{id}/results/probabilities", get(routes::get_results))
            .route("/v0.4/jobs/{id}/results/probabilities/aggregated", get(routes::get_results))
            .route("/v0.4/jobs/{id}/status/cancel", put(routes::cancel_job))
            .route("/v0.4/whoami", get(routes::whoami))
            .route_layer(middleware::from_fn_with_state(Arc::clone(self), require_key));
        let open = Router::new()
            .route("/v0.4/backends", get(routes::list_backends))
            .route("/v0.4/backends/{backend}", get(routes::get_backend));
        guarded.merge(open).with_state(Arc::clone(self))
    }

    /// The job store.
    fn jobs(&self) -> MutexGuard<'_, JobStore> {
        self.jobs.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Refuses new jobs from now on and fails those that have not started
    /// (`ServerShutdown`); returns how many there were.
    pub fn refuse_new_jobs(&self) -> usize {
        // Under the store's lock, so no submission slips in between.
        let mut jobs = self.jobs();
        self.shutting_down.store(true, Ordering::SeqCst);
        let failure = JobFailure {
            code: "ServerShutdown",
            message: "the server shut down before the job started; submit it again".to_owned(),
        };
        jobs.fail_unstarted(&failure)
    }

    /// Jobs running now.
    pub fn running(&self) -> usize {
        self.jobs().count(Phase::Started)
    }

    /// Stops the jobs still running after the shutdown's `grace` period (they fail with
    /// `ServerShutdown`); returns how many there were.
    pub fn stop_running(&self, grace: Duration) -> usize {
        self.stop_jobs.store(true, Ordering::SeqCst);
        let failure = JobFailure {
            code: "ServerShutdown",
            message: format!(
                "the server shut down and the job did not finish within the grace period of {} s (--shutdown-grace)",
                grace.as_secs_f64()
            ),
        };
        self.jobs().fail_running(&failure)
    }
}

/// Answers 401 unless the request carries the stand-in's key (when it has one).
async fn require_key(State(stand_in): State<Arc<IonqStandIn>>, request: Request, next: Next) -> Response {
    if let Some(key) = &stand_in.options.key {
        let given = request.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok());
        if !key.authorizes(given) {
            return IonqError::Unauthorized.into_response();
        }
    }
    next.run(request).await
}
