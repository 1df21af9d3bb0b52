//! One game as the web board plays it: the engine's game rebuilt from the store, with who plays
//! each side and where its moves run, and every operation the API offers. A session lives on
//! its game's thread (`live`) and reaches the store by blocking on the server's
//! runtime; every change is stored against the revision the session was built from, so a
//! session that another process overtook answers 409 and rebuilds itself.

use std::fmt;
use std::time::Duration;

use qchess_core::text::with_causes;
use qchess_core::{Bitboard, Color};
use qchess_engine::Game;
use qchess_engine::clock::clock_comment;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_qasm::export::{Export, Format};
use qchess_qasm::sidecar::Setup;
use qchess_remote::journal::WaitPolicy;
use qchess_remote::{RemoteBoard, RemoteBoardConfig, RemoteBoardError};
use qchess_search::player::{Player, PlayerSpec};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use qchess_store::replay::{self, remote_error, standing};
use qchess_store::{
    Change, ClaimCell, ClockRow, GameJournal, NewEvent, Offer, PendingMove, Store, StoreError, StoredGame,
};
use serde_json::{Value, json};

use crate::choices::parse_player;
use crate::config::GamesConfig;
use crate::error::{GamesError, game_error, player_error, rebuild_error, store_error};
use crate::new_game::REMOTE;

/// What a session needs of the service: the store, the runtime to reach it on, the settings.
#[derive(Debug, Clone)]
pub struct Context {
    /// The store.
    pub store: Store,
    /// The server's runtime.
    pub handle: tokio::runtime::Handle,
    /// The game settings.
    pub config: GamesConfig,
}

impl Context {
    /// Runs a store call from the game's thread.
    pub(crate) fn block<T>(&self, call: impl Future<Output = Result<T, StoreError>>) -> Result<T, GamesError> {
        self.handle.block_on(call).map_err(store_error)
    }
}

/// A game being played. Lives on its own thread (see `games::live`).
pub struct Session {
    /// The game.
    pub(crate) game: Game,
    /// Its id.
    pub(crate) id: String,
    /// The store's revision the game was built from (or last changed to).
    pub(crate) revision: i64,
    /// Who plays White and Black.
    pub(crate) players: [PlayerSpec; 2],
    /// The search players, kept between moves for their tables.
    searchers: [Option<Player>; 2],
    pub(crate) backend_label: String,
    /// The claim the remote board's journal checks while it waits.
    claim: Option<ClaimCell>,
    pub(crate) context: Context,
    /// The last state drawn, and the revision it is of.
    last_state: Option<(i64, Value)>,
    /// The game's setup record.
    pub(crate) setup: String,
    /// Its clocks, when it has them.
    pub(crate) clock: Option<ClockRow>,
    /// Its offers (also those since answered by a move; see `Offer::holds_at`).
    pub(crate) offers: Vec<Offer>,
    /// Whether its sides are seats.
    pub(crate) seated: bool,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session").field("id", &self.id).field("game", &self.game).finish_non_exhaustive()
    }
}

/// The seed of a computer player's choices at a ply: the game's seed, apart from the board's
/// draws, so the same position gets the same choice whichever process makes it.
fn computer_seed(seed: u64, color: Color, ply: u32) -> u64 {
    seed ^ 0x9e37_79b9_7f4a_7c15 ^ u64::from(color == Color::Black) ^ u64::from(ply) << 32
}

/// Milliseconds since 1970, as the store and the clocks count them.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

impl Session {
    /// The game `stored` rebuilt, on the backend it chose.
    pub fn load(stored: &StoredGame, context: &Context) -> Result<Session, GamesError> {
        let summary = &stored.summary;
        let seed = summary.seed;
        if summary.backend != REMOTE && summary.backend != "local" {
            return Err(GamesError::Invalid(format!(
                "game {} was made by `qchess {}` on {}; continue it with `qchess games resume {}`",
                summary.id, summary.origin, summary.backend_label, summary.id
            )));
        }
        let (game, claim) = if summary.backend == REMOTE {
            let remote = context.config.remote.as_ref().ok_or_else(|| {
                GamesError::Unavailable(format!(
                    "game {} runs on a remote provider, and this server has none (--game-backend)",
                    summary.id
                ))
            })?;
            let board_config = RemoteBoardConfig {
                seed,
                provider: remote.config.provider.clone().with_progress(false).with_cancel_on_interrupt(false),
                ..remote.config.clone()
            };
            let journal =
                GameJournal::new(context.store.clone(), context.handle.clone(), &summary.id, &summary.backend_label);
            let claim = journal.claim();
            let board = RemoteBoard::new(Bitboard::EMPTY, board_config)
                .map_err(|e| GamesError::Provider(format!("remote provider: {}", with_causes(&e))))?
                .with_journal(Box::new(journal), WaitPolicy::default());
            (replay::rebuild(stored, board).map_err(rebuild_error)?, Some(claim))
        } else {
            let local = LocalBoardOptions { seed, ..LocalBoardOptions::default() };
            (replay::rebuild(stored, LocalBoard::with_options(Bitboard::EMPTY, local)).map_err(rebuild_error)?, None)
        };
        let player = |name: &str| parse_player(name).unwrap_or(PlayerSpec::Human);
        let players = [player(&summary.white), player(&summary.black)];
        let searcher = |spec: &PlayerSpec| match spec {
            PlayerSpec::Level(_) => Player::new(spec, seed).ok(),
            _ => None,
        };
        let searchers = [searcher(&players[0]), searcher(&players[1])];
        let clock = context.block(context.store.clock(&summary.id))?;
        let offers = context.block(context.store.offers(&summary.id))?;
        Ok(Session {
            game,
            id: summary.id.clone(),
            revision: summary.revision,
            players,
            searchers,
            backend_label: summary.backend_label.clone(),
            claim,
            context: context.clone(),
            last_state: None,
            setup: stored.setup.clone(),
            clock,
            offers,
            seated: summary.seated,
        })
    }

    /// The player of `color`.
    pub fn player(&self, color: Color) -> &PlayerSpec {
        &self.players[usize::from(color == Color::Black)]
    }

    /// The full state the board draws.
    pub fn state(&mut self) -> Value {
        if let Some((revision, state)) = &self.last_state
            && *revision == self.revision
        {
            return state.clone();
        }
        let mut state = self.draw();
        state["id"] = json!(self.id);
        state["revision"] = json!(self.revision);
        self.last_state = Some((self.revision, state.clone()));
        state
    }

    /// The last state drawn, if it is of the current revision.
    pub(crate) fn last_state(&self) -> Option<Value> {
        self.last_state.as_ref().filter(|(revision, _)| *revision == self.revision).map(|(_, state)| state.clone())
    }

    /// Rebuilds the game from the store when the store moved on (another process changed it).
    pub fn refresh(&mut self) -> Result<(), GamesError> {
        let revision = self.context.block(self.context.store.revision(&self.id))?;
        if revision != self.revision {
            self.reload()?;
        }
        Ok(())
    }

    /// Rebuilds the game from the store.
    pub fn reload(&mut self) -> Result<(), GamesError> {
        let stored = self.context.block(self.context.store.game(&self.id))?;
        *self = Session::load(&stored, &self.context)?;
        Ok(())
    }

    /// Refuses a change asked for at `revision` (what the request read) when the game moved
    /// since, or at `ply` (what the client saw) when the game is at another.
    fn check(&mut self, revision: i64, ply: Option<u32>) -> Result<(), GamesError> {
        self.refresh()?;
        if self.revision != revision {
            return Err(GamesError::conflict(
                format!("game {} changed while the request waited (another move was played first)", self.id),
                self.state(),
            ));
        }
        if let Some(ply) = ply.filter(|&ply| ply != self.game.ply()) {
            return Err(GamesError::conflict(
                format!("the move was made at ply {ply}, but game {} is at ply {}", self.id, self.game.ply()),
                self.state(),
            ));
        }
        Ok(())
    }

    /// Stores `change`, made on the game just now (against the revision it was at): on a lost
    /// race the game is rebuilt and the answer is 409.
    pub(crate) fn commit(&mut self, change: Change) -> Result<Value, GamesError> {
        let stored = self.context.handle.block_on(self.context.store.change(&self.id, self.revision, &change));
        match stored {
            Ok(revision) => {
                self.revision = revision;
                if self.game.is_over()
                    && let Some(board) = self.game.board_as_mut::<RemoteBoard>()
                {
                    // The game's provider session takes no more jobs.
                    board.end_session();
                }
                if let Some(clock) = change.clock {
                    self.clock = Some(clock);
                }
                if let Some(offers) = change.offers {
                    self.offers = offers;
                }
                Ok(self.state())
            }
            Err(error @ (StoreError::Conflict { .. } | StoreError::MoveWaiting { .. })) => {
                self.reload()?;
                Err(GamesError::conflict(error.to_string(), self.state()))
            }
            Err(error) => {
                self.reload()?;
                Err(store_error(error))
            }
        }
    }

    /// Stores the event just played on the game (`mover`'s move, when it was one): the
    /// mover's clock charged, the next side's started, and the offers the move answered gone.
    fn commit_played(&mut self, input: String, played: String, mover: Option<Color>) -> Result<Value, GamesError> {
        let now = now_ms();
        let mut clock = None;
        let mut comment = None;
        if let (Some(mover), Some(row)) = (mover, &self.clock) {
            let mut row = row.clone();
            let next = (!self.game.is_over()).then(|| self.game.turn());
            comment = Some(clock_comment(row.after_move(mover, next, now)));
            clock = Some(row);
        }
        let ply = self.game.ply();
        let offers: Vec<Offer> = self.offers.iter().filter(|offer| offer.holds_at(ply)).cloned().collect();
        let offers = (offers != self.offers || self.game.is_over())
            .then(|| if self.game.is_over() { Vec::new() } else { offers });
        let change = Change {
            events: vec![NewEvent { input, played, comment }],
            standing: Some(standing(&self.game, &self.setup)),
            clock,
            offers,
            keep: None,
        };
        self.commit(change)
    }

    /// Plays `text` (a move in official notation, or a checkmate-rules mode change) on a game on
    /// the local board, asked for at `revision` and, when given, `ply`.
    pub fn play(&mut self, text: &str, revision: i64, ply: Option<u32>) -> Result<Value, GamesError> {
        self.check(revision, ply)?;
        self.guard_clock()?;
        let text = text.trim();
        let mover = self.game.turn();
        let (played, moved) = replay::apply(&mut self.game, text).map_err(game_error)?;
        self.commit_played(text.to_owned(), played, moved.map(|_| mover))
    }

    /// Refuses a change asked for at `revision` when the game moved since.
    pub(crate) fn check_revision(&mut self, revision: i64) -> Result<(), GamesError> {
        self.check(revision, None)
    }

    /// Checks a move for a remote game before it is claimed: the game is current and at `ply`.
    pub fn check_move(&mut self, revision: i64, ply: Option<u32>) -> Result<(), GamesError> {
        self.check(revision, ply)
    }

    /// Plays the claimed waiting move: its jobs are recorded as they go, and the move is
    /// stored (or taken back) once they end. `before` is the revision the claim was made at.
    pub fn play_claimed(&mut self, claim: &PendingMove, before: Option<i64>) -> Result<Value, GamesError> {
        match before {
            // The claim only bumped the revision: the game is as it was.
            Some(before) if before == self.revision => {
                self.revision = self.context.block(self.context.store.revision(&self.id))?
            }
            _ => self.refresh()?,
        }
        if let Some(cell) = &self.claim {
            cell.set(Some(claim.token.clone()));
        }
        let outcome = replay::apply(&mut self.game, &claim.input);
        if let Some(cell) = &self.claim {
            cell.set(None);
        }
        let store = &self.context.store;
        match outcome {
            Ok((played, _)) => {
                let event = NewEvent { input: claim.input.clone(), played, comment: None };
                match self.context.handle.block_on(store.finish(
                    &self.id,
                    &claim.token,
                    &event,
                    &standing(&self.game, &self.setup),
                )) {
                    Ok(revision) => {
                        self.revision = revision;
                        Ok(self.state())
                    }
                    Err(error) => {
                        // Another process that took the move over may have stored it first.
                        self.reload()?;
                        let stored = self.context.block(self.context.store.game(&self.id))?;
                        let same = stored.events.get(claim.seq as usize).is_some_and(|e| e.input == claim.input);
                        if same { Ok(self.state()) } else { Err(GamesError::conflict(error.to_string(), self.state())) }
                    }
                }
            }
            Err(error) => {
                use qchess_remote::RemoteError;
                let transient = matches!(
                    remote_error(&error),
                    Some(RemoteBoardError::Remote(
                        RemoteError::Network { .. }
                            | RemoteError::Timeout { .. }
                            | RemoteError::Server { .. }
                            | RemoteError::RateLimited { .. }
                    ))
                );
                let detached = matches!(remote_error(&error), Some(RemoteBoardError::Detached { .. }));
                let answer = game_error(error);
                // A job the provider may have is never given up on a transient failure.
                let job_out =
                    transient && self.context.block(store.jobs(&self.id))?.iter().any(qchess_store::JobRow::is_waiting);
                if detached {
                    // Canceled elsewhere: nothing to give back; the game is rebuilt next time.
                    self.revision = -1;
                } else if job_out {
                    // The provider could not be reached: the move waits, and is tried again
                    // (by this process or another) after a while.
                    self.context.block(store.release(
                        &self.id,
                        &claim.token,
                        RETRY_AFTER_FAILURE,
                        &answer.to_string(),
                    ))?;
                } else {
                    // The move failed for good (refused, its job failed or was lost): it is
                    // taken back. A claim already gone was taken back elsewhere.
                    match self.context.handle.block_on(store.abandon(&self.id, &claim.token)) {
                        Ok(_) | Err(StoreError::ClaimLost(_)) => {}
                        Err(other) => return Err(store_error(other)),
                    }
                    self.revision = -1;
                }
                Err(answer)
            }
        }
    }

    /// The computer's choice for the side to move, as the move to enter: as that side's
    /// player, or as `player` when given. On the local board the move is played and stored;
    /// on a remote one only chosen (on an exact copy), to be claimed and played like a person's.
    pub fn computer(&mut self, player: Option<PlayerSpec>, revision: i64) -> Result<ComputerMove, GamesError> {
        self.check(revision, None)?;
        self.guard_clock()?;
        let side = self.game.turn();
        let index = usize::from(side == Color::Black);
        let spec = match player {
            Some(PlayerSpec::Human) => {
                return Err(GamesError::Invalid("player: a human cannot be asked for a computer move".to_owned()));
            }
            Some(spec) => spec,
            None if self.players[index] == PlayerSpec::Human => {
                return Err(GamesError::Invalid(format!(
                    "it is {side}'s turn and {side} is played by a human; send {{\"player\": \"random\"}} (or greedy, ai:N) to let the computer move anyway"
                )));
            }
            None => self.players[index].clone(),
        };
        let seed = computer_seed(self.game.options().seed, side, self.game.ply());
        let movetime = self.context.config.computer_movetime.unwrap_or_else(|| spec.think_time());
        let mut fresh;
        let mover = match (&mut self.searchers[index], &spec) {
            (Some(searcher), PlayerSpec::Level(_)) if spec == self.players[index] => searcher,
            _ => {
                fresh = Player::new(&spec, seed).map_err(player_error)?;
                &mut fresh
            }
        };
        if self.claim.is_none() {
            let played = mover.play(&mut self.game, movetime).map_err(player_error)?;
            let input = replay::chosen_input(&played);
            let state = self.commit_played(input, played.declared.to_string(), Some(side))?;
            return Ok(ComputerMove::Played(state));
        }
        let mut copy = exact_copy(&self.game)?;
        let played = mover.play(&mut copy, movetime).map_err(player_error)?;
        Ok(ComputerMove::Chosen(replay::chosen_input(&played)))
    }

    /// The game record as text.
    pub fn record_text(&mut self) -> Result<String, GamesError> {
        let stored = self.context.block(self.context.store.game(&self.id))?;
        Ok(replay::export(&stored).to_string())
    }

    /// The game's accumulated circuit in `format`, with its sidecar.
    pub fn circuit(&mut self, format: Format) -> Result<Value, GamesError> {
        self.refresh()?;
        let board = self.game.local_board().ok_or_else(|| {
            GamesError::Invalid(format!(
                "circuits are exported from games on the local backend; this game runs on {}",
                self.backend_label
            ))
        })?;
        let failed = |e: qchess_qasm::export::ExportError| {
            GamesError::Internal(format!("exporting the circuit: {}", with_causes(&e)))
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

/// What the computer did.
#[derive(Debug)]
pub enum ComputerMove {
    /// Played and stored (local board): the new state.
    Played(Value),
    /// Chosen, to be played as a waiting move (remote board): the move as entered.
    Chosen(String),
}

/// The game replayed on the exact local board, for a computer player to think on without
/// submitting jobs.
fn exact_copy(game: &Game) -> Result<Game, GamesError> {
    let record = GameRecord::from_game(game, &RecordInfo::default());
    let options = game.options();
    let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
    record.replay_on(LocalBoard::with_options(Bitboard::EMPTY, local), options).map_err(|e| {
        GamesError::Internal(format!(
            "the computer cannot think about this position on the exact simulator: {}",
            with_causes(&e)
        ))
    })
}

/// How long a transient failure of a waiting move waits before the next try.
pub const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(5);
