//! Rule sets: one [`Rules`] implementation per set, chosen per game by [`RuleSet`].
//!
//! A [`Game`] owns the quantum board and the classical tracker; a rule set decides which moves
//! are legal, what a move does on the board (one typed move, or a measurement first and then a
//! move), and when the game ends. Every rule set runs through the same pipeline: its board
//! steps are typed moves, compiled into the game's circuit and run on whatever
//! [`QuantumBoard`](qchess_core::QuantumBoard) the game has, and their outcomes feed the tracker.
//!
//! | [`RuleSet`] | module | what it is |
//! |---|---|---|
//! | `official` | [`official`] | the official Quantum Chess game (seeds 000 and 002): no check, capture the king |
//! | `classical` | [`classical`] | FIDE chess: check, checkmate, stalemate, fifty moves, threefold repetition, insufficient material |
//!
//! The public face of a rule set is small: [`Game::legal_moves`], [`Game::play`] (a move and
//! its outcome), [`Game::result`] and the position and state accessors of [`Game`]. The
//! trait below is what a rule set implements; callers go through [`Game`].
//!
//! ```
//! use qchess_engine::{Game, GameOptions, GameResult, RuleSet};
//!
//! let options = GameOptions { rules: RuleSet::Classical, ..GameOptions::default() };
//! let mut game = Game::new(&qchess_core::Fen::start(), options)?;
//! for mv in ["f2f3", "e7e5", "g2g4", "d8h4"] {
//!     game.play(mv)?;
//! }
//! assert_eq!(game.result(), GameResult::BlackWins); // fool's mate
//! assert!("b1^a3c3".parse::<RuleSet>().is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod classical;
pub mod official;

use std::fmt;
use std::str::FromStr;

use qchess_core::{Fen, LegalMove, Notation};
use thiserror::Error;

use crate::game::Turn;
use crate::{Game, GameEnd, GameError};

/// Which rules a game is played by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RuleSet {
    /// The official Quantum Chess game.
    #[default]
    Official,
    /// FIDE chess on the same pipeline: no quantum moves.
    Classical,
}

impl RuleSet {
    /// Every rule set, in the order `--rules` lists them.
    pub const ALL: [RuleSet; 2] = [RuleSet::Official, RuleSet::Classical];

    /// The name `--rules` and the `Rules` record tag use.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Official => "official",
            RuleSet::Classical => "classical",
        }
    }

    /// The implementation of this rule set.
    pub fn rules(self) -> &'static dyn Rules {
        match self {
            RuleSet::Official => &official::Official,
            RuleSet::Classical => &classical::Classical,
        }
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The text names no rule set.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`{0}` is not a rule set (official, classical)")]
pub struct ParseRuleSetError(pub String);

impl FromStr for RuleSet {
    type Err = ParseRuleSetError;

    fn from_str(text: &str) -> Result<RuleSet, ParseRuleSetError> {
        RuleSet::ALL.into_iter().find(|rules| rules.name() == text).ok_or_else(|| ParseRuleSetError(text.to_owned()))
    }
}

/// One rule set, as [`Game`] drives it. Implemented once per [`RuleSet`]; a game calls
/// [`RuleSet::rules`] to get its implementation.
///
/// Every method sees the game as it stands; [`Rules::play`] changes it only through the
/// [`Turn`] it is given, and the game takes every step back when `play` returns an error.
pub trait Rules: fmt::Debug + Send + Sync {
    /// The rule set this implements.
    fn rule_set(&self) -> RuleSet;

    /// Whether a game may start from `start` under these rules.
    fn check_start(&self, start: &Fen) -> Result<(), GameError>;

    /// Every legal move of the side to move.
    fn legal_moves(&self, game: &Game) -> Vec<LegalMove>;

    /// Checks `notation` and plays it: runs its board steps through `turn` and says which
    /// move of the ply is recorded. Errors name the move and the rule it breaks.
    fn play(&self, turn: &mut Turn<'_>, notation: &Notation) -> Result<(), GameError>;

    /// How the game stands after a ply: `None` while it goes on. May measure (the official
    /// fifty-move and repetition rules measure every square).
    fn decide(&self, game: &mut Game) -> Result<Option<GameEnd>, GameError>;
}

/// A rule of a rule set that a move breaks, for [`GameError::Rule`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RuleViolation {
    /// A split or merge under rules without quantum moves.
    #[error("splits and merges are not allowed under the {0} rules")]
    QuantumMove(RuleSet),
    /// A `.m0` / `.m1` suffix on a move that makes no measurement under these rules.
    #[error("this move makes no measurement under the {0} rules, so it takes no .m0 / .m1")]
    NoMeasurement(RuleSet),
    /// The move leaves the mover's own king attacked.
    #[error("it leaves the {0} king in check")]
    SelfCheck(qchess_core::Color),
    /// A castle out of, through or into check.
    #[error("the king cannot castle out of, through or into check")]
    CastleThroughCheck,
}
