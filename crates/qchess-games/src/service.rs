//! [`Games`]: the one interface to the game service. Games live in the store
//! ([`qchess_store`]); this process keeps some loaded (`live`) and checks, on every
//! request, that its copy is the store's current revision (another process may have moved).
//! A move on a remote provider is claimed in the store before its job is submitted, plays on
//! the game's thread while the request waits a moment, and, if the job is slower, is answered
//! pending ([`Answer::Pending`]) with the waiting move; it finishes in the background, or in
//! another process that takes the claim's lease over if this one dies (`recovery`).

use std::sync::Arc;
use std::time::Duration;

use qchess_store::{GameSummary, PendingMove, Seat, Store};
use serde_json::{Value, json};
use tokio::sync::{Notify, Semaphore, watch};

use crate::choices::parse_player;
use crate::config::GamesConfig;
use crate::error::{GamesError, store_error};
use crate::hub::Hub;
use crate::limits::Limits;
use crate::live::{LiveGames, Loader};
use crate::new_game::{BackendChoice, NewGame, NewGameBody, REMOTE};
use crate::seats::{Caller, Role, Want, add_links, authorize, closed_reason, for_side_to_move, role_of, seating};
use crate::session::{ComputerMove, Context, Session, now_ms};
use crate::view;

/// The game service ([crate docs](crate)). Games live in the store; this process keeps some
/// loaded and checks, on every request, that its copy is the store's current revision. A move
/// on a remote provider is claimed in the store before its job is submitted, plays on the
/// game's thread while the request waits a moment, and, if the job is slower, is answered
/// [`Answer::Pending`]; it finishes in the background, or in another process that takes the
/// claim's lease over if this one dies.
#[derive(Debug)]
pub struct Games {
    pub(crate) context: Context,
    pub(crate) live: LiveGames,
    /// This process's name in leases.
    instance: String,
    /// What this instance's event streams watch.
    hub: Arc<Hub>,
    /// Rate limits of changes and new games.
    pub(crate) limits: Limits,
    /// Wakes the referee when a clock changed here.
    pub(crate) referee: Notify,
    /// The coach's searches that may run at once.
    pub(crate) searches: Arc<Semaphore>,
    /// Turns true when the service closes: event streams end.
    pub(crate) closing: watch::Sender<bool>,
}

/// A request let in to a game: the game as read, its seats, and the caller's seat in it.
#[derive(Debug)]
pub(crate) struct Admitted {
    /// The game.
    pub summary: GameSummary,
    /// Its seats.
    pub seats: Vec<Seat>,
    /// The caller's seat.
    pub role: Option<Role>,
}

/// A change's answer: the game's state, and whether the change is done.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// Done: the state after it.
    Done(Value),
    /// Not done yet (a move waits for its provider's job, a takeback for the opponent's
    /// answer): the state meanwhile.
    Pending(Value),
}

impl Answer {
    /// The state answered.
    pub fn state(&self) -> &Value {
        match self {
            Answer::Done(state) | Answer::Pending(state) => state,
        }
    }

    /// The same answer with its state changed by `change`.
    pub(crate) fn map(self, change: impl FnOnce(Value) -> Value) -> Answer {
        match self {
            Answer::Done(state) => Answer::Done(change(state)),
            Answer::Pending(state) => Answer::Pending(change(state)),
        }
    }
}

impl Games {
    /// The games kept in `store`, reached on the runtime of `handle`.
    pub fn new(store: Store, handle: tokio::runtime::Handle, config: GamesConfig) -> Games {
        let live = LiveGames::new(config.max_games, config.idle_timeout);
        let instance = format!("{}-{:08x}", std::process::id(), rand::random::<u32>());
        let limits = Limits::new(config.rates);
        // Four per processor: a board asks for a new evaluation at every move, before the last
        // one's search has ended.
        let processors = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        Games {
            context: Context { store, handle, config },
            live,
            instance,
            hub: Arc::default(),
            limits,
            referee: Notify::new(),
            searches: Arc::new(Semaphore::new(4 * processors)),
            closing: watch::Sender::new(false),
        }
    }

    /// What this instance's event streams watch.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// Lets `caller` in to game `id` to do what `want` says of it, or says why not (no seat
    /// token, the wrong one, past the rate limits).
    pub(crate) async fn admit(
        &self,
        id: &str,
        caller: &Caller,
        want: impl FnOnce(&GameSummary) -> Want,
    ) -> Result<Admitted, GamesError> {
        let summary = self.summary(id).await?;
        let seats = if summary.seated { self.context.store.seats(id).await.map_err(store_error)? } else { Vec::new() };
        let role = role_of(&summary, &seats, caller)?;
        let want = want(&summary);
        authorize(&summary, role, want)?;
        if want != Want::Watch {
            self.limits.change(&format!("{id}/{}", role.map_or("-", Role::name)), caller.address)?;
        }
        Ok(Admitted { summary, seats, role })
    }

    /// The seat `caller` watches game `id` with (for its event stream).
    pub async fn watcher(&self, id: &str, caller: &Caller) -> Result<Option<Role>, GamesError> {
        Ok(self.admit(id, caller, |_| Want::Watch).await?.role)
    }

    /// `state` (with its waiting move) as answered to `admitted`'s caller: with the server's
    /// time, the caller's seat and the players' presence; its streams hear of it.
    pub(crate) fn answer(&self, mut state: Value, admitted: &Admitted) -> Value {
        let summary = &admitted.summary;
        let now = now_ms();
        let mut players = serde_json::Map::new();
        for (role, player) in [(Role::White, &summary.white), (Role::Black, &summary.black)] {
            let seat = admitted.seats.iter().find(|seat| seat.role == role.name());
            let online = self.hub.online_here(&summary.id, role)
                || seat.and_then(|seat| seat.seen_at).is_some_and(|at| now - at < 12_000);
            players.insert(
                role.name().to_owned(),
                json!({
                    "player": player,
                    "seat": seat.is_some(),
                    "joined": seat.is_some_and(|seat| seat.seen_at.is_some() || seat.claimed_at.is_some()),
                    "online": online,
                }),
            );
        }
        state["players"] = Value::Object(players);
        state["seated"] = json!(summary.seated);
        state["public"] = json!(summary.public);
        state["casual"] = json!(summary.casual);
        let over = state["over"].as_bool().unwrap_or(summary.is_over());
        state["coach_closed"] = json!(closed_reason(summary, over));
        state["you"] = json!(admitted.role.map(Role::name));
        state["server_time"] = json!(now);
        if let Some(revision) = state["revision"].as_i64() {
            self.hub.changed(&summary.id, revision);
        }
        if state["clock"].is_object() {
            self.referee.notify_one();
        }
        state
    }

    /// The settings.
    pub fn config(&self) -> &GamesConfig {
        &self.context.config
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.context.store
    }

    /// This process's name in leases.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    /// Games loaded in this process.
    pub fn loaded(&self) -> usize {
        self.live.count()
    }

    fn loader(&self, id: &str) -> Loader {
        let context = self.context.clone();
        let id = id.to_owned();
        Box::new(move || {
            let stored = context.block(context.store.game(&id))?;
            Session::load(&stored, &context)
        })
    }

    /// Runs `work` on game `id`'s session, loading the game when it is not loaded here.
    pub(crate) async fn on_session<T: Send + 'static>(
        &self,
        id: &str,
        work: impl FnOnce(&mut Session) -> Result<T, GamesError> + Send + Clone + 'static,
    ) -> Result<T, GamesError> {
        if self.live.busy(id) {
            let summary = self.summary(id).await?;
            return Err(self.waiting_conflict(&summary).await);
        }
        if let Some(answer) = self.live.with(id, work.clone()).await {
            return answer;
        }
        self.live.start(id, false, self.loader(id), work).await
    }

    pub(crate) async fn summary(&self, id: &str) -> Result<GameSummary, GamesError> {
        self.context.store.summary(id).await.map_err(store_error)
    }

    /// A conflict: a move waits for a provider, with the game's state.
    pub(crate) async fn waiting_conflict(&self, summary: &GameSummary) -> GamesError {
        let pending = summary.pending.as_ref().map_or("a move", |p| p.input.as_str());
        let state = self.state_of(summary).await.unwrap_or(Value::Null);
        GamesError::conflict(
            format!(
                "game {} has a move waiting ({pending}: {}); wait for it or cancel it (POST /api/games/{}/cancel)",
                summary.id,
                summary.status(),
                summary.id
            ),
            state,
        )
    }

    /// Starts game `id` as `body` asks for `caller`: stored first with its seats, then loaded.
    /// The answer has each human seat's token and link, and the spectators' link, under
    /// `base_url` (where players reach the server).
    pub async fn create(
        &self,
        id: String,
        body: NewGameBody,
        caller: &Caller,
        base_url: &str,
    ) -> Result<Value, GamesError> {
        let spec = NewGame::from_body(body, self.config().remote.is_some())?;
        self.limits.creation(caller.address)?;
        let label = match spec.backend {
            BackendChoice::Local => "local".to_owned(),
            BackendChoice::Remote => {
                self.config().remote.as_ref().map_or_else(|| "remote".to_owned(), |r| r.label.clone())
            }
        };
        let row = spec.to_store(&id, &label)?;
        let (seating, tokens) = seating(&spec)?;
        let summary = self.context.store.create_seated_game(&row, &seating).await.map_err(store_error)?;
        let made = self.live.start(&id, true, self.loader(&id), |session| Ok(session.state())).await;
        match made {
            Ok(state) => {
                let seats = seating
                    .seats
                    .iter()
                    .map(|seat| Seat {
                        game_id: id.clone(),
                        role: seat.role.clone(),
                        token_hash: seat.token_hash.clone(),
                        claimed_at: None,
                        seen_at: None,
                    })
                    .collect();
                let admitted = Admitted { summary, seats, role: None };
                let mut state = self.answer(self.with_pending(state, None), &admitted);
                add_links(&mut state, &id, &tokens, base_url);
                Ok(state)
            }
            Err(error) => {
                // A game that could not be set up (a provider refusing) is not kept.
                let _ = self.context.store.delete_game(&id).await;
                Err(error)
            }
        }
    }

    /// Game `id`'s state, with its waiting move, as `caller` sees it.
    pub async fn state(&self, id: &str, caller: &Caller) -> Result<Value, GamesError> {
        let admitted = self.admit(id, caller, |_| Want::Watch).await?;
        let state = self.state_of(&admitted.summary).await?;
        Ok(self.answer(state, &admitted))
    }

    /// Game `id`'s state with its waiting move, for `admitted`'s caller.
    pub(crate) async fn state_for(&self, id: &str, admitted: &Admitted) -> Result<Value, GamesError> {
        Ok(self.answer(self.current(id).await?, admitted))
    }

    /// Game `id`'s state with its waiting move, as of now.
    async fn current(&self, id: &str) -> Result<Value, GamesError> {
        let summary = self.summary(id).await?;
        self.state_of(&summary).await
    }

    pub(crate) async fn state_of(&self, summary: &GameSummary) -> Result<Value, GamesError> {
        let cached = self.live.cached(&summary.id);
        let state = match cached {
            // While this process plays the game's waiting move, the last state stands (with the
            // move shown waiting); once the move is stored elsewhere or here, the thread answers.
            Some((revision, state))
                if revision == summary.revision || (summary.pending.is_some() && self.live.busy(&summary.id)) =>
            {
                state
            }
            _ => {
                let load = self.loader(&summary.id);
                let work = |session: &mut Session| {
                    session.refresh()?;
                    Ok(session.state())
                };
                match self.live.with(&summary.id, work).await {
                    Some(answer) => answer?,
                    None => self.live.start(&summary.id, false, load, work).await?,
                }
            }
        };
        Ok(self.with_pending(state, Some(summary)))
    }

    /// `state` with the waiting move of `summary` (`null` when none).
    pub(crate) fn with_pending(&self, mut state: Value, summary: Option<&GameSummary>) -> Value {
        let pending = summary.and_then(|s| s.pending.as_ref().map(|p| view::pending(s, p)));
        state["waiting"] = json!(pending.is_some());
        state["pending"] = pending.unwrap_or(Value::Null);
        if let Some(summary) = summary {
            state["archived"] = json!(summary.archived);
            // The store's revision: a waiting move's claim bumped it past the state drawn.
            state["revision"] = json!(summary.revision);
        }
        state
    }

    /// Plays `text` on game `id` (at `ply`, when given) for `caller`, who must hold the seat
    /// to move.
    pub async fn play(&self, id: &str, caller: &Caller, text: String, ply: Option<u32>) -> Result<Answer, GamesError> {
        let admitted = self.admit(id, caller, for_side_to_move).await?;
        if !qchess_store::replay::is_play(&text) {
            return Err(GamesError::Invalid(format!(
                "move: `{}` is not a move; resign, offer a draw or claim on time with their own requests",
                qchess_core::text::excerpt(text.trim())
            )));
        }
        let summary = &admitted.summary;
        if summary.pending.is_some() {
            return Err(self.waiting_conflict(summary).await);
        }
        let revision = summary.revision;
        if summary.backend != REMOTE {
            let state = self.on_session(id, move |session| session.play(&text, revision, ply)).await?;
            return Ok(Answer::Done(self.answer(self.with_pending(state, None), &admitted)));
        }
        self.on_session(id, move |session| session.check_move(revision, ply)).await?;
        let answer = self.play_waiting(summary, text.trim()).await?;
        Ok(answer.map(|state| self.answer(state, &admitted)))
    }

    /// Claims `input` as game `summary`'s next move and plays it: done when its jobs end within
    /// the answer wait, else pending with the waiting move.
    async fn play_waiting(&self, summary: &GameSummary, input: &str) -> Result<Answer, GamesError> {
        let id = summary.id.clone();
        let claimed = self.context.store.claim(&id, summary.revision, input, &self.instance, self.config().lease).await;
        let (claim, _) = match claimed {
            Ok(claim) => claim,
            Err(error) => {
                let current = self.summary(&id).await?;
                let state = self.state_of(&current).await.unwrap_or(Value::Null);
                return Err(GamesError::conflict(error.to_string(), state));
            }
        };
        let Some(answer) = self.run_claimed(&id, claim, Some(summary.revision)).await else {
            return Ok(Answer::Pending(self.current(&id).await?));
        };
        match tokio::time::timeout(self.config().answer_wait, answer).await {
            Ok(Ok(Ok(state))) => Ok(Answer::Done(self.with_pending(state, None))),
            Ok(Ok(Err(error))) => Err(error),
            _ => Ok(Answer::Pending(self.current(&id).await?)),
        }
    }

    /// Plays a claimed move on game `id`'s thread (loading it first when needed).
    pub(crate) async fn run_claimed(
        &self,
        id: &str,
        claim: PendingMove,
        before: Option<i64>,
    ) -> Option<tokio::sync::oneshot::Receiver<Result<Value, GamesError>>> {
        if self.live.cached(id).is_none() {
            // Not loaded: load it (a no-op job), so the move has a thread to run on.
            if let Err(error) = self.live.start(id, false, self.loader(id), |_| Ok(())).await {
                let _ = self.context.store.release(id, &claim.token, Duration::from_secs(1), &error.to_string()).await;
                return None;
            }
        }
        self.live.run_waiting(id, move |session| session.play_claimed(&claim, before))
    }

    /// The computer moves for the side to move of game `id`, asked by `caller`: a seat of the
    /// game (the side's own, when a person plays it). `player` (`random`, `greedy`, `ai:K`)
    /// plays instead of the side's own computer player, or for a person.
    pub async fn computer(&self, id: &str, caller: &Caller, player: Option<&str>) -> Result<Answer, GamesError> {
        let player =
            player.map(|p| parse_player(p).map_err(|e| GamesError::Invalid(format!("player: {e}")))).transpose()?;
        let admitted = self.admit(id, caller, for_side_to_move).await?;
        let summary = &admitted.summary;
        if summary.pending.is_some() {
            return Err(self.waiting_conflict(summary).await);
        }
        let revision = summary.revision;
        let answer = match self.on_session(id, move |session| session.computer(player, revision)).await? {
            ComputerMove::Played(state) => Answer::Done(self.with_pending(state, None)),
            ComputerMove::Chosen(input) => self.play_waiting(summary, &input).await?,
        };
        Ok(answer.map(|state| self.answer(state, &admitted)))
    }

    /// Cancels game `id`'s waiting move for `caller` (the seat whose move it is): its job is
    /// canceled at the provider and the move taken back.
    pub async fn cancel(&self, id: &str, caller: &Caller) -> Result<Value, GamesError> {
        let admitted = self.admit(id, caller, for_side_to_move).await?;
        if self.context.store.cancel_pending(id).await.map_err(store_error)?.is_none() {
            return Err(GamesError::Invalid(format!("game {id} has no move waiting")));
        }
        self.cancel_jobs(&admitted.summary).await;
        self.state_for(id, &admitted).await
    }

    /// Asks the provider to cancel game `summary`'s unfinished jobs (best effort: the move is
    /// taken back whatever the provider says).
    async fn cancel_jobs(&self, summary: &GameSummary) {
        let Some(remote) = self.config().remote.clone() else { return };
        let Ok(jobs) = self.context.store.jobs(&summary.id).await else { return };
        for job in jobs.into_iter().filter(qchess_store::JobRow::is_waiting) {
            if let Some(job_id) = job.job_id.clone() {
                let config = remote.config.clone();
                let canceled =
                    tokio::task::spawn_blocking(move || qchess_remote::board::cancel_job(&config, &job_id)).await;
                let end = qchess_remote::journal::JobEnd::Canceled;
                if matches!(canceled, Ok(Ok(()))) {
                    let _ = self.context.store.end_job(&summary.id, job.job_id.as_deref().unwrap_or(""), &end).await;
                }
            }
        }
    }

    /// Deletes game `id` for `caller` (canceling a waiting move's job first).
    pub async fn delete(&self, id: &str, caller: &Caller) -> Result<Value, GamesError> {
        let summary = match self.admit(id, caller, |_| Want::Delete).await {
            Ok(admitted) => admitted.summary,
            Err(GamesError::NotFound(_)) => {
                return Err(GamesError::NotFound(format!("no game `{id}` to delete")));
            }
            Err(error) => return Err(error),
        };
        if summary.pending.is_some() {
            let _ = self.context.store.cancel_pending(id).await;
            self.cancel_jobs(&summary).await;
        }
        // Read before the game goes: a game deleted before its end leaves its session open (a
        // finished game's was closed when it ended).
        let session =
            if summary.is_over() { None } else { self.context.store.provider_session(id).await.ok().flatten() };
        self.live.remove(id);
        if !self.context.store.delete_game(id).await.map_err(store_error)? {
            return Err(GamesError::NotFound(format!("no game `{id}` to delete")));
        }
        if let Some(session) = session {
            self.cancel_session(id, session).await;
        }
        Ok(json!({ "id": id, "deleted": true }))
    }

    /// Asks the provider to cancel the session of game `id`, just deleted, with its queued jobs
    /// (best effort: a session left open ends at its time-to-live).
    async fn cancel_session(&self, id: &str, session: String) {
        let Some(remote) = self.config().remote.clone() else { return };
        let config = remote.config.clone();
        let ended = tokio::task::spawn_blocking(move || qchess_remote::board::cancel_session(&config, &session)).await;
        if let Ok(Err(error)) = ended {
            eprintln!("qchess serve: game {id} was deleted, but its provider session stays open: {error}");
        }
    }

    /// Unloads games unused past the idle time and archives the store's idle web games.
    pub(crate) async fn archive_idle(&self) {
        self.live.unload_idle();
        let idle = i64::try_from(self.config().idle_timeout.as_millis()).unwrap_or(i64::MAX / 2);
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
        let _ = self.context.store.archive_idle("web", now - idle).await;
    }
}
