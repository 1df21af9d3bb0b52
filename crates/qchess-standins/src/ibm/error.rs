//! The IBM stand-in's errors, answered in the service's shapes: IBM Cloud IAM's
//! `{"errorCode", "errorMessage"}` ([`IamError`]) and the Quantum API's
//! `{"errors": [{"code", "message"}], "status_code"}` ([`IbmError`]).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use thiserror::Error;

/// A short, printable excerpt of a name from a request, in backquotes.
fn excerpt(text: &str) -> String {
    let shown: String = text.chars().take(60).flat_map(char::escape_debug).collect();
    if text.chars().count() > 60 { format!("`{shown}...`") } else { format!("`{shown}`") }
}

/// An API-key exchange IAM refuses (400).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum IamError {
    /// The body is not a form.
    #[error("Property missing or empty. Operation not allowed.")]
    NotForm,
    /// The grant is not an API-key grant.
    #[error("Unsupported grant type.")]
    UnsupportedGrant,
    /// The key is not the server's.
    #[error("Provided API key could not be found.")]
    UnknownKey,
}

impl IamError {
    /// IAM's error code.
    pub fn code(self) -> &'static str {
        match self {
            IamError::NotForm => "BXNIM0109E",
            IamError::UnsupportedGrant => "BXNIM0103E",
            IamError::UnknownKey => "BXNIM0415E",
        }
    }
}

impl IntoResponse for IamError {
    fn into_response(self) -> Response {
        let body = json!({ "errorCode": self.code(), "errorMessage": self.to_string() });
        (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
    }
}

/// A request the Quantum API refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IbmError {
    /// No bearer token (401).
    #[error("Missing bearer token in Authorization header.")]
    MissingBearer,
    /// A token this server never issued (401).
    #[error("The bearer token is not valid.")]
    UnknownBearer,
    /// A token past its lifetime (401).
    #[error("The bearer token has expired.")]
    ExpiredBearer,
    /// No service instance named (400).
    #[error("Missing Service-CRN header.")]
    MissingCrn,
    /// A device this server does not describe (404).
    #[error("Backend {} not found.", excerpt(.0))]
    UnknownBackend(String),
    /// A job this server does not keep (404).
    #[error("Job {} not found.", excerpt(.0))]
    UnknownJob(String),
    /// The submission is not JSON (400).
    #[error("the body is not JSON: {0}")]
    NotJson(String),
    /// The job is refused: a malformed pub, or a circuit that is not the device's (400).
    #[error("{0}")]
    BadJob(String),
    /// A session this server does not keep (404).
    #[error("Session {} not found.", excerpt(.0))]
    UnknownSession(String),
    /// A job naming a session this server does not keep (400: the job is malformed).
    #[error("Session {} not found: the job names a session this service never opened.", excerpt(.0))]
    JobForUnknownSession(String),
    /// A job for a session closed to new jobs by its owner (400).
    #[error("Session {} has been closed and accepts no new jobs.", excerpt(.0))]
    SessionClosed(String),
    /// A job for a session past its `max_ttl` (400).
    #[error("Session {} has been closed: it ran past its maximum time to live.", excerpt(.0))]
    SessionExpired(String),
    /// A job for another device than its session's (400).
    #[error("Session {} runs on {session_backend}, not on {}.", excerpt(.id), excerpt(.job_backend))]
    SessionElsewhere {
        /// The session.
        id: String,
        /// The session's device.
        session_backend: String,
        /// The job's device.
        job_backend: String,
    },
    /// A session cannot be created or changed as asked: a bad mode, `max_ttl` or body (400).
    #[error("{0}")]
    BadSession(String),
    /// A dedicated session asked of an instance whose plan allows none (`--ibm-plan open`,
    /// as IBM's Open Plan; 400, code 1352).
    #[error("You are not authorized to run a session when using the open plan.")]
    SessionsNotInPlan,
    /// Too many sessions are open (429).
    #[error("Too many sessions are open; close one and try again.")]
    TooManySessions,
    /// A job listing's query asks for something unreadable (400).
    #[error("{0}")]
    BadQuery(String),
    /// Too many jobs wait or run (429).
    #[error("Too many jobs are queued or running; try again later.")]
    Busy,
    /// A job without results: not over yet (409).
    #[error("Job {id} is {status} and has no results yet.")]
    NoResultsYet {
        /// The job.
        id: String,
        /// Its status.
        status: &'static str,
    },
    /// A job that is over cannot be cancelled (409).
    #[error("Job {} is {status} and cannot be cancelled.", excerpt(.id))]
    Over {
        /// The job.
        id: String,
        /// Its status.
        status: &'static str,
    },
    /// The stand-in failed: a stored description that does not read, a check that crashed
    /// (500).
    #[error("{0}")]
    Internal(String),
}

impl IbmError {
    /// The HTTP status and the service's error code.
    pub fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            IbmError::MissingBearer | IbmError::UnknownBearer => (StatusCode::UNAUTHORIZED, "1001"),
            IbmError::ExpiredBearer => (StatusCode::UNAUTHORIZED, "1002"),
            IbmError::MissingCrn => (StatusCode::BAD_REQUEST, "1218"),
            IbmError::UnknownBackend(_) => (StatusCode::NOT_FOUND, "1216"),
            IbmError::UnknownJob(_) => (StatusCode::NOT_FOUND, "1291"),
            IbmError::NotJson(_) | IbmError::BadQuery(_) => (StatusCode::BAD_REQUEST, "1201"),
            IbmError::BadJob(_) => (StatusCode::BAD_REQUEST, "1517"),
            IbmError::UnknownSession(_) => (StatusCode::NOT_FOUND, "1228"),
            IbmError::JobForUnknownSession(_) => (StatusCode::BAD_REQUEST, "1228"),
            IbmError::SessionClosed(_) | IbmError::SessionExpired(_) => (StatusCode::BAD_REQUEST, "1217"),
            IbmError::SessionElsewhere { .. } | IbmError::BadSession(_) => (StatusCode::BAD_REQUEST, "1211"),
            IbmError::SessionsNotInPlan => (StatusCode::BAD_REQUEST, "1352"),
            IbmError::Busy | IbmError::TooManySessions => (StatusCode::TOO_MANY_REQUESTS, "1529"),
            IbmError::NoResultsYet { .. } => (StatusCode::CONFLICT, "1234"),
            IbmError::Over { .. } => (StatusCode::CONFLICT, "1300"),
            IbmError::Internal(_) => (StatusCode::INTERNAL_SERVER_ERROR, "5000"),
        }
    }
}

impl IntoResponse for IbmError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        let body = json!({ "errors": [{ "code": code, "message": self.to_string() }], "status_code": status.as_u16() });
        (status, axum::Json(body)).into_response()
    }
}
