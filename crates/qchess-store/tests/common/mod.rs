//! The stores every test runs on: SQLite always, PostgreSQL when the test script started one.

#![allow(dead_code)]

use qchess_store::{Location, Store};

/// The PostgreSQL URL the test script passes.
pub const POSTGRES_ENV: &str = "QCHESS_TEST_POSTGRES_URL";

/// Set to `required` when PostgreSQL must be there: its tests then fail instead of being left out.
pub const REQUIRED_ENV: &str = "QCHESS_TEST_POSTGRES";

/// The PostgreSQL location, if the tests have one; panics when one is required and missing.
pub fn postgres() -> Option<Location> {
    match std::env::var(POSTGRES_ENV) {
        Ok(url) if !url.trim().is_empty() => Some(Location::parse(&url).expect("a PostgreSQL URL")),
        _ => {
            let required = std::env::var(REQUIRED_ENV).is_ok_and(|v| v == "required");
            assert!(!required, "{REQUIRED_ENV}=required but {POSTGRES_ENV} is not set: PostgreSQL tests cannot run");
            eprintln!("note: {POSTGRES_ENV} is not set; the PostgreSQL half of this test is left out");
            None
        }
    }
}

/// A fresh SQLite file store (the directory lives as long as the value) and, when available,
/// the PostgreSQL store.
pub async fn stores() -> (tempfile::TempDir, Vec<(&'static str, Store)>) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = Store::open(&Location::Sqlite(dir.path().join("games.db"))).await.expect("SQLite opens");
    let mut stores = vec![("sqlite", sqlite)];
    if let Some(location) = postgres() {
        stores.push(("postgres", Store::open(&location).await.expect("PostgreSQL opens")));
    }
    (dir, stores)
}

/// A name no other test (or run) uses.
pub fn unique(prefix: &str) -> String {
    format!("{prefix}-{:016x}", rand::random::<u64>())
}
