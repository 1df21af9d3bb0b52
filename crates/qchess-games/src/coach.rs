//! The coach: what a game's position is worth, the best move and line, and a review of the
//! moves played (see `qchess_search::analysis`).
//!
//! * [`Games::evaluation`]: the value for the side to move (centipawns) and White's expected
//!   score, the best move and the depth, for the evaluation bar.
//! * [`Games::hint`]: the best move with its expected line and the best few moves with their
//!   values.
//! * [`Games::review`]: every move played, judged by the expected score it gave away (best,
//!   good, inaccuracy, mistake, blunder), each with the best alternative, and for each marked
//!   move the board before it.
//!
//! Each takes [`limits`]: `movetime` (milliseconds per position, 10 to 10000; 300 by default) or `depth`
//! (1 to 8 plies, each position searched for at most the longest move time, 10 s, however far
//! it got by then). The game's record is read from the game store as of its last change (a
//! move still waiting for its provider's job is not in it yet) and the searches run on a copy
//! replayed from it, so the game's own thread is never held up. A game that is over has no
//! evaluation or hint: `over` is true and there is no move.
//!
//! Fair play: in a game between two people, each at their own seat, the coach answers nobody
//! while the game runs (its players, its spectators, anyone: a spectator could pass a hint
//! on), and everyone once it is over ([`GamesError::CoachClosed`], [`closed_reason`]). A game
//! made casual (`casual: true`, which both seats see before the first move) keeps it open, as
//! do games against the computer, between computers, and games from before seats existed.
//! Otherwise whoever may watch the game may ask it. Its searches take a processor each for up to
//! their limit (a review, one limit per move), so the service runs at most four per processor
//! at once and refuses more ([`GamesError::TooMany`]) while that many are running. A request
//! dropped before its answer (its client went away) stops its search (a review, before its
//! next move), which frees its place.

use std::sync::Arc;
use std::time::Duration;

use qchess_core::{Notation, Square};
use qchess_engine::Game;
use qchess_engine::record::GameRecord;
pub use qchess_search::SearchLimits;
use qchess_search::analysis::{Evaluation, MoveReview, evaluate_position, review_game};
use qchess_search::{SearchConfig, SearchControl};
use serde_json::{Map, Value, json};
use tokio::sync::OwnedSemaphorePermit;

use crate::error::{GamesError, store_error};
use crate::seats::{Caller, Want, closed_reason};
use crate::service::Games;
use crate::view;

/// Milliseconds per position when the request names no limit.
const DEFAULT_MOVETIME_MS: u64 = 300;

/// The longest a request may search one position, in milliseconds: the largest `movetime`,
/// and the bound on a `depth`.
const MAX_MOVETIME_MS: u64 = 10_000;

/// Moves listed with their values in a hint.
const HINT_MOVES: usize = 5;

/// How long the coach thinks per position: `depth` plies (1 to 8, each position searched for at
/// most the longest move time) or `movetime` milliseconds (10 to 10000; 300 when neither is
/// given).
pub fn limits(movetime: Option<u64>, depth: Option<u32>) -> Result<SearchLimits, GamesError> {
    match (depth, movetime) {
        (Some(_), Some(_)) => Err(GamesError::Invalid("give depth or movetime, not both".to_owned())),
        (Some(depth), None) if (1..=8).contains(&depth) => {
            Ok(SearchLimits { movetime: Some(Duration::from_millis(MAX_MOVETIME_MS)), ..SearchLimits::depth(depth) })
        }
        (Some(depth), None) => Err(GamesError::Invalid(format!("depth: {depth} is not from 1 to 8"))),
        (None, movetime) => {
            let ms = movetime.unwrap_or(DEFAULT_MOVETIME_MS);
            if (10..=MAX_MOVETIME_MS).contains(&ms) {
                Ok(SearchLimits::movetime(Duration::from_millis(ms)))
            } else {
                Err(GamesError::Invalid(format!("movetime: {ms} is not from 10 to {MAX_MOVETIME_MS} milliseconds")))
            }
        }
    }
}

/// What a coach request works on: the limits asked for, the game's record and its place
/// among the searches running.
struct Prepared {
    limits: SearchLimits,
    record: GameRecord,
    permit: OwnedSemaphorePermit,
}

impl Games {
    /// Lets `caller` in as a watcher of game `id` and prepares the search.
    async fn prepare(&self, id: &str, caller: &Caller, limits: SearchLimits) -> Result<Prepared, GamesError> {
        let admitted = self.admit(id, caller, |_| Want::Watch).await?;
        if let Some(reason) = closed_reason(&admitted.summary, admitted.summary.is_over()) {
            return Err(GamesError::CoachClosed(reason));
        }
        let permit = Arc::clone(&self.searches).try_acquire_owned().map_err(|_| GamesError::TooMany {
            message: "the coach is busy: the server runs as many searches as it has room for; ask again shortly"
                .to_owned(),
            retry_after: 1,
        })?;
        let stored = self.context.store.game(id).await.map_err(store_error)?;
        Ok(Prepared { limits, record: qchess_store::replay::export(&stored), permit })
    }

    /// The evaluation of game `id`'s position, or `{"over": true, "result"}` once it is over.
    pub async fn evaluation(&self, id: &str, caller: &Caller, limits: SearchLimits) -> Result<Value, GamesError> {
        self.position(id, caller, limits, |evaluation| Value::Object(evaluation_fields(evaluation))).await
    }

    /// The best move of game `id`'s position with its line and the best few moves, or
    /// `{"over": true, "result"}` once it is over.
    pub async fn hint(&self, id: &str, caller: &Caller, limits: SearchLimits) -> Result<Value, GamesError> {
        self.position(id, caller, limits, |evaluation| {
            let moves: Vec<Value> = evaluation
                .moves
                .iter()
                .take(HINT_MOVES)
                .map(|(mv, value)| json!({ "move": mv.to_string(), "value": value, "squares": squares_of(mv) }))
                .collect();
            let mut fields = evaluation_fields(evaluation);
            fields.insert("squares".into(), squares_of(&evaluation.best));
            fields.insert("line".into(), json!(evaluation.line.iter().map(ToString::to_string).collect::<Vec<_>>()));
            fields.insert("moves".into(), Value::Array(moves));
            Value::Object(fields)
        })
        .await
    }

    /// Game `id`'s position searched, answered by `answer` (or `{"over": true, "result"}` once
    /// the game is over), with the game's id and ply.
    async fn position(
        &self,
        id: &str,
        caller: &Caller,
        limits: SearchLimits,
        answer: impl FnOnce(&Evaluation) -> Value + Send + 'static,
    ) -> Result<Value, GamesError> {
        let Prepared { limits, record, permit } = self.prepare(id, caller, limits).await?;
        let ply = record.moves.len();
        let value = replayed(record, permit, move |game, control| {
            Ok(match evaluate(&game, &limits, control)? {
                None => json!({ "over": true, "result": game.result().token() }),
                Some(evaluation) => answer(&evaluation),
            })
        })
        .await?;
        Ok(with_id(value, id, ply))
    }

    /// Every move of game `id` judged, with the board before each marked one.
    pub async fn review(&self, id: &str, caller: &Caller, limits: SearchLimits) -> Result<Value, GamesError> {
        let Prepared { limits, record, permit } = self.prepare(id, caller, limits).await?;
        let ply = record.moves.len();
        let value = replayed(record.clone(), permit, move |game, control| {
            let reviews = review_game(&record, SearchConfig::default(), &limits, control, &mut |_| {})
                .map_err(|e| internal(&e))?;
            let boards = boards_before_each_move(game);
            let moves: Vec<Value> = reviews
                .iter()
                .map(|review| {
                    let mut value = review_json(review);
                    if review.judgement.is_marked()
                        && let Some(board) = boards.get(review.ply - 1)
                    {
                        value["board"] = board.clone();
                    }
                    value
                })
                .collect();
            let marked: Vec<usize> = reviews.iter().filter(|r| r.judgement.is_marked()).map(|r| r.ply).collect();
            Ok(json!({ "moves": moves, "marked": marked }))
        })
        .await?;
        Ok(with_id(value, id, ply))
    }
}

/// Stops a search when the request it serves ends: answered, or dropped because its client
/// went away (the server then drops the request's handler).
struct StopOnDrop(Arc<SearchControl>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Runs `work` on the blocking pool with the game replayed from `record`, holding `permit`,
/// with a control that stops it when this request is dropped.
async fn replayed<T: Send + 'static>(
    record: GameRecord,
    permit: OwnedSemaphorePermit,
    work: impl FnOnce(Game, &Arc<SearchControl>) -> Result<T, GamesError> + Send + 'static,
) -> Result<T, GamesError> {
    let control = SearchControl::new();
    let _stop = StopOnDrop(control.clone());
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let game = record.replay().map_err(|e| internal(&e))?;
        work(game, &control)
    })
    .await
    .map_err(|_| GamesError::Internal("the analysis stopped unexpectedly".to_owned()))?
}

fn internal(error: &(dyn std::error::Error + 'static)) -> GamesError {
    GamesError::Internal(format!("analysis: {}", qchess_core::text::with_causes(error)))
}

/// The evaluation of `game`, or `None` when it is over.
fn evaluate(
    game: &Game,
    limits: &SearchLimits,
    control: &Arc<SearchControl>,
) -> Result<Option<Evaluation>, GamesError> {
    if game.is_over() {
        return Ok(None);
    }
    evaluate_position(game, SearchConfig::default(), limits, control).map(Some).map_err(|e| internal(&e))
}

/// What the evaluation and the hint both answer about a position.
fn evaluation_fields(evaluation: &Evaluation) -> Map<String, Value> {
    Map::from_iter([
        ("over".to_owned(), json!(false)),
        ("to_move".to_owned(), json!(evaluation.turn.to_string().to_lowercase())),
        ("score".to_owned(), json!(evaluation.score)),
        ("white_expected".to_owned(), json!(evaluation.white_expected)),
        ("best".to_owned(), json!(evaluation.best.to_string())),
        ("depth".to_owned(), json!(evaluation.depth)),
    ])
}

/// The answer with the game's id and the ply it is about.
fn with_id(mut value: Value, id: &str, ply: usize) -> Value {
    if let Value::Object(map) = &mut value {
        map.insert("id".to_owned(), Value::from(id));
        map.insert("ply".to_owned(), Value::from(ply));
    }
    value
}

/// One judged move (values in centipawns for the mover, loss in expected score).
fn review_json(review: &MoveReview) -> Value {
    json!({
        "ply": review.ply,
        "mover": review.mover.to_string().to_lowercase(),
        "move": review.played.to_string(),
        "squares": squares_of(&review.played),
        "before": review.before,
        "after": review.after,
        "best": review.best.map(|mv| mv.to_string()),
        "best_squares": review.best.map(|mv| squares_of(&mv)),
        "best_value": review.best_value,
        "loss": review.loss,
        "judgement": review.judgement.to_string(),
        "depth": review.depth,
    })
}

/// `{"from": [..], "to": [..]}` of a move as written (a pair's first half).
fn squares_of(mv: &Notation) -> Value {
    let names = |list: Vec<Square>| list.into_iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match mv {
        Notation::Move(mv) | Notation::Pair(mv, _) => {
            json!({ "from": names(mv.squares.sources()), "to": names(mv.squares.targets()) })
        }
        _ => json!({ "from": [], "to": [] }),
    }
}

/// The board before each move of `game` (played to its end): each square's piece and
/// probability, as the game state has them.
fn boards_before_each_move(mut game: Game) -> Vec<Value> {
    let mut boards = Vec::with_capacity(game.moves().len());
    while game.undo().is_ok() {
        boards.push(view::squares(&game));
    }
    boards.reverse();
    boards
}
