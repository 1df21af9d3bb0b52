//! Braket's operations, one request each: `GetDevice`, `SearchDevices`, `CreateQuantumTask`,
//! `GetQuantumTask`, `CancelQuantumTask`, the results object from S3, and STS's
//! `GetCallerIdentity` for the default bucket's name.

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};

use super::{AwsRequest, BraketClient, segment};
use crate::client::{CANCEL_TIMEOUT, malformed};
use crate::error::RemoteError;
use crate::journal::JobPhase;
use crate::retry::Deadline;

/// What `GetDevice` (or `SearchDevices`) says of a device.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceInfo {
    /// The ARN.
    pub arn: String,
    /// Its name (`Garnet`).
    pub name: String,
    /// Its maker (`IQM`).
    pub provider: String,
    /// `QPU` or `SIMULATOR`.
    pub device_type: String,
    /// `ONLINE`, `OFFLINE`, `RETIRED`.
    pub status: String,
    /// The capabilities (`GetDevice` only; `Null` from `SearchDevices`).
    pub capabilities: Value,
}

impl DeviceInfo {
    fn from_json(value: &Value, what: &str) -> Result<DeviceInfo, RemoteError> {
        let text = |key: &str| {
            value
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| malformed(what, &format!("no `{key}`")))
        };
        // The service sends the capabilities as a JSON string.
        let capabilities = match value.get("deviceCapabilities") {
            Some(Value::String(text)) => {
                serde_json::from_str(text).map_err(|e| malformed(what, &format!("deviceCapabilities: {e}")))?
            }
            Some(other) => other.clone(),
            None => Value::Null,
        };
        Ok(DeviceInfo {
            arn: text("deviceArn")?,
            name: text("deviceName")?,
            provider: text("providerName")?,
            device_type: text("deviceType")?,
            status: text("deviceStatus")?,
            capabilities,
        })
    }
}

/// What `GetQuantumTask` says of a task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskState {
    /// `CREATED`, `QUEUED`, `RUNNING`, `COMPLETED`, `FAILED`, `CANCELLING`, `CANCELLED`.
    pub status: String,
    /// Why it failed, when it did.
    pub failure_reason: Option<String>,
    /// The output bucket.
    pub bucket: String,
    /// The output directory (key prefix) in it.
    pub directory: String,
    /// Its place in the device's queue, when the service says.
    pub queue_position: Option<u64>,
}

impl TaskState {
    /// The phase in any provider's words.
    pub fn phase(&self) -> JobPhase {
        match self.status.as_str() {
            "COMPLETED" => JobPhase::Completed,
            "FAILED" => JobPhase::Failed,
            "CANCELLED" => JobPhase::Canceled,
            "RUNNING" => JobPhase::Running,
            // CREATED, QUEUED, and CANCELLING until the service says it is done.
            _ => JobPhase::Queued,
        }
    }

    fn from_json(value: &Value, what: &str) -> Result<TaskState, RemoteError> {
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let needed = |key: &str| text(key).ok_or_else(|| malformed(what, &format!("no `{key}`")));
        Ok(TaskState {
            status: needed("status")?,
            failure_reason: text("failureReason"),
            bucket: needed("outputS3Bucket")?,
            directory: needed("outputS3Directory")?,
            queue_position: value
                .pointer("/queueInfo/position")
                .and_then(|p| p.as_str().and_then(|s| s.parse().ok()).or_else(|| p.as_u64())),
        })
    }
}

/// A task's measurements: how often each outcome occurred over the measured qubits.
#[derive(Debug, Clone, PartialEq)]
pub struct GateModelResult {
    /// The measured qubits (physical on a QPU), in the order of each shot's bits.
    pub measured_qubits: Vec<u32>,
    /// Outcome (bit `k` = `measured_qubits[k]`) to its weight: a count of shots, or a probability
    /// when the result gives only `measurementProbabilities`.
    pub weights: BTreeMap<u64, f64>,
    /// The shots the weights count (0 when they are probabilities).
    pub shots: u64,
}

/// One measured bit: Braket writes `0` and `1`, and its local simulator `"0"` and `"1"`.
fn bit(value: &Value) -> Option<bool> {
    match value {
        Value::Number(n) => n.as_u64().filter(|&b| b <= 1).map(|b| b == 1),
        Value::String(s) if s == "0" || s == "1" => Some(s == "1"),
        _ => None,
    }
}

impl GateModelResult {
    /// Reads a `GateModelTaskResult` (`braket.task_result.gate_model_task_result`): its
    /// `measurements` (one list of bits per shot), else its `measurementProbabilities` (keys
    /// are bit strings, the first character the first measured qubit), over `measuredQubits`.
    pub fn from_json(value: &Value) -> Result<GateModelResult, String> {
        let header = value.pointer("/braketSchemaHeader/name").and_then(Value::as_str);
        if header != Some("braket.task_result.gate_model_task_result") {
            return Err(format!("not a gate-model task result (schema `{}`)", header.unwrap_or("none")));
        }
        let measured: Vec<u32> = value
            .get("measuredQubits")
            .and_then(Value::as_array)
            .ok_or("no measuredQubits")?
            .iter()
            .map(|q| q.as_u64().and_then(|q| u32::try_from(q).ok()).ok_or("a measured qubit is not a number"))
            .collect::<Result<_, _>>()?;
        if measured.len() > 64 {
            return Err(format!("{} measured qubits; at most 64 are read", measured.len()));
        }
        let mut weights = BTreeMap::new();
        let mut shots = 0;
        match (value.get("measurements").and_then(Value::as_array), value.get("measurementProbabilities")) {
            (Some(list), _) => {
                for (index, shot) in list.iter().enumerate() {
                    let bits = shot.as_array().ok_or_else(|| format!("shot {index} is not a list"))?;
                    if bits.len() != measured.len() {
                        return Err(format!(
                            "shot {index} has {} bits for {} measured qubits",
                            bits.len(),
                            measured.len()
                        ));
                    }
                    let mut outcome = 0u64;
                    for (k, value) in bits.iter().enumerate() {
                        match bit(value) {
                            Some(true) => outcome |= 1 << k,
                            Some(false) => {}
                            None => return Err(format!("shot {index}: bit {k} is not 0 or 1")),
                        }
                    }
                    *weights.entry(outcome).or_insert(0.0) += 1.0;
                    shots += 1;
                }
            }
            (None, Some(Value::Object(probabilities))) => {
                for (key, p) in probabilities {
                    if key.len() != measured.len() || !key.bytes().all(|b| b == b'0' || b == b'1') {
                        return Err(format!("probability key `{key}` is not {} bits", measured.len()));
                    }
                    let outcome = key.bytes().enumerate().fold(0u64, |o, (k, b)| o | u64::from(b == b'1') << k);
                    let p = p
                        .as_f64()
                        .filter(|p| (0.0..=1.0).contains(p))
                        .ok_or_else(|| format!("probability of `{key}`"))?;
                    *weights.entry(outcome).or_insert(0.0) += p;
                }
            }
            _ => return Err("neither measurements nor measurementProbabilities".to_owned()),
        }
        if weights.is_empty() {
            return Err("no shots".to_owned());
        }
        Ok(GateModelResult { measured_qubits: measured, weights, shots })
    }
}

impl BraketClient {
    /// `GetDevice`.
    pub async fn device(&self, arn: &str, deadline: Deadline) -> Result<DeviceInfo, RemoteError> {
        let what = format!("the description of device {arn}");
        let path = format!("/device/{}", segment(arn));
        let value = self.braket(&what, Method::GET, &path, None, true, deadline).await?;
        DeviceInfo::from_json(&value, &what)
    }

    /// `SearchDevices` with no filter, every page.
    pub async fn search_devices(&self, deadline: Deadline) -> Result<Vec<DeviceInfo>, RemoteError> {
        let what = "the list of devices";
        let mut devices = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..100 {
            let mut body = json!({ "filters": [] });
            if let Some(token) = &token {
                body["nextToken"] = json!(token);
            }
            let page = self.braket(what, Method::POST, "/devices", Some(&body), true, deadline).await?;
            for device in
                page.get("devices").and_then(Value::as_array).ok_or_else(|| malformed(what, "no `devices`"))?
            {
                devices.push(DeviceInfo::from_json(device, what)?);
            }
            token = page.get("nextToken").and_then(Value::as_str).map(str::to_owned);
            if token.is_none() {
                break;
            }
        }
        Ok(devices)
    }

    /// `CreateQuantumTask` of an OpenQASM 3 program for `shots` shots, under `client_token`
    /// (sending the same token again answers the same task); returns the task's ARN.
    pub async fn create_task(
        &self,
        source: &str,
        shots: u64,
        client_token: &str,
        deadline: Deadline,
    ) -> Result<String, RemoteError> {
        let what = "creating the quantum task";
        let bucket = self.output_bucket(deadline).await?;
        let action = json!({
            "braketSchemaHeader": { "name": "braket.ir.openqasm.program", "version": "1" },
            "source": source,
        });
        let body = json!({
            "action": action.to_string(),
            "clientToken": client_token,
            "deviceArn": self.config.device_arn,
            "outputS3Bucket": bucket,
            "outputS3KeyPrefix": self.config.prefix,
            "shots": shots,
        });
        let created = self.braket(what, Method::POST, "/quantum-task", Some(&body), true, deadline).await?;
        created
            .get("quantumTaskArn")
            .and_then(Value::as_str)
            .filter(|arn| !arn.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| malformed(what, "the answer has no quantumTaskArn"))
    }

    /// `GetQuantumTask`.
    pub async fn task(&self, arn: &str, deadline: Deadline) -> Result<TaskState, RemoteError> {
        let what = format!("the state of task {arn}");
        let path = format!("/quantum-task/{}", segment(arn));
        let value = self.braket(&what, Method::GET, &path, None, true, deadline).await?;
        TaskState::from_json(&value, &what)
    }

    /// `CancelQuantumTask`, with a short time of its own (it is often sent when time is up).
    pub async fn cancel_task(&self, arn: &str) -> Result<(), RemoteError> {
        let deadline = Deadline::after(self.config.request_timeout.min(CANCEL_TIMEOUT) * 2);
        let path = format!("/quantum-task/{}/cancel", segment(arn));
        let body = json!({ "clientToken": format!("cancel-{}", arn.rsplit('/').next().unwrap_or(arn)) });
        self.braket("canceling the task", Method::PUT, &path, Some(&body), true, deadline).await.map(drop)
    }

    /// The measurements of a completed task, from `results.json` in its output directory.
    pub async fn results(
        &self,
        state: &TaskState,
        arn: &str,
        deadline: Deadline,
    ) -> Result<GateModelResult, RemoteError> {
        let what = format!("the results of task {arn}");
        let key = format!("{}/results.json", state.directory.trim_end_matches('/'));
        let body = self.get_object(&what, &state.bucket, &key, deadline).await?;
        let value: Value = serde_json::from_slice(&body).map_err(|e| malformed(&what, &e.to_string()))?;
        GateModelResult::from_json(&value).map_err(|detail| malformed(&what, &detail))
    }

    /// S3's `GetObject`.
    async fn get_object(
        &self,
        what: &str,
        bucket: &str,
        key: &str,
        deadline: Deadline,
    ) -> Result<Vec<u8>, RemoteError> {
        let key: Vec<String> = key.split('/').map(segment).collect();
        let key = key.join("/");
        let url = match &self.config.s3_url {
            Some(base) => format!("{base}/{bucket}/{key}"),
            None => format!("https://{bucket}.s3.{}.amazonaws.com/{key}", self.config.region),
        };
        let request = AwsRequest {
            what,
            service: "s3",
            method: Method::GET,
            url,
            body: Vec::new(),
            content_type: None,
            idempotent: true,
        };
        self.send(&request, deadline).await
    }

    /// The output bucket: the configured one, else `amazon-braket-REGION-ACCOUNT` (the Braket
    /// SDK's default), the account from STS `GetCallerIdentity`.
    async fn output_bucket(&self, deadline: Deadline) -> Result<String, RemoteError> {
        if let Some(bucket) = &self.config.bucket {
            return Ok(bucket.clone());
        }
        let mut known = self.default_bucket.lock().await;
        if let Some(bucket) = known.as_ref() {
            return Ok(bucket.clone());
        }
        let what = "the account id (STS GetCallerIdentity), for the default bucket's name";
        let request = AwsRequest {
            what,
            service: "sts",
            method: Method::POST,
            url: format!("{}/", self.config.sts_url),
            body: b"Action=GetCallerIdentity&Version=2011-06-15".to_vec(),
            content_type: Some("application/x-www-form-urlencoded; charset=utf-8"),
            idempotent: true,
        };
        let answer = self.send(&request, deadline).await?;
        let text = String::from_utf8_lossy(&answer);
        let account = text
            .split_once("<Account>")
            .and_then(|(_, rest)| rest.split_once("</Account>"))
            .map(|(account, _)| account.trim().to_owned())
            .filter(|a| !a.is_empty() && a.bytes().all(|b| b.is_ascii_digit()))
            .ok_or_else(|| malformed(what, "no <Account> in the answer"))?;
        let bucket = format!("amazon-braket-{}-{account}", self.config.region);
        *known = Some(bucket.clone());
        Ok(bucket)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_read_the_measurements_over_the_measured_qubits() {
        let result = json!({
            "braketSchemaHeader": {"name": "braket.task_result.gate_model_task_result", "version": "1"},
            "measurements": [[0, 1], [0, 1], [1, 0]],
            "measuredQubits": [4, 1],
            "taskMetadata": {}, "additionalMetadata": {},
        });
        let read = GateModelResult::from_json(&result).expect("reads");
        assert_eq!((read.measured_qubits.clone(), read.shots), (vec![4, 1], 3));
        assert_eq!(read.weights, BTreeMap::from([(0b10, 2.0), (0b01, 1.0)]));
        let mut strings = result.clone();
        strings["measurements"] = json!([["0", "1"]]);
        assert_eq!(GateModelResult::from_json(&strings).expect("reads").weights, BTreeMap::from([(0b10, 1.0)]));
        let mut probabilities = result.clone();
        probabilities["measurements"] = Value::Null;
        probabilities["measurementProbabilities"] = json!({"01": 0.25, "10": 0.75});
        let read = GateModelResult::from_json(&probabilities).expect("reads");
        assert_eq!((read.weights.clone(), read.shots), (BTreeMap::from([(0b10, 0.25), (0b01, 0.75)]), 0));
        let mut bad = result.clone();
        bad["measurements"] = json!([[0, 2]]);
        assert!(GateModelResult::from_json(&bad).expect_err("a bad bit").contains("not 0 or 1"));
        bad["measurements"] = json!([[0]]);
        assert!(GateModelResult::from_json(&bad).expect_err("short").contains("1 bits for 2"));
        assert!(GateModelResult::from_json(&json!({})).expect_err("no header").contains("not a gate-model"));
    }

    #[test]
    fn task_states_read_the_service_words() {
        let queued = json!({"status": "QUEUED", "outputS3Bucket": "b", "outputS3Directory": "p/t",
                            "queueInfo": {"queue": "QUANTUM_TASKS_QUEUE", "position": "3"}});
        let state = TaskState::from_json(&queued, "x").expect("reads");
        assert_eq!((state.phase(), state.queue_position), (JobPhase::Queued, Some(3)));
        let failed =
            json!({"status": "FAILED", "failureReason": "bad gate", "outputS3Bucket": "b", "outputS3Directory": "d"});
        let state = TaskState::from_json(&failed, "x").expect("reads");
        assert_eq!((state.phase(), state.failure_reason.as_deref()), (JobPhase::Failed, Some("bad gate")));
        assert!(TaskState::from_json(&json!({"status": "QUEUED"}), "x").is_err());
    }
}
