//! The game API's HTTP handlers: parse and check the request, then hand the work to the game's
//! thread.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use qchess_core::Square;
use qchess_qasm::export::Format;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::choices::{parse_player, players, rule_description};
use qchess_store::ListFilter;

use super::seats::Caller;
use super::session::{NewGame, NewGameBody};
use crate::AppState;
use crate::error::ApiError;
use crate::provider::{body_bytes, json_body};

/// A JSON body read as `T`; an empty body reads as `{}`.
pub(super) fn body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>, what: &str) -> Result<T, ApiError> {
    let bytes = body_bytes(body)?;
    let value = if bytes.iter().all(u8::is_ascii_whitespace) { json!({}) } else { json_body(Ok(bytes))? };
    serde_json::from_value(value)
        .map_err(|e| ApiError::bad_request(format!("bad {what}: {}", qchess_core::text::excerpt_line(&e.to_string()))))
}

/// `GET /api/options`.
pub async fn options(State(state): State<Arc<AppState>>) -> Json<Value> {
    let games = state.games.config();
    let mut backends = vec![json!({ "id": "local", "label": "local (exact simulator)", "exact": true })];
    if let Some(remote) = &games.remote {
        backends.push(json!({ "id": "remote", "label": remote.label, "exact": false }));
    }
    let rules: Vec<Value> = qchess_engine::RuleSet::ALL
        .iter()
        .map(|&r| json!({ "id": r.name(), "description": rule_description(r) }))
        .collect();
    let players: Vec<Value> =
        players().into_iter().map(|(id, description)| json!({ "id": id, "description": description })).collect();
    Json(json!({
        "rules": rules,
        "players": players,
        "backends": backends,
        "max_games": games.max_games,
        "idle_timeout_secs": games.idle_timeout.as_secs(),
        "store": state.games.store().dialect() == qchess_store::Dialect::Postgres,
        "computer_movetime_ms": games.computer_movetime.as_millis() as u64,
    }))
}

/// The query of `GET /api/games`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    owner: Option<String>,
    finished: Option<bool>,
    archived: Option<bool>,
    limit: Option<u32>,
}

/// `GET /api/games?owner=&finished=&archived=&limit=`: stored games, newest change first.
pub async fn list(
    State(state): State<Arc<AppState>>,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))?;
    let owner = query.owner.as_deref().map(super::session::parse_owner).transpose()?;
    let filter = ListFilter {
        // Private games are listed only to their owner.
        public_only: owner.is_none(),
        owner,
        finished: query.finished.unwrap_or(true),
        archived: query.archived.unwrap_or(false),
        limit: Some(query.limit.unwrap_or(100).clamp(1, 1000)),
    };
    Ok(Json(state.games.list(&filter).await?))
}

/// `POST /api/games`: 201 with the new game's state, its id, and its seats' tokens and links.
pub async fn create(
    State(state): State<Arc<AppState>>,
    caller: Caller,
    headers: axum::http::HeaderMap,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: NewGameBody = body(request, "new game")?;
    let spec = NewGame::from_body(request, state.games.config().remote.is_some())?;
    let base = super::friends::base_url(state.games.config(), &headers);
    let (status, view) = state.games.create(state.new_id(), spec, &caller, &base).await?;
    Ok((status, Json(view)).into_response())
}

/// `GET /api/games/{id}`.
pub async fn state(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.state(&id, &caller).await?))
}

/// `DELETE /api/games/{id}`.
pub async fn delete(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.delete(&id, &caller).await?))
}

/// `GET /api/games/{id}/moves`.
pub async fn legal_moves(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.legal_moves(&id, &caller).await?))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayBody {
    #[serde(rename = "move")]
    mv: String,
    ply: Option<u32>,
}

/// `POST /api/games/{id}/moves` `{"move": "b1^a3c3", "ply": 0}`: 200 with the state, or 202
/// while the move waits for its provider job.
pub async fn play(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: PlayBody = body(request, "move")?;
    let (status, view) = state.games.play(&id, &caller, request.mv, request.ply).await?;
    Ok((status, Json(view)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ComputerBody {
    player: Option<String>,
}

/// `POST /api/games/{id}/computer` `{"player": "random"}` (optional).
pub async fn computer(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: ComputerBody = body(request, "computer request")?;
    let player = request
        .player
        .map(|p| parse_player(&p).map_err(|e| ApiError::bad_request(format!("player: {e}"))))
        .transpose()?;
    let (status, view) = state.games.computer(&id, &caller, player).await?;
    Ok((status, Json(view)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UndoBody {
    plies: Option<usize>,
}

/// `POST /api/games/{id}/undo` `{"plies": 1}` (optional): a takeback request; 200 when done
/// at once (the opponent is the computer), 202 while the opponent is asked.
pub async fn undo(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: UndoBody = body(request, "undo request")?;
    let (status, view) = state.games.undo(&id, &caller, request.plies).await?;
    Ok((status, Json(view)).into_response())
}

/// `POST /api/games/{id}/cancel`: the waiting move's job is canceled and the move taken back.
pub async fn cancel(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.cancel(&id, &caller).await?))
}

/// `GET /api/games/{id}/squares/{square}`.
pub async fn square(
    State(state): State<Arc<AppState>>,
    Path((id, square)): Path<(String, String)>,
    caller: Caller,
) -> Result<Json<Value>, ApiError> {
    let square: Square =
        square.parse().map_err(|_| ApiError::bad_request(format!("`{square}` is not a square; name one like e4")))?;
    Ok(Json(state.games.square(&id, &caller, square).await?))
}

/// `GET /api/games/{id}/record`: `{"record": "..."}`.
pub async fn record(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.record(&id, &caller).await?))
}

/// The query of `GET /api/games/{id}/circuit`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CircuitQuery {
    format: Option<String>,
}

/// `GET /api/games/{id}/circuit?format=qasm2|qasm3`.
pub async fn circuit(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
    query: Result<Query<CircuitQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))?;
    let format = match query.format.as_deref().unwrap_or("qasm2") {
        "qasm2" => Format::Qasm2,
        "qasm3" => Format::Qasm3,
        other => {
            return Err(ApiError::bad_request(format!(
                "format: `{other}` is not a circuit format; use qasm2 or qasm3"
            )));
        }
    };
    Ok(Json(state.games.circuit(&id, &caller, format).await?))
}
