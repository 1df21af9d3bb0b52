//! State growth: split the pieces of a pawnless board again and again until the state holds
//! `2^k` basis states for each `k` asked for, then check that the state cap stops the next
//! split cleanly.
//!
//! Each ply splits, for the side to move, the piece part most likely present onto two
//! certainly empty squares (so nothing interferes and the state grows as fast as it can: a
//! certain piece doubles it, a part present in half the branches adds half). The game is
//! played without win conditions, so the fifty-move rule never measures the board.
//!
//! With more than one thread, the growth is run again on a board whose sparse gates and
//! probabilities use them, and the last move (into the largest state) is undone and replayed
//! a few times on each board: the median move times on one thread and on several, side by side.

use std::time::Instant;

use qchess_core::{Bitboard, Fen, LegalMove, MoveType, Occupancy, Position, Square};
use qchess_engine::{Game, GameError, GameOptions};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use serde_json::json;

use crate::error::BenchError;
use crate::report::WorkloadReport;
use crate::stats::Timings;

/// Both sides' pieces without pawns, so every piece can split at once.
const PAWNLESS: &str = "rnbqkbnr/8/8/8/8/8/8/RNBQKBNR w - - 0 1";

/// Every split grows the state, so this many plies reach any cap that fits in memory.
const MAX_PLIES: usize = 200;

/// Times the last move is replayed for the thread comparison.
const REPLAYS: usize = 11;

/// One growth step that first reached `2^k` states.
#[derive(Debug, Clone, Copy)]
struct Step {
    k: u32,
    states: usize,
    gates: usize,
    move_us: f64,
    bytes_per_state: f64,
}

/// Grows the state until it has `2^max_k` basis states, recording the first move past each
/// `2^k` from `min_k`, then checks the cap; with `threads > 1`, also compares the last move on
/// one thread and on `threads`.
pub(crate) fn run(min_k: u32, max_k: u32, threads: usize) -> Result<WorkloadReport, BenchError> {
    let started = Instant::now();
    let mut grown = grow(min_k, max_k, 1)?;
    let mut threaded = json!(null);
    if threads > 1 {
        let mut again = grow(min_k, max_k, threads)?;
        let (mut one, mut many) = (Vec::with_capacity(REPLAYS), Vec::with_capacity(REPLAYS));
        // Alternately, so that both see the same load on a shared machine.
        for _ in 0..REPLAYS {
            one.push(replay_last(&mut grown.game, &grown.last_move)?);
            many.push(replay_last(&mut again.game, &again.last_move)?);
        }
        let (one, many) = (median(&mut one), median(&mut many));
        threaded = json!({
            "states": again.game.state_size(),
            "threads": threads,
            "replays": REPLAYS,
            "move_us_1_thread": round(one, 1),
            "move_us_threads": round(many, 1),
            "speedup": round(one / many, 2),
        });
    }
    let cap_error = check_cap(&mut grown.game, grown.cap)?;

    let mut report = WorkloadReport::named("growth").with_summary(grown.timings.summary());
    report.peak_states = Some(grown.peak.0 as u64);
    report.bytes_per_state = Some(grown.peak.1 as f64 / grown.peak.0.max(1) as f64);
    report.details = json!({
        "steps": grown.steps.iter().map(|s| json!({
            "k": s.k,
            "states": s.states,
            "gates": s.gates,
            "move_us": round(s.move_us, 1),
            "ns_per_state_per_gate": round(s.move_us * 1000.0 / (s.states as f64 * s.gates.max(1) as f64), 2),
            "bytes_per_state": round(s.bytes_per_state, 1),
        })).collect::<Vec<_>>(),
        "state_cap": grown.cap,
        "cap_error": cap_error,
        "plies": grown.game.moves().len(),
        "threaded_last_move": threaded,
    });
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// A grown game and what was measured on the way.
struct Grown {
    game: Game,
    cap: usize,
    steps: Vec<Step>,
    timings: Timings,
    peak: (usize, usize),
    last_move: LegalMove,
}

/// Plays the widest splits until the state holds `2^max_k` basis states, on a board whose
/// sparse simulator uses `threads` threads.
fn grow(min_k: u32, max_k: u32, threads: usize) -> Result<Grown, BenchError> {
    // Room for the last target and one half-growth more; the split after that must fail.
    let cap = (3usize << max_k) / 2;
    let fen: Fen = PAWNLESS.parse().map_err(|e| BenchError::Growth(format!("the pawnless FEN: {e}")))?;
    let options = GameOptions { enforce_win_conditions: false, ..GameOptions::default() };
    // Small snapshots only: copying a large state before each move would be timed with it.
    let local = LocalBoardOptions { state_cap: cap, snapshot_budget: 1 << 16, threads, ..LocalBoardOptions::default() };
    let board = LocalBoard::with_options(fen.occupancy(), local);
    let mut game = Game::with_board(&fen, options, board).map_err(|e| game_error(0, e))?;
    let mut timings = Timings::default();
    let mut steps: Vec<Step> = Vec::new();
    let mut next_k = min_k;
    let mut peak = (0usize, 0usize);
    let mut last_move = None;
    while next_k <= max_k {
        let ply = game.moves().len() + 1;
        if ply > MAX_PLIES {
            return Err(BenchError::Growth(format!("{} states after {MAX_PLIES} splits", game.state_size())));
        }
        let mv = widest_split(game.position())
            .ok_or_else(|| BenchError::Growth(format!("no split left at ply {ply}, {} states", game.state_size())))?;
        let ops_before = circuit_ops(&game);
        let before = Instant::now();
        game.play_legal(&mv).map_err(|e| game_error(ply, e))?;
        let elapsed = before.elapsed();
        timings.push(elapsed);
        last_move = Some(mv);
        let states = game.state_size();
        let bytes = game.local_board().map_or(0, |board| board.state().heap_bytes());
        if states > peak.0 {
            peak = (states, bytes);
        }
        while next_k <= max_k && states >= 1usize << next_k {
            let gates = circuit_ops(&game) - ops_before;
            steps.push(Step {
                k: next_k,
                states,
                gates,
                move_us: elapsed.as_secs_f64() * 1e6,
                bytes_per_state: bytes as f64 / states as f64,
            });
            next_k += 1;
        }
    }
    let last_move = last_move.ok_or_else(|| BenchError::Growth("no move was played".to_owned()))?;
    Ok(Grown { game, cap, steps, timings, peak, last_move })
}

/// Undoes and replays the game's last move (`mv`): the move's time in microseconds.
fn replay_last(game: &mut Game, mv: &LegalMove) -> Result<f64, BenchError> {
    let ply = game.moves().len();
    game.undo().map_err(|e| game_error(ply, e))?;
    let before = Instant::now();
    game.play_legal(mv).map_err(|e| game_error(ply, e))?;
    Ok(before.elapsed().as_secs_f64() * 1e6)
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

fn circuit_ops(game: &Game) -> usize {
    game.local_board().map_or(0, |board| board.circuit().ops.len())
}

fn game_error(ply: usize, source: GameError) -> BenchError {
    BenchError::Game { workload: "growth".to_owned(), game: 0, ply, source }
}

/// The split whose source is most likely occupied, onto two certainly empty squares along
/// certainly empty arms; the first such in legal-move order on a tie.
fn widest_split(position: &Position) -> Option<LegalMove> {
    let mut best: Option<(f64, LegalMove)> = None;
    for mv in position.legal_moves() {
        if !matches!(mv.move_type(), MoveType::SplitJump | MoveType::SplitSlide) {
            continue;
        }
        let squares = mv.typed.squares;
        let qchess_core::MoveSquares::Split { from, to1, to2 } = squares else { continue };
        // Certainly empty targets and arms: nothing interferes, no arm is controlled.
        let arm = |to: Square, other: Square| from.between(to).unwrap_or_default().without(other);
        let squares = arm(to1, to2) | arm(to2, to1) | Bitboard::from_square(to1) | Bitboard::from_square(to2);
        if squares.iter().any(|sq| position.occupancy(sq) != Occupancy::Empty) {
            continue;
        }
        let p = position.probability(from);
        if best.as_ref().is_none_or(|(best_p, _)| p > *best_p) {
            best = Some((p, mv));
        }
    }
    best.map(|(_, mv)| mv)
}

/// Splits on until one split would pass the cap, and checks that it is refused with
/// [`BoardError::StateTooLarge`](qchess_core::BoardError::StateTooLarge) and leaves the game,
/// the state and every probability as they were. Returns the error's text.
fn check_cap(game: &mut Game, cap: usize) -> Result<String, BenchError> {
    loop {
        let ply = game.moves().len() + 1;
        if ply > MAX_PLIES {
            return Err(BenchError::Growth(format!("the cap of {cap} was not reached after {MAX_PLIES} splits")));
        }
        let mv = widest_split(game.position())
            .ok_or_else(|| BenchError::Growth(format!("no split left to test the cap at ply {ply}")))?;
        let states = game.state_size();
        let probabilities = game.probabilities().clone();
        match game.play_legal(&mv) {
            Ok(_) if game.state_size() <= cap => continue,
            Ok(_) => {
                return Err(BenchError::Growth(format!(
                    "{} basis states were allowed past the cap of {cap}",
                    game.state_size()
                )));
            }
            Err(GameError::Board { mv: text, source: source @ qchess_core::BoardError::StateTooLarge { .. } }) => {
                if game.state_size() != states
                    || game.probabilities() != &probabilities
                    || game.moves().len() + 1 != ply
                {
                    return Err(BenchError::Growth(format!("the refused move {text} changed the game")));
                }
                return Ok(format!("{text}: {source}"));
            }
            Err(other) => return Err(game_error(ply, other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_growth_reaches_each_size_and_hits_the_cap_cleanly() {
        let report = run(4, 8, 1).expect("grows");
        let steps = report.details["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), 5);
        for (step, k) in steps.iter().zip(4..) {
            assert_eq!(step["k"], k);
            assert!(step["states"].as_u64().is_some_and(|n| n >= 1 << k));
        }
        let cap_error = report.details["cap_error"].as_str().expect("cap error text");
        assert!(cap_error.contains("more than the limit of 384"), "{cap_error}");
        assert!(report.peak_states.is_some_and(|n| n <= 384));
        assert!(report.details["threaded_last_move"].is_null());
    }

    #[test]
    fn threaded_growth_compares_the_last_move() {
        // 2^17 states: past the size from which sparse gates use threads.
        let report = run(16, 17, 2).expect("grows");
        let threaded = &report.details["threaded_last_move"];
        assert_eq!(threaded["threads"], 2);
        assert!(threaded["states"].as_u64().is_some_and(|n| n >= 1 << 17), "{threaded}");
        assert!(threaded["speedup"].as_f64().is_some_and(|x| x > 0.0), "{threaded}");
    }
}
