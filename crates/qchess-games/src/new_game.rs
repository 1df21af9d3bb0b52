//! A new game as a request asks for it ([`NewGameBody`]): checked, then made on the exact local
//! board to give the row the store keeps (its setup record and standing); and the listing of
//! stored games ([`ListGames`]).

use qchess_core::text::{excerpt, with_causes};
use qchess_core::{Bitboard, Fen};
use qchess_engine::clock::TimeControl;
use qchess_engine::record::{GameRecord, RecordInfo, Tag};
use qchess_engine::{Game, GameOptions, RuleSet};
use qchess_search::player::PlayerSpec;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use qchess_store::replay::{self, standing};
use serde::Deserialize;
use serde_json::json;

use crate::choices::{parse_player, parse_rules};
use crate::error::{GamesError, game_error};

/// The stored name of the remote backend choice.
pub const REMOTE: &str = "remote";

/// Where a game's moves run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendChoice {
    /// The exact built-in simulator.
    Local,
    /// The remote provider the server was configured with.
    Remote,
}

/// A new game as asked for, as sent (`POST /api/games`'s JSON body): every field optional.
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
    owner: Option<String>,
    clock: Option<String>,
    public: Option<bool>,
    casual: Option<bool>,
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
    /// The visitor it belongs to (the web board's own token), for "your games".
    pub owner: Option<String>,
    /// Fischer clocks, kept by the server (`5+3`).
    pub clock: Option<TimeControl>,
    /// Whether anyone may watch it (else only holders of its links).
    pub public: bool,
    /// Whether the coach helps while a game between two people runs (a casual game); it helps
    /// in every other game anyway.
    pub casual: bool,
}

/// Where a new game starts.
#[derive(Debug, Clone)]
pub enum Start {
    /// This position, no moves.
    Position(Fen),
    /// The position a record reaches (its seed wins over the request's).
    Record(Box<GameRecord>),
}

/// Which stored games to list, as asked (`GET /api/games`'s query): the visitor's (`owner`),
/// finished ones too (`finished`, default true), archived ones too (`archived`, default false),
/// at most `limit` (1 to 1000, default 100), newest change first.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListGames {
    owner: Option<String>,
    finished: Option<bool>,
    archived: Option<bool>,
    limit: Option<u32>,
}

impl ListGames {
    /// The store's filter: private games are listed only to their owner.
    pub(crate) fn filter(&self) -> Result<qchess_store::ListFilter, GamesError> {
        let owner = self.owner.as_deref().map(parse_owner).transpose()?;
        Ok(qchess_store::ListFilter {
            public_only: owner.is_none(),
            owner,
            finished: self.finished.unwrap_or(true),
            archived: self.archived.unwrap_or(false),
            limit: Some(self.limit.unwrap_or(100).clamp(1, 1000)),
        })
    }
}

/// Checks a visitor token: 1 to 100 letters, digits, `-` and `_`.
pub fn parse_owner(text: &str) -> Result<String, GamesError> {
    let valid = !text.is_empty()
        && text.len() <= 100
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if valid {
        Ok(text.to_owned())
    } else {
        Err(GamesError::Invalid(format!(
            "owner: `{}` is not a visitor token (1 to 100 letters, digits, - and _)",
            excerpt(text)
        )))
    }
}

impl NewGame {
    /// Checks a request body; `remote` says whether a remote backend is configured.
    pub fn from_body(body: NewGameBody, remote: bool) -> Result<NewGame, GamesError> {
        let rules = parse_rules(body.rules.as_deref().unwrap_or("official"))?;
        let backend = match body.backend.as_deref().map(str::trim) {
            None | Some("local") => BackendChoice::Local,
            Some(REMOTE) if remote => BackendChoice::Remote,
            Some(REMOTE) => {
                return Err(GamesError::Invalid(
                    "backend: this server has no remote provider configured (start it with --game-backend URL); use local"
                        .to_owned(),
                ));
            }
            Some(other) => {
                return Err(GamesError::Invalid(format!(
                    "backend: `{}` is not a backend; use local or remote",
                    excerpt(other)
                )));
            }
        };
        let player = |side: &str, text: Option<&str>| {
            parse_player(text.unwrap_or("human")).map_err(|e| GamesError::Invalid(format!("{side}: {e}")))
        };
        let white = player("white", body.white.as_deref())?;
        let black = player("black", body.black.as_deref())?;
        let start = match (body.fen, body.record) {
            (Some(_), Some(_)) => return Err(GamesError::Invalid("give a fen or a record, not both".to_owned())),
            (Some(fen), None) => Start::Position(
                fen.trim().parse().map_err(|e| GamesError::Invalid(format!("fen `{}`: {e}", excerpt(fen.trim()))))?,
            ),
            (None, Some(record)) => {
                let record: GameRecord =
                    record.parse().map_err(|e| GamesError::Invalid(format!("record: {}", with_causes(&e))))?;
                Start::Record(Box::new(record))
            }
            (None, None) => Start::Position(Fen::start()),
        };
        let owner = body.owner.as_deref().map(parse_owner).transpose()?;
        let seed = body.seed.unwrap_or_else(rand::random);
        let clock = body
            .clock
            .as_deref()
            .map(|text| text.parse::<TimeControl>().map_err(|e| GamesError::Invalid(format!("clock: {e}"))))
            .transpose()?;
        if clock.is_some() && backend == BackendChoice::Remote {
            return Err(GamesError::Invalid(
                "clock: games on a remote provider have no clocks (a provider's queue, not the players, would decide them); use the local backend"
                    .to_owned(),
            ));
        }
        let public = body.public.unwrap_or(true);
        let casual = body.casual.unwrap_or(false);
        Ok(NewGame { rules, backend, seed, white, black, start, owner, clock, public, casual })
    }

    /// The game's options.
    fn options(&self) -> Result<GameOptions, GamesError> {
        match &self.start {
            Start::Position(_) => Ok(GameOptions { rules: self.rules, ..GameOptions::with_seed(self.seed) }),
            Start::Record(record) => {
                record.options().map_err(|e| GamesError::Invalid(format!("record: {}", with_causes(&e))))
            }
        }
    }

    /// The game as it starts, on the exact local board: checks the start, and gives the setup
    /// record and the row to store.
    pub fn to_store(&self, id: &str, backend_label: &str) -> Result<qchess_store::NewGame, GamesError> {
        let options = self.options()?;
        let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
        let game = match &self.start {
            Start::Position(fen) => {
                Game::with_board(fen, options, LocalBoard::with_options(Bitboard::EMPTY, local)).map_err(game_error)?
            }
            Start::Record(record) => record
                .replay_on(LocalBoard::with_options(Bitboard::EMPTY, local), options)
                .map_err(|e| GamesError::Invalid(format!("record: {}", with_causes(&e))))?,
        };
        let extra =
            self.clock.iter().map(|control| Tag { name: "TimeControl".to_owned(), value: control.tag() }).collect();
        let info = RecordInfo {
            event: "qchess web board".to_owned(),
            white: self.white.to_string(),
            black: self.black.to_string(),
            backend: backend_label.to_owned(),
            extra,
            ..RecordInfo::default()
        }
        .dated_today();
        let setup = replay::setup_record(&game, &info);
        let standing = standing(&game, &setup);
        Ok(qchess_store::NewGame {
            id: Some(id.to_owned()),
            origin: "web".to_owned(),
            rules: options.rules.name().to_owned(),
            white: self.white.to_string(),
            black: self.black.to_string(),
            backend: match self.backend {
                BackendChoice::Local => "local".to_owned(),
                BackendChoice::Remote => REMOTE.to_owned(),
            },
            backend_label: backend_label.to_owned(),
            seed: options.seed,
            setup,
            options: match self.clock {
                Some(control) => json!({ "clock": qchess_store::clocks::stored_control(control) }),
                None => json!({}),
            },
            owner: self.owner.clone(),
            result: standing.result,
            to_move: standing.to_move,
            ply: standing.ply,
        })
    }
}
