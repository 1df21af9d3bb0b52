//! The game API's handlers for games and moves: read the request, then hand the work to the
//! game service.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use qchess_core::Square;
use qchess_games::{ListGames, NewGameBody};
use qchess_qasm::export::Format;
use qchess_standins::ionq::jobs::new_job_id;
use serde::Deserialize;
use serde_json::Value;

use super::request::{Seat, answered, base_url, body, query};
use crate::AppState;
use crate::error::ApiError;

/// `GET /api/options`.
pub async fn options(State(state): State<Arc<AppState>>) -> Json<Value> {
    Json(state.games.options())
}

/// `GET /api/games?owner=&finished=&archived=&limit=`: stored games, newest change first.
pub async fn list(
    State(state): State<Arc<AppState>>,
    list: Result<Query<ListGames>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.list(&query(list)?).await?))
}

/// `POST /api/games`: 201 with the new game's state, its id, and its seats' tokens and links.
pub async fn create(
    State(state): State<Arc<AppState>>,
    Seat(caller): Seat,
    headers: HeaderMap,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: NewGameBody = body(request, "new game")?;
    let base = base_url(state.config.public_url.as_deref(), &headers);
    // Game ids are UUIDs, as provider job ids are.
    let view = state.games.create(new_job_id(), request, &caller, &base).await?;
    Ok((StatusCode::CREATED, Json(view)).into_response())
}

/// `GET /api/games/{id}`.
pub async fn state(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.state(&id, &caller).await?))
}

/// `DELETE /api/games/{id}`.
pub async fn delete(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.delete(&id, &caller).await?))
}

/// `GET /api/games/{id}/moves`.
pub async fn legal_moves(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
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
    Seat(caller): Seat,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: PlayBody = body(request, "move")?;
    Ok(answered(state.games.play(&id, &caller, request.mv, request.ply).await?))
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
    Seat(caller): Seat,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: ComputerBody = body(request, "computer request")?;
    Ok(answered(state.games.computer(&id, &caller, request.player.as_deref()).await?))
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
    Seat(caller): Seat,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: UndoBody = body(request, "undo request")?;
    Ok(answered(state.games.undo(&id, &caller, request.plies).await?))
}

/// `POST /api/games/{id}/cancel`: the waiting move's job is canceled and the move taken back.
pub async fn cancel(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.cancel(&id, &caller).await?))
}

/// `GET /api/games/{id}/squares/{square}`.
pub async fn square(
    State(state): State<Arc<AppState>>,
    Path((id, square)): Path<(String, String)>,
    Seat(caller): Seat,
) -> Result<Json<Value>, ApiError> {
    let square: Square =
        square.parse().map_err(|_| ApiError::bad_request(format!("`{square}` is not a square; name one like e4")))?;
    Ok(Json(state.games.square(&id, &caller, square).await?))
}

/// `GET /api/games/{id}/record`: `{"record": "..."}`.
pub async fn record(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
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
    Seat(caller): Seat,
    circuit: Result<Query<CircuitQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let format = match query(circuit)?.format.as_deref().unwrap_or("qasm2") {
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
