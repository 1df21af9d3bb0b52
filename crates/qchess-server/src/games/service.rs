//! [`Games`]: the one interface the game API's handlers go through. Games live in the store
//! ([`qchess_store`]); this process keeps some loaded (`live`) and checks, on every
//! request, that its copy is the store's current revision (another process may have moved).
//! A move on a remote provider is claimed in the store before its job is submitted, plays on
//! the game's thread while the request waits a moment, and, if the job is slower, answers 202
//! with the waiting move; it finishes in the background, or in another process that takes the
//! claim's lease over if this one dies ([`recovery`](super::recovery)).

use std::time::Duration;

use std::sync::Arc;

use axum::http::StatusCode;
use qchess_search::player::PlayerSpec;
use qchess_store::{GameSummary, ListFilter, PendingMove, Seat, Store};
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::GamesConfig;
use super::hub::Hub;
use super::limits::Limits;
use super::live::{LiveGames, Loader};
use super::seats::{Caller, Role, Want, authorize, for_side_to_move, role_of};
use super::session::{ComputerMove, Context, NewGame, Session, now_ms, store_error};
use super::view;
use crate::error::ApiError;

/// The games of this server: see the [module docs](self).
#[derive(Debug)]
pub struct Games {
    pub(super) context: Context,
    pub(super) live: LiveGames,
    /// This process's name in leases.
    instance: String,
    /// What this instance's event streams watch.
    hub: Arc<Hub>,
    /// Rate limits of changes and new games.
    pub(super) limits: Limits,
    /// Wakes the referee when a clock changed here.
    pub(super) referee: Notify,
}

/// A request let in to a game: the game as read, its seats, and the caller's seat in it.
#[derive(Debug)]
pub(super) struct Admitted {
    /// The game.
    pub summary: GameSummary,
    /// Its seats.
    pub seats: Vec<Seat>,
    /// The caller's seat.
    pub role: Option<Role>,
}

/// A game operation's answer: its status (200, 201 or 202) and body.
pub type Answer = (StatusCode, Value);

impl Games {
    /// The games kept in `store`, reached on the runtime of `handle`.
    pub fn new(store: Store, handle: tokio::runtime::Handle, config: GamesConfig) -> Games {
        let live = LiveGames::new(config.max_games, config.idle_timeout);
        let instance = format!("{}-{:08x}", std::process::id(), rand::random::<u32>());
        let limits = Limits::new(config.rates);
        Games {
            context: Context { store, handle, config },
            live,
            instance,
            hub: Arc::default(),
            limits,
            referee: Notify::new(),
        }
    }

    /// What this instance's event streams watch.
    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// Lets `caller` in to game `id` to do what `want` says of it, or says why not (401 without
    /// a seat token, 403 with the wrong one, 429 past the rate limits).
    pub(super) async fn admit(
        &self,
        id: &str,
        caller: &Caller,
        want: impl FnOnce(&GameSummary) -> Want,
    ) -> Result<Admitted, ApiError> {
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
    pub async fn watcher(&self, id: &str, caller: &Caller) -> Result<Option<Role>, ApiError> {
        Ok(self.admit(id, caller, |_| Want::Watch).await?.role)
    }

    /// `state` (with its waiting move) as answered to `admitted`'s caller: with the server's
    /// time, the caller's seat and the players' presence; its streams hear of it.
    pub(super) fn answer(&self, mut state: Value, admitted: &Admitted) -> Value {
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
    pub(super) async fn on_session<T: Send + 'static>(
        &self,
        id: &str,
        work: impl FnOnce(&mut Session) -> Result<T, ApiError> + Send + Clone + 'static,
    ) -> Result<T, ApiError> {
        if self.live.busy(id) {
            let summary = self.summary(id).await?;
            return Err(self.waiting_conflict(&summary).await);
        }
        if let Some(answer) = self.live.with(id, work.clone()).await {
            return answer;
        }
        self.live.start(id, false, self.loader(id), work).await
    }

    pub(super) async fn summary(&self, id: &str) -> Result<GameSummary, ApiError> {
        self.context.store.summary(id).await.map_err(store_error)
    }

    /// 409: a move waits for a provider, with the game's state.
    pub(super) async fn waiting_conflict(&self, summary: &GameSummary) -> ApiError {
        let pending = summary.pending.as_ref().map_or("a move", |p| p.input.as_str());
        let state = self.state_of(summary).await.unwrap_or(Value::Null);
        ApiError::conflict(
            format!(
                "game {} has a move waiting ({pending}: {}); wait for it or cancel it (POST /api/games/{}/cancel)",
                summary.id,
                summary.status(),
                summary.id
            ),
            state,
        )
    }

    /// Starts a game as `spec` asks for `caller`: stored first with its seats, then loaded.
    /// The answer has each human seat's token and link, and the spectators' link, under
    /// `base_url`.
    pub async fn create(&self, id: String, spec: NewGame, caller: &Caller, base_url: &str) -> Result<Answer, ApiError> {
        self.limits.creation(caller.address)?;
        let label = match spec.backend {
            super::session::BackendChoice::Local => "local".to_owned(),
            super::session::BackendChoice::Remote => {
                self.config().remote.as_ref().map_or_else(|| "remote".to_owned(), |r| r.label.clone())
            }
        };
        let row = spec.to_store(&id, &label)?;
        let (seating, tokens) = super::acting::seating(&spec)?;
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
                super::acting::add_links(&mut state, &id, &tokens, base_url);
                Ok((StatusCode::CREATED, state))
            }
            Err(error) => {
                // A game that could not be set up (a provider refusing) is not kept.
                let _ = self.context.store.delete_game(&id).await;
                Err(error)
            }
        }
    }

    /// Game `id`'s state, with its waiting move, as `caller` sees it.
    pub async fn state(&self, id: &str, caller: &Caller) -> Result<Value, ApiError> {
        let admitted = self.admit(id, caller, |_| Want::Watch).await?;
        let state = self.state_of(&admitted.summary).await?;
        Ok(self.answer(state, &admitted))
    }

    /// Game `id`'s state with its waiting move, for `admitted`'s caller.
    pub(super) async fn state_for(&self, id: &str, admitted: &Admitted) -> Result<Value, ApiError> {
        Ok(self.answer(self.current(id).await?, admitted))
    }

    /// Game `id`'s state with its waiting move, as of now.
    async fn current(&self, id: &str) -> Result<Value, ApiError> {
        let summary = self.summary(id).await?;
        self.state_of(&summary).await
    }

    pub(super) async fn state_of(&self, summary: &GameSummary) -> Result<Value, ApiError> {
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
    pub(super) fn with_pending(&self, mut state: Value, summary: Option<&GameSummary>) -> Value {
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
    pub async fn play(&self, id: &str, caller: &Caller, text: String, ply: Option<u32>) -> Result<Answer, ApiError> {
        let admitted = self.admit(id, caller, for_side_to_move).await?;
        if !qchess_store::replay::is_play(&text) {
            return Err(ApiError::bad_request(format!(
                "move: `{}` is not a move; resign, offer a draw or claim on time with their own requests",
                qchess_core::text::excerpt(text.trim())
            )));
        }
        let summary = &admitted.summary;
        if summary.pending.is_some() {
            return Err(self.waiting_conflict(summary).await);
        }
        let revision = summary.revision;
        if summary.backend != super::session::REMOTE {
            let state = self.on_session(id, move |session| session.play(&text, revision, ply)).await?;
            return Ok((StatusCode::OK, self.answer(self.with_pending(state, None), &admitted)));
        }
        self.on_session(id, move |session| session.check_move(revision, ply)).await?;
        let (status, state) = self.play_waiting(summary, text.trim()).await?;
        Ok((status, self.answer(state, &admitted)))
    }

    /// Claims `input` as game `summary`'s next move and plays it: 200 when its jobs end within
    /// the answer wait, else 202 with the waiting move.
    async fn play_waiting(&self, summary: &GameSummary, input: &str) -> Result<Answer, ApiError> {
        let id = summary.id.clone();
        let claimed = self.context.store.claim(&id, summary.revision, input, &self.instance, self.config().lease).await;
        let (claim, _) = match claimed {
            Ok(claim) => claim,
            Err(error) => {
                let current = self.summary(&id).await?;
                let state = self.state_of(&current).await.unwrap_or(Value::Null);
                return Err(ApiError::conflict(error.to_string(), state));
            }
        };
        let Some(answer) = self.run_claimed(&id, claim, Some(summary.revision)).await else {
            return Ok((StatusCode::ACCEPTED, self.current(&id).await?));
        };
        match tokio::time::timeout(self.config().answer_wait, answer).await {
            Ok(Ok(Ok(state))) => Ok((StatusCode::OK, self.with_pending(state, None))),
            Ok(Ok(Err(error))) => Err(error),
            _ => Ok((StatusCode::ACCEPTED, self.current(&id).await?)),
        }
    }

    /// Plays a claimed move on game `id`'s thread (loading it first when needed).
    pub(super) async fn run_claimed(
        &self,
        id: &str,
        claim: PendingMove,
        before: Option<i64>,
    ) -> Option<tokio::sync::oneshot::Receiver<Result<Value, ApiError>>> {
        if self.live.cached(id).is_none() {
            // Not loaded: load it (a no-op job), so the move has a thread to run on.
            if let Err(error) = self.live.start(id, false, self.loader(id), |_| Ok(())).await {
                let _ = self.context.store.release(id, &claim.token, Duration::from_secs(1), &error.message).await;
                return None;
            }
        }
        self.live.run_waiting(id, move |session| session.play_claimed(&claim, before))
    }

    /// The computer moves for the side to move of game `id`, asked by `caller`: a seat of the
    /// game (the side's own, when a person plays it).
    pub async fn computer(&self, id: &str, caller: &Caller, player: Option<PlayerSpec>) -> Result<Answer, ApiError> {
        let admitted = self.admit(id, caller, for_side_to_move).await?;
        let summary = &admitted.summary;
        if summary.pending.is_some() {
            return Err(self.waiting_conflict(summary).await);
        }
        let revision = summary.revision;
        let (status, state) = match self.on_session(id, move |session| session.computer(player, revision)).await? {
            ComputerMove::Played(state) => (StatusCode::OK, self.with_pending(state, None)),
            ComputerMove::Chosen(input) => self.play_waiting(summary, &input).await?,
        };
        Ok((status, self.answer(state, &admitted)))
    }

    /// Cancels game `id`'s waiting move for `caller` (the seat whose move it is): its job is
    /// canceled at the provider and the move taken back.
    pub async fn cancel(&self, id: &str, caller: &Caller) -> Result<Value, ApiError> {
        let admitted = self.admit(id, caller, for_side_to_move).await?;
        if self.context.store.cancel_pending(id).await.map_err(store_error)?.is_none() {
            return Err(ApiError::bad_request(format!("game {id} has no move waiting")));
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
    pub async fn delete(&self, id: &str, caller: &Caller) -> Result<Value, ApiError> {
        let summary = match self.admit(id, caller, |_| Want::Delete).await {
            Ok(admitted) => admitted.summary,
            Err(error) if error.status == StatusCode::NOT_FOUND => {
                return Err(ApiError::not_found(format!("no game `{id}` to delete")));
            }
            Err(error) => return Err(error),
        };
        if summary.pending.is_some() {
            let _ = self.context.store.cancel_pending(id).await;
            self.cancel_jobs(&summary).await;
        }
        self.live.remove(id);
        if !self.context.store.delete_game(id).await.map_err(store_error)? {
            return Err(ApiError::not_found(format!("no game `{id}` to delete")));
        }
        Ok(json!({ "id": id, "deleted": true }))
    }

    /// Stored games (the visitor's, when `owner` is given).
    pub async fn list(&self, filter: &ListFilter) -> Result<Value, ApiError> {
        let games = self.context.store.list(filter).await.map_err(store_error)?;
        Ok(json!({ "games": games.iter().map(view::summary).collect::<Vec<_>>() }))
    }

    /// The legal moves of game `id`.
    pub async fn legal_moves(&self, id: &str, caller: &Caller) -> Result<Value, ApiError> {
        self.admit(id, caller, |_| Want::Watch).await?;
        self.on_session(id, |session| session.legal_moves()).await
    }

    /// The analysis of one square of game `id`.
    pub async fn square(&self, id: &str, caller: &Caller, square: qchess_core::Square) -> Result<Value, ApiError> {
        self.admit(id, caller, |_| Want::Watch).await?;
        self.on_session(id, move |session| session.square(square)).await
    }

    /// Game `id`'s record.
    pub async fn record(&self, id: &str, caller: &Caller) -> Result<Value, ApiError> {
        self.admit(id, caller, |_| Want::Watch).await?;
        let text = self.on_session(id, |session| session.record_text()).await?;
        Ok(json!({ "id": id, "record": text }))
    }

    /// Game `id`'s circuit.
    pub async fn circuit(
        &self,
        id: &str,
        caller: &Caller,
        format: qchess_qasm::export::Format,
    ) -> Result<Value, ApiError> {
        self.admit(id, caller, |_| Want::Watch).await?;
        self.on_session(id, move |session| session.circuit(format)).await
    }

    /// Unloads games unused past the idle time and archives the store's idle web games.
    pub(super) async fn archive_idle(&self) {
        self.live.unload_idle();
        let idle = i64::try_from(self.config().idle_timeout.as_millis()).unwrap_or(i64::MAX / 2);
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
        let _ = self.context.store.archive_idle("web", now - idle).await;
    }
}
