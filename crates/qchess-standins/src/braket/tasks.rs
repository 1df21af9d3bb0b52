//! Braket's device and task operations, and the run of each task (see the
//! [module docs](super)).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::program::{self, Noise, TaskProgram};
use super::{ACCOUNT, BraketError, Head, Shared, now, s3};
use crate::stop::Stop;

/// A task's state.
#[derive(Debug, Clone)]
pub struct Task {
    /// The device it runs on.
    pub device_arn: String,
    /// Its shots.
    pub shots: u64,
    /// Where its results go.
    pub bucket: String,
    /// The folder in the bucket.
    pub directory: String,
    /// `QUEUED`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLING`, `CANCELLED`.
    pub status: &'static str,
    /// Why it failed.
    pub failure_reason: Option<String>,
    /// When it was created and ended (seconds since 1970).
    pub created_at: u64,
    /// When it ended.
    pub ended_at: Option<u64>,
    /// Set to stop its run.
    pub stop: Arc<AtomicBool>,
}

/// The tasks kept, by ARN, in the order created, and the client tokens that created them.
#[derive(Debug, Default)]
pub struct Tasks {
    by_arn: HashMap<String, Task>,
    order: Vec<String>,
    tokens: HashMap<String, String>,
}

/// `seconds` as ISO 8601 UTC.
fn iso(seconds: u64) -> String {
    let d = qchess_remote::braket::sigv4::amz_date(seconds);
    format!("{}-{}-{}T{}:{}:{}Z", &d[..4], &d[4..6], &d[6..8], &d[9..11], &d[11..13], &d[13..15])
}

impl Task {
    fn is_final(&self) -> bool {
        matches!(self.status, "COMPLETED" | "FAILED" | "CANCELLED")
    }

    fn summary(&self, arn: &str) -> Value {
        let mut value = json!({
            "quantumTaskArn": arn,
            "status": self.status,
            "deviceArn": self.device_arn,
            "shots": self.shots,
            "outputS3Bucket": self.bucket,
            "outputS3Directory": self.directory,
            "createdAt": iso(self.created_at),
        });
        if let Some(ended) = self.ended_at {
            value["endedAt"] = json!(iso(ended));
        }
        value
    }
}

/// The request's body as JSON after its signature is checked.
fn signed_json(shared: &Shared, head: &Head, body: &[u8]) -> Result<Value, BraketError> {
    shared.verify("braket", head, body)?;
    if body.is_empty() {
        return Ok(json!({}));
    }
    serde_json::from_slice(body).map_err(|e| BraketError::Validation(format!("the body is not JSON: {e}")))
}

fn device<'a>(shared: &'a Shared, arn: &str) -> Result<&'a super::devices::Device, BraketError> {
    shared.devices.iter().find(|d| d.arn == arn).ok_or_else(|| BraketError::UnknownDevice(arn.to_owned()))
}

/// `GetDevice`.
pub async fn get_device(
    State(shared): State<Arc<Shared>>,
    Path(arn): Path<String>,
    head: Head,
) -> Result<Response, BraketError> {
    signed_json(&shared, &head, b"")?;
    let device = device(&shared, &arn)?;
    Ok(axum::Json(device.description(shared.status(device))).into_response())
}

/// `SearchDevices`: every device, filtered by `deviceArn`, `deviceName`, `providerName`,
/// `deviceType` or `deviceStatus` when asked; one page.
pub async fn search_devices(
    State(shared): State<Arc<Shared>>,
    head: Head,
    body: Bytes,
) -> Result<Response, BraketError> {
    let request = signed_json(&shared, &head, &body)?;
    let filters = Filters::of(&request);
    let listed: Vec<Value> =
        shared.devices.iter().map(|d| d.summary(shared.status(d))).filter(|summary| filters.pass(summary)).collect();
    Ok(axum::Json(json!({ "devices": listed })).into_response())
}

/// A search's filters: each a member's name and the values it may have.
struct Filters(Vec<(String, Vec<String>)>);

impl Filters {
    fn of(request: &Value) -> Filters {
        let filter = |f: &Value| {
            let values = f["values"].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned);
            (f["name"].as_str().unwrap_or_default().to_owned(), values.collect())
        };
        Filters(request["filters"].as_array().into_iter().flatten().map(filter).collect())
    }

    /// Whether `summary` has one of the values of every filter.
    fn pass(&self, summary: &Value) -> bool {
        self.0.iter().all(|(name, values)| summary[name].as_str().is_some_and(|v| values.iter().any(|w| w == v)))
    }
}

/// A member of the request, as text.
fn member<'a>(request: &'a Value, name: &str) -> Result<&'a str, BraketError> {
    request[name].as_str().ok_or_else(|| {
        BraketError::Validation(format!(
            "1 validation error detected: Value at '{name}' failed to satisfy constraint: Member must not be null"
        ))
    })
}

/// `CreateQuantumTask`.
pub async fn create_task(State(shared): State<Arc<Shared>>, head: Head, body: Bytes) -> Result<Response, BraketError> {
    let request = signed_json(&shared, &head, &body)?;
    let token = member(&request, "clientToken")?.to_owned();
    let device_arn = member(&request, "deviceArn")?.to_owned();
    let bucket = member(&request, "outputS3Bucket")?.to_owned();
    let prefix = member(&request, "outputS3KeyPrefix")?.trim_matches('/').to_owned();
    let action = member(&request, "action")?;
    let shots =
        request["shots"].as_u64().ok_or_else(|| BraketError::Validation("`shots` must be a whole number".into()))?;
    if let Some(arn) = shared.tasks.lock().unwrap_or_else(|p| p.into_inner()).tokens.get(&token) {
        return Ok((StatusCode::CREATED, axum::Json(json!({ "quantumTaskArn": arn }))).into_response());
    }
    let device = device(&shared, &device_arn)?;
    let status = shared.status(device);
    if status != "ONLINE" {
        return Err(BraketError::Offline { device: device_arn, status: status.to_owned() });
    }
    if shots == 0 || shots > shared.options.max_shots {
        return Err(BraketError::Validation(format!(
            "shots {shots}: this device takes 1 to {} shots",
            shared.options.max_shots
        )));
    }
    let action: Value =
        serde_json::from_str(action).map_err(|e| BraketError::Validation(format!("action is not JSON: {e}")))?;
    if action["braketSchemaHeader"]["name"] != "braket.ir.openqasm.program" {
        return Err(BraketError::Validation("action: only braket.ir.openqasm.program actions are supported".into()));
    }
    let source = action["source"].as_str().ok_or_else(|| BraketError::Validation("action: no `source`".into()))?;
    let read = program::read(source).map_err(BraketError::Validation)?;
    let native = match (&device.qpu, read.verbatim) {
        (Some((target, natives)), true) => {
            Some((program::native_ops(&read, target, natives).map_err(BraketError::Validation)?, target.clone()))
        }
        _ => None,
    };
    let number = shared.created.fetch_add(1, Ordering::Relaxed);
    let id = task_id();
    let region = device_arn.split(':').nth(3).filter(|r| !r.is_empty()).unwrap_or("us-east-1");
    let arn = format!("arn:aws:braket:{region}:{ACCOUNT}:quantum-task/{id}");
    let directory = if prefix.is_empty() { id.clone() } else { format!("{prefix}/{id}") };
    let stop = Arc::new(AtomicBool::new(false));
    {
        let mut tasks = shared.tasks.lock().unwrap_or_else(|p| p.into_inner());
        // The same token may have come twice at once: the first one in made the task.
        if let Some(arn) = tasks.tokens.get(&token) {
            return Ok((StatusCode::CREATED, axum::Json(json!({ "quantumTaskArn": arn }))).into_response());
        }
        if tasks.by_arn.len() >= shared.options.max_tasks {
            return Err(BraketError::Throttled);
        }
        let task = Task {
            device_arn: device_arn.clone(),
            shots,
            bucket,
            directory,
            status: "QUEUED",
            failure_reason: None,
            created_at: now(),
            ended_at: None,
            stop: Arc::clone(&stop),
        };
        tasks.by_arn.insert(arn.clone(), task);
        tasks.order.push(arn.clone());
        tasks.tokens.insert(token, arn.clone());
    }
    let seed = shared.options.run.seed ^ number.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    tokio::spawn(run_task(Arc::clone(&shared), arn.clone(), read, native, source.to_owned(), seed));
    Ok((StatusCode::CREATED, axum::Json(json!({ "quantumTaskArn": arn }))).into_response())
}

/// A random task id shaped as Braket's (a UUID).
fn task_id() -> String {
    let hex = format!("{:032x}", rand::random::<u128>());
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// Sets a task's state unless it was cancelled.
fn set(shared: &Shared, arn: &str, status: &'static str, reason: Option<String>) {
    let mut tasks = shared.tasks.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(task) = tasks.by_arn.get_mut(arn).filter(|t| !t.is_final() && t.status != "CANCELLING") {
        task.status = status;
        task.failure_reason = reason;
        if task.is_final() {
            task.ended_at = Some(now());
        }
    }
}

/// Waits in the queue, runs the program, writes `results.json`.
async fn run_task(
    shared: Arc<Shared>,
    arn: String,
    program: TaskProgram,
    native: Option<(Vec<(qchess_route::IsaOp, program::Matrix)>, qchess_route::Target)>,
    source: String,
    seed: u64,
) {
    tokio::time::sleep(shared.options.run.queue_delay).await;
    let Ok(_slot) = Arc::clone(&shared.slots).acquire_owned().await else { return };
    let Some(task) = shared.tasks.lock().unwrap_or_else(|p| p.into_inner()).by_arn.get(&arn).cloned() else { return };
    if task.is_final() || task.status == "CANCELLING" {
        return;
    }
    set(&shared, &arn, "RUNNING", None);
    let limit = shared.options.run.time_limit;
    let noisy = shared.options.noise == Noise::Calibrated;
    let stop = Arc::clone(&task.stop);
    let shots = task.shots;
    let ran = {
        let program = program.clone();
        tokio::task::spawn_blocking(move || {
            let stop = Stop::new(limit, &stop);
            let native = native.as_ref().map(|(ops, target)| (ops.as_slice(), target));
            program::run(&program, native, noisy, shots, seed, &stop)
        })
        .await
    };
    match ran {
        Ok(Ok(bits)) => {
            let result = results_json(&arn, &task, &program, &source, &bits);
            s3::put(
                &shared,
                &task.bucket,
                &format!("{}/results.json", task.directory),
                result.to_string().into_bytes(),
            );
            set(&shared, &arn, "COMPLETED", None);
        }
        Ok(Err(reason)) => set(&shared, &arn, "FAILED", Some(reason)),
        Err(panicked) => set(&shared, &arn, "FAILED", Some(format!("the simulation failed: {panicked}"))),
    }
    let mut tasks = shared.tasks.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(task) = tasks.by_arn.get_mut(&arn).filter(|t| t.status == "CANCELLING") {
        task.status = "CANCELLED";
        task.ended_at = Some(now());
    }
}

/// The task's `GateModelTaskResult`.
fn results_json(arn: &str, task: &Task, program: &TaskProgram, source: &str, bits: &[u128]) -> Value {
    let measurements: Vec<Vec<u8>> =
        bits.iter().map(|&shot| (0..program.measured.len()).map(|i| (shot >> i & 1) as u8).collect()).collect();
    json!({
        "braketSchemaHeader": { "name": "braket.task_result.gate_model_task_result", "version": "1" },
        "measurements": measurements,
        "measuredQubits": program.measured,
        "taskMetadata": {
            "braketSchemaHeader": { "name": "braket.task_result.task_metadata", "version": "1" },
            "id": arn,
            "shots": task.shots,
            "deviceId": task.device_arn,
            "createdAt": iso(task.created_at),
            "endedAt": iso(now()),
            "status": "COMPLETED",
        },
        "additionalMetadata": {
            "action": {
                "braketSchemaHeader": { "name": "braket.ir.openqasm.program", "version": "1" },
                "source": source,
            },
        },
    })
}

/// `GetQuantumTask`.
pub async fn get_task(
    State(shared): State<Arc<Shared>>,
    Path(arn): Path<String>,
    head: Head,
) -> Result<Response, BraketError> {
    signed_json(&shared, &head, b"")?;
    let tasks = shared.tasks.lock().unwrap_or_else(|p| p.into_inner());
    let task = tasks.by_arn.get(&arn).ok_or_else(|| BraketError::UnknownTask(arn.clone()))?;
    let mut value = task.summary(&arn);
    value["deviceParameters"] = json!("{}");
    if let Some(reason) = &task.failure_reason {
        value["failureReason"] = json!(reason);
    }
    if task.status == "QUEUED" {
        let position = tasks
            .order
            .iter()
            .filter(|a| tasks.by_arn.get(*a).is_some_and(|t| t.status == "QUEUED"))
            .position(|a| *a == arn)
            .map_or(0, |p| p + 1);
        value["queueInfo"] =
            json!({ "queue": "QUANTUM_TASKS_QUEUE", "position": position.to_string(), "queuePriority": "Normal" });
    }
    Ok(axum::Json(value).into_response())
}

/// `CancelQuantumTask`: a queued task is cancelled at once, a running one once its run stops.
pub async fn cancel_task(
    State(shared): State<Arc<Shared>>,
    Path(arn): Path<String>,
    head: Head,
    body: Bytes,
) -> Result<Response, BraketError> {
    signed_json(&shared, &head, &body)?;
    let mut tasks = shared.tasks.lock().unwrap_or_else(|p| p.into_inner());
    let task = tasks.by_arn.get_mut(&arn).ok_or_else(|| BraketError::UnknownTask(arn.clone()))?;
    if task.is_final() {
        return Err(BraketError::Conflict(arn));
    }
    task.stop.store(true, Ordering::Relaxed);
    task.status = if task.status == "QUEUED" { "CANCELLED" } else { "CANCELLING" };
    if task.status == "CANCELLED" {
        task.ended_at = Some(now());
    }
    Ok(axum::Json(json!({ "quantumTaskArn": arn, "cancellationStatus": task.status })).into_response())
}

/// `SearchQuantumTasks`: the tasks kept, newest first, filtered by `deviceArn`, `status` or
/// `quantumTaskArn` with `EQUAL` when asked; pages of `maxResults` (at most 100).
pub async fn search_tasks(State(shared): State<Arc<Shared>>, head: Head, body: Bytes) -> Result<Response, BraketError> {
    let request = signed_json(&shared, &head, &body)?;
    let filters = Filters::of(&request);
    let size = request["maxResults"].as_u64().unwrap_or(100).clamp(1, 100) as usize;
    let start: usize = request["nextToken"].as_str().and_then(|t| t.parse().ok()).unwrap_or(0);
    let tasks = shared.tasks.lock().unwrap_or_else(|p| p.into_inner());
    let matching: Vec<Value> = tasks
        .order
        .iter()
        .rev()
        .filter_map(|arn| tasks.by_arn.get(arn).map(|t| t.summary(arn)))
        .filter(|summary| filters.pass(summary))
        .collect();
    let page: Vec<Value> = matching.iter().skip(start).take(size).cloned().collect();
    let mut answer = json!({ "quantumTasks": page });
    if start + size < matching.len() {
        answer["nextToken"] = json!((start + size).to_string());
    }
    Ok(axum::Json(answer).into_response())
}
