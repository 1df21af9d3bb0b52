//! Backends of stored games: the flags that decide a game's results are kept with it (keys
//! never are: they come from the flags or the environment again), and a remote board records
//! its jobs in the game store's journal.

use qchess_core::{Bitboard, BoardError, QuantumBoard};
use qchess_remote::journal::WaitPolicy;
use qchess_remote::{RemoteBoard, RemoteBoardConfig};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use qchess_store::GameJournal;
use serde_json::{Value, json};

use super::{Backend, BackendArgs, BraketArgs, IbmArgs, RemoteArgs};

impl RemoteArgs {
    /// The flags that decide a game's results, to keep with it (no keys).
    pub fn to_stored(&self) -> Value {
        json!({
            "provider_url": self.provider_url,
            "target": self.target,
            "noise_model": self.noise_model,
            "shots": self.shots,
            "mitigation": self.mitigation,
            "ibm_url": self.ibm.ibm_url,
            "ibm_mode": self.ibm_mode.map(|mode| mode.to_string()),
            "aws_region": self.braket.aws_region,
            "braket_output": self.braket.braket_output,
            "max_response_bytes": self.max_response_bytes,
        })
    }

    /// These flags, with what `stored` kept filling those not given.
    #[must_use]
    pub fn or_stored(&self, stored: &Value) -> RemoteArgs {
        let text = |name: &str| stored.get(name).and_then(Value::as_str).map(str::to_owned);
        RemoteArgs {
            provider_url: self.provider_url.clone().or_else(|| text("provider_url")),
            target: self.target.clone().or_else(|| text("target")),
            noise_model: self.noise_model.clone().or_else(|| text("noise_model")),
            shots: self.shots.or_else(|| stored.get("shots").and_then(Value::as_u64)),
            mitigation: self.mitigation || stored.get("mitigation").and_then(Value::as_bool).unwrap_or(false),
            ibm: IbmArgs { ibm_url: self.ibm.ibm_url.clone().or_else(|| text("ibm_url")), ..self.ibm.clone() },
            ibm_mode: self.ibm_mode.or_else(|| text("ibm_mode").and_then(|mode| mode.parse().ok())),
            braket: BraketArgs {
                aws_region: self.braket.aws_region.clone().or_else(|| text("aws_region")),
                braket_output: self.braket.braket_output.clone().or_else(|| text("braket_output")),
            },
            max_response_bytes: self
                .max_response_bytes
                .or_else(|| stored.get("max_response_bytes").and_then(Value::as_u64)),
            ..self.clone()
        }
    }
}

impl BackendArgs {
    /// How long a move waits for its job in the foreground: `--timeout`, else until it ends.
    pub fn foreground_wait(&self) -> WaitPolicy {
        WaitPolicy {
            foreground: self.remote.timeout.and_then(|seconds| std::time::Duration::try_from_secs_f64(seconds).ok()),
            detach_on_interrupt: true,
        }
    }
}

impl Backend {
    /// The remote configuration, when the backend is remote.
    pub fn remote_config(&self) -> Option<&RemoteBoardConfig> {
        match self {
            Backend::Local => None,
            Backend::Remote { config, .. } => Some(config),
        }
    }

    /// A board at `occupancy` whose jobs (on a remote backend) go to `journal`, waited for as
    /// `wait` says; `seed` seeds the outcomes it draws.
    pub fn journaled_board(
        &self,
        occupancy: Bitboard,
        seed: u64,
        journal: GameJournal,
        wait: WaitPolicy,
    ) -> Result<Box<dyn QuantumBoard>, BoardError> {
        match self {
            Backend::Local => {
                Ok(Box::new(LocalBoard::with_options(occupancy, LocalBoardOptions { seed, ..Default::default() })))
            }
            Backend::Remote { config, .. } => {
                let config = RemoteBoardConfig { seed, ..(**config).clone() };
                Ok(Box::new(RemoteBoard::new(occupancy, config)?.with_journal(Box::new(journal), wait)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_flags_fill_the_missing_ones() {
        let played = RemoteArgs {
            shots: Some(400),
            target: Some("qpu.aria-1".into()),
            ibm_mode: Some(qchess_remote::ibm::IbmMode::Batch),
            ..RemoteArgs::default()
        };
        let stored = played.to_stored();
        let resumed = RemoteArgs { target: Some("simulator".into()), ..RemoteArgs::default() }.or_stored(&stored);
        assert_eq!(resumed.shots, Some(400));
        assert_eq!(resumed.ibm_mode, Some(qchess_remote::ibm::IbmMode::Batch), "a kept game keeps its mode");
        assert_eq!(resumed.target.as_deref(), Some("simulator"), "a flag given again wins");
        assert!(!stored.to_string().contains("key"), "no keys are kept: {stored}");
    }
}
