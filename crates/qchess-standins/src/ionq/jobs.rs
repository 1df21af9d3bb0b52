//! The job store: every job the provider API knows, in submission order, bounded in number.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use qchess_core::calendar;
use serde_json::{Value, json};

use crate::stop::Stopped;

/// `2026-01-01T00:00:00.000Z` for a time after 1970 (earlier times read as the epoch).
pub fn iso8601(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    calendar::iso8601(i64::try_from(since.as_secs()).unwrap_or(i64::MAX), since.subsec_millis())
}

/// A fresh job id in UUID v4 form, as IonQ's.
pub fn new_job_id() -> String {
    let bits: u128 = rand::random::<u128>() & !(0xF << 76) & !(0x3 << 62) | (0x4 << 76) | (0x2 << 62);
    let hex = format!("{bits:032x}");
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

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

impl From<Stopped> for JobFailure {
    fn from(stopped: Stopped) -> JobFailure {
        let code = match stopped {
            Stopped::Told => "ServerShutdown",
            Stopped::TimeLimit { .. } => "TimeLimitExceeded",
        };
        JobFailure { code, message: stopped.to_string() }
    }
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
    /// Whether its owner read its outcome (fetched the results, saw the failure, or canceled
    /// it): only read jobs, and those past the retention time, make room for new ones.
    pub read: bool,
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

/// Why a job could not be stored: every stored job is unfinished or holds results (or a
/// failure) its owner has not read yet, and none is older than the retention time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreFull {
    /// The most jobs the store keeps.
    pub limit: usize,
    /// Jobs not finished yet.
    pub unfinished: usize,
    /// Finished jobs whose owner has not read them.
    pub unread: usize,
    /// Whether the outcomes of stored results, rather than the number of jobs, are at the limit.
    pub results_full: bool,
    /// Seconds until a stored job may be dropped at the latest (the oldest unread job reaches
    /// the retention time), or 1 while only unfinished jobs fill the store.
    pub retry_after: u64,
}

/// All jobs, bounded in number and in stored outcomes. No accepted job is dropped before its
/// owner read it: only jobs that were read (results fetched, or a failure seen) or that finished
/// longer than the retention time ago make room for new ones.
#[derive(Debug, Default)]
pub struct JobStore {
    jobs: HashMap<String, Job>,
    /// Ids in submission order (oldest first); may hold ids of deleted jobs until eviction.
    order: VecDeque<String>,
    limit: usize,
    /// Outcomes all stored results may hold together.
    result_budget: usize,
    /// How long an unread finished job is kept.
    retention: Duration,
    serial: u64,
    /// Outcomes held in the results of all stored jobs.
    result_entries: usize,
}

impl JobStore {
    /// A store of at most `limit` jobs holding at most `result_budget` outcomes, keeping unread
    /// finished jobs for `retention`.
    pub fn new(limit: usize, result_budget: usize, retention: Duration) -> JobStore {
        JobStore { limit: limit.max(1), result_budget, retention, ..JobStore::default() }
    }

    /// Number of stored jobs.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether no job is stored.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Whether a job may be dropped to make room: it is over, and its owner read it or it
    /// finished longer than the retention time ago.
    fn is_evictable(&self, job: &Job, now: SystemTime) -> bool {
        job.phase.is_final()
            && (job.read
                || job.completed_at.is_none_or(|done| now.duration_since(done).is_ok_and(|age| age >= self.retention)))
    }

    /// Drops the oldest evictable job other than `keep`; returns whether there was one.
    fn evict_one(&mut self, keep: Option<&str>, now: SystemTime) -> bool {
        let oldest = self.order.iter().position(|id| {
            Some(id.as_str()) != keep && self.jobs.get(id).is_none_or(|job| self.is_evictable(job, now))
        });
        let Some(index) = oldest else { return false };
        if let Some(id) = self.order.remove(index) {
            self.remove(&id);
        }
        true
    }

    /// Why the store cannot take another job now.
    fn full(&self, results_full: bool, now: SystemTime) -> StoreFull {
        let unfinished = self.jobs.values().filter(|job| !job.phase.is_final()).count();
        let expiries = self.jobs.values().filter(|job| job.phase.is_final() && !job.read).filter_map(|job| {
            let done = job.completed_at?;
            Some((done + self.retention).duration_since(now).unwrap_or_default().as_secs())
        });
        let (unread, soonest) =
            expiries.fold((0, None::<u64>), |(n, soonest), s| (n + 1, Some(soonest.map_or(s, |m| m.min(s)))));
        let retry_after = if unfinished > 0 { 1 } else { soonest.unwrap_or(1).max(1) };
        StoreFull { limit: self.limit, unfinished, unread, results_full, retry_after }
    }

    /// Stores a new job, dropping the oldest evictable jobs while the store is full (in number,
    /// or in stored outcomes); refuses it when nothing may be dropped.
    pub fn insert(&mut self, id: String, spec: JobSpec) -> Result<&Job, StoreFull> {
        let now = SystemTime::now();
        while self.jobs.len() >= self.limit || self.result_entries >= self.result_budget {
            if !self.evict_one(None, now) {
                return Err(self.full(self.jobs.len() < self.limit, now));
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
            submitted_at: now,
            started_at: None,
            completed_at: None,
            failure: None,
            results: None,
            read: false,
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

    /// Stores a finished job's results, then drops the oldest evictable other jobs while all
    /// stored results together hold more outcomes than the budget. Unread results stay even
    /// over the budget (new submissions are refused meanwhile).
    pub fn complete(&mut self, id: &str, results: Vec<(u64, f64)>) {
        let Some(job) = self.jobs.get_mut(id) else { return };
        self.result_entries += results.len();
        job.results = Some(Arc::new(results));
        job.phase = Phase::Completed;
        let now = SystemTime::now();
        job.completed_at.get_or_insert(now);
        while self.result_entries > self.result_budget && self.evict_one(Some(id), now) {}
    }

    /// Number of stored jobs in `phase`.
    pub fn count(&self, phase: Phase) -> usize {
        self.jobs.values().filter(|job| job.phase == phase).count()
    }

    /// Notes that the job's owner read its outcome, so it may make room for new jobs.
    pub fn mark_read(&mut self, id: &str) {
        if let Some(job) = self.jobs.get_mut(id) {
            job.read = true;
        }
    }

    /// Fails every job that has not started, and returns how many there were.
    pub fn fail_unstarted(&mut self, failure: &JobFailure) -> usize {
        self.fail_where(|phase| matches!(phase, Phase::Submitted | Phase::Ready), failure)
    }

    /// Fails every job still running, and returns how many there were.
    pub fn fail_running(&mut self, failure: &JobFailure) -> usize {
        self.fail_where(|phase| phase == Phase::Started, failure)
    }

    fn fail_where(&mut self, which: impl Fn(Phase) -> bool, failure: &JobFailure) -> usize {
        let now = SystemTime::now();
        let mut failed = 0;
        for job in self.jobs.values_mut().filter(|job| which(job.phase)) {
            job.phase = Phase::Failed;
            job.failure = Some(failure.clone());
            job.completed_at = Some(now);
            failed += 1;
        }
        failed
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

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn only_read_or_expired_jobs_make_room() {
        let mut store = JobStore::new(2, 1000, HOUR);
        store.insert("a".into(), spec()).expect("room");
        store.insert("b".into(), spec()).expect("room");
        let full = store.insert("c".into(), spec()).expect_err("two unfinished jobs");
        assert_eq!((full.limit, full.unfinished, full.unread, full.results_full), (2, 2, 0, false));
        assert_eq!(full.retry_after, 1);
        store.complete("b", vec![(0, 1.0)]);
        store.complete("a", vec![(1, 1.0)]);
        let full = store.insert("c".into(), spec()).expect_err("nobody read a or b");
        assert_eq!((full.unfinished, full.unread), (0, 2));
        assert!((3590..=3600).contains(&full.retry_after), "{}", full.retry_after);
        store.mark_read("b");
        store.insert("c".into(), spec()).expect("b was read");
        assert!(store.get("b").is_none() && store.get("a").is_some() && store.len() == 2);
        // Past the retention time unread results may go too.
        let mut brief = JobStore::new(1, 1000, Duration::ZERO);
        brief.insert("a".into(), spec()).expect("room");
        brief.complete("a", vec![(0, 1.0)]);
        brief.insert("b".into(), spec()).expect("a expired");
        assert!(brief.get("a").is_none());
    }

    #[test]
    fn unread_results_stay_over_the_budget_and_hold_off_submissions() {
        let mut store = JobStore::new(10, 3, HOUR);
        for id in ["a", "b"] {
            store.insert(id.into(), spec()).expect("room");
        }
        store.complete("a", vec![(0, 0.5), (1, 0.5)]);
        store.complete("b", vec![(0, 0.5), (1, 0.5)]);
        assert_eq!(store.result_entries(), 4, "unread results are kept over the budget");
        let full = store.insert("c".into(), spec()).expect_err("results full");
        assert!(full.results_full && full.unread == 2);
        store.mark_read("a");
        store.insert("c".into(), spec()).expect("a made room");
        assert_eq!(store.result_entries(), 2);
        assert!(store.get("a").is_none());
        let failure = JobFailure { code: "ServerShutdown", message: "stopping".into() };
        assert_eq!(store.fail_unstarted(&failure), 1);
        assert_eq!(store.get("c").expect("kept").phase, Phase::Failed);
        assert_eq!(store.fail_running(&failure), 0);
    }

    #[test]
    fn times_and_ids_look_as_ionq_writes_them() {
        assert_eq!(iso8601(UNIX_EPOCH + Duration::from_millis(951_782_400_123)), "2000-02-29T00:00:00.123Z");
        assert_eq!(iso8601(UNIX_EPOCH - Duration::from_secs(5)), "1970-01-01T00:00:00.000Z");
        let id = new_job_id();
        assert_eq!(id.len(), 36);
        assert_eq!((&id[14..15], id.matches('-').count()), ("4", 4), "{id}");
        assert_ne!(id, new_job_id());
    }

    #[test]
    fn listing_pages_newest_first() {
        let mut store = JobStore::new(10, 3, HOUR);
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
        store.complete("a", vec![(0, 0.5), (1, 0.5)]);
        store.complete("b", vec![(0, 1.0)]);
        assert_eq!(store.result_entries(), 3);
        store.mark_read("a");
        store.complete("d", vec![(1, 1.0)]);
        assert!(store.get("a").is_none(), "the oldest read results made room");
        assert_eq!(store.result_entries(), 2);
        let shown = store.get("c").expect("stored").to_json();
        assert_eq!(shown["status"], "failed");
        assert_eq!(shown["metadata"]["shots"], "100");
        assert!(shown["results"].is_null());
    }
}
