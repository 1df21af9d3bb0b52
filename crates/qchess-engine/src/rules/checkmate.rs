//! The checkmate rules (seeds 003 and 004): declared moves, collapse before validation, check
//! and checkmate for superposed kings.
//!
//! The board and its circuits are the official game's: a piece may split (when quantum mode is
//! on), a superposed piece moves as the official rules move it, and a slide through a square
//! that may hold a piece entangles the two as the official circuits do (seed 003's "entangle").
//! On top of that, precisely:
//!
//! - **Declared moves** (seed 004). A move's type is locked when it is written:
//!   - a *classical move* is written bare (`e2e4`); onto a certainly empty square it is played
//!     as the official move. Onto a square that may hold a piece it first measures that square
//!     and fails if it is occupied (`.m1`: the square held a piece, the move failed; `.m0`: it
//!     was empty and the move is played). Onto a certainly occupied square it is refused.
//!   - a *capture* is written with `x` (`d1xd5`). Of a superposed piece (a *quantum capture*) it
//!     measures the target and fails if the square is empty (`.m1`: the piece was there and is
//!     captured; `.m0`: the capture failed). By a superposed attacker it measures the
//!     attacker's square first and fails if the attacker is not there (`.m1`: it was, the
//!     capture is played). A capture where both are superposed, or whose slide passes a square
//!     that may hold a piece, is refused: measure first (one measurement per move).
//!   - a *split* (`b1^a3c3`) goes to two certainly empty legal destinations, never castling,
//!     and only while quantum mode ([`Game::quantum_mode`]) is on.
//!   - a *mode change* (seed 003's toggle) is written `mode:classical` (quantum mode off: no
//!     splits) or `mode:quantum` (on again) and made with [`Game::set_quantum_mode`]. It comes
//!     between plies, does not use the turn and makes no board step; records keep it in the
//!     movetext before the ply it precedes and replay it. A game starts in quantum mode unless
//!     [`GameOptions::quantum_mode`](crate::GameOptions) (`--mode classical`) says otherwise;
//!     switching to the mode already on is refused.
//!   - a *measurement* (`?e4`, `?e4.m1`) measures a square that may hold a piece and ends the
//!     turn (seed 003's "measure"); `.m1` means the square was occupied.
//!
//!   Merges do not exist. A failed move leaves the mover on its square, ends the turn and keeps
//!   the collapse.
//! - **Collapse of whole entangled groups** (seed 004's "no partial collapse"). A move or `?sq`
//!   that measures a square measures its whole entangled group before the move is validated:
//!   the group is read from the exact occupancy distribution before the measurement
//!   ([`entangled_group`](crate::analysis::entangled_group): the smallest set of uncertain
//!   squares, the measured one among them, whose occupancy is independent of every other
//!   square's; a split piece's two squares, a slider and the piece it slid through). The
//!   declared square is measured first, and its `.m0` / `.m1` keep their meaning above; then
//!   every square of the group still uncertain is measured in turn (a1 to h8), each a real
//!   measurement of one square's occupancy in the circuit, its outcome drawn from its exact
//!   probability with the game's seeded generator (so records replay it from their `Seed`).
//!   Afterwards every square of the group is certainly empty or certainly occupied, and the
//!   rest of the board is as it was.
//! - **Check.** A king is in check when a square that may hold it is attacked by a piece that
//!   may stand on the attacking square, with only certainly occupied squares blocking: an
//!   attack in some branch of the state. A move is illegal when every outcome it can have
//!   leaves the mover's king in check; when only some do, it is played, and if such an outcome
//!   happens the move fails instead. If a collapse alone leaves a king in check, that is the new
//!   state. Castling also needs the king out of check and its path unattacked.
//! - **End.** The side to move is checkmated (`1-0` / `0-1`) when it is in check and has no
//!   legal move (a measurement is not a move), stalemated (`1/2-1/2`) when it is not in check
//!   and has none. A side whose king a collapse left capturable and that was captured loses.
//!   The fifty-move counter and threefold repetition are drawn as in classical chess.
//!
//! Resignation and loss on time end any game through [`Game::concede`] (`resign` and `--clock`
//! in `qchess play`); records keep them in a `Termination` tag.

use qchess_core::notation::{AlgebraicMove, VariantMarker};
use qchess_core::{
    Color, Fen, IllegalMove, LegalMove, MoveSquares, MoveType, MoveVariant, Notation, Piece, Position, Role,
};

use super::board::{Board, Step};
use super::{RuleSet, RuleViolation, Rules};
use crate::game::Turn;
use crate::{EndReason, Game, GameEnd, GameError};

/// The checkmate rules. See the [module docs](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct Checkmate;

/// What a declared move measures before it is validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    /// Nothing: the move is played as the official move.
    None,
    /// The target; a non-capture fails when it is occupied, a capture when it is empty.
    Target { capture: bool },
    /// The attacker's own square; the capture fails when it is not there.
    Source,
}

/// A checked declaration: the official move, its mover, and what it measures.
#[derive(Debug, Clone, Copy)]
struct Declared {
    legal: LegalMove,
    mover: Piece,
    probe: Probe,
}

/// The board with superposed squares seen through (they do not block).
fn board_of(position: &Position) -> Board {
    Board { see_through: position.superposed(), ..Board::of(position) }
}

/// The boards a declared move can leave, one per outcome.
fn outcomes(board: &Board, position: &Position, declared: &Declared) -> Vec<Board> {
    let (sources, targets) = (declared.legal.typed.sources(), declared.legal.typed.targets());
    let step = Step { from: sources[0], to: targets[0], promotion: declared.legal.typed.promotion.map(|p| p.role) };
    match (declared.probe, declared.legal.typed.squares) {
        (_, MoveSquares::Split { from, to1, to2 }) => {
            let mut after = board.after(Step { from, to: to1, promotion: None });
            after.pieces[usize::from(to2)] = after.at(to1);
            vec![after]
        }
        (Probe::None, _) => {
            let mut after = board.after(step);
            // A slide through a square that may hold a piece may also stay where it was.
            let slides = !matches!(declared.legal.typed.move_type, MoveType::Jump | MoveType::PawnStep);
            if slides && step.from.between(step.to).is_some_and(|path| path.intersects(position.superposed())) {
                after.pieces[usize::from(step.from)] = board.at(step.from);
            }
            vec![after]
        }
        (Probe::Target { capture: false }, _) => vec![board.clone(), board.without(step.to).after(step)],
        (Probe::Target { capture: true }, _) => vec![board.after(step), board.without(step.to)],
        (Probe::Source, _) => vec![board.after(step), board.without(step.from)],
    }
}

fn broken(notation: &Notation, rule: RuleViolation) -> GameError {
    GameError::Rule { mv: notation.to_string(), rule }
}

/// Checks a declaration and works out what it measures (see the [module docs](self)).
fn declare(game: &Game, notation: &Notation, mv: &AlgebraicMove) -> Result<Declared, GameError> {
    let position = game.position();
    let legal = position.validate(notation)?;
    let superposed = position.superposed();
    let (sources, targets) = (legal.typed.sources(), legal.typed.targets());
    let mover = position.piece_at(sources[0]).ok_or_else(|| {
        GameError::Illegal(IllegalMove {
            text: notation.to_string(),
            reason: qchess_core::Illegal::EmptySource { square: sources[0] },
        })
    })?;
    let probe = match legal.typed.squares {
        MoveSquares::Merge { .. } => return Err(broken(notation, RuleViolation::NoMerge(RuleSet::Checkmate))),
        MoveSquares::Split { .. } => {
            if !game.quantum_mode() {
                return Err(broken(notation, RuleViolation::QuantumModeOff));
            }
            if targets.iter().any(|&t| position.probability(t) > 0.0) {
                return Err(broken(notation, RuleViolation::BadSplit));
            }
            Probe::None
        }
        MoveSquares::Standard { from, to } => {
            let capture = mv.marker == Some(VariantMarker::Capture);
            let target_may_hold = position.probability(to) > 0.0;
            let path_superposed = from.between(to).is_some_and(|path| path.intersects(superposed))
                && !matches!(legal.typed.move_type, MoveType::Jump | MoveType::PawnStep | MoveType::PawnCapture);
            if capture {
                if superposed.contains(from) && superposed.contains(to) {
                    return Err(broken(notation, RuleViolation::TwoSuperposed));
                }
                if path_superposed {
                    return Err(broken(notation, RuleViolation::CaptureThroughSuperposed));
                }
                if superposed.contains(to) {
                    Probe::Target { capture: true }
                } else if superposed.contains(from) {
                    Probe::Source
                } else {
                    Probe::None
                }
            } else if legal.typed.move_type == MoveType::PawnCapture {
                return Err(broken(notation, RuleViolation::PawnNeedsCapture));
            } else if target_may_hold && !superposed.contains(to) {
                return Err(broken(notation, RuleViolation::CertainlyOccupied(to)));
            } else if target_may_hold {
                Probe::Target { capture: false }
            } else {
                Probe::None
            }
        }
    };
    if probe == Probe::None && mv.outcome.is_some() {
        return Err(broken(notation, RuleViolation::NoMeasurement(RuleSet::Checkmate)));
    }
    Ok(Declared { legal, mover, probe })
}

/// Whether some outcome of `declared` leaves the mover's king out of check.
fn keeps_a_safe_outcome(position: &Position, declared: &Declared) -> bool {
    let board = board_of(position);
    outcomes(&board, position, declared).iter().any(|after| !after.king_attacked(declared.mover.color))
}

/// The declared form of an official legal move: captures keep their `x`, the rest go bare.
fn declared_form(legal: &LegalMove) -> AlgebraicMove {
    let marker = (legal.typed.variant == MoveVariant::Capture).then_some(VariantMarker::Capture);
    AlgebraicMove { marker, ..legal.notation }
}

fn castle_allowed(position: &Position, legal: &LegalMove) -> bool {
    if !matches!(legal.typed.move_type, MoveType::KsCastle | MoveType::QsCastle) {
        return true;
    }
    let board = board_of(position);
    board.castles(position.turn()).iter().any(|c| Some(c.to) == legal.typed.targets().first().copied())
}

impl Rules for Checkmate {
    fn rule_set(&self) -> RuleSet {
        RuleSet::Checkmate
    }

    fn check_start(&self, start: &Fen) -> Result<(), GameError> {
        super::classical::check_chess_start(start, RuleSet::Checkmate)
    }

    fn legal_moves(&self, game: &Game) -> Vec<LegalMove> {
        let position = game.position();
        let mut moves = Vec::new();
        for official in position.legal_moves() {
            let mut forms = vec![declared_form(&official)];
            // A move onto a square an opponent piece may hold can also be declared a non-capture.
            if official.typed.variant == MoveVariant::Capture
                && official.typed.move_type != MoveType::PawnCapture
                && official.typed.targets().iter().all(|&t| position.superposed().contains(t))
            {
                forms.push(AlgebraicMove { marker: None, ..official.notation });
            }
            for form in forms {
                let notation = Notation::Move(form);
                let Ok(declared) = declare(game, &notation, &form) else { continue };
                if castle_allowed(position, &declared.legal) && keeps_a_safe_outcome(position, &declared) {
                    moves.push(LegalMove { notation: form, ..declared.legal });
                }
            }
        }
        moves
    }

    fn play(&self, turn: &mut Turn<'_>, notation: &Notation) -> Result<(), GameError> {
        let game = turn.game();
        let mv =
            match notation {
                Notation::Move(mv) => *mv,
                Notation::Measure(square, forced) => return measure_action(turn, notation, *square, *forced),
                Notation::Pair(..) | Notation::Null => {
                    return Err(GameError::Illegal(game.position().validate(notation).err().unwrap_or(IllegalMove {
                        text: notation.to_string(),
                        reason: qchess_core::Illegal::NullMove,
                    })));
                }
            };
        let declared = declare(game, notation, &mv)?;
        let position = game.position();
        if !castle_allowed(position, &declared.legal) {
            return Err(broken(notation, RuleViolation::CastleThroughCheck));
        }
        if !keeps_a_safe_outcome(position, &declared) {
            return Err(broken(notation, RuleViolation::SelfCheck(declared.mover.color)));
        }
        let resets = declared.mover.role == Role::Pawn;
        let (from, to) = match declared.legal.typed.squares {
            MoveSquares::Standard { from, to } => (from, to),
            _ => {
                turn.run(declared.legal, declared.mover, resets)?;
                return Ok(());
            }
        };
        let measured = match declared.probe {
            Probe::None => {
                turn.run(declared.legal, declared.mover, resets)?;
                return Ok(());
            }
            Probe::Target { .. } => to,
            Probe::Source => from,
        };
        let collapse = turn.collapse_group(measured, mv.outcome, &notation.to_string())?;
        let occupied = collapse.outcome == Some(true);
        let proceeds = match declared.probe {
            Probe::Target { capture: false } => !occupied,
            _ => occupied,
        };
        let outcome = crate::game::written_outcome(&collapse);
        let written =
            Notation::Move(AlgebraicMove { marker: mv.marker, ..declared.legal.notation.with_outcome(outcome) });
        let collapsed = turn.game().position();
        let again = collapsed.validate(&Notation::Move(AlgebraicMove { outcome: None, ..mv }));
        let safe = again.as_ref().is_ok_and(|legal| {
            let board = board_of(collapsed);
            let step = Step { from, to, promotion: legal.typed.promotion.map(|p| p.role) };
            !board.after(step).king_attacked(declared.mover.color)
        });
        match again {
            Ok(legal) if proceeds && safe => {
                turn.run(legal, declared.mover, resets)?;
            }
            _ => {
                turn.fail(declared.legal, declared.mover)?;
            }
        }
        turn.declare(written);
        Ok(())
    }

    fn decide(&self, game: &mut Game) -> Result<Option<GameEnd>, GameError> {
        let kings = (game.has_king(Color::White), game.has_king(Color::Black));
        if let Some(end) = GameEnd::from_kings(kings.0, kings.1, None) {
            return Ok(Some(end));
        }
        let turn = game.turn();
        if self.legal_moves(game).is_empty() {
            let in_check = board_of(game.position()).king_attacked(turn);
            return Ok(Some(if in_check {
                GameEnd::win(!turn, EndReason::Checkmate)
            } else {
                GameEnd::draw(EndReason::Stalemate)
            }));
        }
        Ok(super::classical::counted_draw(game, false))
    }
}

/// `?e4`: measure a square that may hold a piece; the turn ends.
fn measure_action(
    turn: &mut Turn<'_>,
    notation: &Notation,
    square: qchess_core::Square,
    forced: Option<bool>,
) -> Result<(), GameError> {
    let position = turn.game().position();
    if !position.superposed().contains(square) {
        return Err(broken(notation, RuleViolation::NotSuperposed(square)));
    }
    let side = position.turn();
    let collapse = turn.collapse_group(square, forced, &notation.to_string())?;
    let empty = turn.game().position().certainly_empty().iter().find(|&sq| sq != square).unwrap_or(square);
    let squares = MoveSquares::Standard { from: square, to: empty };
    let typed = qchess_core::TypedMove {
        squares,
        move_type: MoveType::PawnCapture,
        variant: MoveVariant::Capture,
        promotion: None,
        outcome: collapse.outcome,
    };
    let nominal = LegalMove { notation: AlgebraicMove::new(squares), typed };
    turn.fail(nominal, Piece::new(side, Role::King))?;
    turn.declare(Notation::Measure(square, crate::game::written_outcome(&collapse)));
    Ok(())
}
