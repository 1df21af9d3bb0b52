//! How a game is shown: JSON for machines, a diagram and a summary for people. Shared by
//! `qchess game`, `qchess play` and `qchess demo`.

use std::fmt::Write as _;

use qchess_core::{Color, Square};
use qchess_engine::diagram::Diagram;
use qchess_engine::{Game, PlayedMove};
use serde_json::{Map, Value, json};

/// `{"move": "b1wc3.m0", "outcome": 0, "proceeded": false, ...}` for one played move.
pub fn move_json(played: &PlayedMove) -> Value {
    json!({
        "move": played.declared.to_string(),
        "outcome": played.collapse.unwrap_or(played.report).outcome.map(u8::from),
        "proceeded": played.report.proceeded,
        "outcome_probability": played.collapse.unwrap_or(played.report).outcome_probability,
        "type": played.typed.move_type.name(),
        "variant": played.typed.variant.name(),
        "code": played.code.code(),
    })
}

/// The pieces that may stand on each square, by square name.
pub fn pieces_json(game: &Game) -> Map<String, Value> {
    Square::ALL
        .iter()
        .filter_map(|&sq| game.piece_at(sq).map(|piece| (sq.to_string(), json!(piece.char().to_string()))))
        .collect()
}

/// Every square's occupancy probability, by square name.
pub fn probabilities_json(game: &Game) -> Map<String, Value> {
    Square::ALL.iter().map(|&sq| (sq.to_string(), json!(game.probability(sq)))).collect()
}

/// "white" or "black".
pub fn side_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The whole state of a game as `qchess game --json` prints it.
pub fn game_json(game: &Game) -> Value {
    let mut value = json!({
        "pieces": pieces_json(game),
        "probabilities": probabilities_json(game),
        "moves": game.moves().iter().map(move_json).collect::<Vec<_>>(),
        "result": game.result().token(),
        "ply": game.ply(),
        "fifty_move_counter": game.fifty_move_counter(),
        "side_to_move": side_name(game.turn()),
        "castling": game.castling().to_string(),
        "en_passant": game.en_passant().map(|sq| sq.to_string()),
        "fen": game.position().to_fen().to_string(),
        "expected_piece_count": game.probabilities().expected_piece_count(),
        "state_size": game.state_size(),
    });
    if let Some(end) = game.end() {
        value["reason"] = json!(end.reason.text());
        value["code"] = json!(end.code.name());
    }
    if let Some(measured) = game.measured_board() {
        value["measured_board"] = json!(measured.iter().map(|sq| sq.to_string()).collect::<Vec<_>>());
    }
    value
}

/// The moves as movetext: `1. b1^a3c3 e7e6 2. a3c3^b5`.
pub fn movetext(game: &Game) -> String {
    let start = game.start_fen();
    let mut text = String::new();
    for (ply, played) in game.moves().iter().enumerate() {
        let offset = ply + usize::from(start.turn == Color::Black);
        let number = u64::from(start.fullmove_number.max(1)) + (offset / 2) as u64;
        if offset % 2 == 0 {
            let _ = write!(text, "{number}. ");
        } else if ply == 0 {
            let _ = write!(text, "{number}... ");
        }
        let _ = write!(text, "{} ", played.declared);
    }
    text.trim_end().to_owned()
}

/// One line on how the game stands: result, or side to move and counters.
pub fn status_line(game: &Game) -> String {
    match game.end() {
        Some(end) => {
            let measured = game.measured_board().map_or(String::new(), |board| {
                let squares: Vec<String> = board.iter().map(|sq| sq.to_string()).collect();
                format!("; every square was measured, pieces found on {}", squares.join(" "))
            });
            format!("Result: {} ({}){measured}", end.result, end.reason)
        }
        None => format!(
            "{} to move; ply {}, fifty-move counter {}, castling {}, en passant {}",
            match game.turn() {
                Color::White => "White",
                Color::Black => "Black",
            },
            game.ply(),
            game.fifty_move_counter(),
            game.castling(),
            game.en_passant().map_or("-".to_owned(), |sq| sq.to_string()),
        ),
    }
}

/// What a played move did, in words: `b1wc3.m0: measured (probability 0.5), did not proceed`.
pub fn describe_move(played: &PlayedMove) -> String {
    let measurement = played.collapse.unwrap_or(played.report);
    let measured = match (measurement.outcome, measurement.outcome_probability) {
        (Some(outcome), Some(p)) => {
            format!(", measured m{} (probability {})", u8::from(outcome), qchess_engine::diagram::percent(p))
        }
        _ => String::new(),
    };
    let proceeded = if played.report.proceeded { "" } else { "; the move did not proceed" };
    format!("{}{measured}{proceeded}", played.declared)
}

/// The diagram, the moves and the status: `qchess game`'s human output.
pub fn human(game: &Game, diagram: Diagram) -> String {
    let mut out = diagram.render(game.position());
    let moves = movetext(game);
    if !moves.is_empty() {
        let _ = writeln!(out, "Moves: {moves}");
    }
    for played in game.moves().iter().filter(|m| m.report.outcome_probability.is_some()) {
        let _ = writeln!(out, "  {}", describe_move(played));
    }
    let _ = writeln!(out, "{}", status_line(game));
    out
}
