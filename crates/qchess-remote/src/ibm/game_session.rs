//! One game's session (or batch) on IBM Quantum, as [`IbmMode`] asks: opened when the game's
//! first job goes out, every later job submitted into it, ended when the game ends.
//!
//! * **Opening.** `session` mode asks for a dedicated session; when the instance's plan allows
//!   none ([`plan_refuses_sessions`]), it opens a batch instead and says so once (on stderr,
//!   once per process). `batch` opens a batch; `jobs` opens nothing.
//! * **Joining a kept one.** A game resumed from the store names the session its jobs went into
//!   ([`GameSession::keep`]). It is joined when the service says it still takes jobs and is not
//!   `inactive`; an inactive one (the game was away longer than its interactive time-to-live,
//!   so it no longer holds the device) is closed, and a closed or unknown one forgotten; then a
//!   new one is opened, which [`GameSession::take_opened`] reports so the owner can keep it.
//! * **Ending.** [`GameSession::end`] closes it to new jobs (its queued jobs finish), or
//!   cancels it with its queued jobs when the game was interrupted.

use std::sync::atomic::{AtomicBool, Ordering};

use super::{IbmClient, IbmMode, plan_refuses_sessions};
use crate::error::RemoteError;
use crate::retry::Deadline;

/// Whether the fallback to a batch has been told (once per process).
static FALLBACK_TOLD: AtomicBool = AtomicBool::new(false);

/// A game's session (or batch): opened for its first job ([`GameSession::for_job`]), a kept one
/// joined while the service still takes jobs in it and is not inactive, ended with the game
/// ([`GameSession::end`]). `session` mode falls back to a batch, told once on stderr, when the
/// instance's plan refuses sessions ([`plan_refuses_sessions`]).
#[derive(Debug, Default)]
pub struct GameSession {
    mode: IbmMode,
    /// The session the game's jobs go into, once opened or joined.
    current: Option<String>,
    /// A session kept from an earlier run, to look at before opening one.
    kept: Option<String>,
    /// A session opened that the owner has not taken note of yet.
    opened: Option<String>,
    /// The plan refused a dedicated session: batches from now on.
    batch_only: bool,
}

impl GameSession {
    /// No session yet; jobs go as `mode` says.
    pub fn new(mode: IbmMode) -> GameSession {
        GameSession { mode, ..GameSession::default() }
    }

    /// The mode.
    pub fn mode(&self) -> IbmMode {
        self.mode
    }

    /// The session jobs go into now, if one is open.
    pub fn current(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// Names the session an earlier run of the game used, to join if it still takes jobs.
    pub fn keep(&mut self, id: Option<String>) {
        if self.current.is_none() {
            self.kept = id;
        }
    }

    /// A session opened since the last call, for the owner to keep with the game.
    pub fn take_opened(&mut self) -> Option<String> {
        self.opened.take()
    }

    /// The session (or batch) the next job goes into, opened or joined first; `None` in
    /// `jobs` mode.
    pub async fn for_job(&mut self, client: &IbmClient, deadline: Deadline) -> Result<Option<String>, RemoteError> {
        if self.mode == IbmMode::Jobs {
            return Ok(None);
        }
        if let Some(id) = &self.current {
            return Ok(Some(id.clone()));
        }
        if let Some(kept) = self.kept.take() {
            match client.session(&kept, deadline).await {
                Ok(info) if info.joinable() && info.state != "inactive" => {
                    self.current = Some(kept.clone());
                    return Ok(Some(kept));
                }
                Ok(info) if info.joinable() => {
                    // Best effort: an inactive session holds nothing, and its max_ttl ends it anyway.
                    let _ = client.end_session(&kept, false).await;
                }
                Ok(_) | Err(RemoteError::Rejected { status: 404, .. }) => {}
                Err(error) => {
                    self.kept = Some(kept);
                    return Err(error);
                }
            }
        }
        let dedicated = self.mode == IbmMode::Session && !self.batch_only;
        let info = match client.open_session(dedicated, deadline).await {
            Err(refusal) if dedicated && plan_refuses_sessions(&refusal) => {
                self.batch_only = true;
                if !FALLBACK_TOLD.swap(true, Ordering::SeqCst) {
                    eprintln!(
                        "qchess: IBM Quantum refused a session ({}); the game's jobs run in a batch instead",
                        refusal_message(&refusal)
                    );
                }
                client.open_session(false, deadline).await?
            }
            other => other?,
        };
        self.current = Some(info.id.clone());
        self.opened = Some(info.id.clone());
        Ok(Some(info.id))
    }

    /// After a job was refused in the current session: whether the service has ended that
    /// session (its `max_ttl` passed, or it was closed elsewhere), in which case it is
    /// forgotten and the next [`GameSession::for_job`] opens a new one.
    pub async fn ended_by_service(&mut self, client: &IbmClient, deadline: Deadline) -> Result<bool, RemoteError> {
        let Some(id) = self.current.clone() else { return Ok(false) };
        let ended = match client.session(&id, deadline).await {
            Ok(info) => !info.joinable(),
            Err(RemoteError::Rejected { status: 404, .. }) => true,
            Err(error) => return Err(error),
        };
        if ended {
            self.current = None;
        }
        Ok(ended)
    }

    /// Ends the current session, if any: closed to new jobs, or cancelled with its queued jobs
    /// (`cancel`).
    pub async fn end(&mut self, client: &IbmClient, cancel: bool) -> Result<(), RemoteError> {
        match self.current.take() {
            Some(id) => client.end_session(&id, cancel).await,
            None => Ok(()),
        }
    }
}

/// The service's words of a refusal.
fn refusal_message(error: &RemoteError) -> &str {
    match error {
        RemoteError::Rejected { message, .. } | RemoteError::Auth { message, .. } => message,
        _ => "refused",
    }
}
