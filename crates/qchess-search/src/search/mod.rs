//! Iterative deepening over the root moves; the node search is in [`node`].
//!
//! The search never plays on the caller's game: it replays the game's record (every outcome
//! forced) onto an exact local board of its own, so it works the same whatever board the game
//! runs on, and the caller's generator and board are untouched.

mod board;
mod node;
mod roots;

use std::sync::Arc;
use std::time::Duration;

use qchess_core::{AlgebraicMove, Bitboard, LegalMove, Notation};
use qchess_engine::Game;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

use crate::SearchError;
use crate::branch::Branch;
use crate::eval::Weights;
use crate::limits::{Deadline, SearchControl, SearchLimits};
use crate::order::MoveOrder;
use crate::score::centipawns;
use crate::table::Table;
use board::SearchBoard;
use roots::Roots;

/// The score of capturing the enemy king now; a capture `n` plies ahead scores `WIN - n`.
pub const WIN: f64 = 100_000.0;

/// Scores at least this far from 0 are certain wins or losses.
pub const CERTAIN_WIN: f64 = WIN - 1000.0;

/// The default [`SearchConfig::score_scale`]: the scale the fit of the evaluation to
/// self-play outcomes found ([`crate::tune`]: `400 / k` for its `k = 0.1847`).
pub const DEFAULT_SCORE_SCALE: f64 = 2170.0;

/// How the search is set up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchConfig {
    /// The evaluation weights.
    pub weights: Weights,
    /// Moves that would grow the quantum state past this many basis states (and past the
    /// root's size) are not searched.
    pub state_budget: usize,
    /// Transposition table size in megabytes (at most; a power of two of 32-byte entries).
    pub hash_megabytes: usize,
    /// Plies of captures searched past the nominal depth (0: none).
    pub quiescence_plies: u32,
    /// Whether the search prunes by judgement (futility and reverse futility, late-move
    /// reductions, splits and merges skipped at the last ply, hopeless and losing captures,
    /// cut-offs from the table). Off, it returns the exact value of the depth-limited game
    /// tree, every move and capture searched: slower, for checking the search itself.
    pub selective: bool,
    /// Centipawns of evaluation that make a 10-to-1 favourite, when the search plays for
    /// expected score: an evaluation then enters it as
    /// [`leaf_value`](crate::score::leaf_value), so chance nodes mix king captures and
    /// positions by their probabilities as the game's results do ([`crate::score`]). `None`:
    /// evaluations enter as they are, in centipawns. Either way the search reports centipawns.
    pub score_scale: Option<f64>,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            weights: Weights::default(),
            state_budget: 1 << 12,
            hash_megabytes: 4,
            quiescence_plies: 4,
            selective: true,
            score_scale: Some(DEFAULT_SCORE_SCALE),
        }
    }
}

/// What one finished iteration (or the whole search) found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchInfo {
    /// The best single move (one typed move). When only observer-rules pairs are legal (a
    /// superposed king in quantum check) it is the first pair's first half, which does not
    /// play alone: play [`to_play`](Self::to_play).
    pub best: LegalMove,
    /// An observer-rules pair (`e5e8|c2c7`, offensive superposition) that scored better than
    /// [`best`](Self::best): then it is the move to play. Pairs are searched at the root only.
    pub pair: Option<Notation>,
    /// Its score in centipawns from the side to move's view (see [`WIN`] and
    /// [`crate::score`]).
    pub score: f64,
    /// The depth of the last finished iteration (0 when none finished).
    pub depth: u32,
    /// The deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The largest quantum state (basis states) the search kept on its board.
    pub peak_states: usize,
    /// The expected line: the best move, then the best replies (through the likelier outcome
    /// of each measurement). Just the best single move when a pair is to be played.
    pub pv: Vec<AlgebraicMove>,
    /// With [`SearchLimits::every_root_value`]: every root move (pairs included) with its
    /// exact value at the last finished depth (the chance-node value: each outcome weighed
    /// by its probability), best first. Empty otherwise.
    pub root_values: Vec<(Notation, f64)>,
}

impl SearchInfo {
    /// The move to play as written: the pair when one is best, else the best move.
    pub fn to_play(&self) -> Notation {
        self.pair.unwrap_or(Notation::Move(self.best.notation))
    }

    /// Nodes per second.
    pub fn nodes_per_second(&self) -> u64 {
        let seconds = self.elapsed.as_secs_f64();
        if seconds > 0.0 { (self.nodes as f64 / seconds) as u64 } else { 0 }
    }

    /// Plies to a certain king capture: positive when the side to move captures, negative when
    /// it is captured; `None` when the score is not a certain win or loss.
    pub fn plies_to_capture(&self) -> Option<i64> {
        (self.score.abs() >= CERTAIN_WIN).then(|| {
            let plies = (WIN - self.score.abs()).round() as i64;
            if self.score > 0.0 { plies } else { -plies }
        })
    }
}

/// A searcher: its configuration, transposition table and ordering tables, kept between moves.
#[derive(Debug, Clone)]
pub struct Searcher {
    config: SearchConfig,
    table: Table,
    order: MoveOrder,
}

/// The state of one running search.
pub(crate) struct Run<'a> {
    config: SearchConfig,
    table: &'a mut Table,
    order: &'a mut MoveOrder,
    control: &'a SearchControl,
    deadline: Deadline,
    root_states: usize,
    /// Whether the caller named the root moves: then they are searched past the budget.
    named_roots: bool,
    peak_states: usize,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    /// The best root move of an iteration stopped before it finished.
    partial: Option<(RootMove, f64)>,
    /// Whether every root move gets the whole window ([`SearchLimits::every_root_value`]).
    every_root_value: bool,
    /// Every root move's value from the last finished iteration, best first.
    root_values: Vec<(Notation, f64)>,
}

impl Searcher {
    /// A searcher with `config`.
    pub fn new(config: SearchConfig) -> Searcher {
        Searcher { config, table: Table::with_megabytes(config.hash_megabytes), order: MoveOrder::default() }
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Forgets what earlier searches learnt (a new game).
    pub fn clear(&mut self) {
        self.table.clear();
        self.order = MoveOrder::default();
    }

    /// Searches `game` within `limits` and returns the best move.
    pub fn search(&mut self, game: &Game, limits: &SearchLimits) -> Result<SearchInfo, SearchError> {
        self.search_with(game, limits, &[], &SearchControl::new(), &mut |_| {})
    }

    /// Searches `game` within `limits`, only among `root_moves` when that is not empty (each
    /// searched as written, even past the state budget), until `control` says stop; `report`
    /// hears of every finished iteration.
    pub fn search_with(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        root_moves: &[Notation],
        control: &Arc<SearchControl>,
        report: &mut dyn FnMut(&SearchInfo),
    ) -> Result<SearchInfo, SearchError> {
        let deadline = Deadline::new(limits);
        let mut copy = SearchBoard::new(search_copy(game, self.config.state_budget)?, &self.config.weights);
        let Roots { mut moves, mut pairs } = roots::root_moves(&mut copy, root_moves)?;
        self.order.age();
        let root_states = copy.game().state_size();
        let mut run = Run {
            config: self.config,
            table: &mut self.table,
            order: &mut self.order,
            control,
            deadline,
            root_states,
            named_roots: !root_moves.is_empty(),
            peak_states: root_states,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            partial: None,
            every_root_value: limits.every_root_value,
            root_values: Vec::new(),
        };
        let first_key = copy.key();
        let stored = run.table.probe(first_key).and_then(|e| e.best);
        run.order.sort(&mut moves, stored, 0, copy.game().position(), &self.config.weights);
        let first_pair = pairs.first().copied().filter(|_| moves.is_empty());
        // With pairs only, `best` is the first pair's first half as the board reads it.
        let half = |pair: &Notation| match pair {
            Notation::Pair(first, _) => copy.game().position().validate(&Notation::Move(*first)).ok(),
            _ => None,
        };
        let Some(first) = moves.first().copied().or_else(|| first_pair.as_ref().and_then(half)) else {
            return Err(SearchError::NoLegalMove);
        };
        let mut found = SearchInfo {
            best: first,
            pair: first_pair,
            score: 0.0,
            depth: 0,
            seldepth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            peak_states: root_states,
            pv: vec![first.notation],
            root_values: Vec::new(),
        };
        for depth in 1..=limits.max_depth() {
            if depth > 1 && !run.deadline.next_iteration_fits(control) {
                break;
            }
            let Some((best, score)) = run.root(&mut copy, &mut moves, &mut pairs, depth as i32) else {
                if depth == 1 {
                    found.nodes = run.nodes;
                }
                // The last iteration's best move is searched first: once it is done, a move
                // that scored better in the unfinished iteration is the better choice.
                if depth > 1
                    && let Some((RootMove::Single(mv), score)) = run.partial
                    && mv != found.best
                    && found.pair.is_none()
                {
                    found.best = mv;
                    found.score = centipawns(score, self.config.score_scale);
                    found.pv = vec![mv.notation];
                }
                break;
            };
            let (best, pair) = match best {
                RootMove::Single(mv) => (mv, None),
                RootMove::Pair(pair) => (found.best, Some(pair)),
            };
            let scale = self.config.score_scale;
            found = SearchInfo {
                best,
                pair,
                score: centipawns(score, scale),
                depth,
                seldepth: run.seldepth as u32,
                nodes: run.nodes,
                elapsed: run.deadline.elapsed(),
                peak_states: run.peak_states,
                pv: if pair.is_some() {
                    Vec::new()
                } else {
                    principal_variation(&mut copy, run.table, best, depth as usize)
                },
                root_values: run.root_values.iter().map(|&(mv, value)| (mv, centipawns(value, scale))).collect(),
            };
            report(&found);
            if score.abs() >= CERTAIN_WIN {
                break;
            }
        }
        found.nodes = run.nodes;
        found.elapsed = run.deadline.elapsed();
        found.peak_states = run.peak_states;
        Ok(found)
    }
}

/// A root move: one typed move, or an observer-rules pair.
#[derive(Debug, Clone, Copy)]
enum RootMove {
    Single(LegalMove),
    Pair(Notation),
}

impl Run<'_> {
    /// One iteration over the root moves, best of the last iteration first, then the pairs;
    /// `None` when no move could be searched. When it is stopped before finishing, the best
    /// of the moves it did finish is kept in `self.partial`, so a later move that beat the
    /// last iteration's best is not thrown away.
    fn root(
        &mut self,
        board: &mut SearchBoard,
        moves: &mut [LegalMove],
        pairs: &mut [Notation],
        depth: i32,
    ) -> Option<(RootMove, f64)> {
        let mut best: Option<(RootMove, f64)> = None;
        let mut scored = Vec::with_capacity(moves.len());
        for mv in moves.iter() {
            let value = match best {
                Some((_, alpha)) if !self.every_root_value => self.scout(board, mv, depth - 1, 0, alpha, WIN + 1.0, 0),
                _ => self.move_value(board, mv, depth - 1, -WIN - 1.0, WIN + 1.0, 0),
            };
            if self.stopped {
                self.partial = best;
                return None;
            }
            let Some(value) = value else {
                scored.push((f64::NEG_INFINITY, *mv));
                continue;
            };
            scored.push((value, *mv));
            if best.is_none_or(|(_, score)| value > score) {
                best = Some((RootMove::Single(*mv), value));
            }
        }
        // The next iteration tries the best first, the others in the order they scored.
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut values: Vec<(Notation, f64)> = if self.every_root_value {
            scored
                .iter()
                .filter(|(value, _)| value.is_finite())
                .map(|(value, mv)| (Notation::Move(mv.notation), *value))
                .collect()
        } else {
            Vec::new()
        };
        for (slot, (_, mv)) in moves.iter_mut().zip(scored) {
            *slot = mv;
        }
        let mut scored_pairs = Vec::with_capacity(pairs.len());
        for pair in pairs.iter() {
            let value = self.pair_value(board, pair, depth - 1);
            if self.stopped {
                self.partial = best;
                return None;
            }
            let Some(value) = value else { continue };
            scored_pairs.push((value, *pair));
            if best.is_none_or(|(_, score)| value > score) {
                best = Some((RootMove::Pair(*pair), value));
            }
        }
        scored_pairs.sort_by(|a, b| b.0.total_cmp(&a.0));
        if self.every_root_value {
            values.extend(scored_pairs.iter().map(|&(value, pair)| (pair, value)));
            values.sort_by(|a, b| b.1.total_cmp(&a.1));
            self.root_values = values;
        }
        for (slot, (_, pair)) in pairs.iter_mut().zip(scored_pairs) {
            *slot = pair;
        }
        best
    }

    /// The value of an observer-rules pair: its first half's source is measured, `m1` plays
    /// the first half and `m0` the second, each outcome searched `depth` plies on its own
    /// collapsed state (with a full window: pairs are few) and weighted by its exact
    /// probability. `None` when neither outcome plays.
    fn pair_value(&mut self, board: &mut SearchBoard, pair: &Notation, depth: i32) -> Option<f64> {
        let Notation::Pair(first, second) = *pair else { return None };
        let mut total = 0.0;
        let mut weight = 0.0;
        for outcome in [true, false] {
            let forced = Notation::Pair(first, second.with_outcome(Some(outcome)));
            let Ok(played) = board.play_notation(&forced) else { continue };
            let p = played.collapse.and_then(|c| c.outcome_probability).unwrap_or(1.0);
            let value = -self.negamax(board, depth, -WIN - 1.0, WIN + 1.0, 1);
            board.undo();
            if self.stopped {
                return Some(0.0);
            }
            total += p * value;
            weight += p;
        }
        (weight > 0.0).then_some(total)
    }
}

/// The game replayed onto an exact local board the search owns, big enough for the state the
/// game already has plus one move past the budget.
pub(crate) fn search_copy(game: &Game, budget: usize) -> Result<Game, SearchError> {
    let record = GameRecord::from_game(game, &RecordInfo::default());
    let cap = budget.max(game.state_size()).saturating_mul(4).max(1 << 10);
    let options = game.options();
    let board = LocalBoard::with_options(
        Bitboard::EMPTY,
        LocalBoardOptions {
            seed: options.seed,
            state_cap: cap,
            // Every move the search tries is undone: keep a snapshot per move (at most the
            // budget's size each, a few dozen plies deep) instead of replaying.
            snapshot_interval: 1,
            snapshot_budget: cap.saturating_mul(64),
            // Moves on certain squares then run classically: no gates, snapshot or new hash.
            classical_when_certain: true,
            ..LocalBoardOptions::default()
        },
    );
    record.replay_on(board, options).map_err(|e| SearchError::Replay(Box::new(e)))
}

/// The best move and the stored best replies, through the likelier outcome of each measurement.
fn principal_variation(board: &mut SearchBoard, table: &Table, best: LegalMove, length: usize) -> Vec<AlgebraicMove> {
    let mut line = Vec::new();
    let mut next = Some(best);
    while let Some(mv) = next.filter(|_| line.len() < length.max(1)) {
        let played = match board.play_first(&mv) {
            Ok(Branch::Chance { p_m1 }) if p_m1 < 0.5 => {
                board.undo();
                board.play_outcome(&mv, Some(false)).is_ok()
            }
            Ok(_) => true,
            Err(_) => false,
        };
        if !played {
            break;
        }
        line.push(mv.notation);
        next = if board.game().is_over() { None } else { table.probe(board.key()).and_then(|e| e.best) };
    }
    for _ in 0..line.len() {
        board.undo();
    }
    line
}
