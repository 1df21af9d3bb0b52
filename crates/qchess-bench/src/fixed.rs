//! Three fixed games from the start position, replayed many times with every measurement
//! outcome forced, each checked against values derived by hand.
//!
//! * `splits-merges`: four knights split and merge back, with no measurement; the halves
//!   interfere and every knight is home with certainty.
//! * `opening`: a pawn capture, capture slides, a split and a knight capture from a
//!   superposed square (m1 with probability 1/2).
//! * `measured-captures`: captures from superposed squares that fail (m0, probability 1/2)
//!   and succeed (m1, probabilities 1/2 and 1/4: a split of a half-present knight).
//!
//! Each sequence ends fully classical, so its final board is pinned as a FEN placement.

use std::time::Instant;

use qchess_core::text::with_causes;
use qchess_core::{Fen, Notation, Square};
use qchess_engine::Game;
use serde_json::json;

use crate::error::BenchError;
use crate::report::WorkloadReport;
use crate::stats::Timings;

/// Largest difference allowed from a pinned probability.
const PINNED_TOLERANCE: f64 = 1e-12;

/// One fixed sequence with its pinned results.
struct Sequence {
    name: &'static str,
    moves: &'static str,
    /// Per move: the measurement outcome and its probability, when the move measured a qubit.
    outcomes: &'static [Option<(bool, f64)>],
    /// The board at the end (every square certain).
    placement: &'static str,
}

const SEQUENCES: [Sequence; 3] = [
    Sequence {
        name: "splits-merges",
        moves: "b1^a3c3 g8^f6h6 g1^f3h3 b8^a6c6 a3c3^b1 f6h6^g8 f3h3^g1 a6c6^b8",
        outcomes: &[None; 8],
        placement: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
    },
    Sequence {
        name: "opening",
        moves: "e2e4 d7d5 e4xd5 d8xd5 b1c3 d5xa2 g1^f3h3 e7e5 f3xe5.m1 a2xa1",
        outcomes: &[None, None, None, None, None, None, None, None, Some((true, 0.5)), None],
        placement: "rnb1kbnr/ppp2ppp/8/4N3/8/2N5/1PPP1PPP/q1BQKB1R",
    },
    Sequence {
        name: "measured-captures",
        moves: "b1^a3c3 d7d5 c3xd5.m0 e7e5 g1^f3h3 g8^f6h6 f3xe5.m1 f6^e4g4 d2d3 e4xf2.m1",
        outcomes: &[
            None,
            None,
            Some((false, 0.5)),
            None,
            None,
            None,
            Some((true, 0.5)),
            None,
            None,
            Some((true, 0.25)),
        ],
        placement: "rnbqkb1r/ppp2ppp/8/3pN3/8/N2P4/PPP1PnPP/R1BQKB1R",
    },
];

/// Plays each sequence `repetitions` times, timing every move.
pub(crate) fn run(repetitions: usize) -> Result<WorkloadReport, BenchError> {
    let parsed: Vec<Vec<Notation>> = SEQUENCES
        .iter()
        .map(|sequence| {
            sequence
                .moves
                .split_whitespace()
                .map(|text| {
                    text.parse().map_err(|error| unpinned(sequence, 0, format!("move {text} does not parse: {error}")))
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let total_moves: usize = parsed.iter().map(Vec::len).sum();
    let mut timings = Timings::with_capacity(total_moves * repetitions);
    let (mut peak_states, mut peak_bytes) = (0, 0);
    let started = Instant::now();
    for repetition in 0..repetitions {
        for (sequence, moves) in SEQUENCES.iter().zip(&parsed) {
            let mut game = Game::standard();
            for (index, notation) in moves.iter().enumerate() {
                let before = Instant::now();
                let played = game.play_notation(notation);
                timings.push(before.elapsed());
                let played = played.map_err(|error| {
                    unpinned(sequence, repetition, format!("move {notation}: {}", with_causes(&error)))
                })?;
                let expected = sequence.outcomes.get(index).copied().flatten();
                let got =
                    played.report.outcome_probability.and(played.report.outcome).zip(played.report.outcome_probability);
                let matches = match (expected, got) {
                    (None, None) => true,
                    (Some((outcome, p)), Some((got_outcome, got_p))) => {
                        outcome == got_outcome && (p - got_p).abs() <= PINNED_TOLERANCE
                    }
                    _ => false,
                };
                if !matches {
                    return Err(unpinned(
                        sequence,
                        repetition,
                        format!("move {notation}: outcome {got:?}, pinned {expected:?}"),
                    ));
                }
                if game.state_size() > peak_states {
                    peak_states = game.state_size();
                    peak_bytes = game.local_board().map_or(0, |board| board.state().heap_bytes());
                }
            }
            check_final(sequence, repetition, &game)?;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let mut report = WorkloadReport::named("fixed").with_summary(timings.summary());
    report.games_per_s = Some((repetitions * SEQUENCES.len()) as f64 / seconds.max(f64::MIN_POSITIVE));
    report.peak_states = Some(peak_states as u64);
    report.bytes_per_state = (peak_states > 0).then(|| peak_bytes as f64 / peak_states as f64);
    report.details = json!({
        "sequences": SEQUENCES.iter().map(|s| s.name).collect::<Vec<_>>(),
        "repetitions": repetitions,
        "moves_per_repetition": total_moves,
        "pinned": "measurement outcomes and their probabilities, final boards",
    });
    Ok(report)
}

/// The final board must be the pinned placement, every square certain.
fn check_final(sequence: &Sequence, repetition: usize, game: &Game) -> Result<(), BenchError> {
    let pinned: Fen = format!("{} w - - 0 1", sequence.placement)
        .parse()
        .map_err(|error| unpinned(sequence, repetition, format!("pinned placement does not parse: {error}")))?;
    let fen = game.position().to_fen().to_string();
    let placement = fen.split(' ').next().unwrap_or_default();
    if placement != sequence.placement {
        return Err(unpinned(sequence, repetition, format!("final board {placement}, pinned {}", sequence.placement)));
    }
    let occupancy = pinned.occupancy();
    for square in Square::ALL {
        let expected = f64::from(u8::from(occupancy.contains(square)));
        let got = game.probability(square);
        if (got - expected).abs() > PINNED_TOLERANCE {
            return Err(unpinned(sequence, repetition, format!("{square} has probability {got}, pinned {expected}")));
        }
    }
    Ok(())
}

fn unpinned(sequence: &Sequence, repetition: usize, what: String) -> BenchError {
    BenchError::Unpinned { sequence: sequence.name.to_owned(), repetition, what }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sequence_matches_its_pins() {
        let report = run(2).expect("pinned values hold");
        assert_eq!(report.moves, Some(2 * (8 + 10 + 10)));
        assert!(report.peak_states.is_some_and(|n| n >= 4), "{:?}", report.peak_states);
    }

    #[test]
    fn outcome_lists_cover_every_move() {
        for sequence in &SEQUENCES {
            assert_eq!(sequence.outcomes.len(), sequence.moves.split_whitespace().count(), "{}", sequence.name);
        }
    }
}
