//! The qchess HTTP server behind `qchess serve`.
//!
//! * The IonQ v0.4 provider API under `/v0.4` (jobs create / get / list / delete / cancel,
//!   results probabilities, backends, whoami), compatible with the unmodified `cirq-ionq` and
//!   `qiskit-ionq` clients: statuses `submitted|ready|started|completed|failed|canceled`, the
//!   relative results URL, `shots` as a number or string, `target(s)` and `control(s)`, echoed
//!   metadata, unknown fields ignored, errors as `{"statusCode", "error", "message"}`, and jobs
//!   moved along by a worker rather than in the request. The `simulator` backend with the
//!   `ideal` noise model answers exact probabilities; `qpu.*` backends and noisy models answer
//!   shot frequencies with the configured [`NoiseOptions`].
//! * The official engine's quantum board REST API under `/quantumboard` ([`board_api`]).
//! * `GET /health`.
//!
//! Requests are bounded ([`Limits`]: body size, qubits, shots, gates, stored jobs, connections),
//! and so is time ([`Timeouts`]: request headers and bodies, idle connections, each job, unread
//! results); an optional API key guards everything but `/health` and `/v0.4/backends`, and
//! [`Server::run`] stops gracefully ([`serving`]).
//!
//! ```
//! use std::io::{Read, Write};
//!
//! use qchess_server::{Server, ServerConfig};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = tokio::runtime::Runtime::new()?;
//! // Port 0: a free port, as `qchess serve --port 0` would take.
//! let server = runtime.block_on(Server::bind(ServerConfig::new("127.0.0.1:0".parse()?)))?;
//! let addr = server.local_addr();
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let running = runtime.spawn(server.run(async move {
//!     let _ = stopped.await;
//! }));
//!
//! // Any HTTP client will do; this one is a bare socket.
//! let mut socket = std::net::TcpStream::connect(addr)?;
//! socket.write_all(b"GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")?;
//! let mut answer = String::new();
//! socket.read_to_string(&mut answer)?;
//! assert!(answer.starts_with("HTTP/1.1 200"));
//!
//! // A graceful stop, with what happened to queued jobs.
//! let _ = stop.send(());
//! let report = runtime.block_on(running)??;
//! assert_eq!(report.unstarted_failed, 0);
//! # Ok(()) }
//! ```
//!
//! Depends on `qchess-core`, `qchess-circuit`, `qchess-sim` (the simulators), `qchess-qasm`
//! (IonQ JSON), `qchess-remote` (the API's JSON shapes) and `qchess-store` (the web board's games).

pub mod board_api;
pub mod config;
mod connection;
pub mod defect;
pub mod error;
pub mod games;
pub mod ibm;
pub mod jobs;
pub mod provider;
pub mod results_body;
pub mod security;
pub mod serving;
pub mod simulate;
mod time;
pub mod web;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use qchess_core::Bitboard;
use qchess_core::text::excerpt;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub use config::{ConfigError, Limits, NoiseOptions, ServerConfig, ServerKey, Timeouts};
pub use connection::BodyTimeout;
pub use error::{ApiError, ServeError};
pub use serving::ShutdownReport;

use jobs::JobStore;

/// The quantum board's occupancy before any `init`: the standard start position.
const START_OCCUPANCY: u64 = 0xFFFF_0000_0000_FFFF;

/// Shared state of every request.
#[derive(Debug)]
pub struct AppState {
    /// The configuration.
    pub config: ServerConfig,
    /// Provider jobs.
    pub jobs: Mutex<JobStore>,
    /// The quantum board of the board API.
    pub board: Mutex<LocalBoard>,
    /// Ids of submitted jobs, for the worker.
    pub queue: mpsc::UnboundedSender<String>,
    /// When the server started.
    pub started: SystemTime,
    /// Set once the server is shutting down: submissions are refused.
    pub shutting_down: AtomicBool,
    /// Set when the shutdown grace period ran out: running jobs stop.
    pub stop_jobs: AtomicBool,
    /// The games of the game API.
    pub games: games::Games,
}

impl AppState {
    /// A fresh job id in UUID v4 form.
    pub fn new_id(&self) -> String {
        let bits: u128 = rand::random::<u128>() & !(0xF << 76) & !(0x3 << 62) | (0x4 << 76) | (0x2 << 62);
        let hex = format!("{bits:032x}");
        format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
    }
}

/// A bound server, ready to run.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    state: Arc<AppState>,
    queue: mpsc::UnboundedReceiver<String>,
}

impl Server {
    /// Checks the configuration and binds its address (port 0 picks a free port).
    pub async fn bind(config: ServerConfig) -> Result<Server, ServeError> {
        config.validate()?;
        let listener =
            TcpListener::bind(config.addr).await.map_err(|source| ServeError::Bind { addr: config.addr, source })?;
        let (sender, queue) = mpsc::unbounded_channel();
        let board = LocalBoard::with_options(
            Bitboard(START_OCCUPANCY),
            LocalBoardOptions {
                seed: config.seed,
                state_cap: config.limits.max_board_states,
                ..LocalBoardOptions::default()
            },
        );
        let state = Arc::new(AppState {
            jobs: Mutex::new(JobStore::new(
                config.limits.max_jobs,
                config.limits.max_result_entries,
                config.timeouts.result_ttl,
            )),
            board: Mutex::new(board),
            queue: sender,
            started: SystemTime::now(),
            shutting_down: AtomicBool::new(false),
            stop_jobs: AtomicBool::new(false),
            games: games::Games::new(
                qchess_store::Store::open(&config.games.db).await?,
                tokio::runtime::Handle::current(),
                config.games.clone(),
            ),
            config,
        });
        Ok(Server { listener, state, queue })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr().unwrap_or(self.state.config.addr)
    }

    /// The shared state (for inspection in tests).
    pub fn state(&self) -> Arc<AppState> {
        Arc::clone(&self.state)
    }

    /// Serves until `shutdown` resolves, then stops accepting connections, fails the jobs
    /// that have not started, and lets running jobs and requests in flight finish within the
    /// shutdown grace period (see [`serving`]); says what became of them.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<ShutdownReport, ServeError> {
        let worker = tokio::spawn(provider::run_worker(Arc::clone(&self.state), self.queue));
        let recovery = tokio::spawn(games::recovery::run(Arc::clone(&self.state)));
        let hub = tokio::spawn(games::hub::run(Arc::clone(&self.state)));
        let referee = tokio::spawn(games::referee::run(Arc::clone(&self.state)));
        let app = router(Arc::clone(&self.state));
        let report = serving::serve(self.listener, app, Arc::clone(&self.state), shutdown).await;
        worker.abort();
        recovery.abort();
        hub.abort();
        referee.abort();
        Ok(report)
    }
}

/// A future that resolves on Ctrl-C or SIGTERM. The handlers are installed when this is
/// called (inside a tokio runtime), so a signal that arrives before the future is first polled
/// still counts: call it before announcing the address.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate()).ok();
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        async move {
            // A handler that could not be installed never fires.
            let term = async {
                match terminate.as_mut() {
                    Some(signal) => drop(signal.recv().await),
                    None => std::future::pending::<()>().await,
                }
            };
            let int = async {
                match interrupt.as_mut() {
                    Some(signal) => drop(signal.recv().await),
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = term => {}
                () = int => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Every route, with the body limit and the API key check.
pub fn router(state: Arc<AppState>) -> Router {
    let guarded = Router::new()
        .route("/v0.4/jobs", post(provider::create_job).get(provider::list_jobs))
        .route("/v0.4/jobs/{id}", get(provider::get_job).delete(provider::delete_job))
        .route("/v0.4/jobs/{id}/results/probabilities", get(provider::get_results))
        .route("/v0.4/jobs/{id}/results/probabilities/aggregated", get(provider::get_results))
        .route("/v0.4/jobs/{id}/status/cancel", put(provider::cancel_job))
        .route("/v0.4/whoami", get(provider::whoami))
        .route("/quantumboard/init", post(board_api::init))
        .route("/quantumboard/do_move", post(board_api::do_move))
        .route("/quantumboard/undo_last_move", post(board_api::undo))
        .merge(games::routes())
        .route_layer(middleware::from_fn_with_state(Arc::clone(&state), require_key));
    let open = Router::new()
        .route("/health", get(health))
        .route("/v0.4/backends", get(provider::list_backends))
        .route("/v0.4/backends/{backend}", get(provider::get_backend))
        .merge(web::routes())
        .merge(ibm::routes(&state));
    let limit = state.config.limits.max_body_bytes;
    guarded
        .merge(open)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limit))
        .layer(middleware::map_response(error::json_errors))
        .layer(middleware::from_fn_with_state(Arc::clone(&state), security::cross_origin))
        .with_state(state)
}

async fn health() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok" }))
}

async fn not_found(request: Request) -> ApiError {
    ApiError::not_found(format!("no route for {} {}", request.method(), excerpt(request.uri().path())))
}

async fn method_not_allowed(request: Request) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        format!("{} is not allowed on {}", request.method(), excerpt(request.uri().path())),
    )
}

/// Answers 401 unless the request carries the server's key as `Authorization: apiKey KEY`.
async fn require_key(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    if let Some(key) = &state.config.api_key {
        let given = request
            .headers()
            .get(AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("apiKey ").or_else(|| v.strip_prefix("Bearer ")))
            .map(str::trim);
        if !given.is_some_and(|given| key.matches(given)) {
            return ApiError::unauthorized().into_response();
        }
    }
    next.run(request).await
}
