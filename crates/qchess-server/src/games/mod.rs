//! The game API behind the web board: many games at once, each with its own state.
//!
//! Routes (all under the server's API key, body limit and error shape; see `/openapi.json`):
//!
//! * `GET /api/options`: the rule sets, players and backends a new game may choose.
//! * `POST /api/games`: a new game (`rules`, `backend`, `seed`, `white`, `black`, and a start
//!   `fen` or a `record` to load); `GET` / `DELETE /api/games/{id}`: its state / drop it.
//! * `GET /api/games/{id}/moves`: the legal moves; `POST` with `{"move": "b1^a3c3"}` plays one
//!   in official notation (`.m0` / `.m1` force the outcome); under the checkmate rules
//!   `mode:classical` / `mode:quantum` switch quantum mode (state `quantum_mode`) without a turn.
//! * `POST /api/games/{id}/computer`: the computer plays for the side to move (`random`,
//!   `greedy` or the search at `ai:K` from `qchess-search`; external engines are never started).
//! * `POST /api/games/{id}/undo`: takes back `plies` moves (default 1).
//! * `GET /api/games/{id}/squares/{square}`: analysis of a square: its entanglement and Bell
//!   correlations with every other square, and how every square would look if it were measured
//!   occupied or empty.
//! * `GET /api/games/{id}/record`: the game record; `GET /api/games/{id}/circuit?format=qasm2|qasm3`:
//!   the game's accumulated circuit with its sidecar.
//! * `GET /api/games/{id}/evaluation`, `/hint`, `/review`: the coach ([`analysis`]).
//!
//! Each game lives on a thread of its own ([`store`]): a game's board need not be `Send`, a slow
//! or failing game never holds up another, and a panic while handling one request answers 500
//! and leaves every game, that one included, as it was. Games unused for
//! [`GamesConfig::idle_timeout`] are dropped.

mod analysis;
mod choices;
mod handlers;
pub mod session;
pub mod store;
mod view;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use qchess_remote::RemoteBoardConfig;

use crate::AppState;
use crate::config::ConfigError;

pub use session::NewGame;
pub use store::GameStore;

/// The OpenAPI description of the game API, served at `/openapi.json`.
pub const OPENAPI: &str = include_str!("openapi.json");

/// A remote provider the server's games may run on, besides the exact local simulator.
#[derive(Debug, Clone)]
pub struct RemoteGameBackend {
    /// How the board's backend chooser names it (`http://127.0.0.1:8080 (simulator, ideal)`).
    pub label: String,
    /// The provider, shots and mitigation; the seed is set per game.
    pub config: RemoteBoardConfig,
}

/// How many games the server keeps and for how long, and where they may run.
#[derive(Debug, Clone)]
pub struct GamesConfig {
    /// Games kept at once; a new game beyond it is answered 429.
    pub max_games: usize,
    /// A game not asked about for this long is dropped.
    pub idle_timeout: Duration,
    /// The remote provider games may choose as `"backend": "remote"`.
    pub remote: Option<RemoteGameBackend>,
    /// How long a computer player (`ai:K`) may think about one move.
    pub computer_movetime: Duration,
}

impl Default for GamesConfig {
    fn default() -> GamesConfig {
        GamesConfig {
            max_games: 1000,
            idle_timeout: Duration::from_secs(30 * 60),
            remote: None,
            computer_movetime: Duration::from_secs(2),
        }
    }
}

impl GamesConfig {
    /// Checks the ranges of the settings.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let games = self.max_games as u64;
        if !(1..=100_000).contains(&games) {
            return Err(ConfigError::BadLimit { what: "--max-games", min: 1, max: 100_000, value: games });
        }
        let seconds = self.idle_timeout.as_secs();
        if !(1..=7 * 86_400).contains(&seconds) {
            return Err(ConfigError::BadLimit { what: "--game-idle-secs", min: 1, max: 7 * 86_400, value: seconds });
        }
        let millis = u64::try_from(self.computer_movetime.as_millis()).unwrap_or(u64::MAX);
        if !(10..=600_000).contains(&millis) {
            return Err(ConfigError::BadLimit { what: "--game-movetime-ms", min: 10, max: 600_000, value: millis });
        }
        Ok(())
    }
}

/// The game API's routes; the caller adds the API key check and the body limit.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/api/options", get(handlers::options))
        .route("/api/games", post(handlers::create).get(handlers::list))
        .route("/api/games/{id}", get(handlers::state).delete(handlers::delete))
        .route("/api/games/{id}/moves", get(handlers::legal_moves).post(handlers::play))
        .route("/api/games/{id}/computer", post(handlers::computer))
        .route("/api/games/{id}/undo", post(handlers::undo))
        .route("/api/games/{id}/squares/{square}", get(handlers::square))
        .route("/api/games/{id}/record", get(handlers::record))
        .route("/api/games/{id}/circuit", get(handlers::circuit))
        .merge(analysis::routes())
}
