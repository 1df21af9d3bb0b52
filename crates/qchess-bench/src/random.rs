//! Seeded random games: legal-move generation, a weighted choice, the move on the exact local
//! board and the probabilities of all 64 squares, timed ply by ply.
//!
//! Each ply draws a move family first (standard, split or merge, by the [`MoveMix`]'s shares,
//! renormalised over the families that have a legal move), then a move of that family uniformly.
//! A move the board cannot hold (the state would pass its cap) is dropped and another drawn.

use std::time::{Duration, Instant};

use qchess_core::{BoardError, Fen, LegalMove, MoveType};
use qchess_engine::{Game, GameError, GameOptions};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::crosscheck::{CrossCheck, Snapshot};
use crate::error::BenchError;
use crate::report::WorkloadReport;
use crate::stats::Timings;

/// How often each move family is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoveMix {
    /// The workload's name.
    pub name: &'static str,
    /// Share of plies that split a piece (when a split is legal).
    pub split: f64,
    /// Share of plies that merge two pieces (when a merge is legal).
    pub merge: f64,
}

impl MoveMix {
    /// Mostly standard moves, with a split or a merge about one ply in ten each.
    pub const DEFAULT: MoveMix = MoveMix { name: "random-default", split: 0.1, merge: 0.1 };
    /// Half the plies split.
    pub const SPLIT_HEAVY: MoveMix = MoveMix { name: "random-split-heavy", split: 0.5, merge: 0.1 };
    /// Splits but never merges.
    pub const NO_MERGE: MoveMix = MoveMix { name: "random-no-merge", split: 0.1, merge: 0.0 };

    /// The family shares (standard, split, merge).
    fn shares(self) -> [f64; 3] {
        [(1.0 - self.split - self.merge).max(0.0), self.split, self.merge]
    }
}

/// Which family a move belongs to: 0 standard, 1 split, 2 merge.
fn family(mv: &LegalMove) -> usize {
    match mv.move_type() {
        MoveType::SplitJump | MoveType::SplitSlide => 1,
        MoveType::MergeJump | MoveType::MergeSlide => 2,
        _ => 0,
    }
}

/// How many random games, how long, and how many are cross-checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RandomPlan {
    /// Games played.
    pub games: usize,
    /// Plies per game at most (a game that ends stops early).
    pub plies: usize,
    /// Every this many games one is replayed and cross-checked against the dense simulator.
    pub crosscheck_every: usize,
    /// The most qubits a cross-checked circuit may have.
    pub crosscheck_qubits: usize,
}

/// What one game did.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GameFigures {
    plies: usize,
    legal_moves: usize,
    ended: bool,
    skipped: usize,
    peak_states: usize,
    peak_state_bytes: usize,
}

/// The seed of game `index`; games of different workloads differ.
fn game_seed(mix: MoveMix, index: usize) -> u64 {
    let salt = mix.name.bytes().fold(0u64, |acc, b| acc.wrapping_mul(31).wrapping_add(u64::from(b)));
    salt ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Plays game `index` of `mix`, timing each ply into `timings` and calling `observe` after
/// each ply (outside the timed part).
pub(crate) fn play_game(
    mix: MoveMix,
    index: usize,
    plies: usize,
    timings: &mut Timings,
    mut observe: impl FnMut(&Game, usize) -> Result<(), BenchError>,
) -> Result<GameFigures, BenchError> {
    let seed = game_seed(mix, index);
    let mut game = Game::new(&Fen::start(), GameOptions::with_seed(seed)).map_err(|source| BenchError::Game {
        workload: mix.name.to_owned(),
        game: index,
        ply: 0,
        source,
    })?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(2);
    let mut figures = GameFigures::default();
    let shares = mix.shares();
    for ply in 1..=plies {
        if game.is_over() {
            figures.ended = true;
            break;
        }
        let started = Instant::now();
        let mut moves = game.legal_moves();
        let listed = moves.len();
        let played = loop {
            let Some(choice) = choose(&moves, shares, &mut rng) else { break None };
            let mv = moves.swap_remove(choice);
            match game.play_legal(&mv) {
                Ok(played) => break Some(played),
                Err(GameError::Board { source: BoardError::StateTooLarge { .. }, .. }) => figures.skipped += 1,
                Err(source) => {
                    return Err(BenchError::Game { workload: mix.name.to_owned(), game: index, ply, source });
                }
            }
        };
        let elapsed: Duration = started.elapsed();
        if played.is_none() {
            figures.ended = true;
            break;
        }
        timings.push(elapsed);
        figures.plies = ply;
        figures.legal_moves += listed;
        if game.state_size() > figures.peak_states {
            figures.peak_states = game.state_size();
            figures.peak_state_bytes = game.local_board().map_or(0, |board| board.state().heap_bytes());
        }
        observe(&game, ply)?;
    }
    figures.ended |= game.is_over();
    Ok(figures)
}

/// Draws a family by its share among the families present, then a move of it uniformly.
fn choose(moves: &[LegalMove], shares: [f64; 3], rng: &mut ChaCha8Rng) -> Option<usize> {
    let mut counts = [0usize; 3];
    for mv in moves {
        counts[family(mv)] += 1;
    }
    let weight = |f: usize| if counts[f] > 0 { shares[f] } else { 0.0 };
    let total: f64 = (0..3).map(weight).sum();
    let chosen = if total > 0.0 {
        let mut draw = rng.random::<f64>() * total;
        (0..3).find(|&f| {
            draw -= weight(f);
            draw < 0.0 && counts[f] > 0
        })
    } else {
        None
    };
    // Every family present has share 0 (or rounding ran past the end): any move will do.
    let family_index = chosen.or_else(|| (0..3).rev().find(|&f| counts[f] > 0))?;
    let nth = rng.random_range(0..counts[family_index]);
    moves.iter().enumerate().filter(|(_, mv)| family(mv) == family_index).nth(nth).map(|(i, _)| i)
}

/// Runs the games of `mix`, then replays every `crosscheck_every`-th game and checks it against
/// the dense simulator.
pub(crate) fn run(mix: MoveMix, plan: RandomPlan) -> Result<WorkloadReport, BenchError> {
    let mut timings = Timings::with_capacity(plan.games * plan.plies);
    let (mut plies, mut ended, mut skipped, mut legal_moves) = (0usize, 0usize, 0usize, 0usize);
    let (mut peak_states, mut peak_state_bytes) = (0usize, 0usize);
    let started = Instant::now();
    for index in 0..plan.games {
        let figures = play_game(mix, index, plan.plies, &mut timings, |_, _| Ok(()))?;
        plies += figures.plies;
        legal_moves += figures.legal_moves;
        skipped += figures.skipped;
        ended += usize::from(figures.ended);
        if figures.peak_states > peak_states {
            (peak_states, peak_state_bytes) = (figures.peak_states, figures.peak_state_bytes);
        }
    }
    let games_seconds = started.elapsed().as_secs_f64();

    let mut checks = CrossCheck::new(mix.name);
    let mut discard = Timings::default();
    for index in (0..plan.games).step_by(plan.crosscheck_every.max(1)) {
        let mut latest: Option<Snapshot> = None;
        play_game(mix, index, plan.plies, &mut discard, |game, ply| {
            if let Some(snapshot) = Snapshot::take(game, ply, plan.crosscheck_qubits) {
                latest = Some(snapshot);
            }
            Ok(())
        })?;
        if let Some(snapshot) = latest {
            checks.check(index, &snapshot)?;
        }
    }

    let mut report = WorkloadReport::named(mix.name).with_summary(timings.summary());
    report.games_per_s = Some(plan.games as f64 / games_seconds.max(f64::MIN_POSITIVE));
    report.peak_states = Some(peak_states as u64);
    report.bytes_per_state = (peak_states > 0).then(|| peak_state_bytes as f64 / peak_states as f64);
    report.details = json!({
        "games": plan.games,
        "plies_per_game": plan.plies,
        "mean_plies": plies as f64 / plan.games.max(1) as f64,
        "mean_legal_moves": legal_moves as f64 / plies.max(1) as f64,
        "games_ended": ended,
        "moves_skipped_at_state_cap": skipped,
        "split_share": mix.split,
        "merge_share": mix.merge,
        "crosschecked_games": checks.games(),
        "crosschecked_ply_median": checks.median_ply(),
        "crosscheck_max_difference": checks.max_difference(),
    });
    Ok(report)
}
