//! A Sampler job's steps one at a time, for callers that keep the job id between them (a game
//! whose move waits hours in a device's queue): submit, read the state, read the results,
//! cancel. [`IbmClient::run`] does all of them in one call.

use reqwest::Method;
use serde_json::Value;

use super::{IbmClient, SamplerResult, path_segment};
use crate::client::{CANCEL_TIMEOUT, malformed};
use crate::error::RemoteError;
use crate::retry::Deadline;

/// Where a job is, as the service names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IbmJobPhase {
    /// Waiting in the device's queue.
    Queued,
    /// Running.
    Running,
    /// Finished with results.
    Completed,
    /// Finished with a failure.
    Failed,
    /// Canceled (by a user, or by the service: `Cancelled - Ran too long`).
    Cancelled,
}

/// A job's state: its phase, the service's own words, and its place in the queue when given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IbmJobState {
    /// The phase.
    pub phase: IbmJobPhase,
    /// The status as the service wrote it (`Queued`, `Cancelled - Ran too long`).
    pub status: String,
    /// Why it failed or was canceled, when the service says.
    pub reason: Option<String>,
    /// Its position in the device's queue, when the service says.
    pub queue_position: Option<u64>,
}

impl IbmJobState {
    /// Reads `{"status": ..., "state": {"status", "reason"}, "queue_position"?}`.
    pub fn from_json(job_id: &str, info: &Value) -> Result<IbmJobState, RemoteError> {
        let status = info
            .pointer("/state/status")
            .or_else(|| info.get("status"))
            .and_then(Value::as_str)
            .ok_or_else(|| malformed(&format!("the status of job {job_id}"), "it has no status"))?;
        let phase = match status {
            "Completed" => IbmJobPhase::Completed,
            "Failed" => IbmJobPhase::Failed,
            "Running" => IbmJobPhase::Running,
            cancelled if cancelled.starts_with("Cancelled") => IbmJobPhase::Cancelled,
            // `Queued`, and anything the service adds before a job runs.
            _ => IbmJobPhase::Queued,
        };
        let reason = info.pointer("/state/reason").and_then(Value::as_str).map(str::to_owned);
        let queue_position = ["/queue_position", "/state/queue_position", "/queue_info/position"]
            .iter()
            .find_map(|pointer| info.pointer(pointer).and_then(Value::as_u64));
        Ok(IbmJobState { phase, status: status.to_owned(), reason, queue_position })
    }
}

impl IbmClient {
    /// Submits one OpenQASM 3 ISA circuit for `shots` shots as a Sampler V2 job within
    /// `deadline`; returns its id.
    pub async fn submit(&self, circuit: &str, shots: u64, deadline: Deadline) -> Result<String, RemoteError> {
        self.submit_in(circuit, shots, None, deadline).await
    }

    /// [`IbmClient::submit`] into session (or batch) `session`, or as a lone job (`None`).
    pub async fn submit_in(
        &self,
        circuit: &str,
        shots: u64,
        session: Option<&str>,
        deadline: Deadline,
    ) -> Result<String, RemoteError> {
        let mut job = serde_json::json!({
            "program_id": "sampler",
            "backend": self.config.device,
            "params": { "pubs": [[circuit, null, shots]], "version": 2 },
        });
        if let Some(session) = session {
            job["session_id"] = Value::from(session);
        }
        let created = self.call("submitting the job", Method::POST, "jobs", Some(&job), deadline).await?;
        created
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| malformed("submitting the job", "the answer has no job id"))
    }

    /// The job's current state (`GET {api}/jobs/{id}`).
    pub async fn job_state(&self, job_id: &str, deadline: Deadline) -> Result<IbmJobState, RemoteError> {
        let what = format!("the status of job {job_id}");
        let info = self.call(&what, Method::GET, &format!("jobs/{}", path_segment(job_id)), None, deadline).await?;
        IbmJobState::from_json(job_id, &info)
    }

    /// The samples of a completed job submitted with `shots` shots.
    pub async fn results(&self, job_id: &str, shots: u64, deadline: Deadline) -> Result<SamplerResult, RemoteError> {
        let what = format!("the results of job {job_id}");
        let path = format!("jobs/{}/results", path_segment(job_id));
        let results = self.call(&what, Method::GET, &path, None, deadline).await?;
        SamplerResult::from_json(job_id.to_owned(), shots, &results).map_err(|detail| malformed(&what, &detail))
    }

    /// Asks the service to cancel a job. A cancel is often sent when time is up, so it gets a
    /// short time of its own.
    pub async fn cancel(&self, job_id: &str) -> Result<(), RemoteError> {
        let deadline = Deadline::after(self.config.request_timeout.min(CANCEL_TIMEOUT) * 2);
        let path = format!("jobs/{}/cancel", path_segment(job_id));
        self.call("canceling the job", Method::POST, &path, None, deadline).await.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_read_the_service_words() {
        let queued = serde_json::json!({"status": "Queued", "state": {"status": "Queued"}, "queue_position": 3});
        let state = IbmJobState::from_json("j", &queued).expect("a state");
        assert_eq!((state.phase, state.queue_position), (IbmJobPhase::Queued, Some(3)));
        let ran_long = serde_json::json!({"state": {"status": "Cancelled - Ran too long", "reason": "limit"}});
        let state = IbmJobState::from_json("j", &ran_long).expect("a state");
        assert_eq!((state.phase, state.reason.as_deref()), (IbmJobPhase::Cancelled, Some("limit")));
        assert!(IbmJobState::from_json("j", &serde_json::json!({})).is_err());
    }
}
