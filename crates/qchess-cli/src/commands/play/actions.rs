//! The session's commands besides moves: undo, resign, mode changes, save, load and analyse.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use qchess_core::Square;
use qchess_core::text::with_causes;
use qchess_engine::analysis::BELL_STATE_NAMES;
use qchess_engine::diagram::percent;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_search::player::PlayerSpec;
use serde_json::{Value, json};

use super::super::clock::clock_comment;
use super::super::game::game_error;
use super::super::stored::{NewStored, StoredPlay};
use super::{Session, play_error, player_name};

impl<W: Write> Session<W> {
    pub(super) fn undo(&mut self) -> Result<()> {
        if self.game.moves().is_empty() {
            return self.error("there is no move to undo");
        }
        // Against the computer, take its reply back too, so it is a person's turn again.
        let mut plies = 1;
        let mover_after = |game: &qchess_engine::Game, back: usize| {
            let moves = game.moves();
            moves.get(moves.len().saturating_sub(back)).map(|m| m.mover.color)
        };
        while self.has_human() && plies < self.game.moves().len() {
            let next_to_move = mover_after(&self.game, plies);
            match next_to_move {
                Some(color) if self.players[usize::from(color == qchess_core::Color::Black)] != PlayerSpec::Human => {
                    plies += 1;
                }
                _ => break,
            }
        }
        let backend = self.backend.clone();
        let taken = match self.stored.undo(&mut self.game, plies, &backend) {
            Ok(taken) => taken,
            Err(error) => return self.error(&format!("{error:#}")),
        };
        self.announced_end = false;
        if let Some(clock) = &mut self.clock {
            // Taken-back plies lose their clock entries; the time used is not given back.
            for _ in &taken {
                clock.after_each_ply.pop();
            }
            clock.restart_turn();
        }
        if self.json {
            self.emit(json!({"event": "undo", "moves": taken}))?;
        } else {
            self.say(&format!("Took back {}.", taken.join(", ")))?;
        }
        self.show_board()
    }

    /// The side to move resigns; against the computer, the person does.
    pub(super) fn resign(&mut self) -> Result<()> {
        if let Some(end) = self.game.end() {
            let error = qchess_engine::GameError::GameOver { result: end.result, reason: end.reason };
            return self.error(&with_causes(&error));
        }
        let turn = self.game.turn();
        let side = if self.players[usize::from(turn == qchess_core::Color::Black)] != PlayerSpec::Human {
            !turn
        } else {
            turn
        };
        let input = qchess_store::replay::resign_input(side);
        self.stored.play(&mut self.game, &input, None).map_err(|e| play_error(e, "resign"))?;
        self.announce_end()
    }

    /// `mode:classical` / `mode:quantum`: switches the checkmate rules' quantum mode; the turn stays.
    pub(super) fn change_mode(&mut self, token: &str) -> Result<()> {
        let quantum = match qchess_engine::game::parse_mode_token(token) {
            Ok(quantum) => quantum,
            Err(error) => return self.error(&error.to_string()),
        };
        let input = qchess_engine::game::mode_token(quantum);
        match self.stored.play(&mut self.game, input, None) {
            Ok(_) => self.say(&format!("quantum mode is {}", if quantum { "on" } else { "off" })),
            Err(super::PlayError::Game(error)) => self.error(&with_causes(&error)),
            Err(other) => Err(play_error(other, "mode")),
        }
    }

    pub(super) fn save(&mut self, path: &Path) -> Result<()> {
        let info = RecordInfo {
            event: "qchess play".to_owned(),
            white: player_name(&self.players[0]),
            black: player_name(&self.players[1]),
            ..RecordInfo::default()
        }
        .dated_today();
        let mut record = GameRecord::from_game(&self.game, &info);
        if let Some(clock) = &self.clock {
            record.set_tag("TimeControl", &clock.control().tag());
            // This session's plies are the record's last ones.
            let first = record.moves.len().saturating_sub(clock.after_each_ply.len());
            for (mv, remaining) in record.moves[first..].iter_mut().zip(&clock.after_each_ply) {
                mv.comment = Some(clock_comment(*remaining));
            }
        }
        match record.save(path) {
            Ok(()) if self.json => self.emit(json!({"event": "saved", "path": path.display().to_string()})),
            Ok(()) => self.say(&format!("Saved to {}.", path.display())),
            Err(error) => self.error(&with_causes(&error)),
        }
    }

    /// Continues a saved game: it becomes a new stored game.
    pub(super) fn load(&mut self, path: &Path) -> Result<()> {
        let loaded = GameRecord::load(path).map_err(|e| with_causes(&e)).and_then(|record| {
            let options = record.options().map_err(|e| with_causes(&e))?;
            let local = qchess_sim::local_board::LocalBoardOptions { seed: options.seed, ..Default::default() };
            let board = qchess_sim::local_board::LocalBoard::with_options(qchess_core::Bitboard::EMPTY, local);
            record.replay_on(board, options).map_err(|e| format!("{}: {}", path.display(), with_causes(&e)))
        });
        let setup = match loaded {
            Ok(setup) => setup,
            Err(message) => return self.error(&message),
        };
        let new = NewStored {
            origin: "play",
            white: player_name(&self.players[0]),
            black: player_name(&self.players[1]),
            backend: &self.backend,
            info: RecordInfo { event: "qchess play".to_owned(), ..RecordInfo::default() }.dated_today(),
            options: json!({}),
        };
        match StoredPlay::create(self.stored.keeper.clone(), new, &setup) {
            Ok((stored, game)) => {
                self.stored = stored;
                self.game = game;
                self.announced_end = false;
                if !self.json {
                    let (ply, id) = (self.game.ply(), self.stored.id.clone());
                    self.say(&format!("Loaded {} ({ply} plies), kept as game {id}.", path.display()))?;
                }
                self.show_board()
            }
            Err(error) => self.error(&format!("{error:#}")),
        }
    }

    pub(super) fn analyse(&mut self, name: &str) -> Result<()> {
        let square: Square = match name.parse() {
            Ok(square) => square,
            Err(error) => return self.error(&format!("analyse: {error}")),
        };
        let entanglement = match self.game.entanglement(square) {
            Ok(values) => values,
            Err(error) => return self.error(&format!("analyse: {}", with_causes(&error))),
        };
        let mut partners: Vec<(Square, f64)> =
            Square::ALL.into_iter().map(|sq| (sq, entanglement[usize::from(sq)])).filter(|(_, v)| *v > 1e-9).collect();
        partners.sort_by(|a, b| b.1.total_cmp(&a.1));
        let bell = match partners.first() {
            Some(&(partner, _)) => {
                Some(self.game.bell_correlations(square, partner).map_err(|e| game_error(e, "analyse".to_owned()))?)
            }
            None => None,
        };
        let piece = self.game.piece_at(square);
        let probability = self.game.probability(square);
        if self.json {
            let bell = bell.map(|b| {
                json!({"with": b.second.to_string(), "values": BELL_STATE_NAMES.iter().zip(b.values).map(|(n, v)| json!({"state": n, "value": v})).collect::<Vec<_>>()})
            });
            let partners: Vec<Value> =
                partners.iter().map(|(sq, v)| json!({"square": sq.to_string(), "log_negativity": v})).collect();
            return self.emit(json!({
                "event": "analysis", "square": square.to_string(), "piece": piece.map(|p| p.char().to_string()),
                "probability": probability, "entanglement": partners, "bell": bell,
                "state_size": self.game.state_size(),
            }));
        }
        let what = piece.map_or("empty".to_owned(), |p| format!("{} {}", p.color, p.role));
        let mut text = format!("{square}: {what}, occupied with probability {}", percent(probability));
        if partners.is_empty() {
            text.push_str("\nNot entangled with any other square.");
        } else {
            let list: Vec<String> = partners.iter().map(|(sq, v)| format!("{sq} ({v:.3})")).collect();
            text.push_str(&format!("\nEntangled with (log negativity): {}", list.join(", ")));
        }
        if let Some(bell) = bell {
            let values: Vec<String> =
                BELL_STATE_NAMES.iter().zip(bell.values).map(|(n, v)| format!("{n} {v:.3}")).collect();
            text.push_str(&format!("\nBell correlations with {}: {}", bell.second, values.join(", ")));
        }
        text.push_str(&format!("\nThe quantum state holds {} basis states.", self.game.state_size()));
        self.say(&text)
    }
}
