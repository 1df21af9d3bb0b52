//! A game kept in the store, as `qchess play`, `qchess game --store` and `qchess games resume`
//! play it: every event stored as it is played, against the revision last seen (a process
//! that lost a race says so rather than overwrite). On a remote backend a move is claimed in
//! the store first, its job recorded before any wait, and a wait that stops (Ctrl-C,
//! `--timeout`) leaves the move waiting there: the job keeps its place at the provider, and
//! `qchess games resume ID` takes it up.

use std::time::Duration;

use anyhow::Context as _;
use qchess_core::Bitboard;
use qchess_engine::record::RecordInfo;
use qchess_engine::{Game, GameError, PlayedMove};
use qchess_remote::RemoteBoardError;
use qchess_store::replay::{self, remote_error, standing};
use qchess_store::{ClaimCell, GameJournal, JobRow, NewEvent, PendingMove, StoredGame};
use serde_json::{Value, json};

use crate::backend::{Backend, BackendArgs, BackendSpec, RemoteArgs};
use crate::exit::bad_input;
use crate::store::Keeper;

/// A game being played from the command line, and where it is kept.
#[derive(Debug)]
pub struct StoredPlay {
    /// The store.
    pub keeper: Keeper,
    /// The game's id.
    pub id: String,
    revision: i64,
    /// The claim a remote board's journal checks while it waits (`None`: local board).
    claim: Option<ClaimCell>,
    /// This process, as the holder of a waiting move.
    holder: String,
    /// How the backend is shown.
    pub backend_label: String,
    /// The game's setup record.
    setup: String,
}

/// Why an event was not played.
#[derive(Debug)]
pub enum PlayError {
    /// The game refused it, or the board failed: nothing was stored.
    Game(GameError),
    /// The move waits for its job (the wait stopped, or the provider is unreachable for now):
    /// it stays in the store, to be resumed.
    Waiting(String),
    /// The store failed, or another process changed the game.
    Store(anyhow::Error),
}

impl From<anyhow::Error> for PlayError {
    fn from(error: anyhow::Error) -> PlayError {
        PlayError::Store(error)
    }
}

/// A new game to store.
#[derive(Debug)]
pub struct NewStored<'a> {
    /// `play` or `game`.
    pub origin: &'a str,
    /// White's player.
    pub white: String,
    /// Black's player.
    pub black: String,
    /// The backend and its flags.
    pub backend: &'a BackendArgs,
    /// The names for the setup record.
    pub info: RecordInfo,
    /// More settings to keep (a JSON object; `remote` is added).
    pub options: Value,
}

impl StoredPlay {
    /// Stores a new game that starts as `setup` (made on the exact local board) and returns it
    /// with the game on its backend.
    pub fn create(keeper: Keeper, new: NewStored<'_>, setup: &Game) -> anyhow::Result<(StoredPlay, Game)> {
        let backend = Backend::resolve(&new.backend.backend, &new.backend.remote)?;
        let setup_text = replay::setup_record(setup, &RecordInfo { backend: backend.label(), ..new.info });
        let standing = standing(setup, &setup_text);
        let mut options = new.options;
        options["remote"] = new.backend.remote.to_stored();
        let row = qchess_store::NewGame {
            id: None,
            origin: new.origin.to_owned(),
            rules: setup.rules().name().to_owned(),
            white: new.white,
            black: new.black,
            backend: new.backend.backend.to_string(),
            backend_label: backend.label(),
            seed: setup.options().seed,
            setup: setup_text,
            options,
            owner: None,
            result: standing.result,
            to_move: standing.to_move,
            ply: standing.ply,
        };
        let summary = keeper.block(keeper.store().create_game(&row))?;
        let stored = keeper.block(keeper.store().game(&summary.id))?;
        StoredPlay::open(keeper, &stored, &backend, new.backend, false)
    }

    /// Stored game `id` rebuilt on its backend (the flags given fill in, or override, the
    /// kept ones; keys come from the flags or the environment). With `resubmit`, a job the
    /// provider lost may be submitted again.
    pub fn resume(
        keeper: Keeper,
        id: &str,
        flags: &RemoteArgs,
        resubmit: bool,
    ) -> anyhow::Result<(StoredPlay, Game, StoredGame, BackendArgs)> {
        let stored = keeper.block(keeper.store().game(id))?;
        let args = backend_args(&stored, flags)?;
        if resubmit {
            keeper.block(keeper.store().abandon_reservations(id))?;
        }
        let backend = Backend::resolve(&args.backend, &args.remote)?;
        let (play, game) = StoredPlay::open(keeper, &stored, &backend, &args, resubmit)?;
        Ok((play, game, stored, args))
    }

    fn open(
        keeper: Keeper,
        stored: &StoredGame,
        backend: &Backend,
        args: &BackendArgs,
        resubmit: bool,
    ) -> anyhow::Result<(StoredPlay, Game)> {
        let summary = &stored.summary;
        let journal = GameJournal::new(keeper.store().clone(), keeper.handle(), &summary.id, &summary.backend_label)
            .resubmitting(resubmit);
        let claim = backend.remote_config().map(|_| journal.claim());
        let board = backend
            .journaled_board(Bitboard::EMPTY, summary.seed, journal, args.foreground_wait())
            .with_context(|| format!("backend {}", backend.label()))?;
        let game = replay::rebuild(stored, board)
            .map_err(|e| anyhow::Error::new(e).context(format!("rebuilding stored game {}", summary.id)))?;
        let play = StoredPlay {
            keeper,
            id: summary.id.clone(),
            revision: summary.revision,
            claim,
            holder: format!("cli-{}", std::process::id()),
            backend_label: summary.backend_label.clone(),
            setup: stored.setup.clone(),
        };
        Ok((play, game))
    }

    /// Plays one event (a move, `mode:...`, `resign:SIDE`, `time:SIDE`) and stores it, with
    /// `comment` (a clock's time) on it.
    pub fn play(
        &mut self,
        game: &mut Game,
        input: &str,
        comment: Option<String>,
    ) -> Result<(String, Option<PlayedMove>), PlayError> {
        let input = input.trim();
        if self.claim.is_none() {
            let (played, mv) = replay::apply(game, input).map_err(PlayError::Game)?;
            self.append(game, NewEvent { input: input.to_owned(), played: played.clone(), comment })?;
            return Ok((played, mv));
        }
        let store = self.keeper.store();
        let (claim, revision) =
            self.keeper.block(store.claim(&self.id, self.revision, input, &self.holder, Duration::ZERO))?;
        self.revision = revision;
        self.play_claimed(game, &claim, comment)
    }

    /// Stores a move a computer just played on `game` (on the local board) as the move it chose.
    pub fn record_played(&mut self, game: &Game, played: &PlayedMove, comment: Option<String>) -> anyhow::Result<()> {
        let event = NewEvent { input: replay::chosen_input(played), played: played.declared.to_string(), comment };
        self.append(game, event)
    }

    fn append(&mut self, game: &Game, event: NewEvent) -> anyhow::Result<()> {
        let store = self.keeper.store();
        self.revision =
            self.keeper.block(store.append(&self.id, self.revision, &[event], &standing(game, &self.setup)))?;
        Ok(())
    }

    /// Writes `comment` (a clock's time) on the last stored event.
    pub fn comment_last(&mut self, comment: &str) -> anyhow::Result<()> {
        self.keeper.block(self.keeper.store().comment_last(&self.id, comment))
    }

    /// Whether moves wait for a remote provider.
    pub fn is_remote(&self) -> bool {
        self.claim.is_some()
    }

    /// Plays the game's waiting move, when it has one (`qchess games resume`): its job is
    /// polled again, never submitted anew.
    pub fn play_pending(&mut self, game: &mut Game) -> Result<Option<(String, Option<PlayedMove>)>, PlayError> {
        let store = self.keeper.store();
        let Some(pending) = self.keeper.block(store.pending(&self.id))? else { return Ok(None) };
        let taken = self.keeper.block(store.take_over(&pending, &self.holder, Duration::ZERO))?.ok_or_else(|| {
            PlayError::Store(anyhow::anyhow!("another process took up the waiting move of game {} just now", self.id))
        })?;
        self.revision = self.keeper.block(store.revision(&self.id))?;
        self.play_claimed(game, &taken, None).map(Some)
    }

    fn play_claimed(
        &mut self,
        game: &mut Game,
        claim: &PendingMove,
        comment: Option<String>,
    ) -> Result<(String, Option<PlayedMove>), PlayError> {
        let cell = self.claim.clone().unwrap_or_default();
        cell.set(Some(claim.token.clone()));
        let outcome = replay::apply(game, &claim.input);
        cell.set(None);
        let store = self.keeper.store();
        match outcome {
            Ok((played, mv)) => {
                let event = NewEvent { input: claim.input.clone(), played: played.clone(), comment };
                self.revision =
                    self.keeper.block(store.finish(&self.id, &claim.token, &event, &standing(game, &self.setup)))?;
                Ok((played, mv))
            }
            Err(error) => {
                let waiting = match remote_error(&error) {
                    Some(RemoteBoardError::Detached { .. }) => true,
                    Some(RemoteBoardError::JobLost { .. } | RemoteBoardError::SubmissionUncertain { .. }) => true,
                    Some(RemoteBoardError::Journal(message)) if message.contains("--resubmit") => true,
                    // A finished task whose results object is missing (S3's NoSuchKey): the
                    // move keeps waiting, for the object may be restored; `games cancel` takes
                    // it back.
                    Some(RemoteBoardError::Remote(qchess_remote::RemoteError::Rejected { message, .. }))
                        if message.starts_with("NoSuchKey") =>
                    {
                        true
                    }
                    Some(RemoteBoardError::Remote(
                        qchess_remote::RemoteError::Network { .. }
                        | qchess_remote::RemoteError::Timeout { .. }
                        | qchess_remote::RemoteError::Server { .. }
                        | qchess_remote::RemoteError::RateLimited { .. },
                    )) => self.keeper.block(store.jobs(&self.id))?.iter().any(JobRow::is_waiting),
                    _ => false,
                };
                if waiting {
                    let why = remote_error(&error)
                        .map_or_else(|| qchess_core::text::with_causes(&error), |e| qchess_core::text::with_causes(e));
                    return Err(PlayError::Waiting(why));
                }
                // The move failed for good: it is taken back.
                self.revision = self.keeper.block(store.abandon(&self.id, &claim.token))?;
                Err(PlayError::Game(error))
            }
        }
    }

    /// Takes back the last `plies` moves (a mode change after the last kept move goes too) and
    /// rebuilds the game; returns the moves taken back.
    pub fn undo(&mut self, game: &mut Game, plies: usize, args: &BackendArgs) -> anyhow::Result<Vec<String>> {
        let store = self.keeper.store();
        let stored = self.keeper.block(store.game(&self.id))?;
        let is_move = |input: &str| {
            !qchess_engine::game::is_mode_token(input) && !input.starts_with("resign:") && !input.starts_with("time:")
        };
        let mut keep = stored.events.len();
        let mut taken = Vec::new();
        while keep > 0 && taken.len() < plies {
            keep -= 1;
            if is_move(&stored.events[keep].input) {
                taken.push(stored.events[keep].played.clone());
            }
        }
        let mut kept = stored.clone();
        kept.events.truncate(keep);
        let backend = Backend::resolve(&args.backend, &args.remote)?;
        let journal = GameJournal::new(store.clone(), self.keeper.handle(), &self.id, &self.backend_label);
        let claim = backend.remote_config().map(|_| journal.claim());
        let board = backend.journaled_board(Bitboard::EMPTY, stored.summary.seed, journal, args.foreground_wait())?;
        let rebuilt = replay::rebuild(&kept, board).context("rebuilding the game")?;
        self.revision = self.keeper.block(store.truncate(
            &self.id,
            self.revision,
            keep as u32,
            &standing(&rebuilt, &self.setup),
        ))?;
        *game = rebuilt;
        self.claim = claim;
        Ok(taken)
    }
}

/// The backend flags of stored game `stored`: its backend, with the kept flags filling the
/// ones not given now.
pub fn backend_args(stored: &StoredGame, flags: &RemoteArgs) -> anyhow::Result<BackendArgs> {
    let spec: BackendSpec = stored.summary.backend.parse().map_err(|e: String| {
        anyhow::anyhow!("stored game {} names a backend this qchess cannot use: {e}", stored.summary.id)
    })?;
    let kept = stored.options.get("remote").cloned().unwrap_or_else(|| json!({}));
    Ok(BackendArgs { backend: spec, remote: flags.or_stored(&kept) })
}

/// The message of a move left waiting, with how to come back.
pub fn waiting_message(id: &str, why: &str) -> String {
    format!(
        "{why}\nThe move waits in the store as game {id}: `qchess games resume {id}` takes it up, `qchess games cancel {id}` cancels its job and takes it back."
    )
}

/// Refuses a game id that is no game id.
pub fn check_id(id: &str) -> anyhow::Result<&str> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(bad_input(format!(
            "`{}` is not a game id; `qchess games` lists them",
            qchess_core::text::excerpt(id)
        )));
    }
    Ok(id)
}
