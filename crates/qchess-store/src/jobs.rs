//! Provider jobs: every job a stored game's board submits, recorded from the moment before it
//! is sent ([`JobState::Reserved`]) to its results, and [`GameJournal`], the board's
//! [`JobJournal`] over them.

use qchess_core::calendar::CivilDate;
use qchess_remote::JobResult;
use qchess_remote::journal::{JobEnd, JobJournal, JobKey, JobProgress, JournalError, Recorded, Watch};
use qchess_remote::probabilities::Probabilities;
use serde_json::{Value, json};
use sqlx::Row;
use sqlx::any::AnyRow;

use crate::db::{Store, now_ms};
use crate::error::StoreError;

/// Where a job is, as the store knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    /// About to be submitted (or submitted, with the answer never read).
    Reserved,
    /// Submitted; waited for.
    Submitted,
    /// Finished; its results are stored.
    Completed,
    /// Failed at the provider.
    Failed,
    /// Canceled.
    Canceled,
    /// The provider no longer knows it.
    Lost,
}

impl JobState {
    /// The stored name.
    pub fn name(self) -> &'static str {
        match self {
            JobState::Reserved => "reserved",
            JobState::Submitted => "submitted",
            JobState::Completed => "completed",
            JobState::Failed => "failed",
            JobState::Canceled => "canceled",
            JobState::Lost => "lost",
        }
    }

    fn parse(name: &str) -> Option<JobState> {
        [
            JobState::Reserved,
            JobState::Submitted,
            JobState::Completed,
            JobState::Failed,
            JobState::Canceled,
            JobState::Lost,
        ]
        .into_iter()
        .find(|state| state.name() == name)
    }
}

/// One recorded job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRow {
    /// The name it was submitted under (unique).
    pub name: String,
    /// The game.
    pub game_id: String,
    /// The game's event it was first needed for.
    pub seq: u32,
    /// The circuit's hash.
    pub circuit: String,
    /// Shots.
    pub shots: u64,
    /// The backend.
    pub provider: String,
    /// The provider's job id, once known.
    pub job_id: Option<String>,
    /// Where it is.
    pub state: JobState,
    /// The provider's last word on it (`ready`, `Queued`).
    pub status: Option<String>,
    /// Its place in the provider's queue, when said.
    pub queue_position: Option<u64>,
    /// The provider's guess of the wait left, in ms.
    pub predicted_wait_ms: Option<u64>,
    /// Why it failed, when it did.
    pub message: Option<String>,
    /// When it was submitted (ms since 1970).
    pub submitted_at: i64,
    /// When last heard of.
    pub updated_at: i64,
}

impl JobRow {
    /// Whether the job is live and unfinished.
    pub fn is_waiting(&self) -> bool {
        matches!(self.state, JobState::Reserved | JobState::Submitted)
    }

    /// `waiting for job J on ibm_fez: queued (position 3), submitted 2026-... UTC`.
    pub fn describe(&self) -> String {
        let job = self.job_id.as_deref().unwrap_or("(being submitted)");
        let mut text = format!("waiting for job {job} on {}", self.provider);
        if let Some(status) = &self.status {
            text.push_str(&format!(": {status}"));
        }
        if let Some(position) = self.queue_position {
            text.push_str(&format!(" (position {position} in the queue)"));
        }
        text.push_str(&format!(", since {}", utc_time(self.submitted_at)));
        text
    }

    /// The job as JSON (for `--json` and the game API).
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "job_id": self.job_id,
            "provider": self.provider,
            "state": self.state.name(),
            "status": self.status,
            "queue_position": self.queue_position,
            "predicted_wait_ms": self.predicted_wait_ms,
            "message": self.message,
            "shots": self.shots,
            "circuit": self.circuit,
            "seq": self.seq,
            "submitted_at": self.submitted_at,
            "updated_at": self.updated_at,
        })
    }
}

/// `2026-11-26 14:03:43 UTC` of ms since 1970.
pub fn utc_time(ms: i64) -> String {
    let seconds = ms.div_euclid(1000);
    let of_day = seconds.rem_euclid(86_400);
    let CivilDate { year, month, day } = CivilDate::from_unix_seconds(seconds);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC", of_day / 3600, of_day / 60 % 60, of_day % 60)
}

const JOB_COLUMNS: &str = "name, game_id, seq, circuit, shots, provider, job_id, state, status, queue_position, \
     predicted_wait_ms, message, submitted_at, updated_at";

/// A job result as stored.
fn result_json(result: &JobResult) -> String {
    json!({
        "job_id": result.job_id,
        "shots": result.shots,
        "qubits": result.probabilities.qubits(),
        "outcomes": result.probabilities.outcomes(),
    })
    .to_string()
}

fn result_from(text: &str) -> Result<JobResult, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let job_id = value["job_id"].as_str().ok_or("no job_id")?.to_owned();
    let shots = value["shots"].as_u64().ok_or("no shots")?;
    let qubits = value["qubits"].as_u64().and_then(|q| u32::try_from(q).ok()).ok_or("no qubits")?;
    let outcomes: Vec<(u64, f64)> = serde_json::from_value(value["outcomes"].clone()).map_err(|e| e.to_string())?;
    let probabilities = Probabilities::new(qubits, outcomes).map_err(|e| e.to_string())?;
    Ok(JobResult { job_id, shots, probabilities })
}

impl Store {
    fn job_from(&self, row: &AnyRow) -> Result<JobRow, StoreError> {
        let read = || -> Result<(JobRow, String), sqlx::Error> {
            let state: String = row.try_get("state")?;
            let optional = |column: &str| row.try_get::<Option<i64>, _>(column).map(|v| v.map(|v| v as u64));
            Ok((
                JobRow {
                    name: row.try_get("name")?,
                    game_id: row.try_get("game_id")?,
                    seq: row.try_get::<i64, _>("seq")? as u32,
                    circuit: row.try_get("circuit")?,
                    shots: row.try_get::<i64, _>("shots")? as u64,
                    provider: row.try_get("provider")?,
                    job_id: row.try_get("job_id")?,
                    state: JobState::Reserved,
                    status: row.try_get("status")?,
                    queue_position: optional("queue_position")?,
                    predicted_wait_ms: optional("predicted_wait_ms")?,
                    message: row.try_get("message")?,
                    submitted_at: row.try_get("submitted_at")?,
                    updated_at: row.try_get("updated_at")?,
                },
                state,
            ))
        };
        let (mut job, state) = read().map_err(|e| self.failed("reading a job", e))?;
        job.state = JobState::parse(&state).ok_or_else(|| StoreError::Damaged {
            id: job.name.clone(),
            what: "the job's state".to_owned(),
            detail: format!("`{state}` is no state"),
        })?;
        Ok(job)
    }

    /// Every job of game `id`, oldest first.
    pub async fn jobs(&self, id: &str) -> Result<Vec<JobRow>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {JOB_COLUMNS} FROM provider_jobs WHERE game_id = $1 ORDER BY submitted_at, name"
        )))
        .bind(id.to_owned())
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.failed("reading a game's jobs", e))?;
        rows.iter().map(|row| self.job_from(row)).collect()
    }

    /// Game `id`'s jobs that are live and unfinished.
    pub(crate) async fn live_jobs(&self, id: &str) -> Result<Vec<JobRow>, StoreError> {
        Ok(self.jobs(id).await?.into_iter().filter(JobRow::is_waiting).collect())
    }

    /// The newest job of `key`'s circuit in game `id`, with its stored results.
    async fn newest_job(&self, id: &str, key: &JobKey) -> Result<Option<(JobRow, Option<String>)>, StoreError> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {JOB_COLUMNS}, result FROM provider_jobs WHERE game_id = $1 AND circuit = $2 AND shots = $3 \
             ORDER BY submitted_at DESC, name DESC LIMIT 1"
        )))
        .bind(id.to_owned())
        .bind(key.circuit.clone())
        .bind(key.shots as i64)
        .fetch_optional(&self.pool)
        .await
        .map_err(|e| self.failed("looking up a job", e))?;
        match row {
            None => Ok(None),
            Some(row) => {
                let result = row.try_get::<Option<String>, _>("result").map_err(|e| self.failed("reading a job", e))?;
                Ok(Some((self.job_from(&row)?, result)))
            }
        }
    }

    /// Records `job_id`'s end (failed, canceled, lost) in game `id`.
    pub async fn end_job(&self, id: &str, job_id: &str, end: &JobEnd) -> Result<(), StoreError> {
        let (state, message) = match end {
            JobEnd::Failed(message) => (JobState::Failed, Some(message.clone())),
            JobEnd::Canceled => (JobState::Canceled, None),
            JobEnd::Lost => (JobState::Lost, Some("the provider no longer knows the job".to_owned())),
        };
        let query = sqlx::query(
            "UPDATE provider_jobs SET state = $1, message = $2, updated_at = $3 WHERE game_id = $4 AND job_id = $5",
        )
        .bind(state.name())
        .bind(message)
        .bind(now_ms())
        .bind(id.to_owned())
        .bind(job_id.to_owned());
        self.run("recording a job's end", query).await.map(|_| ())
    }

    /// Marks game `id`'s reservations (submissions never answered) abandoned, so the circuit
    /// may be submitted again (`--resubmit`, after checking the provider by hand).
    pub async fn abandon_reservations(&self, id: &str) -> Result<u64, StoreError> {
        let query = sqlx::query(
            "UPDATE provider_jobs SET state = 'failed', message = 'abandoned: its submission was never answered', \
             updated_at = $1 WHERE game_id = $2 AND state = 'reserved'",
        )
        .bind(now_ms())
        .bind(id.to_owned());
        self.run("abandoning reservations", query).await
    }
}

/// The claim token of the move a board plays, shared between the board's journal and its
/// owner (who sets it before each move).
#[derive(Debug, Clone, Default)]
pub struct ClaimCell(std::sync::Arc<std::sync::Mutex<Option<String>>>);

impl ClaimCell {
    /// Sets (or clears) the token.
    pub fn set(&self, token: Option<String>) {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = token;
    }

    /// The token.
    pub fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

/// A stored game's board journal: the board's jobs go to the store, under the game. Blocking:
/// call it from a plain thread, never from inside an async task.
#[derive(Debug, Clone)]
pub struct GameJournal {
    store: Store,
    handle: tokio::runtime::Handle,
    game_id: String,
    provider: String,
    /// The claim the move being played holds: the wait stops when it is gone.
    claim: ClaimCell,
    /// Whether a lost job's circuit may be submitted again.
    resubmit: bool,
}

impl GameJournal {
    /// The journal of game `id`'s jobs on `provider`; store calls run on `handle`'s runtime.
    pub fn new(store: Store, handle: tokio::runtime::Handle, game_id: &str, provider: &str) -> GameJournal {
        GameJournal {
            store,
            handle,
            game_id: game_id.to_owned(),
            provider: provider.to_owned(),
            claim: ClaimCell::default(),
            resubmit: false,
        }
    }

    /// Waits stop when the waiting move's claim `token` is gone (the move was canceled).
    #[must_use]
    pub fn holding(self, token: Option<String>) -> GameJournal {
        self.claim.set(token);
        self
    }

    /// The cell holding the claim of the move being played, to change it between moves.
    pub fn claim(&self) -> ClaimCell {
        self.claim.clone()
    }

    /// Lets a circuit whose job the provider lost be submitted again.
    #[must_use]
    pub fn resubmitting(mut self, resubmit: bool) -> GameJournal {
        self.resubmit = resubmit;
        self
    }

    fn block<T>(&self, future: impl Future<Output = Result<T, StoreError>>) -> Result<T, JournalError> {
        self.handle.block_on(future).map_err(|e| Box::new(e) as JournalError)
    }

    fn exec(
        &self,
        doing: &str,
        query: sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments>,
    ) -> Result<u64, JournalError> {
        self.block(self.store.run(doing, query))
    }
}

impl JobJournal for GameJournal {
    fn find(&mut self, key: &JobKey) -> Result<Option<Recorded>, JournalError> {
        let Some((job, result)) = self.block(self.store.newest_job(&self.game_id, key))? else { return Ok(None) };
        match job.state {
            JobState::Completed => {
                let text = result.ok_or("a completed job has no stored results")?;
                let result = result_from(&text).map_err(|detail| StoreError::Damaged {
                    id: job.name.clone(),
                    what: "the job's results".to_owned(),
                    detail,
                })?;
                Ok(Some(Recorded::Completed(result)))
            }
            JobState::Submitted => {
                let job_id = job.job_id.ok_or("a submitted job has no job id")?;
                Ok(Some(Recorded::Submitted { job_id }))
            }
            JobState::Reserved => Ok(Some(Recorded::Reserved { name: job.name })),
            JobState::Lost if !self.resubmit => Err(format!(
                "job {} of game {} was lost by {}; `qchess games resume {} --resubmit` submits its circuit again",
                job.job_id.as_deref().unwrap_or(&job.name),
                self.game_id,
                job.provider,
                self.game_id
            )
            .into()),
            JobState::Lost | JobState::Failed | JobState::Canceled => Ok(None),
        }
    }

    fn reserve(&mut self, key: &JobKey) -> Result<String, JournalError> {
        let name = format!("qchess-{}-{:016x}", self.game_id, rand::random::<u64>());
        let seq = self.block(self.store.event_count(&self.game_id))?;
        let now = now_ms();
        let query = sqlx::query(
            "INSERT INTO provider_jobs (name, game_id, seq, circuit, shots, provider, job_id, state, submitted_at, updated_at) \
             VALUES ($1, $2, $3, $4, $5, $6, NULL, 'reserved', $7, $7)",
        )
        .bind(name.clone())
        .bind(self.game_id.clone())
        .bind(i64::from(seq))
        .bind(key.circuit.clone())
        .bind(key.shots as i64)
        .bind(self.provider.clone())
        .bind(now);
        self.exec("reserving a job", query)?;
        Ok(name)
    }

    fn release(&mut self, _key: &JobKey, name: &str) -> Result<(), JournalError> {
        self.exec("releasing a job", sqlx::query("DELETE FROM provider_jobs WHERE name = $1").bind(name.to_owned()))
            .map(|_| ())
    }

    fn submitted(&mut self, _key: &JobKey, name: &str, job_id: &str) -> Result<(), JournalError> {
        let query =
            sqlx::query("UPDATE provider_jobs SET job_id = $1, state = 'submitted', updated_at = $2 WHERE name = $3")
                .bind(job_id.to_owned())
                .bind(now_ms())
                .bind(name.to_owned());
        self.exec("recording a job id", query).map(|_| ())
    }

    fn progress(&mut self, _key: &JobKey, job_id: &str, progress: &JobProgress) -> Result<Watch, JournalError> {
        let query = sqlx::query(
            "UPDATE provider_jobs SET status = $1, queue_position = $2, predicted_wait_ms = $3, updated_at = $4 \
             WHERE game_id = $5 AND job_id = $6",
        )
        .bind(progress.status.clone())
        .bind(progress.queue_position.map(|p| p as i64))
        .bind(progress.predicted_wait_ms.map(|p| p as i64))
        .bind(now_ms())
        .bind(self.game_id.clone())
        .bind(job_id.to_owned());
        self.exec("recording a job's status", query)?;
        match self.claim.get() {
            Some(token) if !self.block(self.store.still_claimed(&self.game_id, &token))? => {
                Ok(Watch::Stop("the waiting move was canceled or finished elsewhere".to_owned()))
            }
            _ => Ok(Watch::Continue),
        }
    }

    fn completed(&mut self, key: &JobKey, result: &JobResult) -> Result<(), JournalError> {
        let query = sqlx::query(
            "UPDATE provider_jobs SET state = 'completed', status = 'completed', result = $1, updated_at = $2 \
             WHERE game_id = $3 AND circuit = $4 AND shots = $5 AND job_id = $6",
        )
        .bind(result_json(result))
        .bind(now_ms())
        .bind(self.game_id.clone())
        .bind(key.circuit.clone())
        .bind(key.shots as i64)
        .bind(result.job_id.clone());
        self.exec("storing a job's results", query).map(|_| ())
    }

    fn ended(&mut self, _key: &JobKey, job_id: &str, end: &JobEnd) -> Result<(), JournalError> {
        self.block(self.store.end_job(&self.game_id, job_id, end))
    }

    fn session(&mut self) -> Result<Option<String>, JournalError> {
        self.block(self.store.provider_session(&self.game_id))
    }

    fn session_opened(&mut self, id: &str) -> Result<(), JournalError> {
        self.block(self.store.set_provider_session(&self.game_id, Some(id)))
    }

    fn game_over(&mut self) -> Result<bool, JournalError> {
        // A game in a store that ends with the process cannot be resumed: it is over for its session.
        Ok(self.store.in_memory() || self.block(self.store.summary(&self.game_id))?.is_over())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_round_trip_exactly() {
        let probabilities = Probabilities::new(3, vec![(0b101, 0.1 + 0.2), (0b010, 1.0 - (0.1 + 0.2))]).expect("valid");
        let result = JobResult { job_id: "j-1".into(), shots: 1000, probabilities };
        assert_eq!(result_from(&result_json(&result)).expect("reads back"), result);
        assert!(result_from("{}").is_err());
    }

    #[test]
    fn times_are_civil_utc() {
        assert_eq!(utc_time(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc_time(1_764_165_823_000), "2025-11-26 14:03:43 UTC");
    }
}
