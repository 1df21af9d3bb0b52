//! Game records: PGN-style tag pairs, then the moves in official notation with every
//! measurement outcome, then the result.
//!
//! ```text
//! [Event "Knight games"]
//! [Date "2025.01.31"]
//! [White "Ada"]
//! [Black "Max"]
//! [Result "*"]
//! [Variant "official"]
//! [Rules "official"]
//! [Backend "local"]
//! [Seed "7"]
//!
//! 1. b1^a3c3 { split } g8f6 2. c3wb5.m1 *
//! ```
//!
//! - Tags are `[Name "value"]`, one per line, names of letters, digits and `_`; values escape
//!   `"` and `\` with a backslash. Every tag is kept, in order; a tag given twice is an error.
//!   Tags the engine reads: `Rules` (the [`RuleSet`](crate::RuleSet) by name; a record without
//!   it is official), `Termination` (`white resigned`, `black lost on time`, `draw agreed`), `Mode` (`classical` when the checkmate rules' quantum mode is off), `Seed`, `FEN` (when the game does not start from the standard
//!   position), `TurnOrder` (`free` when either side may move), `WinConditions` (`off` when the
//!   game never ends), and `MeasuredBoard`, the squares found occupied when the fifty-move or
//!   repetition rule measured every square (`-` for none).
//! - Movetext: move numbers (`12.`, `12...`) are optional and not checked, moves are official
//!   notation, `{ comments }` attach to the move before them (or to the game, before the first
//!   move) with their spacing collapsed, `mode:classical` and `mode:quantum` are the
//!   checkmate rules' quantum mode changes (between moves; they use no turn), `;` comments run to the end of the line and are
//!   dropped, and the result token (`1-0`, `0-1`, `1/2-1/2`, `*`) ends the record. It must
//!   agree with a `Result` tag.
//!
//! [`GameRecord`]'s `Display` prints a record that parses back to an equal record. Replaying
//! ([`GameRecord::replay`]) forces every recorded outcome, so a record replays to the same
//! position on any backend; an outcome that has probability 0 is an error naming the move.

mod atomic;
mod file;
mod parse;
mod print;
mod replay;

use qchess_core::Notation;

pub use file::FileError;
pub use parse::{ParseRecordError, RecordProblem};
pub use replay::{RecordInfo, ReplayError};

use crate::GameResult;

/// One tag pair.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Tag {
    /// The name: letters, digits and `_`.
    pub name: String,
    /// The value (any text without line breaks).
    pub value: String,
}

/// One move of the movetext with its comment.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RecordedMove {
    /// The move in official notation.
    pub notation: Notation,
    /// The comment after it, if any (no `}`; spacing collapsed).
    pub comment: Option<String>,
}

/// A game record. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct GameRecord {
    /// The tag pairs, in order.
    pub tags: Vec<Tag>,
    /// A comment before the first move.
    pub comment: Option<String>,
    /// The moves.
    pub moves: Vec<RecordedMove>,
    /// The quantum mode changes (`mode:classical`, `mode:quantum`), each placed by how many
    /// moves come before it.
    pub mode_changes: Vec<crate::ModeChange>,
    /// The result token at the end of the movetext.
    pub result: GameResult,
}

impl GameRecord {
    /// The value of the tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|t| t.name == name).map(|t| t.value.as_str())
    }

    /// Sets the tag `name`, replacing its value in place or adding it at the end. Line breaks
    /// in the value become spaces.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        let value = value.replace(['\r', '\n'], " ");
        match self.tags.iter_mut().find(|t| t.name == name) {
            Some(tag) => tag.value = value,
            None => self.tags.push(Tag { name: name.to_owned(), value }),
        }
    }
}

/// Collapses runs of whitespace to one space and trims, as the parser reads comments.
pub(crate) fn normalize_comment(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    (!words.is_empty()).then(|| words.join(" "))
}
