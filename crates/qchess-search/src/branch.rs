//! Playing one move on the game with each possible measurement outcome: the chance nodes.
//!
//! A move that measures is played with its outcome forced, so the search visits each outcome's
//! own collapsed state and reads its exact probability from the board's report.

use qchess_core::{BoardError, LegalMove, MoveVariant};
use qchess_engine::{Game, GameError, PlayedMove};

/// Outcome probabilities within this of 1 count as certain.
const CERTAIN: f64 = 1e-12;

/// What [`play_first`] left on the board.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Branch {
    /// The move measured nothing that could go either way; it is on the board.
    Certain,
    /// The move measured: its `m1` outcome, of probability `p_m1` (strictly between 0 and 1), is
    /// on the board; the `m0` outcome has probability `1 - p_m1` (see [`play_outcome`]).
    Chance {
        /// The probability of the `m1` outcome.
        p_m1: f64,
    },
}

/// Plays `mv` with a forced outcome (`None`: the move must not measure).
pub fn play_outcome(game: &mut Game, mv: &LegalMove, outcome: Option<bool>) -> Result<PlayedMove, GameError> {
    let forced = LegalMove { notation: mv.notation.with_outcome(outcome), typed: mv.typed.with_outcome(outcome) };
    game.play_legal(&forced)
}

/// Plays `mv`: when it measures, its `m1` outcome (or its only possible outcome). Says whether
/// the other outcome remains to be searched. On error the game is unchanged.
pub fn play_first(game: &mut Game, mv: &LegalMove) -> Result<Branch, GameError> {
    // Moves onto empty squares or pieces of the same kind never measure.
    if mv.variant() == MoveVariant::Basic {
        return play_certain(game, mv);
    }
    match play_outcome(game, mv, Some(true)) {
        Ok(played) => Ok(match played.report.outcome_probability {
            Some(p) if p < 1.0 - CERTAIN => Branch::Chance { p_m1: p },
            _ => Branch::Certain,
        }),
        Err(GameError::Board { source: BoardError::ImpossibleOutcome { .. }, .. }) => {
            play_outcome(game, mv, Some(false))?;
            Ok(Branch::Certain)
        }
        Err(error @ GameError::Board { source: BoardError::StateTooLarge { .. }, .. }) => Err(error),
        // No measurement to force (a classical capture, or rules without outcomes).
        Err(_) => play_certain(game, mv),
    }
}

/// Plays a move that should not measure, and makes sure nothing was left to chance.
fn play_certain(game: &mut Game, mv: &LegalMove) -> Result<Branch, GameError> {
    let played = play_outcome(game, mv, None)?;
    if played.report.outcome_probability.is_some_and(|p| p < 1.0 - CERTAIN) {
        game.undo()?;
        return Err(GameError::Board {
            mv: mv.to_string(),
            source: BoardError::InvalidMove { mv: mv.to_string(), reason: "an unforced measurement".into() },
        });
    }
    Ok(Branch::Certain)
}

/// Calls `visit(game, probability)` on every outcome of `mv` with its exact probability, each
/// on its own collapsed state, and leaves the game as it was. A move the game refuses is an
/// error.
pub fn for_each_outcome<T>(
    game: &mut Game,
    mv: &LegalMove,
    mut visit: impl FnMut(&mut Game, f64) -> T,
) -> Result<Vec<T>, GameError> {
    let mut values = Vec::with_capacity(2);
    match play_first(game, mv)? {
        Branch::Certain => {
            values.push(visit(game, 1.0));
            game.undo()?;
        }
        Branch::Chance { p_m1 } => {
            values.push(visit(game, p_m1));
            game.undo()?;
            play_outcome(game, mv, Some(false))?;
            values.push(visit(game, 1.0 - p_m1));
            game.undo()?;
        }
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use qchess_core::Fen;
    use qchess_engine::GameOptions;

    #[test]
    fn a_capture_from_a_split_piece_has_both_outcomes_with_their_probabilities() {
        let fen: Fen = "4k3/8/8/4p3/8/8/8/R3K1N1 w - - 0 1".parse().unwrap();
        let mut game = Game::new(&fen, GameOptions::default()).unwrap();
        let quiet = game.position().parse_move("a1a2").unwrap();
        assert_eq!(for_each_outcome(&mut game, &quiet, |_, p| p).unwrap(), vec![1.0]);
        game.play("g1^f3h3").unwrap();
        game.play("e8d8").unwrap();
        let before = game.probabilities().clone();
        // The knight on f3 (probability 1/2) takes the pawn: measuring says whether it was there.
        let capture = game.position().parse_move("f3xe5").unwrap();
        let h3 = "h3".parse().unwrap();
        let seen = for_each_outcome(&mut game, &capture, |g, p| (p, g.probability(h3))).unwrap();
        assert_eq!(seen, vec![(0.5, 0.0), (0.5, 1.0)]);
        assert_eq!(game.probabilities(), &before);
        assert_eq!(game.moves().len(), 2);
    }
}
