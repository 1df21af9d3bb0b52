//! Where games live: one thread per game, reached through a channel.
//!
//! A game's quantum board need not be `Send` (a remote board holds a client), so the game is
//! built on its thread and never leaves it; requests send closures to it. A closure that
//! panics is caught: the request is answered 500 and the game thread goes on with the next
//! one. A game thread ends when its game is deleted, or on its own after the idle timeout;
//! expired entries are swept from the table on every visit.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use tokio::sync::oneshot;

use super::GamesConfig;
use super::session::{NewGame, Session};
use crate::error::ApiError;

/// Work for a game's thread.
type Job = Box<dyn FnOnce(&mut Session) + Send>;

/// The way to one game's thread.
#[derive(Debug)]
struct Handle {
    jobs: mpsc::Sender<Job>,
    last_used: Instant,
}

/// Every open game. See the [module docs](self).
#[derive(Debug)]
pub struct GameStore {
    config: GamesConfig,
    games: Mutex<HashMap<String, Handle>>,
    /// Games being set up: they count against the limit before they are in the table.
    starting: AtomicUsize,
}

impl GameStore {
    /// An empty store.
    pub fn new(config: GamesConfig) -> GameStore {
        GameStore { config, games: Mutex::new(HashMap::new()), starting: AtomicUsize::new(0) }
    }

    /// The settings.
    pub fn config(&self) -> &GamesConfig {
        &self.config
    }

    /// The ids of the open games.
    pub fn ids(&self) -> Vec<String> {
        let mut games = self.lock();
        self.sweep(&mut games);
        let mut ids: Vec<String> = games.keys().cloned().collect();
        ids.sort();
        ids
    }

    /// Starts a game under `id`; answers what `view` makes of it once it is set up.
    pub async fn create<T: Send + 'static>(
        &self,
        id: String,
        spec: NewGame,
        view: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        {
            let mut games = self.lock();
            self.sweep(&mut games);
            let open = games.len() + self.starting.load(Ordering::SeqCst);
            if open >= self.config.max_games {
                return Err(ApiError::too_many(
                    format!(
                        "{open} games are open, the most this server keeps; delete one (DELETE /api/games/{{id}}) or wait until idle games expire"
                    ),
                    60,
                ));
            }
            // Taken under the table's lock, so that concurrent creations cannot pass the limit.
            self.starting.fetch_add(1, Ordering::SeqCst);
        }
        // Given back however this ends, a client hanging up included.
        let _slot = Starting(&self.starting);
        self.start_thread(id, spec, view).await
    }

    /// Starts game `id`'s thread and enters it in the table once it is set up.
    async fn start_thread<T: Send + 'static>(
        &self,
        id: String,
        spec: NewGame,
        view: impl FnOnce(&mut Session) -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (reply, answer) = oneshot::channel::<Result<T, ApiError>>();
        let idle = self.config.idle_timeout;
        let config = self.config.clone();
        std::thread::Builder::new()
            .name(format!("game-{id}"))
            .spawn(move || {
                let built = catch_unwind(AssertUnwindSafe(|| Session::new(spec, &config)));
                let mut session = match built {
                    Ok(Ok(session)) => session,
                    Ok(Err(error)) => return drop(reply.send(Err(error))),
                    Err(_) => return drop(reply.send(Err(internal("setting up the game")))),
                };
                let first = catch_unwind(AssertUnwindSafe(|| view(&mut session)));
                let _ = reply.send(first.map_err(|_| internal("describing the new game")));
                serve(&mut session, &inbox, idle);
            })
            .map_err(|e| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, format!("cannot start a game thread: {e}")))?;
        let answer = answer.await.map_err(|_| internal("setting up the game"))??;
        self.lock().insert(id, Handle { jobs, last_used: Instant::now() });
        Ok(answer)
    }

    /// Runs `work` on game `id`'s thread and answers its result.
    pub async fn with<T: Send + 'static>(
        &self,
        id: &str,
        work: impl FnOnce(&mut Session) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let (reply, answer) = oneshot::channel::<Result<T, ApiError>>();
        let job: Job = Box::new(move |session| {
            let result = catch_unwind(AssertUnwindSafe(|| work(session)))
                .unwrap_or_else(|_| Err(internal("handling the request; the game is as it was before it")));
            let _ = reply.send(result);
        });
        {
            let mut games = self.lock();
            self.sweep(&mut games);
            let handle = games.get_mut(id).ok_or_else(|| self.unknown(id))?;
            handle.last_used = Instant::now();
            if handle.jobs.send(job).is_err() {
                games.remove(id);
                return Err(self.unknown(id));
            }
        }
        match answer.await {
            Ok(result) => result,
            // The thread ended with the job queued: the game expired just as it was asked about.
            Err(_) => {
                self.lock().remove(id);
                Err(self.unknown(id))
            }
        }
    }

    /// Drops game `id`; false when there is none.
    pub fn delete(&self, id: &str) -> bool {
        let mut games = self.lock();
        self.sweep(&mut games);
        games.remove(id).is_some()
    }

    fn unknown(&self, id: &str) -> ApiError {
        ApiError::not_found(format!(
            "no game `{id}`: it was never created, was deleted, or expired after {} s unused",
            self.config.idle_timeout.as_secs()
        ))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Handle>> {
        // A panic never happens while the table is held; if one did, the table is still whole.
        self.games.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Forgets games idle past the timeout (their threads have ended or end on their own).
    fn sweep(&self, games: &mut HashMap<String, Handle>) {
        let idle = self.config.idle_timeout;
        games.retain(|_, handle| handle.last_used.elapsed() < idle);
    }
}

/// A game being set up; counts against the limit until dropped.
struct Starting<'a>(&'a AtomicUsize);

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A game thread's loop: run jobs until the game is dropped or idle too long.
fn serve(session: &mut Session, inbox: &mpsc::Receiver<Job>, idle: Duration) {
    loop {
        match inbox.recv_timeout(idle) {
            Ok(job) => job(session),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
        }
    }
}

fn internal(doing: &str) -> ApiError {
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("internal error while {doing}"))
}
