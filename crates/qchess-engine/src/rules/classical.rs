//! Classical (FIDE) chess on the Quantum Chess pipeline.
//!
//! Moves are the legal moves of classical chess ([`ClassicalPosition`]), written in official
//! notation (`e2e4`, `g1f3`, `e1g1` for castling, `e7e8q`, `d4xe5` with an optional `x`).
//! Each runs on the quantum board as the typed move the official rules give it; on a fully
//! classical board that compiles to classical bit updates, so no qubit is ever used and no
//! move measures anything.
//!
//! - Refused: splits, merges and `.m0` / `.m1` suffixes ([`RuleViolation::QuantumMove`],
//!   [`RuleViolation::NoMeasurement`]), a move that leaves the mover's king attacked
//!   ([`RuleViolation::SelfCheck`]), and a castle out of, through or into check.
//! - The game ends, in this order of precedence, by **checkmate** (`1-0` / `0-1`),
//!   **stalemate**, **insufficient material** (no pawn, rook or queen, and at most one knight or
//!   bishop on the board, or only bishops all on squares of one colour), the **fifty-move rule**
//!   (100 plies without a pawn move or capture) and **threefold repetition** (the same pieces,
//!   side to move, castling rights and en-passant square for the third time). Draws are
//!   automatic, not claimed. Turn order is always enforced.

use qchess_core::classical::ClassicalPosition;
use qchess_core::notation::AlgebraicMove;
use qchess_core::{Fen, LegalMove, MoveSquares, MoveType, Notation, Role, Square};

use super::{RuleSet, RuleViolation, Rules};
use crate::game::Turn;
use crate::game::end::FIFTY_MOVE_LIMIT;
use crate::{EndReason, Game, GameEnd, GameError};

/// Classical chess. See the [module docs](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct Classical;

/// The game's position as classical chess sees it. A classical game only ever holds
/// classical positions, so this fails only on a start the rules did not check.
fn classical_position(game: &Game) -> Result<ClassicalPosition, GameError> {
    ClassicalPosition::from_fen(&game.position().to_fen())
        .map_err(|e| GameError::StartNotAllowed { rules: RuleSet::Classical, reason: e.to_string() })
}

impl Rules for Classical {
    fn rule_set(&self) -> RuleSet {
        RuleSet::Classical
    }

    fn check_start(&self, start: &Fen) -> Result<(), GameError> {
        check_chess_start(start, RuleSet::Classical)
    }

    fn legal_moves(&self, game: &Game) -> Vec<LegalMove> {
        let Ok(classical) = classical_position(game) else { return Vec::new() };
        classical
            .legal_moves()
            .iter()
            .filter_map(|mv| {
                let squares = MoveSquares::Standard { from: mv.from, to: mv.to };
                let notation = AlgebraicMove { promotion: mv.promotion(), ..AlgebraicMove::new(squares) };
                game.position().validate(&Notation::Move(notation)).ok()
            })
            .collect()
    }

    fn play(&self, turn: &mut Turn<'_>, notation: &Notation) -> Result<(), GameError> {
        let game = turn.game();
        let broken = |rule| GameError::Rule { mv: notation.to_string(), rule };
        if let Notation::Move(mv) = notation {
            if !matches!(mv.squares, MoveSquares::Standard { .. }) {
                return Err(broken(RuleViolation::QuantumMove(RuleSet::Classical)));
            }
            if mv.outcome.is_some() {
                return Err(broken(RuleViolation::NoMeasurement(RuleSet::Classical)));
            }
        }
        let legal = game.position().validate(notation)?;
        let MoveSquares::Standard { from, to } = legal.typed.squares else {
            return Err(broken(RuleViolation::QuantumMove(RuleSet::Classical)));
        };
        let promotion = legal.typed.promotion.map(|piece| piece.role);
        let classical = classical_position(game)?;
        let allowed =
            classical.legal_moves().iter().any(|m| m.from == from && m.to == to && m.promotion() == promotion);
        let mover = game.position().piece_at(from).ok_or_else(|| {
            GameError::Illegal(qchess_core::IllegalMove {
                text: notation.to_string(),
                reason: qchess_core::Illegal::EmptySource { square: from },
            })
        })?;
        if !allowed {
            let rule = match legal.typed.move_type {
                MoveType::KsCastle | MoveType::QsCastle => RuleViolation::CastleThroughCheck,
                _ => RuleViolation::SelfCheck(mover.color),
            };
            return Err(broken(rule));
        }
        turn.run(legal, mover, mover.role == Role::Pawn)?;
        Ok(())
    }

    fn decide(&self, game: &mut Game) -> Result<Option<GameEnd>, GameError> {
        let classical = classical_position(game)?;
        if let Some(outcome) = classical.outcome() {
            return Ok(Some(match outcome {
                qchess_core::classical::ClassicalOutcome::Checkmate { winner } => {
                    GameEnd::win(winner, EndReason::Checkmate)
                }
                qchess_core::classical::ClassicalOutcome::Stalemate => GameEnd::draw(EndReason::Stalemate),
            }));
        }
        Ok(counted_draw(game, insufficient_material(game)))
    }
}

/// Whether no sequence of legal moves can mate: kings alone, one minor piece, or bishops
/// that all stand on squares of one colour.
/// Whether `start` is a chess position (kings, no pawns on the back ranks, ...), as every rule
/// set with check requires; refusals name `rules`.
pub(crate) fn check_chess_start(start: &Fen, rules: RuleSet) -> Result<(), GameError> {
    ClassicalPosition::from_fen(start)
        .map(|_| ())
        .map_err(|e| GameError::StartNotAllowed { rules, reason: e.to_string() })
}

/// The draws that count rather than mate: insufficient material (when the caller says the
/// material is insufficient), the fifty-move rule and threefold repetition.
pub(crate) fn counted_draw(game: &Game, material_insufficient: bool) -> Option<GameEnd> {
    let reason = if material_insufficient {
        EndReason::InsufficientMaterial
    } else if game.fifty_move_counter() >= FIFTY_MOVE_LIMIT {
        EndReason::FiftyMoveRule
    } else if game.is_third_repetition() {
        EndReason::ThreefoldRepetition
    } else {
        return None;
    };
    Some(GameEnd::draw(reason))
}

pub(crate) fn insufficient_material(game: &Game) -> bool {
    let mut minors = 0;
    let mut knights = 0;
    let mut bishop_colours = [false; 2];
    for square in Square::ALL {
        let Some(piece) = game.piece_at(square) else { continue };
        match piece.role {
            Role::King => {}
            Role::Pawn | Role::Rook | Role::Queen => return false,
            Role::Knight => {
                minors += 1;
                knights += 1;
            }
            Role::Bishop => {
                minors += 1;
                bishop_colours[usize::from((square.file() + square.rank()) % 2 == 1)] = true;
            }
        }
    }
    minors <= 1 || (knights == 0 && !(bishop_colours[0] && bishop_colours[1]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GameOptions;

    fn game(fen: &str) -> Game {
        let options = GameOptions { rules: RuleSet::Classical, ..GameOptions::default() };
        Game::new(&fen.parse().expect("fen"), options).expect("game")
    }

    #[test]
    fn material_that_cannot_mate() {
        assert!(insufficient_material(&game("4k3/8/8/8/8/8/8/4K3 w - - 0 1")));
        assert!(insufficient_material(&game("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1")));
        // Bishops on c1 and f8: both on dark squares.
        assert!(insufficient_material(&game("4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1")));
        // c1 dark, c8 light: a mate exists.
        assert!(!insufficient_material(&game("2b1k3/8/8/8/8/8/8/2B1K3 w - - 0 1")));
        assert!(!insufficient_material(&game("4k3/8/8/8/8/8/8/1NN1K3 w - - 0 1")));
        assert!(!insufficient_material(&game("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1")));
    }
}
