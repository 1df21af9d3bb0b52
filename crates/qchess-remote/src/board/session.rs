//! A board's provider session ends with its game: when a board on IBM Quantum whose jobs went
//! into a session (or batch) is dropped, the session is closed to new jobs (cancelled, with its
//! queued jobs, after Ctrl-C) if the game is over, or if the board keeps no game to resume. A
//! kept game that is not over keeps its session, so that resuming it joins the session again.

use super::RemoteBoard;
use super::runner::Runner;

impl Drop for RemoteBoard {
    fn drop(&mut self) {
        let Runner::Ibm(runner) = &mut self.runner else { return };
        if runner.session().current().is_none() {
            return;
        }
        let (runtime, journal) = (&self.runtime, &mut self.journal);
        // On a thread of its own: the board may be dropped inside another runtime, where
        // neither its own runtime nor a journal's store may block. Best effort, a panic
        // included (a store whose runtime is shutting down): a session left open ends at its
        // time-to-live.
        std::thread::scope(|scope| {
            let ending = scope.spawn(|| {
                let over = journal.as_mut().is_none_or(|journaled| journaled.journal.game_over().unwrap_or(false));
                if over {
                    let _ = runtime.block_on(runner.end_session());
                }
            });
            let _ = ending.join();
        });
    }
}
