//! `qchess perft`: leaf nodes of the classical-chess move tree.

use std::time::Instant;

use anyhow::Result;
use qchess_core::classical::{ClassicalPosition, perft, perft_divide};
use qchess_core::text::excerpt;
use qchess_core::{Fen, START_FEN};
use serde_json::json;

use crate::exit::bad_input;
use crate::output::print;

/// Deeper than this no count finishes in a lifetime (the start position has about 2e21
/// leaves at depth 15), so such a depth is treated as a typing error.
const MAX_DEPTH: u32 = 15;

/// Flags of `qchess perft`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rules to count with; only `classical` (ordinary chess with check) for now.
    #[arg(long, default_value = "classical")]
    rules: String,
    /// The position as a FEN (six fields, or the first four); the start position if left out.
    #[arg(long, value_name = "FEN")]
    fen: Option<String>,
    /// How many plies deep to count.
    #[arg(long)]
    depth: u32,
    /// Also print the count below each legal first move.
    #[arg(long)]
    divide: bool,
}

/// Runs `qchess perft`.
pub fn run(args: Args, json: bool) -> Result<()> {
    if args.rules != "classical" {
        return Err(bad_input(format!(
            "--rules `{}`: perft counts classical chess only; use --rules classical",
            excerpt(&args.rules)
        )));
    }
    if args.depth > MAX_DEPTH {
        return Err(bad_input(format!("--depth {}: at most {MAX_DEPTH}", args.depth)));
    }
    let fen_text = args.fen.as_deref().unwrap_or(START_FEN);
    let fen: Fen = fen_text.parse().map_err(|e| bad_input(format!("--fen `{}`: {e}", excerpt(fen_text))))?;
    let position =
        ClassicalPosition::from_fen(&fen).map_err(|e| bad_input(format!("--fen `{}`: {e}", excerpt(fen_text))))?;

    let started = Instant::now();
    let divided = if args.divide { perft_divide(&position, args.depth) } else { Vec::new() };
    let nodes =
        if args.divide && args.depth > 0 { divided.iter().map(|(_, n)| n).sum() } else { perft(&position, args.depth) };
    let elapsed = started.elapsed();

    if json {
        let mut report = json!({ "fen": fen.to_string(), "depth": args.depth, "nodes": nodes });
        if args.divide {
            report["divide"] = divided.iter().map(|(mv, n)| json!({ "move": mv.to_string(), "nodes": n })).collect();
        }
        return print(&format!("{report}\n"));
    }
    let mut text: String = divided.iter().map(|(mv, n)| format!("{mv}: {n}\n")).collect();
    if !divided.is_empty() {
        text.push('\n');
    }
    let seconds = elapsed.as_secs_f64();
    let rate = if seconds > 0.0 { nodes as f64 / seconds / 1e6 } else { 0.0 };
    text.push_str(&format!("perft {} of {fen}: {nodes} nodes ({seconds:.3} s, {rate:.1} M nodes/s)\n", args.depth));
    print(&text)
}
