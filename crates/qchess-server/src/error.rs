//! Errors: HTTP answers in IonQ's error shape, and why a server could not start.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use thiserror::Error;

/// An error answer: `{"statusCode": 400, "error": "Bad Request", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// What went wrong, for a person.
    pub message: String,
    /// Seconds after which a retry may succeed (sent as `Retry-After`).
    pub retry_after: Option<u64>,
    /// The resource as it now is (a game a change lost to), sent as `state`.
    pub state: Option<Box<serde_json::Value>>,
}

impl ApiError {
    /// An error with this status and message.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), retry_after: None, state: None }
    }

    /// 400: the request is malformed or asks for something unsupported.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404: no such resource.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 401: no or the wrong API key.
    pub fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "Invalid key provided. Send the header `Authorization: apiKey <key>` with the key the server was started with.",
        )
    }

    /// 409: the change lost to another; `state` is the resource as it now is.
    pub fn conflict(message: impl Into<String>, state: serde_json::Value) -> ApiError {
        ApiError { state: Some(Box::new(state)), ..ApiError::new(StatusCode::CONFLICT, message) }
    }

    /// 429 with `Retry-After`.
    pub fn too_many(message: impl Into<String>, retry_after: u64) -> ApiError {
        ApiError { retry_after: Some(retry_after), ..ApiError::new(StatusCode::TOO_MANY_REQUESTS, message) }
    }

    /// The short error name IonQ uses for the status.
    fn name(&self) -> &'static str {
        match self.status {
            StatusCode::BAD_REQUEST => "Bad Request",
            StatusCode::UNAUTHORIZED => "Unauthorized Error",
            StatusCode::FORBIDDEN => "Forbidden",
            StatusCode::NOT_FOUND => "Not Found Error",
            StatusCode::PAYLOAD_TOO_LARGE => "Payload Too Large",
            StatusCode::TOO_MANY_REQUESTS => "Too Many Requests",
            StatusCode::METHOD_NOT_ALLOWED => "Method Not Allowed",
            StatusCode::CONFLICT => "Conflict",
            StatusCode::REQUEST_TIMEOUT => "Request Timeout",
            StatusCode::UNPROCESSABLE_ENTITY => "Unprocessable Entity",
            StatusCode::SERVICE_UNAVAILABLE => "Service Unavailable",
            status if status.is_server_error() => "Internal Server Error",
            _ => "Error",
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "statusCode": self.status.as_u16(), "error": self.name(), "message": self.message });
        if let Some(state) = self.state {
            body["state"] = *state;
        }
        let mut response = (self.status, axum::Json(body)).into_response();
        if let Some(seconds) = self.retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

/// Rewrites an error answer that is not JSON (the framework's own rejections of a bad path,
/// query or body) into the IonQ error shape, keeping its status and text.
pub async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let retry_after = response.headers().get(header::RETRY_AFTER).cloned();
    let text = match axum::body::to_bytes(response.into_body(), 4096).await {
        Ok(bytes) if !bytes.is_empty() => String::from_utf8_lossy(&bytes).into_owned(),
        _ => status.canonical_reason().unwrap_or("error").to_owned(),
    };
    let mut rewritten = ApiError::new(status, text).into_response();
    if let Some(value) = retry_after {
        rewritten.headers_mut().insert(header::RETRY_AFTER, value);
    }
    rewritten
}

/// Why the server could not start or stopped with an error.
#[derive(Debug, Error)]
pub enum ServeError {
    /// A setting is out of range.
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// Serving failed.
    #[error("the server failed")]
    Io(#[from] std::io::Error),
    /// The game store could not be opened.
    #[error(transparent)]
    Store(#[from] qchess_store::StoreError),
}
