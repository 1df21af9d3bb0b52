//! The checkmate rules' quantum mode toggle (seed 003): a change of mode between plies.
//!
//! A player may switch quantum mode off (`mode:classical`: no splits) or on again
//! (`mode:quantum`) at any point of a game under the checkmate rules. A change does not use the
//! turn and makes no board step; records write it as that token in the movetext, before the
//! ply it precedes, and `qchess game --moves` takes it among the moves.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::Game;
use crate::{GameError, RuleSet, RuleViolation};

/// A change of quantum mode, as movetext writes it: `mode:quantum` or `mode:classical`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModeChange {
    /// The mode switched to: `true` for quantum (splits allowed).
    pub quantum: bool,
    /// How many plies were played before the change.
    pub before_ply: usize,
}

/// The text is not a mode change.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`{}` is not a mode change (mode:quantum or mode:classical)", qchess_core::text::excerpt(.0))]
pub struct ParseModeError(pub String);

/// The token of a change to `quantum` mode (`true`) or classical mode.
pub const fn mode_token(quantum: bool) -> &'static str {
    if quantum { "mode:quantum" } else { "mode:classical" }
}

/// Reads `mode:quantum` (`true`) or `mode:classical` (`false`).
pub fn parse_mode_token(text: &str) -> Result<bool, ParseModeError> {
    match text {
        "mode:quantum" => Ok(true),
        "mode:classical" => Ok(false),
        _ => Err(ParseModeError(text.to_owned())),
    }
}

/// Whether a word of movetext is meant as a mode change (starts with `mode:`).
pub fn is_mode_token(text: &str) -> bool {
    text.starts_with("mode:")
}

impl fmt::Display for ModeChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(mode_token(self.quantum))
    }
}

impl FromStr for ModeChange {
    type Err = ParseModeError;

    /// A change with `before_ply` 0; the caller places it.
    fn from_str(text: &str) -> Result<ModeChange, ParseModeError> {
        parse_mode_token(text).map(|quantum| ModeChange { quantum, before_ply: 0 })
    }
}

impl Game {
    /// Whether quantum mode is on now (splits allowed under the checkmate rules): the
    /// start's mode ([`GameOptions::quantum_mode`](crate::GameOptions)) after every change.
    pub fn quantum_mode(&self) -> bool {
        self.mode_changes.last().map_or(self.options.quantum_mode, |change| change.quantum)
    }

    /// The mode changes made so far, in order.
    pub fn mode_changes(&self) -> &[ModeChange] {
        &self.mode_changes
    }

    /// Switches quantum mode to `quantum` without using the turn. Refused under rules other
    /// than checkmate, when the mode is already `quantum`, and once the game is over.
    pub fn set_quantum_mode(&mut self, quantum: bool) -> Result<ModeChange, GameError> {
        let token = mode_token(quantum).to_owned();
        if self.options.rules != RuleSet::Checkmate {
            return Err(GameError::Rule { mv: token, rule: RuleViolation::NoModeToggle(self.options.rules) });
        }
        if self.quantum_mode() == quantum {
            return Err(GameError::Rule { mv: token, rule: RuleViolation::ModeAlreadySet { quantum } });
        }
        self.check_not_over()?;
        let change = ModeChange { quantum, before_ply: self.played.len() };
        self.mode_changes.push(change);
        Ok(change)
    }

    /// Takes back the mode changes made after ply `plies` (counted from 1): an undo of a ply
    /// takes back the changes that followed it.
    pub(super) fn drop_mode_changes_after(&mut self, plies: usize) {
        self.mode_changes.retain(|change| change.before_ply <= plies);
    }
}
