//! A board's circuits run through a [`JobJournal`]: recorded results are reused, a recorded job
//! is waited for again rather than submitted anew, and a wait may end (Ctrl-C, the foreground
//! limit, the journal asking) while the job goes on at the provider. See [`crate::journal`].

use std::time::{Duration, Instant};

use qchess_circuit::ir::Circuit;
use qchess_qasm::ionq::to_ionq;

use super::runner::{Runner, braket};
use super::{RemoteBoard, RemoteBoardError};
use crate::braket::client_token;
use crate::client::JobResult;
use crate::config::ProviderConfig;
use crate::error::RemoteError;
use crate::ibm::IbmJobPhase;
use crate::interrupt::InterruptGuard;
use crate::journal::{JobEnd, JobJournal, JobKey, JobPhase, JobProgress, Recorded, WaitPolicy, Watch};
use crate::progress::Progress;
use crate::retry::Deadline;
use crate::sampler::IbmRunError;
use crate::wire::JobStatus;

/// How often a wait looks for Ctrl-C and its limit between polls.
const CHECK: Duration = Duration::from_millis(100);

/// Jobs the provider lists that are searched for a lost submission's name.
const LOOKUP_WITHIN: usize = 2000;

/// A board's journal and how it waits.
pub(super) struct Journaled {
    pub(super) journal: Box<dyn JobJournal>,
    pub(super) wait: WaitPolicy,
}

impl std::fmt::Debug for Journaled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journaled").field("wait", &self.wait).finish_non_exhaustive()
    }
}

/// Why a wait for a job ended while the job goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DetachReason {
    /// Ctrl-C.
    Interrupted,
    /// The foreground limit (`--timeout`) passed.
    TimedOut(Duration),
    /// The journal asked to stop: why.
    Stopped(String),
}

impl std::fmt::Display for DetachReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DetachReason::Interrupted => f.write_str("interrupted"),
            DetachReason::TimedOut(after) => write!(f, "stopped waiting after {:.1} s", after.as_secs_f64()),
            DetachReason::Stopped(why) => f.write_str(why),
        }
    }
}

impl RemoteBoard {
    /// Records every job in `journal` (see [`crate::journal`]) and waits for jobs as `wait`
    /// says: circuits already recorded are not run again, and a wait that stops leaves the job
    /// running at the provider ([`RemoteBoardError::Detached`]).
    #[must_use]
    pub fn with_journal(mut self, journal: Box<dyn JobJournal>, wait: WaitPolicy) -> RemoteBoard {
        self.journal = Some(Journaled { journal, wait });
        self
    }

    /// Runs a circuit within the move's `deadline`: through the journal when there is one, else
    /// submitted and waited for. Says whether a job was submitted or waited for (not a recorded
    /// result reused).
    pub(super) fn run_circuit(
        &mut self,
        circuit: &Circuit,
        shots: u64,
        deadline: Deadline,
    ) -> Result<(JobResult, bool), RemoteBoardError> {
        let backend = self.config.backend_name();
        match &mut self.journal {
            None => self.runner.run(&self.runtime, circuit, shots, deadline).map(|result| (result, true)),
            Some(journaled) => run_journaled(
                &mut self.runner,
                &self.runtime,
                journaled,
                &self.config.provider,
                &backend,
                circuit,
                shots,
                deadline,
            ),
        }
    }
}

/// Whether a provider has a job of a name.
enum Lookup {
    Found(String),
    Absent,
    /// The provider cannot be asked (IBM Quantum lists no job names).
    CannotTell,
}

fn remote(error: RemoteError) -> RemoteBoardError {
    RemoteBoardError::Remote(error)
}

fn ibm(error: IbmRunError) -> RemoteBoardError {
    match error {
        IbmRunError::Remote(error) => RemoteBoardError::Remote(error),
        other => RemoteBoardError::Ibm(other),
    }
}

fn journal_error(error: crate::journal::JournalError) -> RemoteBoardError {
    RemoteBoardError::Journal(error.to_string())
}

impl Runner {
    fn submit_named(
        &mut self,
        runtime: &tokio::runtime::Runtime,
        circuit: &Circuit,
        shots: u64,
        name: &str,
        deadline: Deadline,
    ) -> Result<String, RemoteBoardError> {
        match self {
            Runner::Ionq(client) => {
                let input = to_ionq(circuit).map_err(|e| remote(e.into()))?;
                runtime.block_on(client.submit_named(&input, shots, name, deadline)).map_err(remote)
            }
            Runner::Ibm(runner) => runtime.block_on(runner.submit(circuit, shots, deadline)).map_err(ibm),
            Runner::Braket(runner) => {
                runtime.block_on(runner.submit(circuit, shots, &client_token(name), deadline)).map_err(braket)
            }
        }
    }

    fn find_named(
        &self,
        runtime: &tokio::runtime::Runtime,
        name: &str,
        deadline: Deadline,
    ) -> Result<Lookup, RemoteBoardError> {
        match self {
            Runner::Ionq(client) => match runtime.block_on(client.find_job_named(name, LOOKUP_WITHIN, deadline)) {
                Ok(Some(id)) => Ok(Lookup::Found(id)),
                Ok(None) => Ok(Lookup::Absent),
                Err(error) => Err(remote(error)),
            },
            Runner::Ibm(_) => Ok(Lookup::CannotTell),
            // Submitting again under the same client token answers the task Braket took, if it
            // took one, and creates it otherwise.
            Runner::Braket(_) => Ok(Lookup::Absent),
        }
    }

    fn state(
        &self,
        runtime: &tokio::runtime::Runtime,
        job_id: &str,
        deadline: Deadline,
    ) -> Result<JobProgress, RemoteError> {
        match self {
            Runner::Ionq(client) => {
                let info = runtime.block_on(client.job_before(job_id, deadline))?;
                let phase = match info.status {
                    JobStatus::Started => JobPhase::Running,
                    JobStatus::Completed => JobPhase::Completed,
                    JobStatus::Failed => JobPhase::Failed,
                    JobStatus::Canceled => JobPhase::Canceled,
                    JobStatus::Submitted | JobStatus::Ready | JobStatus::Other(_) => JobPhase::Queued,
                };
                let message = info.failure.map(|f| format!("{}: {}", f.code, f.message));
                Ok(JobProgress {
                    phase,
                    status: info.status.as_str().to_owned(),
                    queue_position: None,
                    predicted_wait_ms: info
                        .predicted_wait_time_ms
                        .filter(|ms| ms.is_finite() && *ms >= 0.0)
                        .map(|ms| ms as u64),
                    message,
                })
            }
            Runner::Ibm(runner) => {
                let state = runtime.block_on(runner.job_state(job_id, deadline))?;
                let phase = match state.phase {
                    IbmJobPhase::Queued => JobPhase::Queued,
                    IbmJobPhase::Running => JobPhase::Running,
                    IbmJobPhase::Completed => JobPhase::Completed,
                    IbmJobPhase::Failed => JobPhase::Failed,
                    IbmJobPhase::Cancelled => JobPhase::Canceled,
                };
                Ok(JobProgress {
                    phase,
                    status: state.status,
                    queue_position: state.queue_position,
                    predicted_wait_ms: None,
                    message: state.reason,
                })
            }
            Runner::Braket(runner) => {
                let state = runtime.block_on(runner.state(job_id, deadline))?;
                Ok(JobProgress {
                    phase: state.phase(),
                    queue_position: state.queue_position,
                    predicted_wait_ms: None,
                    // The wait reads `CODE: message`.
                    message: state.failure_reason.map(|reason| format!("FAILED: {reason}")),
                    status: state.status,
                })
            }
        }
    }

    fn collect(
        &self,
        runtime: &tokio::runtime::Runtime,
        circuit: &Circuit,
        job_id: &str,
        shots: u64,
        deadline: Deadline,
    ) -> Result<JobResult, RemoteBoardError> {
        match self {
            Runner::Ionq(client) => {
                let qubits = to_ionq(circuit).map_err(|e| remote(e.into()))?.qubits;
                let probabilities =
                    runtime.block_on(client.probabilities_before(job_id, qubits, deadline)).map_err(remote)?;
                Ok(JobResult { job_id: job_id.to_owned(), shots, probabilities })
            }
            Runner::Ibm(runner) => runtime.block_on(runner.collect(circuit, job_id, shots, deadline)).map_err(ibm),
            Runner::Braket(runner) => {
                runtime.block_on(runner.collect(circuit, job_id, shots, deadline)).map_err(braket)
            }
        }
    }
}

/// Whether a request failed on the way rather than by the provider's answer (a timeout, a
/// broken connection, a 500).
fn transient(error: &RemoteBoardError) -> bool {
    matches!(
        error,
        RemoteBoardError::Remote(
            RemoteError::Timeout { .. }
                | RemoteError::OutOfTime { .. }
                | RemoteError::Network { .. }
                | RemoteError::Server { status: 500, .. }
        )
    )
}

/// Runs `circuit` for `shots` through the journal: see the [module docs](self). With a
/// foreground limit (`--timeout`), every request and the wait fit in it, from now; without one,
/// the submission fits in the move's `deadline` and each later request gets a fresh one, as the
/// wait may last hours.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_journaled(
    runner: &mut Runner,
    runtime: &tokio::runtime::Runtime,
    journaled: &mut Journaled,
    provider: &ProviderConfig,
    backend: &str,
    circuit: &Circuit,
    shots: u64,
    deadline: Deadline,
) -> Result<(JobResult, bool), RemoteBoardError> {
    let foreground = journaled.wait.foreground.map(Deadline::after);
    let deadline = foreground.unwrap_or(deadline);
    let key = JobKey::new(circuit, shots);
    let journal = &mut journaled.journal;
    let found = journal.find(&key).map_err(journal_error)?;
    let (job_id, submitted) = match found {
        Some(Recorded::Completed(result)) => return Ok((result, false)),
        Some(Recorded::Submitted { job_id }) => (job_id, false),
        Some(Recorded::Reserved { name }) => match runner.find_named(runtime, &name, deadline)? {
            Lookup::Found(job_id) => {
                journal.submitted(&key, &name, &job_id).map_err(journal_error)?;
                (job_id, false)
            }
            Lookup::Absent => (submit(runner, runtime, journal.as_mut(), &key, circuit, &name, deadline)?, true),
            Lookup::CannotTell => {
                return Err(RemoteBoardError::SubmissionUncertain { name, backend: backend.to_owned() });
            }
        },
        None => {
            let name = journal.reserve(&key).map_err(journal_error)?;
            (submit(runner, runtime, journal.as_mut(), &key, circuit, &name, deadline)?, true)
        }
    };
    wait(runner, runtime, journaled, provider, backend, &key, &job_id, foreground)?;
    let collected = runner.collect(runtime, circuit, &job_id, shots, foreground.unwrap_or_else(|| runner.deadline()));
    let result = match (collected, foreground) {
        (Ok(result), _) => result,
        // The foreground limit ran out while the results were on their way (the body read cut
        // short, a timed-out request): the move detaches as at any other point of the wait, and
        // taking it up again reads the results, which the provider keeps.
        (Err(error), Some(limit)) if transient(&error) && limit.passed() => {
            let reason = DetachReason::TimedOut(limit.timeout);
            return Err(RemoteBoardError::Detached { job_id, backend: backend.to_owned(), reason });
        }
        (Err(error), _) => return Err(error),
    };
    journaled.journal.completed(&key, &result).map_err(journal_error)?;
    Ok((result, submitted))
}

fn submit(
    runner: &mut Runner,
    runtime: &tokio::runtime::Runtime,
    journal: &mut dyn JobJournal,
    key: &JobKey,
    circuit: &Circuit,
    name: &str,
    deadline: Deadline,
) -> Result<String, RemoteBoardError> {
    if let Runner::Ibm(ibm) = runner {
        let kept = journal.session().map_err(journal_error)?;
        ibm.session().keep(kept);
    }
    let submitted = runner.submit_named(runtime, circuit, key.shots, name, deadline);
    if let Runner::Ibm(ibm) = runner
        && let Some(opened) = ibm.session().take_opened()
    {
        journal.session_opened(&opened).map_err(journal_error)?;
    }
    match submitted {
        Ok(job_id) => {
            journal.submitted(key, name, &job_id).map_err(journal_error)?;
            Ok(job_id)
        }
        Err(error) => {
            // A submission that failed on the way may have reached the provider: its
            // reservation is kept, so the next try asks the provider first.
            if !transient(&error) {
                journal.release(key, name).map_err(journal_error)?;
            }
            Err(error)
        }
    }
}

/// Polls the job until it completes; fails when it fails, is canceled or is lost, and detaches
/// on Ctrl-C, at the `foreground` limit, or when the journal asks.
#[allow(clippy::too_many_arguments)]
fn wait(
    runner: &Runner,
    runtime: &tokio::runtime::Runtime,
    journaled: &mut Journaled,
    provider: &ProviderConfig,
    backend: &str,
    key: &JobKey,
    job_id: &str,
    foreground: Option<Deadline>,
) -> Result<(), RemoteBoardError> {
    let policy = journaled.wait;
    let journal = &mut journaled.journal;
    let interrupt = if policy.detach_on_interrupt { InterruptGuard::listen() } else { None };
    let progress = Progress::new(provider.progress(), job_id);
    let detached =
        |reason| RemoteBoardError::Detached { job_id: job_id.to_owned(), backend: backend.to_owned(), reason };
    let poll = provider.poll();
    let mut delay = poll.initial;
    loop {
        let poll_deadline = foreground.unwrap_or_else(|| runner.deadline());
        let state = match runner.state(runtime, job_id, poll_deadline) {
            Ok(state) => state,
            Err(RemoteError::OutOfTime { timeout, .. }) if foreground.is_some() => {
                return Err(detached(DetachReason::TimedOut(timeout)));
            }
            Err(RemoteError::Rejected { status: 404, .. }) => {
                journal.ended(key, job_id, &JobEnd::Lost).map_err(journal_error)?;
                return Err(RemoteBoardError::JobLost { job_id: job_id.to_owned(), backend: backend.to_owned() });
            }
            Err(error) => return Err(remote(error)),
        };
        progress.message(&state.status);
        if let Watch::Stop(why) = journal.progress(key, job_id, &state).map_err(journal_error)? {
            return Err(detached(DetachReason::Stopped(why)));
        }
        match state.phase {
            JobPhase::Completed => return Ok(()),
            JobPhase::Failed => {
                let message = state.message.unwrap_or_else(|| "no reason given".to_owned());
                journal.ended(key, job_id, &JobEnd::Failed(message.clone())).map_err(journal_error)?;
                let (code, message) = message.split_once(": ").unwrap_or(("Failed", &message));
                return Err(remote(RemoteError::from_failure(job_id, code, message)));
            }
            JobPhase::Canceled => {
                journal.ended(key, job_id, &JobEnd::Canceled).map_err(journal_error)?;
                return Err(remote(RemoteError::Canceled { job_id: job_id.to_owned(), by_user: false }));
            }
            JobPhase::Queued | JobPhase::Running => {}
        }
        let wake = Instant::now() + delay;
        loop {
            if interrupt.as_ref().is_some_and(InterruptGuard::interrupted) {
                return Err(detached(DetachReason::Interrupted));
            }
            if let Some(limit) = foreground
                && limit.passed()
            {
                return Err(detached(DetachReason::TimedOut(limit.timeout)));
            }
            let now = Instant::now();
            if now >= wake {
                break;
            }
            std::thread::sleep((wake - now).min(CHECK));
        }
        delay = (delay + delay / 2).min(poll.max).max(Duration::from_millis(1));
    }
}

/// Asks the provider of `config` to cancel job `job_id` (a move given up while its job waits).
pub fn cancel_job(config: &super::RemoteBoardConfig, job_id: &str) -> Result<(), RemoteBoardError> {
    let runtime = super::runtime()?;
    if let Some(braket) = &config.braket {
        let runner = crate::braket::BraketRunner::new(braket.clone(), config.seed).map_err(remote)?;
        return runtime.block_on(runner.cancel(job_id)).map_err(remote);
    }
    match &config.ibm {
        Some(ibm) => {
            let runner = crate::sampler::IbmRunner::new(ibm.clone(), config.seed).map_err(remote)?;
            runtime.block_on(runner.cancel(job_id)).map_err(remote)
        }
        None => {
            let client = crate::client::IonqClient::new(config.provider.clone()).map_err(remote)?;
            runtime.block_on(client.cancel(job_id)).map_err(remote)
        }
    }
}
