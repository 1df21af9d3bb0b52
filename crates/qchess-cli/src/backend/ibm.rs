//! `--backend ibm:DEVICE`: the IBM flags checked, and the device's configuration and properties
//! (its calibration) fetched once so an unknown device is a usage error (exit code 2) before any
//! game starts; circuits are then routed with that calibration (no broken qubit or coupler, the
//! highest estimated success probability found). `--shots` and `--mitigation` apply as for IonQ,
//! and so does `--timeout`: the most time one move spends with IBM (every request, retry,
//! back-off and the wait for its job, which is canceled when the time runs out or on Ctrl-C).
//! `--ibm-mode` says whether a game's jobs go into one session (the default), one batch, or
//! alone.
//! [`ready_device`] serves `qchess compile --target ibm:DEVICE` the same way.

use qchess_circuit::ir::Circuit;
use qchess_compare::observation::Observation;
use qchess_core::text::{excerpt, with_causes};
use qchess_remote::config::ApiKey;
use qchess_remote::ibm::IbmConfig;
use qchess_remote::sampler::{IbmRunError, IbmRunner};
use qchess_remote::{RemoteBoardConfig, RemoteError};

use super::{Backend, BackendSpec, RemoteArgs, block_on, shared_board_config};
use crate::exit::bad_input_at;

/// How to reach IBM Quantum, for commands without the other remote flags.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct IbmArgs {
    /// IBM Cloud API key of `ibm:DEVICE` (default: the QISKIT_IBM_TOKEN environment variable).
    #[arg(long, value_name = "KEY")]
    pub ibm_api_key: Option<String>,
    /// CRN of the IBM Quantum service instance (default: the QISKIT_IBM_INSTANCE environment
    /// variable).
    #[arg(long, value_name = "CRN")]
    pub ibm_crn: Option<String>,
    /// One base URL for IBM's IAM and API, such as a qchess serve (default: QCHESS_IBM_URL, else
    /// IBM's own services).
    #[arg(long, value_name = "URL")]
    pub ibm_url: Option<String>,
}

/// The API key's environment variable (as Qiskit reads it).
const API_KEY_ENV: &str = "QISKIT_IBM_TOKEN";
/// The service instance's environment variable (as Qiskit reads it).
const CRN_ENV: &str = "QISKIT_IBM_INSTANCE";
/// The environment variable of one base URL for IAM and the API.
const URL_ENV: &str = "QCHESS_IBM_URL";

/// A flag, else its environment variable (empty counts as unset).
fn flag_or_env(flag: &Option<String>, env: &str) -> Option<String> {
    flag.clone().or_else(|| std::env::var(env).ok()).filter(|v| !v.trim().is_empty())
}

/// The connection the IBM flags describe for `device`; `place` names the flag in errors.
fn connection(device: &str, flags: &IbmArgs, place: &dyn Fn() -> String) -> anyhow::Result<IbmConfig> {
    let key = flag_or_env(&flags.ibm_api_key, API_KEY_ENV).ok_or_else(|| {
        bad_input_at(place(), format!("no IBM Cloud API key: pass --ibm-api-key or set {API_KEY_ENV}"))
    })?;
    let key = ApiKey::new(key).map_err(|e| bad_input_at(place(), e))?;
    let crn = flag_or_env(&flags.ibm_crn, CRN_ENV).ok_or_else(|| {
        bad_input_at(place(), format!("no IBM Quantum service instance: pass --ibm-crn or set {CRN_ENV}"))
    })?;
    let mut ibm = IbmConfig::new(key, crn.trim(), device);
    if let Some(url) = flag_or_env(&flags.ibm_url, URL_ENV) {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(bad_input_at(place(), format!("--ibm-url `{}` is not an http(s) URL", excerpt(&url))));
        }
        ibm = ibm.at(&url);
    } else {
        // Only IBM's own devices are cached: the cache is keyed by device name alone.
        ibm.cache_dir = cache_dir();
    }
    Ok(ibm)
}

/// A failure to describe the device, as an exit code: an unknown device or a refused key is the
/// user's to fix (2), anything else a runtime failure (1).
fn fetch_error(error: IbmRunError, device: &str, place: &dyn Fn() -> String) -> anyhow::Error {
    match &error {
        // The service does not know the device: the user named it wrongly.
        IbmRunError::Remote(RemoteError::Rejected { status: 404, .. }) => {
            bad_input_at(place(), format!("IBM Quantum has no device `{device}`: {}", with_causes(&error)))
        }
        IbmRunError::Remote(RemoteError::Auth { .. }) => bad_input_at(place(), with_causes(&error)),
        _ => anyhow::anyhow!("{}: {}", place(), with_causes(&error)),
    }
}

/// `device` on IBM Quantum made ready for routing, from its configuration and calibration (for
/// `qchess compile --target ibm:DEVICE`).
pub fn ready_device(device: &str, flags: &IbmArgs) -> anyhow::Result<qchess_route::Device> {
    let place = || format!("--target `ibm:{}`", excerpt(device));
    let device = &super::ibm_device(device).map_err(|e| bad_input_at(place(), e))?;
    let ibm = connection(device, flags, &place)?;
    block_on(async {
        let mut runner = IbmRunner::new(ibm, 0)?;
        let deadline = runner.deadline();
        runner.ready(deadline).await.cloned()
    })
    .map_err(|error| fetch_error(error, device, &place))
}

/// Checks the IBM flags, asks the service for `device`'s configuration and calibration and
/// returns the backend.
pub(super) fn resolve(spec: &BackendSpec, device: &str, remote: &RemoteArgs) -> anyhow::Result<Backend> {
    let place = || format!("backend `{}`", excerpt(&spec.to_string()));
    let mut ibm = connection(device, &remote.ibm, &place)?;
    let mut config = shared_board_config(spec, remote, &ibm.api_url, &place)?;
    ibm.max_response_bytes = config.provider.max_response_bytes();
    ibm.overall_timeout = config.provider.overall_timeout();
    ibm.mode = remote.ibm_mode.unwrap_or_default();

    let summary = block_on(async {
        let mut runner = IbmRunner::new(ibm.clone(), 0)?;
        let target = runner.target().await?;
        Ok(describe(target))
    })
    .map_err(|error| fetch_error(error, device, &place))?;
    config.ibm = Some(ibm);
    let mitigation =
        if config.mitigation == qchess_remote::Mitigation::None { String::new() } else { ", mitigation".to_owned() };
    Ok(Backend::Remote { label: format!("ibm:{device} ({summary}{mitigation})"), config: Box::new(config) })
}

/// The device in a few words: its size, the calibration's date and what is left out as broken.
fn describe(target: &qchess_route::Target) -> String {
    let mut text = format!("{} qubits", target.num_qubits);
    if let Some(date) = &target.calibration.date {
        text.push_str(&format!(", calibration of {date}"));
    }
    let (qubits, couplers) = (target.broken_qubits().len(), target.broken_couplers().len());
    if qubits + couplers > 0 {
        text.push_str(&format!(", {qubits} broken qubits and {couplers} broken couplers left out"));
    }
    text
}

/// Runs one circuit on the IBM device of `config`, for `qchess compare`.
pub(super) fn run_circuit(config: &RemoteBoardConfig, circuit: &Circuit, shots: u64) -> Result<Observation, String> {
    let ibm = config.ibm.clone().ok_or("not an IBM backend")?;
    let result = block_on(async {
        let mut runner = IbmRunner::new(ibm, config.seed)?;
        let result = runner.run(circuit, shots).await;
        // Best effort: a session left open ends at its time-to-live.
        let _ = runner.end_session().await;
        result
    })
    .map_err(|e| with_causes(&e))?;
    qchess_compare::circuits::from_qubit_results(circuit, result.probabilities.outcomes(), Some(result.shots))
}

/// Where IBM's device configurations are cached: `$XDG_CACHE_HOME/qchess/ibm`, else
/// `$HOME/.cache/qchess/ibm` (`None` when neither is set).
fn cache_dir() -> Option<std::path::PathBuf> {
    let base =
        std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()).map(std::path::PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|home| std::path::Path::new(&home).join(".cache"))
        })?;
    Some(base.join("qchess").join("ibm"))
}
