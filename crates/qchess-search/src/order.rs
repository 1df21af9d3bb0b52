//! Move ordering: the stored best move, then captures by expected gain, then killer moves,
//! then quiet moves by history, splits and merges after standard moves of equal history.

use qchess_core::classical::piece_attacks;
use qchess_core::{Bitboard, Color, LegalMove, MoveSquares, MoveVariant, Position, Role, Square};
use smallvec::SmallVec;

use crate::eval::Weights;

/// The value a capture of a king counts for in ordering: above any material.
const KING_VICTIM: f64 = 20_000.0;

/// How much more than it takes a capturer must be worth for its capture of a defended
/// square to count as losing.
const LOSING_MARGIN: f64 = 50.0;

/// How far behind a standard quiet move a split or merge of equal history sorts.
const SPLIT_MERGE_PENALTY: f64 = 50.0;

/// Deepest ply the killer table covers.
pub(crate) const MAX_PLY: usize = 128;

/// Killer moves per ply and history scores per move shape and squares.
#[derive(Debug, Clone)]
pub(crate) struct MoveOrder {
    killers: Vec<[Option<LegalMove>; 2]>,
    history: Vec<f64>,
}

impl Default for MoveOrder {
    fn default() -> MoveOrder {
        MoveOrder { killers: vec![[None; 2]; MAX_PLY], history: vec![0.0; 3 * 64 * 64] }
    }
}

fn history_index(mv: &LegalMove) -> usize {
    let (first, second, _) = mv.typed.squares.api_squares();
    let shape = match mv.typed.squares {
        MoveSquares::Standard { .. } => 0,
        MoveSquares::Split { .. } => 1,
        MoveSquares::Merge { .. } => 2,
    };
    shape * 4096 + usize::from(first.index()) * 64 + usize::from(second.index())
}

/// Whether a move can take material: the captures quiescence searches.
pub fn is_capture(mv: &LegalMove) -> bool {
    mv.variant() == MoveVariant::Capture
}

/// A move's first source and its targets, without allocating.
fn source_and_targets(mv: &LegalMove) -> (Square, [Option<Square>; 2]) {
    match mv.typed.squares {
        MoveSquares::Standard { from, to } => (from, [Some(to), None]),
        MoveSquares::Split { from, to1, to2 } => (from, [Some(to1), Some(to2)]),
        MoveSquares::Merge { from1, to, .. } => (from1, [Some(to), None]),
    }
}

/// What a move's targets (and en-passant victim) hold of the enemy's: the expected material,
/// a king counted as [`KING_VICTIM`], and whether a king may be among them.
fn victims(mv: &LegalMove, position: &Position, weights: &Weights) -> (f64, bool) {
    let us: Color = position.turn();
    let (mut expected, mut king) = (0.0, false);
    let (_, targets) = source_and_targets(mv);
    for square in targets.into_iter().chain([mv.typed.en_passant_victim()]).flatten() {
        if let Some(victim) = position.piece_at(square).filter(|p| p.color != us) {
            king |= victim.role == Role::King;
            let value = if victim.role == Role::King { KING_VICTIM } else { weights.value(victim.role) };
            expected += value * position.probability(square);
        }
    }
    (expected, king)
}

/// The value of the piece a move starts from (0 for a king or an empty square).
fn mover_value(mv: &LegalMove, position: &Position, weights: &Weights) -> f64 {
    position.piece_at(source_and_targets(mv).0).map_or(0.0, |p| weights.value(p.role))
}

/// What a capture stands to take, from one scan of its victims: what move ordering and
/// quiescence's pruning tests read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CaptureOutlook {
    /// The expected material taken, less a tenth of the capturer (so cheaper pieces capture
    /// first).
    pub gain: f64,
    /// Whether a king may be among the victims: quiescence never prunes these.
    pub takes_king: bool,
    /// How much more the capturer is worth than the expected material taken.
    risk: f64,
}

impl CaptureOutlook {
    /// The outlook of `mv` (a capture) in `position`.
    pub fn of(mv: &LegalMove, position: &Position, weights: &Weights) -> CaptureOutlook {
        let (taken, takes_king) = victims(mv, position, weights);
        let mover = mover_value(mv, position, weights);
        CaptureOutlook { gain: taken - mover / 10.0, takes_king, risk: mover - taken }
    }

    /// Whether the capture most likely loses material: it may not take a king, takes less (in
    /// expectation) than the capturer is worth, by more than [`LOSING_MARGIN`], and lands on a
    /// square an enemy piece can capture on next (superposed pieces in between do not block,
    /// as the rules say). Quiescence skips these, as chess engines skip captures that lose in
    /// the static exchange.
    pub fn is_losing(&self, mv: &LegalMove, position: &Position) -> bool {
        if self.takes_king || self.risk <= LOSING_MARGIN {
            return false;
        }
        let blockers = position.certainly_full();
        let targets: Bitboard = source_and_targets(mv).1.into_iter().flatten().collect();
        position.pieces_of(!position.turn()).into_iter().any(|defender| {
            position
                .piece_at(defender)
                .is_some_and(|piece| piece_attacks(piece, defender, blockers).intersects(targets))
        })
    }
}

impl MoveOrder {
    /// Sorts `moves` best first for a node at `ply`.
    pub fn sort(
        &self,
        moves: &mut [LegalMove],
        best: Option<LegalMove>,
        ply: usize,
        position: &Position,
        weights: &Weights,
    ) {
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        let keys: SmallVec<[f64; 64]> =
            moves.iter().map(|mv| self.key(mv, best, &killers, position, weights)).collect();
        let order = best_first(&keys);
        let sorted: SmallVec<[LegalMove; 64]> = order.iter().map(|&index| moves[usize::from(index)]).collect();
        moves.copy_from_slice(&sorted);
    }

    /// `captures` with their outlooks, by expected gain, best first (the order [`sort`]
    /// gives captures with no stored best move), each outlook computed once.
    ///
    /// [`sort`]: MoveOrder::sort
    pub fn sort_captures(
        captures: &[LegalMove],
        position: &Position,
        weights: &Weights,
    ) -> SmallVec<[(CaptureOutlook, LegalMove); 32]> {
        let outlooks: SmallVec<[CaptureOutlook; 32]> =
            captures.iter().map(|mv| CaptureOutlook::of(mv, position, weights)).collect();
        let gains: SmallVec<[f64; 32]> = outlooks.iter().map(|outlook| outlook.gain).collect();
        best_first(&gains).iter().map(|&index| (outlooks[usize::from(index)], captures[usize::from(index)])).collect()
    }

    /// The ordering key of `mv` (higher first): the stored best move, then captures by
    /// expected gain, killers, then quiet moves by history.
    fn key(
        &self,
        mv: &LegalMove,
        best: Option<LegalMove>,
        killers: &[Option<LegalMove>; 2],
        position: &Position,
        weights: &Weights,
    ) -> f64 {
        if Some(*mv) == best {
            1e12
        } else if is_capture(mv) {
            1e9 + CaptureOutlook::of(mv, position, weights).gain
        } else if Some(*mv) == killers[0] {
            2e8
        } else if Some(*mv) == killers[1] {
            1e8
        } else {
            let penalty =
                if matches!(mv.typed.squares, MoveSquares::Standard { .. }) { 0.0 } else { SPLIT_MERGE_PENALTY };
            self.history[history_index(mv)] - penalty
        }
    }

    /// Records a quiet move that caused a cut-off at `ply` after a search of `depth`.
    pub fn record_cutoff(&mut self, mv: &LegalMove, ply: usize, depth: i32) {
        if let Some(killers) = self.killers.get_mut(ply)
            && killers[0] != Some(*mv)
        {
            killers[1] = killers[0];
            killers[0] = Some(*mv);
        }
        let entry = &mut self.history[history_index(mv)];
        *entry += f64::from(depth * depth);
        if *entry > 1e7 {
            self.history.iter_mut().for_each(|h| *h /= 2.0);
        }
    }

    /// Forgets killers and halves the history between searches.
    pub fn age(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h /= 2.0);
    }
}

/// The indices of `keys`, highest key first, equal keys in their order (a stable sort of
/// small indices: moving them is cheaper than moving moves). Short lists (most are captures
/// in quiescence) are insertion-sorted.
fn best_first(keys: &[f64]) -> SmallVec<[u16; 64]> {
    let mut order: SmallVec<[u16; 64]> = (0..keys.len() as u16).collect();
    if order.len() > 16 {
        order.sort_by(|&a, &b| keys[usize::from(b)].total_cmp(&keys[usize::from(a)]));
        return order;
    }
    for next in 1..order.len() {
        let index = order[next];
        let key = keys[usize::from(index)];
        let mut at = next;
        while at > 0 && keys[usize::from(order[at - 1])].total_cmp(&key).is_lt() {
            order[at] = order[at - 1];
            at -= 1;
        }
        order[at] = index;
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use qchess_core::Fen;

    #[test]
    fn captures_come_first_by_expected_gain_then_killers() {
        let fen: Fen = "4k3/8/8/3q4/8/3r4/8/3RK2N w - - 0 1".parse().unwrap();
        let position = Position::from_fen(&fen).unwrap();
        let mut moves = position.legal_moves();
        let weights = Weights::default();
        let mut order = MoveOrder::default();
        let killer = *moves.iter().find(|m| m.to_string() == "h1g3").unwrap();
        order.record_cutoff(&killer, 0, 2);
        order.sort(&mut moves, None, 0, &position, &weights);
        let names: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        assert_eq!(names[0], "d1xd3");
        assert_eq!(names[1], "h1g3");
    }

    #[test]
    fn best_first_is_a_stable_sort_by_descending_key() {
        let keys = [1.0, 3.0, 2.0, 3.0, -1.0, 2.0, f64::NEG_INFINITY, 3.0];
        let order: Vec<u16> = best_first(&keys).into_iter().collect();
        assert_eq!(order, vec![1, 3, 7, 2, 5, 0, 4, 6]);
        assert!(best_first(&[]).is_empty());
        // Long lists take the other path.
        let long: Vec<f64> = (0..40).map(|i| f64::from(i % 7)).collect();
        let order: Vec<u16> = best_first(&long).into_iter().collect();
        assert_eq!(order.len(), 40);
        for pair in order.windows(2) {
            let (a, b) = (long[usize::from(pair[0])], long[usize::from(pair[1])]);
            assert!(a > b || (a == b && pair[0] < pair[1]), "{pair:?}");
        }
    }

    #[test]
    fn a_capture_of_a_defended_cheaper_piece_is_losing() {
        let weights = Weights::default();
        let fen: Fen = "3rk3/8/8/3p4/4n2p/3P1N2/Q7/4K3 w - - 0 1".parse().unwrap();
        let position = Position::from_fen(&fen).unwrap();
        let losing = |text: &str| {
            let mv = position.parse_move(text).unwrap();
            CaptureOutlook::of(&mv, &position, &weights).is_losing(&mv, &position)
        };
        assert!(losing("a2xd5"), "the queen takes a pawn the rook defends");
        assert!(!losing("f3xh4"), "the knight takes an undefended pawn");
        assert!(!losing("d3xe4"), "the pawn takes a knight the pawn defends: a gain");
    }
}
