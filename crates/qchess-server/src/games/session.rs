//! One game as the web board plays it: the engine's game plus who plays each side, the rule
//! set and the backend, with every operation the API offers.

use std::fmt;
use std::str::FromStr;

use qchess_core::{Bitboard, Color, Fen, Square};
use qchess_engine::ai::RandomMover;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{Game, GameError, GameOptions};
use qchess_qasm::export::{Export, Format};
use qchess_qasm::sidecar::Setup;
use qchess_remote::{RemoteBoard, RemoteBoardConfig};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use serde::Deserialize;
use serde_json::{Value, json};

use super::RemoteGameBackend;
use super::view;
use crate::error::ApiError;

/// The rule sets a game may be played by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSet {
    /// Official Quantum Chess: no check, a king captured with certainty loses.
    Official,
}

impl RuleSet {
    /// Every rule set, in the order the board offers them.
    pub const ALL: [RuleSet; 1] = [RuleSet::Official];

    /// The name records and the API use.
    pub const fn name(self) -> &'static str {
        match self {
            RuleSet::Official => "official",
        }
    }

    /// One line for the rule-set chooser.
    pub const fn description(self) -> &'static str {
        match self {
            RuleSet::Official => "Official Quantum Chess: no check; capture the king with certainty",
        }
    }
}

impl FromStr for RuleSet {
    type Err = ApiError;

    fn from_str(text: &str) -> Result<RuleSet, ApiError> {
        RuleSet::ALL.into_iter().find(|rules| rules.name() == text.trim()).ok_or_else(|| {
            let known: Vec<&str> = RuleSet::ALL.iter().map(|r| r.name()).collect();
            ApiError::bad_request(format!("rules: `{text}` is not a rule set; choose one of {}", known.join(", ")))
        })
    }
}

/// Who plays a side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Player {
    /// Moves come from the API (a person at the board).
    Human,
    /// The engine's seeded random mover.
    Random,
    /// One ply of best expected material (`qchess_search::player`).
    Greedy,
    /// The search at a level (`ai:1` .. `ai:4` here).
    Level(u8),
}

/// The names of the search levels the board offers.
const LEVEL_NAMES: [&str; 4] = ["ai:1", "ai:2", "ai:3", "ai:4"];

/// How long the search thinks for one computer move.
const COMPUTER_MOVETIME: std::time::Duration = std::time::Duration::from_millis(500);

impl Player {
    /// Every player, in the order the board offers them.
    pub const ALL: [Player; 7] = [
        Player::Human,
        Player::Random,
        Player::Greedy,
        Player::Level(1),
        Player::Level(2),
        Player::Level(3),
        Player::Level(4),
    ];

    /// The name the API uses.
    pub const fn name(self) -> &'static str {
        match self {
            Player::Human => "human",
            Player::Random => "random",
            Player::Greedy => "greedy",
            Player::Level(level) => LEVEL_NAMES[(level as usize).saturating_sub(1) % LEVEL_NAMES.len()],
        }
    }

    /// One line for the player chooser.
    pub const fn description(self) -> &'static str {
        match self {
            Player::Human => "a person at the board",
            Player::Random => "the computer: a random legal move",
            Player::Greedy => "the computer: the most expected material after one move",
            Player::Level(1) => "the computer: the exact-state search, 1 ply",
            Player::Level(2) => "the computer: the exact-state search, 2 plies",
            Player::Level(3) => "the computer: the exact-state search, 3 plies",
            Player::Level(_) => "the computer: the exact-state search, 4 plies",
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Player {
    type Err = String;

    fn from_str(text: &str) -> Result<Player, String> {
        match text.trim() {
            "human" => Ok(Player::Human),
            "random" | "computer" => Ok(Player::Random),
            other => Player::ALL
                .into_iter()
                .find(|p| p.name() == other)
                .ok_or_else(|| format!("`{other}` is not a player; choose human, random, greedy or ai:1 .. ai:4")),
        }
    }
}

/// Where a game's moves run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// The exact built-in simulator.
    Local,
    /// The remote provider the server was configured with.
    Remote,
}

/// The body of `POST /api/games`, as sent.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGameBody {
    rules: Option<String>,
    backend: Option<String>,
    seed: Option<u64>,
    white: Option<String>,
    black: Option<String>,
    fen: Option<String>,
    record: Option<String>,
}

/// How a game starts: checked before its thread is started.
#[derive(Debug, Clone)]
pub struct NewGame {
    /// The rule set.
    pub rules: RuleSet,
    /// Where its moves run.
    pub backend: BackendChoice,
    /// Seed of its measurement outcomes and of its computer players.
    pub seed: u64,
    /// White's player.
    pub white: Player,
    /// Black's player.
    pub black: Player,
    /// The start, or a record to load.
    pub start: Start,
}

/// Where a new game starts.
#[derive(Debug, Clone)]
pub enum Start {
    /// This position, no moves.
    Position(Fen),
    /// The position a record reaches (its seed wins over the request's).
    Record(Box<GameRecord>),
}

impl NewGame {
    /// Checks a request body; `remote` says whether a remote backend is configured.
    pub fn from_body(body: NewGameBody, remote: bool) -> Result<NewGame, ApiError> {
        let rules = body.rules.as_deref().unwrap_or("official").parse()?;
        let backend = match body.backend.as_deref().map(str::trim) {
            None | Some("local") => BackendChoice::Local,
            Some("remote") if remote => BackendChoice::Remote,
            Some("remote") => {
                return Err(ApiError::bad_request(
                    "backend: this server has no remote provider configured (start it with --game-backend URL); use local",
                ));
            }
            Some(other) => {
                return Err(ApiError::bad_request(format!("backend: `{other}` is not a backend; use local or remote")));
            }
        };
        let player = |side: &str, text: Option<&str>| {
            text.unwrap_or("human").parse::<Player>().map_err(|e| ApiError::bad_request(format!("{side}: {e}")))
        };
        let white = player("white", body.white.as_deref())?;
        let black = player("black", body.black.as_deref())?;
        let start = match (body.fen, body.record) {
            (Some(_), Some(_)) => return Err(ApiError::bad_request("give a fen or a record, not both")),
            (Some(fen), None) => Start::Position(
                fen.trim().parse().map_err(|e| ApiError::bad_request(format!("fen `{}`: {e}", fen.trim())))?,
            ),
            (None, Some(record)) => {
                let record: GameRecord = record.parse().map_err(|e| ApiError::bad_request(format!("record: {e}")))?;
                if let Some(variant) = record.tag("Variant") {
                    variant.parse::<RuleSet>().map_err(|e| ApiError::bad_request(format!("record: {}", e.message)))?;
                }
                Start::Record(Box::new(record))
            }
            (None, None) => Start::Position(Fen::start()),
        };
        let seed = body.seed.unwrap_or_else(rand::random);
        Ok(NewGame { rules, backend, seed, white, black, start })
    }
}

/// A game being played. Lives on its own thread (see [`store`](super::store)).
pub struct Session {
    /// The game.
    pub(super) game: Game,
    pub(super) rules: RuleSet,
    pub(super) players: [Player; 2],
    pub(super) backend_label: String,
    mover: RandomMover,
    /// The greedy and search players made so far, kept between moves.
    computers: Vec<(Player, qchess_search::player::Player)>,
    seed: u64,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").field("game", &self.game).field("players", &self.players).finish_non_exhaustive()
    }
}

impl Session {
    /// Sets up a game as `spec` asks; `remote` is the server's remote provider, if any.
    pub fn new(spec: NewGame, remote: Option<&RemoteGameBackend>) -> Result<Session, ApiError> {
        let options = match &spec.start {
            Start::Position(_) => GameOptions::with_seed(spec.seed),
            Start::Record(record) => record.options().map_err(|e| ApiError::bad_request(format!("record: {e}")))?,
        };
        let (game, backend_label) = match spec.backend {
            BackendChoice::Local => {
                let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
                (start_game(&spec, LocalBoard::with_options(Bitboard::EMPTY, local), options)?, "local".to_owned())
            }
            BackendChoice::Remote => {
                let remote = remote.ok_or_else(|| ApiError::bad_request("no remote provider is configured"))?;
                let config = RemoteBoardConfig { seed: options.seed, ..remote.config.clone() };
                let board = RemoteBoard::new(Bitboard::EMPTY, config)
                    .map_err(|e| ApiError::new(axum::http::StatusCode::BAD_GATEWAY, format!("remote provider: {e}")))?;
                (start_game(&spec, board, options)?, remote.label.clone())
            }
        };
        Ok(Session {
            game,
            rules: spec.rules,
            players: [spec.white, spec.black],
            backend_label,
            // The computer's choices follow the game's seed, apart from the board's draws.
            mover: RandomMover::new(options.seed ^ 0x9e37_79b9_7f4a_7c15),
            computers: Vec::new(),
            seed: options.seed,
        })
    }

    /// The player of `color`.
    pub fn player(&self, color: Color) -> Player {
        self.players[usize::from(color == Color::Black)]
    }

    /// The full state the board draws.
    pub fn state(&mut self) -> Value {
        view::state(self)
    }

    /// Plays `text` in official notation.
    pub fn play(&mut self, text: &str) -> Result<Value, ApiError> {
        self.game.play(text.trim()).map_err(game_error)?;
        Ok(self.state())
    }

    /// The computer plays for the side to move (as `player`, or as that side's player).
    pub fn computer(&mut self, player: Option<Player>) -> Result<Value, ApiError> {
        let side = self.game.turn();
        let player = player.unwrap_or(self.player(side));
        match player {
            Player::Human => {
                return Err(ApiError::bad_request(format!(
                    "it is {side}'s turn and {side} is played by a human; send {{\"player\": \"random\"}} to let the computer move anyway"
                )));
            }
            Player::Random => self.mover.play(&mut self.game).map_err(game_error)?,
            Player::Greedy | Player::Level(_) => {
                if !self.computers.iter().any(|(p, _)| *p == player) {
                    let spec = match player {
                        Player::Level(level) => qchess_search::player::PlayerSpec::Level(u32::from(level)),
                        _ => qchess_search::player::PlayerSpec::Greedy,
                    };
                    let made = qchess_search::player::Player::new(&spec, self.seed)
                        .map_err(|e| ApiError::new(axum::http::StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
                    self.computers.push((player, made));
                }
                let computer = self.computers.iter_mut().find(|(p, _)| *p == player).map(|(_, c)| c);
                let computer = computer.ok_or_else(|| ApiError::bad_request("no such computer player"))?;
                computer.play(&mut self.game, COMPUTER_MOVETIME).map_err(|e| match e {
                    qchess_search::player::PlayerError::Game(error) => game_error(error),
                    other => ApiError::new(axum::http::StatusCode::INTERNAL_SERVER_ERROR, other.to_string()),
                })?
            }
        };
        Ok(self.state())
    }

    /// Takes back `plies` moves.
    pub fn undo(&mut self, plies: usize) -> Result<Value, ApiError> {
        let available = self.game.moves().len();
        if plies == 0 || plies > available {
            return Err(ApiError::bad_request(format!(
                "plies: cannot take back {plies} moves; {available} have been played"
            )));
        }
        for _ in 0..plies {
            self.game.undo().map_err(game_error)?;
        }
        Ok(self.state())
    }

    /// The legal moves of the side to move.
    pub fn legal_moves(&self) -> Value {
        view::legal_moves(&self.game)
    }

    /// The analysis of one square.
    pub fn square(&mut self, square: Square) -> Result<Value, ApiError> {
        view::square(&mut self.game, square).map_err(game_error)
    }

    /// The game record as text.
    pub fn record_text(&self) -> String {
        let info = RecordInfo {
            event: "qchess web board".to_owned(),
            white: self.players[0].to_string(),
            black: self.players[1].to_string(),
            backend: self.backend_label.clone(),
            ..RecordInfo::default()
        }
        .dated_today();
        let mut record = GameRecord::from_game(&self.game, &info);
        record.set_tag("Variant", self.rules.name());
        record.to_string()
    }

    /// The game's accumulated circuit in `format`, with its sidecar.
    pub fn circuit(&self, format: Format) -> Result<Value, ApiError> {
        let board = self.game.local_board().ok_or_else(|| {
            ApiError::bad_request(format!(
                "circuits are exported from games on the local backend; this game runs on {}",
                self.backend_label
            ))
        })?;
        let failed = |e: qchess_qasm::export::ExportError| {
            ApiError::new(axum::http::StatusCode::INTERNAL_SERVER_ERROR, format!("exporting the circuit: {e}"))
        };
        let mut export = Export::from_register(board.register()).map_err(failed)?;
        if let Some(measured) = self.game.measured_board() {
            export.measure_every_square(measured).map_err(failed)?;
        }
        let setup = Setup::Game {
            start: qchess_core::StartPosition::Fen(self.game.start_fen().clone()),
            moves: self.game.moves().iter().map(|m| m.notation).collect(),
            seed: self.game.options().seed,
        };
        let export = export.with_setup(setup);
        let text = export.render(format).map_err(failed)?.text();
        Ok(json!({ "format": format.name(), "qasm": text, "sidecar": export.sidecar }))
    }
}

/// A game on `board` from `spec`'s start.
fn start_game(spec: &NewGame, board: impl qchess_engine::GameBoard, options: GameOptions) -> Result<Game, ApiError> {
    match &spec.start {
        Start::Position(fen) => Game::with_board(fen, options, board).map_err(game_error),
        Start::Record(record) => {
            record.replay_on(board, options).map_err(|e| ApiError::bad_request(format!("record: {e}")))
        }
    }
}

/// Input errors are the client's (400); anything else is the server's or the backend's.
pub(super) fn game_error(error: GameError) -> ApiError {
    if error.is_input_error() {
        ApiError::bad_request(error.to_string())
    } else {
        ApiError::new(axum::http::StatusCode::INTERNAL_SERVER_ERROR, error.to_string())
    }
}
