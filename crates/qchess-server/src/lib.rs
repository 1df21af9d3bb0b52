//! The qchess HTTP server behind `qchess serve`: the shell around the game service
//! ([`qchess_games`]) and the provider stand-ins ([`qchess_standins`]).
//!
//! * The web board (`/`, [`web`]) and its game API under `/api` ([`game_api`]), over the game
//!   service.
//! * The official engine's quantum board REST API under `/quantumboard` ([`board_api`]).
//! * The IonQ v0.4 stand-in under `/v0.4` and the IBM Quantum stand-in (`/identity/token`,
//!   `/api/v1`), as their crate builds them.
//! * `GET /health`.
//!
//! This crate holds what is HTTP's: flags parsed into one validated [`ServerConfig`] split
//! into the parts each crate takes ([`config`]), the composition of every route ([`router`]),
//! the API key and browsers' origins ([`security`]), one place that maps each crate's errors
//! to statuses ([`error`]), connections bounded in time and in number, and
//! graceful shutdown ([`serving`]).
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

pub mod board_api;
pub mod config;
mod connection;
pub mod error;
pub mod game_api;
pub mod security;
pub mod serving;
pub mod web;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{DefaultBodyLimit, Request};
use axum::middleware;
use axum::routing::{get, post};
use axum::{Json, Router};
use qchess_core::Bitboard;
use qchess_core::text::excerpt;
use qchess_games::Games;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use qchess_standins::ibm;
use qchess_standins::ionq::{IonqStandIn, Worker};
use serde_json::json;
use tokio::net::TcpListener;

pub use config::{ConfigError, Limits, ServerConfig, Timeouts};
pub use error::{ApiError, ServeError};
pub use qchess_standins::ServerKey;
pub use serving::ShutdownReport;

/// The quantum board's occupancy before any `init`: the standard start position.
const START_OCCUPANCY: u64 = 0xFFFF_0000_0000_FFFF;

/// Shared state of every request.
#[derive(Debug)]
pub struct AppState {
    /// The configuration.
    pub config: ServerConfig,
    /// The IonQ stand-in.
    pub ionq: Arc<IonqStandIn>,
    /// The quantum board of the board API.
    pub board: Mutex<LocalBoard>,
    /// The game service.
    pub games: Arc<Games>,
    /// The IBM Quantum stand-in.
    pub ibm: ibm::IbmStandIn,
}

/// A bound server, ready to run.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    state: Arc<AppState>,
    worker: Worker,
}

impl Server {
    /// Checks the configuration and binds its address (port 0 picks a free port).
    pub async fn bind(config: ServerConfig) -> Result<Server, ServeError> {
        config.validate()?;
        let listener =
            TcpListener::bind(config.addr).await.map_err(|source| ServeError::Bind { addr: config.addr, source })?;
        let board = LocalBoard::with_options(
            Bitboard(START_OCCUPANCY),
            LocalBoardOptions {
                seed: config.run.seed,
                state_cap: config.limits.max_board_states,
                ..LocalBoardOptions::default()
            },
        );
        let (ionq, worker) = IonqStandIn::new(config.ionq());
        let store = qchess_store::Store::open(&config.games.db).await?;
        let games = Games::new(store, tokio::runtime::Handle::current(), config.games.clone());
        let ibm = match &config.ibm_db {
            None => ibm::IbmStandIn::new(config.ibm()),
            Some(database) => ibm::IbmStandIn::open(config.ibm(), database).await?,
        };
        let state = Arc::new(AppState { ionq, board: Mutex::new(board), games: Arc::new(games), ibm, config });
        Ok(Server { listener, state, worker })
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
        let worker = tokio::spawn(self.worker.run());
        let background = self.state.games.start_background();
        let app = router(Arc::clone(&self.state));
        let report = serving::serve(self.listener, app, Arc::clone(&self.state), shutdown).await;
        // The IBM stand-in's last changes reach its database; a failure was reported as it came.
        let _ = self.state.ibm.kept().await;
        worker.abort();
        drop(background);
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

/// Every route: the server's own (the board and game APIs under the API key, `/health` and the
/// web page open) and the provider stand-ins', with the body limit, the error shape and the
/// origin checks.
pub fn router(state: Arc<AppState>) -> Router {
    let guarded = Router::new()
        .route("/quantumboard/init", post(board_api::init))
        .route("/quantumboard/do_move", post(board_api::do_move))
        .route("/quantumboard/undo_last_move", post(board_api::undo))
        .merge(game_api::routes())
        .route_layer(middleware::from_fn_with_state(Arc::clone(&state), security::require_key));
    let open = Router::new().route("/health", get(health)).merge(web::routes());
    let limit = state.config.limits.max_body_bytes;
    guarded
        .merge(open)
        .with_state(Arc::clone(&state))
        .merge(state.ionq.router())
        .merge(state.ibm.router())
        .merge(qchess_standins::braket::service(state.config.braket()))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(limit))
        .layer(middleware::map_response(error::json_errors))
        .layer(middleware::from_fn_with_state(state, security::cross_origin))
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
