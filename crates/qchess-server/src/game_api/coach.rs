//! The coach's routes ([`qchess_games::coach`]): `GET /api/games/{id}/evaluation`, `/hint` and
//! `/review`, each with `movetime` (milliseconds per position) or `depth` (plies) in the query.
//! A request whose client goes away is dropped, and its search stops with it. While a game
//! between two people that was not made casual runs, each answers 403 to everyone (fair play:
//! `GamesError::CoachClosed`).

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use qchess_games::coach::SearchLimits;
use serde::Deserialize;
use serde_json::Value;

use super::request::{Seat, query};
use crate::AppState;
use crate::error::ApiError;

/// How long the coach thinks per position.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitQuery {
    movetime: Option<u64>,
    depth: Option<u32>,
}

/// The search limits a query asks for.
fn limits(limits: Result<Query<LimitQuery>, QueryRejection>) -> Result<SearchLimits, ApiError> {
    let limits = query(limits)?;
    Ok(qchess_games::coach::limits(limits.movetime, limits.depth)?)
}

/// `GET /api/games/{id}/evaluation`.
pub async fn evaluation(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
    asked: Result<Query<LimitQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.evaluation(&id, &caller, limits(asked)?).await?))
}

/// `GET /api/games/{id}/hint`.
pub async fn hint(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
    asked: Result<Query<LimitQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.hint(&id, &caller, limits(asked)?).await?))
}

/// `GET /api/games/{id}/review`.
pub async fn review(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
    asked: Result<Query<LimitQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(state.games.review(&id, &caller, limits(asked)?).await?))
}
