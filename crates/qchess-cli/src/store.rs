//! `--db PATH|URL` and the game store as commands use it: opened once, with a small runtime of
//! its own that store calls block on (commands are synchronous).

use anyhow::Context as _;
use qchess_store::{Location, Store, StoreError};

use crate::exit::bad_input_at;

/// `--db`, shared by the commands that keep games.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct DbArgs {
    /// The game store: a SQLite file, or a postgres:// URL (default: the QCHESS_DB environment
    /// variable, else games.db in the platform's data directory, such as
    /// ~/.local/share/qchess/games.db).
    #[arg(long, value_name = "PATH|URL", global = true)]
    pub db: Option<String>,
}

impl DbArgs {
    /// Where the store is; `None` when nothing names one and there is no data directory.
    pub fn location(&self) -> anyhow::Result<Option<Location>> {
        Location::from_flag_or_env(self.db.as_deref()).map_err(|e| bad_input_at("--db", e))
    }

    /// Whether the store was named (`--db` or `QCHESS_DB`) rather than the default.
    pub fn named(&self) -> bool {
        self.db.is_some() || std::env::var(qchess_store::DB_ENV).is_ok_and(|v| !v.trim().is_empty())
    }
}

/// The open store and the runtime its calls run on. Clones share both.
#[derive(Debug, Clone)]
pub struct Keeper {
    runtime: std::sync::Arc<tokio::runtime::Runtime>,
    store: Store,
}

impl Keeper {
    /// Opens the store `--db` / `QCHESS_DB` / the default names.
    pub fn open(args: &DbArgs) -> anyhow::Result<Keeper> {
        let location = args.location()?.ok_or_else(|| {
            bad_input_at("--db", "there is no data directory (HOME is not set); name a store with --db or QCHESS_DB")
        })?;
        // A worker thread drives the store's I/O, so a board's journal can block on the
        // runtime's handle from the command's own thread.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .context("cannot start the async runtime")?;
        let store = runtime.block_on(Store::open(&location)).map_err(store_error)?;
        Ok(Keeper { runtime: std::sync::Arc::new(runtime), store })
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// A handle on the runtime store calls run on (for a board's journal).
    pub fn handle(&self) -> tokio::runtime::Handle {
        self.runtime.handle().clone()
    }

    /// Runs one store call.
    pub fn block<T>(&self, call: impl Future<Output = Result<T, StoreError>>) -> anyhow::Result<T> {
        self.runtime.block_on(call).map_err(store_error)
    }
}

/// A store failure: a store that cannot be named or an unknown game is bad input (exit 2);
/// a database that fails is a runtime failure (exit 1).
pub fn store_error(error: StoreError) -> anyhow::Error {
    match error {
        StoreError::BadLocation { .. } => bad_input_at("--db", error),
        StoreError::UnknownGame(_) => crate::exit::bad_input(error),
        other => anyhow::Error::new(other),
    }
}
