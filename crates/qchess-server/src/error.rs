//! The one place errors become HTTP answers: the game service's, request bodies', the board's
//! and the server's own, all in IonQ's error shape (which IonQ's clients read on every route);
//! and why a server could not start.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use qchess_games::GamesError;
use qchess_standins::body::BodyError;
use qchess_standins::ionq::{IonqError, error_body, error_response};
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
        IonqError::Unauthorized.into()
    }
}

impl From<GamesError> for ApiError {
    fn from(error: GamesError) -> ApiError {
        let status = match &error {
            GamesError::Invalid(_) => StatusCode::BAD_REQUEST,
            GamesError::NotFound(_) => StatusCode::NOT_FOUND,
            GamesError::NoSeat(_) => StatusCode::UNAUTHORIZED,
            GamesError::Forbidden(_) | GamesError::CoachClosed(_) => StatusCode::FORBIDDEN,
            GamesError::Conflict { .. } => StatusCode::CONFLICT,
            GamesError::TooMany { .. } => StatusCode::TOO_MANY_REQUESTS,
            GamesError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            GamesError::Provider(_) => StatusCode::BAD_GATEWAY,
            GamesError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        let message = error.to_string();
        match error {
            GamesError::Conflict { state, .. } => ApiError { state, ..ApiError::new(status, message) },
            GamesError::TooMany { retry_after, .. } => {
                ApiError { retry_after: Some(retry_after), ..ApiError::new(status, message) }
            }
            _ => ApiError::new(status, message),
        }
    }
}

impl From<BodyError> for ApiError {
    fn from(error: BodyError) -> ApiError {
        ApiError::new(error.status(), error.to_string())
    }
}

impl From<IonqError> for ApiError {
    fn from(error: IonqError) -> ApiError {
        ApiError { retry_after: error.retry_after(), ..ApiError::new(error.status(), error.to_string()) }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = error_body(self.status, &self.message);
        if let Some(state) = self.state {
            body["state"] = *state;
        }
        error_response(self.status, body, self.retry_after)
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
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("application/xml"));
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
    /// The IBM stand-in's jobs and sessions could not be read back from the database.
    #[error(transparent)]
    IbmStore(#[from] qchess_standins::ibm::persist::PersistError),
}
