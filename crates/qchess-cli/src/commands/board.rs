//! `qchess board`: runs typed moves on the exact local occupancy board and prints the
//! distribution over boards, every square's probability and each move's result.
//!
//! Like the official engine's external quantum resource, the board checks no chess legality: it
//! applies the circuit of the given type to the given squares. Only malformed moves and a bad
//! `--init` are input errors (exit code 2).

use std::fmt::Write as _;

use anyhow::Context as _;
use qchess_core::text::excerpt;
use qchess_core::{Bitboard, BoardError, QuantumBoard, Square, TypedMove};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use serde_json::{Map, Value, json};

use crate::exit::{bad_input, bad_input_at};

/// Flags of `qchess board`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Initial occupancy: a u64 bitboard with a1 as bit 0 (decimal or 0x hex), or comma-separated
    /// squares such as `b1,g1,e2`.
    #[arg(long)]
    init: String,
    /// Typed moves separated by spaces, such as "b1^a3c3:SPLIT_JUMP:BASIC c3e4.m1:JUMP:CAPTURE".
    #[arg(long, default_value = "")]
    moves: String,
    /// Seed of the generator that draws measurement outcomes not forced with .m0 / .m1.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Runs `qchess board`.
pub fn run(args: Args, json: bool) -> anyhow::Result<()> {
    let occupancy =
        parse_init(&args.init).map_err(|e| bad_input(format!("bad --init `{}`: {e}", excerpt(&args.init))))?;
    let mut board = LocalBoard::with_options(occupancy, LocalBoardOptions { seed: args.seed, ..Default::default() });
    for (index, text) in args.moves.split_whitespace().enumerate() {
        let mv: TypedMove = text.parse().map_err(|e| bad_input(format!("move {}: {e}", index + 1)))?;
        board.apply(&mv).map_err(|e| move_error(index + 1, text, e))?;
    }
    let probabilities = board.square_probabilities().context("reading square probabilities")?;
    let distribution = board.distribution().context("reading the distribution")?;
    let output = if json {
        json_output(&board, &probabilities.probabilities, &distribution)
    } else {
        human_output(&board, &probabilities.probabilities, &distribution)
    };
    print!("{output}");
    Ok(())
}

/// Errors that say the move itself is wrong are input errors; the rest are runtime failures.
pub fn move_error(number: usize, text: &str, error: BoardError) -> anyhow::Error {
    match error {
        BoardError::InvalidMove { .. } | BoardError::NoMeasurement { .. } | BoardError::ImpossibleOutcome { .. } => {
            bad_input_at(format!("move {number} `{}`", excerpt(text)), error)
        }
        other => anyhow::Error::new(other).context(format!("move {number} `{}`", excerpt(text))),
    }
}

/// A u64 (decimal or `0x` hex) or comma-separated square names.
pub fn parse_init(text: &str) -> Result<Bitboard, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("expected a u64 bitboard (decimal or 0x hex) or comma-separated squares like b1,g1".to_owned());
    }
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16).map(Bitboard).map_err(|e| format!("not a hexadecimal u64 ({e})"));
    }
    if text.bytes().all(|b| b.is_ascii_digit()) {
        return text.parse::<u64>().map(Bitboard).map_err(|e| format!("not a u64 ({e})"));
    }
    let mut occupancy = Bitboard::EMPTY;
    for name in text.split(',').map(str::trim) {
        let square: Square = name.parse().map_err(|e| format!("{e}"))?;
        if occupancy.contains(square) {
            return Err(format!("{square} is listed twice"));
        }
        occupancy = occupancy.with(square);
    }
    Ok(occupancy)
}

fn recorded_moves(board: &LocalBoard) -> Vec<Value> {
    board
        .history()
        .iter()
        .map(|applied| {
            json!({
                "move": applied.mv.to_string(),
                "proceeded": applied.report.proceeded,
                "outcome_probability": applied.report.outcome_probability,
            })
        })
        .collect()
}

fn json_output(board: &LocalBoard, probabilities: &[f64; 64], distribution: &[(Bitboard, f64)]) -> String {
    let boards: Vec<Value> = distribution.iter().map(|(b, p)| json!({"bitboard": b.0, "probability": p})).collect();
    let squares: Map<String, Value> =
        Square::ALL.iter().map(|&sq| (sq.to_string(), json!(probabilities[usize::from(sq)]))).collect();
    let value = json!({"boards": boards, "square_probabilities": squares, "moves": recorded_moves(board)});
    format!("{value}\n")
}

/// Probabilities drawn from White's side, then the moves and the most likely boards.
fn human_output(board: &LocalBoard, probabilities: &[f64; 64], distribution: &[(Bitboard, f64)]) -> String {
    let mut out = String::new();
    for rank in (0..8u8).rev() {
        let _ = write!(out, "{} ", rank + 1);
        for file in 0..8u8 {
            let p = Square::from_coords(file, rank).map_or(0.0, |sq| probabilities[usize::from(sq)]);
            let cell = if p.abs() < 1e-12 {
                "  .  ".to_owned()
            } else if (p - 1.0).abs() < 1e-12 {
                "  1  ".to_owned()
            } else {
                format!(" {p:.2}")
            };
            out.push_str(&cell);
        }
        out.push('\n');
    }
    out.push_str("    a    b    c    d    e    f    g    h\n");
    for (index, applied) in board.history().iter().enumerate() {
        let report = applied.report;
        let status = if report.proceeded { "proceeded" } else { "did not proceed" };
        let chance = report.outcome_probability.map_or(String::new(), |p| format!(" (outcome probability {p:.6})"));
        let _ = writeln!(out, "{}. {} {status}{chance}", index + 1, applied.mv);
    }
    let shown = distribution.len().min(8);
    let _ = writeln!(
        out,
        "{} board(s) with nonzero probability{}",
        distribution.len(),
        if shown < distribution.len() { ", most likely:" } else { ":" }
    );
    for (bitboard, p) in &distribution[..shown] {
        let squares: Vec<String> = bitboard.iter().map(|sq| sq.to_string()).collect();
        let _ = writeln!(out, "  {p:.6}  {:#018x}  {}", bitboard.0, squares.join(" "));
    }
    out
}
