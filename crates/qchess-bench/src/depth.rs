//! The search's time to depth: how long each depth takes to finish on positions of the search's
//! own games, and how often it finishes within a match's move time and within the think time
//! of the level that searches that deep.
//!
//! A level `ai:K` plays differently from the level below only in the moves where its K-th
//! iteration finishes (or, unfinished, already found a better move), so these figures say
//! which levels a move time can tell apart, and how long each level needs to think to play
//! as itself. The positions come from seeded games of the search against itself at a fixed
//! depth after two random plies (no clock, so the same games every run), every tenth ply,
//! each position once; each is searched by a fresh searcher to the plan's depth, and every
//! finished iteration's elapsed time and nodes are recorded.

use std::time::Duration;

use qchess_engine::Game;
use qchess_engine::ai::RandomMover;
use qchess_search::player::{MAX_LEVEL, level_config, level_think_time};
use qchess_search::{SearchControl, SearchInfo, SearchLimits, Searcher};
use serde_json::{Map, json};

use crate::error::BenchError;
use crate::report::WorkloadReport;
use crate::sampled::{self, Sampling};
use crate::stats::Timings;

/// Which positions are searched, how deep, and the move time the figures are read against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthPlan {
    /// Positions searched.
    pub positions: usize,
    /// The depth each position is searched to.
    pub depth: u32,
    /// The move time each depth's finishing share is counted against.
    pub movetime_ms: u64,
}

/// The depth of the games the positions come from (`ai:2` without a clock).
const GAME_DEPTH: u32 = 2;
/// Plies of each game played at random (seeded by the game's seed) before `ai:2` takes over:
/// `ai:2` plays the same game from every seed until a measurement goes another way, so
/// without them 12 positions held only 7 different ones (the tenth ply of every game alike).
const OPENING_PLIES: usize = 2;
/// Every tenth ply of seeded games (from seed 1), three per game.
const SAMPLING: Sampling = Sampling { first_seed: 1, plies_apart: 10, per_game: 3 };

/// The positions: every tenth ply of seeded games of `ai:2` against itself from random
/// openings, each position once (two seeds may still open alike).
fn positions(count: usize) -> Result<Vec<Game>, BenchError> {
    let (config, depth) = level_config(GAME_DEPTH);
    let limits = SearchLimits::depth(depth);
    let sampled = sampled::positions(
        2 * count,
        SAMPLING,
        |seed| (RandomMover::new(seed), Searcher::new(config)),
        |(opening, searcher), game| {
            if game.moves().len() < OPENING_PLIES {
                return Ok(opening.play(game).is_ok());
            }
            let best = searcher.search(game, &limits).map_err(|e| BenchError::search(&e))?;
            game.play_notation(&best.to_play()).map_err(|e| BenchError::search(&e))?;
            Ok(true)
        },
    )?;
    let moves = |game: &Game| game.moves().iter().map(|m| m.declared).collect::<Vec<_>>();
    let mut distinct: Vec<Game> = Vec::with_capacity(count);
    for game in sampled {
        if distinct.len() < count && !distinct.iter().any(|kept| moves(kept) == moves(&game)) {
            distinct.push(game);
        }
    }
    if distinct.len() < count {
        return Err(BenchError::Search(format!("the sampled games gave fewer than {count} different positions")));
    }
    Ok(distinct)
}

/// Runs the workload.
pub fn run(plan: DepthPlan) -> Result<WorkloadReport, BenchError> {
    let games = positions(plan.positions)?;
    let (config, _) = level_config(plan.depth);
    let limits = SearchLimits::depth(plan.depth);
    let movetime = Duration::from_millis(plan.movetime_ms);
    // Per depth (index depth - 1): each position's time and nodes to finish it.
    let mut finished: Vec<Vec<(Duration, u64)>> = vec![Vec::new(); plan.depth as usize];
    let mut timings = Timings::with_capacity(games.len());
    for game in &games {
        let mut searcher = Searcher::new(config);
        let mut record = |info: &SearchInfo| {
            if let Some(row) = info.depth.checked_sub(1).and_then(|index| finished.get_mut(index as usize)) {
                row.push((info.elapsed, info.nodes));
            }
        };
        let found = searcher
            .search_with(game, &limits, &[], &SearchControl::new(), &mut record)
            .map_err(|e| BenchError::search(&e))?;
        timings.push(found.elapsed);
    }
    let mut per_depth = Map::new();
    for (index, row) in finished.iter().enumerate() {
        let mut times: Vec<f64> = row.iter().map(|(time, _)| time.as_secs_f64() * 1e3).collect();
        let mut nodes: Vec<f64> = row.iter().map(|&(_, nodes)| nodes as f64).collect();
        let within = row.iter().filter(|(time, _)| *time <= movetime).count();
        let (median_ms, median_nodes) = (round2(median(&mut times)), median(&mut nodes));
        let mut figures = json!({
            "finished": row.len(),
            // Each position's time and nodes to finish this depth, fewest first (`median`
            // sorted them): the nodes are the same on every machine and run.
            "finish_ms": times.iter().map(|&ms| (ms * 10.0).round() / 10.0).collect::<Vec<f64>>(),
            "finish_nodes": nodes.iter().map(|&n| n as u64).collect::<Vec<u64>>(),
            "median_ms": median_ms,
            "median_nodes": median_nodes,
            "within_movetime": within,
        });
        // Against the think time of the level that searches this deep.
        let depth = index as u32 + 1;
        if depth <= MAX_LEVEL {
            let think = level_think_time(depth);
            figures["level_think_ms"] = json!(think.as_millis() as u64);
            figures["within_level_think_time"] = json!(row.iter().filter(|(time, _)| *time <= think).count());
        }
        per_depth.insert(format!("depth_{depth}"), figures);
    }
    let mut report = WorkloadReport::named("search-depth").with_summary(timings.summary());
    report.details = json!({
        "positions": games.len(),
        "depth": plan.depth,
        "movetime_ms": plan.movetime_ms,
    });
    if let Some(details) = report.details.as_object_mut() {
        details.extend(per_depth);
    }
    Ok(report)
}

/// The median of `values` (0 when empty); sorts them.
fn median(values: &mut [f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len() % 2 == 1 { values[middle] } else { (values[middle - 1] + values[middle]) / 2.0 }
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_depth_is_reported_with_the_positions_that_finished_it() {
        let plan = DepthPlan { positions: 2, depth: 2, movetime_ms: 100_000 };
        let report = run(plan).expect("runs");
        let details = report.details.as_object().expect("an object");
        assert_eq!(details["positions"], 2);
        for depth in 1..=2 {
            let row = &details[&format!("depth_{depth}")];
            assert_eq!(row["finished"], 2, "{row}");
            assert_eq!(row["within_movetime"], 2, "{row}");
            assert_eq!(row["level_think_ms"], level_think_time(depth).as_millis() as u64, "{row}");
            assert!(row["within_level_think_time"].as_u64().is_some_and(|n| n <= 2), "{row}");
            assert!(row["median_nodes"].as_f64().expect("a number") > 0.0, "{row}");
        }
        // Deeper takes more nodes.
        assert!(details["depth_2"]["median_nodes"].as_f64() > details["depth_1"]["median_nodes"].as_f64());
    }

    #[test]
    fn the_positions_are_the_same_every_run() {
        let played = |games: Vec<Game>| -> Vec<Vec<String>> {
            games.iter().map(|g| g.moves().iter().map(|m| m.notation.to_string()).collect()).collect()
        };
        let first = played(positions(3).expect("found"));
        let again = played(positions(3).expect("found"));
        assert_eq!(first, again);
        assert_eq!(first.iter().map(Vec::len).collect::<Vec<_>>(), [10, 20, 30]);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_middle_pair_averaged() {
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&mut [5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&mut []), 0.0);
    }
}
