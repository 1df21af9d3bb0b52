//! Where the store is: `--db PATH|URL`, else `QCHESS_DB`, else a SQLite file in the platform's
//! data directory.

use std::path::{Path, PathBuf};

use crate::error::StoreError;

/// The environment variable naming the store.
pub const DB_ENV: &str = "QCHESS_DB";

/// The store's file name in the data directory.
pub const DEFAULT_FILE: &str = "games.db";

/// A store's location: a SQLite file, SQLite in memory, or a PostgreSQL URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (made, with its directory, when missing).
    Sqlite(PathBuf),
    /// A SQLite database in memory: gone when the process ends.
    Memory,
    /// A PostgreSQL URL (`postgres://user:password@host:port/db`).
    Postgres(String),
}

impl Location {
    /// Reads `--db` / `QCHESS_DB`: `postgres://...` or `postgresql://...`, `sqlite://PATH`,
    /// `sqlite::memory:` (or `:memory:`), or a file path.
    pub fn parse(text: &str) -> Result<Location, StoreError> {
        let text = text.trim();
        let bad = |reason: &str| StoreError::BadLocation { location: hide_password(text), reason: reason.to_owned() };
        if text.is_empty() {
            return Err(bad("it is empty; give a file path or a postgres:// URL"));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            return Ok(Location::Postgres(text.to_owned()));
        }
        if matches!(text, "sqlite::memory:" | ":memory:" | "sqlite://:memory:") {
            return Ok(Location::Memory);
        }
        if let Some(path) = text.strip_prefix("sqlite://").or_else(|| text.strip_prefix("sqlite:")) {
            if path.is_empty() {
                return Err(bad("the sqlite: URL names no file"));
            }
            return Ok(Location::Sqlite(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(bad(&format!(
                "`{scheme}://` is not a database this store speaks; use a file path, sqlite://PATH or postgres://"
            )));
        }
        Ok(Location::Sqlite(PathBuf::from(text)))
    }

    /// `--db` if given, else `QCHESS_DB` if set, else [`Location::default_file`]; `None` when
    /// none is given and there is no data directory.
    pub fn from_flag_or_env(flag: Option<&str>) -> Result<Option<Location>, StoreError> {
        if let Some(flag) = flag {
            return Location::parse(flag).map(Some);
        }
        match std::env::var(DB_ENV) {
            Ok(value) if !value.trim().is_empty() => Location::parse(&value).map(Some),
            _ => Ok(Location::default_file()),
        }
    }

    /// `games.db` in the platform's data directory: `$XDG_DATA_HOME/qchess`, else
    /// `~/.local/share/qchess` (`~/Library/Application Support/qchess` on macOS,
    /// `%APPDATA%\qchess` on Windows).
    pub fn default_file() -> Option<Location> {
        data_dir().map(|dir| Location::Sqlite(dir.join("qchess").join(DEFAULT_FILE)))
    }

    /// The URL the database driver opens.
    pub fn url(&self) -> String {
        match self {
            Location::Sqlite(path) => format!("sqlite://{}?mode=rwc", escape_path(path)),
            Location::Memory => "sqlite::memory:".to_owned(),
            Location::Postgres(url) => url.clone(),
        }
    }

    /// Whether this is PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        matches!(self, Location::Postgres(_))
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Memory => f.write_str("sqlite::memory:"),
            Location::Postgres(url) => f.write_str(&hide_password(url)),
        }
    }
}

/// The platform's per-user data directory.
fn data_dir() -> Option<PathBuf> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        return env("APPDATA");
    }
    if cfg!(target_os = "macos") {
        return env("HOME").map(|home| home.join("Library").join("Application Support"));
    }
    env("XDG_DATA_HOME").or_else(|| env("HOME").map(|home| home.join(".local").join("share")))
}

/// A path as a `sqlite://` URL's path: the bytes the URL reader would take otherwise
/// (`%`, `?`, `#`, spaces...) percent-escaped.
fn escape_path(path: &Path) -> String {
    path.to_string_lossy()
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'.' | b'_' | b'-' | b'~' | b'\\' | b':' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A URL with its password replaced by `***`, for messages.
pub fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_owned() };
    let (authority, tail) = rest.split_once('/').map_or((rest, None), |(a, t)| (a, Some(t)));
    let Some((credentials, host)) = authority.rsplit_once('@') else { return url.to_owned() };
    let user = credentials.split_once(':').map_or(credentials, |(user, _)| user);
    let hidden = if credentials.contains(':') { format!("{user}:***") } else { user.to_owned() };
    match tail {
        Some(tail) => format!("{scheme}://{hidden}@{host}/{tail}"),
        None => format!("{scheme}://{hidden}@{host}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse() {
        assert_eq!(Location::parse("games.db").expect("a path"), Location::Sqlite("games.db".into()));
        assert_eq!(Location::parse("sqlite:///tmp/x.db").expect("a URL"), Location::Sqlite("/tmp/x.db".into()));
        assert_eq!(Location::parse(":memory:").expect("memory"), Location::Memory);
        let pg = Location::parse("postgres://me:secret@127.0.0.1:5432/qchess").expect("postgres");
        assert!(pg.is_postgres());
        assert_eq!(pg.to_string(), "postgres://me:***@127.0.0.1:5432/qchess");
        for (bad, says) in [("", "empty"), ("mysql://x", "`mysql://` is not a database"), ("sqlite:", "names no file")]
        {
            let error = Location::parse(bad).expect_err(bad).to_string();
            assert!(error.contains(says), "{error}");
        }
    }

    #[test]
    fn paths_are_escaped_for_the_driver() {
        let location = Location::Sqlite("/tmp/a b/50%?#.db".into());
        assert_eq!(location.url(), "sqlite:///tmp/a%20b/50%25%3F%23.db?mode=rwc");
        assert_eq!(hide_password("postgres://u@h/db"), "postgres://u@h/db");
    }
}
