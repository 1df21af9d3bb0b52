//! The job routes of the IBM stand-in: submitting, status, results, metrics, cancelling.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::error::IbmError;
use super::noise::{Calibration, IbmNoise};
use super::{Admitted, Tokens, admitted_json, device, isa, jobs, pubs, session_routes};

/// `POST /api/v1/jobs`.
pub(super) async fn submit(
    State(tokens): State<Arc<Tokens>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, IbmError> {
    let request = admitted_json(&tokens, &headers, &body)?;
    let backend = request.get("backend").and_then(Value::as_str).unwrap_or("").to_owned();
    let device = device(&backend).ok_or_else(|| IbmError::UnknownBackend(backend.clone()))?;
    let stored_error = |e: String| IbmError::Internal(format!("stored device: {e}"));
    // With its calibration, so that gates on broken qubits and couplers are refused.
    let target = isa::device_target(device.configuration, device.properties, &backend).map_err(stored_error)?;
    let calibration = match tokens.options.noise {
        IbmNoise::Ideal => None,
        IbmNoise::Device => {
            let calibration = Calibration::from_properties(target.clone(), device.properties, &backend);
            Some(calibration.map_err(stored_error)?.with_configuration(device.configuration))
        }
    };
    if tokens.jobs.lock().unwrap_or_else(|p| p.into_inner()).full() {
        return Err(IbmError::Busy);
    }
    let tags = match request.get("tags") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(tags)) if tags.iter().all(Value::is_string) => {
            tags.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        Some(other) => return Err(IbmError::BadJob(format!("tags must be a list of strings, not {other}"))),
    };
    let session = match request.get("session_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id.clone()),
        Some(other) => return Err(IbmError::BadJob(format!("session_id must be a string, not {other}"))),
    };
    // Checking a job reads its circuits (QPY, OpenQASM 3): keep that off the async workers.
    let checked_target = target.clone();
    let prepared = tokio::task::spawn_blocking(move || pubs::prepare(&request, &checked_target))
        .await
        .map_err(|e| IbmError::Internal(format!("checking the job failed: {e}")))?
        .map_err(IbmError::BadJob)?;
    let program = match prepared.work {
        pubs::Work::Sampler(_) => "sampler",
        pubs::Work::Estimator(_) => "estimator",
        pubs::Work::Executor(_) => "executor",
    };
    // Counted in its session only once the job is taken, so that a refused job leaves no trace.
    if let Some(id) = &session {
        session_routes::join(&tokens, id, &backend)?;
    }
    let serial = tokens.submitted.fetch_add(1, Ordering::SeqCst);
    let run = jobs::Run {
        prepared,
        target,
        calibration,
        seed: tokens.options.run.seed ^ serial.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        queue_delay: tokens.options.run.queue_delay,
        time_limit: tokens.options.run.time_limit,
        noise: tokens.options.noise.to_string(),
        slots: Arc::clone(&tokens.slots),
        session: session.clone(),
        sessions: Arc::clone(&tokens.sessions),
        tags,
        queues: Arc::clone(&tokens.queues),
    };
    let id = jobs::submit(&tokens.jobs, backend.clone(), program, run);
    // Answered once kept: a job the client was told of outlives a restart.
    tokens.kept().await?;
    Ok(axum::Json(json!({ "id": id, "backend": backend, "session_id": session })).into_response())
}

/// The stored job `id`, or the service's 404.
fn stored(tokens: &Tokens, id: &str) -> Result<jobs::Job, IbmError> {
    let jobs = tokens.jobs.lock().unwrap_or_else(|p| p.into_inner());
    jobs.get(id).cloned().ok_or_else(|| IbmError::UnknownJob(id.to_owned()))
}

pub(super) use super::clock::iso_time;

/// `GET /api/v1/jobs/{id}`.
pub(super) async fn job(Path(id): Path<String>, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    let job = stored(&tokens, &id)?;
    Ok(axum::Json(job_json(&id, &job)).into_response())
}

/// The job `id` as the service describes it, alone or in a list.
pub(super) fn job_json(id: &str, job: &jobs::Job) -> Value {
    json!({
        "id": id,
        "backend": job.backend,
        "status": job.status.name(),
        "state": { "status": job.status.name(), "reason": job.reason, "reason_code": job.reason_code },
        "program": { "id": job.program },
        "session_id": job.session,
        "tags": job.tags,
        "created": iso_time(job.created),
    })
}

/// `GET /api/v1/jobs/{id}/results`: a completed job's results, a failed or cancelled job's
/// reason (the client reads it for its error message), 409 before either.
pub(super) async fn results(Path(id): Path<String>, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    match stored(&tokens, &id)? {
        job if job.status == jobs::Status::Completed => Ok(axum::Json(job.results).into_response()),
        job if job.status.is_final() => Ok(job.reason.unwrap_or_default().into_response()),
        job => Err(IbmError::NoResultsYet { id, status: job.status.name() }),
    }
}

/// `GET /api/v1/jobs/{id}/metrics`: timestamps, and the seconds it ran on the device.
pub(super) async fn metrics(Path(id): Path<String>, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    let job = stored(&tokens, &id)?;
    Ok(axum::Json(json!({
        "timestamps": {
            "created": iso_time(job.created),
            "running": job.started.map(iso_time),
            "finished": job.finished.map(iso_time),
        },
        "usage": {
            "quantum_seconds": job.quantum_seconds,
            "seconds": job.quantum_seconds,
            "qpu_charge_time_seconds": job.quantum_seconds,
            "status": if job.status.is_final() { "final" } else { "pending" },
        },
        "qiskit_version": null,
    }))
    .into_response())
}

/// `GET /api/v1/jobs/{id}/logs`: the job's life as the stand-in saw it, a line per step
/// (plain text, as the service serves a program's output).
pub(super) async fn logs(Path(id): Path<String>, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    Ok(log_text(&id, &stored(&tokens, &id)?).into_response())
}

fn log_text(id: &str, job: &jobs::Job) -> String {
    let session = job.session.as_deref().map(|s| format!(" in session {s}")).unwrap_or_default();
    let mut lines =
        vec![format!("{} job {id} ({}) queued for {}{session}", iso_time(job.created), job.program, job.backend)];
    lines.extend(job.started.map(|at| format!("{} running", iso_time(at))));
    if let Some(at) = job.finished {
        let reason = job.reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default();
        lines.push(format!("{} {}{reason}", iso_time(at), job.status.name()));
    }
    lines.join("\n") + "\n"
}

/// `POST /api/v1/jobs/{id}/cancel`: 204 for a job not yet over, 409 once it is.
pub(super) async fn cancel(Path(id): Path<String>, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    let cancelled = tokens.jobs.lock().unwrap_or_else(|p| p.into_inner()).cancel(&id);
    match cancelled {
        Some(Ok(())) => {
            tokens.kept().await?;
            Ok(StatusCode::NO_CONTENT.into_response())
        }
        Some(Err(status)) => Err(IbmError::Over { id, status: status.name() }),
        None => Err(IbmError::UnknownJob(id)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_the_service_writes_them() {
        assert_eq!(iso_time(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_time(1_764_161_999.25), "2025-11-26T12:59:59.250Z");
        assert_eq!(iso_time(951_782_400.0), "2000-02-29T00:00:00.000Z");
    }
}
