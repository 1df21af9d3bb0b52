//! The Braket stand-in's errors in AWS's wire shapes: Braket's `rest-json` errors
//! (`{"message", "code"}`, the code also in the `x-amzn-ErrorType` header) for [`BraketError`], and the XML
//! `<Error><Code>…</Code><Message>…</Message></Error>` of S3 and STS for [`XmlError`].

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use thiserror::Error;

use super::sign::SignatureError;

/// A Braket request refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BraketError {
    /// The request is not signed, or wrongly, or its signature expired (403).
    #[error(transparent)]
    Signature(#[from] SignatureError),
    /// A device this server does not describe (404).
    #[error("Braket device {0} not found")]
    UnknownDevice(String),
    /// A task this server does not keep (404).
    #[error("Quantum task {0} not found")]
    UnknownTask(String),
    /// The device is not `ONLINE` (424).
    #[error("Device {device} is {status} and is not accepting quantum tasks")]
    Offline {
        /// The device's ARN.
        device: String,
        /// Its status.
        status: String,
    },
    /// The request or its program is not valid: a missing member, a program that does not
    /// read, a verbatim box with a gate or pair the device does not have (400).
    #[error("{0}")]
    Validation(String),
    /// A task that is over cannot be cancelled (409).
    #[error("Quantum task {0} is already in a final state and cannot be cancelled")]
    Conflict(String),
    /// Too many tasks are kept (429).
    #[error("Too many quantum tasks are kept by this server; try again later")]
    Throttled,
}

impl BraketError {
    /// The HTTP status and AWS's error type.
    pub fn status_and_type(&self) -> (StatusCode, &'static str) {
        match self {
            BraketError::Signature(error) => (StatusCode::FORBIDDEN, error.code()),
            BraketError::UnknownDevice(_) | BraketError::UnknownTask(_) => {
                (StatusCode::NOT_FOUND, "ResourceNotFoundException")
            }
            BraketError::Offline { .. } => (StatusCode::FAILED_DEPENDENCY, "DeviceOfflineException"),
            BraketError::Validation(_) => (StatusCode::BAD_REQUEST, "ValidationException"),
            BraketError::Conflict(_) => (StatusCode::CONFLICT, "ConflictException"),
            BraketError::Throttled => (StatusCode::TOO_MANY_REQUESTS, "ThrottlingException"),
        }
    }
}

impl IntoResponse for BraketError {
    fn into_response(self) -> Response {
        let (status, kind) = self.status_and_type();
        // The type goes in the header, as the service sends it, and in the body's `code`, which
        // `rest-json` clients read when the header is missing.
        let body = json!({ "message": self.to_string(), "code": kind });
        (status, [("x-amzn-ErrorType", kind)], axum::Json(body)).into_response()
    }
}

/// An S3 or STS request refused, answered in their XML.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum XmlError {
    /// The request is not signed, or wrongly, or its signature expired (403).
    #[error(transparent)]
    Signature(#[from] SignatureError),
    /// No such bucket (404).
    #[error("The specified bucket does not exist")]
    NoSuchBucket(String),
    /// No such object (404).
    #[error("The specified key does not exist.")]
    NoSuchKey(String),
    /// A request this server does not answer (400).
    #[error("{0}")]
    Invalid(String),
}

impl XmlError {
    /// The HTTP status and the error code.
    pub fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            XmlError::Signature(error) => (StatusCode::FORBIDDEN, error.xml_code()),
            XmlError::NoSuchBucket(_) => (StatusCode::NOT_FOUND, "NoSuchBucket"),
            XmlError::NoSuchKey(_) => (StatusCode::NOT_FOUND, "NoSuchKey"),
            XmlError::Invalid(_) => (StatusCode::BAD_REQUEST, "InvalidRequest"),
        }
    }
}

/// `text` with XML's five special characters escaped.
pub fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

impl IntoResponse for XmlError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        let resource = match &self {
            XmlError::NoSuchBucket(name) | XmlError::NoSuchKey(name) => {
                format!("<Resource>{}</Resource>", xml_escape(name))
            }
            _ => String::new(),
        };
        let body = format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{code}</Code><Message>{}</Message>{resource}</Error>",
            xml_escape(&self.to_string())
        );
        (status, [("content-type", "application/xml")], body).into_response()
    }
}
