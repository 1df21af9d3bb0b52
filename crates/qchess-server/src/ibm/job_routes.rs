//! The job routes of the IBM stand-in: submitting, status, results, metrics, cancelling.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use qchess_core::calendar::CivilDate;
use serde_json::{Value, json};

use super::noise::{Calibration, IbmNoise};
use super::{Tokens, api_error, device, excerpt, isa, jobs, pubs, refusal};

/// `POST /api/v1/jobs`.
pub(super) async fn submit(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    let request: Value = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => return api_error(StatusCode::BAD_REQUEST, "1201", &format!("the body is not JSON: {e}")),
    };
    let backend = request.get("backend").and_then(Value::as_str).unwrap_or("").to_owned();
    let Some(device) = device(&backend) else {
        return api_error(StatusCode::NOT_FOUND, "1216", &format!("Backend {} not found.", excerpt(&backend)));
    };
    let stored_error = |e: String| api_error(StatusCode::INTERNAL_SERVER_ERROR, "5000", &format!("stored device: {e}"));
    // With its calibration, so that gates on broken qubits and couplers are refused.
    let target = match isa::device_target(device.configuration, device.properties, &backend) {
        Ok(target) => target,
        Err(e) => return stored_error(e),
    };
    let calibration = match tokens.options.noise {
        IbmNoise::Ideal => None,
        IbmNoise::Device => match Calibration::from_properties(target.clone(), device.properties, &backend) {
            Ok(calibration) => Some(calibration.with_configuration(device.configuration)),
            Err(e) => return stored_error(e),
        },
    };
    if tokens.jobs.lock().unwrap_or_else(|p| p.into_inner()).full() {
        return api_error(
            StatusCode::TOO_MANY_REQUESTS,
            "1529",
            "Too many jobs are queued or running; try again later.",
        );
    }
    // Checking a job reads its circuits (QPY, OpenQASM 3): keep that off the async workers.
    let checked_target = target.clone();
    let prepared = match tokio::task::spawn_blocking(move || pubs::prepare(&request, &checked_target)).await {
        Ok(Ok(prepared)) => prepared,
        Ok(Err(message)) => return api_error(StatusCode::BAD_REQUEST, "1517", &message),
        Err(e) => {
            return api_error(StatusCode::INTERNAL_SERVER_ERROR, "5000", &format!("checking the job failed: {e}"));
        }
    };
    let program = match prepared.work {
        pubs::Work::Sampler(_) => "sampler",
        pubs::Work::Estimator(_) => "estimator",
    };
    let serial = tokens.submitted.fetch_add(1, Ordering::SeqCst);
    let run = jobs::Run {
        prepared,
        target,
        calibration,
        seed: tokens.options.seed ^ serial.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        queue_delay: tokens.options.queue_delay,
        time_limit: tokens.options.job_time_limit,
        noise: tokens.options.noise.to_string(),
        slots: Arc::clone(&tokens.slots),
    };
    let id = jobs::submit(&tokens.jobs, backend.clone(), program, run);
    axum::Json(json!({ "id": id, "backend": backend })).into_response()
}

/// The stored job `id`, or the service's 404.
fn stored(tokens: &Tokens, id: &str) -> Result<jobs::Job, Box<Response>> {
    let jobs = tokens.jobs.lock().unwrap_or_else(|p| p.into_inner());
    jobs.get(id)
        .cloned()
        .ok_or_else(|| Box::new(api_error(StatusCode::NOT_FOUND, "1291", &format!("Job {} not found.", excerpt(id)))))
}

/// An epoch time as the service writes times (ISO 8601, UTC).
fn iso_time(seconds: f64) -> String {
    let whole = seconds.max(0.0) as u64;
    let (days, rest) = (whole / 86_400, whole % 86_400);
    let CivilDate { year, month, day } = CivilDate::from_days_since_epoch(days as i64);
    let millis = ((seconds.fract()) * 1000.0) as u32;
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z", rest / 3600, rest / 60 % 60, rest % 60)
}

/// `GET /api/v1/jobs/{id}`.
pub(super) async fn job(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    match stored(&tokens, &id) {
        Ok(job) => axum::Json(json!({
            "id": id,
            "backend": job.backend,
            "status": job.status.name(),
            "state": { "status": job.status.name(), "reason": job.reason, "reason_code": job.reason_code },
            "program": { "id": job.program },
            "created": iso_time(job.created),
        }))
        .into_response(),
        Err(missing) => *missing,
    }
}

/// `GET /api/v1/jobs/{id}/results`: a completed job's results, a failed or cancelled job's
/// reason (the client reads it for its error message), 409 before either.
pub(super) async fn results(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    match stored(&tokens, &id) {
        Ok(job) if job.status == jobs::Status::Completed => axum::Json(job.results).into_response(),
        Ok(job) if job.status.is_final() => job.reason.unwrap_or_default().into_response(),
        Ok(job) => api_error(
            StatusCode::CONFLICT,
            "1234",
            &format!("Job {id} is {} and has no results yet.", job.status.name()),
        ),
        Err(missing) => *missing,
    }
}

/// `GET /api/v1/jobs/{id}/metrics`: timestamps, and no QPU time used.
pub(super) async fn metrics(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    match stored(&tokens, &id) {
        Ok(job) => axum::Json(json!({
            "timestamps": {
                "created": iso_time(job.created),
                "running": job.started.map(iso_time),
                "finished": job.finished.map(iso_time),
            },
            "usage": { "quantum_seconds": 0, "seconds": 0, "status": if job.status.is_final() { "final" } else { "pending" } },
            "qiskit_version": null,
        }))
        .into_response(),
        Err(missing) => *missing,
    }
}

/// `POST /api/v1/jobs/{id}/cancel`: 204 for a job not yet over, 409 once it is.
pub(super) async fn cancel(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    let cancelled = tokens.jobs.lock().unwrap_or_else(|p| p.into_inner()).cancel(&id);
    match cancelled {
        Some(Ok(())) => StatusCode::NO_CONTENT.into_response(),
        Some(Err(status)) => api_error(
            StatusCode::CONFLICT,
            "1300",
            &format!("Job {} is {} and cannot be cancelled.", excerpt(&id), status.name()),
        ),
        None => api_error(StatusCode::NOT_FOUND, "1291", &format!("Job {} not found.", excerpt(&id))),
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
