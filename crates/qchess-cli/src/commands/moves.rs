//! `qchess moves`: every legal move of a position, with its type and variant.

use anyhow::Result;
use qchess_core::{Color, PositionSpec};
use qchess_engine::{GameOptions, RuleSet};

use crate::backend::BackendArgs;
use crate::commands::game::new_game;
use crate::exit::bad_input_at;
use crate::output::print;

/// Flags of `qchess moves`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The position: `startpos` or `fen <FEN>`, optionally followed by `moves ...` in official
    /// notation (the word `position` may lead).
    #[arg(long, default_value = "startpos", value_name = "POSITION")]
    position: String,
    /// Seed of the measurement outcomes that the position's moves do not force.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The rules: official, classical, observer or checkmate.
    #[arg(long, default_value = "official", value_name = "RULES")]
    rules: RuleSet,
}

/// Runs `qchess moves`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let spec: PositionSpec = args.position.parse().map_err(|e| bad_input_at("--position", e))?;
    let game = new_game(
        &spec,
        GameOptions { seed: args.seed, rules: args.rules, ..GameOptions::default() },
        &BackendArgs::local(),
    )?;
    let position = game.position();
    let moves = game.legal_moves();
    // Moves that are no single typed move: the observer rules' pairs (`e5e8|c2c7`).
    let pairs: Vec<String> = game
        .legal_notations()
        .iter()
        .filter(|n| matches!(n, qchess_core::Notation::Pair(..)))
        .map(ToString::to_string)
        .collect();
    if json {
        let mut list = serde_json::to_value(&moves)?;
        if let Some(list) = list.as_array_mut() {
            list.extend(pairs.iter().map(|pair| serde_json::json!({"move": pair, "type": "PAIR", "variant": "BASIC"})));
        }
        return print(&format!("{list}\n"));
    }
    let side = match position.turn() {
        Color::White => "White",
        Color::Black => "Black",
    };
    let mut text = format!("{} legal moves, {side} to move ({position}):\n", moves.len() + pairs.len());
    for mv in &moves {
        let line = format!("  {:<12} {:<14} {}\n", mv.to_string(), mv.move_type().name(), mv.variant().name());
        text.push_str(&line);
    }
    for pair in &pairs {
        text.push_str(&format!("  {pair:<12} PAIR\n"));
    }
    print(&text)
}
