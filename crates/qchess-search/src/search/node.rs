//! The node search: negamax with alpha-beta, exact chance nodes, quiescence on captures.
//!
//! A move that measures is a chance node: its value is `p * v(m1) + (1 - p) * v(m0)`, each
//! outcome searched on its own collapsed state. The m1 outcome is searched with the node's own
//! window `(alpha, beta)`: a result inside it is exact, one at or below alpha an upper bound,
//! one at or above beta a lower bound. The m0 outcome is then searched in the window where it
//! can still carry the weighted sum across alpha or beta given what is known of m1: after m1
//! took a king (a lower bound near `WIN`), m0 need only show it is not lost outright. When the
//! two ranges leave the node undecided, the outcome that is only bounded is searched again in
//! the window the other's range leaves it, then the other, which decides the node or makes its
//! value exact. This keeps the cut-offs of plain alpha-beta inside each outcome (Star1's
//! windows, widened by the `WIN` bound on every value, let almost nothing be cut) and prunes
//! only what cannot change the result: with [`SearchConfig::selective`](super::SearchConfig)
//! off, the search returns exactly the full-width expectimax value (`tests/exact_value.rs`).
//!
//! Depths at or below 0 are quiescence: stand pat on the evaluation, then only captures, at
//! most [`SearchConfig::quiescence_plies`](super::SearchConfig) deep.

use qchess_core::{Color, LegalMove, MoveSquares};
use qchess_engine::{EndReason, Game, GameResult};

use super::board::SearchBoard;
use super::{CERTAIN_WIN, Run, WIN};
use crate::branch::Branch;
use crate::eval::king_capture_probability;
use crate::order::{MAX_PLY, MoveOrder, is_capture};
use crate::score::ValueBound;
use crate::table::{Bound, Entry};

/// Nodes between looks at the clock.
const CLOCK_INTERVAL: u64 = 64;

/// Quiescence skips a capture whose expected gain cannot lift the score to alpha even with
/// this much to spare.
const DELTA_MARGIN: f64 = 200.0;

/// Width of the null window (centipawns) that moves after the first are tried with.
const NULL_WINDOW: f64 = 1.0;

/// Late quiet moves are searched one ply shallower first, from this index on...
const LATE_MOVE_INDEX: usize = 4;
/// ...at nodes at least this deep.
const LATE_MOVE_DEPTH: i32 = 3;

/// At the last ply before quiescence, a quiet standard move is skipped when the evaluation
/// plus this margin cannot reach alpha (futility pruning): one quiet move rarely changes the
/// evaluation by more, and a move that captures or may take a king is never skipped.
const FUTILITY_MARGIN: f64 = 150.0;

/// A node this shallow whose evaluation beats beta by this much per ply of depth left is
/// taken to fail high without a search (reverse futility pruning): having the move is rarely
/// worth less than nothing. Never when the side to move's king can be taken.
const REVERSE_FUTILITY_MARGIN: f64 = 120.0;
/// ...at nodes at most this deep.
const REVERSE_FUTILITY_DEPTH: i32 = 2;

impl Run<'_> {
    /// An evaluation in centipawns as the search weighs it ([`SearchConfig::score_scale`]).
    fn leaf(&self, cp: f64) -> f64 {
        crate::score::leaf_value(cp, self.config.score_scale)
    }

    /// Counts a node; says whether the search must stop.
    fn enter(&mut self, ply: usize) -> bool {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.nodes.is_multiple_of(CLOCK_INTERVAL) && self.deadline.expired(self.control, self.nodes) {
            self.stopped = true;
        }
        self.stopped
    }

    /// The value of `mv` for the side to move, searched `depth` more plies below it (at or
    /// below 0: quiescence). `None` when the move cannot be searched: the board refuses it or it
    /// would grow the state past the budget (a root move the caller named is searched anyway).
    pub(super) fn move_value(
        &mut self,
        board: &mut SearchBoard,
        mv: &LegalMove,
        depth: i32,
        alpha: f64,
        beta: f64,
        ply: usize,
    ) -> Option<f64> {
        let first = board.play_first(mv).ok()?;
        let states = board.game().state_size();
        // Root moves the caller named are searched whatever their size: they were asked for.
        let over_budget = states > self.config.state_budget && states > self.root_states;
        if over_budget && !(ply == 0 && self.named_roots) {
            board.undo();
            return None;
        }
        self.peak_states = self.peak_states.max(states);
        match first {
            Branch::Certain => {
                let value = -self.negamax(board, depth, -beta, -alpha, ply + 1);
                board.undo();
                Some(value)
            }
            Branch::Chance { p_m1 } => {
                let p_m0 = 1.0 - p_m1;
                let v1 = -self.negamax(board, depth, -beta, -alpha, ply + 1);
                board.undo();
                if self.stopped {
                    return Some(0.0);
                }
                // m1 was searched in the node's window. m0 is searched in the window where it
                // can still carry the sum across alpha or beta given m1's range; then each
                // outcome that is only bounded is searched again in the window the other's
                // range leaves it, which decides the node or makes its value exact, so three
                // searches at most decide it (see the module docs).
                let mut ranges = [known_range(v1, alpha, beta), (-WIN, WIN)];
                let p = [p_m1, p_m0];
                for (step, outcome) in [false, true, false].into_iter().enumerate() {
                    let (own, other) = (usize::from(!outcome), usize::from(outcome));
                    if decided(p, ranges, alpha, beta).is_some() || ranges[own].0 == ranges[own].1 {
                        continue;
                    }
                    let (p_own, p_other, known) = (p[own], p[other], ranges[other]);
                    let mut window = ((alpha - p_other * known.1) / p_own, (beta - p_other * known.0) / p_own);
                    // No value of this outcome can lift the node to alpha, or drop it to beta.
                    if window.0 >= WIN {
                        return Some(p_other * known.1 + p_own * WIN);
                    }
                    if window.1 <= -WIN {
                        return Some(p_other * known.0 - p_own * WIN);
                    }
                    // On the first search of m0, against an unbounded side of m1's range the
                    // derived edge is hopelessly wide: the node's own edge serves instead. The
                    // searches after it keep the derived windows, so they decide the node.
                    if step == 0 && known.1 >= WIN {
                        window.0 = alpha.min(window.1 - NULL_WINDOW);
                    }
                    if step == 0 && known.0 <= -WIN {
                        window.1 = beta.max(window.0 + NULL_WINDOW);
                    }
                    let value = self.outcome_value(board, mv, outcome, depth, window.0, window.1, ply)?;
                    if self.stopped {
                        return Some(0.0);
                    }
                    ranges[own] = known_range(value, window.0, window.1);
                }
                // Decided, but for rounding at the window's edges.
                Some(decided(p, ranges, alpha, beta).unwrap_or(p_m1 * ranges[0].0 + p_m0 * ranges[1].0))
            }
        }
    }

    /// A move after the first (principal variation search): searched `reduction` plies
    /// shallower with a null window at alpha first, which proves cheaply that it is no better;
    /// only a move that beats alpha there is searched again at full depth, then, if it still
    /// beats alpha without reaching beta, with the whole window.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn scout(
        &mut self,
        board: &mut SearchBoard,
        mv: &LegalMove,
        depth: i32,
        reduction: i32,
        alpha: f64,
        beta: f64,
        ply: usize,
    ) -> Option<f64> {
        let null = (alpha + NULL_WINDOW).min(beta);
        let mut value = self.move_value(board, mv, depth - reduction, alpha, null, ply)?;
        if reduction > 0 && value > alpha && !self.stopped {
            value = self.move_value(board, mv, depth, alpha, null, ply)?;
        }
        if value > alpha && value < beta && null < beta && !self.stopped {
            value = self.move_value(board, mv, depth, alpha, beta, ply)?;
        }
        Some(value)
    }

    /// The value of `mv` played with `outcome` forced, for the side that plays it.
    #[allow(clippy::too_many_arguments)]
    fn outcome_value(
        &mut self,
        board: &mut SearchBoard,
        mv: &LegalMove,
        outcome: bool,
        depth: i32,
        alpha: f64,
        beta: f64,
        ply: usize,
    ) -> Option<f64> {
        board.play_outcome(mv, Some(outcome)).ok()?;
        let value = -self.negamax(board, depth, -beta, -alpha, ply + 1);
        board.undo();
        Some(value)
    }

    /// The value of the game's position for the side to move, `depth` plies deep.
    pub(super) fn negamax(
        &mut self,
        board: &mut SearchBoard,
        depth: i32,
        mut alpha: f64,
        beta: f64,
        ply: usize,
    ) -> f64 {
        // An ended game counts as a node and looks at the clock too: a tree whose every line
        // ends within a few plies would otherwise be searched again at every depth unchecked.
        if let Some(score) = terminal_score(board.game(), ply) {
            self.enter(ply);
            return score;
        }
        if depth <= 0 {
            return self.quiesce(board, alpha, beta, ply, depth.unsigned_abs());
        }
        if self.enter(ply) {
            return 0.0;
        }
        if ply + 1 >= MAX_PLY {
            return self.leaf(board.evaluate(&self.config.weights));
        }
        let key = board.key();
        let stored = self.table.probe(key);
        if let Some(score) = stored.and_then(|entry| self.table_cut(entry, depth, alpha, beta, ply)) {
            return score;
        }
        // A king that can be taken next move may be saved by a split or a merge (of the king,
        // or of a piece onto the attacker's path): then nothing is pruned, or a certain loss
        // would be claimed that a split refutes.
        let shallow = depth <= REVERSE_FUTILITY_DEPTH && self.config.selective;
        let in_danger = shallow && king_capture_probability(board.game().position(), board.game().turn()) > 0.0;
        let static_eval = (shallow && !in_danger).then(|| board.evaluate(&self.config.weights));
        if let Some(eval) = static_eval
            && beta.abs() < CERTAIN_WIN
        {
            let reduced = self.leaf(eval - REVERSE_FUTILITY_MARGIN * f64::from(depth));
            if reduced >= beta {
                return reduced;
            }
        }
        let futile = depth == 1
            && static_eval.is_some_and(|eval| self.leaf(eval + FUTILITY_MARGIN) <= alpha)
            && alpha.abs() < CERTAIN_WIN;
        // Below the root, splits and merges are searched one ply shallower than standard moves
        // and not at all at the last ply (they change no material there), and hopeless quiet
        // moves are skipped at the last ply: those are dropped before ordering.
        let skipped = |mv: &LegalMove| !is_capture(mv) && ((is_quantum(mv) && !in_danger) || futile);
        let mut moves = board.game().legal_moves();
        let stored_best = stored.and_then(|e| e.best);
        if depth == 1 && self.config.selective {
            if moves.iter().any(|mv| !skipped(mv)) {
                moves.retain(|mv| !skipped(mv) || Some(*mv) == stored_best);
            } else {
                // The first move is always searched: with every move skipped, the best alone.
                self.order.sort(&mut moves, stored_best, ply, board.game().position(), &self.config.weights);
                moves.truncate(1);
            }
        }
        // The stored best move goes first and the others are sorted only when it does not
        // cut off: most nodes that have one end there, and ordering the rest is the dearer part.
        let stored_first = stored_best.and_then(|best| moves.iter().position(|mv| *mv == best));
        match stored_first {
            Some(at) => moves[..=at].rotate_right(1),
            None => self.order.sort(&mut moves, None, ply, board.game().position(), &self.config.weights),
        }
        let alpha_before = alpha;
        let mut best: Option<(LegalMove, f64)> = None;
        for index in 0..moves.len() {
            if index == 1 && stored_first.is_some() {
                self.order.sort(&mut moves[1..], None, ply, board.game().position(), &self.config.weights);
            }
            let mv = &moves[index];
            let quiet = !is_capture(mv);
            let quantum = is_quantum(mv);
            let late = self.config.selective
                && quiet
                && (quantum || index >= LATE_MOVE_INDEX)
                && depth >= LATE_MOVE_DEPTH - i32::from(quantum);
            let value = if best.is_none() {
                self.move_value(board, mv, depth - 1, alpha, beta, ply)
            } else {
                self.scout(board, mv, depth - 1, i32::from(late), alpha, beta, ply)
            };
            if self.stopped {
                return 0.0;
            }
            let Some(value) = value else { continue };
            if best.is_none_or(|(_, score)| value > score) {
                best = Some((*mv, value));
            }
            alpha = alpha.max(value);
            if alpha >= beta {
                if quiet {
                    self.order.record_cutoff(mv, ply, depth);
                }
                break;
            }
        }
        let Some((best_move, score)) = best else {
            // Nothing could be searched (every move past the budget): judge the position as it is.
            return self.leaf(board.evaluate(&self.config.weights));
        };
        let bound = Bound::of(score, alpha_before, beta);
        self.table.store(Entry { key, depth, score: to_table(score, ply), bound, best: Some(best_move) });
        score
    }

    /// The stored score of a search at least `depth` deep when its bound settles the node in
    /// `(alpha, beta)`; never when the search is not selective.
    fn table_cut(&self, entry: Entry, depth: i32, alpha: f64, beta: f64, ply: usize) -> Option<f64> {
        if !self.config.selective || entry.depth < depth {
            return None;
        }
        let score = from_table(entry.score, ply);
        let cut = match entry.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        cut.then_some(score)
    }

    /// Captures only, after standing pat on the evaluation.
    fn quiesce(&mut self, board: &mut SearchBoard, mut alpha: f64, beta: f64, ply: usize, level: u32) -> f64 {
        if self.enter(ply) {
            return 0.0;
        }
        let weights = self.config.weights;
        let stand_cp = board.evaluate(&weights);
        let stand = self.leaf(stand_cp);
        if stand >= beta || level >= self.config.quiescence_plies || ply + 1 >= MAX_PLY {
            return stand;
        }
        // Capture sequences transpose often (two failed attempts on a superposed king, in
        // either order, leave the same state), so the table is used here too, past the
        // cheaper stand-pat cut-off.
        let depth = -(level as i32);
        let key = board.key();
        let stored = self.table.probe(key);
        if let Some(score) = stored.and_then(|entry| self.table_cut(entry, depth, alpha, beta, ply)) {
            return score;
        }
        let alpha_before = alpha;
        alpha = alpha.max(stand);
        let mut best = stand;
        let mut best_move = None;
        let captures = MoveOrder::sort_captures(&board.game().legal_captures(), board.game().position(), &weights);
        // The delta test compares evaluations with alpha: mapped back once per alpha, and only
        // when a capture gets as far as that test.
        let mut delta_bound: Option<ValueBound> = None;
        for (outlook, mv) in &captures {
            // Captures that take nothing of the enemy's (onto its superposed squares with no
            // enemy piece, or where the gain is less than the capturer's tenth), captures that
            // cannot lift the score to alpha and losing captures are not searched; king
            // captures always are.
            if self.config.selective {
                let hopeless = outlook.gain <= 0.0
                    || delta_bound
                        .get_or_insert_with(|| ValueBound::new(alpha, self.config.score_scale))
                        .maps_below(stand_cp + outlook.gain + DELTA_MARGIN)
                    || outlook.is_losing(mv, board.game().position());
                if hopeless && !outlook.takes_king {
                    continue;
                }
            }
            let value = self.move_value(board, mv, -(level as i32) - 1, alpha, beta, ply);
            if self.stopped {
                return 0.0;
            }
            let Some(value) = value else { continue };
            if value > best {
                best = value;
                best_move = Some(*mv);
            }
            if value > alpha {
                alpha = value;
                delta_bound = None;
            }
            if alpha >= beta {
                break;
            }
        }
        let bound = Bound::of(best, alpha_before, beta);
        self.table.store(Entry { key, depth, score: to_table(best, ply), bound, best: best_move });
        best
    }
}

/// Whether a move is a split or a merge.
fn is_quantum(mv: &LegalMove) -> bool {
    !matches!(mv.typed.squares, MoveSquares::Standard { .. })
}

/// The score of an ended game for the side to move, `ply` plies below the root: a king
/// capture is a win (sooner is better), every other end a draw. A claim (fifty moves,
/// repetition) measures the whole board at random: it scores what it is worth before the
/// draw, the chance that only the side to move's king is found less the chance that only the
/// other's is, which is the difference of their presence probabilities (a chance node's
/// value, as for a king capture that may happen), not the result this copy happened to draw.
fn terminal_score(game: &Game, ply: usize) -> Option<f64> {
    let end = game.end()?;
    let mover = game.turn();
    let win = WIN - ply as f64;
    if matches!(end.reason, EndReason::FiftyMoveRule | EndReason::ThreefoldRepetition) {
        let [white, black] = game.kings_before_measurement().unwrap_or([1.0, 1.0]);
        let edge = if mover == Color::White { white - black } else { black - white };
        return Some(edge * win);
    }
    Some(match end.result {
        result if result == GameResult::win_for(mover) => win,
        result if result == GameResult::win_for(!mover) => -win,
        _ => 0.0,
    })
}

/// What a fail-soft result `value` of a search in `(alpha, beta)` says: the range the true
/// value lies in (a single point when it fell inside the window).
fn known_range(value: f64, alpha: f64, beta: f64) -> (f64, f64) {
    match Bound::of(value, alpha, beta) {
        Bound::Upper => (-WIN, value),
        Bound::Lower => (value, WIN),
        Bound::Exact => (value, value),
    }
}

/// The chance node's value when its outcomes' ranges (m1, m0) and probabilities decide it: an
/// upper bound at or below alpha, a lower bound at or above beta, or the exact value.
fn decided(p: [f64; 2], ranges: [(f64, f64); 2], alpha: f64, beta: f64) -> Option<f64> {
    let low = p[0] * ranges[0].0 + p[1] * ranges[1].0;
    let high = p[0] * ranges[0].1 + p[1] * ranges[1].1;
    if high <= alpha {
        Some(high)
    } else if low >= beta || low == high {
        Some(low)
    } else {
        None
    }
}

/// Stores certain wins as plies from this node, so they read right from any other ply.
fn to_table(score: f64, ply: usize) -> f64 {
    if score >= CERTAIN_WIN {
        score + ply as f64
    } else if score <= -CERTAIN_WIN {
        score - ply as f64
    } else {
        score
    }
}

fn from_table(score: f64, ply: usize) -> f64 {
    if score >= CERTAIN_WIN {
        score - ply as f64
    } else if score <= -CERTAIN_WIN {
        score + ply as f64
    } else {
        score
    }
}
