//! The observer rules (seed 001): chess with two-way superposition and the observer effect.
//!
//! Written down precisely, where the seed leaves room:
//!
//! - **Pieces and moves** are those of chess ([`Classical`](super::classical::Classical)), on a
//!   board where a piece is either classical (on one square) or superposed (on two squares, with
//!   probability 1/2 each). A superposed piece blocks slides on both of its squares, and both
//!   of its squares are occupied for every rule below.
//! - **Split** (`b1^a3c3`): a classical piece with two or more legal destinations that are
//!   empty (not captures, not castling, not a promotion) moves to two of them at once, with the
//!   official split circuit. Any piece may split, pawns (from their start square, `e2^e3e4`)
//!   and kings included. A superposed piece cannot split again.
//! - **Defensive superposition**: a classical piece's move onto a square of a superposed
//!   opponent piece first measures that square, 50/50, as a real measurement in the circuit;
//!   then the move is played on the collapsed board: a capture if the piece was there (`.m1`),
//!   a move onto the now empty square if it was not (`.m0`). It is written as the move, with
//!   the outcome (`d1xd5.m1`).
//! - **Offensive superposition**: a superposed piece moves by naming one standard move for each
//!   half, `e5e8|c2c7`, the first from one of its squares and the second from the other. The
//!   first half's source is measured: `.m1` at the end of the pair means the piece was there and
//!   the first move is played, `.m0` that it was on the other square and the second is played.
//!   Each half must be a legal move of the piece from its square on the board where it stands
//!   there alone (otherwise the pair is undefined and refused). A half may capture a classical
//!   piece but not a superposed one (one measurement per move). A lone standard move from a
//!   square of a superposed piece is refused: it needs its pair.
//! - **Quantum check**: a king is in check when any of its squares is attacked by any half of
//!   an opponent piece; nothing collapses. A move is legal only if, in every outcome it can
//!   have, the mover's king is not attacked by any half.
//! - **End**: no legal move and in check is (quantum) checkmate, `1-0` / `0-1`; no legal move
//!   and not in check is (quantum) stalemate, `1/2-1/2`. Insufficient material, the fifty-move
//!   rule (100 plies without a pawn move or a change of the expected piece count) and threefold
//!   repetition of a fully classical position are draws, as in classical chess. No king is
//!   ever captured, since no legal move leaves a king attacked.

use qchess_core::notation::AlgebraicMove;
use qchess_core::{
    Fen, LegalMove, MoveSquares, MoveType, MoveVariant, Notation, Piece, Position, Role, Square, TypedMove,
};

use super::board::{Board, Step};
use super::classical::insufficient_material;
use super::{RuleSet, RuleViolation, Rules};
use crate::game::Turn;
use crate::{EndReason, Game, GameEnd, GameError};

/// The observer rules. See the [module docs](self).
#[derive(Debug, Clone, Copy, Default)]
pub struct Observer;

/// One move the rules consider, before checking the mover's king.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Candidate {
    /// A classical piece's standard move onto an empty square or a classical opponent.
    Plain(Step),
    /// A classical piece's move onto a square of a superposed opponent: measure, then move.
    Attack(Step),
    /// A classical piece's split onto two empty squares.
    Split { from: Square, to1: Square, to2: Square },
}

/// The superposed pieces of the game: the two squares of each, from the splits that made them.
/// A split's squares form a pair while both are still in superposition; the latest split that
/// names a square owns it.
fn superposed_pairs(game: &Game) -> Vec<(Square, Square)> {
    let superposed = game.position().superposed();
    let mut pairs: Vec<(Square, Square)> = Vec::new();
    for played in game.moves().iter().rev() {
        if let MoveSquares::Split { to1, to2, .. } = played.notation.squares {
            let taken = pairs.iter().any(|&(a, b)| [a, b].contains(&to1) || [a, b].contains(&to2));
            if !taken && superposed.contains(to1) && superposed.contains(to2) {
                pairs.push((to1, to2));
            }
        }
    }
    pairs
}

/// The other square of the superposed piece on `square`, if it is superposed.
fn partner(pairs: &[(Square, Square)], square: Square) -> Option<Square> {
    pairs.iter().find_map(|&(a, b)| match square {
        s if s == a => Some(b),
        s if s == b => Some(a),
        _ => None,
    })
}

/// The position's board and pairs, with what the side to move can do.
struct View {
    board: Board,
    pairs: Vec<(Square, Square)>,
    turn: qchess_core::Color,
}

impl View {
    fn of(game: &Game) -> View {
        View { board: Board::of(game.position()), pairs: superposed_pairs(game), turn: game.turn() }
    }

    fn is_superposed(&self, square: Square) -> bool {
        partner(&self.pairs, square).is_some()
    }

    /// Whether `board` leaves the side to move's king unattacked.
    fn safe(&self, board: &Board) -> bool {
        !board.king_attacked(self.turn)
    }

    /// Every candidate of the side to move with whether it keeps the king safe in every outcome.
    fn candidates(&self) -> Vec<(Candidate, bool)> {
        let mut moves = Vec::new();
        for from in Square::ALL {
            let Some(piece) = self.board.at(from).filter(|p| p.color == self.turn) else { continue };
            if self.is_superposed(from) {
                continue;
            }
            let mut empty_targets = Vec::new();
            let mut steps = self.board.steps(from);
            if piece.role == Role::King {
                steps.extend(self.board.castles(self.turn));
            }
            for step in steps {
                let candidate = match partner(&self.pairs, step.to) {
                    Some(_) if self.board.at(step.to).is_some() => Candidate::Attack(step),
                    _ => Candidate::Plain(step),
                };
                let castle = piece.role == Role::King && step.from.file().abs_diff(step.to.file()) == 2;
                if self.board.at(step.to).is_none() && step.promotion.is_none() && !castle {
                    empty_targets.push(step.to);
                }
                moves.push((candidate, self.keeps_king_safe(candidate)));
            }
            for (i, &to1) in empty_targets.iter().enumerate() {
                for &to2 in &empty_targets[i + 1..] {
                    let split = Candidate::Split { from, to1, to2 };
                    moves.push((split, self.keeps_king_safe(split)));
                }
            }
        }
        moves
    }

    fn keeps_king_safe(&self, candidate: Candidate) -> bool {
        match candidate {
            Candidate::Plain(step) => self.safe(&self.board.after(step)),
            Candidate::Attack(step) => {
                let other = partner(&self.pairs, step.to).unwrap_or(step.to);
                // The victim was there (captured, its other half gone), or it was on its
                // other square (the attacker lands on an empty square).
                self.safe(&self.board.without(other).after(step)) && self.safe(&self.board.without(step.to).after(step))
            }
            Candidate::Split { from, to1, to2 } => {
                let mut board = self.board.after(Step { from, to: to1, promotion: None });
                board.pieces[usize::from(to2)] = board.at(to1);
                self.safe(&board)
            }
        }
    }

    /// The legal half-moves of the superposed piece on `from` (its partner removed).
    fn half_moves(&self, from: Square) -> Vec<(Step, bool)> {
        let Some(other) = partner(&self.pairs, from) else { return Vec::new() };
        let board = self.board.without(other);
        board
            .steps(from)
            .into_iter()
            .filter(|step| !self.is_superposed(step.to))
            .map(|step| (step, self.safe(&board.after(step))))
            .collect()
    }

    /// Whether the side to move has any legal move.
    fn has_legal_move(&self) -> bool {
        self.candidates().iter().any(|&(_, safe)| safe)
            || self.pairs.iter().any(|&(a, b)| {
                self.board.at(a).is_some_and(|p| p.color == self.turn)
                    && self.half_moves(a).iter().any(|m| m.1)
                    && self.half_moves(b).iter().any(|m| m.1)
            })
    }
}

/// The official notation of a step.
fn step_notation(step: Step) -> AlgebraicMove {
    AlgebraicMove {
        promotion: step.promotion,
        ..AlgebraicMove::new(MoveSquares::Standard { from: step.from, to: step.to })
    }
}

/// The typed move of a split: the official split circuits (a pawn's pushes are a slide).
fn split_move(from: Square, to1: Square, to2: Square, role: Role) -> LegalMove {
    let squares = MoveSquares::Split { from, to1, to2 };
    let move_type = if matches!(role, Role::Knight | Role::King) { MoveType::SplitJump } else { MoveType::SplitSlide };
    LegalMove {
        notation: AlgebraicMove::new(squares),
        typed: TypedMove { squares, move_type, variant: MoveVariant::Basic, promotion: None, outcome: None },
    }
}

fn broken(notation: &Notation, rule: RuleViolation) -> GameError {
    GameError::Rule { mv: notation.to_string(), rule }
}

/// `step` on a board where its source and target are classical: a jump, capturing when the
/// target holds a piece. (A pawn that attacked a superposed piece that was not there moves
/// onto the empty square diagonally, which no official move type is.)
fn collapsed_step(position: &Position, step: Step) -> LegalMove {
    let squares = MoveSquares::Standard { from: step.from, to: step.to };
    let variant = if position.piece_at(step.to).is_some() { MoveVariant::Capture } else { MoveVariant::Basic };
    let promotion = step.promotion.zip(position.piece_at(step.from)).map(|(role, p)| Piece::new(p.color, role));
    LegalMove {
        notation: AlgebraicMove {
            marker: qchess_core::notation::VariantMarker::for_variant(variant),
            ..step_notation(step)
        },
        typed: TypedMove { squares, move_type: MoveType::Jump, variant, promotion, outcome: None },
    }
}

/// Validates `step` in `position` with the official rules: its canonical form and typed move.
fn official(position: &Position, step: Step, text: &Notation) -> Result<LegalMove, GameError> {
    position
        .validate(&Notation::Move(step_notation(step)))
        .map_err(|error| GameError::Illegal(qchess_core::IllegalMove { text: text.to_string(), reason: error.reason }))
}

impl Rules for Observer {
    fn rule_set(&self) -> RuleSet {
        RuleSet::Observer
    }

    fn check_start(&self, start: &Fen) -> Result<(), GameError> {
        super::classical::check_chess_start(start, RuleSet::Observer)
    }

    fn legal_moves(&self, game: &Game) -> Vec<LegalMove> {
        let view = View::of(game);
        let position = game.position();
        let mut moves = Vec::new();
        for (candidate, safe) in view.candidates() {
            if !safe {
                continue;
            }
            let legal = match candidate {
                Candidate::Plain(step) | Candidate::Attack(step) => {
                    position.validate(&Notation::Move(step_notation(step))).ok()
                }
                Candidate::Split { from, to1, to2 } => {
                    view.board.at(from).map(|piece| split_move(from, to1, to2, piece.role))
                }
            };
            moves.extend(legal);
        }
        moves
    }

    fn legal_notations(&self, game: &Game) -> Vec<Notation> {
        let view = View::of(game);
        let mut moves: Vec<Notation> = self.legal_moves(game).iter().map(|m| Notation::Move(m.notation)).collect();
        for &(a, b) in &view.pairs {
            if view.board.at(a).is_none_or(|p| p.color != view.turn) {
                continue;
            }
            let (first, second) = (view.half_moves(a), view.half_moves(b));
            for &(x, _) in first.iter().filter(|m| m.1) {
                for &(y, _) in second.iter().filter(|m| m.1) {
                    moves.push(Notation::Pair(step_notation(x), step_notation(y)));
                }
            }
        }
        moves
    }

    fn play(&self, turn: &mut Turn<'_>, notation: &Notation) -> Result<(), GameError> {
        let view = View::of(turn.game());
        match notation {
            Notation::Null => Err(GameError::Illegal(qchess_core::IllegalMove {
                text: notation.to_string(),
                reason: qchess_core::Illegal::NullMove,
            })),
            Notation::Pair(first, second) => play_pair(turn, &view, notation, *first, *second),
            Notation::Measure(..) => Err(broken(notation, RuleViolation::NotLegal(RuleSet::Observer))),
            Notation::Move(mv) => match mv.squares {
                MoveSquares::Merge { .. } => Err(broken(notation, RuleViolation::NoMerge(RuleSet::Observer))),
                MoveSquares::Split { from, to1, to2 } => play_split(turn, &view, notation, mv, from, to1, to2),
                MoveSquares::Standard { from, to } => {
                    let step = Step { from, to, promotion: mv.promotion };
                    play_standard(turn, &view, notation, mv, step)
                }
            },
        }
    }

    fn decide(&self, game: &mut Game) -> Result<Option<GameEnd>, GameError> {
        let view = View::of(game);
        if !view.has_legal_move() {
            return Ok(Some(if view.board.king_attacked(view.turn) {
                GameEnd::win(!view.turn, EndReason::Checkmate)
            } else {
                GameEnd::draw(EndReason::Stalemate)
            }));
        }
        Ok(super::classical::counted_draw(game, view.pairs.is_empty() && insufficient_material(game)))
    }
}

/// The piece of the side to move on `square`, or the official error for a move from it.
fn own_piece(view: &View, notation: &Notation, square: Square) -> Result<Piece, GameError> {
    let reason = match view.board.at(square) {
        Some(piece) if piece.color == view.turn => return Ok(piece),
        Some(piece) => qchess_core::Illegal::NotYourPiece { square, piece, turn: view.turn },
        None => qchess_core::Illegal::EmptySource { square },
    };
    Err(GameError::Illegal(qchess_core::IllegalMove { text: notation.to_string(), reason }))
}

fn play_standard(
    turn: &mut Turn<'_>,
    view: &View,
    notation: &Notation,
    mv: &AlgebraicMove,
    step: Step,
) -> Result<(), GameError> {
    let piece = own_piece(view, notation, step.from)?;
    if let Some(other) = partner(&view.pairs, step.from) {
        return Err(broken(notation, RuleViolation::HalfNeedsPair { square: step.from, other }));
    }
    let found = view
        .candidates()
        .into_iter()
        .find(|(c, _)| matches!(c, Candidate::Plain(s) | Candidate::Attack(s) if *s == step));
    let candidate = match found {
        Some((candidate, true)) => candidate,
        Some((_, false)) => return Err(broken(notation, RuleViolation::SelfCheck(view.turn))),
        None => {
            official(turn.game().position(), step, notation)?;
            return Err(broken(notation, RuleViolation::NotLegal(RuleSet::Observer)));
        }
    };
    let resets = piece.role == Role::Pawn;
    match candidate {
        Candidate::Attack(_) => {
            let collapse = turn.measure(step.to, mv.outcome, &notation.to_string())?;
            let legal = collapsed_step(turn.game().position(), step);
            let played = turn.run(legal, piece, resets)?;
            let outcome = crate::game::written_outcome(&collapse);
            turn.declare(Notation::Move(played.notation.with_outcome(outcome)));
        }
        _ => {
            if mv.outcome.is_some() {
                return Err(broken(notation, RuleViolation::NoMeasurement(RuleSet::Observer)));
            }
            let legal = official(turn.game().position(), step, notation)?;
            turn.run(legal, piece, resets)?;
        }
    }
    Ok(())
}

fn play_split(
    turn: &mut Turn<'_>,
    view: &View,
    notation: &Notation,
    mv: &AlgebraicMove,
    from: Square,
    to1: Square,
    to2: Square,
) -> Result<(), GameError> {
    let piece = own_piece(view, notation, from)?;
    if view.is_superposed(from) {
        return Err(broken(notation, RuleViolation::SplitSuperposed(from)));
    }
    if mv.outcome.is_some() {
        return Err(broken(notation, RuleViolation::NoMeasurement(RuleSet::Observer)));
    }
    let same = |c: &Candidate| match *c {
        Candidate::Split { from: f, to1: a, to2: b } => f == from && ((a, b) == (to1, to2) || (a, b) == (to2, to1)),
        _ => false,
    };
    match view.candidates().into_iter().find(|(c, _)| same(c)) {
        Some((_, true)) => {
            turn.run(split_move(from, to1, to2, piece.role), piece, false)?;
            Ok(())
        }
        Some((_, false)) => Err(broken(notation, RuleViolation::SelfCheck(view.turn))),
        None => Err(broken(notation, RuleViolation::BadSplit)),
    }
}

fn play_pair(
    turn: &mut Turn<'_>,
    view: &View,
    notation: &Notation,
    first: AlgebraicMove,
    second: AlgebraicMove,
) -> Result<(), GameError> {
    let (MoveSquares::Standard { from: a, to: ta }, MoveSquares::Standard { from: b, to: tb }) =
        (first.squares, second.squares)
    else {
        return Err(broken(notation, RuleViolation::UndefinedPair));
    };
    let piece = own_piece(view, notation, a)?;
    if partner(&view.pairs, a) != Some(b) {
        return Err(broken(notation, RuleViolation::UndefinedPair));
    }
    for (square, target, promotion) in [(a, ta, first.promotion), (b, tb, second.promotion)] {
        let step = Step { from: square, to: target, promotion };
        match view.half_moves(square).into_iter().find(|(s, _)| *s == step) {
            Some((_, true)) => {}
            Some((_, false)) => return Err(broken(notation, RuleViolation::SelfCheck(view.turn))),
            None => return Err(broken(notation, RuleViolation::UndefinedHalf { from: square, to: target })),
        }
    }
    let collapse = turn.measure(a, second.outcome, &notation.to_string())?;
    let (half, step) = if collapse.outcome == Some(true) {
        (first, Step { from: a, to: ta, promotion: first.promotion })
    } else {
        (second, Step { from: b, to: tb, promotion: second.promotion })
    };
    let legal = official(turn.game().position(), step, &Notation::Move(half))?;
    let played = turn.run(legal, piece, piece.role == Role::Pawn)?;
    let outcome = crate::game::written_outcome(&collapse);
    let (mut x, mut y) = (first, second);
    x.outcome = None;
    y.outcome = outcome;
    if collapse.outcome == Some(true) {
        x.marker = played.notation.marker;
    } else {
        y.marker = played.notation.marker;
    }
    turn.declare(Notation::Pair(x, y));
    Ok(())
}
