//! Sessions and batches of the IBM stand-in, as the service documents them.
//!
//! A session is created `open`. Its first job to run makes it `active`: a **dedicated**
//! session (`mode: dedicated`) then holds its device, so its jobs run one after another ahead
//! of every other job there, until it goes `inactive` (no job for its interactive time-to-live;
//! a new job makes it active again) or `closed`. A **batch** (`mode: batch`) holds nothing:
//! its jobs run side by side as the run slots allow. Closing a session
//! (`accepting_jobs: false`) refuses new jobs and lets queued ones finish; it is `closed` once
//! none is left. Past its `max_ttl`, counted from its first job's start, a session is closed and
//! its queued jobs are cancelled.
//!
//! Times are seconds since the epoch, passed in, so that the rules are tested without waiting.
//! Only [`Sessions::refresh`] moves sessions on with the clock and with the count of each
//! one's jobs not yet over, which the job store keeps: callers refresh first, and cancel the
//! queued jobs of the sessions it reports expired.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::record::Record;

/// The longest `max_ttl` the service allows (eight hours), and a session's default.
pub const MAX_TTL_SECONDS: u64 = 8 * 3600;

/// The service's default interactive time-to-live: how long an active session waits for its
/// next job before it lets other jobs onto its device.
pub const DEFAULT_INTERACTIVE_TTL_SECONDS: u64 = 60;

/// The most sessions kept; past it the oldest closed ones are forgotten.
pub const MAX_KEPT_SESSIONS: usize = 1000;

/// How a session runs its jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One after another, with the device held between them.
    Dedicated,
    /// Side by side, as capacity allows.
    Batch,
}

impl Mode {
    /// The mode named as the service names it (`dedicated`, `batch`).
    pub fn parse(name: &str) -> Option<Mode> {
        match name {
            "dedicated" => Some(Mode::Dedicated),
            "batch" => Some(Mode::Batch),
            _ => None,
        }
    }

    /// The service's name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Dedicated => "dedicated",
            Mode::Batch => "batch",
        }
    }
}

/// Where a session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Created; no job has run yet.
    Open,
    /// Running jobs (a dedicated one holds its device).
    Active,
    /// Idle past its interactive time-to-live; its next job makes it active again.
    Inactive,
    /// Over: closed by its owner with nothing left to run, or past its `max_ttl`.
    Closed,
}

impl State {
    /// The service's name.
    pub fn name(self) -> &'static str {
        match self {
            State::Open => "open",
            State::Active => "active",
            State::Inactive => "inactive",
            State::Closed => "closed",
        }
    }
}

/// Why a job is refused by its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No such session.
    Unknown,
    /// Closed by its owner.
    Closed,
    /// Past its `max_ttl`.
    Expired,
    /// The job is for another device than the session's.
    OtherBackend(String),
}

/// A session as kept.
#[derive(Debug, Clone)]
pub struct Session {
    /// `dedicated` or `batch`.
    pub mode: Mode,
    /// Its device.
    pub backend: String,
    /// The service instance it was created for.
    pub instance: Option<String>,
    /// Longest life from its first job's start, in seconds.
    pub max_ttl: u64,
    /// Idle time after which it lets go of its device, in seconds.
    pub interactive_ttl: u64,
    /// Where it is.
    pub state: State,
    /// Whether it takes new jobs.
    pub accepting_jobs: bool,
    /// Whether it ended at its `max_ttl` (rather than closed by its owner).
    pub expired: bool,
    /// Each change of state with its time, from `open` on.
    pub timestamps: Vec<(State, f64)>,
    /// When its first job started.
    pub started_at: Option<f64>,
    /// When it last became active.
    pub activated_at: Option<f64>,
    /// When it was closed.
    pub closed_at: Option<f64>,
    /// When its last job started.
    pub last_job_started: Option<f64>,
    /// When its last job finished.
    pub last_job_completed: Option<f64>,
    /// Seconds its jobs spent running.
    pub busy_seconds: f64,
    /// Its jobs running.
    pub(super) running: usize,
    /// Order of creation (to forget the oldest first).
    pub(super) serial: u64,
}

impl Session {
    fn enter(&mut self, state: State, now: f64) {
        if self.state != state {
            self.state = state;
            self.timestamps.push((state, now));
        }
    }

    /// Whether it holds its device: a dedicated session that is active.
    fn holds_device(&self) -> bool {
        self.mode == Mode::Dedicated && self.state == State::Active
    }

    /// Usage as the service counts it: a session's time from its first job's start until it
    /// went inactive or closed (which is after its last job ended), or until now; a batch's
    /// time its jobs ran.
    pub fn usage(&self, now: f64) -> f64 {
        match (self.mode, self.started_at) {
            (Mode::Batch, _) | (_, None) => self.busy_seconds,
            (Mode::Dedicated, Some(start)) => {
                let end = match (self.state, self.timestamps.last()) {
                    (State::Closed | State::Inactive, Some(&(_, at))) => at,
                    _ => now,
                };
                (end - start).max(0.0)
            }
        }
    }

    /// The session as `GET /sessions/{id}` shows it.
    pub fn details(&self, id: &str, now: f64, time: impl Fn(f64) -> String) -> Value {
        let time_of = |t: Option<f64>| t.map(&time);
        json!({
            "id": id,
            "backend_name": self.backend,
            "instance": self.instance,
            "mode": self.mode.name(),
            "state": self.state.name(),
            "accepting_jobs": self.accepting_jobs,
            "max_ttl": self.max_ttl,
            "active_ttl": self.max_ttl,
            "interactive_ttl": self.interactive_ttl,
            "started_at": time_of(self.started_at),
            "activated_at": time_of(self.activated_at),
            "closed_at": time_of(self.closed_at),
            "last_job_started": time_of(self.last_job_started),
            "last_job_completed": time_of(self.last_job_completed),
            "elapsed_time": self.usage(now),
            "timestamps": self.timestamps.iter()
                .map(|(state, at)| json!({ "status": state.name(), "timestamp": time(*at) }))
                .collect::<Vec<_>>(),
        })
    }
}

/// Sessions by id.
#[derive(Debug)]
pub struct Sessions {
    sessions: HashMap<String, Session>,
    interactive_ttl: u64,
    next: u64,
    /// Where each change is written, when sessions outlive the server.
    record: Option<Record<Session>>,
    /// Changes so far, which jobs waiting for a device watch.
    changes: u64,
}

impl Sessions {
    /// No sessions yet; each new one waits `interactive_ttl` seconds for its next job.
    pub fn new(interactive_ttl: u64) -> Sessions {
        Sessions { sessions: HashMap::new(), interactive_ttl, next: 0, record: None, changes: 0 }
    }

    /// Takes back the sessions an earlier run of the server kept, and writes every change from
    /// now on with `record`.
    pub fn restore(&mut self, kept: Vec<(String, Session)>, record: Record<Session>) {
        for (id, session) in kept {
            self.next = self.next.max(session.serial);
            self.sessions.insert(id, session);
        }
        self.record = Some(record);
    }

    /// Counts a change of session `id` and writes it, when sessions outlive the server.
    fn record(&mut self, id: &str) {
        self.changes += 1;
        if let (Some(record), Some(session)) = (&self.record, self.sessions.get(id)) {
            record.write(id, session);
        }
    }

    /// How many changes sessions went through so far.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// The next time after `now` at which a session may move on with the clock (go inactive,
    /// or reach its `max_ttl`), for jobs waiting for a device to sleep until.
    pub fn next_change(&self, now: f64) -> Option<f64> {
        let times = self.sessions.values().filter(|s| s.state != State::Closed).flat_map(|s| {
            let idle = (s.state == State::Active)
                .then(|| s.last_job_completed.or(s.activated_at).map(|at| at + s.interactive_ttl as f64));
            [idle.flatten(), s.started_at.map(|start| start + s.max_ttl as f64)]
        });
        times.flatten().filter(|&at| at > now).min_by(f64::total_cmp)
    }

    /// The session `id`.
    pub fn get(&self, id: &str) -> Option<&Session> {
        self.sessions.get(id)
    }

    /// Opens a session and returns its id (`max_ttl` already checked).
    pub fn create(&mut self, mode: Mode, backend: String, instance: Option<String>, max_ttl: u64, now: f64) -> String {
        if self.sessions.len() >= MAX_KEPT_SESSIONS {
            let oldest = self.sessions.iter().filter(|(_, s)| s.state == State::Closed).min_by_key(|(_, s)| s.serial);
            if let Some(id) = oldest.map(|(id, _)| id.clone()) {
                self.sessions.remove(&id);
            }
        }
        self.next += 1;
        let id = format!("s{:019x}", rand::random::<u64>() >> 1);
        let session = Session {
            mode,
            backend,
            instance,
            max_ttl,
            interactive_ttl: self.interactive_ttl,
            state: State::Open,
            accepting_jobs: true,
            expired: false,
            timestamps: vec![(State::Open, now)],
            started_at: None,
            activated_at: None,
            closed_at: None,
            last_job_started: None,
            last_job_completed: None,
            busy_seconds: 0.0,
            running: 0,
            serial: self.next,
        };
        self.sessions.insert(id.clone(), session);
        self.record(&id);
        id
    }

    /// Whether the store has room for another session.
    pub fn full(&self) -> bool {
        self.sessions.len() >= MAX_KEPT_SESSIONS && self.sessions.values().all(|s| s.state != State::Closed)
    }

    /// Moves every session on with the clock, given how many jobs of each are not over yet;
    /// returns the sessions that just passed their `max_ttl`, whose queued jobs are to be
    /// cancelled.
    pub fn refresh(&mut self, now: f64, pending: &HashMap<String, usize>) -> Vec<String> {
        let mut expired = Vec::new();
        let mut changed = Vec::new();
        for (id, session) in &mut self.sessions {
            if session.state == State::Closed {
                continue;
            }
            let before = session.state;
            let idle = pending.get(id).is_none_or(|&count| count == 0) && session.running == 0;
            if session.started_at.is_some_and(|start| now >= start + session.max_ttl as f64) {
                session.accepting_jobs = false;
                session.expired = true;
                session.closed_at = Some(now);
                session.enter(State::Closed, now);
                expired.push(id.clone());
            } else if !session.accepting_jobs && idle {
                session.enter(State::Closed, now);
            } else if session.state == State::Active && idle {
                let idle_since = session.last_job_completed.or(session.activated_at).unwrap_or(now);
                if now >= idle_since + session.interactive_ttl as f64 {
                    session.enter(State::Inactive, now);
                }
            }
            if session.state != before {
                changed.push(id.clone());
            }
        }
        for id in changed {
            self.record(&id);
        }
        expired
    }

    /// The dedicated session that holds `backend`, if one does.
    pub fn holder(&self, backend: &str) -> Option<&str> {
        self.sessions.iter().find(|(_, s)| s.backend == backend && s.holds_device()).map(|(id, _)| id.as_str())
    }

    /// Takes a job for session `id` on `backend`, or says why not.
    pub fn admit(&mut self, id: &str, backend: &str) -> Result<(), Refusal> {
        let session = self.sessions.get_mut(id).ok_or(Refusal::Unknown)?;
        if session.expired {
            return Err(Refusal::Expired);
        }
        if !session.accepting_jobs {
            return Err(Refusal::Closed);
        }
        if session.backend != backend {
            return Err(Refusal::OtherBackend(session.backend.clone()));
        }
        Ok(())
    }

    /// Whether a queued job of `session` (or of none) may start on `backend` now; if so, it
    /// is counted as running. A dedicated session that is active holds its device: only its
    /// own jobs start there, one at a time.
    pub fn may_start(&mut self, session: Option<&str>, backend: &str, now: f64) -> bool {
        let held_by_other = self
            .sessions
            .iter()
            .any(|(id, s)| s.backend == backend && s.holds_device() && Some(id.as_str()) != session);
        if held_by_other {
            return false;
        }
        let Some((id, session)) = session.and_then(|id| Some((id, self.sessions.get_mut(id)?))) else { return true };
        // An expired session's queued jobs are being cancelled: none starts.
        if session.expired || (session.mode == Mode::Dedicated && session.running > 0) {
            return false;
        }
        session.running += 1;
        session.started_at.get_or_insert(now);
        session.last_job_started = Some(now);
        if session.state != State::Active {
            session.activated_at = Some(now);
            session.enter(State::Active, now);
        }
        self.record(id);
        true
    }

    /// A job of session `id` that started has finished after running `ran` seconds.
    pub fn finished(&mut self, id: &str, ran: f64, now: f64) {
        if let Some(session) = self.sessions.get_mut(id) {
            session.running = session.running.saturating_sub(1);
            session.busy_seconds += ran;
            session.last_job_completed = Some(now);
            self.record(id);
        }
    }

    /// Stops session `id` taking jobs (`PATCH accepting_jobs: false`, or `DELETE .../close`);
    /// `false` when there is no such session.
    pub fn close(&mut self, id: &str, now: f64) -> bool {
        let Some(session) = self.sessions.get_mut(id) else { return false };
        if session.accepting_jobs {
            session.accepting_jobs = false;
            session.closed_at = Some(now);
            self.record(id);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs not yet over, by session.
    fn pending(counts: &[(&str, usize)]) -> HashMap<String, usize> {
        counts.iter().map(|&(id, count)| (id.to_owned(), count)).collect()
    }

    fn store() -> (Sessions, String, String) {
        let mut sessions = Sessions::new(60);
        let dedicated = sessions.create(Mode::Dedicated, "ibm_fez".into(), None, 100, 0.0);
        let batch = sessions.create(Mode::Batch, "ibm_fez".into(), None, 100, 0.0);
        (sessions, dedicated, batch)
    }

    #[test]
    fn a_dedicated_session_holds_its_device_and_runs_one_job_at_a_time() {
        let (mut sessions, dedicated, batch) = store();
        for _ in 0..2 {
            sessions.admit(&dedicated, "ibm_fez").expect("admitted");
        }
        sessions.admit(&batch, "ibm_fez").expect("admitted");
        assert!(sessions.may_start(Some(&dedicated), "ibm_fez", 1.0), "its first job starts");
        assert_eq!(sessions.get(&dedicated).expect("kept").state, State::Active);
        assert!(!sessions.may_start(Some(&dedicated), "ibm_fez", 1.0), "its second waits for the first");
        assert!(!sessions.may_start(None, "ibm_fez", 1.0), "a lone job waits");
        assert!(!sessions.may_start(Some(&batch), "ibm_fez", 1.0), "a batch's job waits");
        assert!(sessions.may_start(None, "ibm_brisbane", 1.0), "other devices are free");
        sessions.finished(&dedicated, 1.0, 2.0);
        assert!(!sessions.may_start(None, "ibm_fez", 2.0), "the device stays held between its jobs");
        assert!(sessions.may_start(Some(&dedicated), "ibm_fez", 2.0), "its second job runs next");
        sessions.finished(&dedicated, 1.0, 3.0);
        // Idle past its interactive time-to-live, it lets go of the device.
        sessions.refresh(62.0, &pending(&[]));
        assert!(!sessions.may_start(None, "ibm_fez", 62.0));
        sessions.refresh(63.0, &pending(&[]));
        assert!(sessions.may_start(None, "ibm_fez", 63.0));
        assert_eq!(sessions.get(&dedicated).expect("kept").state, State::Inactive);
        assert!(sessions.may_start(Some(&batch), "ibm_fez", 63.0), "so does the batch's job");
        let dedicated = sessions.get(&dedicated).expect("kept");
        assert_eq!(dedicated.usage(70.0), 62.0, "from its first job's start until it went inactive");
        let states: Vec<_> = dedicated.timestamps.iter().map(|(s, _)| s.name()).collect();
        assert_eq!(states, ["open", "active", "inactive"]);
    }

    #[test]
    fn waiting_jobs_learn_when_a_session_may_let_go_next() {
        let (mut sessions, dedicated, _) = store();
        assert_eq!(sessions.next_change(0.0), None, "no job ran: no clock runs");
        sessions.admit(&dedicated, "ibm_fez").expect("admitted");
        assert!(sessions.may_start(Some(&dedicated), "ibm_fez", 10.0));
        assert_eq!(sessions.next_change(10.0), Some(70.0), "idle 60 s after it became active");
        sessions.finished(&dedicated, 1.0, 20.0);
        assert_eq!(sessions.next_change(20.0), Some(80.0), "idle 60 s after its last job");
        assert_eq!(sessions.next_change(85.0), Some(110.0), "then its max_ttl");
        let before = sessions.changes();
        sessions.refresh(85.0, &pending(&[]));
        assert_eq!(sessions.get(&dedicated).expect("kept").state, State::Inactive);
        assert!(sessions.changes() > before, "going inactive is a change waiting jobs see");
    }

    #[test]
    fn batch_jobs_run_side_by_side() {
        let (mut sessions, _, batch) = store();
        for _ in 0..3 {
            sessions.admit(&batch, "ibm_fez").expect("admitted");
            assert!(sessions.may_start(Some(&batch), "ibm_fez", 0.0));
        }
        assert!(sessions.may_start(None, "ibm_fez", 0.0), "a batch holds nothing");
        for _ in 0..3 {
            sessions.finished(&batch, 2.0, 2.0);
        }
        assert_eq!(sessions.get(&batch).expect("kept").usage(9.0), 6.0, "the time its jobs ran");
    }

    #[test]
    fn a_closed_session_finishes_its_jobs_and_refuses_new_ones() {
        let (mut sessions, dedicated, _) = store();
        sessions.admit(&dedicated, "ibm_fez").expect("admitted");
        assert!(sessions.close(&dedicated, 1.0));
        sessions.refresh(1.0, &pending(&[(&dedicated, 1)]));
        assert_eq!(sessions.admit(&dedicated, "ibm_fez"), Err(Refusal::Closed));
        let session = sessions.get(&dedicated).expect("kept");
        assert!(!session.accepting_jobs && session.state == State::Open, "a job still waits");
        assert!(sessions.may_start(Some(&dedicated), "ibm_fez", 2.0), "the queued job runs");
        sessions.finished(&dedicated, 1.0, 3.0);
        sessions.refresh(3.0, &pending(&[]));
        assert_eq!(sessions.get(&dedicated).expect("kept").state, State::Closed);
        assert!(sessions.may_start(None, "ibm_fez", 3.0), "a closed session holds nothing");
        assert_eq!(sessions.admit("s0", "ibm_fez"), Err(Refusal::Unknown));
        assert!(!sessions.close("s0", 3.0));
    }

    #[test]
    fn a_session_ends_at_its_max_ttl_from_its_first_job() {
        let (mut sessions, dedicated, _) = store();
        assert!(sessions.refresh(500.0, &pending(&[])).is_empty(), "no job ran: its clock has not started");
        sessions.admit(&dedicated, "ibm_fez").expect("admitted");
        assert!(sessions.may_start(Some(&dedicated), "ibm_fez", 500.0));
        sessions.admit(&dedicated, "ibm_fez").expect("a second job waits");
        assert_eq!(sessions.admit(&dedicated, "ibm_brisbane"), Err(Refusal::OtherBackend("ibm_fez".into())));
        assert_eq!(sessions.refresh(600.0, &pending(&[(&dedicated, 2)])), vec![dedicated.clone()], "expired once");
        assert!(sessions.refresh(601.0, &pending(&[(&dedicated, 2)])).is_empty());
        assert_eq!(sessions.admit(&dedicated, "ibm_fez"), Err(Refusal::Expired));
        assert!(!sessions.may_start(Some(&dedicated), "ibm_fez", 601.0), "its queued job never starts");
        let session = sessions.get(&dedicated).expect("kept");
        assert_eq!((session.state, session.expired), (State::Closed, true));
    }
}
