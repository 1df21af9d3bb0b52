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
//! | `observer` | [`observer`] | seed 001: splits, the observer effect (50/50 collapses), quantum check and checkmate |
//! | `checkmate` | [`checkmate`] | seeds 003 and 004: declared moves, collapse before validation, failed moves, check for superposed kings |
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

mod board;
pub mod checkmate;
pub mod classical;
pub mod observer;
pub mod official;

use std::fmt;
use std::str::FromStr;

use qchess_core::{Fen, LegalMove, MoveVariant, Notation};
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
    /// Seed 001: two-way superposition, the observer effect, quantum check and checkmate.
    Observer,
    /// Seeds 003 and 004: declared moves, collapse before validation, check for superposed kings.
    Checkmate,
}

impl RuleSet {
    /// Every rule set, in the order `--rules` lists them.
    pub const ALL: [RuleSet; 4] = [RuleSet::Official, RuleSet::Classical, RuleSet::Observer, RuleSet::Checkmate];

    /// The name `--rules` and the `Rules` record tag use.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Official => "official",
            RuleSet::Classical => "classical",
            RuleSet::Observer => "observer",
            RuleSet::Checkmate => "checkmate",
        }
    }

    /// The implementation of this rule set.
    pub fn rules(self) -> &'static dyn Rules {
        match self {
            RuleSet::Official => &official::Official,
            RuleSet::Classical => &classical::Classical,
            RuleSet::Observer => &observer::Observer,
            RuleSet::Checkmate => &checkmate::Checkmate,
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
#[error("`{}` is not a rule set (official, classical, observer, checkmate)", qchess_core::text::excerpt(.0))]
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

    /// Every legal move of the side to move that is one typed move (the moves a quantum board
    /// could run as they are).
    fn legal_moves(&self, game: &Game) -> Vec<LegalMove>;

    /// The moves of [`Rules::legal_moves`] that capture ([`MoveVariant::Capture`]), in the same
    /// order. Rule sets override it when they can list captures without every other move.
    fn legal_captures(&self, game: &Game) -> Vec<LegalMove> {
        let mut moves = self.legal_moves(game);
        moves.retain(|mv| mv.typed.variant == MoveVariant::Capture);
        moves
    }

    /// Every legal move of the side to move as written: [`Rules::legal_moves`] and the moves
    /// that are no single typed move (the observer rules' pairs).
    fn legal_notations(&self, game: &Game) -> Vec<Notation> {
        self.legal_moves(game).iter().map(|m| Notation::Move(m.notation)).collect()
    }

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
    /// A merge under rules without merges.
    #[error("merges are not allowed under the {0} rules")]
    NoMerge(RuleSet),
    /// A split while quantum mode is off.
    #[error("quantum mode is off, so pieces cannot split")]
    QuantumModeOff,
    /// A quantum mode change under rules that have no quantum mode.
    #[error("only the checkmate rules have a quantum mode to switch, not the {0} rules")]
    NoModeToggle(RuleSet),
    /// A change to the mode the game is already in.
    #[error("quantum mode is already {}", if *.quantum { "on" } else { "off" })]
    ModeAlreadySet {
        /// The mode asked for: `true` for quantum.
        quantum: bool,
    },
    /// A capture where both the attacker and the target are superposed.
    #[error("both the attacker and the target are in superposition; measure one of them first (?square)")]
    TwoSuperposed,
    /// A capture that slides through a square that may hold a piece.
    #[error("a capture cannot slide through a square that may hold a piece; measure it first (?square)")]
    CaptureThroughSuperposed,
    /// A pawn's diagonal move declared as a non-capture.
    #[error("a pawn moves diagonally only as a capture; declare it with x")]
    PawnNeedsCapture,
    /// A non-capture declared onto a square that certainly holds a piece.
    #[error("{0} certainly holds a piece, so a non-capture there always fails; declare a capture with x")]
    CertainlyOccupied(qchess_core::Square),
    /// A measurement of a square that is not in superposition.
    #[error("{0} is not in superposition, so there is nothing to measure")]
    NotSuperposed(qchess_core::Square),
    /// A lone standard move from a square of a superposed piece.
    #[error(
        "{square} holds half of a superposed piece (the other half is on {other}); name a move for each half, like {square}..|{other}.."
    )]
    HalfNeedsPair {
        /// The square moved from.
        square: qchess_core::Square,
        /// The piece's other square.
        other: qchess_core::Square,
    },
    /// A split of a piece that is already in superposition.
    #[error("the piece on {0} is in superposition and cannot split again")]
    SplitSuperposed(qchess_core::Square),
    /// A split whose targets are not two different empty legal destinations of the piece.
    #[error("a split goes to two empty squares the piece could move to (no capture, castling or promotion)")]
    BadSplit,
    /// A pair whose two sources are not the two squares of one superposed piece of the mover.
    #[error("a pair names one move from each square of one superposed piece of the side to move")]
    UndefinedPair,
    /// A half of a pair that is no legal move of the piece from that square.
    #[error(
        "the half {from}{to} is not a legal move of the piece standing on {from} alone (a half may not capture a superposed piece)"
    )]
    UndefinedHalf {
        /// The half's source.
        from: qchess_core::Square,
        /// Its target.
        to: qchess_core::Square,
    },
    /// A move these rules do not have (a slide through a superposed piece, a move onto a
    /// square a piece of one's own may hold).
    #[error(
        "it is not a legal move under the {0} rules (superposed pieces block, and squares they may hold are occupied)"
    )]
    NotLegal(RuleSet),
}
