//! The connection pool, one query layer for both engines (sqlx's `Any` driver, queries written
//! once with `$1` parameters), and opening: SQLite in WAL mode with a generous busy timeout,
//! migrations under a lock so that processes opening one store at once apply them once.

use std::sync::Once;
use std::time::{Duration, Instant};

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor, Row};

use crate::error::StoreError;
use crate::location::Location;
use crate::schema::{MIGRATIONS, VERSION};

/// How long a SQLite connection waits for another writer before giving up.
const BUSY_TIMEOUT_MS: u64 = 30_000;

/// Which engine a store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (a file, or memory).
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// A game store. Cheap to clone (a pool of connections).
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) pool: AnyPool,
    pub(crate) dialect: Dialect,
    pub(crate) location: String,
    /// For a store in memory: a connection never used, which keeps the database alive while
    /// the pool's own connection is closed and opened again (a query dropped midway closes it).
    _keeper: Option<std::sync::Arc<Keeper>>,
}

/// A connection held open and never used.
struct Keeper(#[allow(dead_code)] std::sync::Mutex<sqlx::AnyConnection>);

impl std::fmt::Debug for Keeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keeper")
    }
}

/// Whether SQLite refused because another connection holds the database (`SQLITE_BUSY` or
/// `SQLITE_LOCKED`, extended codes included).
fn is_locked(error: &sqlx::Error) -> bool {
    let code = error.as_database_error().and_then(|e| e.code()).and_then(|code| code.parse::<u32>().ok());
    code.is_some_and(|code| matches!(code & 0xff, 5 | 6))
}

/// Milliseconds since 1970.
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

impl Store {
    /// Opens (and makes, and migrates) the store at `location`.
    pub async fn open(location: &Location) -> Result<Store, StoreError> {
        static DRIVERS: Once = Once::new();
        DRIVERS.call_once(sqlx::any::install_default_drivers);
        let shown = location.to_string();
        if let Location::Sqlite(path) = location
            && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::BadLocation {
                location: shown.clone(),
                reason: format!("cannot make its directory {}: {e}", dir.display()),
            })?;
        }
        // A store in memory is named, so that every connection (each reads the URL afresh)
        // opens the same database.
        let url = match location {
            Location::Memory => {
                format!("sqlite:file:qchess-memory-{:016x}?mode=memory&cache=shared", rand::random::<u64>())
            }
            other => other.url(),
        };
        let options: AnyConnectOptions = url
            .parse()
            .map_err(|e: sqlx::Error| StoreError::BadLocation { location: shown.clone(), reason: e.to_string() })?;
        let dialect = if location.is_postgres() { Dialect::Postgres } else { Dialect::Sqlite };
        let mut pool = AnyPoolOptions::new().acquire_timeout(Duration::from_secs(30));
        pool = match location {
            // One connection holds the database: it lives as long as the pool.
            Location::Memory => pool.max_connections(1).min_connections(1).idle_timeout(None).max_lifetime(None),
            Location::Sqlite(_) => pool.max_connections(4),
            Location::Postgres(_) => pool.max_connections(8),
        };
        if dialect == Dialect::Sqlite {
            pool = pool.after_connect(|connection, _| {
                Box::pin(async move {
                    connection.execute(sqlx::AssertSqlSafe(format!("PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}"))).await?;
                    connection.execute("PRAGMA foreign_keys = ON").await?;
                    Ok(())
                })
            });
        }
        let connecting = |e: sqlx::Error| StoreError::Database {
            location: shown.clone(),
            doing: "connecting".to_owned(),
            detail: e.to_string(),
        };
        let pool = pool.connect_with(options.clone()).await.map_err(connecting)?;
        let keeper = match location {
            Location::Memory => {
                use sqlx::Connection as _;
                let connection = sqlx::AnyConnection::connect_with(&options).await.map_err(connecting)?;
                Some(std::sync::Arc::new(Keeper(std::sync::Mutex::new(connection))))
            }
            _ => None,
        };
        let store = Store { pool, dialect, location: shown, _keeper: keeper };
        if let Location::Sqlite(_) = location {
            store.switch_to_wal().await?;
        }
        store.migrate().await?;
        Ok(store)
    }

    /// Puts a SQLite store in WAL mode, so readers go on while a writer writes (the mode stays
    /// with the file). The switch needs the file to itself: while another process opening a
    /// new store holds it, SQLite answers "database is locked" at once instead of waiting its
    /// busy timeout, so the switch is tried again, for as long as that timeout.
    async fn switch_to_wal(&self) -> Result<(), StoreError> {
        let doing = "switching to WAL";
        let deadline = Instant::now() + Duration::from_millis(BUSY_TIMEOUT_MS);
        let mut pause = Duration::from_millis(2);
        loop {
            match sqlx::query("PRAGMA journal_mode = WAL").execute(&self.pool).await {
                Ok(_) => return Ok(()),
                Err(error) if is_locked(&error) && Instant::now() < deadline => {
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_millis(100));
                }
                Err(error) => return Err(self.failed(doing, error)),
            }
        }
    }

    /// Where the store is (a URL's password hidden).
    pub fn location(&self) -> &str {
        &self.location
    }

    /// Whether the store lasts only as long as this process (`--db :memory:`), so that nothing
    /// resumes its games later.
    pub fn in_memory(&self) -> bool {
        self._keeper.is_some()
    }

    /// The engine.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The schema version of the database.
    pub async fn schema_version(&self) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT MAX(version) AS version FROM qchess_schema")
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.failed("reading the schema version", e))?;
        Ok(row
            .try_get::<Option<i64>, _>("version")
            .map_err(|e| self.failed("reading the schema version", e))?
            .unwrap_or(0))
    }

    /// Brings the schema to [`VERSION`], one migration at a time, under a lock.
    async fn migrate(&self) -> Result<(), StoreError> {
        let doing = "migrating the schema";
        let mut transaction = self.begin_writing().await.map_err(|e| self.failed(doing, e))?;
        match self.dialect {
            // Another process migrating waits here until this transaction ends.
            Dialect::Postgres => {
                sqlx::query("SELECT pg_advisory_xact_lock(7220522)")
                    .execute(&mut *transaction)
                    .await
                    .map_err(|e| self.failed(doing, e))?;
                transaction
                    .execute("CREATE TABLE IF NOT EXISTS qchess_schema (version BIGINT NOT NULL)")
                    .await
                    .map_err(|e| self.failed(doing, e))?;
            }
            // The first write takes SQLite's write lock: do it before reading.
            Dialect::Sqlite => {
                transaction
                    .execute("CREATE TABLE IF NOT EXISTS qchess_schema (version BIGINT NOT NULL)")
                    .await
                    .map_err(|e| self.failed(doing, e))?;
                transaction
                    .execute("DELETE FROM qchess_schema WHERE version < 0")
                    .await
                    .map_err(|e| self.failed(doing, e))?;
            }
        }
        let row = sqlx::query("SELECT MAX(version) AS version FROM qchess_schema")
            .fetch_one(&mut *transaction)
            .await
            .map_err(|e| self.failed(doing, e))?;
        let found: i64 = row.try_get::<Option<i64>, _>("version").map_err(|e| self.failed(doing, e))?.unwrap_or(0);
        if found > VERSION {
            return Err(StoreError::NewerSchema { location: self.location.clone(), found, known: VERSION });
        }
        for (index, statements) in MIGRATIONS.iter().enumerate().skip(found as usize) {
            for statement in *statements {
                transaction.execute(*statement).await.map_err(|e| self.failed(doing, e))?;
            }
            sqlx::query("INSERT INTO qchess_schema (version) VALUES ($1)")
                .bind(index as i64 + 1)
                .execute(&mut *transaction)
                .await
                .map_err(|e| self.failed(doing, e))?;
        }
        transaction.commit().await.map_err(|e| self.failed(doing, e))
    }

    /// Begins a transaction that writes. On SQLite it takes the write lock at once (`BEGIN
    /// IMMEDIATE`): a transaction that read first and wrote later would fail at once (not wait)
    /// when another connection wrote in between.
    pub(crate) async fn begin_writing(&self) -> Result<sqlx::Transaction<'static, sqlx::Any>, sqlx::Error> {
        match self.dialect {
            Dialect::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Dialect::Postgres => self.pool.begin().await,
        }
    }

    /// Runs one statement.
    pub(crate) async fn run<'q>(
        &self,
        doing: &str,
        query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments>,
    ) -> Result<u64, StoreError> {
        query.execute(&self.pool).await.map(|done| done.rows_affected()).map_err(|e| self.failed(doing, e))
    }

    /// A database error, with what was being done.
    pub(crate) fn failed(&self, doing: &str, error: sqlx::Error) -> StoreError {
        StoreError::Database { location: self.location.clone(), doing: doing.to_owned(), detail: error.to_string() }
    }
}
