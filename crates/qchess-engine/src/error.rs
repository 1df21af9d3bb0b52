//! Why the game refused a move or could not go on.

use qchess_core::text::excerpt;
use qchess_core::{BoardError, Color, IllegalMove, ParseMoveError, PositionError, Square};
use thiserror::Error;

use crate::{EndReason, GameResult, RuleSet, RuleViolation};

/// Why a [`Game`](crate::Game) operation failed. The game is unchanged after every one of these.
#[derive(Debug, Error)]
pub enum GameError {
    /// The move text is not official notation.
    #[error(transparent)]
    Parse(#[from] ParseMoveError),
    /// The move is well formed but the rules do not allow it here.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
    /// The game has ended; no more moves are taken.
    #[error("the game is over ({result}, {reason}); no more moves")]
    GameOver {
        /// How it ended.
        result: GameResult,
        /// Why.
        reason: EndReason,
    },
    /// The quantum board refused or failed the move (an impossible forced outcome, a state too
    /// large, a backend failure).
    #[error("{}", excerpt(.mv))]
    Board {
        /// The move, in official notation.
        mv: String,
        /// What the board said.
        #[source]
        source: BoardError,
    },
    /// The quantum board failed outside a move (reading probabilities, undoing).
    #[error("the quantum board failed")]
    Backend(#[source] BoardError),
    /// The start position is not valid.
    #[error("start position")]
    Position(#[from] PositionError),
    /// The board's probabilities do not fit the pieces the tracker knows (a backend bug).
    #[error("{}: the quantum board left {square} occupied with probability {probability}, but no piece can be there", excerpt(.mv))]
    Inconsistent {
        /// The move, in official notation.
        mv: String,
        /// The square at fault.
        square: Square,
        /// Its probability.
        probability: f64,
    },
    /// A full-board measurement given for replay is impossible in the current state.
    #[error("the measured board {board} has probability 0 here")]
    ImpossibleMeasurement {
        /// The occupied squares of the board, space-separated.
        board: String,
    },
    /// There is no move to undo.
    #[error("there is no move to undo")]
    NothingToUndo,
    /// The move is well formed but breaks a rule of the game's rule set (beyond the official
    /// move rules, which [`GameError::Illegal`] reports).
    #[error("{mv}: {rule}")]
    Rule {
        /// The move, as written.
        mv: String,
        /// The rule it breaks.
        rule: RuleViolation,
    },
    /// The game's rule set does not allow the start position.
    #[error("the start position is not allowed under the {rules} rules: {reason}")]
    StartNotAllowed {
        /// The rule set.
        rules: RuleSet,
        /// Why not.
        reason: String,
    },
    /// A measurement needs a certainly empty square to aim at, and the board has none.
    #[error("a collapse needs a certainly empty square, and the board has none")]
    NoEmptySquare,
    /// A rule set accepted a move but recorded none (a bug in the rule set if it ever shows).
    #[error("the rules accepted the move but played nothing")]
    NothingPlayed,
    /// The side to move has no move the rules and the board allow.
    #[error("{side} has no legal move")]
    NoLegalMove {
        /// The side to move.
        side: Color,
    },
}

impl GameError {
    /// Whether the error is the user's input (a malformed, illegal or impossible move, a move
    /// after the end, a bad start) rather than a failure of the machinery.
    pub fn is_input_error(&self) -> bool {
        match self {
            GameError::Parse(_)
            | GameError::Illegal(_)
            | GameError::GameOver { .. }
            | GameError::Position(_)
            | GameError::ImpossibleMeasurement { .. }
            | GameError::NothingToUndo
            | GameError::Rule { .. }
            | GameError::StartNotAllowed { .. } => true,
            GameError::NoLegalMove { .. } | GameError::NothingPlayed | GameError::NoEmptySquare => false,
            GameError::Board { source, .. } => matches!(
                source,
                BoardError::ImpossibleOutcome { .. }
                    | BoardError::NoMeasurement { .. }
                    | BoardError::InvalidMove { .. }
            ),
            GameError::Backend(_) | GameError::Inconsistent { .. } => false,
        }
    }
}
