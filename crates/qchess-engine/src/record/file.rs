//! Reading records from files and saving them atomically.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::{GameRecord, ParseRecordError};

/// Why a record file could not be read or written.
#[derive(Debug, Error)]
pub enum FileError {
    /// Reading or writing the file failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid record.
    #[error("{}: {source}", .path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where and what.
        #[source]
        source: ParseRecordError,
    },
}

impl GameRecord {
    /// Reads and parses a record file.
    pub fn load(path: &Path) -> Result<GameRecord, FileError> {
        let text = std::fs::read_to_string(path).map_err(|source| FileError::Io { path: path.to_owned(), source })?;
        text.parse().map_err(|source| FileError::Parse { path: path.to_owned(), source })
    }

    /// Writes the record to `path` atomically: a temporary file in the same directory is
    /// written and flushed to disk, then renamed over `path`, so a reader sees the old record
    /// or the new one, never a part.
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        let io = |source| FileError::Io { path: path.to_owned(), source };
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        let mut file = tempfile::Builder::new().prefix(".qchess-record-").tempfile_in(&directory).map_err(io)?;
        file.write_all(self.to_string().as_bytes()).map_err(io)?;
        file.as_file().sync_all().map_err(io)?;
        file.persist(path).map_err(|e| io(e.error))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_then_load_and_errors_name_the_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("game.pgn");
        let record: GameRecord = "[Event \"x\"]\n1. e2e4 *".parse().expect("record");
        record.save(&path).expect("saved");
        assert_eq!(GameRecord::load(&path).expect("loaded"), record);
        // Saving again replaces the file and leaves no temporary file behind.
        record.save(&path).expect("saved again");
        let names: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").filter_map(Result::ok).collect();
        assert_eq!(names.len(), 1);
        let missing = GameRecord::load(&dir.path().join("none.pgn")).expect_err("missing");
        assert!(missing.to_string().contains("none.pgn"), "{missing}");
        std::fs::write(&path, "1. e2e9 *").expect("write");
        let bad = GameRecord::load(&path).expect_err("bad");
        assert!(bad.to_string().contains("game.pgn: line 1, column 4"), "{bad}");
        let unwritable = record.save(&dir.path().join("no/such/dir/game.pgn")).expect_err("no dir");
        assert!(unwritable.to_string().contains("game.pgn"), "{unwritable}");
    }
}
