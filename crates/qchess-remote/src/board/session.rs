//! A board's provider session ends with its game: the game's owner calls
//! [`RemoteBoard::end_session`] when the game ends, and when a board on IBM Quantum whose jobs
//! went into a session (or batch) is dropped, the session is closed to new jobs (cancelled, with
//! its queued jobs, after Ctrl-C) if the game is over, or if the board keeps no game to resume.
//! A kept game that is not over keeps its session, so that resuming it joins the session again.

use super::runner::Runner;
use super::{RemoteBoard, RemoteBoardConfig, RemoteBoardError};
use crate::ibm::IbmClient;

/// Cancels provider session `session` of games played as `config` says, with its queued jobs:
/// for a game deleted before it ended, whose session nothing will join again. Only IBM Quantum
/// boards keep sessions (a board with IBM settings runs on IBM); for any other provider there is
/// nothing to do.
pub fn cancel_session(config: &RemoteBoardConfig, session: &str) -> Result<(), RemoteBoardError> {
    let Some(ibm) = &config.ibm else { return Ok(()) };
    let runtime = super::runtime()?;
    let client = IbmClient::new(ibm.clone()).map_err(RemoteBoardError::Remote)?;
    runtime.block_on(client.end_session(session, true)).map_err(RemoteBoardError::Remote)
}

impl RemoteBoard {
    /// Closes the provider session this board's jobs went into (IBM Quantum), if one is open:
    /// for a game that has ended. Best effort: a session left open ends at its time-to-live.
    pub fn end_session(&mut self) {
        let Runner::Ibm(runner) = &mut self.runner else { return };
        if runner.session().current().is_none() {
            return;
        }
        let runtime = &self.runtime;
        // On a thread of its own: the board may be used inside another runtime, where its own
        // runtime may not block.
        std::thread::scope(|scope| {
            let _ = scope.spawn(|| runtime.block_on(runner.end_session())).join();
        });
    }
}

impl Drop for RemoteBoard {
    fn drop(&mut self) {
        let Runner::Ibm(runner) = &mut self.runner else { return };
        if runner.session().current().is_none() {
            return;
        }
        let journal = &mut self.journal;
        // On a thread of its own, as in `end_session`, since neither may a journal's store
        // block here; a panic included (a store whose runtime is shutting down).
        let over = std::thread::scope(|scope| {
            let asked = scope.spawn(|| journal.as_mut().is_none_or(|j| j.journal.game_over().unwrap_or(false)));
            asked.join().unwrap_or(false)
        });
        if over {
            self.end_session();
        }
    }
}
