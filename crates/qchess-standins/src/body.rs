//! Reading a request body within the server's limits: whole, in time, and as JSON. A body that
//! did not arrive within the body timeout fails with [`BodyTimeout`] (the server's connections
//! make it), however deep the framework wraps it.

use std::fmt;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use qchess_core::text::excerpt_line;
use serde_json::Value;
use thiserror::Error;

/// The request body did not arrive within the body timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyTimeout {
    /// The timeout.
    pub after: Duration,
}

impl fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the request body did not arrive within {} s (--body-timeout)", self.after.as_secs_f64())
    }
}

impl std::error::Error for BodyTimeout {}

/// Why a request body could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BodyError {
    /// It did not arrive in time (408).
    #[error(transparent)]
    TimedOut(BodyTimeout),
    /// It is larger than the server accepts (413).
    #[error("the request body is larger than this server accepts (--max-body-bytes)")]
    TooLarge,
    /// The framework refused it for another reason, with this status.
    #[error("{text}")]
    Refused {
        /// The status the framework gave.
        status: StatusCode,
        /// Its words.
        text: String,
    },
    /// It is not JSON (400).
    #[error("the body is not valid JSON: {0}")]
    NotJson(String),
}

impl BodyError {
    /// The HTTP status of the answer.
    pub fn status(&self) -> StatusCode {
        match self {
            BodyError::TimedOut(_) => StatusCode::REQUEST_TIMEOUT,
            BodyError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            BodyError::Refused { status, .. } => *status,
            BodyError::NotJson(_) => StatusCode::BAD_REQUEST,
        }
    }
}

/// A request body, whole.
pub fn read_body(body: Result<Bytes, BytesRejection>) -> Result<Bytes, BodyError> {
    body.map_err(|rejection| {
        // A body that did not arrive in time is a timeout, whatever layer reports it.
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&rejection);
        while let Some(error) = cause {
            if let Some(timeout) = error.downcast_ref::<BodyTimeout>() {
                return BodyError::TimedOut(*timeout);
            }
            cause = error.source();
        }
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return BodyError::TooLarge;
        }
        BodyError::Refused { status: rejection.status(), text: rejection.body_text() }
    })
}

/// A request body read as JSON.
pub fn read_json(body: Result<Bytes, BytesRejection>) -> Result<Value, BodyError> {
    let bytes = read_body(body)?;
    serde_json::from_slice(&bytes).map_err(|e| BodyError::NotJson(excerpt_line(&e.to_string())))
}
