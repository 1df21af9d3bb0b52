//! What the service answers about a game, as JSON: its state, its legal moves, a square's
//! analysis, a stored game's summary and its waiting move.

use qchess_core::{Color, LegalMove, MoveSquares, Piece, Role, Square};
use qchess_engine::analysis::{BELL_STATE_NAMES, BellCorrelations, log_negativity};
use qchess_engine::{Game, GameError, PlayedMove};
use serde_json::{Map, Value, json};

use qchess_store::{ClockRow, GameSummary, JobRow, Offer, PendingMove};

use crate::error::{GamesError, game_error};
use crate::session::Session;

/// Log negativities below this are rounding, not entanglement.
const ENTANGLED: f64 = 1e-9;

/// Probabilities this close to 0 or 1 are certain.
const CERTAIN: f64 = 1e-12;

impl Session {
    /// The state of the game, drawn afresh ([`Session::state`] keeps the last one): squares,
    /// moves, result, captured material and entangled pairs.
    pub(crate) fn draw(&mut self) -> Value {
        let clock = self.clock.as_ref().map(clock);
        let offers: Vec<Value> = self.live_offers().map(offer).collect();
        let players = [self.players[0].to_string(), self.players[1].to_string()];
        let to_move_player = self.player(self.game.turn()).to_string();
        let game = &mut self.game;
        let squares = squares(game);
        let moves: Vec<Value> = game.moves().iter().enumerate().map(|(ply, played)| played_move(ply, played)).collect();
        let end = game.end();
        let turn = game.turn();
        let (links, links_error) = match links(game) {
            Ok(links) => (links, None),
            Err(error) => (Vec::new(), Some(error.to_string())),
        };
        json!({
            "rules": game.options().rules.name(),
            "backend": self.backend_label,
            "exact": game.is_exact(),
            "seed": game.options().seed,
            "white": players[0],
            "black": players[1],
            "to_move": turn.to_string(),
            "to_move_player": to_move_player,
            "ply": game.ply(),
            "fifty_move_counter": game.fifty_move_counter(),
            "fen": game.position().to_fen().to_string(),
            "result": game.result().token(),
            "reason": end.map(|e| e.reason.text()),
            "code": end.map(|e| e.code.name()),
            "over": end.is_some(),
            "squares": squares,
            "moves": moves,
            "last_move": moves.last().cloned(),
            "captured": captured(game),
            "links": links,
            "links_error": links_error,
            "state_size": game.state_size(),
            "quantum_mode": game.quantum_mode(),
            "clock": clock,
            "offers": offers,
        })
    }

    /// The legal moves of the side to move.
    pub fn legal_moves(&mut self) -> Result<Value, GamesError> {
        self.refresh()?;
        Ok(legal_moves(&self.game))
    }

    /// The analysis of one square.
    pub fn square(&mut self, square: Square) -> Result<Value, GamesError> {
        self.refresh()?;
        square_analysis(&mut self.game, square).map_err(game_error)
    }
}

/// Each square's piece and probability: `{"e4": {"piece": "P", "probability": 0.5}, ...}`.
pub(crate) fn squares(game: &Game) -> Value {
    let squares: Map<String, Value> = Square::ALL
        .into_iter()
        .map(|square| {
            let piece = game.piece_at(square).map(|p| p.char().to_string());
            (square.to_string(), json!({ "piece": piece, "probability": game.probability(square) }))
        })
        .collect();
    Value::Object(squares)
}

/// A game's clocks: each side's time left as of `since`, the side whose clock runs from then,
/// and when its time runs out. A board counts the running side down from `deadline` (with the
/// answer's `server_time` to correct its own clock).
fn clock(clock: &ClockRow) -> Value {
    json!({
        "control": clock.control().to_string(),
        "base_ms": clock.base_ms,
        "increment_ms": clock.increment_ms,
        "white_ms": clock.white_ms,
        "black_ms": clock.black_ms,
        "running": clock.running_side().map(|side| side.to_string()),
        "since": clock.since,
        "deadline": clock.deadline(),
    })
}

/// An offer waiting for the opponent's answer.
fn offer(offer: &Offer) -> Value {
    json!({
        "kind": offer.kind,
        "by": offer.side,
        "plies": (offer.kind == "takeback").then_some(offer.plies),
        "ply": offer.ply,
        "made_at": offer.made_at,
    })
}

/// A waiting move: what was entered, since when, and its job as the provider last told.
pub fn pending(summary: &GameSummary, pending: &PendingMove) -> Value {
    json!({
        "move": pending.input,
        "seq": pending.seq,
        "since": pending.started_at,
        "status": summary.status(),
        "message": pending.message,
        "job": summary.waiting_job.as_ref().map(JobRow::to_json),
    })
}

/// A stored game as listed.
pub fn summary(game: &GameSummary) -> Value {
    json!({
        "id": game.id,
        "rules": game.rules,
        "white": game.white,
        "black": game.black,
        "backend": game.backend_label,
        "result": game.result,
        "to_move": game.to_move,
        "ply": game.ply,
        "over": game.is_over(),
        "waiting": game.pending.is_some(),
        "status": game.status(),
        "archived": game.archived,
        "created_at": game.created_at,
        "updated_at": game.updated_at,
        "revision": game.revision,
    })
}

fn played_move(ply: usize, played: &PlayedMove) -> Value {
    json!({
        "ply": ply + 1,
        "move": played.notation.to_string(),
        "piece": played.mover.char().to_string(),
        "type": played.typed.move_type.name(),
        "variant": played.typed.variant.name(),
        "squares": squares_of(&played.notation.squares),
        "outcome": played.report.outcome.map(u8::from),
        "outcome_probability": played.report.outcome_probability,
        "proceeded": played.report.proceeded,
        "code": played.code.name(),
    })
}

/// `{"from": [..], "to": [..]}` of a move.
fn squares_of(squares: &MoveSquares) -> Value {
    let names = |list: Vec<Square>| list.into_iter().map(|s| s.to_string()).collect::<Vec<_>>();
    json!({ "from": names(squares.sources()), "to": names(squares.targets()) })
}

/// Expected material each side has lost since the start: per piece letter, the start's count
/// minus the probability summed over the squares now labelled with that piece. Pieces gained by
/// promotion are pawns that were not lost, so they are taken off the pawns' count.
fn captured(game: &Game) -> Value {
    let mut result = Map::new();
    let start_position = qchess_core::Position::from_fen(game.start_fen()).ok();
    for color in [Color::White, Color::Black] {
        let missing = |role: Role| {
            let piece = Piece::new(color, role);
            let before = start_position.as_ref().map_or(0, |p| p.squares_of(piece).count()) as f64;
            let now: f64 = game.position().squares_of(piece).into_iter().map(|s| game.probability(s)).sum();
            before - now
        };
        let officers = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];
        let promoted: f64 = officers.iter().map(|&role| (-missing(role)).max(0.0)).sum();
        let mut lost = Vec::new();
        for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn, Role::King] {
            let amount = if role == Role::Pawn { missing(role) - promoted } else { missing(role) };
            if amount > CERTAIN {
                lost.push(json!({ "piece": Piece::new(color, role).char().to_string(), "amount": amount }));
            }
        }
        result.insert(color.to_string(), Value::Array(lost));
    }
    Value::Object(result)
}

/// Basis states times square pairs that one state answer may spend on finding entangled pairs.
const LINK_BUDGET: usize = 2_000_000;

/// Why links were not computed.
enum LinksSkipped {
    /// The state is too large to pair up every quantum square in one answer.
    TooLarge { squares: usize, states: usize },
    /// The board cannot answer two-square density matrices.
    Board(GameError),
}

impl std::fmt::Display for LinksSkipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinksSkipped::TooLarge { squares, states } => write!(
                f,
                "{squares} squares in superposition over {states} basis states are too many to pair up in every answer; analyse one square for its links"
            ),
            LinksSkipped::Board(error) => f.write_str(&qchess_core::text::with_causes(error)),
        }
    }
}

/// Every entangled pair of squares with its log negativity.
fn links(game: &mut Game) -> Result<Vec<Value>, LinksSkipped> {
    let quantum: Vec<Square> = game.position().superposed().into_iter().collect();
    let pairs = quantum.len() * quantum.len().saturating_sub(1) / 2;
    let states = game.state_size();
    if pairs.saturating_mul(states.max(1)) > LINK_BUDGET {
        return Err(LinksSkipped::TooLarge { squares: quantum.len(), states });
    }
    let mut links = Vec::new();
    for (index, &first) in quantum.iter().enumerate() {
        for &second in &quantum[index + 1..] {
            let density = game.pair_density(first, second).map_err(LinksSkipped::Board)?;
            let negativity = log_negativity(&density);
            if negativity > ENTANGLED {
                links.push(json!({ "a": first.to_string(), "b": second.to_string(), "negativity": negativity }));
            }
        }
    }
    Ok(links)
}

/// The legal moves, each with its kind for the board's click targets.
fn legal_moves(game: &Game) -> Value {
    let moves: Vec<Value> = game.legal_moves().iter().map(legal_move).collect();
    json!({ "to_move": game.turn().to_string(), "over": game.is_over(), "moves": moves })
}

fn legal_move(mv: &LegalMove) -> Value {
    let kind = match mv.notation.squares {
        MoveSquares::Standard { .. } => "standard",
        MoveSquares::Split { .. } => "split",
        MoveSquares::Merge { .. } => "merge",
    };
    json!({
        "move": mv.notation.to_string(),
        "kind": kind,
        "type": mv.move_type().name(),
        "variant": mv.variant().name(),
        "squares": squares_of(&mv.notation.squares),
        "promotion": mv.notation.promotion.map(|role| role.char().to_string()),
    })
}

/// The analysis of one square: entanglement and Bell correlations with the other quantum
/// squares, and every square's probability if this one were measured occupied or empty.
fn square_analysis(game: &mut Game, square: Square) -> Result<Value, GameError> {
    let probability = game.probability(square);
    let quantum = game.position().superposed();
    let mut entanglement = Map::new();
    let mut bell = Map::new();
    let mut correlations_error = None;
    if quantum.contains(square) {
        for other in quantum {
            if other == square {
                continue;
            }
            // A sampling board has no density matrices; its preview below still works.
            let density = match game.pair_density(square, other) {
                Ok(density) => density,
                Err(error) => {
                    correlations_error = Some(error.to_string());
                    entanglement.clear();
                    bell.clear();
                    break;
                }
            };
            let negativity = log_negativity(&density);
            if negativity > ENTANGLED {
                entanglement.insert(other.to_string(), json!(negativity));
            }
            let correlations = BellCorrelations::from_density(&density);
            let named: Map<String, Value> = BELL_STATE_NAMES
                .iter()
                .zip(correlations.values)
                .map(|(name, v)| ((*name).to_owned(), json!(v)))
                .collect();
            bell.insert(other.to_string(), Value::Object(named));
        }
    }
    let distribution = game.distribution()?;
    let mut preview = Map::new();
    for (name, occupied) in [("occupied", true), ("empty", false)] {
        let mut weight = 0.0;
        let mut per_square = [0.0; 64];
        for (board, p) in &distribution {
            if board.contains(square) == occupied {
                weight += p;
                for s in *board {
                    per_square[usize::from(s)] += p;
                }
            }
        }
        let value = if weight > CERTAIN {
            let probabilities: Map<String, Value> =
                Square::ALL.into_iter().map(|s| (s.to_string(), json!(per_square[usize::from(s)] / weight))).collect();
            json!({ "probability": weight, "probabilities": probabilities })
        } else {
            Value::Null
        };
        preview.insert(name.to_owned(), value);
    }
    Ok(json!({
        "square": square.to_string(),
        "piece": game.piece_at(square).map(|p| p.char().to_string()),
        "probability": probability,
        "entanglement": entanglement,
        "bell": bell,
        "correlations_error": correlations_error,
        "preview": preview,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_promoted_pawn_is_not_lost() {
        let fen = "4k3/P7/8/8/8/8/1p6/4K3 w - - 0 1".parse().expect("FEN");
        let mut game = Game::new(&fen, Default::default()).expect("game");
        game.play("a7a8q").expect("promotes");
        game.play("b2b1n").expect("promotes");
        assert_eq!(captured(&game), json!({ "white": [], "black": [] }));
        game.play("a8e8").expect("takes the king");
        assert_eq!(captured(&game)["black"], json!([{ "piece": "k", "amount": 1.0 }]));
    }
}
