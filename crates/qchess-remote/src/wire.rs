//! The JSON shapes of the IonQ v0.4 API, read leniently the way real clients and servers write
//! them: `shots` as a number or a numeric string, unknown fields ignored, nulls where a field
//! may be missing.
//!
//! ```
//! use qchess_remote::wire::{JobInfo, JobRequest, JobStatus};
//!
//! let cirq = r#"{"backend":"simulator","type":"ionq.circuit.v1","lang":"json",
//!   "input":{"gateset":"qis","qubits":3,"circuit":[{"gate":"x","targets":[0]}]},
//!   "metadata":{"measurement0":"m\u001f0,1,2","shots":"20"},"shots":"20"}"#;
//! let request: JobRequest = serde_json::from_str(cirq)?;
//! assert_eq!(request.shots, Some(20));
//!
//! let job: JobInfo = serde_json::from_str(r#"{"id":"a9","status":"started","extra":1}"#)?;
//! assert_eq!(job.status, JobStatus::Started);
//! assert!(!job.status.is_terminal());
//! # Ok::<(), serde_json::Error>(())
//! ```

use std::fmt;

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The job type of a single QIS or native circuit.
pub const CIRCUIT_JOB_TYPE: &str = "ionq.circuit.v1";

/// A job submission (`POST /jobs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRequest {
    /// `ionq.circuit.v1`.
    #[serde(rename = "type", default)]
    pub job_type: Option<String>,
    /// `simulator`, `qpu.aria-1`, ...
    #[serde(default)]
    pub backend: Option<String>,
    /// Number of shots (a number or a numeric string on the wire).
    #[serde(default, deserialize_with = "lenient_count", skip_serializing_if = "Option::is_none")]
    pub shots: Option<u64>,
    /// A job name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Free-form string metadata, echoed back verbatim by the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// The simulator noise model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<Noise>,
    /// The circuit (`{"gateset": "qis", "qubits": n, "circuit": [...]}`), kept as JSON so a
    /// server can report a bad gate as a failed job rather than a rejected request.
    #[serde(default)]
    pub input: Value,
}

/// A simulator noise setting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Noise {
    /// `ideal`, `aria-1`, ...
    pub model: String,
    /// Seed of the noisy simulation, if any.
    #[serde(default, deserialize_with = "lenient_count", skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// The answer to a job submission.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobCreated {
    /// The new job's id.
    pub id: String,
    /// Its status, normally `submitted`.
    #[serde(default)]
    pub status: Option<JobStatus>,
}

/// A job's status. Unknown names (another API version's `running`, say) are kept and treated as
/// not finished.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JobStatus {
    /// Accepted, not yet queued.
    Submitted,
    /// Queued.
    Ready,
    /// Running.
    Started,
    /// Finished with results.
    Completed,
    /// Finished with a failure.
    Failed,
    /// Canceled before it finished.
    Canceled,
    /// A status this client does not know.
    Other(String),
}

impl JobStatus {
    /// The API's name of the status.
    pub fn as_str(&self) -> &str {
        match self {
            JobStatus::Submitted => "submitted",
            JobStatus::Ready => "ready",
            JobStatus::Started => "started",
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
            JobStatus::Canceled => "canceled",
            JobStatus::Other(name) => name,
        }
    }

    /// Whether the job will not change any more.
    pub fn is_terminal(&self) -> bool {
        matches!(self, JobStatus::Completed | JobStatus::Failed | JobStatus::Canceled)
    }
}

impl From<&str> for JobStatus {
    fn from(name: &str) -> JobStatus {
        match name {
            "submitted" => JobStatus::Submitted,
            "ready" => JobStatus::Ready,
            "started" => JobStatus::Started,
            "completed" => JobStatus::Completed,
            "failed" => JobStatus::Failed,
            "canceled" | "cancelled" => JobStatus::Canceled,
            other => JobStatus::Other(other.to_owned()),
        }
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for JobStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for JobStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<JobStatus, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(JobStatus::from(name.as_str()))
    }
}

/// Why a job failed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The failure code (`UnsupportedGate`, `NotEnoughQubits`, `SimulationError`, ...).
    #[serde(default)]
    pub code: String,
    /// What happened.
    #[serde(default)]
    pub message: String,
}

/// The parts of a job (`GET /jobs/{id}`) a client acts on.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct JobInfo {
    /// The job id.
    pub id: String,
    /// Its status.
    pub status: JobStatus,
    /// Why it failed, when it did.
    #[serde(default)]
    pub failure: Option<Failure>,
    /// The provider's guess of the time left in the queue.
    #[serde(default)]
    pub predicted_wait_time_ms: Option<f64>,
    /// Links to results (`{"probabilities": {"url": ...}}`) once completed.
    #[serde(default)]
    pub results: Option<Value>,
}

/// The error body of every non-2xx answer: `{"statusCode": 404, "error": "...", "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// The HTTP status.
    #[serde(rename = "statusCode", default)]
    pub status_code: u16,
    /// A short error name.
    #[serde(default)]
    pub error: String,
    /// What went wrong.
    #[serde(default)]
    pub message: String,
}

/// Reads an optional count written as a number (`20`, `20.0`) or a numeric string (`"20"`).
pub fn lenient_count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value = Option::<Value>::deserialize(deserializer)?;
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => match (number.as_u64(), number.as_f64()) {
            (Some(n), _) => Ok(Some(n)),
            (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 && f < 1.8e19 => Ok(Some(f as u64)),
            _ => Err(de::Error::custom(format!("expected a non-negative whole number, got {number}"))),
        },
        Some(Value::String(text)) => match text.trim() {
            // Some clients write "None" (Python's null) for an unset seed.
            "" | "None" | "null" => Ok(None),
            digits => digits
                .parse::<u64>()
                .map(Some)
                .map_err(|_| de::Error::custom(format!("expected a non-negative whole number, got {text:?}"))),
        },
        Some(other) => Err(de::Error::custom(format!("expected a number, got {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qiskit_request_reads() {
        let qiskit = r#"{"type":"ionq.circuit.v1","backend":"simulator","shots":100,"name":"circuit-60",
         "input":{"gateset":"qis","qubits":2,"circuit":[{"gate":"h","targets":[0]},{"gate":"x","targets":[1],"controls":[0]}]},
         "metadata":{"shots":"100","sampler_seed":"None"},
         "noise":{"model":"ideal","seed":null}}"#;
        let request: JobRequest = serde_json::from_str(qiskit).expect("parses");
        assert_eq!(request.shots, Some(100));
        assert_eq!(request.noise, Some(Noise { model: "ideal".into(), seed: None }));
        assert_eq!(request.backend.as_deref(), Some("simulator"));
    }

    #[test]
    fn counts_are_lenient_but_checked() {
        #[derive(Deserialize)]
        struct Shots {
            #[serde(default, deserialize_with = "lenient_count")]
            shots: Option<u64>,
        }
        let read = |json: &str| serde_json::from_str::<Shots>(json).map(|s| s.shots);
        assert_eq!(read(r#"{"shots":"20"}"#).expect("ok"), Some(20));
        assert_eq!(read(r#"{"shots":20.0}"#).expect("ok"), Some(20));
        assert_eq!(read(r#"{}"#).expect("ok"), None);
        assert_eq!(read(r#"{"shots":null}"#).expect("ok"), None);
        for bad in [r#"{"shots":-1}"#, r#"{"shots":"ten"}"#, r#"{"shots":1.5}"#, r#"{"shots":[1]}"#] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn statuses_round_trip_and_unknown_ones_are_not_final() {
        for name in ["submitted", "ready", "started", "completed", "failed", "canceled"] {
            let status = JobStatus::from(name);
            assert_eq!(serde_json::to_string(&status).expect("writes"), format!("\"{name}\""));
        }
        assert!(!JobStatus::from("running").is_terminal());
        assert!(JobStatus::from("cancelled").is_terminal());
    }
}
