//! `--backend ibm:DEVICE`: the IBM flags checked, and the device's configuration fetched once so
//! an unknown device is a usage error (exit code 2) before any game starts. `--shots` and
//! `--mitigation` apply as for IonQ, and so does `--timeout`: the most time one move spends with
//! IBM (every request, retry, back-off and the wait for its job, which is canceled when the time
//! runs out or on Ctrl-C).

use qchess_circuit::ir::Circuit;
use qchess_compare::observation::Observation;
use qchess_core::text::{excerpt, with_causes};
use qchess_remote::config::ApiKey;
use qchess_remote::ibm::IbmConfig;
use qchess_remote::sampler::{IbmRunError, IbmRunner};
use qchess_remote::{RemoteBoardConfig, RemoteError, RemoteSettings};

use super::{Backend, BackendSpec, RemoteArgs};
use crate::exit::bad_input_at;

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

/// Checks the IBM flags, asks the service for `device`'s configuration and returns the backend.
pub(super) fn resolve(spec: &BackendSpec, device: &str, remote: &RemoteArgs) -> anyhow::Result<Backend> {
    let place = || format!("backend `{}`", excerpt(&spec.to_string()));
    let key = flag_or_env(&remote.ibm_api_key, API_KEY_ENV).ok_or_else(|| {
        bad_input_at(place(), format!("no IBM Cloud API key: pass --ibm-api-key or set {API_KEY_ENV}"))
    })?;
    let key = ApiKey::new(key).map_err(|e| bad_input_at(place(), e))?;
    let crn = flag_or_env(&remote.ibm_crn, CRN_ENV).ok_or_else(|| {
        bad_input_at(place(), format!("no IBM Quantum service instance: pass --ibm-crn or set {CRN_ENV}"))
    })?;
    let mut ibm = IbmConfig::new(key, crn.trim(), device);
    if let Some(url) = flag_or_env(&remote.ibm_url, URL_ENV) {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(bad_input_at(place(), format!("--ibm-url `{}` is not an http(s) URL", excerpt(&url))));
        }
        ibm = ibm.at(&url);
    } else {
        // Only IBM's own devices are cached: the cache is keyed by device name alone.
        ibm.cache_dir = cache_dir();
    }
    // The IonQ part of the configuration is unused; the shared flags (shots, timeout,
    // mitigation) are checked the same way as for the other providers.
    let settings = RemoteSettings {
        provider_url: Some(ibm.api_url.clone()),
        shots: remote.shots,
        timeout_secs: remote.timeout,
        mitigation: spec.mitigation || remote.mitigation,
        max_response_bytes: remote.max_response_bytes,
        ..RemoteSettings::default()
    };
    let mut config = settings.board_config().map_err(|e| bad_input_at(place(), e))?;
    ibm.max_response_bytes = config.provider.max_response_bytes();
    ibm.overall_timeout = config.provider.overall_timeout();

    let qubits = block_on(async {
        let mut runner = IbmRunner::new(ibm.clone(), 0)?;
        runner.target().await.map(|target| target.num_qubits)
    })
    .map_err(|error| match &error {
        // The service does not know the device: the user named it wrongly.
        IbmRunError::Remote(RemoteError::Rejected { status: 404, .. }) => {
            bad_input_at(place(), format!("IBM Quantum has no device `{device}`: {}", with_causes(&error)))
        }
        IbmRunError::Remote(RemoteError::Auth { .. }) => bad_input_at(place(), with_causes(&error)),
        _ => anyhow::anyhow!("{}: {}", place(), with_causes(&error)),
    })?;
    config.ibm = Some(ibm);
    let mitigation =
        if config.mitigation == qchess_remote::Mitigation::None { String::new() } else { ", mitigation".to_owned() };
    Ok(Backend::Remote { label: format!("ibm:{device} ({qubits} qubits{mitigation})"), config: Box::new(config) })
}

/// Runs one circuit on the IBM device of `config`, for `qchess compare`.
pub(super) fn run_circuit(config: &RemoteBoardConfig, circuit: &Circuit, shots: u64) -> Result<Observation, String> {
    let ibm = config.ibm.clone().ok_or("not an IBM backend")?;
    let result = block_on(async {
        let mut runner = IbmRunner::new(ibm, config.seed)?;
        runner.run(circuit, shots).await
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

/// Runs a future on a fresh single-threaded runtime.
fn block_on<T>(future: impl Future<Output = Result<T, IbmRunError>>) -> Result<T, IbmRunError> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| {
        IbmRunError::Remote(RemoteError::Network {
            what: "starting the async runtime".into(),
            attempts: 0,
            detail: e.to_string(),
        })
    })?;
    runtime.block_on(future)
}
