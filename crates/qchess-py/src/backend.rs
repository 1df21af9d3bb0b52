//! `backend=`: where a game's moves run. `"local"` (the exact simulator, the default),
//! `"ionq"` (IonQ's API), the `http://` URL of a `qchess serve` or any IonQ v0.4 compatible
//! API, or `"ibm:DEVICE"` (IBM Quantum: circuits routed onto the device and run as Sampler
//! jobs), with the remote options of the command line as keyword arguments.

use pyo3::PyResult;
use qchess_core::{Bitboard, QuantumBoard};
use qchess_remote::config::ApiKey;
use qchess_remote::ibm::IbmConfig;
use qchess_remote::{RemoteBoard, RemoteBoardConfig, RemoteSettings};

use crate::errors::{backend_error, parse_error};

/// The remote options, as keyword arguments of `Game(...)`.
#[derive(Debug, Clone, Default)]
pub struct RemoteOptions {
    /// `api_key=`: the provider's key (default: `IONQ_API_KEY`).
    pub api_key: Option<String>,
    /// `target=`: `simulator` or `qpu.NAME`.
    pub target: Option<String>,
    /// `noise_model=`: `ideal`, `aria-1`, ...
    pub noise_model: Option<String>,
    /// `shots=`: shots per job before post-selection grows them.
    pub shots: Option<u64>,
    /// `timeout=`: seconds one job may take, retries included.
    pub timeout: Option<f64>,
    /// `mitigation=`: drop shots whose piece count is impossible.
    pub mitigation: bool,
    /// `ibm_api_key=`: the IBM Cloud API key (default: `QISKIT_IBM_TOKEN`).
    pub ibm_api_key: Option<String>,
    /// `ibm_crn=`: the IBM Quantum service instance (default: `QISKIT_IBM_INSTANCE`).
    pub ibm_crn: Option<String>,
    /// `ibm_url=`: one base URL for IAM and the API, such as a `qchess serve` (default:
    /// `QCHESS_IBM_URL`, else IBM's own services).
    pub ibm_url: Option<String>,
}

/// A validated backend.
#[derive(Debug, Clone)]
pub enum Backend {
    /// The exact built-in simulator.
    Local,
    /// A provider.
    Remote {
        /// How records name it.
        label: String,
        /// The board configuration.
        config: Box<RemoteBoardConfig>,
    },
}

impl Backend {
    /// Checks `name` with the remote options.
    pub fn resolve(name: Option<&str>, options: RemoteOptions) -> PyResult<Backend> {
        let name = name.unwrap_or("local").trim();
        if let Some(device) = name.strip_prefix("ibm:") {
            return Backend::ibm(name, device, options);
        }
        let provider_url = match name {
            "local" => return Ok(Backend::Local),
            "ionq" => None,
            url if url.starts_with("http://") || url.starts_with("https://") => Some(url.to_owned()),
            other => {
                return Err(parse_error(
                    "backend",
                    format!(
                        "`{other}` is not a backend: use \"local\", \"ionq\", \"ibm:DEVICE\" or the http:// URL of a qchess serve"
                    ),
                ));
            }
        };
        let settings = RemoteSettings {
            provider_url,
            api_key: options.api_key,
            target: options.target,
            noise_model: options.noise_model,
            shots: options.shots,
            timeout_secs: options.timeout,
            mitigation: options.mitigation,
            ..RemoteSettings::default()
        };
        let config = settings.board_config().map_err(|e| parse_error(&format!("backend `{name}`"), e))?;
        Ok(Backend::Remote { label: name.to_owned(), config: Box::new(config) })
    }

    /// `ibm:DEVICE`: the key and instance from the options or the environment; the device is
    /// asked for its configuration at the first move.
    fn ibm(name: &str, device: &str, options: RemoteOptions) -> PyResult<Backend> {
        let what = format!("backend `{name}`");
        let setting = |given: Option<String>, env: &str| {
            given.or_else(|| std::env::var(env).ok()).filter(|value| !value.trim().is_empty())
        };
        if device.trim().is_empty() {
            return Err(parse_error(&what, "name the device, as in ibm:ibm_fez"));
        }
        let key = setting(options.ibm_api_key, "QISKIT_IBM_TOKEN")
            .ok_or_else(|| parse_error(&what, "no IBM Cloud API key: pass ibm_api_key= or set QISKIT_IBM_TOKEN"))?;
        let key = ApiKey::new(key).map_err(|e| parse_error(&what, e))?;
        let crn = setting(options.ibm_crn, "QISKIT_IBM_INSTANCE").ok_or_else(|| {
            parse_error(&what, "no IBM Quantum service instance: pass ibm_crn= or set QISKIT_IBM_INSTANCE")
        })?;
        let mut ibm = IbmConfig::new(key, crn.trim(), device.trim());
        if let Some(url) = setting(options.ibm_url, "QCHESS_IBM_URL") {
            ibm = ibm.at(&url);
        }
        let settings = RemoteSettings {
            provider_url: Some(ibm.api_url.clone()),
            shots: options.shots,
            timeout_secs: options.timeout,
            mitigation: options.mitigation,
            ..RemoteSettings::default()
        };
        let mut config = settings.board_config().map_err(|e| parse_error(&what, e))?;
        config.ibm = Some(ibm);
        Ok(Backend::Remote { label: name.to_owned(), config: Box::new(config) })
    }

    /// How records name the backend.
    pub fn label(&self) -> &str {
        match self {
            Backend::Local => "local",
            Backend::Remote { label, .. } => label,
        }
    }

    /// A remote board at `occupancy` with outcomes drawn from `seed`; `None` for the local
    /// backend, whose board the game makes itself (so that its circuit can be exported).
    pub fn remote_board(&self, occupancy: Bitboard, seed: u64) -> PyResult<Option<Box<dyn QuantumBoard>>> {
        match self {
            Backend::Local => Ok(None),
            Backend::Remote { config, .. } => {
                let config = RemoteBoardConfig { seed, ..(**config).clone() };
                let board = RemoteBoard::new(occupancy, config).map_err(|e| backend_error(&e))?;
                Ok(Some(Box::new(board)))
            }
        }
    }
}
