//! Jobs that outlive the process that submitted them.
//!
//! A [`RemoteBoard`](crate::RemoteBoard) given a [`JobJournal`] asks it about every circuit
//! before running one, and tells it each step of the job, so that a game stored move by move
//! can stop waiting at any moment (Ctrl-C, a foreground time limit, a crash) and take up the
//! same job later, in another process:
//!
//! 1. [`JobJournal::find`]: a result already recorded for the circuit ([`Recorded::Completed`])
//!    is used as it is; a job recorded as submitted is waited for again; a submission whose
//!    answer never arrived ([`Recorded::Reserved`]) is looked up at the provider by its name
//!    before anything is sent again. So a job is never submitted twice for one circuit.
//! 2. [`JobJournal::reserve`] before submitting gives the job's name;
//!    [`JobJournal::submitted`] records the provider's job id before any wait.
//! 3. [`JobJournal::progress`] hears every status read while waiting, and may ask the wait to
//!    stop ([`Watch::Stop`]: someone canceled the move elsewhere).
//! 4. [`JobJournal::completed`] records the results; [`JobJournal::ended`] a job that failed,
//!    was canceled, or that the provider no longer knows.
//! 5. [`JobJournal::session`] and [`JobJournal::session_opened`] keep the provider session
//!    the game's jobs go into (IBM Quantum's sessions and batches), so a resumed game joins
//!    it; [`JobJournal::game_over`] says whether it ends with the board.
//!
//! Circuits are known by [`JobKey`]: a hash of the circuit as submitted, and the shots.

use std::fmt;

use qchess_circuit::ir::Circuit;

use crate::client::JobResult;

/// What a journal's failure says (a journal lives in another crate, with its own errors).
pub type JournalError = Box<dyn std::error::Error + Send + Sync>;

/// One circuit run for some shots.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JobKey {
    /// [`circuit_hash`] of the circuit as submitted.
    pub circuit: String,
    /// Shots asked for.
    pub shots: u64,
}

impl JobKey {
    /// The key of `circuit` run for `shots` shots.
    pub fn new(circuit: &Circuit, shots: u64) -> JobKey {
        JobKey { circuit: circuit_hash(circuit), shots }
    }
}

impl fmt::Display for JobKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "circuit {} for {} shots", self.circuit, self.shots)
    }
}

/// A circuit's fingerprint: FNV-1a (64 bits, as 16 hex digits) of its full description.
pub fn circuit_hash(circuit: &Circuit) -> String {
    let text = format!("{circuit:?}");
    let hash = text
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3));
    format!("{hash:016x}")
}

/// What a journal knows of a circuit.
#[derive(Debug, Clone, PartialEq)]
pub enum Recorded {
    /// Its job finished; here are the results.
    Completed(JobResult),
    /// Its job was submitted and has not finished (as far as the journal knows).
    Submitted {
        /// The provider's job id.
        job_id: String,
    },
    /// A submission was sent under this name and its answer never arrived.
    Reserved {
        /// The name the job was submitted under.
        name: String,
    },
}

/// Where a job is, in any provider's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobPhase {
    /// Waiting to run.
    Queued,
    /// Running.
    Running,
    /// Finished with results.
    Completed,
    /// Finished with a failure.
    Failed,
    /// Canceled.
    Canceled,
}

impl JobPhase {
    /// `queued`, `running`, `completed`, `failed` or `canceled`.
    pub fn name(self) -> &'static str {
        match self {
            JobPhase::Queued => "queued",
            JobPhase::Running => "running",
            JobPhase::Completed => "completed",
            JobPhase::Failed => "failed",
            JobPhase::Canceled => "canceled",
        }
    }
}

/// One status read of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobProgress {
    /// The phase.
    pub phase: JobPhase,
    /// The provider's own word for it (`ready`, `Queued`, ...).
    pub status: String,
    /// Its place in the queue, when the provider says.
    pub queue_position: Option<u64>,
    /// The provider's guess of the time left in the queue, in milliseconds.
    pub predicted_wait_ms: Option<u64>,
    /// Why it failed or was canceled, when the provider says.
    pub message: Option<String>,
}

/// What a journal wants after hearing a status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Watch {
    /// Go on waiting.
    Continue,
    /// Stop waiting (the job is left as it is): the reason.
    Stop(String),
}

/// How a job ended without results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobEnd {
    /// It failed: the provider's message.
    Failed(String),
    /// It was canceled.
    Canceled,
    /// The provider no longer knows it.
    Lost,
}

/// Where a board's jobs are recorded: see the [module docs](self).
pub trait JobJournal: Send {
    /// What is known of `key`'s circuit.
    fn find(&mut self, key: &JobKey) -> Result<Option<Recorded>, JournalError>;
    /// Records that `key`'s circuit is about to be submitted; returns the name to submit it under.
    fn reserve(&mut self, key: &JobKey) -> Result<String, JournalError>;
    /// Forgets a reservation whose submission certainly did not reach the provider.
    fn release(&mut self, key: &JobKey, name: &str) -> Result<(), JournalError>;
    /// Records the provider's id of the job submitted under `name`.
    fn submitted(&mut self, key: &JobKey, name: &str, job_id: &str) -> Result<(), JournalError>;
    /// Hears one status read while waiting.
    fn progress(&mut self, key: &JobKey, job_id: &str, progress: &JobProgress) -> Result<Watch, JournalError>;
    /// Records a finished job's results.
    fn completed(&mut self, key: &JobKey, result: &JobResult) -> Result<(), JournalError>;
    /// Records a job that ended without results.
    fn ended(&mut self, key: &JobKey, job_id: &str, end: &JobEnd) -> Result<(), JournalError>;
    /// The provider session (an IBM Quantum session or batch) the game's jobs went into last,
    /// to join again if it still takes jobs; a journal that keeps none says `None`.
    fn session(&mut self) -> Result<Option<String>, JournalError> {
        Ok(None)
    }
    /// Records the session the game's jobs go into from now on.
    fn session_opened(&mut self, _id: &str) -> Result<(), JournalError> {
        Ok(())
    }
    /// Whether the game is over (or can never be resumed), so that its session ends with its
    /// board; a journal that cannot tell says yes, as a board without a kept game ends its
    /// session when dropped.
    fn game_over(&mut self) -> Result<bool, JournalError> {
        Ok(true)
    }
}

/// How long a journaled board waits for a job in the foreground.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WaitPolicy {
    /// Stop waiting after this long (the job goes on); `None`: until it finishes.
    pub foreground: Option<std::time::Duration>,
    /// Stop waiting on Ctrl-C (the job goes on) instead of ending the process.
    pub detach_on_interrupt: bool,
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::{Gate, QubitRole};

    use super::*;

    #[test]
    fn equal_circuits_share_a_hash_and_different_ones_do_not() {
        let mut a = Circuit::new();
        let q = a.add_qubit(QubitRole::General);
        a.push_gate(Gate::x(q));
        let mut b = Circuit::new();
        let q = b.add_qubit(QubitRole::General);
        b.push_gate(Gate::x(q));
        assert_eq!(circuit_hash(&a), circuit_hash(&b));
        assert_eq!(circuit_hash(&a).len(), 16);
        b.push_gate(Gate::x(q));
        assert_ne!(circuit_hash(&a), circuit_hash(&b));
        assert_eq!(JobKey::new(&a, 100).to_string(), format!("circuit {} for 100 shots", circuit_hash(&a)));
    }
}
