//! State growth: split the pieces of a pawnless board again and again until the state holds
//! `2^k` basis states for each `k` asked for, then check that the state cap stops the next
//! split cleanly.
//!
//! Each ply splits, for the side to move, the piece part most likely present onto two
//! certainly empty squares (so nothing interferes and the state grows as fast as it can: a
//! certain piece doubles it, a part present in half the branches adds half). The game is
//! played without win conditions, so the fifty-move rule never measures the board.

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
/// `2^k` from `min_k`, then checks the cap.
pub(crate) fn run(min_k: u32, max_k: u32) -> Result<WorkloadReport, BenchError> {
    let started = Instant::now();
    // Room for the last target and one half-growth more; the split after that must fail.
    let cap = (3usize << max_k) / 2;
    let fen: Fen = PAWNLESS.parse().map_err(|e| BenchError::Growth(format!("the pawnless FEN: {e}")))?;
    let options = GameOptions { enforce_win_conditions: false, ..GameOptions::default() };
    let board = LocalBoard::with_options(
        fen.occupancy(),
        LocalBoardOptions { state_cap: cap, snapshot_budget: 1 << 16, ..LocalBoardOptions::default() },
    );
    let mut game = Game::with_board(&fen, options, board).map_err(|e| game_error(0, e))?;
    let mut timings = Timings::default();
    let mut steps: Vec<Step> = Vec::new();
    let mut next_k = min_k;
    let mut peak = (0usize, 0usize);
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
    let cap_error = check_cap(&mut game, cap)?;

    let mut report = WorkloadReport::named("growth").with_summary(timings.summary());
    report.peak_states = Some(peak.0 as u64);
    report.bytes_per_state = Some(peak.1 as f64 / peak.0.max(1) as f64);
    report.details = json!({
        "steps": steps.iter().map(|s| json!({
            "k": s.k,
            "states": s.states,
            "gates": s.gates,
            "move_us": round(s.move_us, 1),
            "ns_per_state_per_gate": round(s.move_us * 1000.0 / (s.states as f64 * s.gates.max(1) as f64), 2),
            "bytes_per_state": round(s.bytes_per_state, 1),
        })).collect::<Vec<_>>(),
        "state_cap": cap,
        "cap_error": cap_error,
        "plies": game.moves().len(),
    });
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
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
        let report = run(4, 8).expect("grows");
        let steps = report.details["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), 5);
        for (step, k) in steps.iter().zip(4..) {
            assert_eq!(step["k"], k);
            assert!(step["states"].as_u64().is_some_and(|n| n >= 1 << k));
        }
        let cap_error = report.details["cap_error"].as_str().expect("cap error text");
        assert!(cap_error.contains("more than the limit of 384"), "{cap_error}");
        assert!(report.peak_states.is_some_and(|n| n <= 384));
    }
}
