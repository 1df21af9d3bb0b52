//! Exit codes: 0 success, 1 runtime failure, 2 bad usage or input.
//!
//! Every error type says only its own words; [`report`] prints the chain once, each cause after
//! a `: `.

use std::error::Error;
use std::process::ExitCode;

/// An error caused by what the user gave us (a malformed or illegal move, a bad FEN, an
/// unreadable file): the command exits with code 2. It shows the wrapped error (and its
/// causes) unchanged.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct InputError(Box<dyn Error + Send + Sync>);

/// Marks an error (or a message) as bad input (exit code 2).
pub fn bad_input(error: impl Into<Box<dyn Error + Send + Sync>>) -> anyhow::Error {
    anyhow::Error::new(InputError(error.into()))
}

/// Marks an error as bad input, said of `place` (`--moves, move 3`).
pub fn bad_input_at(
    place: impl std::fmt::Display + Send + Sync + 'static,
    error: impl Into<Box<dyn Error + Send + Sync>>,
) -> anyhow::Error {
    bad_input(error).context(place)
}

/// A failure that is not an error: the command ran and its answer is "no" (exit code 1),
/// already reported on stdout, so nothing more is printed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Verdict(pub String);

/// The longest line of a usage error shown; clap quotes the bad value in full.
const USAGE_LINE_CHARS: usize = 300;

/// Prints clap's help or version (exit 0), or its usage error with the user's text escaped and
/// long lines cut (exit 2).
pub fn usage(error: &clap::Error) -> ExitCode {
    if !error.use_stderr() {
        // --help and --version: clap's own text, to stdout.
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    let text = error.to_string();
    let lines: Vec<String> =
        text.trim_end().lines().map(|line| qchess_core::text::excerpt_of(line, USAGE_LINE_CHARS)).collect();
    eprintln!("{}", lines.join("\n"));
    ExitCode::from(2)
}

/// Prints the error on one line to stderr and maps it to the exit code.
pub fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.is::<Verdict>() => ExitCode::from(1),
        Err(error) => {
            let code = if error.chain().any(|e| e.is::<InputError>()) { 2 } else { 1 };
            eprintln!("qchess: error: {error:#}");
            ExitCode::from(code)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message `report` prints for `error`.
    fn printed(error: &anyhow::Error) -> String {
        format!("{error:#}")
    }

    #[test]
    fn input_errors_keep_their_causes_and_say_each_once() {
        let io = std::io::Error::other("disk full");
        let file = qchess_engine::record::FileError::Io { path: "game.qcr".into(), source: io };
        let error = bad_input_at("--record", file);
        assert_eq!(printed(&error), "--record: game.qcr: disk full");
        assert!(error.chain().any(|e| e.is::<InputError>()));
    }

    #[test]
    fn messages_are_input_errors_too() {
        let error = bad_input(format!("--depth {}: at most 7", 9));
        assert_eq!(printed(&error), "--depth 9: at most 7");
        assert!(error.chain().any(|e| e.is::<InputError>()));
    }
}
