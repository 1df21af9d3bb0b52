//! `qchess play`: an interactive game in the terminal, between people or against the computer
//! (any player `qchess match` takes: `random` or `ai`, `greedy`, `ai:K`, `uqci:COMMAND`).
//!
//! Lines are read from standard input: a move in official notation, or one of the commands
//! `help`, `moves`, `board`, `undo`, `save FILE`, `load FILE`, `analyse SQUARE`, `quit`. On a
//! terminal a prompt names the side to move; when input is a pipe no prompts are written, so a
//! script's output is just the game. End of input ends the session cleanly. With `--json` every
//! output is one JSON object per line.

use std::io::{BufRead, IsTerminal as _, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;
use qchess_core::text::{excerpt, with_causes};
use qchess_core::{Color, PositionSpec, Square};
use qchess_engine::analysis::BELL_STATE_NAMES;
use qchess_engine::diagram::{Diagram, percent};
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{EndReason, Game, GameError, GameOptions, PlayedMove, RuleSet};
use qchess_search::player::{Player as Computer, PlayerSpec};
use serde_json::{Value, json};

use super::clock::{Clock, TimeControl, clock_comment};
use super::game::{game_error, new_game, output, read_record, replay, replay_error};
use crate::backend::BackendArgs;
use crate::exit::bad_input_at;

/// Flags of `qchess play`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Who plays White: human, random (or ai), greedy, ai:0 .. ai:6, uqci:COMMAND.
    #[arg(long, default_value = "human")]
    white: PlayerSpec,
    /// Who plays Black (as --white).
    #[arg(long, default_value = "ai")]
    black: PlayerSpec,
    /// The computer's thinking time per move, in milliseconds.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    movetime: u64,
    /// Seed of the computer's choices and of the measurement outcomes.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The start: `startpos` or `fen <FEN>`, optionally followed by `moves ...`.
    #[arg(long, default_value = "startpos", value_name = "POSITION", conflicts_with = "record")]
    position: String,
    /// Continue a saved game.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Stop after this many plies in this session (for computer-only games).
    #[arg(long)]
    max_plies: Option<u32>,
    /// Draw the board with letters instead of Unicode chess symbols.
    #[arg(long)]
    ascii: bool,
    /// Where the moves run: `--backend local|ionq|URL` and the remote flags.
    #[command(flatten)]
    backend: BackendArgs,
    /// The rules of a new game: official, classical, observer or checkmate (a record keeps its own).
    #[arg(long, default_value = "official", value_name = "RULES")]
    rules: RuleSet,
    /// The checkmate rules' mode at the start: `quantum` (splits allowed) or `classical`.
    #[arg(long, default_value = "quantum", value_parser = ["quantum", "classical"])]
    mode: String,
    /// Chess clocks: minutes per side plus seconds added per move (`5+3`); a side whose time
    /// runs out loses. Clock times are saved in the record.
    #[arg(long, value_name = "MIN+SEC")]
    clock: Option<TimeControl>,
}

const HELP: &str = "\
Type a move in official notation, or a command:
  e2e4  b1^a3c3  a3c3^b5  b1xc3  b1wc3  e7e8q   moves (x: capture, w: excluded, ^: split/merge)
  moves            list the legal moves
  board            show the board
  undo             take back your last move (and the computer's reply)
  save FILE        save the game record
  load FILE        continue a saved game
  analyse SQUARE   entanglement of a square with the others
  resign           give up the game (the side to move, or the person against the computer)
  mode:classical   switch quantum mode off (checkmate rules; mode:quantum switches it on)
  quit             leave the game";

/// Runs `qchess play`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let options =
        GameOptions { rules: args.rules, quantum_mode: args.mode == "quantum", ..GameOptions::with_seed(args.seed) };
    let game = match &args.record {
        Some(path) => {
            let record = read_record(path)?;
            let options = record.options().map_err(|e| bad_input_at(path.display().to_string(), e))?;
            replay(&record, options, &args.backend)?.map_err(|e| replay_error(path, e))?
        }
        None => {
            let spec: PositionSpec = args.position.parse().map_err(|e| bad_input_at("--position", e))?;
            new_game(&spec, options, &args.backend)?
        }
    };
    let stdin = std::io::stdin();
    let interactive = stdin.is_terminal();
    let computer = |spec: &PlayerSpec, seed: u64| -> Result<Option<Computer>> {
        if *spec == PlayerSpec::Human {
            return Ok(None);
        }
        Computer::new(spec, seed).map(Some).map_err(|e| anyhow::anyhow!("{spec}: {}", with_causes(&e)))
    };
    let computers = [computer(&args.white, args.seed)?, computer(&args.black, args.seed)?];
    let mut session = Session {
        game,
        players: [args.white, args.black],
        computers,
        movetime: std::time::Duration::from_millis(args.movetime),
        out: std::io::stdout().lock(),
        interactive,
        json,
        diagram: if args.ascii { Diagram::ascii() } else { Diagram::unicode() },
        max_plies: args.max_plies,
        backend: args.backend,
        plies: 0,
        announced_end: false,
        clock: args.clock.map(Clock::new),
    };
    session.run(&mut stdin.lock())
}

/// One terminal session.
struct Session<W: Write> {
    game: Game,
    players: [PlayerSpec; 2],
    computers: [Option<Computer>; 2],
    movetime: std::time::Duration,
    out: W,
    interactive: bool,
    json: bool,
    diagram: Diagram,
    max_plies: Option<u32>,
    backend: BackendArgs,
    plies: u32,
    announced_end: bool,
    clock: Option<Clock>,
}

fn side(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl<W: Write> Session<W> {
    /// Whether the computer plays `color`.
    fn is_computer(&self, color: Color) -> bool {
        self.computers[usize::from(color == Color::Black)].is_some()
    }

    fn has_human(&self) -> bool {
        self.players.contains(&PlayerSpec::Human)
    }

    fn run(&mut self, input: &mut impl BufRead) -> Result<()> {
        if !self.json && self.interactive {
            self.say("Quantum Chess. Type `help` for the commands.")?;
        }
        self.show_board()?;
        loop {
            if self.game.is_over() {
                if !self.announced_end {
                    self.announce_end()?;
                }
                if !self.has_human() {
                    break;
                }
            } else if self.is_computer(self.game.turn()) {
                if self.max_plies.is_some_and(|max| self.plies >= max) {
                    self.say(&format!("Stopped after {} plies.", self.plies))?;
                    break;
                }
                let side = usize::from(self.game.turn() == Color::Black);
                let computer = self.computers[side].as_mut().expect("is_computer checked");
                let played = computer
                    .play(&mut self.game, self.movetime)
                    .map_err(|e| anyhow::anyhow!("the computer's move: {}", with_causes(&e)))?;
                self.plies += 1;
                if let Some(clock) = &mut self.clock {
                    clock.charge(played.mover.color);
                }
                self.announce_move(&played, true)?;
                if !self.game.is_over() && !self.is_computer(self.game.turn()) {
                    self.show_board()?;
                }
                continue;
            }
            if self.interactive && !self.json {
                let prompt =
                    if self.game.is_over() { "game over".to_owned() } else { side(self.game.turn()).to_lowercase() };
                write!(self.out, "{prompt}> ")?;
                self.out.flush()?;
            }
            let mut line = Vec::new();
            if input.read_until(b'\n', &mut line)? == 0 {
                if self.interactive && !self.json {
                    writeln!(self.out)?;
                }
                break;
            }
            let line = String::from_utf8_lossy(&line).trim().to_owned();
            if !line.is_empty() && !self.command(&line)? {
                break;
            }
        }
        if !self.game.is_over() {
            self.say(&format!("Game left unfinished after {} plies: *", self.game.ply()))?;
        }
        Ok(())
    }

    /// Handles one line; returns false to leave.
    fn command(&mut self, line: &str) -> Result<bool> {
        let mut words = line.split_whitespace();
        let word = words.next().unwrap_or_default();
        let argument = words.next();
        match (word.to_ascii_lowercase().as_str(), argument) {
            ("quit" | "exit", _) => return Ok(false),
            ("help" | "?", _) => self.say(HELP)?,
            ("board", _) => self.show_board()?,
            ("moves", _) => self.list_moves()?,
            ("undo", _) => self.undo()?,
            ("save", Some(path)) => self.save(Path::new(path))?,
            ("load", Some(path)) => self.load(Path::new(path))?,
            ("analyse" | "analyze", Some(square)) => self.analyse(square)?,
            ("resign", _) => self.resign()?,
            (token, _) if qchess_engine::game::is_mode_token(token) => self.change_mode(word)?,
            ("save" | "load" | "analyse" | "analyze", None) => {
                self.error(&format!("`{}` needs an argument; type `help`", excerpt(word)))?;
            }
            _ => self.human_move(line)?,
        }
        Ok(true)
    }

    fn human_move(&mut self, text: &str) -> Result<()> {
        if !self.game.is_over() && self.is_computer(self.game.turn()) {
            return self.error("it is the computer's turn");
        }
        let turn = self.game.turn();
        if !self.game.is_over() && self.clock.as_ref().is_some_and(|clock| clock.expired(turn)) {
            self.game.concede(turn, EndReason::Time).map_err(|e| game_error(e, "the clock".to_owned()))?;
            return self.announce_end();
        }
        match self.game.play(text) {
            Ok(played) => {
                self.plies += 1;
                if let Some(clock) = &mut self.clock {
                    clock.charge(played.mover.color);
                }
                self.announce_move(&played, false)?;
                if !self.game.is_over() && !self.is_computer(self.game.turn()) {
                    self.show_board()?;
                }
                Ok(())
            }
            Err(error) if error.is_input_error() || matches!(error, GameError::Board { .. }) => {
                self.error(&with_causes(&error))
            }
            Err(error) => Err(game_error(error, format!("move {}", excerpt(text)))),
        }
    }

    fn announce_move(&mut self, played: &PlayedMove, computer: bool) -> Result<()> {
        if self.json {
            let mut value = output::move_json(played);
            value["event"] = json!("move");
            value["side"] = json!(output::side_name(played.mover.color));
            value["ply"] = json!(self.game.ply());
            return self.emit(value);
        }
        let who = if computer { " (computer)" } else { "" };
        self.say(&format!("{}{who}: {}", side(played.mover.color), output::describe_move(played)))
    }

    fn announce_end(&mut self) -> Result<()> {
        self.announced_end = true;
        if self.json {
            let end = self.game.end().map(|e| (e.result.token(), e.reason.text()));
            return self.emit(json!({"event": "end", "result": end.map(|e| e.0), "reason": end.map(|e| e.1)}));
        }
        let board = self.diagram.render(self.game.position());
        write!(self.out, "{board}")?;
        self.say(&output::status_line(&self.game))?;
        if self.has_human() && self.interactive {
            self.say("The game is over: undo, save FILE, analyse SQUARE or quit.")?;
        }
        Ok(())
    }

    fn show_board(&mut self) -> Result<()> {
        if self.json {
            let mut value = output::game_json(&self.game);
            value["event"] = json!("position");
            return self.emit(value);
        }
        let board = self.diagram.render(self.game.position());
        write!(self.out, "{board}")?;
        self.say(&output::status_line(&self.game))
    }

    fn list_moves(&mut self) -> Result<()> {
        let moves = self.game.legal_moves();
        if self.json {
            let list: Vec<Value> = moves.iter().map(|m| json!(m)).collect();
            return self.emit(json!({"event": "moves", "moves": list}));
        }
        let names: Vec<String> = moves.iter().map(ToString::to_string).collect();
        let mut text = format!("{} legal moves:", names.len());
        for chunk in names.chunks(8) {
            text.push_str("\n  ");
            text.push_str(&chunk.join("  "));
        }
        self.say(&text)
    }

    fn undo(&mut self) -> Result<()> {
        if self.game.moves().is_empty() {
            return self.error("there is no move to undo");
        }
        let mut taken = vec![self.take_back()?];
        // Against the computer, take its reply back too, so it is a person's turn again.
        while self.is_computer(self.game.turn()) && self.has_human() && !self.game.moves().is_empty() {
            taken.push(self.take_back()?);
        }
        self.announced_end = false;
        if let Some(clock) = &mut self.clock {
            // Taken-back plies lose their clock entries; the time used is not given back.
            for _ in &taken {
                clock.after_each_ply.pop();
            }
            clock.restart_turn();
        }
        let names: Vec<String> = taken.iter().map(|m| m.notation.to_string()).collect();
        if self.json {
            self.emit(json!({"event": "undo", "moves": names}))?;
        } else {
            self.say(&format!("Took back {}.", names.join(", ")))?;
        }
        self.show_board()
    }

    /// The side to move resigns; against the computer, the person does.
    fn resign(&mut self) -> Result<()> {
        let turn = self.game.turn();
        let side = if self.is_computer(turn) { !turn } else { turn };
        match self.game.concede(side, EndReason::Resignation) {
            Ok(_) => self.announce_end(),
            Err(error) => self.error(&with_causes(&error)),
        }
    }

    /// `mode:classical` / `mode:quantum`: switches the checkmate rules' quantum mode; the turn stays.
    fn change_mode(&mut self, token: &str) -> Result<()> {
        let quantum = match qchess_engine::game::parse_mode_token(token) {
            Ok(quantum) => quantum,
            Err(error) => return self.error(&error.to_string()),
        };
        match self.game.set_quantum_mode(quantum) {
            Ok(change) => self.say(&format!("quantum mode is {}", if change.quantum { "on" } else { "off" })),
            Err(error) => self.error(&with_causes(&error)),
        }
    }

    fn take_back(&mut self) -> Result<PlayedMove> {
        self.game.undo().map_err(|e| game_error(e, "undo".to_owned()))
    }

    fn save(&mut self, path: &Path) -> Result<()> {
        let name = |player: &PlayerSpec| match player {
            PlayerSpec::Random => "computer (random mover)".to_owned(),
            other => other.to_string(),
        };
        let info = RecordInfo {
            event: "qchess play".to_owned(),
            white: name(&self.players[0]),
            black: name(&self.players[1]),
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

    fn load(&mut self, path: &Path) -> Result<()> {
        let loaded = GameRecord::load(path).map_err(|e| with_causes(&e)).and_then(|record| {
            let options = record.options().map_err(|e| with_causes(&e))?;
            match replay(&record, options, &self.backend) {
                Ok(replayed) => replayed.map_err(|e| format!("{}: {}", path.display(), with_causes(&e))),
                Err(error) => Err(format!("{error:#}")),
            }
        });
        match loaded {
            Ok(game) => {
                self.game = game;
                self.announced_end = false;
                if !self.json {
                    self.say(&format!("Loaded {} ({} plies).", path.display(), self.game.ply()))?;
                }
                self.show_board()
            }
            Err(message) => self.error(&message),
        }
    }

    fn analyse(&mut self, name: &str) -> Result<()> {
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

    fn say(&mut self, text: &str) -> Result<()> {
        if self.json {
            return self.emit(json!({"event": "message", "text": text}));
        }
        writeln!(self.out, "{text}")?;
        Ok(())
    }

    fn error(&mut self, message: &str) -> Result<()> {
        if self.json {
            return self.emit(json!({"event": "error", "message": message}));
        }
        writeln!(self.out, "error: {message}")?;
        Ok(())
    }

    fn emit(&mut self, value: Value) -> Result<()> {
        writeln!(self.out, "{value}")?;
        self.out.flush()?;
        Ok(())
    }
}
