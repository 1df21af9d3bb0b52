//! Game, store and player failures as answers.

use qchess_core::text::with_causes;
use qchess_engine::GameError;
use qchess_search::player::PlayerError;
use qchess_store::StoreError;

use crate::error::ApiError;

/// A stored game that does not rebuild: the store's fault, not the request's.
pub(super) fn rebuild_error(error: qchess_store::RebuildError) -> ApiError {
    match error.game_error() {
        Some(game) if !game.is_input_error() => game_error_status(game, with_causes(&error)),
        _ => ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            format!("rebuilding the game: {}", with_causes(&error)),
        ),
    }
}

/// A store failure as an answer: an unknown game is 404, a lost race 409, the rest 503.
pub(super) fn store_error(error: StoreError) -> ApiError {
    use axum::http::StatusCode;
    let status = match &error {
        StoreError::UnknownGame(_) => StatusCode::NOT_FOUND,
        StoreError::Conflict { .. } | StoreError::MoveWaiting { .. } | StoreError::ClaimLost(_) => StatusCode::CONFLICT,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    };
    let message = match &error {
        StoreError::UnknownGame(id) => format!("no game `{id}`: it was never created, or was deleted"),
        other => with_causes(other),
    };
    ApiError::new(status, message)
}

/// Why a computer player could not move, as an answer.
pub(super) fn player_error(error: PlayerError) -> ApiError {
    match error {
        PlayerError::Game(error) => game_error(error),
        PlayerError::Search(qchess_search::SearchError::NoLegalMove) => {
            ApiError::bad_request("there is no legal move for the computer to play")
        }
        other => ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            format!("the computer player failed: {}", with_causes(&other)),
        ),
    }
}

/// Input errors are the client's (400), a failing backend is a bad gateway (502), anything else
/// is the server's (500).
pub(super) fn game_error(error: GameError) -> ApiError {
    let message = with_causes(&error);
    game_error_status(&error, message)
}

fn game_error_status(error: &GameError, message: String) -> ApiError {
    use axum::http::StatusCode;
    use qchess_core::BoardError;
    let status = match error {
        // A move past the state cap is refused like bad input: the game is unchanged.
        error if error.is_input_error() => StatusCode::BAD_REQUEST,
        GameError::Board { source: BoardError::StateTooLarge { .. }, .. } => StatusCode::BAD_REQUEST,
        GameError::Backend(BoardError::Backend(_)) | GameError::Board { source: BoardError::Backend(_), .. } => {
            StatusCode::BAD_GATEWAY
        }
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError::new(status, message)
}
