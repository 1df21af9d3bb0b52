//! The Python exceptions and how library errors become them, with the CLI's wording.

use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use qchess_engine::GameError;

create_exception!(qchess, QchessError, PyException, "Base class of every error qchess raises.");
create_exception!(
    qchess,
    ParseError,
    QchessError,
    "Text that is not what it should be: a move, FEN, square, record, backend or option."
);
create_exception!(
    qchess,
    IllegalMoveError,
    QchessError,
    "A well-formed move the rules or the board do not allow now (also: an impossible forced outcome, \
     a move after the end of the game, nothing to undo)."
);
create_exception!(
    qchess,
    BackendError,
    QchessError,
    "The quantum board or a remote provider failed (a state too large, a provider that cannot be reached)."
);

/// The error and its sources on one line, as the command line prints them.
pub fn message(error: &(dyn std::error::Error + 'static)) -> String {
    qchess_core::text::with_causes(error)
}

/// A game error as the exception a Python user expects.
pub fn game_error(error: GameError) -> PyErr {
    let text = message(&error);
    match error {
        GameError::Parse(_) | GameError::Position(_) => ParseError::new_err(text),
        _ if error.is_input_error() => IllegalMoveError::new_err(text),
        _ => BackendError::new_err(text),
    }
}

/// Bad text given to a function.
pub fn parse_error(what: &str, error: impl std::fmt::Display) -> PyErr {
    ParseError::new_err(format!("{what}: {error}"))
}

/// A failure of the board or a backend.
pub fn backend_error(error: &(dyn std::error::Error + 'static)) -> PyErr {
    BackendError::new_err(message(error))
}
