//! The game API behind the web board: many games at once, each kept in the game store
//! ([`qchess_store`]), so that games outlive the server and several servers share them.
//!
//! Routes (all under the server's API key, body limit and error shape; see `/openapi.json`):
//!
//! * `GET /api/options`: the rule sets, players and backends a new game may choose.
//! * `POST /api/games`: a new game (`rules`, `backend`, `seed`, `white`, `black`, `owner`, and
//!   a start `fen` or a `record` to load); `GET /api/games?owner=&finished=&archived=&limit=`:
//!   stored games, newest first; `GET` / `DELETE /api/games/{id}`: its state / drop it.
//! * `GET /api/games/{id}/moves`: the legal moves; `POST` with `{"move": "b1^a3c3", "ply": 0}`
//!   plays one in official notation (`.m0` / `.m1` force the outcome; `ply`, when given, must
//!   be the game's, else 409 with the current state); under the checkmate rules
//!   `mode:classical` / `mode:quantum` switch quantum mode (state `quantum_mode`) without a turn.
//! * `POST /api/games/{id}/computer`: the computer plays for the side to move (`random`,
//!   `greedy` or the search at `ai:K` from `qchess-search`; external engines are never started).
//! * `POST /api/games/{id}/undo`: takes back `plies` moves (default 1).
//! * `POST /api/games/{id}/cancel`: cancels the move waiting for a provider job (the job is
//!   canceled at the provider and the move taken back).
//! * `GET /api/games/{id}/squares/{square}`: analysis of a square: its entanglement and Bell
//!   correlations with every other square, and how every square would look if it were measured
//!   occupied or empty.
//! * `GET /api/games/{id}/record`: the game record; `GET /api/games/{id}/circuit?format=qasm2|qasm3`:
//!   the game's accumulated circuit with its sidecar.
//! * `GET /api/games/{id}/evaluation`, `/hint`, `/review`: the coach (`games/analysis.rs`), for
//!   anyone who may watch the game.
//!
//! Every change is made against the game's revision in the store: of two changes sent at once
//! (to one server or to two), one wins and the other is answered 409 with the current state.
//! A move on a remote provider is answered 202 when its job takes longer than
//! [`GamesConfig::answer_wait`]: the state then has `"waiting": true` and `pending` (the move,
//! the job, its status and place in the queue), and the move finishes in the background
//! ([`service`]). Loaded games live on threads of their own; games unused for
//! [`GamesConfig::idle_timeout`] are unloaded and archived, never deleted.

mod acting;
mod analysis;
mod choices;
mod errors;
pub mod events;
mod friends;
mod handlers;
pub mod hub;
pub mod limits;
mod live;
mod new_game;
pub mod recovery;
pub mod referee;
pub mod seats;
pub mod service;
pub mod session;
mod turns;
mod view;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use qchess_remote::RemoteBoardConfig;

use crate::AppState;
use crate::config::ConfigError;

pub use acting::OfferAction;
pub use limits::{GameRates, Rate};
pub use service::Games;
pub use session::NewGame;

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

/// Where games are kept, how many are loaded at once and for how long, and where they may run.
#[derive(Debug, Clone)]
pub struct GamesConfig {
    /// The game store (`--db`); in memory by default, so games last as long as the server.
    pub db: qchess_store::Location,
    /// Games loaded at once; a new game beyond it is answered 429.
    pub max_games: usize,
    /// A game not asked about for this long is unloaded and archived (kept in the store).
    pub idle_timeout: Duration,
    /// How long the holder of a waiting move's lease has to renew it; another server takes the
    /// move over once it runs out.
    pub lease: Duration,
    /// How long a move on a remote provider is waited for before the answer is 202.
    pub answer_wait: Duration,
    /// The remote provider games may choose as `"backend": "remote"`.
    pub remote: Option<RemoteGameBackend>,
    /// How long a computer player (`ai:K`) may think about one move.
    pub computer_movetime: Duration,
    /// Rate limits of changes (per seat and per address) and of new games (per address).
    pub rates: GameRates,
    /// The address players reach the server at, for seat links (`https://chess.example.org`);
    /// else the `Host` the game was created through, over http.
    pub public_url: Option<String>,
    /// How long an event stream lasts before the server ends it (the client reconnects).
    pub events_lifetime: Duration,
    /// Origins whose pages may call the game API from a browser (CORS); none by default.
    pub cors_origins: Vec<String>,
}

impl Default for GamesConfig {
    fn default() -> GamesConfig {
        GamesConfig {
            db: qchess_store::Location::Memory,
            max_games: 1000,
            idle_timeout: Duration::from_secs(30 * 60),
            lease: Duration::from_secs(30),
            answer_wait: Duration::from_secs(5),
            remote: None,
            computer_movetime: Duration::from_secs(2),
            rates: GameRates::default(),
            public_url: None,
            events_lifetime: Duration::from_secs(600),
            cors_origins: Vec::new(),
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
        let lease = u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX);
        if !(100..=3_600_000).contains(&lease) {
            return Err(ConfigError::BadLimit { what: "--game-lease-ms", min: 100, max: 3_600_000, value: lease });
        }
        let wait = u64::try_from(self.answer_wait.as_millis()).unwrap_or(u64::MAX);
        if wait > 600_000 {
            return Err(ConfigError::BadLimit { what: "--game-answer-wait-ms", min: 0, max: 600_000, value: wait });
        }
        let millis = u64::try_from(self.computer_movetime.as_millis()).unwrap_or(u64::MAX);
        if !(10..=600_000).contains(&millis) {
            return Err(ConfigError::BadLimit { what: "--game-movetime-ms", min: 10, max: 600_000, value: millis });
        }
        let lifetime = self.events_lifetime.as_secs();
        if !(1..=86_400).contains(&lifetime) {
            return Err(ConfigError::BadLimit { what: "--game-events-secs", min: 1, max: 86_400, value: lifetime });
        }
        limits::validate(&self.rates)?;
        let is_origin = |url: &str| {
            let rest = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"));
            rest.is_some_and(|host| !host.is_empty() && !host.contains(['/', ' ', '#', '?']))
        };
        if let Some(url) = self.public_url.as_deref().filter(|url| !is_origin(url.trim_end_matches('/'))) {
            return Err(ConfigError::BadUrl { what: "--public-url", value: url.to_owned() });
        }
        if let Some(origin) = self.cors_origins.iter().find(|origin| !is_origin(origin)) {
            return Err(ConfigError::BadUrl { what: "--cors-origin", value: origin.clone() });
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
        .route("/api/games/{id}/cancel", post(handlers::cancel))
        .route("/api/games/{id}/squares/{square}", get(handlers::square))
        .route("/api/games/{id}/record", get(handlers::record))
        .route("/api/games/{id}/circuit", get(handlers::circuit))
        .route("/api/games/{id}/events", get(events::events))
        .route("/api/games/{id}/seats/claim", post(friends::claim_seat))
        .route("/api/games/{id}/resign", post(friends::resign))
        .route("/api/games/{id}/draw", post(friends::draw))
        .route("/api/games/{id}/takeback", post(friends::takeback))
        .route("/api/games/{id}/flag", post(friends::flag))
        .merge(analysis::routes())
}
