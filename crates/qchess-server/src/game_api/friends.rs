//! The game API's handlers for playing a friend: claiming a seat link, resigning, draw offers,
//! takebacks and a claimed win on time. Each needs the acting seat's token.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::response::Response;
use qchess_core::Color;
use qchess_games::{OfferAction, Reply};
use serde::Deserialize;
use serde_json::Value;

use super::request::{Seat, answered, body};
use crate::AppState;
use crate::error::ApiError;

fn side(text: Option<&str>) -> Result<Option<Color>, ApiError> {
    match text.map(str::trim) {
        None => Ok(None),
        Some("white") => Ok(Some(Color::White)),
        Some("black") => Ok(Some(Color::Black)),
        Some(other) => Err(ApiError::bad_request(format!(
            "side: `{}` is not a side; use white or black",
            qchess_core::text::excerpt(other)
        ))),
    }
}

fn action(text: Option<&str>) -> Result<OfferAction, ApiError> {
    match text.map(str::trim).unwrap_or("offer") {
        "offer" => Ok(OfferAction::Offer),
        "accept" => Ok(OfferAction::Answer(Reply::Accept)),
        "decline" => Ok(OfferAction::Answer(Reply::Decline)),
        other => Err(ApiError::bad_request(format!(
            "action: `{}` is not an action; use offer, accept or decline",
            qchess_core::text::excerpt(other)
        ))),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SideBody {
    side: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OfferBody {
    action: Option<String>,
    plies: Option<usize>,
    side: Option<String>,
}

/// `POST /api/games/{id}/seats/claim`: opens a seat link; `{"seat", "token"}`, the new token
/// for this browser (the link's stops working).
pub async fn claim_seat(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.claim_seat(&id, &caller).await?))
}

/// `POST /api/games/{id}/resign`.
pub async fn resign(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
    request: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let request: SideBody = body(request, "resignation")?;
    Ok(Json(state.games.resign(&id, &caller, side(request.side.as_deref())?).await?))
}

/// `POST /api/games/{id}/draw` `{"action": "offer"|"accept"|"decline"}`.
pub async fn draw(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
    request: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let request: OfferBody = body(request, "draw offer")?;
    if request.plies.is_some() {
        return Err(ApiError::bad_request("plies: a draw offer takes no plies"));
    }
    let (action, side) = (action(request.action.as_deref())?, side(request.side.as_deref())?);
    Ok(Json(state.games.draw(&id, &caller, action, side).await?))
}

/// `POST /api/games/{id}/takeback` `{"action": "offer"|"accept"|"decline", "plies": 1}`: 200
/// when done, 202 while the opponent is asked.
pub async fn takeback(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
    request: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let request: OfferBody = body(request, "takeback request")?;
    let (action, side) = (action(request.action.as_deref())?, side(request.side.as_deref())?);
    Ok(answered(state.games.takeback(&id, &caller, action, request.plies, side).await?))
}

/// `POST /api/games/{id}/flag`: claims a win on time.
pub async fn flag(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
    request: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let request: SideBody = body(request, "claim")?;
    Ok(Json(state.games.claim_time(&id, &caller, side(request.side.as_deref())?).await?))
}
