//! The search: nodes per second on one thread and the latency of a move at a fixed move time.
//!
//! Positions come from seeded random games (every fourth ply of each), so they hold splits,
//! merges and measured captures. Each is searched by a fresh searcher with the move time;
//! the timed operation is the whole search call, so the latency figures say how far past its
//! budget a move may come.

use std::time::{Duration, Instant};

use qchess_engine::Game;
use qchess_engine::ai::RandomMover;
use qchess_search::{SearchConfig, SearchLimits, Searcher};
use serde_json::json;

use crate::error::BenchError;
use crate::report::WorkloadReport;
use crate::sampled::{self, Sampling};
use crate::stats::Timings;

/// How many positions are searched and for how long each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchPlan {
    /// Positions searched.
    pub positions: usize,
    /// The move time of each search.
    pub movetime_ms: u64,
}

/// Every fourth ply of seeded random games (from seed 0), six per game.
const SAMPLING: Sampling = Sampling { first_seed: 0, plies_apart: 4, per_game: 6 };

/// The positions: every fourth ply of seeded random games.
fn positions(count: usize) -> Result<Vec<Game>, BenchError> {
    sampled::positions(count, SAMPLING, RandomMover::new, |mover, game| Ok(mover.play(game).is_ok()))
}

/// Runs the workload.
pub fn run(plan: SearchPlan) -> Result<WorkloadReport, BenchError> {
    let games = positions(plan.positions)?;
    let limits = SearchLimits::movetime(Duration::from_millis(plan.movetime_ms));
    let mut timings = Timings::with_capacity(games.len());
    let (mut nodes, mut searching, mut depths, mut peak) = (0u64, Duration::ZERO, 0u64, 0usize);
    let started = Instant::now();
    for game in &games {
        let mut searcher = Searcher::new(SearchConfig::default());
        let clock = Instant::now();
        let found = searcher.search(game, &limits).map_err(|e| BenchError::search(&e))?;
        let elapsed = clock.elapsed();
        timings.push(elapsed);
        nodes += found.nodes;
        searching += elapsed;
        depths += u64::from(found.depth);
        peak = peak.max(found.peak_states);
    }
    let wall = started.elapsed().as_secs_f64();
    let mut report = WorkloadReport::named("search").with_summary(timings.summary());
    report.games_per_s = Some(games.len() as f64 / wall.max(1e-9));
    report.peak_states = Some(peak as u64);
    report.details = json!({
        "threads": 1,
        "movetime_ms": plan.movetime_ms,
        "positions": games.len(),
        "nodes": nodes,
        "nodes_per_s": (nodes as f64 / searching.as_secs_f64().max(1e-9)).round(),
        "mean_depth": depths as f64 / games.len().max(1) as f64,
    });
    Ok(report)
}
