//! The IonQ v0.4 provider API: jobs, results, backends, whoami, and the worker that moves jobs
//! through `submitted -> ready -> started -> completed | failed`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use qchess_core::text::{excerpt, excerpt_line};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::AppState;
use crate::error::ApiError;
use crate::jobs::{JobFailure, JobSpec, Phase, StoreFull};
use crate::results_body::ResultsBody;
use crate::simulate::{Stop, declared_qubits, exact_distribution, gate_count, read_circuit, sample_shots};
use crate::time::iso8601;

/// Shots of a job that does not say.
const DEFAULT_SHOTS: u64 = 100;

/// The backends this server stands in for: name and qubits (before the server's own limit).
const BACKENDS: [(&str, u32); 4] = [("simulator", 29), ("qpu.aria-1", 25), ("qpu.aria-2", 25), ("qpu.forte-1", 36)];

/// Noise models the simulator accepts.
const NOISE_MODELS: [&str; 7] = ["ideal", "harmony", "aria-1", "aria-2", "forte-1", "forte-enterprise-1", "harmony-2"];

/// The qubits of a backend here, or `None` if there is no such backend.
fn backend_qubits(state: &AppState, name: &str) -> Option<u32> {
    let limit = state.config.limits.max_qubits;
    BACKENDS.iter().find(|(n, _)| *n == name).map(|&(n, q)| if n == "simulator" { limit } else { q.min(limit) })
}

fn backend_json(state: &AppState, name: &str, qubits: u32) -> Value {
    json!({
        "backend": name,
        "status": "available",
        "qubits": qubits,
        "average_queue_time": state.config.queue_delay.as_millis() as u64,
        "last_updated": iso8601(state.started),
        "degraded": false,
        "noise_models": NOISE_MODELS,
    })
}

/// `GET /v0.4/backends`.
pub async fn list_backends(State(state): State<Arc<AppState>>) -> Json<Value> {
    let all: Vec<Value> = BACKENDS
        .iter()
        .filter_map(|(name, _)| backend_qubits(&state, name).map(|q| backend_json(&state, name, q)))
        .collect();
    Json(Value::Array(all))
}

/// `GET /v0.4/backends/{backend}`.
pub async fn get_backend(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    match backend_qubits(&state, &name) {
        Some(qubits) => Ok(Json(backend_json(&state, &name, qubits))),
        None => Err(ApiError::not_found(format!(
            "backend `{}` does not exist; try simulator or qpu.aria-1",
            excerpt(&name)
        ))),
    }
}

/// `GET /v0.4/whoami`.
pub async fn whoami() -> Json<Value> {
    Json(json!({ "key_id": "00000000-0000-4000-8000-000000000000", "key_name": "qchess serve", "project_id": null }))
}

/// A request body, or the IonQ-shaped 400, 408 or 413 that says why it could not be read.
pub fn body_bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, ApiError> {
    body.map_err(|rejection| {
        // A body that did not arrive in time is a timeout, whatever layer reports it.
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(&rejection);
        while let Some(error) = cause {
            if let Some(timeout) = error.downcast_ref::<crate::BodyTimeout>() {
                return ApiError::new(StatusCode::REQUEST_TIMEOUT, timeout.to_string());
            }
            cause = error.source();
        }
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "the request body is larger than this server accepts (--max-body-bytes)",
            );
        }
        ApiError::new(rejection.status(), rejection.body_text())
    })
}

/// Reads a JSON body, turning every failure into an IonQ-shaped 400, 408 or 413.
pub fn json_body(body: Result<Bytes, BytesRejection>) -> Result<Value, ApiError> {
    let bytes = body_bytes(body)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request(format!("the body is not valid JSON: {}", excerpt_line(&e.to_string()))))
}

/// `POST /v0.4/jobs`.
pub async fn create_job(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body = json_body(body)?;
    let request: qchess_remote::wire::JobRequest = serde_json::from_value(body)
        .map_err(|e| ApiError::bad_request(format!("bad job: {}", excerpt_line(&e.to_string()))))?;
    let spec = validate(&state, request)?;
    let id = state.new_id();
    {
        let mut jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
        // Checked under the store's lock: shutdown fails unstarted jobs under it too.
        if state.shutting_down.load(Ordering::SeqCst) {
            return Err(shutting_down());
        }
        jobs.insert(id.clone(), spec).map_err(store_full)?;
    }
    if state.queue.send(id.clone()).is_err() {
        let mut jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
        jobs.remove(&id);
        return Err(shutting_down());
    }
    Ok(Json(json!({ "id": id, "status": "submitted", "session_id": null })))
}

/// The answer to a submission while the server stops.
fn shutting_down() -> ApiError {
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the server is shutting down and takes no new jobs")
}

/// The 429 answer to a submission that finds the store full of jobs nobody may drop yet.
fn store_full(full: StoreFull) -> ApiError {
    let what = if full.results_full {
        "the stored results reach this server's limit of outcomes".to_owned()
    } else {
        format!("{} jobs are stored, the most this server keeps (--max-jobs)", full.limit)
    };
    ApiError::too_many(
        format!(
            "{what}: {} are unfinished and {} finished but not read by their owner; fetch or delete finished jobs, or retry after {} s (unread results are kept for --result-ttl)",
            full.unfinished, full.unread, full.retry_after
        ),
        full.retry_after,
    )
}

/// Checks a submission against the API and the server's limits.
fn validate(state: &AppState, request: qchess_remote::wire::JobRequest) -> Result<JobSpec, ApiError> {
    let limits = &state.config.limits;
    let job_type = request.job_type.as_deref().unwrap_or("ionq.circuit.v1");
    if job_type != "ionq.circuit.v1" {
        return Err(ApiError::bad_request(format!(
            "job type `{}` is not supported; only ionq.circuit.v1 is",
            excerpt(job_type)
        )));
    }
    let backend = request.backend.unwrap_or_else(|| "simulator".to_owned());
    if backend_qubits(state, &backend).is_none() {
        return Err(ApiError::bad_request(format!(
            "backend `{}` does not exist; use one of {}",
            excerpt(&backend),
            BACKENDS.map(|b| b.0).join(", ")
        )));
    }
    let shots = request.shots.unwrap_or(DEFAULT_SHOTS);
    if !(1..=limits.max_shots).contains(&shots) {
        return Err(ApiError::bad_request(format!("shots must be between 1 and {}, got {shots}", limits.max_shots)));
    }
    let noise_model = request.noise.as_ref().map_or("ideal", |n| n.model.as_str()).to_owned();
    if !NOISE_MODELS.contains(&noise_model.as_str()) {
        return Err(ApiError::bad_request(format!(
            "noise model `{}` does not exist; use one of {}",
            excerpt(&noise_model),
            NOISE_MODELS.join(", ")
        )));
    }
    let input = request.input;
    if !input.is_object() {
        return Err(ApiError::bad_request("input must be an object with gateset, qubits and circuit"));
    }
    let gates = input.get("circuit").and_then(Value::as_array).map_or(0, Vec::len);
    if gates > limits.max_gates {
        return Err(ApiError::bad_request(format!(
            "the circuit has {gates} gates, more than the limit of {}",
            limits.max_gates
        )));
    }
    let qubits =
        declared_qubits(&input).ok_or_else(|| ApiError::bad_request("input.qubits must be a positive integer"))?;
    if !(1..=64).contains(&qubits) {
        return Err(ApiError::bad_request(format!("input.qubits must be between 1 and 64, got {qubits}")));
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

fn job_not_found(id: &str) -> ApiError {
    ApiError::not_found(format!(
        "job {} does not exist (it may have been deleted or dropped to make room)",
        excerpt(id)
    ))
}

/// `GET /v0.4/jobs/{id}`. Seeing a failed or canceled job is reading its outcome.
pub async fn get_job(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let mut jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
    let job = jobs.get(&id).ok_or_else(|| job_not_found(&id))?;
    let shown = job.to_json();
    if matches!(job.phase, Phase::Failed | Phase::Canceled) {
        jobs.mark_read(&id);
    }
    Ok(Json(shown))
}

/// `GET /v0.4/jobs/{id}/results/probabilities` (and `.../aggregated`), written while the
/// client reads it. Fetching results is reading the job's outcome.
pub async fn get_results(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let results = {
        let mut jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
        let job = jobs.get(&id).ok_or_else(|| job_not_found(&id))?;
        match (&job.results, job.phase) {
            (Some(results), Phase::Completed) => {
                let results = Arc::clone(results);
                jobs.mark_read(&id);
                results
            }
            (_, phase) => {
                return Err(ApiError::not_found(format!("job {id} is {} and has no results", phase.name())));
            }
        }
    };
    Ok(([(header::CONTENT_TYPE, "application/json")], Body::new(ResultsBody::new(results))).into_response())
}

/// `PUT /v0.4/jobs/{id}/status/cancel`.
pub async fn cancel_job(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let mut jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
    let job = jobs.get_mut(&id).ok_or_else(|| job_not_found(&id))?;
    match job.phase {
        Phase::Canceled => {}
        phase if phase.is_final() => {
            return Err(ApiError::bad_request(format!(
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
pub async fn delete_job(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<Value>, ApiError> {
    let mut jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
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
    State(state): State<Arc<AppState>>,
    Query(query): Query<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    let phase = match query.status.as_deref() {
        None | Some("") => None,
        Some(name) => Some(
            [Phase::Submitted, Phase::Ready, Phase::Started, Phase::Completed, Phase::Failed, Phase::Canceled]
                .into_iter()
                .find(|p| p.name() == name)
                .ok_or_else(|| ApiError::bad_request(format!("status `{}` is not a job status", excerpt(name))))?,
        ),
    };
    let limit = query.limit.unwrap_or(25).clamp(1, 1000);
    let jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
    let (page, next) = jobs.list(phase, limit, query.next.as_deref());
    Ok(Json(json!({ "jobs": page.iter().map(|job| job.to_json()).collect::<Vec<_>>(), "next": next })))
}

/// Moves one job to `phase` unless it was canceled or deleted meanwhile; returns whether it did.
fn advance(state: &AppState, id: &str, phase: Phase) -> bool {
    let mut jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
    match jobs.get_mut(id) {
        Some(job) if !job.phase.is_final() => {
            job.phase = phase;
            if phase == Phase::Started {
                job.started_at = Some(SystemTime::now());
            }
            true
        }
        _ => false,
    }
}

/// Runs queued jobs, `workers` at a time, until the queue closes.
pub async fn run_worker(state: Arc<AppState>, mut queue: mpsc::UnboundedReceiver<String>) {
    let permits = Arc::new(tokio::sync::Semaphore::new(state.config.workers));
    while let Some(id) = queue.recv().await {
        let Ok(permit) = Arc::clone(&permits).acquire_owned().await else { break };
        let state = Arc::clone(&state);
        tokio::spawn(async move {
            let _permit = permit;
            if !advance(&state, &id, Phase::Ready) {
                return;
            }
            if !state.config.queue_delay.is_zero() {
                tokio::time::sleep(state.config.queue_delay).await;
            }
            let spec = {
                let jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
                match jobs.get(&id) {
                    Some(job) => (Arc::clone(&job.spec), job.serial),
                    None => return,
                }
            };
            if !advance(&state, &id, Phase::Started) {
                return;
            }
            let worker_state = Arc::clone(&state);
            let (spec, serial) = spec;
            let outcome =
                tokio::task::spawn_blocking(move || execute(&worker_state, &spec, serial)).await.unwrap_or_else(|e| {
                    Err(JobFailure { code: "InternalError", message: format!("the simulation crashed: {e}") })
                });
            finish(&state, &id, outcome);
        });
    }
}

/// Simulates one job.
fn execute(state: &AppState, spec: &JobSpec, serial: u64) -> Result<Vec<(u64, f64)>, JobFailure> {
    let backend_qubits = backend_qubits(state, &spec.backend).unwrap_or(0);
    if spec.qubits > backend_qubits {
        return Err(JobFailure {
            code: "NotEnoughQubits",
            message: format!("the circuit uses {} qubits; backend {} has {backend_qubits}", spec.qubits, spec.backend),
        });
    }
    let mut circuit = read_circuit(&spec.input, spec.qubits)?;
    let defect = state.config.defect;
    if let Some(defect) = defect {
        defect.apply_to_circuit(&mut circuit);
    }
    let stop = Stop::new(state.config.timeouts.job_time_limit, &state.stop_jobs);
    let exact = exact_distribution(&circuit, &state.config.limits, &stop)?;
    let hardware = spec.backend.starts_with("qpu") || spec.noise_model != "ideal";
    if !hardware {
        return Ok(match defect {
            Some(defect) => defect.apply_to_exact(exact, spec.qubits),
            None => exact,
        });
    }
    let seed = spec.noise_seed.unwrap_or(state.config.seed ^ serial.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let shots = sample_shots(&exact, spec.qubits, gate_count(&circuit), spec.shots, state.config.noise, seed, &stop)?;
    Ok(match defect {
        Some(defect) => defect.apply_to_shots(shots, spec.shots, spec.qubits, seed.rotate_left(17)),
        None => shots,
    })
}

/// Records a job's outcome unless it was canceled or deleted meanwhile.
fn finish(state: &AppState, id: &str, outcome: Result<Vec<(u64, f64)>, JobFailure>) {
    let mut jobs = state.jobs.lock().unwrap_or_else(|p| p.into_inner());
    let Some(job) = jobs.get_mut(id) else { return };
    if job.phase.is_final() {
        return;
    }
    job.completed_at = Some(SystemTime::now());
    // The circuit is not needed any more; a stored job keeps only its results.
    Arc::make_mut(&mut job.spec).input = Value::Null;
    match outcome {
        Ok(results) => jobs.complete(id, results),
        Err(failure) => {
            job.failure = Some(failure);
            job.phase = Phase::Failed;
        }
    }
}
