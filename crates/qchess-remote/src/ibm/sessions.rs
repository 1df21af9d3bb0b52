//! IBM Quantum's execution modes as a game uses them (`--ibm-mode`), and the session routes:
//! opening a session or a batch (`POST {api}/sessions`), reading one (`GET
//! {api}/sessions/{id}`), closing it to new jobs (`PATCH {api}/sessions/{id}` with
//! `{"accepting_jobs": false}`: queued jobs finish) and cancelling it (`DELETE
//! {api}/sessions/{id}/close`: queued jobs are cancelled).
//!
//! An instance whose plan allows no dedicated sessions (IBM's Open Plan) answers a request for
//! one with error 1352, "You are not authorized to run a session when using the open plan";
//! [`plan_refuses_sessions`] recognizes that answer, after which a game runs in a batch.

use std::fmt;
use std::str::FromStr;

use reqwest::Method;
use serde_json::{Value, json};

use super::{IbmClient, path_segment};
use crate::client::{CANCEL_TIMEOUT, malformed};
use crate::error::RemoteError;
use crate::retry::Deadline;

/// How a game's jobs go to IBM Quantum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IbmMode {
    /// One dedicated session per game: after its first job runs, the game's jobs go ahead of
    /// other jobs on the device (a batch where the plan allows no sessions).
    #[default]
    Session,
    /// One batch per game: its jobs are grouped, but each waits its turn in the queue.
    Batch,
    /// Lone jobs, each waiting in the device's queue by itself.
    Jobs,
}

impl IbmMode {
    /// Every mode, in the order help lists them.
    pub const ALL: [IbmMode; 3] = [IbmMode::Session, IbmMode::Batch, IbmMode::Jobs];

    /// The flag's word for it.
    pub fn name(self) -> &'static str {
        match self {
            IbmMode::Session => "session",
            IbmMode::Batch => "batch",
            IbmMode::Jobs => "jobs",
        }
    }
}

impl fmt::Display for IbmMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for IbmMode {
    type Err = String;

    fn from_str(text: &str) -> Result<IbmMode, String> {
        IbmMode::ALL.into_iter().find(|mode| mode.name() == text.trim()).ok_or_else(|| {
            format!("`{}` is not an IBM execution mode: use session, batch or jobs", qchess_core::text::excerpt(text))
        })
    }
}

/// What the service says of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// Its id.
    pub id: String,
    /// `dedicated` or `batch`.
    pub mode: String,
    /// `open`, `active`, `inactive` or `closed`.
    pub state: String,
    /// Whether it takes new jobs.
    pub accepting_jobs: bool,
    /// How long it waits for its next job before it lets go of its device, in seconds, when
    /// the service says.
    pub interactive_ttl: Option<u64>,
}

impl SessionInfo {
    /// Reads `{"id", "mode", "state", "accepting_jobs", "interactive_ttl"}`; `id` stands in for
    /// an answer that does not repeat it.
    pub fn from_json(id: Option<&str>, body: &Value) -> Result<SessionInfo, String> {
        let id = body.get("id").and_then(Value::as_str).or(id).filter(|id| !id.is_empty()).ok_or("it has no id")?;
        let text = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
        Ok(SessionInfo {
            id: id.to_owned(),
            mode: text("mode").unwrap_or_else(|| "dedicated".to_owned()),
            state: text("state").unwrap_or_else(|| "open".to_owned()),
            accepting_jobs: body.get("accepting_jobs").and_then(Value::as_bool).unwrap_or(true),
            interactive_ttl: body.get("interactive_ttl").and_then(Value::as_u64),
        })
    }

    /// Whether a job may still join it: it accepts jobs and is not closed.
    pub fn joinable(&self) -> bool {
        self.accepting_jobs && self.state != "closed"
    }
}

/// Whether `error` is the service refusing a dedicated session because of the instance's plan.
pub fn plan_refuses_sessions(error: &RemoteError) -> bool {
    match error {
        RemoteError::Rejected { status: 400 | 403, message, .. } | RemoteError::Auth { status: 403, message } => {
            message.to_ascii_lowercase().contains("not authorized to run a session")
        }
        _ => false,
    }
}

impl IbmClient {
    /// Opens a dedicated session (`dedicated`) or a batch on the device, within `deadline`.
    pub async fn open_session(&self, dedicated: bool, deadline: Deadline) -> Result<SessionInfo, RemoteError> {
        let what = if dedicated { "opening a session" } else { "opening a batch" };
        let body = json!({
            "mode": if dedicated { "dedicated" } else { "batch" },
            "backend": self.config.device,
            "instance": self.config.crn,
        });
        let answer = self.call(what, Method::POST, "sessions", Some(&body), deadline).await?;
        SessionInfo::from_json(None, &answer).map_err(|detail| malformed(what, &detail))
    }

    /// What the service says of session `id` now.
    pub async fn session(&self, id: &str, deadline: Deadline) -> Result<SessionInfo, RemoteError> {
        let what = format!("the state of session {id}");
        let answer = self.call(&what, Method::GET, &format!("sessions/{}", path_segment(id)), None, deadline).await?;
        SessionInfo::from_json(Some(id), &answer).map_err(|detail| malformed(&what, &detail))
    }

    /// Ends session `id`: closed to new jobs, its queued ones finishing (`cancel` false), or
    /// cancelled with them (`cancel` true). Often sent when a game stops, so it gets a short
    /// time of its own.
    pub async fn end_session(&self, id: &str, cancel: bool) -> Result<(), RemoteError> {
        let deadline = Deadline::after(self.config.request_timeout.min(CANCEL_TIMEOUT) * 2);
        let path = format!("sessions/{}", path_segment(id));
        if cancel {
            let path = format!("{path}/close");
            self.call("cancelling the session", Method::DELETE, &path, None, deadline).await.map(|_| ())
        } else {
            let body = json!({ "accepting_jobs": false });
            self.call("closing the session", Method::PATCH, &path, Some(&body), deadline).await.map(|_| ())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_back_and_bad_ones_name_the_choices() {
        for mode in IbmMode::ALL {
            assert_eq!(mode.to_string().parse::<IbmMode>(), Ok(mode));
        }
        let error = "sessions".parse::<IbmMode>().expect_err("not a mode");
        assert!(error.contains("`sessions`") && error.contains("session, batch or jobs"), "{error}");
        assert_eq!(IbmMode::default(), IbmMode::Session);
    }

    #[test]
    fn the_open_plan_refusal_is_recognized() {
        let message = "You are not authorized to run a session when using the open plan.".to_owned();
        let refused = RemoteError::Rejected { what: "x".into(), status: 400, message: message.clone() };
        assert!(plan_refuses_sessions(&refused));
        assert!(plan_refuses_sessions(&RemoteError::Auth { status: 403, message }));
        let other = RemoteError::Rejected { what: "x".into(), status: 400, message: "Backend x not found.".into() };
        assert!(!plan_refuses_sessions(&other));
    }

    #[test]
    fn session_details_read_the_service_words() {
        let body =
            json!({"id": "s1", "mode": "batch", "state": "closed", "accepting_jobs": false, "interactive_ttl": 60});
        let info = SessionInfo::from_json(None, &body).expect("details");
        assert_eq!((info.mode.as_str(), info.interactive_ttl, info.joinable()), ("batch", Some(60), false));
        assert!(SessionInfo::from_json(Some("s2"), &json!({})).expect("defaults").joinable());
        assert!(SessionInfo::from_json(None, &json!({})).is_err());
    }
}
