//! What the game API's handlers read from a request: the caller's seat token and address, a
//! JSON body, the address players reach the server at; and how a change's answer is sent.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{ConnectInfo, FromRequestParts, Query};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use qchess_games::{Answer, Caller};
use qchess_standins::body::{read_body, read_json};
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::AppState;
use crate::error::ApiError;

/// The header that carries a seat token beside an API key.
pub const SEAT_HEADER: &str = "x-qchess-seat";

/// Who sent a request, as the game service knows callers: the seat token from `X-Qchess-Seat`
/// (or `Authorization: Bearer` when the server has no API key, which that header then
/// carries) and the peer's address (rate limits count by it).
#[derive(Debug, Clone)]
pub struct Seat(pub Caller);

impl FromRequestParts<Arc<AppState>> for Seat {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<AppState>) -> Result<Seat, Self::Rejection> {
        let header = |name: &str| parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
        let bearer = || {
            header("authorization")
                .and_then(|v| v.strip_prefix("Bearer ").or_else(|| v.strip_prefix("bearer ")))
                .map(str::trim)
        };
        let token = match header(SEAT_HEADER) {
            Some(token) => Some(token),
            // With an API key, `Authorization` carries the key.
            None if state.config.api_key.is_none() => bearer(),
            None => None,
        };
        let address = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|info| info.0.ip());
        Ok(Seat(Caller { token: token.filter(|t| !t.is_empty()).map(str::to_owned), address }))
    }
}

/// A JSON body read as `T`; an empty body reads as `{}`.
pub fn body<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>, what: &str) -> Result<T, ApiError> {
    let bytes = read_body(body)?;
    let value = if bytes.iter().all(u8::is_ascii_whitespace) { json!({}) } else { read_json(Ok(bytes))? };
    serde_json::from_value(value)
        .map_err(|e| ApiError::bad_request(format!("bad {what}: {}", qchess_core::text::excerpt_line(&e.to_string()))))
}

/// A query read as `T`.
pub fn query<T>(query: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    query.map(|Query(query)| query).map_err(|e| ApiError::bad_request(format!("bad query: {}", e.body_text())))
}

/// Where seat links point: `--public-url`, else the `Host` the request came to, over http.
pub fn base_url(public_url: Option<&str>, headers: &HeaderMap) -> String {
    if let Some(url) = public_url {
        return url.trim_end_matches('/').to_owned();
    }
    let host = headers.get("host").and_then(|v| v.to_str().ok()).unwrap_or("");
    // Only a host name or address with a port: anything else is not echoed into links.
    let plain = !host.is_empty()
        && host.len() <= 255
        && host.bytes().all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b));
    format!("http://{}", if plain { host } else { "localhost" })
}

/// A change's answer: 200 when done, 202 while it is pending.
pub fn answered(answer: Answer) -> Response {
    match answer {
        Answer::Done(state) => (StatusCode::OK, Json(state)).into_response(),
        Answer::Pending(state) => (StatusCode::ACCEPTED, Json(state)).into_response(),
    }
}
