//! `qchess play`: an interactive game in the terminal, between people or against the computer
//! (any player `qchess match` takes: `random` or `ai`, `greedy`, `ai:K`, `uqci:COMMAND`).
//!
//! Lines are read from standard input: a move in official notation, or one of the commands
//! `help`, `moves`, `board`, `undo`, `save FILE`, `load FILE`, `analyse SQUARE`, `quit`. On a
//! terminal a prompt names the side to move; when input is a pipe no prompts are written, so a
//! script's output is just the game. End of input ends the session cleanly. With `--json` every
//! output is one JSON object per line.
//!
//! Every game is kept in the game store (`--db`, see [`crate::store`]) move by move. On a
//! remote backend a move whose job is still waiting when Ctrl-C is pressed (or `--timeout`
//! passes) stays in the store, its job keeping its place at the provider: the session ends,
//! saying how to come back (`qchess games resume ID`).

mod actions;
mod moves;

use std::io::{BufRead, IsTerminal as _, Write};
use std::path::PathBuf;

use anyhow::Result;
use qchess_core::text::{excerpt, with_causes};
use qchess_core::{Bitboard, Color, PositionSpec};
use qchess_engine::diagram::Diagram;
use qchess_engine::record::RecordInfo;
use qchess_engine::{Game, GameError, GameOptions, PlayedMove, RuleSet};
use qchess_search::player::{ENGINE_THINK_TIME, MAX_LEVEL, Player as Computer, PlayerSpec, level_think_time};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use serde_json::{Value, json};

use super::clock::{Clock, TimeControl};
use super::game::{game_error, output, read_record, replay_error};
use super::stored::{NewStored, PlayError, StoredPlay, waiting_message};
use crate::backend::BackendArgs;
use crate::exit::{Verdict, bad_input_at};
use crate::store::{DbArgs, Keeper};

/// Flags of `qchess play`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Who plays White: human, random (or ai), greedy, ai:0 .. ai:6, uqci:COMMAND.
    #[arg(long, default_value = "human")]
    white: PlayerSpec,
    /// Who plays Black (as --white).
    #[arg(long, default_value = "ai")]
    black: PlayerSpec,
    /// Seed of the computer's choices and of the measurement outcomes.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The start: `startpos` or `fen <FEN>`, optionally followed by `moves ...`.
    #[arg(long, default_value = "startpos", value_name = "POSITION", conflicts_with = "record")]
    position: String,
    /// Continue a saved game.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
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
    /// How the session runs.
    #[command(flatten)]
    session: SessionArgs,
    /// Where the moves run: `--backend local|ionq|URL` and the remote flags (`--timeout` bounds
    /// how long a move waits in the foreground; the job goes on).
    #[command(flatten)]
    backend: BackendArgs,
    /// Where the game is kept.
    #[command(flatten)]
    db: DbArgs,
}

/// Flags of a terminal session, shared with `qchess games resume`.
#[derive(Debug, Clone, clap::Args)]
pub struct SessionArgs {
    /// The computer's thinking time per move, in milliseconds (default: each player's own).
    #[arg(long, value_name = "MS", help = movetime_help(), value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub movetime: Option<u64>,
    /// Stop after this many plies in this session (for computer-only games).
    #[arg(long)]
    pub max_plies: Option<u32>,
    /// Draw the board with letters instead of Unicode chess symbols.
    #[arg(long)]
    pub ascii: bool,
}

/// `--movetime`'s help, with each level's own think time.
fn movetime_help() -> String {
    let levels: Vec<String> =
        (1..=MAX_LEVEL).map(|level| format!("ai:{level} {} ms", level_think_time(level).as_millis())).collect();
    format!(
        "The computer's thinking time per move, in milliseconds [default: each level's own: {}; {} ms for a UQCI engine]",
        levels.join(", "),
        ENGINE_THINK_TIME.as_millis()
    )
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

/// How a player is named in records and in the store.
pub fn player_name(player: &PlayerSpec) -> String {
    match player {
        PlayerSpec::Random => "computer (random mover)".to_owned(),
        other => other.to_string(),
    }
}

/// The player a stored name stands for.
pub fn player_from_name(name: &str) -> PlayerSpec {
    if name == "computer (random mover)" {
        return PlayerSpec::Random;
    }
    name.parse().unwrap_or(PlayerSpec::Human)
}

/// The game `record` (or a fresh start) as it starts, on the exact local board.
fn setup_game(args: &Args) -> Result<(Game, Vec<qchess_core::Notation>)> {
    let options =
        GameOptions { rules: args.rules, quantum_mode: args.mode == "quantum", ..GameOptions::with_seed(args.seed) };
    match &args.record {
        Some(path) => {
            let record = read_record(path)?;
            let options = record.options().map_err(|e| bad_input_at(path.display().to_string(), e))?;
            let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
            let game = record
                .replay_on(LocalBoard::with_options(Bitboard::EMPTY, local), options)
                .map_err(|e| replay_error(path, e))?;
            Ok((game, Vec::new()))
        }
        None => {
            let spec: PositionSpec = args.position.parse().map_err(|e| bad_input_at("--position", e))?;
            let start = spec.start.to_fen();
            let game = Game::new(&start, options).map_err(|e| game_error(e, "--position".to_owned()))?;
            Ok((game, spec.moves))
        }
    }
}

/// Runs `qchess play`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let (setup, position_moves) = setup_game(&args)?;
    let keeper = Keeper::open(&args.db)?;
    let info = RecordInfo {
        event: "qchess play".to_owned(),
        white: player_name(&args.white),
        black: player_name(&args.black),
        ..RecordInfo::default()
    }
    .dated_today();
    let mut options = json!({});
    if let Some(clock) = &args.clock {
        options["clock"] = qchess_store::clocks::stored_control(*clock);
    }
    let new = NewStored {
        origin: "play",
        white: player_name(&args.white),
        black: player_name(&args.black),
        backend: &args.backend,
        info,
        options,
    };
    let (mut stored, mut game) = StoredPlay::create(keeper, new, &setup)?;
    for (index, mv) in position_moves.iter().enumerate() {
        let place = || format!("--position, move {}", index + 1);
        match stored.play(&mut game, &mv.to_string(), None) {
            Ok(_) => {}
            Err(PlayError::Game(error)) => return Err(game_error(error, place())),
            Err(PlayError::Waiting(why)) => return Err(anyhow::anyhow!(waiting_message(&stored.id, &why))),
            Err(PlayError::Store(error)) => return Err(error),
        }
    }
    let clock = args.clock.map(Clock::new);
    Session::new(stored, game, [args.white, args.black], &args.session, args.backend, clock, json)?.start()
}

/// One terminal session.
pub struct Session<W: Write> {
    pub(super) game: Game,
    pub(super) stored: StoredPlay,
    players: [PlayerSpec; 2],
    /// Computers kept between moves (searchers keep their tables, engines run on); random and
    /// greedy players are made afresh each move, seeded by the ply.
    computers: [Option<Computer>; 2],
    /// The thinking time `--movetime` gives every computer; `None`: each its own.
    movetime: Option<std::time::Duration>,
    pub(super) out: W,
    interactive: bool,
    pub(super) json: bool,
    pub(super) diagram: Diagram,
    max_plies: Option<u32>,
    pub(super) backend: BackendArgs,
    plies: u32,
    pub(super) announced_end: bool,
    pub(super) clock: Option<Clock>,
}

pub(super) fn side(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

impl Session<std::io::StdoutLock<'static>> {
    /// A session on stdout playing `stored` (rebuilt as `game`).
    pub fn new(
        stored: StoredPlay,
        game: Game,
        players: [PlayerSpec; 2],
        args: &SessionArgs,
        backend: BackendArgs,
        clock: Option<Clock>,
        json: bool,
    ) -> Result<Session<std::io::StdoutLock<'static>>> {
        let seed = game.options().seed;
        let computer = |spec: &PlayerSpec| -> Result<Option<Computer>> {
            if !matches!(spec, PlayerSpec::Level(_) | PlayerSpec::Uqci(_)) {
                return Ok(None);
            }
            Computer::new(spec, seed).map(Some).map_err(|e| anyhow::anyhow!("{spec}: {}", with_causes(&e)))
        };
        let computers = [computer(&players[0])?, computer(&players[1])?];
        Ok(Session {
            game,
            stored,
            players,
            computers,
            movetime: args.movetime.map(std::time::Duration::from_millis),
            out: std::io::stdout().lock(),
            interactive: std::io::stdin().is_terminal(),
            json,
            diagram: if args.ascii { Diagram::ascii() } else { Diagram::unicode() },
            max_plies: args.max_plies,
            backend,
            plies: 0,
            announced_end: false,
            clock,
        })
    }

    /// Plays the game's waiting move, if it has one (`qchess games resume`): its job is polled
    /// again; a move that fails for good is taken back and said so.
    pub fn finish_pending(&mut self) -> Result<()> {
        match self.stored.play_pending(&mut self.game) {
            Ok(None) => Ok(()),
            Ok(Some((_, Some(played)))) => {
                let computer = self.is_computer(played.mover.color);
                self.plies += 1;
                self.announce_move(&played, computer)
            }
            Ok(Some((played, None))) => self.say(&format!("The waiting {played} is done.")),
            Err(PlayError::Game(error)) => {
                self.error(&format!("the waiting move failed and was taken back: {}", with_causes(&error)))
            }
            Err(PlayError::Waiting(why)) => Err(self.left_waiting(&why)),
            Err(PlayError::Store(error)) => Err(error),
        }
    }

    /// Plays from standard input.
    pub fn start(mut self) -> Result<()> {
        let stdin = std::io::stdin();
        self.run(&mut stdin.lock())
    }
}

impl<W: Write> Session<W> {
    /// Says that a move was left waiting at its provider and how to come back; the error that
    /// ends the session (exit 1) with it.
    fn left_waiting(&mut self, why: &str) -> anyhow::Error {
        let message = waiting_message(&self.stored.id, why);
        let said = if self.json {
            let id = self.stored.id.clone();
            self.emit(json!({"event": "waiting", "game": id, "message": message}))
        } else {
            writeln!(self.out, "{message}").map_err(anyhow::Error::from)
        };
        match said {
            Ok(()) => anyhow::Error::new(Verdict(message)),
            Err(error) => error,
        }
    }

    /// Whether the computer plays `color`.
    fn is_computer(&self, color: Color) -> bool {
        self.players[usize::from(color == Color::Black)] != PlayerSpec::Human
    }

    pub(super) fn has_human(&self) -> bool {
        self.players.contains(&PlayerSpec::Human)
    }

    fn run(&mut self, input: &mut impl BufRead) -> Result<()> {
        if !self.json && self.interactive {
            let id = self.stored.id.clone();
            self.say(&format!("Quantum Chess, kept as game {id}. Type `help` for the commands."))?;
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
                let played = self.computer_move()?;
                self.plies += 1;
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
            let id = self.stored.id.clone();
            self.say(&format!(
                "Game left unfinished after {} plies: * (kept as game {id}; `qchess games resume {id}` continues it)",
                self.game.ply()
            ))?;
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
            ("save", Some(path)) => self.save(std::path::Path::new(path))?,
            ("load", Some(path)) => self.load(std::path::Path::new(path))?,
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
            let input = qchess_store::replay::time_input(turn);
            self.stored.play(&mut self.game, &input, None).map_err(|e| play_error(e, "the clock"))?;
            return self.announce_end();
        }
        match self.play_stored(text) {
            Ok(Some(played)) => {
                self.plies += 1;
                self.announce_move(&played, false)?;
                if !self.game.is_over() && !self.is_computer(self.game.turn()) {
                    self.show_board()?;
                }
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(error) => match error.downcast::<GameError>() {
                Ok(error) if error.is_input_error() || matches!(error, GameError::Board { .. }) => {
                    self.error(&with_causes(&error))
                }
                Ok(error) => Err(game_error(error, format!("move {}", excerpt(text)))),
                Err(other) => Err(other),
            },
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

    pub(super) fn announce_end(&mut self) -> Result<()> {
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

    pub(super) fn show_board(&mut self) -> Result<()> {
        if self.json {
            let mut value = output::game_json(&self.game);
            value["event"] = json!("position");
            value["game_id"] = json!(self.stored.id);
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

    pub(super) fn say(&mut self, text: &str) -> Result<()> {
        if self.json {
            return self.emit(json!({"event": "message", "text": text}));
        }
        writeln!(self.out, "{text}")?;
        Ok(())
    }

    pub(super) fn error(&mut self, message: &str) -> Result<()> {
        if self.json {
            return self.emit(json!({"event": "error", "message": message}));
        }
        writeln!(self.out, "error: {message}")?;
        Ok(())
    }

    pub(super) fn emit(&mut self, value: Value) -> Result<()> {
        writeln!(self.out, "{value}")?;
        self.out.flush()?;
        Ok(())
    }
}

/// A stored event that could not be played, as an error said of `place`.
pub(super) fn play_error(error: PlayError, place: &str) -> anyhow::Error {
    match error {
        PlayError::Game(error) => game_error(error, place.to_owned()),
        PlayError::Waiting(why) => anyhow::anyhow!(why),
        PlayError::Store(error) => error,
    }
}
