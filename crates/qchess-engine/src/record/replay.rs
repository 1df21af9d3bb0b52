//! Records from games, and games from records.

use qchess_core::text::{excerpt, with_causes};
use qchess_core::{Bitboard, Color, Fen, Square};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use thiserror::Error;

use super::{GameRecord, RecordedMove, Tag};
use crate::{EndReason, Game, GameBoard, GameError, GameOptions, GameResult};

/// The names and places a record carries besides the game itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordInfo {
    /// `Event`.
    pub event: String,
    /// `Date`, as `YYYY.MM.DD` (`?` for unknown digits).
    pub date: String,
    /// `White`: the player of the white pieces.
    pub white: String,
    /// `Black`: the player of the black pieces.
    pub black: String,
    /// `Backend`: where the game ran (`local`, a provider's name).
    pub backend: String,
    /// More tags, written after the standard ones.
    pub extra: Vec<Tag>,
}

impl Default for RecordInfo {
    fn default() -> RecordInfo {
        RecordInfo {
            event: "?".to_owned(),
            date: "????.??.??".to_owned(),
            white: "?".to_owned(),
            black: "?".to_owned(),
            backend: "local".to_owned(),
            extra: Vec::new(),
        }
    }
}

impl RecordInfo {
    /// This info dated today (UTC).
    #[must_use]
    pub fn dated_today(self) -> RecordInfo {
        let seconds = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        RecordInfo { date: pgn_date(i64::try_from(seconds / 86_400).unwrap_or(0)), ..self }
    }
}

/// `YYYY.MM.DD` of a day counted from 1970-01-01.
fn pgn_date(days: i64) -> String {
    let date = qchess_core::calendar::CivilDate::from_days_since_epoch(days);
    format!("{:04}.{:02}.{:02}", date.year, date.month, date.day)
}

/// Why a record could not be replayed.
#[derive(Debug, Error)]
pub enum ReplayError {
    /// A tag the engine reads has a value it cannot use.
    #[error("tag {} \"{}\": {reason}", excerpt(.name), excerpt(.value))]
    Tag {
        /// The tag.
        name: String,
        /// Its value.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// The start position is not valid.
    #[error(transparent)]
    Start(Box<GameError>),
    /// A move could not be replayed (illegal, or its recorded outcome has probability 0).
    #[error("{}", move_place(.number, .mv, .source))]
    Move {
        /// The move number as movetext writes it (`3.` or `3...`).
        number: String,
        /// The move as recorded.
        mv: String,
        /// Why it failed.
        #[source]
        source: Box<GameError>,
    },
    /// The replayed game ends differently from the recorded result.
    #[error("the record's result is {recorded}, but replaying its moves gives {replayed}")]
    ResultMismatch {
        /// The result in the record.
        recorded: GameResult,
        /// The result of the replay.
        replayed: GameResult,
    },
    /// The record has a full-board measurement, but no fifty-move or repetition claim measured.
    #[error("the record has a MeasuredBoard tag, but no rule measured every square during the replay")]
    UnusedMeasurement,
}

impl GameRecord {
    /// The record of `game`, with every move's outcome, and `info`'s names.
    pub fn from_game(game: &Game, info: &RecordInfo) -> GameRecord {
        let mut record = GameRecord::default();
        let options = game.options();
        let standard = [
            ("Event", info.event.clone()),
            ("Date", info.date.clone()),
            ("White", info.white.clone()),
            ("Black", info.black.clone()),
            ("Result", game.result().to_string()),
            ("Variant", "official".to_owned()),
            ("Rules", options.rules.name().to_owned()),
            ("Backend", info.backend.clone()),
            ("Seed", options.seed.to_string()),
        ];
        for (name, value) in standard {
            record.set_tag(name, &value);
        }
        if *game.start_fen() != Fen::start() {
            record.set_tag("FEN", &game.start_fen().to_string());
        }
        if !options.enforce_turn_order {
            record.set_tag("TurnOrder", "free");
        }
        if !options.quantum_mode {
            record.set_tag("Mode", "classical");
        }
        if !options.enforce_win_conditions {
            record.set_tag("WinConditions", "off");
        }
        if let Some(measured) = game.measured_board() {
            record.set_tag("MeasuredBoard", &squares_text(measured));
        }
        if let Some(end) = game.end().filter(|e| matches!(e.reason, EndReason::Resignation | EndReason::Time)) {
            let loser = if end.result == GameResult::WhiteWins { "black" } else { "white" };
            let how = if end.reason == EndReason::Time { "lost on time" } else { "resigned" };
            record.set_tag("Termination", &format!("{loser} {how}"));
        }
        if game.end().is_some_and(|e| e.reason == EndReason::Agreement) {
            record.set_tag("Termination", "draw agreed");
        }
        for tag in &info.extra {
            if record.tag(&tag.name).is_none() {
                record.set_tag(&tag.name, &tag.value);
            }
        }
        record.moves =
            game.moves().iter().map(|played| RecordedMove { notation: played.declared, comment: None }).collect();
        record.mode_changes = game.mode_changes().to_vec();
        record.result = game.result();
        record
    }

    /// The game options the tags ask for: `Rules` (official when absent), `Mode` (the checkmate
    /// rules' quantum mode, `quantum` when absent), `Seed`,
    /// `TurnOrder`, `WinConditions`; outcomes are always forced.
    pub fn options(&self) -> Result<GameOptions, ReplayError> {
        let mut options = GameOptions::default();
        if let Some(value) = self.tag("Rules") {
            options.rules = value.trim().parse().map_err(|_| {
                tag_error("Rules", value, "expected `official`, `classical`, `observer` or `checkmate`")
            })?;
        }
        if let Some(value) = self.tag("Seed") {
            options.seed =
                value.trim().parse().map_err(|_| tag_error("Seed", value, "expected a number 0 to 2^64-1"))?;
        }
        match self.tag("Mode") {
            None | Some("quantum") => {}
            Some("classical") => options.quantum_mode = false,
            Some(other) => return Err(tag_error("Mode", other, "expected `quantum` or `classical`")),
        }
        match self.tag("TurnOrder") {
            None | Some("enforced") => {}
            Some("free") => options.enforce_turn_order = false,
            Some(other) => return Err(tag_error("TurnOrder", other, "expected `enforced` or `free`")),
        }
        match self.tag("WinConditions") {
            None | Some("on") => {}
            Some("off") => options.enforce_win_conditions = false,
            Some(other) => return Err(tag_error("WinConditions", other, "expected `on` or `off`")),
        }
        Ok(options)
    }

    /// The start position: the `FEN` tag, or the standard start.
    pub fn start(&self) -> Result<Fen, ReplayError> {
        match self.tag("FEN") {
            None => Ok(Fen::start()),
            Some(text) => text.parse().map_err(|e: qchess_core::FenError| tag_error("FEN", text, &e.to_string())),
        }
    }

    /// The full-board measurement the `MeasuredBoard` tag records.
    pub fn measured_board(&self) -> Result<Option<Bitboard>, ReplayError> {
        let Some(text) = self.tag("MeasuredBoard") else { return Ok(None) };
        if text.trim() == "-" {
            return Ok(Some(Bitboard::EMPTY));
        }
        let mut board = Bitboard::EMPTY;
        for name in text.split_whitespace() {
            let square: Square = name.parse().map_err(|_| {
                tag_error(
                    "MeasuredBoard",
                    text,
                    &format!("`{name}` is not a square; list squares like `e1 e8`, or `-`"),
                )
            })?;
            board = board.with(square);
        }
        Ok(Some(board))
    }

    /// Replays the record on the exact local board with the options its tags give.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let options = self.options()?;
        let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
        self.replay_on(LocalBoard::with_options(Bitboard::EMPTY, local), options)
    }

    /// Replays the record on `board` with `options` (outcomes are forced whatever `options`
    /// says): every recorded outcome is forced, the recorded full-board measurement is used,
    /// and the result must match the record's unless the record says `*`.
    pub fn replay_on(&self, board: impl GameBoard, options: GameOptions) -> Result<Game, ReplayError> {
        let options = GameOptions { force_outcomes: true, ..options };
        let start = self.start()?;
        let mut game = Game::with_board(&start, options, board).map_err(|e| ReplayError::Start(Box::new(e)))?;
        game.set_pending_measurement(self.measured_board()?);
        for ply in 0..=self.moves.len() {
            for change in self.mode_changes.iter().filter(|change| change.before_ply == ply) {
                game.set_quantum_mode(change.quantum).map_err(|source| ReplayError::Move {
                    number: move_number(&start, ply),
                    mv: change.to_string(),
                    source: Box::new(source),
                })?;
            }
            let Some(mv) = self.moves.get(ply) else { break };
            game.play_notation(&mv.notation).map_err(|source| ReplayError::Move {
                number: move_number(&start, ply),
                mv: mv.notation.to_string(),
                source: Box::new(source),
            })?;
        }
        if game.pending_measurement().is_some() {
            return Err(ReplayError::UnusedMeasurement);
        }
        if let Some(text) = self.tag("Termination").filter(|text| text.trim() == "draw agreed") {
            game.agree_draw().map_err(|e| tag_error("Termination", text, &with_causes(&e)))?;
        } else if let Some(text) = self.tag("Termination") {
            let (side, reason) = match text.trim() {
                "white resigned" => (Color::White, EndReason::Resignation),
                "black resigned" => (Color::Black, EndReason::Resignation),
                "white lost on time" => (Color::White, EndReason::Time),
                "black lost on time" => (Color::Black, EndReason::Time),
                _ => {
                    return Err(tag_error(
                        "Termination",
                        text,
                        "expected `white resigned`, `black lost on time`, `draw agreed` and the like",
                    ));
                }
            };
            game.concede(side, reason).map_err(|e| tag_error("Termination", text, &with_causes(&e)))?;
        }
        if self.result != GameResult::Ongoing && self.result != game.result() {
            return Err(ReplayError::ResultMismatch { recorded: self.result, replayed: game.result() });
        }
        Ok(game)
    }
}

fn tag_error(name: &str, value: &str, reason: &str) -> ReplayError {
    ReplayError::Tag { name: name.to_owned(), value: value.to_owned(), reason: reason.to_owned() }
}

/// `3.` or `3...` for the ply (from 0) of a game that starts at `start`.
fn move_number(start: &Fen, ply: usize) -> String {
    let offset = ply + usize::from(start.turn == Color::Black);
    let number = u64::from(start.fullmove_number.max(1)) + (offset / 2) as u64;
    if offset.is_multiple_of(2) { format!("{number}.") } else { format!("{number}...") }
}

/// The error's message without a leading `mv: `, which the replay error already says.
/// `move 3` (White) or `move 3...` (Black), then the move's text unless the cause names it.
fn move_place(number: &str, mv: &str, error: &GameError) -> String {
    let number = if number.ends_with("...") { number } else { number.trim_end_matches('.') };
    let names_move = matches!(
        error,
        GameError::Parse(_) | GameError::Illegal(_) | GameError::Board { .. } | GameError::Inconsistent { .. }
    );
    if names_move { format!("move {number}") } else { format!("move {number} {}", excerpt(mv)) }
}

/// The occupied squares, space-separated, or `-`.
fn squares_text(board: Bitboard) -> String {
    if board.is_empty() {
        return "-".to_owned();
    }
    board.iter().map(|sq| sq.to_string()).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(pgn_date(0), "1970.01.01");
        assert_eq!(pgn_date(11_016), "2000.02.29");
        assert_eq!(pgn_date(20_089), "2025.01.01");
    }

    #[test]
    fn move_numbers() {
        assert_eq!(move_number(&Fen::start(), 0), "1.");
        assert_eq!(move_number(&Fen::start(), 5), "3...");
        let black: Fen = "4k3/8/8/8/8/8/8/4K3 b - - 0 7".parse().expect("fen");
        assert_eq!(move_number(&black, 0), "7...");
        assert_eq!(move_number(&black, 1), "8.");
    }
}
