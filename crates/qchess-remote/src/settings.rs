//! Command-line settings of a remote backend, turned into a validated [`RemoteBoardConfig`].
//!
//! A binary collects its flags into [`RemoteSettings`] (every field optional) and calls
//! [`RemoteSettings::board_config`]: flags win over the environment (`IONQ_API_KEY`), and every
//! value is checked once, with an error that names the flag.
//!
//! ```
//! use qchess_remote::settings::RemoteSettings;
//!
//! let settings = RemoteSettings {
//!     provider_url: Some("http://127.0.0.1:8080/v0.4".into()),
//!     api_key: Some("test".into()),
//!     target: Some("qpu.aria-1".into()),
//!     shots: Some(2000),
//!     mitigation: true,
//!     ..RemoteSettings::default()
//! };
//! let config = settings.board_config()?;
//! assert_eq!(config.shots, 2000);
//! assert!(config.provider.target().is_qpu());
//!
//! let bad = RemoteSettings { target: Some("aria".into()), ..settings };
//! assert!(bad.board_config().unwrap_err().to_string().contains("target `aria`"));
//! # Ok::<(), qchess_remote::config::ConfigError>(())
//! ```

use std::time::Duration;

use crate::board::{DEFAULT_MAX_SHOTS, Mitigation, RemoteBoardConfig};
use crate::config::{ApiKey, ConfigError, DEFAULT_PROVIDER_URL, ProviderConfig};

/// Remote-backend flags as a binary parsed them; `None` means "not given".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RemoteSettings {
    /// `--provider-url` (default [`DEFAULT_PROVIDER_URL`]).
    pub provider_url: Option<String>,
    /// `--api-key` (default: the `IONQ_API_KEY` environment variable).
    pub api_key: Option<String>,
    /// `--target` (`simulator`, `qpu.aria-1`, ...; default `simulator`).
    pub target: Option<String>,
    /// `--noise-model` (`ideal`, `aria-1`, ...; default `ideal`).
    pub noise_model: Option<String>,
    /// `--shots`: shots per job before the post-selection factor.
    pub shots: Option<u64>,
    /// `--timeout`: seconds one move may spend with the provider, retries and the wait included.
    pub timeout_secs: Option<f64>,
    /// `--mitigation`: drop shots with impossible piece counts.
    pub mitigation: bool,
    /// `--seed`: seed of drawn outcomes.
    pub seed: Option<u64>,
    /// `--max-response-bytes`: the most bytes of one answer read from the provider.
    pub max_response_bytes: Option<u64>,
}

impl RemoteSettings {
    /// The validated board configuration. A key is required for IonQ's own API
    /// (`api.ionq.co`); other servers (such as `qchess serve`) may run without one.
    pub fn board_config(&self) -> Result<RemoteBoardConfig, ConfigError> {
        let url = self.provider_url.as_deref().unwrap_or(DEFAULT_PROVIDER_URL);
        let mut provider = ProviderConfig::new(url)?;
        let key = match &self.api_key {
            Some(key) => Some(ApiKey::new(key.as_str())?),
            None => ApiKey::from_env()?,
        };
        match key {
            Some(key) => provider = provider.with_api_key(key),
            None if provider.base_url().contains("api.ionq.co") => {
                return Err(ConfigError::BadApiKey("none given; set IONQ_API_KEY or pass --api-key"));
            }
            None => {}
        }
        if let Some(target) = &self.target {
            provider = provider.with_target(target.parse()?);
        }
        if let Some(model) = &self.noise_model {
            provider = provider.with_noise_model(model.parse()?);
        }
        if let Some(seconds) = self.timeout_secs {
            if !(seconds.is_finite() && seconds > 0.0 && seconds <= 7.0 * 86_400.0) {
                return Err(ConfigError::OutOfRange {
                    what: "--timeout",
                    range: "a number of seconds above 0 and at most a week",
                    value: seconds.to_string(),
                });
            }
            provider = provider.with_overall_timeout(Duration::from_secs_f64(seconds));
        }
        if let Some(bytes) = self.max_response_bytes {
            if !(1024..=1 << 40).contains(&bytes) {
                return Err(ConfigError::OutOfRange {
                    what: "--max-response-bytes",
                    range: "between 1024 and 2^40",
                    value: bytes.to_string(),
                });
            }
            provider = provider.with_max_response_bytes(bytes);
        }
        let mut config = RemoteBoardConfig::new(provider);
        if let Some(shots) = self.shots {
            if !(1..=DEFAULT_MAX_SHOTS).contains(&shots) {
                return Err(ConfigError::OutOfRange {
                    what: "--shots",
                    range: "between 1 and 1000000",
                    value: shots.to_string(),
                });
            }
            config.shots = shots;
        }
        if self.mitigation {
            config.mitigation = Mitigation::DropImpossiblePieceCounts;
        }
        config.seed = self.seed.unwrap_or(0);
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::API_KEY_ENV;

    #[test]
    fn each_bad_flag_is_named() {
        let base = RemoteSettings { provider_url: Some("http://127.0.0.1:1/v0.4".into()), ..RemoteSettings::default() };
        let cases = [
            (RemoteSettings { shots: Some(0), ..base.clone() }, "--shots"),
            (RemoteSettings { timeout_secs: Some(-1.0), ..base.clone() }, "--timeout"),
            (RemoteSettings { max_response_bytes: Some(10), ..base.clone() }, "--max-response-bytes"),
            (RemoteSettings { noise_model: Some("Aria 1".into()), ..base.clone() }, "noise model"),
            (RemoteSettings { api_key: Some("a key".into()), ..base.clone() }, "API key"),
            (RemoteSettings { provider_url: Some("api.ionq.co".into()), ..base.clone() }, "provider URL"),
        ];
        for (settings, expected) in cases {
            let error = settings.board_config().expect_err(expected).to_string();
            assert!(error.contains(expected), "{error}");
        }
        let config = base.board_config().expect("a local server needs no key");
        assert!(config.provider.api_key().is_none() || std::env::var(API_KEY_ENV).is_ok());
        assert_eq!(config.mitigation, Mitigation::None);
    }
}
