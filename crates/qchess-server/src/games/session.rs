//! One game as the web board plays it: the engine's game plus who plays each side, the rule
//! set and the backend, with every operation the API offers.

use std::fmt;
use std::time::Duration;

use qchess_core::text::{excerpt, with_causes};
use qchess_core::{Bitboard, Color, Fen, Square};
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{Game, GameError, GameOptions, RuleSet};
use qchess_qasm::export::{Export, Format};
use qchess_qasm::sidecar::Setup;
use qchess_remote::{RemoteBoard, RemoteBoardConfig};
use qchess_search::player::{Player, PlayerError, PlayerSpec};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use serde::Deserialize;
use serde_json::{Value, json};

use super::GamesConfig;
use super::choices::{parse_player, parse_rules};
use super::view;
use crate::error::ApiError;

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
    pub white: PlayerSpec,
    /// Black's player.
    pub black: PlayerSpec,
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
        let rules = parse_rules(body.rules.as_deref().unwrap_or("official"))?;
        let backend = match body.backend.as_deref().map(str::trim) {
            None | Some("local") => BackendChoice::Local,
            Some("remote") if remote => BackendChoice::Remote,
            Some("remote") => {
                return Err(ApiError::bad_request(
                    "backend: this server has no remote provider configured (start it with --game-backend URL); use local",
                ));
            }
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "backend: `{}` is not a backend; use local or remote",
                    excerpt(other)
                )));
            }
        };
        let player = |side: &str, text: Option<&str>| {
            parse_player(text.unwrap_or("human")).map_err(|e| ApiError::bad_request(format!("{side}: {e}")))
        };
        let white = player("white", body.white.as_deref())?;
        let black = player("black", body.black.as_deref())?;
        let start = match (body.fen, body.record) {
            (Some(_), Some(_)) => return Err(ApiError::bad_request("give a fen or a record, not both")),
            (Some(fen), None) => Start::Position(
                fen.trim().parse().map_err(|e| ApiError::bad_request(format!("fen `{}`: {e}", excerpt(fen.trim()))))?,
            ),
            (None, Some(record)) => {
                let record: GameRecord =
                    record.parse().map_err(|e| ApiError::bad_request(format!("record: {}", with_causes(&e))))?;
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
    /// Who plays White and Black.
    pub(super) players: [PlayerSpec; 2],
    /// The computer players of the sides a computer plays.
    computers: [Option<Player>; 2],
    pub(super) backend_label: String,
    /// How long a computer player may think about one move.
    movetime: Duration,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").field("game", &self.game).field("players", &self.players).finish_non_exhaustive()
    }
}

/// The seed of a computer player's choices: the game's seed, apart from the board's draws.
fn computer_seed(seed: u64, color: Color) -> u64 {
    seed ^ 0x9e37_79b9_7f4a_7c15 ^ u64::from(color == Color::Black)
}

impl Session {
    /// Sets up a game as `spec` asks, with the server's game settings.
    pub fn new(spec: NewGame, config: &GamesConfig) -> Result<Session, ApiError> {
        let options = match &spec.start {
            Start::Position(_) => GameOptions { rules: spec.rules, ..GameOptions::with_seed(spec.seed) },
            Start::Record(record) => {
                record.options().map_err(|e| ApiError::bad_request(format!("record: {}", with_causes(&e))))?
            }
        };
        let (game, backend_label) = match spec.backend {
            BackendChoice::Local => {
                let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
                (start_game(&spec, LocalBoard::with_options(Bitboard::EMPTY, local), options)?, "local".to_owned())
            }
            BackendChoice::Remote => {
                let remote =
                    config.remote.as_ref().ok_or_else(|| ApiError::bad_request("no remote provider is configured"))?;
                let board_config = RemoteBoardConfig { seed: options.seed, ..remote.config.clone() };
                let board = RemoteBoard::new(Bitboard::EMPTY, board_config).map_err(|e| {
                    ApiError::new(axum::http::StatusCode::BAD_GATEWAY, format!("remote provider: {}", with_causes(&e)))
                })?;
                (start_game(&spec, board, options)?, remote.label.clone())
            }
        };
        let players = [spec.white, spec.black];
        let computer = |color: Color| -> Result<Option<Player>, ApiError> {
            match &players[usize::from(color == Color::Black)] {
                PlayerSpec::Human => Ok(None),
                spec => Player::new(spec, computer_seed(options.seed, color)).map(Some).map_err(player_error),
            }
        };
        let computers = [computer(Color::White)?, computer(Color::Black)?];
        Ok(Session { game, players, computers, backend_label, movetime: config.computer_movetime })
    }

    /// The player of `color`.
    pub fn player(&self, color: Color) -> &PlayerSpec {
        &self.players[usize::from(color == Color::Black)]
    }

    /// The full state the board draws.
    pub fn state(&mut self) -> Value {
        view::state(self)
    }

    /// Plays `text` in official notation, or makes a quantum mode change of the checkmate
    /// rules (`mode:classical`, `mode:quantum`), which uses no turn.
    pub fn play(&mut self, text: &str) -> Result<Value, ApiError> {
        let text = text.trim();
        if qchess_engine::game::is_mode_token(text) {
            let quantum =
                qchess_engine::game::parse_mode_token(text).map_err(|e| ApiError::bad_request(e.to_string()))?;
            self.game.set_quantum_mode(quantum).map_err(game_error)?;
        } else {
            self.game.play(text).map_err(game_error)?;
        }
        Ok(self.state())
    }

    /// The computer plays for the side to move: as that side's player, or as `player` when given.
    pub fn computer(&mut self, player: Option<PlayerSpec>) -> Result<Value, ApiError> {
        let side = self.game.turn();
        let index = usize::from(side == Color::Black);
        let mut stand_in = None;
        let mover = match player {
            Some(PlayerSpec::Human) => return Err(ApiError::bad_request("player: a human cannot be asked for a computer move")),
            Some(spec) => {
                let seed = computer_seed(self.game.options().seed, side) ^ u64::from(self.game.ply()) << 32;
                stand_in.insert(Player::new(&spec, seed).map_err(player_error)?)
            }
            None => self.computers[index].as_mut().ok_or_else(|| {
                ApiError::bad_request(format!(
                    "it is {side}'s turn and {side} is played by a human; send {{\"player\": \"random\"}} (or greedy, ai:N) to let the computer move anyway"
                ))
            })?,
        };
        mover.play(&mut self.game, self.movetime).map_err(player_error)?;
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
        GameRecord::from_game(&self.game, &info).to_string()
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
            ApiError::new(
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                format!("exporting the circuit: {}", with_causes(&e)),
            )
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
            record.replay_on(board, options).map_err(|e| ApiError::bad_request(format!("record: {}", with_causes(&e))))
        }
    }
}

/// Why a computer player could not move, as an answer.
fn player_error(error: PlayerError) -> ApiError {
    match error {
        PlayerError::Game(error) => game_error(error),
        PlayerError::Search(qchess_search::SearchError::NoLegalMove) => {
            ApiError::bad_request("there is no legal move for the computer to play")
        }
        other => ApiError::new(
            axum::http::StatusCode::INTERNAL_SERVER_ERROR,
            format!("the computer player failed: {}", with_causes(&other)),
        ),
    }
}

/// Input errors are the client's (400), a failing backend is a bad gateway (502), anything else
/// is the server's (500).
pub(super) fn game_error(error: GameError) -> ApiError {
    use axum::http::StatusCode;
    use qchess_core::BoardError;
    let status = match &error {
        // A move past the state cap is refused like bad input: the game is unchanged.
        error if error.is_input_error() => StatusCode::BAD_REQUEST,
        GameError::Board { source: BoardError::StateTooLarge { .. }, .. } => StatusCode::BAD_REQUEST,
        GameError::Backend(BoardError::Backend(_)) | GameError::Board { source: BoardError::Backend(_), .. } => {
            StatusCode::BAD_GATEWAY
        }
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError::new(status, with_causes(&error))
}
