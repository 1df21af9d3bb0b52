//! Writing a file so that a reader sees the old contents or the new, never a part, while the
//! file stays what it was: a symbolic link keeps pointing at its (updated) target, an existing
//! file keeps its permissions, and a FIFO or character device (a pipe, `/dev/stdout`) is
//! written to directly, since renaming a regular file over it would replace it.

use std::fs::{self, Permissions};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Links followed before giving up, as the kernel's own limit on Linux.
const MAX_LINKS: usize = 40;

/// What `path` names once its symbolic links are followed.
enum Destination {
    /// A regular file, or nothing yet: written through a temporary file and a rename.
    File {
        /// The file (after links).
        path: PathBuf,
        /// Its permissions, when it exists.
        permissions: Option<Permissions>,
    },
    /// A FIFO or character device: written in place.
    Stream(PathBuf),
}

/// Writes `bytes` to `path` atomically. See the [module docs](self).
///
/// Fails with [`io::ErrorKind::IsADirectory`] for a directory and
/// [`io::ErrorKind::InvalidInput`] for a socket or block device; no temporary file is left
/// behind on any failure.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match destination(path)? {
        Destination::Stream(target) => {
            let mut stream = fs::OpenOptions::new().write(true).open(target)?;
            stream.write_all(bytes)?;
            stream.flush()
        }
        Destination::File { path: target, permissions } => replace_file(&target, permissions, bytes),
    }
}

/// Writes a temporary file next to `target` and renames it over `target`.
fn replace_file(target: &Path, permissions: Option<Permissions>, bytes: &[u8]) -> io::Result<()> {
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".qchess-record-");
    // A new file gets the usual mode (0666 less the umask), not the temporary file's 0600.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    // The temporary file is deleted when it is dropped, so every `?` below cleans up.
    let mut file = builder.tempfile_in(&directory)?;
    if let Some(permissions) = permissions {
        file.as_file().set_permissions(permissions)?;
    }
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(target).map_err(|e| e.error)?;
    Ok(())
}

/// Follows `path`'s symbolic links (a dangling one names the file to create) and sorts what
/// they end at.
fn destination(path: &Path) -> io::Result<Destination> {
    let mut current = path.to_owned();
    for _ in 0..MAX_LINKS {
        let metadata = match fs::symlink_metadata(&current) {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                return Ok(Destination::File { path: current, permissions: None });
            }
            Err(error) => return Err(error),
        };
        let kind = metadata.file_type();
        if kind.is_symlink() {
            let link = fs::read_link(&current)?;
            current = match current.parent() {
                Some(parent) if link.is_relative() => parent.join(link),
                _ => link,
            };
            continue;
        }
        if kind.is_dir() {
            return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory; give a file name to save to"));
        }
        if kind.is_file() {
            return Ok(Destination::File { path: current, permissions: Some(metadata.permissions()) });
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt as _;
            if kind.is_fifo() || kind.is_char_device() {
                return Ok(Destination::Stream(current));
            }
        }
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is neither a regular file, a FIFO nor a character device",
        ));
    }
    Err(io::Error::new(io::ErrorKind::InvalidInput, "too many levels of symbolic links"))
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _, symlink};

    use super::*;

    /// The names in `dir`, sorted.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("readable")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).expect("exists").permissions().mode() & 0o7777
    }

    #[test]
    fn a_new_file_gets_the_usual_mode_and_no_temporary_file_stays() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("game.pgn");
        write_atomically(&path, b"one").expect("written");
        assert_eq!(fs::read(&path).expect("read"), b"one");
        // 0666 less some umask: readable by the group at least, unlike a 0600 temporary file.
        assert_eq!(mode(&path) & 0o600, 0o600);
        write_atomically(&path, b"two").expect("rewritten");
        assert_eq!(fs::read(&path).expect("read"), b"two");
        assert_eq!(names(dir.path()), ["game.pgn"]);
    }

    #[test]
    fn an_existing_file_keeps_its_permissions() {
        let dir = tempfile::tempdir().expect("temp dir");
        for wanted in [0o644, 0o640, 0o600, 0o664] {
            let path = dir.path().join(format!("game-{wanted:o}.pgn"));
            fs::write(&path, "old").expect("written");
            fs::set_permissions(&path, Permissions::from_mode(wanted)).expect("chmod");
            write_atomically(&path, b"new").expect("saved");
            assert_eq!(mode(&path), wanted);
            assert_eq!(fs::read(&path).expect("read"), b"new");
        }
    }

    #[test]
    fn a_symbolic_link_stays_a_link_and_its_target_is_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let records = dir.path().join("records");
        fs::create_dir(&records).expect("mkdir");
        let target = records.join("game.pgn");
        fs::write(&target, "old").expect("written");
        fs::set_permissions(&target, Permissions::from_mode(0o644)).expect("chmod");
        let link = dir.path().join("latest.pgn");
        symlink("records/game.pgn", &link).expect("link");
        // A link to a link is followed to the end too.
        let second = dir.path().join("current.pgn");
        symlink(&link, &second).expect("link");
        write_atomically(&second, b"new").expect("saved");
        assert!(fs::symlink_metadata(&link).expect("link").file_type().is_symlink());
        assert!(fs::symlink_metadata(&second).expect("link").file_type().is_symlink());
        assert_eq!(fs::read(&target).expect("read"), b"new");
        assert_eq!(mode(&target), 0o644);
        // The temporary file was made next to the target, and is gone.
        assert_eq!(names(&records), ["game.pgn"]);
        assert_eq!(names(dir.path()), ["current.pgn", "latest.pgn", "records"]);
    }

    #[test]
    fn a_dangling_link_creates_its_target() {
        let dir = tempfile::tempdir().expect("temp dir");
        let link = dir.path().join("latest.pgn");
        symlink("game.pgn", &link).expect("link");
        write_atomically(&link, b"new").expect("saved");
        assert!(fs::symlink_metadata(&link).expect("link").file_type().is_symlink());
        assert_eq!(fs::read(dir.path().join("game.pgn")).expect("read"), b"new");
    }

    #[test]
    fn a_character_device_is_written_in_place() {
        write_atomically(Path::new("/dev/null"), b"discarded").expect("written to /dev/null");
        assert!(fs::metadata("/dev/null").expect("exists").file_type().is_char_device());
        // A device that fails the write says so, and nothing was made next to it.
        let full = write_atomically(Path::new("/dev/full"), b"x").expect_err("no space on /dev/full");
        assert_eq!(full.kind(), io::ErrorKind::StorageFull);
    }

    #[test]
    fn a_fifo_is_written_in_place() {
        let dir = tempfile::tempdir().expect("temp dir");
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).expect("read the pipe"))
        };
        write_atomically(&fifo, b"through the pipe").expect("written");
        assert_eq!(reader.join().expect("reader"), b"through the pipe");
        assert!(fs::symlink_metadata(&fifo).expect("exists").file_type().is_fifo());
        assert_eq!(names(dir.path()), ["pipe"]);
    }

    #[test]
    fn a_directory_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = dir.path().join("records");
        fs::create_dir(&target).expect("mkdir");
        let error = write_atomically(&target, b"x").expect_err("a directory");
        assert_eq!(error.kind(), io::ErrorKind::IsADirectory);
        assert!(error.to_string().contains("is a directory"), "{error}");
        assert!(names(&target).is_empty());
        // Through a link as well.
        let link = dir.path().join("link");
        symlink(&target, &link).expect("link");
        assert_eq!(write_atomically(&link, b"x").expect_err("a directory").kind(), io::ErrorKind::IsADirectory);
        assert_eq!(names(dir.path()), ["link", "records"]);
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        // The rename fails after the temporary file is written: a non-empty directory cannot
        // be replaced by a file.
        let records = dir.path().join("records");
        fs::create_dir(&records).expect("mkdir");
        fs::write(records.join("kept.pgn"), "kept").expect("written");
        let error = replace_file(&records, None, b"x").expect_err("a directory cannot be replaced");
        assert!(matches!(error.kind(), io::ErrorKind::IsADirectory | io::ErrorKind::DirectoryNotEmpty), "{error}");
        assert_eq!(names(dir.path()), ["records"]);
        assert_eq!(names(&records), ["kept.pgn"]);
        // A missing directory fails before anything is written.
        assert!(write_atomically(&dir.path().join("no/such/game.pgn"), b"x").is_err());
        assert_eq!(names(dir.path()), ["records"]);
    }
}
