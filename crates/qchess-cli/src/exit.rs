//! Exit codes: 0 success, 1 runtime failure, 2 bad usage or input.

use std::fmt::Display;
use std::process::ExitCode;

/// An error caused by what the user gave us (a malformed or illegal move, a bad FEN, an
/// unreadable file): the command exits with code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// Wraps any displayable error as bad input (exit code 2).
pub fn bad_input(error: impl Display) -> anyhow::Error {
    anyhow::Error::new(InputError(error.to_string()))
}

/// Prints the error on one line to stderr and maps it to the exit code.
pub fn report(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let code = if error.chain().any(|e| e.is::<InputError>()) { 2 } else { 1 };
            eprintln!("qchess: error: {error:#}");
            ExitCode::from(code)
        }
    }
}
