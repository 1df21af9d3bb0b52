//! The games loaded in this process: one thread per game, reached through a channel.
//!
//! A game's quantum board need not be `Send` (a remote board holds a client), so the session is
//! built on its thread and never leaves it; requests send closures to it. A closure that panics
//! is caught: the request fails ([`GamesError::Internal`]) and the thread goes on with the next
//! one. A thread
//! ends when its game is unloaded (deleted, or unused past the idle time: the game stays in the
//! store, archived) or on its own after the idle time. While a move waits for a provider the
//! thread is busy with it; the game's last state is kept beside the thread for the answers
//! given meanwhile.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::oneshot;

use crate::error::GamesError;
use crate::session::Session;

/// Work for a game's thread.
type Job = Box<dyn FnOnce(&mut Option<Session>) + Send>;

/// What builds a game's session on its thread.
pub(crate) type Loader = Box<dyn FnOnce() -> Result<Session, GamesError> + Send>;

/// The last state of a game and the revision it is of.
pub(crate) type Cached = Arc<Mutex<Option<(i64, Value)>>>;

/// The way to one game's thread.
#[derive(Debug)]
struct Handle {
    jobs: mpsc::Sender<Job>,
    last_used: Instant,
    /// A waiting move runs on the thread.
    busy: Arc<AtomicBool>,
    cached: Cached,
}

/// Every loaded game. See the [module docs](self).
#[derive(Debug)]
pub(crate) struct LiveGames {
    max: usize,
    idle: Duration,
    games: Mutex<HashMap<String, Handle>>,
    /// Games being set up: they count against the limit before they are in the table.
    starting: AtomicUsize,
}

/// Keeps a thread's session's state beside the thread after each job.
fn remember(session: &mut Option<Session>, cached: &Cached) {
    let Some(session) = session.as_mut() else { return };
    let mut cached = cached.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if cached.as_ref().is_some_and(|(revision, _)| *revision == session.revision) || session.revision < 0 {
        return;
    }
    let state = session.last_state().unwrap_or_else(|| session.state());
    *cached = Some((session.revision, state));
}

impl LiveGames {
    pub(crate) fn new(max: usize, idle: Duration) -> LiveGames {
        LiveGames { max, idle, games: Mutex::new(HashMap::new()), starting: AtomicUsize::new(0) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Handle>> {
        // A panic never happens while the table is held; if one did, the table is still whole.
        self.games.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Loaded games.
    pub(crate) fn count(&self) -> usize {
        self.lock().len()
    }

    /// Whether game `id` is loaded here and busy with a waiting move.
    pub(crate) fn busy(&self, id: &str) -> bool {
        self.lock().get(id).is_some_and(|handle| handle.busy.load(Ordering::SeqCst))
    }

    /// The last state of game `id`, if it is loaded here.
    pub(crate) fn cached(&self, id: &str) -> Option<(i64, Value)> {
        let cached = Arc::clone(&self.lock().get(id)?.cached);
        cached.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Takes a place for a new game, refusing past the limit (loaded games unused for a while
    /// are unloaded first to make room when `evict`).
    fn reserve(&self, evict: bool) -> Result<Starting<'_>, GamesError> {
        let mut games = self.lock();
        self.sweep(&mut games);
        if evict && games.len() + self.starting.load(Ordering::SeqCst) >= self.max {
            let oldest = games
                .iter()
                .filter(|(_, handle)| !handle.busy.load(Ordering::SeqCst))
                .min_by_key(|(_, handle)| handle.last_used)
                .map(|(id, _)| id.clone());
            if let Some(id) = oldest {
                games.remove(&id);
            }
        }
        let open = games.len() + self.starting.load(Ordering::SeqCst);
        if open >= self.max {
            return Err(GamesError::TooMany {
                message: format!(
                    "{open} games are open, the most this server keeps at once; delete one (DELETE /api/games/{{id}}) or wait until idle games are archived"
                ),
                retry_after: 60,
            });
        }
        // Taken under the table's lock, so that concurrent creations cannot pass the limit.
        self.starting.fetch_add(1, Ordering::SeqCst);
        Ok(Starting(&self.starting))
    }

    /// Starts a thread for game `id` with `load`, runs `work` first, and enters the thread in
    /// the table. `new` games count against the limit; loading a stored one unloads an idle one
    /// when full.
    pub(crate) async fn start<T: Send + 'static>(
        &self,
        id: &str,
        new: bool,
        load: Loader,
        work: impl FnOnce(&mut Session) -> Result<T, GamesError> + Send + 'static,
    ) -> Result<T, GamesError> {
        let _slot = self.reserve(!new)?;
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (reply, answer) = oneshot::channel::<Result<T, GamesError>>();
        let idle = self.idle;
        let busy = Arc::new(AtomicBool::new(false));
        let cached: Cached = Arc::new(Mutex::new(None));
        let thread_cached = Arc::clone(&cached);
        std::thread::Builder::new()
            .name(format!("game-{id}"))
            .spawn(move || {
                let mut session = match catch_unwind(AssertUnwindSafe(load)) {
                    Ok(Ok(session)) => Some(session),
                    Ok(Err(error)) => return drop(reply.send(Err(error))),
                    Err(_) => return drop(reply.send(Err(internal("setting up the game")))),
                };
                let first = catch_unwind(AssertUnwindSafe(|| work(session.as_mut().expect("loaded"))))
                    .unwrap_or_else(|_| Err(internal("handling the request; the game is as it was before it")));
                remember(&mut session, &thread_cached);
                let _ = reply.send(first);
                serve(&mut session, &inbox, idle, &thread_cached);
            })
            .map_err(|e| GamesError::Unavailable(format!("cannot start a game thread: {e}")))?;
        let answer = answer.await.map_err(|_| internal("setting up the game"))?;
        // A game that could not be set up has no thread to enter.
        if answer.is_ok() || matches!(answer, Err(GamesError::Conflict { .. })) {
            self.lock().insert(id.to_owned(), Handle { jobs, last_used: Instant::now(), busy, cached });
        }
        answer
    }

    /// Runs `work` on game `id`'s thread; `None` when the game is not loaded here (or its
    /// thread ended).
    pub(crate) async fn with<T: Send + 'static>(
        &self,
        id: &str,
        work: impl FnOnce(&mut Session) -> Result<T, GamesError> + Send + 'static,
    ) -> Option<Result<T, GamesError>> {
        let (reply, answer) = oneshot::channel::<Result<T, GamesError>>();
        let job: Job = Box::new(move |session| {
            let result = match session.as_mut() {
                Some(session) => catch_unwind(AssertUnwindSafe(|| work(session)))
                    .unwrap_or_else(|_| Err(internal("handling the request; the game is as it was before it"))),
                None => Err(internal("the game's thread lost its game")),
            };
            let _ = reply.send(result);
        });
        {
            let mut games = self.lock();
            self.sweep(&mut games);
            let handle = games.get_mut(id)?;
            handle.last_used = Instant::now();
            if handle.jobs.send(job).is_err() {
                games.remove(id);
                return None;
            }
        }
        match answer.await {
            Ok(result) => Some(result),
            // The thread ended with the job queued (idle just then): load the game again.
            Err(_) => {
                self.lock().remove(id);
                None
            }
        }
    }

    /// Runs a waiting move's `work` on game `id`'s thread, marked busy meanwhile; its answer
    /// comes through the returned channel. `None` when the game is not loaded here.
    pub(crate) fn run_waiting(
        &self,
        id: &str,
        work: impl FnOnce(&mut Session) -> Result<Value, GamesError> + Send + 'static,
    ) -> Option<oneshot::Receiver<Result<Value, GamesError>>> {
        let (reply, answer) = oneshot::channel::<Result<Value, GamesError>>();
        let mut games = self.lock();
        let handle = games.get_mut(id)?;
        handle.last_used = Instant::now();
        let busy = Arc::clone(&handle.busy);
        busy.store(true, Ordering::SeqCst);
        let game = id.to_owned();
        let job: Job = Box::new(move |session| {
            let result = match session.as_mut() {
                Some(session) => catch_unwind(AssertUnwindSafe(|| work(session)))
                    .unwrap_or_else(|_| Err(internal("playing a waiting move"))),
                None => Err(internal("the game's thread lost its game")),
            };
            busy.store(false, Ordering::SeqCst);
            // A move that finished in the background has nobody to tell but the log.
            if let Err(Err(error)) = reply.send(result) {
                eprintln!("qchess serve: game {game}: the waiting move failed: {error}");
            }
        });
        if handle.jobs.send(job).is_err() {
            games.remove(id);
            return None;
        }
        Some(answer)
    }

    /// Unloads game `id`; false when it was not loaded.
    pub(crate) fn remove(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// Unloads games unused past the idle time (a busy one stays); returns their ids.
    pub(crate) fn unload_idle(&self) -> Vec<String> {
        let mut games = self.lock();
        let idle: Vec<String> = games
            .iter()
            .filter(|(_, handle)| handle.last_used.elapsed() >= self.idle && !handle.busy.load(Ordering::SeqCst))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &idle {
            games.remove(id);
        }
        idle
    }

    /// Forgets games whose thread ended on its own.
    fn sweep(&self, games: &mut HashMap<String, Handle>) {
        let idle = self.idle;
        games.retain(|_, handle| handle.busy.load(Ordering::SeqCst) || handle.last_used.elapsed() < idle);
    }
}

/// A game being set up; counts against the limit until dropped.
struct Starting<'a>(&'a AtomicUsize);

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A game thread's loop: run jobs until the game is unloaded or idle too long.
fn serve(session: &mut Option<Session>, inbox: &mpsc::Receiver<Job>, idle: Duration, cached: &Cached) {
    loop {
        match inbox.recv_timeout(idle) {
            Ok(job) => {
                job(session);
                remember(session, cached);
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
        }
    }
}

fn internal(doing: &str) -> GamesError {
    GamesError::Internal(format!("internal error while {doing}"))
}
