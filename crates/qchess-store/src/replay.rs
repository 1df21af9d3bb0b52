//! Games back from the store: the setup record replayed (its outcomes forced), then every event
//! as it was entered, with the game's seeds, so that the outcomes drawn are drawn again exactly
//! (a remote board's results come from the journal, not from new jobs); each event must record
//! as it did. Also the words events are stored in.

use qchess_core::Color;
use qchess_core::Notation;
use qchess_engine::record::{GameRecord, RecordInfo, ReplayError};
use qchess_engine::{EndReason, Game, GameBoard, GameError, GameOptions, PlayedMove};
use thiserror::Error;

use crate::events::Standing;
pub use crate::events::side_name;
use crate::games::StoredGame;

/// Why a stored game could not be rebuilt.
#[derive(Debug, Error)]
pub enum RebuildError {
    /// The setup record does not replay (or cannot be read).
    #[error("the game's setup: {0}")]
    Setup(String),
    /// An event could not be played again.
    #[error("event {seq} (`{input}`)")]
    Event {
        /// The event's place.
        seq: u32,
        /// As entered.
        input: String,
        /// Why it failed.
        #[source]
        source: GameError,
    },
    /// An event played again records differently than it did (the backend answered otherwise,
    /// or this qchess draws differently from the one that played it).
    #[error("event {seq} (`{input}`) was recorded as {stored} but plays again as {replayed}")]
    Diverged {
        /// The event's place.
        seq: u32,
        /// As entered.
        input: String,
        /// As stored.
        stored: String,
        /// As played again.
        replayed: String,
    },
}

impl RebuildError {
    /// The game error underneath, when an event failed.
    pub fn game_error(&self) -> Option<&GameError> {
        match self {
            RebuildError::Event { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// One event as entered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input<'a> {
    /// A move in official notation.
    Move(&'a str),
    /// `mode:quantum` / `mode:classical`.
    Mode(bool),
    /// `resign:white`: that side resigns.
    Resign(Color),
    /// `time:white`: that side lost on time.
    Time(Color),
    /// `draw:agreed`: both sides agreed to a draw.
    Draw,
}

fn color(name: &str) -> Option<Color> {
    match name {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

/// Reads an event; anything else is a move (which the game then checks).
fn parse(text: &str) -> Input<'_> {
    let text = text.trim();
    if let Ok(quantum) = qchess_engine::game::parse_mode_token(text) {
        return Input::Mode(quantum);
    }
    if let Some(side) = text.strip_prefix("resign:").and_then(color) {
        return Input::Resign(side);
    }
    if let Some(side) = text.strip_prefix("time:").and_then(color) {
        return Input::Time(side);
    }
    if text == DRAW_AGREED {
        return Input::Draw;
    }
    Input::Move(text)
}

/// The stored event of `color` resigning.
pub fn resign_input(side: Color) -> String {
    format!("resign:{}", side_name(side))
}

/// The stored event of `color` losing on time.
pub fn time_input(side: Color) -> String {
    format!("time:{}", side_name(side))
}

/// The event of a draw by agreement.
pub const DRAW_AGREED: &str = "draw:agreed";

/// Whether a stored event is a move (not a mode change, a resignation, a loss on time or a
/// draw agreed).
pub fn is_move(input: &str) -> bool {
    matches!(parse(input), Input::Move(_))
}

/// Whether `input` is what a player enters on a turn: a move or a mode change (not an event
/// that ends the game, which only the game's own operations store).
pub fn is_play(input: &str) -> bool {
    matches!(parse(input), Input::Move(_) | Input::Mode(_))
}

/// Plays one event (a move, `mode:...`, `resign:SIDE`, `time:SIDE`, `draw:agreed`) on `game`;
/// returns how it records, and the move when it was one.
pub fn apply(game: &mut Game, input: &str) -> Result<(String, Option<PlayedMove>), GameError> {
    match parse(input) {
        Input::Move(text) => {
            let played = game.play(text)?;
            Ok((played.declared.to_string(), Some(played)))
        }
        Input::Mode(quantum) => Ok((game.set_quantum_mode(quantum)?.to_string(), None)),
        Input::Resign(side) => {
            game.concede(side, EndReason::Resignation)?;
            Ok((resign_input(side), None))
        }
        Input::Time(side) => {
            game.concede(side, EndReason::Time)?;
            Ok((time_input(side), None))
        }
        Input::Draw => {
            game.agree_draw()?;
            Ok((DRAW_AGREED.to_owned(), None))
        }
    }
}

/// The event that plays `played` again: the move as the player chose it, without the outcomes
/// it drew (replayed with the same seeds, it draws them again).
pub fn chosen_input(played: &PlayedMove) -> String {
    let mut notation = played.declared;
    match &mut notation {
        Notation::Move(mv) => mv.outcome = None,
        Notation::Pair(first, second) => {
            first.outcome = None;
            second.outcome = None;
        }
        Notation::Measure(_, outcome) => *outcome = None,
        Notation::Null => {}
    }
    notation.to_string()
}

/// Where `game` (which started as the record `setup`) stands, for the store's listing and
/// export.
pub fn standing(game: &Game, setup: &str) -> Standing {
    Standing {
        result: game.result().token().to_owned(),
        to_move: if game.is_over() { String::new() } else { side_name(game.turn()).to_owned() },
        ply: game.ply(),
        record: record_text(game, setup),
    }
}

/// The record of `game`, with the names, date, backend and time control of its setup record.
pub fn record_text(game: &Game, setup: &str) -> String {
    let setup: GameRecord = setup.parse().unwrap_or_default();
    let tag = |name: &str, default: &str| setup.tag(name).unwrap_or(default).to_owned();
    let info = RecordInfo {
        event: tag("Event", "?"),
        date: tag("Date", "????.??.??"),
        white: tag("White", "?"),
        black: tag("Black", "?"),
        backend: tag("Backend", "local"),
        extra: setup.tags.iter().filter(|t| t.name == "TimeControl").cloned().collect(),
    };
    GameRecord::from_game(game, &info).to_string()
}

/// A stored game's record as of its last change, with the game's id and each move's stored
/// comment (a clock's time). Needs no backend: nothing is replayed.
pub fn export(stored: &StoredGame) -> GameRecord {
    let mut record: GameRecord = stored.record.parse().or_else(|_| stored.setup.parse()).unwrap_or_default();
    record.set_tag("GameId", &stored.summary.id);
    let setup_moves = stored.setup.parse::<GameRecord>().map_or(0, |setup| setup.moves.len());
    let moves = stored.events.iter().filter(|e| matches!(parse(&e.input), Input::Move(_)));
    for (mv, event) in record.moves.iter_mut().skip(setup_moves).zip(moves) {
        if let Some(comment) = &event.comment {
            mv.comment = Some(comment.clone());
        }
    }
    record
}

/// The setup record of a game just made (its tags, and the moves of a loaded record).
pub fn setup_record(game: &Game, info: &RecordInfo) -> String {
    GameRecord::from_game(game, info).to_string()
}

/// The options of a stored game: its setup record's tags (outcomes written with a move are
/// always honoured; a game that ignored them stored its moves without them).
pub fn options(setup: &GameRecord) -> Result<GameOptions, RebuildError> {
    setup.options().map_err(|e| RebuildError::Setup(qchess_core::text::with_causes(&e)))
}

/// The game as it started, on `board`.
pub fn start(stored: &StoredGame, board: impl GameBoard) -> Result<Game, RebuildError> {
    let setup: GameRecord =
        stored.setup.parse().map_err(|e| RebuildError::Setup(format!("the record does not read: {e}")))?;
    let options = options(&setup)?;
    setup.replay_on(board, options).map_err(|e: ReplayError| RebuildError::Setup(qchess_core::text::with_causes(&e)))
}

/// The stored game rebuilt on `board`: its setup, then every event checked against how it was
/// recorded.
pub fn rebuild(stored: &StoredGame, board: impl GameBoard) -> Result<Game, RebuildError> {
    let mut game = start(stored, board)?;
    for event in &stored.events {
        let (played, _) = apply(&mut game, &event.input).map_err(|source| RebuildError::Event {
            seq: event.seq,
            input: event.input.clone(),
            source,
        })?;
        if played != event.played {
            return Err(RebuildError::Diverged {
                seq: event.seq,
                input: event.input.clone(),
                stored: event.played.clone(),
                replayed: played,
            });
        }
    }
    Ok(game)
}

/// The remote board's error under a game error, when there is one (a job that detached, was
/// lost, failed...).
pub fn remote_error(error: &GameError) -> Option<&qchess_remote::RemoteBoardError> {
    use qchess_core::BoardError;
    match error {
        GameError::Backend(BoardError::Backend(inner))
        | GameError::Board { source: BoardError::Backend(inner), .. } => {
            inner.downcast_ref::<qchess_remote::RemoteBoardError>()
        }
        _ => None,
    }
}
