//! The job store: every job the provider API knows, in submission order, bounded in number.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::time::iso8601;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Accepted; waits for a worker.
    Submitted,
    /// Queued by a worker.
    Ready,
    /// Running.
    Started,
    /// Finished with results.
    Completed,
    /// Finished with a failure.
    Failed,
    /// Canceled before it finished.
    Canceled,
}

impl Phase {
    /// The API's name (never `running`: qiskit-ionq rejects it).
    pub fn name(self) -> &'static str {
        match self {
            Phase::Submitted => "submitted",
            Phase::Ready => "ready",
            Phase::Started => "started",
            Phase::Completed => "completed",
            Phase::Failed => "failed",
            Phase::Canceled => "canceled",
        }
    }

    /// Whether the job is over.
    pub fn is_final(self) -> bool {
        matches!(self, Phase::Completed | Phase::Failed | Phase::Canceled)
    }
}

/// What a job asks for, as submitted.
#[derive(Debug, Clone)]
pub struct JobSpec {
    /// The backend (`simulator`, `qpu.aria-1`, ...).
    pub backend: String,
    /// Shots.
    pub shots: u64,
    /// Name given by the client.
    pub name: Option<String>,
    /// Metadata, echoed verbatim.
    pub metadata: Value,
    /// Noise model (`ideal` when not given).
    pub noise_model: String,
    /// Seed of the job's sampling, if the client gave one.
    pub noise_seed: Option<u64>,
    /// The circuit input as sent.
    pub input: Value,
    /// Qubits of the circuit.
    pub qubits: u32,
}

/// A job's failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFailure {
    /// IonQ failure code.
    pub code: &'static str,
    /// What went wrong.
    pub message: String,
}

/// One job.
#[derive(Debug, Clone)]
pub struct Job {
    /// Its id.
    pub id: String,
    /// Its number in submission order (mixed into its sampling seed).
    pub serial: u64,
    /// What it asks for.
    pub spec: Arc<JobSpec>,
    /// Where it is.
    pub phase: Phase,
    /// When it was submitted, started and finished.
    pub submitted_at: SystemTime,
    /// When it started running.
    pub started_at: Option<SystemTime>,
    /// When it finished.
    pub completed_at: Option<SystemTime>,
    /// Why it failed.
    pub failure: Option<JobFailure>,
    /// Its results: outcome (qubit `i` = bit `i`) and probability.
    pub results: Option<Arc<Vec<(u64, f64)>>>,
}

impl Job {
    /// The job as `GET /v0.4/jobs/{id}` shows it.
    pub fn to_json(&self) -> Value {
        let spec = &self.spec;
        let duration = match (self.started_at, self.completed_at) {
            (Some(start), Some(end)) => end.duration_since(start).ok().map(|d| d.as_millis() as u64),
            _ => None,
        };
        let results = (self.phase == Phase::Completed)
            .then(|| json!({ "probabilities": { "url": format!("/v0.4/jobs/{}/results/probabilities", self.id) } }));
        json!({
            "id": self.id,
            "status": self.phase.name(),
            "type": "ionq.circuit.v1",
            "backend": spec.backend,
            "dry_run": false,
            "cost_model": "quantum_compute_time",
            "submitter_id": "local",
            "project_id": null,
            "parent_job_id": null,
            "child_job_ids": null,
            "session_id": null,
            "metadata": spec.metadata,
            "name": spec.name,
            "submitted_at": iso8601(self.submitted_at),
            "started_at": self.started_at.map(iso8601),
            "completed_at": self.completed_at.map(iso8601),
            "predicted_wait_time_ms": null,
            "predicted_execution_duration_ms": null,
            "execution_duration_ms": duration,
            "shots": spec.shots,
            "noise": { "model": spec.noise_model },
            "failure": self.failure.as_ref().map(|f| json!({ "code": f.code, "message": f.message, "error": f.message })),
            "output": {},
            "settings": {},
            "stats": { "qubits": spec.qubits, "circuits": 1 },
            "results": results,
        })
    }
}

/// Why a job could not be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreFull {
    /// The limit.
    pub limit: usize,
}

/// All jobs, bounded: the oldest finished ones make room for new ones.
#[derive(Debug, Default)]
pub struct JobStore {
    jobs: HashMap<String, Job>,
    /// Ids in submission order (oldest first); may hold ids of deleted jobs until eviction.
    order: VecDeque<String>,
    limit: usize,
    serial: u64,
    /// Outcomes held in the results of all stored jobs.
    result_entries: usize,
}

impl JobStore {
    /// A store of at most `limit` jobs.
    pub fn new(limit: usize) -> JobStore {
        JobStore { limit: limit.max(1), ..JobStore::default() }
    }

    /// Number of stored jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether no job is stored.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Stores a new job, dropping the oldest finished jobs if the store is full.
    pub fn insert(&mut self, id: String, spec: JobSpec) -> Result<&Job, StoreFull> {
        while self.jobs.len() >= self.limit {
            let oldest_final =
                self.order.iter().position(|id| self.jobs.get(id).is_none_or(|job| job.phase.is_final()));
            match oldest_final {
                Some(index) => {
                    if let Some(id) = self.order.remove(index) {
                        self.remove(&id);
                    }
                }
                None => return Err(StoreFull { limit: self.limit }),
            }
        }
        // Ids of deleted jobs are dropped lazily; keep the queue from growing without bound.
        if self.order.len() > 2 * self.limit {
            let jobs = &self.jobs;
            self.order.retain(|id| jobs.contains_key(id));
        }
        self.serial += 1;
        let job = Job {
            id: id.clone(),
            serial: self.serial,
            spec: Arc::new(spec),
            phase: Phase::Submitted,
            submitted_at: SystemTime::now(),
            started_at: None,
            completed_at: None,
            failure: None,
            results: None,
        };
        self.order.push_back(id.clone());
        Ok(self.jobs.entry(id).or_insert(job))
    }

    /// The job with this id.
    pub fn get(&self, id: &str) -> Option<&Job> {
        self.jobs.get(id)
    }

    /// The job with this id, to change it.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Job> {
        self.jobs.get_mut(id)
    }

    /// Removes a job.
    pub fn remove(&mut self, id: &str) -> Option<Job> {
        let job = self.jobs.remove(id)?;
        self.result_entries -= job.results.as_ref().map_or(0, |r| r.len());
        Some(job)
    }

    /// Stores a finished job's results, then drops the oldest other finished jobs while all
    /// stored results together hold more than `budget` outcomes.
    pub fn complete(&mut self, id: &str, results: Vec<(u64, f64)>, budget: usize) {
        let Some(job) = self.jobs.get_mut(id) else { return };
        self.result_entries += results.len();
        job.results = Some(Arc::new(results));
        job.phase = Phase::Completed;
        while self.result_entries > budget {
            let jobs = &self.jobs;
            let oldest = self.order.iter().position(|other| {
                other != id && jobs.get(other).is_some_and(|job| job.phase.is_final() && job.results.is_some())
            });
            let Some(index) = oldest else { break };
            if let Some(other) = self.order.remove(index) {
                self.remove(&other);
            }
        }
    }

    /// Outcomes held in the results of all stored jobs.
    pub fn result_entries(&self) -> usize {
        self.result_entries
    }

    /// Jobs newest first, starting at `after` (exclusive) when given, optionally only those in
    /// `phase`; at most `limit` of them, and the id to continue from if there are more.
    pub fn list(&self, phase: Option<Phase>, limit: usize, after: Option<&str>) -> (Vec<&Job>, Option<String>) {
        let mut newest_first = self.order.iter().rev().filter_map(|id| self.jobs.get(id));
        if let Some(after) = after {
            newest_first.by_ref().find(|job| job.id == after);
        }
        let mut page = Vec::new();
        for job in newest_first.filter(|job| phase.is_none_or(|p| job.phase == p)) {
            if page.len() == limit {
                let next = page_last(&page);
                return (page, next);
            }
            page.push(job);
        }
        (page, None)
    }
}

/// The id of the last job of a full page: listing continues after it.
fn page_last(page: &[&Job]) -> Option<String> {
    page.last().map(|job| job.id.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> JobSpec {
        JobSpec {
            backend: "simulator".into(),
            shots: 100,
            name: None,
            metadata: json!({"shots": "100"}),
            noise_model: "ideal".into(),
            noise_seed: None,
            input: json!({}),
            qubits: 1,
        }
    }

    #[test]
    fn the_oldest_finished_jobs_make_room() {
        let mut store = JobStore::new(2);
        store.insert("a".into(), spec()).expect("room");
        store.insert("b".into(), spec()).expect("room");
        assert_eq!(store.insert("c".into(), spec()).err(), Some(StoreFull { limit: 2 }));
        store.get_mut("b").expect("stored").phase = Phase::Completed;
        store.insert("c".into(), spec()).expect("b made room");
        assert!(store.get("b").is_none() && store.get("a").is_some() && store.len() == 2);
    }

    #[test]
    fn listing_pages_newest_first() {
        let mut store = JobStore::new(10);
        for id in ["a", "b", "c", "d"] {
            store.insert(id.into(), spec()).expect("room");
        }
        store.get_mut("c").expect("stored").phase = Phase::Failed;
        let (page, next) = store.list(None, 2, None);
        assert_eq!(page.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(), ["d", "c"]);
        assert_eq!(next.as_deref(), Some("c"));
        let (page, next) = store.list(None, 2, next.as_deref());
        assert_eq!(page.iter().map(|j| j.id.as_str()).collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(next, None);
        let (failed, _) = store.list(Some(Phase::Failed), 10, None);
        assert_eq!(failed.len(), 1);
        store.complete("a", vec![(0, 0.5), (1, 0.5)], 3);
        store.complete("b", vec![(0, 1.0)], 3);
        assert_eq!(store.result_entries(), 3);
        store.complete("d", vec![(1, 1.0)], 3);
        assert!(store.get("a").is_none(), "the oldest results made room");
        assert_eq!(store.result_entries(), 2);
        let shown = store.get("c").expect("stored").to_json();
        assert_eq!(shown["status"], "failed");
        assert_eq!(shown["metadata"]["shots"], "100");
        assert!(shown["results"].is_null());
    }
}
