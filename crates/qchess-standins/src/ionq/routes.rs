//! The IonQ v0.4 API's handlers: jobs (create, get, list, delete, cancel), their results,
//! backends and whoami.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use qchess_core::text::{excerpt, excerpt_line};
use serde::Deserialize;
use serde_json::{Value, json};

use super::IonqStandIn;
use super::error::IonqError;
use super::jobs::{JobSpec, Phase, StoreFull, iso8601, new_job_id};
use super::results_body::ResultsBody;
use super::simulate::declared_qubits;
use crate::body::read_json;

/// Shots of a job that does not say.
const DEFAULT_SHOTS: u64 = 100;

/// The backends this server stands in for: name and qubits (before the server's own limit).
const BACKENDS: [(&str, u32); 4] = [("simulator", 29), ("qpu.aria-1", 25), ("qpu.aria-2", 25), ("qpu.forte-1", 36)];

/// Noise models the simulator accepts.
const NOISE_MODELS: [&str; 7] = ["ideal", "harmony", "aria-1", "aria-2", "forte-1", "forte-enterprise-1", "harmony-2"];

/// The qubits of a backend here, or `None` if there is no such backend.
pub(super) fn backend_qubits(state: &IonqStandIn, name: &str) -> Option<u32> {
    let limit = state.options.limits.max_qubits;
    BACKENDS.iter().find(|(n, _)| *n == name).map(|&(n, q)| if n == "simulator" { limit } else { q.min(limit) })
}

fn backend_json(state: &IonqStandIn, name: &str, qubits: u32) -> Value {
    json!({
        "backend": name,
        "status": "available",
        "qubits": qubits,
        "average_queue_time": state.options.run.queue_delay.as_millis() as u64,
        "last_updated": iso8601(state.started),
        "degraded": false,
        "noise_models": NOISE_MODELS,
    })
}

/// `GET /v0.4/backends`.
pub async fn list_backends(State(state): State<Arc<IonqStandIn>>) -> Json<Value> {
    let all: Vec<Value> = BACKENDS
        .iter()
        .filter_map(|(name, _)| backend_qubits(&state, name).map(|q| backend_json(&state, name, q)))
        .collect();
    Json(Value::Array(all))
}

/// `GET /v0.4/backends/{backend}`.
pub async fn get_backend(
    State(state): State<Arc<IonqStandIn>>,
    Path(name): Path<String>,
) -> Result<Json<Value>, IonqError> {
    match backend_qubits(&state, &name) {
        Some(qubits) => Ok(Json(backend_json(&state, &name, qubits))),
        None => Err(IonqError::NotFound(format!(
            "backend `{}` does not exist; try simulator or qpu.aria-1",
            excerpt(&name)
        ))),
    }
}

/// `GET /v0.4/whoami`.
pub async fn whoami() -> Json<Value> {
    Json(json!({ "key_id": "00000000-0000-4000-8000-000000000000", "key_name": "qchess serve", "project_id": null }))
}

/// `POST /v0.4/jobs`.
pub async fn create_job(
    State(state): State<Arc<IonqStandIn>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, IonqError> {
    let body = read_json(body)?;
    let request: qchess_remote::wire::JobRequest = serde_json::from_value(body)
        .map_err(|e| IonqError::BadRequest(format!("bad job: {}", excerpt_line(&e.to_string()))))?;
    let spec = validate(&state, request)?;
    let id = new_job_id();
    {
        let mut jobs = state.jobs();
        // Checked under the store's lock: shutdown fails unstarted jobs under it too.
        if state.shutting_down.load(Ordering::SeqCst) {
            return Err(IonqError::ShuttingDown);
        }
        jobs.insert(id.clone(), spec).map_err(store_full)?;
    }
    if state.queue.send(id.clone()).is_err() {
        let mut jobs = state.jobs();
        jobs.remove(&id);
        return Err(IonqError::ShuttingDown);
    }
    Ok(Json(json!({ "id": id, "status": "submitted", "session_id": null })))
}

/// The 429 answer to a submission that finds the store full of jobs nobody may drop yet.
fn store_full(full: StoreFull) -> IonqError {
    let what = if full.results_full {
        "the stored results reach this server's limit of outcomes".to_owned()
    } else {
        format!("{} jobs are stored, the most this server keeps (--max-jobs)", full.limit)
    };
    IonqError::StoreFull {
        message: format!(
            "{what}: {} are unfinished and {} finished but not read by their owner; fetch or delete finished jobs, or retry after {} s (unread results are kept for --result-ttl)",
            full.unfinished, full.unread, full.retry_after
        ),
        retry_after: full.retry_after,
    }
}

/// Checks a submission against the API and the server's limits.
fn validate(state: &IonqStandIn, request: qchess_remote::wire::JobRequest) -> Result<JobSpec, IonqError> {
    let limits = &state.options.limits;
    let job_type = request.job_type.as_deref().unwrap_or("ionq.circuit.v1");
    if job_type != "ionq.circuit.v1" {
        return Err(IonqError::BadRequest(format!(
            "job type `{}` is not supported; only ionq.circuit.v1 is",
            excerpt(job_type)
        )));
    }
    let backend = request.backend.unwrap_or_else(|| "simulator".to_owned());
    if backend_qubits(state, &backend).is_none() {
        return Err(IonqError::BadRequest(format!(
            "backend `{}` does not exist; use one of {}",
            excerpt(&backend),
            BACKENDS.map(|b| b.0).join(", ")
        )));
    }
    let shots = request.shots.unwrap_or(DEFAULT_SHOTS);
    if !(1..=limits.max_shots).contains(&shots) {
        return Err(IonqError::BadRequest(format!("shots must be between 1 and {}, got {shots}", limits.max_shots)));
    }
    let noise_model = request.noise.as_ref().map_or("ideal", |n| n.model.as_str()).to_owned();
    if !NOISE_MODELS.contains(&noise_model.as_str()) {
        return Err(IonqError::BadRequest(format!(
            "noise model `{}` does not exist; use one of {}",
            excerpt(&noise_model),
            NOISE_MODELS.join(", ")
        )));
    }
    let input = request.input;
    if !input.is_object() {
        return Err(IonqError::BadRequest("input must be an object with gateset, qubits and circuit".into()));
    }
    let gates = input.get("circuit").and_then(Value::as_array).map_or(0, Vec::len);
    if gates > limits.max_gates {
        return Err(IonqError::BadRequest(format!(
            "the circuit has {gates} gates, more than the limit of {}",
            limits.max_gates
        )));
    }
    let qubits = declared_qubits(&input)
        .ok_or_else(|| IonqError::BadRequest("input.qubits must be a positive integer".into()))?;
    if !(1..=64).contains(&qubits) {
        return Err(IonqError::BadRequest(format!("input.qubits must be between 1 and 64, got {qubits}")));
    }
    let metadata = request.metadata.unwrap_or(Value::Null);
    Ok(JobSpec {
        backend,
        shots,
        name: request.name,
        metadata,
        noise_seed: request.noise.and_then(|n| n.seed),
        noise_model,
        input,
        qubits: qubits as u32,
    })
}

fn job_not_found(id: &str) -> IonqError {
    IonqError::NotFound(format!(
        "job {} does not exist (it may have been deleted or dropped to make room)",
        excerpt(id)
    ))
}

/// `GET /v0.4/jobs/{id}`. Seeing a failed or canceled job is reading its outcome.
pub async fn get_job(State(state): State<Arc<IonqStandIn>>, Path(id): Path<String>) -> Result<Json<Value>, IonqError> {
    let mut jobs = state.jobs();
    let job = jobs.get(&id).ok_or_else(|| job_not_found(&id))?;
    let shown = job.to_json();
    if matches!(job.phase, Phase::Failed | Phase::Canceled) {
        jobs.mark_read(&id);
    }
    Ok(Json(shown))
}

/// `GET /v0.4/jobs/{id}/results/probabilities` (and `.../aggregated`), written while the
/// client reads it. Fetching results is reading the job's outcome.
pub async fn get_results(State(state): State<Arc<IonqStandIn>>, Path(id): Path<String>) -> Result<Response, IonqError> {
    let results = {
        let mut jobs = state.jobs();
        let job = jobs.get(&id).ok_or_else(|| job_not_found(&id))?;
        match (&job.results, job.phase) {
            (Some(results), Phase::Completed) => {
                let results = Arc::clone(results);
                jobs.mark_read(&id);
                results
            }
            (_, phase) => {
                return Err(IonqError::NotFound(format!("job {id} is {} and has no results", phase.name())));
            }
        }
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], Body::new(ResultsBody::new(results))).into_response())
}

/// `PUT /v0.4/jobs/{id}/status/cancel`.
pub async fn cancel_job(
    State(state): State<Arc<IonqStandIn>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, IonqError> {
    let mut jobs = state.jobs();
    let job = jobs.get_mut(&id).ok_or_else(|| job_not_found(&id))?;
    match job.phase {
        Phase::Canceled => {}
        phase if phase.is_final() => {
            return Err(IonqError::BadRequest(format!(
                "job {id} is already {}; only unfinished jobs can be canceled",
                phase.name()
            )));
        }
        _ => {
            job.phase = Phase::Canceled;
            job.completed_at = Some(SystemTime::now());
            // The owner asked for it, so it has read the outcome.
            job.read = true;
            // The circuit is not needed any more; a stored job keeps only its results.
            Arc::make_mut(&mut job.spec).input = Value::Null;
        }
    }
    Ok(Json(json!({ "id": id, "status": "canceled" })))
}

/// `DELETE /v0.4/jobs/{id}`.
pub async fn delete_job(
    State(state): State<Arc<IonqStandIn>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, IonqError> {
    let mut jobs = state.jobs();
    jobs.remove(&id).ok_or_else(|| job_not_found(&id))?;
    Ok(Json(json!({ "id": id, "status": "deleted" })))
}

/// Query of `GET /v0.4/jobs`.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    status: Option<String>,
    limit: Option<usize>,
    next: Option<String>,
}

/// `GET /v0.4/jobs?status=&limit=&next=`.
pub async fn list_jobs(
    State(state): State<Arc<IonqStandIn>>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Value>, IonqError> {
    let phase = match query.status.as_deref() {
        None | Some("") => None,
        Some(name) => Some(
            [Phase::Submitted, Phase::Ready, Phase::Started, Phase::Completed, Phase::Failed, Phase::Canceled]
                .into_iter()
                .find(|p| p.name() == name)
                .ok_or_else(|| IonqError::BadRequest(format!("status `{}` is not a job status", excerpt(name))))?,
        ),
    };
    let limit = query.limit.unwrap_or(25).clamp(1, 1000);
    let jobs = state.jobs();
    let (page, next) = jobs.list(phase, limit, query.next.as_deref());
    Ok(Json(json!({ "jobs": page.iter().map(|job| job.to_json()).collect::<Vec<_>>(), "next": next })))
}
