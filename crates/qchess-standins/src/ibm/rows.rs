//! A job or a session of the IBM stand-in as a row of its tables ([`persist`](super::persist))
//! and back: names as the service writes them, times in seconds since the epoch, tags, results
//! and a session's changes of state as JSON. A row that does not read back names its table,
//! id, column and what is wrong.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Value, json};
use sqlx::Row;
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;

use super::jobs::{Job, Status};
use super::sessions::{Mode, Session, State};

/// The programs a job may run, as kept.
const PROGRAMS: [&str; 3] = ["sampler", "estimator", "executor"];

/// Every job kept, oldest first.
pub const SELECT_JOBS: &str = "SELECT id, serial, backend, program, status, reason, reason_code, created, started,
    finished, quantum_seconds, session_id, tags, results FROM ibm_jobs ORDER BY serial";

/// Every session kept, oldest first.
pub const SELECT_SESSIONS: &str = "SELECT id, serial, mode, backend, instance, max_ttl, interactive_ttl, state,
    accepting_jobs, expired, timestamps, started_at, activated_at, closed_at, last_job_started, last_job_completed,
    busy_seconds FROM ibm_sessions ORDER BY serial";

// The upserts are prepared afresh each time (`persistent(false)`): sqlx 0.9's Any driver
// sends a missing `f64` to PostgreSQL as a `real`, and a statement prepared with one then
// refuses a present time ("incorrect binary data format").

/// A kept row that does not read back as a job or a session.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the IBM stand-in's table {table}, row {id}: {column}: {reason}")]
pub struct BadRow {
    /// `ibm_jobs` or `ibm_sessions`.
    pub table: &'static str,
    /// The row's id.
    pub id: String,
    /// The column that is wrong.
    pub column: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

/// A statement that writes job `id` as it is (its row made or replaced).
pub fn upsert_job(id: &str, job: &Job) -> Query<'static, sqlx::Any, AnyArguments> {
    sqlx::query(
        "INSERT INTO ibm_jobs (id, serial, backend, program, status, reason, reason_code, created, started, finished,
            quantum_seconds, session_id, tags, results)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
        ON CONFLICT (id) DO UPDATE SET status = excluded.status, reason = excluded.reason,
            reason_code = excluded.reason_code, started = excluded.started, finished = excluded.finished,
            quantum_seconds = excluded.quantum_seconds, results = excluded.results",
    )
    .bind(id.to_owned())
    .bind(job.serial as i64)
    .bind(job.backend.clone())
    .bind(job.program.to_owned())
    .bind(job.status.name().to_owned())
    .bind(job.reason.clone())
    .bind(job.reason_code.map(i64::from))
    .bind(job.created)
    .bind(job.started)
    .bind(job.finished)
    .bind(job.quantum_seconds)
    .bind(job.session.clone())
    .bind(Value::from(job.tags.clone()).to_string())
    .bind(job.results.to_string())
    .persistent(false)
}

/// A statement that writes session `id` as it is (its row made or replaced).
pub fn upsert_session(id: &str, session: &Session) -> Query<'static, sqlx::Any, AnyArguments> {
    let timestamps: Vec<Value> = session.timestamps.iter().map(|(state, at)| json!([state.name(), at])).collect();
    sqlx::query(
        "INSERT INTO ibm_sessions (id, serial, mode, backend, instance, max_ttl, interactive_ttl, state, accepting_jobs,
            expired, timestamps, started_at, activated_at, closed_at, last_job_started, last_job_completed, busy_seconds)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
        ON CONFLICT (id) DO UPDATE SET state = excluded.state, accepting_jobs = excluded.accepting_jobs,
            expired = excluded.expired, timestamps = excluded.timestamps, started_at = excluded.started_at,
            activated_at = excluded.activated_at, closed_at = excluded.closed_at,
            last_job_started = excluded.last_job_started, last_job_completed = excluded.last_job_completed,
            busy_seconds = excluded.busy_seconds",
    )
    .bind(id.to_owned())
    .bind(session.serial as i64)
    .bind(session.mode.name().to_owned())
    .bind(session.backend.clone())
    .bind(session.instance.clone())
    .bind(session.max_ttl as i64)
    .bind(session.interactive_ttl as i64)
    .bind(session.state.name().to_owned())
    .bind(i64::from(session.accepting_jobs))
    .bind(i64::from(session.expired))
    .bind(Value::from(timestamps).to_string())
    .bind(session.started_at)
    .bind(session.activated_at)
    .bind(session.closed_at)
    .bind(session.last_job_started)
    .bind(session.last_job_completed)
    .bind(session.busy_seconds)
    .persistent(false)
}

/// Reads the columns of one row, naming the row in its errors.
struct Reader<'a> {
    row: &'a AnyRow,
    table: &'static str,
    id: String,
}

impl Reader<'_> {
    fn bad(&self, column: &'static str, reason: impl std::fmt::Display) -> BadRow {
        BadRow { table: self.table, id: self.id.clone(), column, reason: reason.to_string() }
    }

    fn get<T>(&self, column: &'static str) -> Result<T, BadRow>
    where
        T: for<'r> sqlx::Decode<'r, sqlx::Any> + sqlx::Type<sqlx::Any>,
    {
        self.row.try_get(column).map_err(|e| self.bad(column, e))
    }

    /// A count that must not be negative.
    fn count(&self, column: &'static str) -> Result<u64, BadRow> {
        let value: i64 = self.get(column)?;
        u64::try_from(value).map_err(|_| self.bad(column, format!("{value} is negative")))
    }

    /// A name, one of `names`'.
    fn named<T: Copy>(&self, column: &'static str, names: &[(T, &str)]) -> Result<T, BadRow> {
        let name: String = self.get(column)?;
        let found = names.iter().find(|(_, known)| *known == name);
        found
            .map(|&(value, _)| value)
            .ok_or_else(|| self.bad(column, format!("`{}` is not a known name", name.escape_debug())))
    }

    /// A JSON text.
    fn json(&self, column: &'static str) -> Result<Value, BadRow> {
        let text: String = self.get(column)?;
        serde_json::from_str(&text).map_err(|e| self.bad(column, format!("not JSON ({e})")))
    }
}

fn reader<'a>(row: &'a AnyRow, table: &'static str) -> Result<Reader<'a>, BadRow> {
    let id = row.try_get::<String, _>("id").map_err(|e| BadRow {
        table,
        id: "?".to_owned(),
        column: "id",
        reason: e.to_string(),
    })?;
    Ok(Reader { row, table, id })
}

/// A row of `ibm_jobs` as a job, with its id.
pub fn job_of(row: &AnyRow) -> Result<(String, Job), BadRow> {
    let r = reader(row, "ibm_jobs")?;
    let statuses = [Status::Queued, Status::Running, Status::Completed, Status::Failed, Status::Cancelled];
    let status = r.named("status", &statuses.map(|s| (s, s.name())))?;
    let program = r.named("program", &PROGRAMS.map(|p| (p, p)))?;
    let tags = match r.json("tags")? {
        Value::Array(tags) if tags.iter().all(Value::is_string) => {
            tags.iter().filter_map(Value::as_str).map(str::to_owned).collect()
        }
        other => return Err(r.bad("tags", format!("{other} is not a list of strings"))),
    };
    let reason_code = r.get::<Option<i64>>("reason_code")?;
    let reason_code = reason_code
        .map(|code| u32::try_from(code).map_err(|_| r.bad("reason_code", format!("{code} is out of range"))));
    let job = Job {
        backend: r.get("backend")?,
        program,
        status,
        results: r.json("results")?,
        reason: r.get("reason")?,
        reason_code: reason_code.transpose()?,
        created: r.get("created")?,
        started: r.get("started")?,
        finished: r.get("finished")?,
        session: r.get("session_id")?,
        tags,
        quantum_seconds: r.get("quantum_seconds")?,
        cancel: Arc::new(AtomicBool::new(status.is_final())),
        serial: r.count("serial")?,
    };
    Ok((r.id, job))
}

/// A row of `ibm_sessions` as a session, with its id; none of its jobs runs.
pub fn session_of(row: &AnyRow) -> Result<(String, Session), BadRow> {
    let r = reader(row, "ibm_sessions")?;
    let states = [State::Open, State::Active, State::Inactive, State::Closed].map(|s| (s, s.name()));
    let modes = [Mode::Dedicated, Mode::Batch].map(|m| (m, m.name()));
    let timestamps = match r.json("timestamps")? {
        Value::Array(changes) => changes
            .iter()
            .map(|change| {
                let state = change[0].as_str().and_then(|name| states.iter().find(|(_, known)| *known == name));
                match (state, change[1].as_f64()) {
                    (Some(&(state, _)), Some(at)) => Ok((state, at)),
                    _ => Err(r.bad("timestamps", format!("{change} is not [state, time]"))),
                }
            })
            .collect::<Result<Vec<_>, _>>()?,
        other => return Err(r.bad("timestamps", format!("{other} is not a list"))),
    };
    let flag = |column| r.get::<i64>(column).map(|value| value != 0);
    let session = Session {
        mode: r.named("mode", &modes)?,
        backend: r.get("backend")?,
        instance: r.get("instance")?,
        max_ttl: r.count("max_ttl")?,
        interactive_ttl: r.count("interactive_ttl")?,
        state: r.named("state", &states)?,
        accepting_jobs: flag("accepting_jobs")?,
        expired: flag("expired")?,
        timestamps,
        started_at: r.get("started_at")?,
        activated_at: r.get("activated_at")?,
        closed_at: r.get("closed_at")?,
        last_job_started: r.get("last_job_started")?,
        last_job_completed: r.get("last_job_completed")?,
        busy_seconds: r.get("busy_seconds")?,
        running: 0,
        serial: r.count("serial")?,
    };
    Ok((r.id, session))
}
