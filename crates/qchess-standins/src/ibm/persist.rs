//! The IBM stand-in's jobs and sessions kept in a database, so that they outlive a restart of
//! `qchess serve --db`: the game store's SQLite file or PostgreSQL server, in tables of the
//! stand-in's own (`ibm_jobs`, `ibm_sessions`), one row per job and per session.
//!
//! One writer thread owns the connections and writes each change as it happens, in the order
//! it happened: a job's submission, start, end or cancelling; each change of a session. A
//! request answered only once its change is kept waits for [`Recorder::flushed`]. On opening,
//! the tables are made when missing and read back (`rows.rs`); jobs that were
//! queued or running when the server stopped are failed then, with the reason and the
//! service's reason code [`RESTART_REASON_CODE`]: nothing will run them. So the tables serve
//! one server at a time.

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};
use thiserror::Error;
use tokio::sync::{mpsc, oneshot};

pub use super::rows::BadRow;

use super::jobs::{Job, MAX_KEPT_JOBS, Status, USAGE_PERIOD_SECONDS, now};
use super::record::Record;
use super::rows;
use super::sessions::{MAX_KEPT_SESSIONS, Session};

/// The service's reason code of a job that failed because the server restarted while it
/// waited or ran ("an error was returned at the backend level; retry").
pub const RESTART_REASON_CODE: u32 = 1010;

/// How long a SQLite connection waits for another writer (the game store's) before giving up.
const BUSY_TIMEOUT_MS: u64 = 30_000;

/// The tables, as both SQLite and PostgreSQL read them; times are seconds since the epoch.
const TABLES: [&str; 2] = [
    "CREATE TABLE IF NOT EXISTS ibm_jobs (
        id TEXT PRIMARY KEY,
        serial BIGINT NOT NULL,
        backend TEXT NOT NULL,
        program TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        reason_code BIGINT,
        created DOUBLE PRECISION NOT NULL,
        started DOUBLE PRECISION,
        finished DOUBLE PRECISION,
        quantum_seconds DOUBLE PRECISION NOT NULL,
        session_id TEXT,
        tags TEXT NOT NULL,
        results TEXT NOT NULL
    )",
    "CREATE TABLE IF NOT EXISTS ibm_sessions (
        id TEXT PRIMARY KEY,
        serial BIGINT NOT NULL,
        mode TEXT NOT NULL,
        backend TEXT NOT NULL,
        instance TEXT,
        max_ttl BIGINT NOT NULL,
        interactive_ttl BIGINT NOT NULL,
        state TEXT NOT NULL,
        accepting_jobs BIGINT NOT NULL,
        expired BIGINT NOT NULL,
        timestamps TEXT NOT NULL,
        started_at DOUBLE PRECISION,
        activated_at DOUBLE PRECISION,
        closed_at DOUBLE PRECISION,
        last_job_started DOUBLE PRECISION,
        last_job_completed DOUBLE PRECISION,
        busy_seconds DOUBLE PRECISION NOT NULL
    )",
];

/// Where the stand-in keeps its jobs and sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Database {
    /// The URL the database driver opens (`sqlite://PATH?mode=rwc`, `postgres://...`).
    pub url: String,
    /// The database as messages name it (its password hidden).
    pub shown: String,
}

/// Why the stand-in's jobs and sessions cannot be kept or read back.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PersistError {
    /// The database refused or failed a statement.
    #[error("the IBM stand-in's tables in {database}: {doing}: {detail}")]
    Database {
        /// The database, as shown.
        database: String,
        /// What was being done.
        doing: String,
        /// The driver's message.
        detail: String,
    },
    /// A kept row does not read back as a job or a session.
    #[error(transparent)]
    BadRow(#[from] BadRow),
    /// The writer thread is gone (it could not start, or it stopped).
    #[error("the IBM stand-in's database writer stopped: {0}")]
    WriterGone(String),
}

/// What the writer is asked to do, in order.
enum Message {
    Job(String, Box<Job>),
    Session(String, Box<Session>),
    /// Answer once everything asked before is written, with the first failure since the last
    /// answer.
    Flush(oneshot::Sender<Result<(), PersistError>>),
}

/// Hands changes to the writer thread. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Recorder {
    sender: mpsc::UnboundedSender<Message>,
}

impl Recorder {
    /// Writes each change of a job.
    pub fn jobs(&self) -> Record<Job> {
        let sender = self.sender.clone();
        // A send fails only once the writer stopped, which it reports when flushed.
        Record::new(move |id, job: &Job| drop(sender.send(Message::Job(id.to_owned(), Box::new(job.clone())))))
    }

    /// Writes each change of a session.
    pub fn sessions(&self) -> Record<Session> {
        let sender = self.sender.clone();
        Record::new(move |id, session: &Session| {
            drop(sender.send(Message::Session(id.to_owned(), Box::new(session.clone()))))
        })
    }

    /// Resolves once every change handed over so far is written; the first failure since the
    /// last flush otherwise.
    pub async fn flushed(&self) -> Result<(), PersistError> {
        let (answer, answered) = oneshot::channel();
        let gone = || PersistError::WriterGone("it no longer answers".to_owned());
        self.sender.send(Message::Flush(answer)).map_err(|_| gone())?;
        answered.await.map_err(|_| gone())?
    }
}

/// What a database held when it was opened, and the recorder of every change from then on.
#[derive(Debug)]
pub struct Kept {
    /// The jobs, oldest first (the newest [`MAX_KEPT_JOBS`]), those left queued or running
    /// failed.
    pub jobs: Vec<(String, Job)>,
    /// When the older jobs of the usage period ended and the seconds they ran.
    pub forgotten: Vec<(f64, f64)>,
    /// The sessions, oldest first (the newest [`MAX_KEPT_SESSIONS`]).
    pub sessions: Vec<(String, Session)>,
    /// Writes every change.
    pub recorder: Recorder,
}

/// Opens `database` (making the stand-in's tables when missing), reads back what it keeps,
/// fails the jobs a restart left behind, and starts the writer thread.
pub async fn open(database: &Database) -> Result<Kept, PersistError> {
    let (sender, receiver) = mpsc::unbounded_channel();
    let (reply, replied) = oneshot::channel();
    let database = database.clone();
    std::thread::Builder::new()
        .name("ibm-persist".to_owned())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
                Ok(runtime) => runtime,
                Err(error) => {
                    let _ = reply.send(Err(PersistError::WriterGone(error.to_string())));
                    return;
                }
            };
            runtime.block_on(async move {
                let writer = match Writer::connect(database).await {
                    Ok(writer) => writer,
                    Err(error) => {
                        let _ = reply.send(Err(error));
                        return;
                    }
                };
                let loaded = writer.load().await;
                let opened = loaded.is_ok();
                let _ = reply.send(loaded);
                if opened {
                    writer.run(receiver).await;
                }
            });
        })
        .map_err(|e| PersistError::WriterGone(e.to_string()))?;
    let (jobs, forgotten, sessions) =
        replied.await.map_err(|_| PersistError::WriterGone("it stopped while opening".to_owned()))??;
    Ok(Kept { jobs, forgotten, sessions, recorder: Recorder { sender } })
}

/// The jobs, the usage of older ones, and the sessions read back.
type Loaded = (Vec<(String, Job)>, Vec<(f64, f64)>, Vec<(String, Session)>);

/// The writer thread's connections.
struct Writer {
    pool: AnyPool,
    database: Database,
}

impl Writer {
    async fn connect(database: Database) -> Result<Writer, PersistError> {
        sqlx::any::install_default_drivers();
        let connecting = |e: sqlx::Error| failed(&database, "connecting", e);
        let options: AnyConnectOptions = database.url.parse().map_err(connecting)?;
        let mut pool = AnyPoolOptions::new().max_connections(1);
        if !database.url.starts_with("postgres") {
            pool = pool.after_connect(|connection, _| {
                Box::pin(async move {
                    let pragma = format!("PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}");
                    connection.execute(sqlx::AssertSqlSafe(pragma)).await.map(drop)
                })
            });
        }
        let pool = pool.connect_with(options).await.map_err(connecting)?;
        let making = |e| failed(&database, "making the tables", e);
        let mut transaction = pool.begin().await.map_err(making)?;
        if database.url.starts_with("postgres") {
            // Servers starting at once on one PostgreSQL make the tables one after another
            // (concurrent `CREATE TABLE IF NOT EXISTS` can collide there).
            transaction.execute("SELECT pg_advisory_xact_lock(7220543)").await.map_err(making)?;
        }
        for table in TABLES {
            transaction.execute(table).await.map_err(making)?;
        }
        transaction.commit().await.map_err(making)?;
        Ok(Writer { pool, database })
    }

    /// Reads the tables back and fails the jobs a restart left behind.
    async fn load(&self) -> Result<Loaded, PersistError> {
        let reading = |doing, e| failed(&self.database, doing, e);
        let rows =
            sqlx::query(rows::SELECT_JOBS).fetch_all(&self.pool).await.map_err(|e| reading("reading jobs", e))?;
        let mut jobs = rows.iter().map(rows::job_of).collect::<Result<Vec<_>, _>>()?;
        let now = now();
        let older = jobs.len().saturating_sub(MAX_KEPT_JOBS);
        let mut forgotten = Vec::new();
        for (id, job) in jobs.drain(..older) {
            let ended = job.finished.unwrap_or(job.created);
            if ended >= now - USAGE_PERIOD_SECONDS {
                forgotten.push((ended, job.quantum_seconds));
            } else {
                let query = sqlx::query("DELETE FROM ibm_jobs WHERE id = $1").bind(id);
                query.execute(&self.pool).await.map_err(|e| reading("forgetting old jobs", e))?;
            }
        }
        for (id, job) in jobs.iter_mut().filter(|(_, job)| !job.status.is_final()) {
            let was = if job.status == Status::Queued { "queued" } else { "running" };
            job.status = Status::Failed;
            job.reason = Some(format!("The server restarted while the job was {was}; submit it again."));
            job.reason_code = Some(RESTART_REASON_CODE);
            job.finished = Some(now);
            self.write_job(id, job).await?;
        }
        let rows = sqlx::query(rows::SELECT_SESSIONS)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| reading("reading sessions", e))?;
        let mut sessions = rows.iter().map(rows::session_of).collect::<Result<Vec<_>, _>>()?;
        sessions.drain(..sessions.len().saturating_sub(MAX_KEPT_SESSIONS));
        Ok((jobs, forgotten, sessions))
    }

    /// Writes what it is handed until every recorder is gone.
    async fn run(self, mut receiver: mpsc::UnboundedReceiver<Message>) {
        let mut failure = None;
        while let Some(message) = receiver.recv().await {
            let written = match message {
                Message::Job(id, job) => self.write_job(&id, &job).await,
                Message::Session(id, session) => self.write_session(&id, &session).await,
                Message::Flush(answer) => {
                    let _ = answer.send(failure.take().map_or(Ok(()), Err));
                    continue;
                }
            };
            if let Err(error) = written {
                // Nobody waits on most writes (a job's thread, a session's change): say so here.
                eprintln!("qchess serve: {error}");
                failure.get_or_insert(error);
            }
        }
    }

    async fn write_job(&self, id: &str, job: &Job) -> Result<(), PersistError> {
        let query = rows::upsert_job(id, job);
        query.execute(&self.pool).await.map(drop).map_err(|e| failed(&self.database, &format!("writing job {id}"), e))
    }

    async fn write_session(&self, id: &str, session: &Session) -> Result<(), PersistError> {
        let query = rows::upsert_session(id, session);
        let doing = format!("writing session {id}");
        query.execute(&self.pool).await.map(drop).map_err(|e| failed(&self.database, &doing, e))
    }
}

/// A driver error, with the database and what was being done.
fn failed(database: &Database, doing: &str, error: sqlx::Error) -> PersistError {
    PersistError::Database { database: database.shown.clone(), doing: doing.to_owned(), detail: error.to_string() }
}
