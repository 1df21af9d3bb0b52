//! Reading records from files and saving them atomically.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::atomic::write_atomically;
use super::{GameRecord, ParseRecordError};

/// Why a record file could not be read or written.
#[derive(Debug, Error)]
pub enum FileError {
    /// Reading or writing the file failed.
    #[error("{}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid record.
    #[error("{}", .path.display())]
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

    /// Writes the record to `path` atomically: a reader sees the old record or the new one,
    /// never a part. A symbolic link is followed (its target is replaced, in the target's
    /// directory), an existing file keeps its permissions, a FIFO or character device is written
    /// in place, and a directory is refused ([`std::io::ErrorKind::IsADirectory`]).
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        write_atomically(path, self.to_string().as_bytes())
            .map_err(|source| FileError::Io { path: path.to_owned(), source })
    }
}

#[cfg(test)]
mod tests {
    use qchess_core::text::with_causes;

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
        assert!(with_causes(&bad).contains("game.pgn: line 1, column 4"), "{bad}");
        let unwritable = record.save(&dir.path().join("no/such/dir/game.pgn")).expect_err("no dir");
        assert!(unwritable.to_string().contains("game.pgn"), "{unwritable}");
        let directory = record.save(dir.path()).expect_err("a directory");
        assert!(with_causes(&directory).ends_with("is a directory; give a file name to save to"), "{directory}");
    }
}
