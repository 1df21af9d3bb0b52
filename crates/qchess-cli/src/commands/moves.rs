//! `qchess moves`: every legal move of a position, with its type and variant.

use anyhow::Result;
use qchess_core::{Color, Position, PositionSpec};

use crate::exit::bad_input;

/// Flags of `qchess moves`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The position: `startpos` or `fen <FEN>` (the word `position` may lead). Positions
    /// with `moves ...` need the game engine to replay them, which is not built yet.
    #[arg(long, default_value = "startpos", value_name = "POSITION")]
    position: String,
}

/// Runs `qchess moves`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let position = start_position(&args.position)?;
    let moves = position.legal_moves();
    if json {
        return print(&format!("{}\n", serde_json::to_string(&moves)?));
    }
    let side = match position.turn() {
        Color::White => "White",
        Color::Black => "Black",
    };
    let mut text = format!("{} legal moves, {side} to move ({position}):\n", moves.len());
    for mv in &moves {
        let line = format!("  {:<12} {:<14} {}\n", mv.to_string(), mv.move_type().name(), mv.variant().name());
        text.push_str(&line);
    }
    print(&text)
}

/// Reads the position string; refuses moves after the start (each move's outcome needs a
/// quantum board), but checks the first one so an illegal move is reported as such.
fn start_position(text: &str) -> Result<Position> {
    let spec: PositionSpec = text.parse().map_err(|e| bad_input(format!("--position: {e}")))?;
    let position = Position::from_fen(&spec.start.to_fen()).map_err(|e| bad_input(format!("--position: {e}")))?;
    if let Some(first) = spec.moves.first() {
        position.validate(first).map_err(|e| bad_input(format!("--position: move 1, {e}")))?;
        return Err(bad_input(format!(
            "--position `{text}`: replaying moves needs the game engine, which is not built yet; \
             give a position without `moves`"
        )));
    }
    Ok(position)
}

/// Writes `text` to stdout. A reader that went away (`qchess ... | head`) is not an error:
/// there is nobody left to tell.
fn print(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
