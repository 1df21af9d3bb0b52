//! The node search: negamax with alpha-beta, exact chance nodes, quiescence on captures.
//!
//! A move that measures is a chance node: its value is `p * v(m1) + (1 - p) * v(m0)`, each
//! outcome searched on its own collapsed state. Both outcomes are searched with the node's
//! own window `(alpha, beta)`: a result inside it is exact, one at or below alpha an upper
//! bound, one at or above beta a lower bound. When neither fails high, the weighted sum is an
//! upper bound, so at or below alpha it fails the node low; when neither fails low, it is a
//! lower bound, so at or above beta it fails the node high. Only an undecided mix (an outcome
//! failing one way and the sum on the other side) is searched again, one outcome after the
//! other, each in the window where it can still carry the weighted sum across alpha or beta
//! given the other's bound from the first pass (then its exact value). This keeps the
//! cut-offs of plain alpha-beta inside each outcome (Star1's windows, widened by the `WIN`
//! bound on every value, let almost nothing be cut) and prunes only what cannot change the
//! result.
//!
//! Depths at or below 0 are quiescence: stand pat on the evaluation, then only captures, at
//! most [`SearchConfig::quiescence_plies`](super::SearchConfig) deep.

use qchess_core::{LegalMove, MoveSquares};
use qchess_engine::{EndReason, Game, GameResult};

use super::{CERTAIN_WIN, Run, WIN};
use crate::branch::{Branch, play_first, play_outcome};
use crate::eval::{evaluate, king_capture_probability};
use crate::order::{MAX_PLY, expected_gain, is_capture, takes_king};
use crate::table::{Bound, Entry, position_key};

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
                // Both outcomes are searched with the node's own window; bounds that decide
                // the node are returned as they are, and only an undecided mix is searched
                // again (see the module docs).
                let p_m0 = 1.0 - p_m1;
                let mut v1 = -self.negamax(game, depth, -beta, -alpha, ply + 1);
                let _ = game.undo();
                if self.stopped {
                    return Some(0.0);
                }
                let mut v0 = self.outcome_value(game, mv, false, depth, alpha, beta, ply)?;
                if self.stopped {
                    return Some(0.0);
                }
                let (low, high) = (|v: f64| v <= alpha, |v: f64| v >= beta);
                let combined = p_m1 * v1 + p_m0 * v0;
                let any_low = low(v1) || low(v0);
                let any_high = high(v1) || high(v0);
                if (!any_high && (!any_low || combined <= alpha)) || (!any_low && combined >= beta) {
                    return Some(combined);
                }
                // An undecided mix: each outcome is searched again in the window where it can
                // still move the node's value across alpha or beta, given what is known of the
                // other (its bound from the first pass, then its exact value).
                let known = |v: f64| {
                    if low(v) {
                        (-WIN - 1.0, v)
                    } else if high(v) {
                        (v, WIN + 1.0)
                    } else {
                        (v, v)
                    }
                };
                let (lo0, hi0) = known(v0);
                if low(v1) || high(v1) {
                    let window = ((alpha - p_m0 * hi0) / p_m1, (beta - p_m0 * lo0) / p_m1);
                    v1 = self.outcome_value(game, mv, true, depth, window.0, window.1, ply)?;
                    if self.stopped {
                        return Some(0.0);
                    }
                    if v1 <= window.0 {
                        return Some(p_m1 * v1 + p_m0 * hi0);
                    }
                    if v1 >= window.1 {
                        return Some(p_m1 * v1 + p_m0 * lo0);
                    }
                }
                if low(v0) || high(v0) {
                    let window = ((alpha - p_m1 * v1) / p_m0, (beta - p_m1 * v1) / p_m0);
                    v0 = self.outcome_value(game, mv, false, depth, window.0, window.1, ply)?;
                }
                if self.stopped {
                    return Some(0.0);
                }
                Some(p_m1 * v1 + p_m0 * v0)
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
        game: &mut Game,
        mv: &LegalMove,
        depth: i32,
        reduction: i32,
        alpha: f64,
        beta: f64,
        ply: usize,
    ) -> Option<f64> {
        let null = (alpha + NULL_WINDOW).min(beta);
        let mut value = self.move_value(game, mv, depth - reduction, alpha, null, ply)?;
        if reduction > 0 && value > alpha && !self.stopped {
            value = self.move_value(game, mv, depth, alpha, null, ply)?;
        }
        if value > alpha && value < beta && null < beta && !self.stopped {
            value = self.move_value(game, mv, depth, alpha, beta, ply)?;
        }
        Some(value)
    }

    /// The value of `mv` played with `outcome` forced, for the side that plays it.
    #[allow(clippy::too_many_arguments)]
    fn outcome_value(
        &mut self,
        game: &mut Game,
        mv: &LegalMove,
        outcome: bool,
        depth: i32,
        alpha: f64,
        beta: f64,
        ply: usize,
    ) -> Option<f64> {
        play_outcome(game, mv, Some(outcome)).ok()?;
        let value = -self.negamax(game, depth, -beta, -alpha, ply + 1);
        let _ = game.undo();
        Some(value)
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
        let futile = depth == 1
            && evaluate(game.position(), &self.config.weights) + FUTILITY_MARGIN <= alpha
            && alpha.abs() < CERTAIN_WIN;
        // A king that can be taken next move may be saved by a split or a merge (of the king,
        // or of a piece onto the attacker's path): then none is skipped, or a certain loss
        // would be claimed that a split refutes.
        let in_danger = depth == 1 && king_capture_probability(game.position(), game.turn()) > 0.0;
        for (index, mv) in moves.iter().enumerate() {
            let quiet = !is_capture(mv);
            let quantum = !matches!(mv.typed.squares, MoveSquares::Standard { .. });
            // Below the root, splits and merges are searched one ply shallower than standard
            // moves and not at all at the last ply (they change no material there), and
            // hopeless quiet moves are skipped at the last ply; the first move is always searched.
            if index > 0 && quiet && depth == 1 && ((quantum && !in_danger) || futile) {
                continue;
            }
            let late = quiet && (quantum || index >= LATE_MOVE_INDEX) && depth >= LATE_MOVE_DEPTH - i32::from(quantum);
            let value = if best.is_none() {
                self.move_value(game, mv, depth - 1, alpha, beta, ply)
            } else {
                self.scout(game, mv, depth - 1, i32::from(late), alpha, beta, ply)
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
        let mut captures = game.legal_captures();
        self.order.sort(&mut captures, None, ply, game.position(), &weights);
        for mv in &captures {
            // Captures that take nothing of the enemy's (onto its superposed squares with no
            // enemy piece, or where the gain is less than the capturer's tenth) and captures
            // that cannot lift the score to alpha are not searched; king captures always are.
            let gain = expected_gain(mv, game.position(), &weights);
            let hopeless = gain <= 0.0 || stand + gain + DELTA_MARGIN < alpha;
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
