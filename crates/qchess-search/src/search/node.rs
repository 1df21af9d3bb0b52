//! The node search: negamax with alpha-beta, exact chance nodes, quiescence on captures.
//!
//! A move that measures is a chance node: its value is `p * v(m1) + (1 - p) * v(m0)`, each
//! outcome searched on its own collapsed state. The outcomes are searched with the Star1
//! windows of Ballard's *-minimax: since every value lies in `[-WIN, WIN]`, after the first
//! outcome the node's value is known to lie in `[p v1 - (1-p) WIN, p v1 + (1-p) WIN]`; if that
//! interval is outside `(alpha, beta)` the second outcome cannot matter and is skipped, and
//! otherwise each outcome gets the narrowest window that still decides the node. This prunes
//! only what cannot change the result.
//!
//! Depths at or below 0 are quiescence: stand pat on the evaluation, then only captures, at
//! most [`SearchConfig::quiescence_plies`](super::SearchConfig) deep.

use qchess_core::LegalMove;
use qchess_engine::{EndReason, Game, GameResult};

use super::{CERTAIN_WIN, Run, WIN};
use crate::branch::{Branch, play_first, play_outcome};
use crate::eval::evaluate;
use crate::order::{MAX_PLY, expected_gain, is_capture, takes_king};
use crate::table::{Bound, Entry, position_key};

/// Nodes between looks at the clock.
const CLOCK_INTERVAL: u64 = 64;

/// Quiescence skips a capture whose expected gain cannot lift the score to alpha even with
/// this much to spare.
const DELTA_MARGIN: f64 = 200.0;

/// Late quiet moves are searched one ply shallower first, from this index on...
const LATE_MOVE_INDEX: usize = 4;
/// ...at nodes at least this deep.
const LATE_MOVE_DEPTH: i32 = 3;

impl Run<'_> {
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
    /// would grow the state past the budget.
    pub(super) fn move_value(
        &mut self,
        game: &mut Game,
        mv: &LegalMove,
        depth: i32,
        alpha: f64,
        beta: f64,
        ply: usize,
    ) -> Option<f64> {
        let first = play_first(game, mv).ok()?;
        let states = game.state_size();
        if states > self.config.state_budget && states > self.root_states {
            let _ = game.undo();
            return None;
        }
        self.peak_states = self.peak_states.max(states);
        match first {
            Branch::Certain => {
                let value = -self.negamax(game, depth, -beta, -alpha, ply + 1);
                let _ = game.undo();
                Some(value)
            }
            Branch::Chance { p_m1 } => {
                let p_m0 = 1.0 - p_m1;
                // Star1: the window for m1 that can still decide the node.
                let low = (alpha - p_m0 * WIN) / p_m1;
                let high = (beta + p_m0 * WIN) / p_m1;
                let v1 = -self.negamax(game, depth, -high.min(WIN), -low.max(-WIN), ply + 1);
                let _ = game.undo();
                if self.stopped {
                    return Some(0.0);
                }
                if v1 <= low {
                    return Some(p_m1 * v1 + p_m0 * WIN);
                }
                if v1 >= high {
                    return Some(p_m1 * v1 - p_m0 * WIN);
                }
                play_outcome(game, mv, Some(false)).ok()?;
                let known = p_m1 * v1;
                let low = (alpha - known) / p_m0;
                let high = (beta - known) / p_m0;
                let v0 = -self.negamax(game, depth, -high.min(WIN), -low.max(-WIN), ply + 1);
                let _ = game.undo();
                Some(known + p_m0 * v0)
            }
        }
    }

    /// The value of the game's position for the side to move, `depth` plies deep.
    pub(super) fn negamax(&mut self, game: &mut Game, depth: i32, mut alpha: f64, beta: f64, ply: usize) -> f64 {
        if let Some(score) = terminal_score(game, ply) {
            self.nodes += 1;
            return score;
        }
        if depth <= 0 {
            return self.quiesce(game, alpha, beta, ply, depth.unsigned_abs());
        }
        if self.enter(ply) {
            return 0.0;
        }
        if ply + 1 >= MAX_PLY {
            return evaluate(game.position(), &self.config.weights);
        }
        let key = position_key(game);
        let stored = self.table.probe(key);
        if let Some(entry) = stored.filter(|e| e.depth >= depth) {
            let score = from_table(entry.score, ply);
            let cut = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => score >= beta,
                Bound::Upper => score <= alpha,
            };
            if cut {
                return score;
            }
        }
        let mut moves = game.legal_moves();
        self.order.sort(&mut moves, stored.and_then(|e| e.best), ply, game.position(), &self.config.weights);
        let alpha_before = alpha;
        let mut best: Option<(LegalMove, f64)> = None;
        for (index, mv) in moves.iter().enumerate() {
            let quiet = !is_capture(mv);
            let late = quiet && index >= LATE_MOVE_INDEX && depth >= LATE_MOVE_DEPTH;
            let mut value = self.move_value(game, mv, depth - 1 - i32::from(late), alpha, beta, ply);
            if late && !self.stopped && value.is_some_and(|v| v > alpha) {
                value = self.move_value(game, mv, depth - 1, alpha, beta, ply);
            }
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
            return evaluate(game.position(), &self.config.weights);
        };
        let bound = if score <= alpha_before {
            Bound::Upper
        } else if score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.store(Entry { key, depth, score: to_table(score, ply), bound, best: Some(best_move) });
        score
    }

    /// Captures only, after standing pat on the evaluation.
    fn quiesce(&mut self, game: &mut Game, mut alpha: f64, beta: f64, ply: usize, level: u32) -> f64 {
        if self.enter(ply) {
            return 0.0;
        }
        let weights = self.config.weights;
        let stand = evaluate(game.position(), &weights);
        if stand >= beta || level >= self.config.quiescence_plies || ply + 1 >= MAX_PLY {
            return stand;
        }
        alpha = alpha.max(stand);
        let mut best = stand;
        let mut captures: Vec<LegalMove> = game.legal_moves().into_iter().filter(is_capture).collect();
        self.order.sort(&mut captures, None, ply, game.position(), &weights);
        for mv in &captures {
            let hopeless = stand + expected_gain(mv, game.position(), &weights) + DELTA_MARGIN < alpha;
            if hopeless && !takes_king(mv, game.position()) {
                continue;
            }
            let value = self.move_value(game, mv, -(level as i32) - 1, alpha, beta, ply);
            if self.stopped {
                return 0.0;
            }
            let Some(value) = value else { continue };
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// The score of an ended game for the side to move, `ply` plies below the root: a king
/// capture is a win (sooner is better), every other end a draw. Claims (fifty moves,
/// repetition) measure the whole board at random, so their expected value is taken as a draw.
fn terminal_score(game: &Game, ply: usize) -> Option<f64> {
    let end = game.end()?;
    if matches!(end.reason, EndReason::FiftyMoveRule | EndReason::ThreefoldRepetition) {
        return Some(0.0);
    }
    let mover = game.turn();
    let win = WIN - ply as f64;
    Some(match end.result {
        result if result == GameResult::win_for(mover) => win,
        result if result == GameResult::win_for(!mover) => -win,
        _ => 0.0,
    })
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
