//! The root moves of a search: every legal move and observer-rules pair, or only those the
//! caller names.
//!
//! A named move is searched as written. The generator lists each split, merge and pair once
//! (split targets and merge sources in square order, a pair from its lower square), but the
//! game accepts the other order too (`f1^c4d3` as well as `f1^d3c4`), and on the quantum board
//! it is another move: the gates run in the order written, so when a target already holds the
//! piece in superposition the two orders leave different states. A named move the generator
//! does not list is taken from the listed one in the other order, checked against the rules
//! by playing it on the search's board (and taking it back), and searched as written.

use qchess_core::{AlgebraicMove, LegalMove, MoveSquares, Notation, TypedMove};

use super::board::SearchBoard;
use crate::SearchError;

/// What the root searches: single typed moves, and observer-rules pairs, which are no single
/// typed move and are searched on their own.
pub(super) struct Roots {
    pub(super) moves: Vec<LegalMove>,
    pub(super) pairs: Vec<Notation>,
}

/// The root moves of `board`'s position: every legal move and pair, or only those `wanted`
/// names (outcomes aside; a standard move without a promotion names every promotion, and
/// names the pairs that begin with it).
pub(super) fn root_moves(board: &mut SearchBoard, wanted: &[Notation]) -> Result<Roots, SearchError> {
    let game = board.game();
    let generated = game.legal_moves();
    let mut pairs: Vec<Notation> =
        game.legal_notations().into_iter().filter(|n| matches!(n, Notation::Pair(..))).collect();
    if wanted.is_empty() {
        if generated.is_empty() && pairs.is_empty() {
            return Err(SearchError::NoLegalMove);
        }
        return Ok(Roots { moves: generated, pairs });
    }
    let mut moves = generated.clone();
    moves.retain(|mv| wanted.iter().any(|w| matches!(w, Notation::Move(w) if same_move(w, &mv.notation))));
    pairs.retain(|pair| wanted.iter().any(|w| names_pair(w, pair)));
    for named in wanted {
        match *named {
            Notation::Move(w) if !moves.iter().any(|mv| same_move(&w, &mv.notation)) => {
                if let Some(legal) = reordered(&generated, &w)
                    && accepted(board, &Notation::Move(legal.notation))
                {
                    moves.push(legal);
                }
            }
            Notation::Pair(first, second) if !pairs.iter().any(|pair| names_pair(named, pair)) => {
                let pair = Notation::Pair(first.with_outcome(None), second.with_outcome(None));
                if accepted(board, &pair) {
                    pairs.push(pair);
                }
            }
            _ => {}
        }
    }
    if moves.is_empty() && pairs.is_empty() {
        let names: Vec<String> = wanted.iter().map(ToString::to_string).collect();
        return Err(SearchError::NoneOfTheMoves { moves: names.join(" ") });
    }
    Ok(Roots { moves, pairs })
}

/// The generated split or merge that `named` writes in the other order, as `named` writes it
/// (the same type and variant: both follow from the piece and the squares, not their order).
fn reordered(generated: &[LegalMove], named: &AlgebraicMove) -> Option<LegalMove> {
    let other_order = match named.squares {
        MoveSquares::Split { from, to1, to2 } => MoveSquares::Split { from, to1: to2, to2: to1 },
        MoveSquares::Merge { from1, from2, to } => MoveSquares::Merge { from1: from2, from2: from1, to },
        MoveSquares::Standard { .. } => return None,
    };
    let listed = generated.iter().find(|mv| mv.notation.squares == other_order)?;
    Some(LegalMove {
        notation: AlgebraicMove { squares: named.squares, ..listed.notation },
        typed: TypedMove { squares: named.squares, ..listed.typed },
    })
}

/// Whether the game's rules accept `notation` here: it is played, then taken back.
fn accepted(board: &mut SearchBoard, notation: &Notation) -> bool {
    let played = board.play_notation(notation).is_ok();
    if played {
        board.undo();
    }
    played
}

/// Whether a named root move is the same as a generated one (outcomes aside; a missing
/// promotion names any).
fn same_move(wanted: &AlgebraicMove, generated: &AlgebraicMove) -> bool {
    wanted.squares == generated.squares && (wanted.promotion.is_none() || wanted.promotion == generated.promotion)
}

/// Whether a named root move names a generated pair: the same pair, both halves in order, or
/// a standard move that is the pair's first half.
fn names_pair(wanted: &Notation, pair: &Notation) -> bool {
    match (wanted, pair) {
        (Notation::Move(w), Notation::Pair(p1, _)) => same_move(w, p1),
        (Notation::Pair(w1, w2), Notation::Pair(p1, p2)) => same_move(w1, p1) && same_move(w2, p2),
        _ => false,
    }
}
