//! The session routes of the IBM stand-in, as `qiskit-ibm-runtime`'s `Session` and `Batch`
//! drive them: creating one, reading it, closing it to new jobs, cancelling its queued jobs.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::clock::iso_time;
use super::error::IbmError;
use super::jobs::{self, now};
use super::sessions::{MAX_TTL_SECONDS, Mode, Refusal};
use super::{Admitted, IbmPlan, Tokens, admitted_json, named_device};

/// `POST /api/v1/sessions`: `{"mode", "backend", "instance", "max_ttl"}`, answered with the
/// new session's details.
pub(super) async fn create(
    State(tokens): State<Arc<Tokens>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, IbmError> {
    let request = admitted_json(&tokens, &headers, &body)?;
    let mode = match request.get("mode") {
        None | Some(Value::Null) => Mode::Dedicated,
        Some(Value::String(name)) => Mode::parse(name).ok_or_else(|| {
            IbmError::BadSession(format!("mode must be `dedicated` or `batch`, not `{}`", name.escape_debug()))
        })?,
        Some(other) => return Err(IbmError::BadSession(format!("mode must be a string, not {other}"))),
    };
    if mode == Mode::Dedicated && tokens.options.plan == IbmPlan::Open {
        return Err(IbmError::SessionsNotInPlan);
    }
    let backend = match request.get("backend") {
        Some(Value::String(name)) => named_device(name.clone())?.name.to_owned(),
        _ => return Err(IbmError::BadSession("a session needs a `backend`, the name of a device".into())),
    };
    let max_ttl = match request.get("max_ttl") {
        None | Some(Value::Null) => MAX_TTL_SECONDS,
        Some(value) => value.as_u64().filter(|ttl| (1..=MAX_TTL_SECONDS).contains(ttl)).ok_or_else(|| {
            IbmError::BadSession(format!("max_ttl must be whole seconds from 1 to {MAX_TTL_SECONDS}, not {value}"))
        })?,
    };
    let instance = request.get("instance").and_then(Value::as_str).map(str::to_owned);
    let details = {
        let mut sessions = tokens.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if sessions.full() {
            return Err(IbmError::TooManySessions);
        }
        let now = now();
        let id = sessions.create(mode, backend, instance, max_ttl, now);
        let session = sessions.get(&id).ok_or_else(|| IbmError::Internal("a new session was lost".into()))?;
        session.details(&id, now, iso_time)
    };
    // Answered once kept: a session the client was told of outlives a restart.
    tokens.kept().await?;
    Ok(axum::Json(details).into_response())
}

/// `GET /api/v1/sessions/{id}`: its mode, device, state, `accepting_jobs`, limits and times.
pub(super) async fn details(Path(id): Path<String>, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    jobs::refresh_sessions(&tokens.jobs, &tokens.sessions);
    let sessions = tokens.sessions.lock().unwrap_or_else(|p| p.into_inner());
    let session = sessions.get(&id).ok_or_else(|| IbmError::UnknownSession(id.clone()))?;
    Ok(axum::Json(session.details(&id, now(), iso_time)).into_response())
}

/// `PATCH /api/v1/sessions/{id}` with `{"accepting_jobs": false}`: no new jobs; the queued
/// ones finish (204). A closed session cannot be opened again.
pub(super) async fn update(
    Path(id): Path<String>,
    State(tokens): State<Arc<Tokens>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, IbmError> {
    let request = admitted_json(&tokens, &headers, &body)?;
    let accepting = match request.get("accepting_jobs") {
        Some(Value::Bool(accepting)) => *accepting,
        _ => return Err(IbmError::BadSession("the body must set `accepting_jobs` to true or false".into())),
    };
    {
        let mut sessions = tokens.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let session = sessions.get(&id).ok_or_else(|| IbmError::UnknownSession(id.clone()))?;
        if accepting {
            if !session.accepting_jobs {
                return Err(IbmError::BadSession(format!("session {id} has been closed and cannot be opened again")));
            }
        } else {
            sessions.close(&id, now());
        }
    }
    jobs::refresh_sessions(&tokens.jobs, &tokens.sessions);
    tokens.kept().await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `DELETE /api/v1/sessions/{id}/close`: closes the session and cancels its queued jobs;
/// running ones finish (204).
pub(super) async fn cancel(Path(id): Path<String>, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    if !tokens.sessions.lock().unwrap_or_else(|p| p.into_inner()).close(&id, now()) {
        return Err(IbmError::UnknownSession(id));
    }
    tokens.jobs.lock().unwrap_or_else(|p| p.into_inner()).cancel_queued(&id, "Cancelled with its session.");
    jobs::refresh_sessions(&tokens.jobs, &tokens.sessions);
    tokens.kept().await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// Counts a job for session `id` on `backend` in, or refuses it as the service does.
pub(super) fn join(tokens: &Tokens, id: &str, backend: &str) -> Result<(), IbmError> {
    jobs::refresh_sessions(&tokens.jobs, &tokens.sessions);
    let refusal = tokens.sessions.lock().unwrap_or_else(|p| p.into_inner()).admit(id, backend);
    refusal.map_err(|refusal| match refusal {
        Refusal::Unknown => IbmError::JobForUnknownSession(id.to_owned()),
        Refusal::Closed => IbmError::SessionClosed(id.to_owned()),
        Refusal::Expired => IbmError::SessionExpired(id.to_owned()),
        Refusal::OtherBackend(session_backend) => {
            IbmError::SessionElsewhere { id: id.to_owned(), session_backend, job_backend: backend.to_owned() }
        }
    })
}
