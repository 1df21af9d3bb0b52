//! `--backend braket:DEVICE`: an Amazon Braket device, by short name (`iqm-garnet`) or ARN.
//! The AWS credentials, the region (the ARN's; for the managed simulators `AWS_REGION` or the
//! profile's, or `--aws-region`) and the endpoints (`AWS_ENDPOINT_URL_BRAKET`,
//! `AWS_ENDPOINT_URL_S3`) are found as the AWS SDKs find them (see
//! `qchess_remote::braket::credentials`), and the device is asked for once (`GetDevice`), so that
//! an unknown device, missing credentials or a refused key are usage errors (exit code 2) before
//! any game starts, and an offline device a runtime failure (1). Circuits are then routed onto
//! the device's capabilities and run as verbatim programs of its native gates. `--shots`,
//! `--mitigation` and `--timeout` apply as for the other providers.
//! [`ready_device`] serves `qchess compile --target braket:DEVICE` for devices without a
//! published snapshot.

use std::time::SystemTime;

use qchess_circuit::ir::Circuit;
use qchess_compare::observation::Observation;
use qchess_core::text::{excerpt, with_causes};
use qchess_remote::braket::{BraketConfig, BraketConfigError, BraketRunError, BraketRunner, Environment};
use qchess_remote::{RemoteBoardConfig, RemoteError};

use super::{Backend, BackendSpec, RemoteArgs, block_on, shared_board_config};
use crate::exit::bad_input_at;

/// How to reach Amazon Braket, besides what the AWS environment says.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BraketArgs {
    /// The AWS region of braket:DEVICE when the device's ARN names none (the managed
    /// simulators); it must match the ARN's otherwise (default: AWS_REGION, else the profile's).
    #[arg(long, value_name = "REGION")]
    pub aws_region: Option<String>,
    /// Where Braket writes task results: BUCKET or BUCKET/PREFIX (default: the Braket SDK's
    /// bucket, amazon-braket-REGION-ACCOUNT, prefix qchess-tasks).
    #[arg(long, value_name = "BUCKET[/PREFIX]")]
    pub braket_output: Option<String>,
}

/// Seconds since 1970, for credentials that say when they expire.
fn now() -> u64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The connection the AWS environment and the flags describe for `device`.
pub fn connection(device: &str, flags: &BraketArgs, place: &dyn Fn() -> String) -> anyhow::Result<BraketConfig> {
    let config = BraketConfig::from_environment(device, flags.aws_region.as_deref(), &Environment::current(), now())
        .map_err(|e| bad_input_at(place(), e))?;
    match &flags.braket_output {
        Some(output) => config.with_output(output).map_err(|e| bad_input_at(place(), e)),
        None => Ok(config),
    }
}

/// A failure to describe the device, as an exit code: an unknown device or refused
/// credentials are the user's to fix (2), anything else (an offline device) a runtime failure (1).
fn fetch_error(error: BraketRunError, device: &str, place: &dyn Fn() -> String) -> anyhow::Error {
    match &error {
        BraketRunError::Remote(RemoteError::Rejected { status: 404, .. }) => {
            bad_input_at(place(), format!("Amazon Braket has no device `{device}`: {}", with_causes(&error)))
        }
        BraketRunError::Remote(RemoteError::AwsAuth { .. }) => bad_input_at(place(), with_causes(&error)),
        _ => anyhow::anyhow!("{}: {}", place(), with_causes(&error)),
    }
}

/// Checks the device name: a short name qchess knows or a Braket device ARN.
pub(super) fn braket_device(device: &str) -> Result<String, String> {
    match qchess_remote::braket::device_arn(device) {
        Ok(_) => Ok(device.to_owned()),
        Err(BraketConfigError::UnknownDevice(_)) if device.is_empty() => {
            Err("`braket:` names no device: write braket:DEVICE, such as braket:iqm-garnet".to_owned())
        }
        Err(error) => Err(error.to_string().replace(device, &excerpt(device))),
    }
}

/// `device` on Braket made ready for routing, from the capabilities `GetDevice` answers (for
/// `qchess compile --target braket:DEVICE` of a device without a published snapshot).
pub fn ready_device(device: &str, flags: &BraketArgs) -> anyhow::Result<qchess_route::Device> {
    let place = || format!("--target `braket:{}`", excerpt(device));
    let config = connection(device, flags, &place)?;
    if config.is_simulator() {
        return Err(bad_input_at(
            place(),
            "a managed simulator runs any gate on any qubits: there is nothing to route onto",
        ));
    }
    block_on(async {
        let mut runner = BraketRunner::new(config, 0)?;
        let deadline = runner.deadline();
        Ok(runner.ready(deadline).await?.cloned())
    })
    .map_err(|error| fetch_error(error, device, &place))?
    .ok_or_else(|| anyhow::anyhow!("{}: the device has no capabilities to route onto", place()))
}

/// Checks the AWS environment and flags, asks Braket for `device` and returns the backend.
pub(super) fn resolve(spec: &BackendSpec, device: &str, remote: &RemoteArgs) -> anyhow::Result<Backend> {
    let place = || format!("backend `{}`", excerpt(&spec.to_string()));
    let mut braket = connection(device, &remote.braket, &place)?;
    let mut config = shared_board_config(spec, remote, &braket.braket_url, &place)?;
    braket.max_response_bytes = config.provider.max_response_bytes();
    braket.overall_timeout = config.provider.overall_timeout();
    if braket.braket_url.starts_with("http://") {
        // A server on this machine answers in milliseconds; poll it accordingly.
        braket.poll = qchess_remote::config::PollPolicy {
            initial: std::time::Duration::from_millis(5),
            max: std::time::Duration::from_millis(200),
        };
    }
    let summary = block_on(async {
        let mut runner = BraketRunner::new(braket.clone(), 0)?;
        let deadline = runner.deadline();
        Ok(match runner.ready(deadline).await? {
            Some(device) => describe(device.target()),
            None => "managed simulator".to_owned(),
        })
    })
    .map_err(|error| fetch_error(error, device, &place))?;
    config.braket = Some(braket);
    let mitigation =
        if config.mitigation == qchess_remote::Mitigation::None { String::new() } else { ", mitigation".to_owned() };
    Ok(Backend::Remote { label: format!("braket:{device} ({summary}{mitigation})"), config: Box::new(config) })
}

/// The device in a few words: its size, the calibration's date and what is left out as broken.
fn describe(target: &qchess_route::Target) -> String {
    let working = target.num_qubits as usize - target.broken_qubits().len();
    let mut text = format!("{working} working qubits");
    if let Some(date) = &target.calibration.date {
        text.push_str(&format!(", calibration of {date}"));
    }
    let couplers = target.broken_couplers().len();
    if couplers > 0 {
        text.push_str(&format!(", {couplers} broken couplers left out"));
    }
    text
}

/// Runs one circuit on the Braket device of `config`, for `qchess compare`.
pub(super) fn run_circuit(config: &RemoteBoardConfig, circuit: &Circuit, shots: u64) -> Result<Observation, String> {
    let braket = config.braket.clone().ok_or("not a Braket backend")?;
    let result = block_on(async {
        let mut runner = BraketRunner::new(braket, config.seed)?;
        let deadline = runner.deadline();
        runner.run_before(circuit, shots, deadline).await
    })
    .map_err(|e| with_causes(&e))?;
    qchess_compare::circuits::from_qubit_results(circuit, result.probabilities.outcomes(), Some(result.shots))
}
