//! Who may call: the API key, and browsers of other origins.
//!
//! With an API key ([`crate::ServerConfig::api_key`]), the board and game APIs need
//! `Authorization: apiKey KEY` ([`require_key`]); the provider stand-ins check the same key
//! themselves. CORS is closed by default: no answer carries
//! `Access-Control-Allow-Origin`, preflights are refused, and a request a browser sends from
//! another site's page (its `Origin` names another host) is refused 403 before it reaches a
//! handler, so no page elsewhere can create games or act with a visitor's browser. Origins
//! named with `--cors-origin` may call the API from their pages. Requests without `Origin`
//! (programs, same-site navigation) pass. Every answer says `nosniff` and sends no referrer.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::error::ApiError;

/// The request headers a page of an allowed origin may send.
const ALLOWED_HEADERS: &str = "authorization, content-type, last-event-id, x-qchess-seat";

/// The host (and port) of an origin or `Host` value, lower-cased, without the scheme.
fn host_of(text: &str) -> String {
    let rest = text.split_once("://").map_or(text, |(_, rest)| rest);
    rest.trim_end_matches('/').to_ascii_lowercase()
}

/// Whether `origin` is the server's own (its host is the request's `Host`).
fn same_origin(origin: &str, host: Option<&str>) -> bool {
    host.is_some_and(|host| host_of(origin) == host_of(host))
}

/// See the [module docs](self).
pub async fn cross_origin(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    let origin = request.headers().get(header::ORIGIN).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let host = request.headers().get(header::HOST).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let allowed = origin
        .as_deref()
        .filter(|origin| state.config.cors_origins.iter().any(|allowed| allowed.trim_end_matches('/') == *origin));
    let foreign = origin.as_deref().is_some_and(|origin| !same_origin(origin, host.as_deref()) && allowed.is_none());
    let mut response = if foreign {
        ApiError::new(
            StatusCode::FORBIDDEN,
            "cross-origin requests are refused: this server allows no other site's pages (see --cors-origin)",
        )
        .into_response()
    } else if request.method() == Method::OPTIONS && allowed.is_some() {
        StatusCode::NO_CONTENT.into_response()
    } else {
        next.run(request).await
    };
    let headers = response.headers_mut();
    if let Some(origin) = allowed.and_then(|origin| HeaderValue::from_str(origin).ok()) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static(ALLOWED_HEADERS));
        headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, DELETE"));
        headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    }
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// Answers 401 unless the request carries the server's key (when it has one) as
/// `Authorization: apiKey KEY` or `Authorization: Bearer KEY`.
pub async fn require_key(State(state): State<Arc<AppState>>, request: Request, next: Next) -> Response {
    if let Some(key) = &state.config.api_key {
        let given = request.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok());
        if !key.authorizes(given) {
            return ApiError::unauthorized().into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_match_the_host_they_came_to() {
        assert!(same_origin("http://127.0.0.1:8080", Some("127.0.0.1:8080")));
        assert!(same_origin("https://Chess.Example.org", Some("chess.example.org")));
        assert!(!same_origin("http://evil.example", Some("127.0.0.1:8080")));
        assert!(!same_origin("http://127.0.0.1:8081", Some("127.0.0.1:8080")));
        assert!(!same_origin("null", Some("127.0.0.1:8080")));
        assert!(!same_origin("http://127.0.0.1:8080", None));
    }
}
