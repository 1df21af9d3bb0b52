//! The devices the Braket stand-in describes: the five QPUs whose capabilities are checked in
//! (`qchess_route`'s `data/`, as AWS published them) and the managed simulators `sv1` and
//! `dm1` (capabilities in this crate's `data/braket_simulator.json`, in the SDK's simulator
//! schema). Each is `ONLINE` unless the server is told it is offline.

use qchess_route::Target;
use qchess_route::target::braket::{DEVICES, capabilities};
use serde_json::{Value, json};

/// The managed simulators' capabilities.
const SIMULATOR: &str = include_str!("../../data/braket_simulator.json");

/// One device described here.
#[derive(Debug, Clone)]
pub struct Device {
    /// Its ARN.
    pub arn: &'static str,
    /// The short name qchess knows it by (`iqm-garnet`).
    pub short: &'static str,
    /// Braket's `deviceName`.
    pub name: String,
    /// Braket's `providerName`.
    pub provider: &'static str,
    /// The capabilities JSON.
    pub capabilities: &'static str,
    /// Its target (QPUs only), with the native gates as the capabilities name them.
    pub qpu: Option<(Target, Vec<String>)>,
}

/// Every device described here, in the order `SearchDevices` lists them.
pub fn all() -> Vec<Device> {
    DEVICES
        .iter()
        .filter_map(|known| {
            let (capabilities_text, qpu) = match known.snapshot {
                Some(text) => {
                    let value: Value = serde_json::from_str(text).ok()?;
                    let target = capabilities(&value, &format!("braket:{}", known.name)).ok()?;
                    let natives = value["paradigm"]["nativeGateSet"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_ascii_lowercase)
                        .collect();
                    (text, Some((target, natives)))
                }
                None if known.is_simulator() => (SIMULATOR, None),
                None => return None,
            };
            let last = known.arn.rsplit('/').next().unwrap_or(known.arn);
            let provider = match known.arn.split('/').nth(2) {
                Some("iqm") => "IQM",
                Some("rigetti") => "Rigetti",
                Some("ionq") => "IonQ",
                _ => "Amazon Braket",
            };
            let name = match last {
                _ if known.is_simulator() => last.to_ascii_uppercase(),
                _ if last.starts_with("Forte") => last.replace('-', " "),
                _ => last.to_owned(),
            };
            Some(Device { arn: known.arn, short: known.name, name, provider, capabilities: capabilities_text, qpu })
        })
        .collect()
}

impl Device {
    /// `QPU` or `SIMULATOR`.
    pub fn device_type(&self) -> &'static str {
        if self.qpu.is_some() { "QPU" } else { "SIMULATOR" }
    }

    /// Its summary, as `SearchDevices` lists it.
    pub fn summary(&self, status: &str) -> Value {
        json!({
            "deviceArn": self.arn,
            "deviceName": self.name,
            "providerName": self.provider,
            "deviceType": self.device_type(),
            "deviceStatus": status,
        })
    }

    /// Its description, as `GetDevice` answers it (the capabilities as a JSON string).
    pub fn description(&self, status: &str) -> Value {
        let mut value = self.summary(status);
        value["deviceCapabilities"] = json!(self.capabilities);
        value["deviceQueueInfo"] = json!([
            { "queue": "QUANTUM_TASKS_QUEUE", "queueSize": "0", "queuePriority": "Normal" },
            { "queue": "QUANTUM_TASKS_QUEUE", "queueSize": "0", "queuePriority": "Priority" },
            { "queue": "JOBS_QUEUE", "queueSize": "0" },
        ]);
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_qpus_and_two_simulators_read() {
        let devices = all();
        assert_eq!(devices.len(), 7, "{:?}", devices.iter().map(|d| d.arn).collect::<Vec<_>>());
        assert_eq!(devices.iter().filter(|d| d.qpu.is_some()).count(), 5);
        let garnet = devices.iter().find(|d| d.short == "iqm-garnet").expect("garnet");
        assert_eq!((garnet.name.as_str(), garnet.provider), ("Garnet", "IQM"));
        let natives = &garnet.qpu.as_ref().expect("a QPU").1;
        assert!(natives.contains(&"cz".to_owned()) && natives.contains(&"prx".to_owned()), "{natives:?}");
        assert!(serde_json::from_str::<Value>(SIMULATOR).is_ok());
    }
}
