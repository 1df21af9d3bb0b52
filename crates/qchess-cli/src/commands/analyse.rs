//! `qchess analyse`: every move of a recorded game judged by the search (see
//! `qchess_search::analysis`): the value before and after it for the mover, the best
//! alternative, the expected score it gave away, and inaccuracies, mistakes and blunders
//! marked. A record that cannot be read or replayed is bad input (exit code 2).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use qchess_core::Color;
use qchess_engine::record::{FileError, GameRecord};
use qchess_search::analysis::{AnalysisError, Judgement, MoveReview, review_game};
use qchess_search::{CERTAIN_WIN, SearchConfig, SearchControl, SearchLimits, WIN};
use serde_json::{Value, json};

use crate::exit::{bad_input, bad_input_at};
use crate::output::print;

/// Flags of `qchess analyse`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The game record to analyse (as `qchess game --save` or `qchess match --save` write).
    #[arg(long, value_name = "FILE")]
    record: PathBuf,
    /// Thinking time per position, in milliseconds.
    #[arg(long, default_value_t = 500, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=600_000))]
    movetime: u64,
    /// Search every position exactly this many plies deep instead (1 to 8).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=8))]
    depth: Option<u32>,
}

/// Runs `qchess analyse`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let record = GameRecord::load(&args.record).map_err(|e| match e {
        FileError::Io { .. } | FileError::Parse { .. } => bad_input(e),
    })?;
    let limits = match args.depth {
        Some(depth) => SearchLimits::depth(depth),
        None => SearchLimits::movetime(Duration::from_millis(args.movetime)),
    };
    let reviews = review_game(&record, SearchConfig::default(), &limits, &SearchControl::new(), &mut |_| {}).map_err(
        |e| match e {
            AnalysisError::Replay(_) => bad_input_at(format!("--record {}", args.record.display()), e),
            other => anyhow::Error::new(other),
        },
    )?;
    let limit = match args.depth {
        Some(depth) => format!("{depth} plies per position"),
        None => format!("{} ms per position", args.movetime),
    };
    if json {
        let moves: Vec<Value> = reviews.iter().map(review_json).collect();
        let summary =
            json!({ "white": summary_json(&reviews, Color::White), "black": summary_json(&reviews, Color::Black) });
        let value =
            json!({ "record": args.record.display().to_string(), "limit": limit, "moves": moves, "summary": summary });
        return print(&format!("{value:#}\n"));
    }
    let mut text = format!("{}: {} moves judged, {limit}\n", args.record.display(), reviews.len());
    text.push_str("  ply  move             before   after  best                 loss  judgement\n");
    for review in &reviews {
        let best =
            review.best.map(|mv| format!("{} ({})", mv, review.best_value.map_or_else(|| "?".to_owned(), value_text)));
        let _ = writeln!(
            text,
            "{:>5}  {:<15} {:>7} {:>7}  {:<18} {:>5.1}%  {}",
            review.ply,
            review.played.to_string(),
            value_text(review.before),
            value_text(review.after),
            best.unwrap_or_default(),
            100.0 * review.loss,
            if review.judgement.is_marked() { review.judgement.to_string() } else { String::new() },
        );
    }
    for (color, name) in [(Color::White, "White"), (Color::Black, "Black")] {
        let summary = Summary::of(&reviews, color);
        let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let _ = writeln!(
            text,
            "{name}: {}, {}, {}; mean loss {:.1}% over {}",
            count(summary.inaccuracies, "inaccuracy", "inaccuracies"),
            count(summary.mistakes, "mistake", "mistakes"),
            count(summary.blunders, "blunder", "blunders"),
            100.0 * summary.mean_loss,
            count(summary.moves, "move", "moves"),
        );
    }
    text.push_str(
        "Values are for the side that moved, in pawns; #+N / #-N: its king captures / is captured in N plies.\n",
    );
    print(&text)
}

/// A value in pawns, or `#+N` / `#-N` for a certain king capture N plies on.
fn value_text(value: f64) -> String {
    if value.abs() >= CERTAIN_WIN {
        let plies = (WIN - value.abs()).round();
        format!("#{}{plies}", if value > 0.0 { '+' } else { '-' })
    } else {
        format!("{:+.2}", value / 100.0)
    }
}

/// One side's marks.
struct Summary {
    moves: usize,
    inaccuracies: usize,
    mistakes: usize,
    blunders: usize,
    mean_loss: f64,
}

impl Summary {
    fn of(reviews: &[MoveReview], color: Color) -> Summary {
        let mine: Vec<&MoveReview> = reviews.iter().filter(|r| r.mover == color).collect();
        let count = |judgement: Judgement| mine.iter().filter(|r| r.judgement == judgement).count();
        Summary {
            moves: mine.len(),
            inaccuracies: count(Judgement::Inaccuracy),
            mistakes: count(Judgement::Mistake),
            blunders: count(Judgement::Blunder),
            mean_loss: mine.iter().map(|r| r.loss).sum::<f64>() / mine.len().max(1) as f64,
        }
    }
}

fn summary_json(reviews: &[MoveReview], color: Color) -> Value {
    let summary = Summary::of(reviews, color);
    json!({
        "moves": summary.moves,
        "inaccuracies": summary.inaccuracies,
        "mistakes": summary.mistakes,
        "blunders": summary.blunders,
        "mean_loss": summary.mean_loss,
    })
}

/// One judged move as JSON (values in centipawns for the mover).
pub fn review_json(review: &MoveReview) -> Value {
    json!({
        "ply": review.ply,
        "mover": review.mover.to_string().to_lowercase(),
        "move": review.played.to_string(),
        "before": review.before,
        "after": review.after,
        "best": review.best.map(|mv| mv.to_string()),
        "best_value": review.best_value,
        "loss": review.loss,
        "judgement": review.judgement.to_string(),
        "depth": review.depth,
    })
}
