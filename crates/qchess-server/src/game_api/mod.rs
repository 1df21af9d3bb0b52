//! The game API behind the web board: HTTP over the game service ([`qchess_games`]). Each
//! handler reads its request, calls [`qchess_games::Games`], and answers its state as JSON
//! (201 for a new game, 202 while a change is pending) or its error as [`crate::ApiError`].
//!
//! Routes (all under the server's API key, body limit and error shape; see `/openapi.json`):
//!
//! * `GET /api/options`: the rule sets, players and backends a new game may choose.
//! * `POST /api/games`: a new game (`rules`, `backend`, `seed`, `white`, `black`, `owner`,
//!   `clock`, `public`, and a start `fen` or a `record` to load); `GET
//!   /api/games?owner=&finished=&archived=&limit=`: stored games, newest first; `GET` / `DELETE
//!   /api/games/{id}`: its state / drop it.
//! * `GET /api/games/{id}/moves`: the legal moves; `POST` with `{"move": "b1^a3c3", "ply": 0}`
//!   plays one in official notation (`.m0` / `.m1` force the outcome; `ply`, when given, must
//!   be the game's, else 409 with the current state); under the checkmate rules
//!   `mode:classical` / `mode:quantum` switch quantum mode (state `quantum_mode`) without a turn.
//!   A move on a remote provider is answered 202 when its job takes longer than the answer
//!   wait: the state then has `"waiting": true` and `pending`.
//! * `POST /api/games/{id}/computer`: the computer plays for the side to move (`random`,
//!   `greedy` or the search at `ai:K`; external engines are never started).
//! * `POST /api/games/{id}/undo`: takes back `plies` moves (default 1).
//! * `POST /api/games/{id}/cancel`: cancels the move waiting for a provider job.
//! * `GET /api/games/{id}/squares/{square}`: analysis of a square.
//! * `GET /api/games/{id}/record`: the game record; `GET /api/games/{id}/circuit?format=qasm2|qasm3`:
//!   the game's accumulated circuit with its sidecar.
//! * `GET /api/games/{id}/events`: the game's changes as Server-Sent Events ([`events`]).
//! * `POST /api/games/{id}/seats/claim`, `/resign`, `/draw`, `/takeback`, `/flag`: playing a
//!   friend ([`friends`]).
//! * `GET /api/games/{id}/evaluation`, `/hint`, `/review`: the coach ([`coach`]).
//!
//! Seat tokens travel in `X-Qchess-Seat: TOKEN`, or `Authorization: Bearer TOKEN` when the
//! server has no API key (the header then carries the key) ([`request::Seat`]).

pub mod coach;
pub mod events;
pub mod friends;
pub mod handlers;
pub mod request;

use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};

use crate::AppState;

/// The OpenAPI description of the game API, served at `/openapi.json`.
pub const OPENAPI: &str = include_str!("openapi.json");

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
        .route("/api/games/{id}/evaluation", get(coach::evaluation))
        .route("/api/games/{id}/hint", get(coach::hint))
        .route("/api/games/{id}/review", get(coach::review))
}
