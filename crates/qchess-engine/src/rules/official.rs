//! The official Quantum Chess rules (seeds 000 and 002; DESIGN section 3).
//!
//! Every legal move of [`Position::legal_moves`](qchess_core::Position::legal_moves) is one
//! typed move on the board; there is no check. The game ends when a side has no king left
//! (both gone: a draw, "annihilation"), and by the fifty-move and repetition rules, which
//! measure every square (see [`game`](crate::game)). The official engine's options apply:
//! `force_turn`, `force_win` and `forcemeasure` are
//! [`GameOptions`](crate::GameOptions)' `enforce_turn_order`, `enforce_win_conditions` and
//! `force_outcomes`.

use qchess_core::{Fen, IllegalMove, LegalMove, Notation};

use super::{RuleSet, Rules};
use crate::game::Turn;
use crate::{Game, GameEnd, GameError};

/// The official rules. See the [module docs](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct Official;

impl Rules for Official {
    fn rule_set(&self) -> RuleSet {
        RuleSet::Official
    }

    fn check_start(&self, _start: &Fen) -> Result<(), GameError> {
        // Any position the official tracker takes is a valid start.
        Ok(())
    }

    fn legal_moves(&self, game: &Game) -> Vec<LegalMove> {
        game.position().legal_moves()
    }

    fn legal_captures(&self, game: &Game) -> Vec<LegalMove> {
        game.position().legal_captures()
    }

    fn play(&self, turn: &mut Turn<'_>, notation: &Notation) -> Result<(), GameError> {
        let game = turn.game();
        let position = game.position_for(notation)?;
        let legal = position.validate(notation)?;
        let source = legal.typed.sources()[0];
        // `validate` has checked that the source holds a piece of the side to move.
        let mover = position.piece_at(source).ok_or_else(|| {
            GameError::Illegal(IllegalMove {
                text: notation.to_string(),
                reason: qchess_core::Illegal::EmptySource { square: source },
            })
        })?;
        turn.run(legal, mover, false)?;
        Ok(())
    }

    fn decide(&self, game: &mut Game) -> Result<Option<GameEnd>, GameError> {
        game.decide_by_kings()
    }
}
