//! What the game service refuses or fails at, and the game, store and player failures it turns
//! into those.

use qchess_core::BoardError;
use qchess_core::text::with_causes;
use qchess_engine::GameError;
use qchess_search::player::PlayerError;
use qchess_store::StoreError;
use serde_json::Value;
use thiserror::Error;

/// Why the game service did not do what it was asked. The words are for the person who asked.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum GamesError {
    /// The request is malformed, or asks for something the game does not allow.
    #[error("{0}")]
    Invalid(String),
    /// No such game.
    #[error("{0}")]
    NotFound(String),
    /// The game has seats, and this needs a seat's token.
    #[error("{0}")]
    NoSeat(String),
    /// The caller's seat may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// The coach does not answer now: the game is between two people, not casual, and still
    /// running (fair play); it answers everyone once the game is over.
    #[error("{0}")]
    CoachClosed(String),
    /// The change lost to another, or waits behind one: with the game as it now is, when the
    /// service read it.
    #[error("{message}")]
    Conflict {
        /// What it lost to.
        message: String,
        /// The game's state now.
        state: Option<Box<Value>>,
    },
    /// Too many requests, games or searches at once: the caller may try again after
    /// `retry_after` seconds.
    #[error("{message}")]
    TooMany {
        /// What is at its limit.
        message: String,
        /// Seconds until a retry may succeed.
        retry_after: u64,
    },
    /// Something the service needs cannot serve now: the game store, a game's thread, the
    /// system's random generator, a remote provider the server lacks.
    #[error("{0}")]
    Unavailable(String),
    /// The game's remote provider failed.
    #[error("{0}")]
    Provider(String),
    /// The service failed.
    #[error("{0}")]
    Internal(String),
}

impl GamesError {
    /// The change lost to another; `state` is the game as it now is.
    pub fn conflict(message: impl Into<String>, state: Value) -> GamesError {
        GamesError::Conflict { message: message.into(), state: Some(Box::new(state)) }
    }

    /// Whether the request is refused (the caller must change it or wait), rather than failed
    /// by the service or what it depends on.
    pub fn is_refusal(&self) -> bool {
        !matches!(self, GamesError::Unavailable(_) | GamesError::Provider(_) | GamesError::Internal(_))
    }
}

/// A stored game that does not rebuild: the store's fault, not the request's.
pub(crate) fn rebuild_error(error: qchess_store::RebuildError) -> GamesError {
    match error.game_error() {
        Some(game) if !game.is_input_error() => game_error_kind(game, with_causes(&error)),
        _ => GamesError::Internal(format!("rebuilding the game: {}", with_causes(&error))),
    }
}

/// A store failure: an unknown game is not found, a lost race a conflict, the rest the store
/// being unavailable.
pub(crate) fn store_error(error: StoreError) -> GamesError {
    match &error {
        StoreError::UnknownGame(id) => {
            GamesError::NotFound(format!("no game `{id}`: it was never created, or was deleted"))
        }
        StoreError::Conflict { .. } | StoreError::MoveWaiting { .. } | StoreError::ClaimLost(_) => {
            GamesError::Conflict { message: with_causes(&error), state: None }
        }
        _ => GamesError::Unavailable(with_causes(&error)),
    }
}

/// Why a computer player could not move.
pub(crate) fn player_error(error: PlayerError) -> GamesError {
    match error {
        PlayerError::Game(error) => game_error(error),
        PlayerError::Search(qchess_search::SearchError::NoLegalMove) => {
            GamesError::Invalid("there is no legal move for the computer to play".to_owned())
        }
        other => GamesError::Internal(format!("the computer player failed: {}", with_causes(&other))),
    }
}

/// Input errors are the caller's, a failing backend is the provider's, anything else is the
/// service's.
pub(crate) fn game_error(error: GameError) -> GamesError {
    let message = with_causes(&error);
    game_error_kind(&error, message)
}

fn game_error_kind(error: &GameError, message: String) -> GamesError {
    match error {
        // A move past the state cap is refused like bad input: the game is unchanged.
        error if error.is_input_error() => GamesError::Invalid(message),
        GameError::Board { source: BoardError::StateTooLarge { .. }, .. } => GamesError::Invalid(message),
        GameError::Backend(BoardError::Backend(_)) | GameError::Board { source: BoardError::Backend(_), .. } => {
            GamesError::Provider(message)
        }
        _ => GamesError::Internal(message),
    }
}
