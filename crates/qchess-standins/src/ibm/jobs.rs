//! Jobs of the IBM stand-in: checked when submitted ([`prepare`](super::pubs::prepare)), then queued, run in
//! the background and kept with their results, as the service shows them:
//! `Queued -> Running -> Completed | Failed | Cancelled`.
//!
//! A job waits the server's `--queue-delay-ms` in the queue, then runs on its own thread with
//! the job time limit; cancelling stops it at its next check. Past the queue it waits its turn
//! on the device (a dedicated session holds one, [`sessions`](super::sessions)) and a run slot,
//! asleep until something it waits on changes ([`turns`](super::turns)). The seconds it runs
//! are its usage. With a database ([`persist`](super::persist)) every change is written as it
//! happens. A job that
//! runs out of time is cancelled with the service's reason code 1305 ("ran too long"); one
//! that cannot be simulated (a state too large) fails with code 1517. Results are Qiskit's typed JSON when the
//! client asked for it (`support_qiskit`), else the plain JSON of IBM's REST guides.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use qchess_route::Target;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::busy::{DeviceQueues, Holder};
use super::noise::Calibration;
use super::pubs::{Prepared, Work};
use super::record::Record;
use super::sampler::PubError;
use super::sessions::Sessions;
use super::turns::{Slots, Wake};
use super::{estimator, executor, runtime, sampler};
use crate::stop::Stop;

/// The most jobs kept; past it the oldest finished ones are forgotten.
pub const MAX_KEPT_JOBS: usize = 1000;

/// The length of a usage period, in seconds (28 days, rolling, as the service's open plan
/// counts them).
pub const USAGE_PERIOD_SECONDS: f64 = 28.0 * 86_400.0;

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Waiting to run.
    Queued,
    /// Running.
    Running,
    /// Finished with results.
    Completed,
    /// Stopped by an error.
    Failed,
    /// Cancelled by its owner or by the time limit.
    Cancelled,
}

impl Status {
    /// The service's name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Queued => "Queued",
            Status::Running => "Running",
            Status::Completed => "Completed",
            Status::Failed => "Failed",
            Status::Cancelled => "Cancelled",
        }
    }

    /// Whether the job is over.
    pub fn is_final(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }
}

/// A job as kept.
#[derive(Debug, Clone)]
pub struct Job {
    /// The device.
    pub backend: String,
    /// `sampler` or `estimator`.
    pub program: &'static str,
    /// Where it is.
    pub status: Status,
    /// The results body (of a completed job).
    pub results: Value,
    /// Why it failed or was cancelled.
    pub reason: Option<String>,
    /// The service's reason code, with the reason.
    pub reason_code: Option<u32>,
    /// When it was submitted, started and finished (seconds since the epoch).
    pub created: f64,
    /// When it started running.
    pub started: Option<f64>,
    /// When it finished.
    pub finished: Option<f64>,
    /// The session or batch it runs in.
    pub session: Option<String>,
    /// Its tags, as its owner gave them.
    pub tags: Vec<String>,
    /// Seconds it ran on the device (its usage).
    pub quantum_seconds: f64,
    /// Set to stop it.
    pub cancel: Arc<AtomicBool>,
    /// Order of submission (to forget the oldest first).
    pub(super) serial: u64,
}

impl Job {
    /// Its place in the order of submission.
    pub fn serial(&self) -> u64 {
        self.serial
    }
}

/// Jobs by id.
#[derive(Debug, Default)]
pub struct Jobs {
    jobs: HashMap<String, Job>,
    next: u64,
    /// What jobs waiting for their turn sleep on; cancelling wakes them.
    wake: Arc<Wake>,
    /// Where each change is written, when jobs outlive the server.
    record: Option<Record<Job>>,
    /// When jobs forgotten here ended and the seconds they ran, for the instance's usage.
    forgotten: Vec<(f64, f64)>,
}

pub(super) use super::clock::now;

/// What a job runs with.
pub struct Run {
    /// The checked request.
    pub prepared: Prepared,
    /// The device.
    pub target: Target,
    /// Its calibration when noise is on.
    pub calibration: Option<Calibration>,
    /// The seed of the job's shots (the request's `seed_simulator` wins).
    pub seed: u64,
    /// How long it may wait in the queue.
    pub queue_delay: Duration,
    /// How long it may run.
    pub time_limit: Duration,
    /// The noise model's name, for the metadata.
    pub noise: String,
    /// The run slots it waits for.
    pub slots: Arc<Slots>,
    /// The session or batch it runs in.
    pub session: Option<String>,
    /// The sessions, whose turns it waits for.
    pub sessions: Arc<Mutex<Sessions>>,
    /// Its tags.
    pub tags: Vec<String>,
    /// The devices' queues under other users' jobs (`--ibm-busy-jobs`).
    pub queues: Arc<DeviceQueues>,
}

/// What a job is filed under.
struct Labels {
    session: Option<String>,
    tags: Vec<String>,
}

impl Jobs {
    /// The job `id`.
    pub fn get(&self, id: &str) -> Option<&Job> {
        self.jobs.get(id)
    }

    /// Every job kept, with its id, in no order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Job)> {
        self.jobs.iter()
    }

    /// Stores a new queued job and returns its id and cancel flag.
    fn add(&mut self, backend: String, program: &'static str, labels: Labels) -> (String, Arc<AtomicBool>) {
        if self.jobs.len() >= MAX_KEPT_JOBS {
            let oldest = self
                .jobs
                .iter()
                .filter(|(_, j)| j.status.is_final())
                .min_by_key(|(_, j)| j.serial)
                .map(|(id, _)| id.clone());
            if let Some(job) = oldest.and_then(|id| self.jobs.remove(&id)) {
                self.forget_usage(job.finished.unwrap_or(job.created), job.quantum_seconds);
            }
        }
        let id = format!("d{:019x}", rand::random::<u64>() >> 1);
        let cancel = Arc::new(AtomicBool::new(false));
        self.next += 1;
        let job = Job {
            backend,
            program,
            status: Status::Queued,
            results: Value::Null,
            reason: None,
            reason_code: None,
            created: now(),
            started: None,
            finished: None,
            session: labels.session,
            tags: labels.tags,
            quantum_seconds: 0.0,
            cancel: Arc::clone(&cancel),
            serial: self.next,
        };
        self.jobs.insert(id.clone(), job);
        self.record(&id);
        (id, cancel)
    }

    /// Writes job `id` as it now is, when jobs outlive the server.
    fn record(&self, id: &str) {
        if let (Some(record), Some(job)) = (&self.record, self.jobs.get(id)) {
            record.write(id, job);
        }
    }

    /// Takes back the jobs an earlier run of the server kept (in order of submission), the
    /// usage of those it forgot, and writes every change from now on with `record`.
    pub fn restore(&mut self, kept: Vec<(String, Job)>, forgotten: Vec<(f64, f64)>, record: Record<Job>) {
        for (id, job) in kept {
            self.next = self.next.max(job.serial);
            self.jobs.insert(id, job);
        }
        self.forgotten = forgotten;
        self.record = Some(record);
    }

    /// How many jobs were ever submitted here (the number of the last).
    pub fn submitted(&self) -> u64 {
        self.next
    }

    /// What jobs waiting for their turn sleep on.
    pub fn wake(&self) -> Arc<Wake> {
        Arc::clone(&self.wake)
    }

    /// Keeps the usage of a job no longer kept (ended at `at`, ran `seconds`).
    fn forget_usage(&mut self, at: f64, seconds: f64) {
        if seconds > 0.0 {
            let since = now() - USAGE_PERIOD_SECONDS;
            self.forgotten.retain(|&(at, _)| at >= since);
            self.forgotten.push((at, seconds));
        }
    }

    /// Seconds the jobs ran on the devices, of those that ended at `since` or later.
    pub fn usage_since(&self, since: f64) -> f64 {
        let kept = self.jobs.values().filter(|job| job.finished.unwrap_or(job.created) >= since);
        let forgotten = self.forgotten.iter().filter(|&&(at, _)| at >= since).map(|&(_, seconds)| seconds);
        kept.map(|job| job.quantum_seconds).chain(forgotten).sum()
    }

    /// Whether the store has room for another job.
    pub fn full(&self) -> bool {
        self.jobs.len() >= MAX_KEPT_JOBS && self.jobs.values().all(|j| !j.status.is_final())
    }

    /// Cancels a job that is not over; `Err` with its status otherwise.
    pub fn cancel(&mut self, id: &str) -> Option<Result<(), Status>> {
        self.cancel_for(id, "Cancelled by the user.")
    }

    fn cancel_for(&mut self, id: &str, reason: &str) -> Option<Result<(), Status>> {
        let job = self.jobs.get_mut(id)?;
        if job.status.is_final() {
            return Some(Err(job.status));
        }
        job.cancel.store(true, Ordering::SeqCst);
        job.status = Status::Cancelled;
        job.reason = Some(reason.to_owned());
        job.finished = Some(now());
        self.record(id);
        self.wake.notify();
        Some(Ok(()))
    }

    /// How many jobs of each session are not over yet.
    pub fn pending_by_session(&self) -> HashMap<String, usize> {
        let mut pending = HashMap::new();
        for job in self.jobs.values().filter(|job| !job.status.is_final()) {
            if let Some(session) = &job.session {
                *pending.entry(session.clone()).or_insert(0) += 1;
            }
        }
        pending
    }

    /// Cancels the queued jobs of `session` for `reason`; running ones finish.
    pub fn cancel_queued(&mut self, session: &str, reason: &str) {
        let queued: Vec<String> = self
            .jobs
            .iter()
            .filter(|(_, job)| job.status == Status::Queued && job.session.as_deref() == Some(session))
            .map(|(id, _)| id.clone())
            .collect();
        for id in queued {
            self.cancel_for(&id, reason);
        }
    }
}

/// Moves the sessions on with the clock and cancels the queued jobs of those that just passed
/// their `max_ttl`, as the service does; wakes the jobs waiting when a session changed.
pub fn refresh_sessions(jobs: &Mutex<Jobs>, sessions: &Mutex<Sessions>) {
    let pending = jobs.lock().unwrap_or_else(|p| p.into_inner()).pending_by_session();
    let (expired, changed) = {
        let mut sessions = sessions.lock().unwrap_or_else(|p| p.into_inner());
        let before = sessions.changes();
        let expired = sessions.refresh(now(), &pending);
        (expired, sessions.changes() != before)
    };
    let mut jobs = jobs.lock().unwrap_or_else(|p| p.into_inner());
    for session in expired {
        jobs.cancel_queued(&session, "Cancelled: its session ran past its maximum time to live.");
    }
    if changed {
        jobs.wake.notify();
    }
}

/// Submits `run` as a job of `backend`: stored as queued, run on a thread of its own.
pub fn submit(jobs: &Arc<Mutex<Jobs>>, backend: String, program: &'static str, mut run: Run) -> String {
    let labels = Labels { session: run.session.clone(), tags: std::mem::take(&mut run.tags) };
    let (id, cancel) = jobs.lock().unwrap_or_else(|p| p.into_inner()).add(backend.clone(), program, labels);
    let (jobs, job_id) = (Arc::clone(jobs), id.clone());
    std::thread::spawn(move || {
        let ran = execute(&jobs, &job_id, &backend, &cancel, &run);
        if let (Some(session), Some(ran)) = (&run.session, ran) {
            run.sessions.lock().unwrap_or_else(|p| p.into_inner()).finished(session, ran, now());
            // Its session's next job, or the jobs its device kept waiting, may go now.
            run.slots.wake().notify();
        }
        if run.session.is_some() {
            refresh_sessions(&jobs, &run.sessions);
        }
    });
    id
}

fn update(jobs: &Mutex<Jobs>, id: &str, change: impl FnOnce(&mut Job)) {
    let mut jobs = jobs.lock().unwrap_or_else(|p| p.into_inner());
    // A cancelled job keeps its status whatever its thread finds.
    if let Some(job) = jobs.jobs.get_mut(id).filter(|j| j.status != Status::Cancelled) {
        change(job);
        jobs.record(id);
    }
}

/// Waits for the job's turn, runs it and keeps what came of it; the seconds it ran, or `None`
/// when it never started.
fn execute(jobs: &Mutex<Jobs>, id: &str, backend: &str, cancel: &AtomicBool, run: &Run) -> Option<f64> {
    let wake = run.slots.wake();
    if !wake.sleep_until(Instant::now() + run.queue_delay, cancel) {
        return None;
    }
    // Its turn on a busy device, behind other users' jobs unless its session holds the device.
    let holder = || device_holder(jobs, &run.sessions, run.session.as_deref(), backend);
    let _turn = run.queues.wait_turn(backend, cancel, holder)?;
    // A session's turn on the device first: a held device keeps every other job waiting until
    // a job ends, a session changes or a session's time to live runs out.
    loop {
        let seen = wake.seen();
        refresh_sessions(jobs, &run.sessions);
        if cancel.load(Ordering::SeqCst) {
            return None;
        }
        let mut sessions = run.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let now = now();
        if sessions.may_start(run.session.as_deref(), backend, now) {
            break;
        }
        let until = sessions
            .next_change(now)
            .and_then(|at| Duration::try_from_secs_f64(at - now).ok())
            .and_then(|wait| Instant::now().checked_add(wait));
        drop(sessions);
        wake.wait(seen, until);
    }
    if !run.slots.take(cancel) {
        // Counted as running by its session since its turn came: let go of it as run.
        return Some(0.0);
    }
    let started = now();
    update(jobs, id, |job| {
        job.status = Status::Running;
        job.started = Some(now());
    });
    let stop = Stop::new(run.time_limit, cancel);
    let outcome = results(run, &stop);
    let ran = now() - started;
    {
        // Counted even when the job was cancelled while it ran: the device was busy.
        let mut jobs = jobs.lock().unwrap_or_else(|p| p.into_inner());
        let cancelled = jobs.jobs.get_mut(id).map(|job| {
            job.quantum_seconds = ran;
            job.status == Status::Cancelled
        });
        if cancelled == Some(true) {
            jobs.record(id);
        }
    }
    run.slots.give_back();
    update(jobs, id, |job| {
        job.finished = Some(now());
        match outcome {
            Ok(results) => {
                job.status = Status::Completed;
                job.results = results;
            }
            Err(PubError::Stopped(reason)) => {
                job.status = Status::Cancelled;
                job.reason = Some(format!("Ran too long: {reason}"));
                job.reason_code = Some(1305);
            }
            Err(PubError::Invalid(reason)) => {
                job.status = Status::Failed;
                job.reason = Some(reason);
                job.reason_code = Some(1517);
            }
        }
    });
    Some(ran)
}

/// Who holds `backend`, as a job of `session` (or a lone job) sees it.
fn device_holder(jobs: &Mutex<Jobs>, sessions: &Mutex<Sessions>, session: Option<&str>, backend: &str) -> Holder {
    refresh_sessions(jobs, sessions);
    match sessions.lock().unwrap_or_else(|p| p.into_inner()).holder(backend) {
        None => Holder::Nobody,
        Some(holder) if Some(holder) == session => Holder::Mine,
        Some(_) => Holder::Other,
    }
}

/// Runs every pub and writes the results body.
fn results(run: &Run, stop: &Stop) -> Result<Value, PubError> {
    let seed = run.prepared.seed.unwrap_or(run.seed);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let calibration = run.calibration.as_ref();
    let typed = run.prepared.typed;
    let stand_in = json!({ "noise": run.noise, "seed": seed, "ignored_options": run.prepared.ignored_options });
    let mut pub_results = Vec::new();
    match &run.prepared.work {
        Work::Executor(program) => return executor::run(program, &run.target, calibration, &mut rng, stop, stand_in),
        Work::Sampler(pubs) => {
            for (index, pub_) in pubs.iter().enumerate() {
                let (registers, shots) =
                    sampler::run(pub_, &run.target, calibration, &mut rng, stop).map_err(|e| in_pub(index, e))?;
                pub_results.push(if typed {
                    sampler::typed_result(pub_, &registers, &shots)
                } else {
                    sampler::plain_result(pub_, &registers, &shots)
                });
            }
        }
        Work::Estimator(pubs) => {
            for (index, pub_) in pubs.iter().enumerate() {
                let estimates =
                    estimator::run(pub_, &run.target, calibration, &mut rng, stop).map_err(|e| in_pub(index, e))?;
                pub_results.push(if typed {
                    estimator::typed_result(pub_, &estimates)
                } else {
                    estimator::plain_result(pub_, &estimates)
                });
            }
        }
    }
    let metadata = json!({
        "version": 2,
        "stand_in": stand_in,
    });
    Ok(if typed {
        runtime::primitive_result(pub_results, metadata)
    } else {
        json!({ "results": pub_results, "metadata": metadata })
    })
}

fn in_pub(index: usize, error: PubError) -> PubError {
    match error {
        PubError::Invalid(reason) => PubError::Invalid(format!("pub {index}: {reason}")),
        stopped => stopped,
    }
}
