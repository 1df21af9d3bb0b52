//! `GET /api/v1/instances/usage`: the quantum seconds the stand-in's jobs ran in the current
//! usage period (the 28 days up to now, as the service's open plan counts them), the sum of
//! each job's `usage.quantum_seconds` in its metrics, with no limit. `qiskit-ibm-runtime` asks
//! before each job. With `--db` the count outlives a restart, as the jobs do.

use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::Admitted;
use super::error::IbmError;
use super::job_routes::iso_time;
use super::jobs::{USAGE_PERIOD_SECONDS, now};

/// `GET /api/v1/instances/usage`.
pub(super) async fn usage(headers: HeaderMap, Admitted(tokens): Admitted) -> Result<Response, IbmError> {
    let instance = headers.get("service-crn").and_then(|v| v.to_str().ok()).unwrap_or("");
    let now = now();
    let since = now - USAGE_PERIOD_SECONDS;
    let consumed = tokens.jobs.lock().unwrap_or_else(|p| p.into_inner()).usage_since(since);
    Ok(axum::Json(json!({
        "instance_id": instance,
        // To the millisecond: the stand-in's jobs run for milliseconds.
        "usage_consumed_seconds": (consumed * 1000.0).round() / 1000.0,
        "usage_period": { "start_time": iso_time(since), "end_time": iso_time(now) },
        "usage_limit_reached": false,
        "usage_limit_seconds": null,
    }))
    .into_response())
}
