//! The IonQ stand-in's errors, answered in IonQ's error shape:
//! `{"statusCode": 400, "error": "Bad Request", "message": "..."}`.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use thiserror::Error;

use crate::body::BodyError;

/// A request the IonQ stand-in refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IonqError {
    /// No key, or the wrong one (401).
    #[error(
        "Invalid key provided. Send the header `Authorization: apiKey <key>` with the key the server was started with."
    )]
    Unauthorized,
    /// The body could not be read.
    #[error(transparent)]
    Body(#[from] BodyError),
    /// The request is malformed or asks for something unsupported (400).
    #[error("{0}")]
    BadRequest(String),
    /// No such job or backend (404).
    #[error("{0}")]
    NotFound(String),
    /// The job store is full of jobs nobody may drop yet (429).
    #[error("{message}")]
    StoreFull {
        /// What fills it and what to do.
        message: String,
        /// Seconds until a job may be dropped.
        retry_after: u64,
    },
    /// The server is stopping (503).
    #[error("the server is shutting down and takes no new jobs")]
    ShuttingDown,
}

impl IonqError {
    /// The HTTP status of the answer.
    pub fn status(&self) -> StatusCode {
        match self {
            IonqError::Unauthorized => StatusCode::UNAUTHORIZED,
            IonqError::Body(error) => error.status(),
            IonqError::BadRequest(_) => StatusCode::BAD_REQUEST,
            IonqError::NotFound(_) => StatusCode::NOT_FOUND,
            IonqError::StoreFull { .. } => StatusCode::TOO_MANY_REQUESTS,
            IonqError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// Seconds after which a retry may succeed.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            IonqError::StoreFull { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }
}

impl IntoResponse for IonqError {
    fn into_response(self) -> Response {
        error_response(self.status(), error_body(self.status(), &self.to_string()), self.retry_after())
    }
}

/// The short error name IonQ uses for a status.
fn status_name(status: StatusCode) -> &'static str {
    match status {
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

/// An error body in IonQ's shape: `{"statusCode", "error", "message"}`. The server answers all
/// its errors so, which IonQ's clients read.
pub fn error_body(status: StatusCode, message: &str) -> Value {
    json!({ "statusCode": status.as_u16(), "error": status_name(status), "message": message })
}

/// An answer of `status` with the error `body`, and `Retry-After` when given.
pub fn error_response(status: StatusCode, body: Value, retry_after: Option<u64>) -> Response {
    let mut response = (status, axum::Json(body)).into_response();
    if let Some(seconds) = retry_after {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    }
    response
}
