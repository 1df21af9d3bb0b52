//! The official engine's quantum board REST API, backed by the exact local board.
//!
//! * `POST /quantumboard/init` `{"init_basis_state": u64}`
//! * `POST /quantumboard/do_move` `{"square1", "square2", "square3", "type", "variant"}` with
//!   squares 0..63 and the official integer codes (type 2..13, variant 1..3; variant 0,
//!   "unspecified", reads as BASIC)
//! * `POST /quantumboard/undo_last_move`
//!
//! Each answers `{"probabilities": [64 floats], "empty": u64, "full": u64}`, plus `"result"`
//! from `do_move` (whether the move went ahead) and `undo_last_move` (whether a move was
//! undone). The server draws measurement outcomes itself, from its seed.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::rejection::BytesRejection;
use axum::http::StatusCode;
use qchess_core::text::{excerpt_line, with_causes};
use qchess_core::{BoardError, MoveSquares, MoveType, MoveVariant, QuantumBoard, Shape, Square, TypedMove};
use qchess_sim::local_board::LocalBoard;
use qchess_standins::body::read_json;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;

/// `do_move`'s body.
#[derive(Debug, Deserialize)]
struct DoMove {
    square1: u64,
    square2: u64,
    #[serde(default)]
    square3: Option<u64>,
    #[serde(rename = "type")]
    move_type: u64,
    #[serde(default)]
    variant: Option<u64>,
}

/// `init`'s body.
#[derive(Debug, Deserialize)]
struct Init {
    init_basis_state: u64,
}

fn square(field: &str, index: Option<u64>) -> Result<Square, ApiError> {
    let index = index.ok_or_else(|| ApiError::bad_request(format!("{field} is required for this move type")))?;
    u8::try_from(index)
        .ok()
        .and_then(Square::new)
        .ok_or_else(|| ApiError::bad_request(format!("{field} must be a square index 0..63, got {index}")))
}

/// The typed move a `do_move` body describes.
fn typed_move(body: &DoMove) -> Result<TypedMove, ApiError> {
    let move_type = u8::try_from(body.move_type)
        .ok()
        .and_then(MoveType::from_code)
        .ok_or_else(|| ApiError::bad_request(format!("type must be a move type code 2..13, got {}", body.move_type)))?;
    let variant = match body.variant.unwrap_or(0) {
        0 => MoveVariant::Basic,
        code => u8::try_from(code)
            .ok()
            .and_then(MoveVariant::from_code)
            .ok_or_else(|| ApiError::bad_request(format!("variant must be a variant code 0..3, got {code}")))?,
    };
    let s1 = square("square1", Some(body.square1))?;
    let s2 = square("square2", Some(body.square2))?;
    let squares = match move_type.shape() {
        Shape::Standard => MoveSquares::Standard { from: s1, to: s2 },
        Shape::Split => MoveSquares::Split { from: s1, to1: s2, to2: square("square3", body.square3)? },
        Shape::Merge => MoveSquares::Merge { from1: s1, from2: s2, to: square("square3", body.square3)? },
    };
    TypedMove::new(squares, move_type, variant).map_err(|e| ApiError::bad_request(format!("bad move: {e}")))
}

/// A board failure as an answer: a move past the state cap is the client's to change (422,
/// naming the cap and the flag that raises it); only a failing backend is the server's fault.
fn board_error(error: BoardError) -> ApiError {
    match error {
        BoardError::StateTooLarge { limit, .. } => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!(
                "{error}; this server's quantum board holds at most {limit} basis states (--max-board-states), and the move was not made"
            ),
        ),
        BoardError::Backend(_) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, with_causes(&error)),
        other => ApiError::bad_request(other.to_string()),
    }
}

/// Runs `work` on the board on a blocking thread: a move on a large state takes a while, and
/// must not hold up the threads that answer other requests.
async fn with_board<T: Send + 'static>(
    state: &Arc<AppState>,
    work: impl FnOnce(&mut LocalBoard) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let state = Arc::clone(state);
    tokio::task::spawn_blocking(move || {
        let mut board = state.board.lock().unwrap_or_else(|p| p.into_inner());
        work(&mut board)
    })
    .await
    .unwrap_or_else(|e| Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the board failed: {e}"))))
}

/// `{probabilities, empty, full}` of the board, plus `result` when given.
fn answer(board: &mut dyn QuantumBoard, result: Option<bool>) -> Result<Json<Value>, ApiError> {
    let probabilities = board.square_probabilities().map_err(board_error)?;
    let mut body = json!({
        "probabilities": probabilities.probabilities.to_vec(),
        "empty": probabilities.certainly_empty().0,
        "full": probabilities.certainly_full().0,
    });
    if let Some(result) = result {
        body["result"] = Value::from(result);
    }
    Ok(Json(body))
}

/// `POST /quantumboard/init`.
pub async fn init(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body: Init = serde_json::from_value(read_json(body)?)
        .map_err(|e| ApiError::bad_request(format!("bad init: {}", excerpt_line(&e.to_string()))))?;
    with_board(&state, move |board| {
        board.init(qchess_core::Bitboard(body.init_basis_state)).map_err(board_error)?;
        answer(board, None)
    })
    .await
}

/// `POST /quantumboard/do_move`.
pub async fn do_move(
    State(state): State<Arc<AppState>>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let body: DoMove = serde_json::from_value(read_json(body)?)
        .map_err(|e| ApiError::bad_request(format!("bad move: {}", excerpt_line(&e.to_string()))))?;
    let mv = typed_move(&body)?;
    with_board(&state, move |board| {
        let report = board.apply(&mv).map_err(board_error)?;
        answer(board, Some(report.proceeded))
    })
    .await
}

/// `POST /quantumboard/undo_last_move`.
pub async fn undo(State(state): State<Arc<AppState>>) -> Result<Json<Value>, ApiError> {
    with_board(&state, |board| {
        let undone = match board.undo() {
            Ok(()) => true,
            Err(BoardError::NothingToUndo) => false,
            Err(other) => return Err(board_error(other)),
        };
        answer(board, Some(undone))
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_become_typed_moves() {
        let split = DoMove { square1: 1, square2: 16, square3: Some(18), move_type: 4, variant: Some(1) };
        assert_eq!(typed_move(&split).expect("valid").to_string(), "b1^a3c3:SPLIT_JUMP:BASIC");
        let merge = DoMove { square1: 16, square2: 18, square3: Some(1), move_type: 6, variant: None };
        assert_eq!(typed_move(&merge).expect("valid").to_string(), "a3c3^b1:MERGE_JUMP:BASIC");
        let capture = DoMove { square1: 18, square2: 35, square3: None, move_type: 2, variant: Some(3) };
        assert_eq!(typed_move(&capture).expect("valid").to_string(), "c3d5:JUMP:CAPTURE");
        for (bad, message) in [
            (DoMove { square1: 64, square2: 1, square3: None, move_type: 2, variant: Some(1) }, "square1 must be"),
            (DoMove { square1: 1, square2: 16, square3: None, move_type: 4, variant: Some(1) }, "square3 is required"),
            (DoMove { square1: 1, square2: 16, square3: None, move_type: 1, variant: Some(1) }, "type must be"),
            (DoMove { square1: 1, square2: 16, square3: None, move_type: 2, variant: Some(9) }, "variant must be"),
            (DoMove { square1: 0, square2: 17, square3: None, move_type: 3, variant: Some(1) }, "not on one rank"),
        ] {
            let error = typed_move(&bad).expect_err(message).message;
            assert!(error.contains(message), "{error}");
        }
    }
}
