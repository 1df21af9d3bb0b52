//! The IonQ stand-in's worker: moves jobs through `submitted -> ready -> started -> completed |
//! failed`, `workers` at a time, each after the queue delay, simulated on a blocking thread
//! within the job time limit.

use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;
use tokio::sync::mpsc;

use super::IonqStandIn;
use super::jobs::{JobFailure, JobSpec, Phase};
use super::routes::backend_qubits;
use super::simulate::{exact_distribution, gate_count, read_circuit, sample_shots};
use crate::stop::Stop;

/// The stand-in's worker: spawn [`Worker::run`] on the runtime that serves the stand-in.
#[derive(Debug)]
pub struct Worker {
    pub(super) stand_in: Arc<IonqStandIn>,
    pub(super) queue: mpsc::UnboundedReceiver<String>,
}

impl Worker {
    /// Runs queued jobs, `workers` at a time, until the task is aborted.
    pub async fn run(self) {
        let Worker { stand_in, mut queue } = self;
        let permits = Arc::new(tokio::sync::Semaphore::new(stand_in.options.run.workers));
        while let Some(id) = queue.recv().await {
            let Ok(permit) = Arc::clone(&permits).acquire_owned().await else { break };
            let state = Arc::clone(&stand_in);
            tokio::spawn(async move {
                let _permit = permit;
                if !advance(&state, &id, Phase::Ready) {
                    return;
                }
                if !state.options.run.queue_delay.is_zero() {
                    tokio::time::sleep(state.options.run.queue_delay).await;
                }
                let spec = {
                    let jobs = state.jobs();
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
                    tokio::task::spawn_blocking(move || execute(&worker_state, &spec, serial)).await.unwrap_or_else(
                        |e| Err(JobFailure { code: "InternalError", message: format!("the simulation crashed: {e}") }),
                    );
                finish(&state, &id, outcome);
            });
        }
    }
}

/// Moves one job to `phase` unless it was canceled or deleted meanwhile; returns whether it did.
fn advance(state: &IonqStandIn, id: &str, phase: Phase) -> bool {
    let mut jobs = state.jobs();
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

/// Simulates one job.
fn execute(state: &IonqStandIn, spec: &JobSpec, serial: u64) -> Result<Vec<(u64, f64)>, JobFailure> {
    let backend_qubits = backend_qubits(state, &spec.backend).unwrap_or(0);
    if spec.qubits > backend_qubits {
        return Err(JobFailure {
            code: "NotEnoughQubits",
            message: format!("the circuit uses {} qubits; backend {} has {backend_qubits}", spec.qubits, spec.backend),
        });
    }
    let mut circuit = read_circuit(&spec.input, spec.qubits)?;
    let defect = state.options.defect;
    if let Some(defect) = defect {
        defect.apply_to_circuit(&mut circuit);
    }
    let stop = Stop::new(state.options.run.time_limit, &state.stop_jobs);
    let exact = exact_distribution(&circuit, &state.options.limits, &stop)?;
    let hardware = spec.backend.starts_with("qpu") || spec.noise_model != "ideal";
    if !hardware {
        return Ok(match defect {
            Some(defect) => defect.apply_to_exact(exact, spec.qubits),
            None => exact,
        });
    }
    let seed = spec.noise_seed.unwrap_or(state.options.run.seed ^ serial.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let shots = sample_shots(&exact, spec.qubits, gate_count(&circuit), spec.shots, state.options.noise, seed, &stop)?;
    Ok(match defect {
        Some(defect) => defect.apply_to_shots(shots, spec.shots, spec.qubits, seed.rotate_left(17)),
        None => shots,
    })
}

/// Records a job's outcome unless it was canceled or deleted meanwhile.
fn finish(state: &IonqStandIn, id: &str, outcome: Result<Vec<(u64, f64)>, JobFailure>) {
    let mut jobs = state.jobs();
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
