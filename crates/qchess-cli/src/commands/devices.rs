//! `qchess devices --provider braket`: the devices Amazon Braket offers, with their status, the
//! short name qchess knows each by, and the date of its published capabilities snapshot when
//! `qchess compile --target braket:NAME` has one. Each region's `SearchDevices` is asked (one
//! server when `AWS_ENDPOINT_URL_BRAKET` names one), signed with the credentials the AWS SDKs
//! would use; missing credentials are a usage error (exit code 2), a failing service a runtime
//! failure (1).

use std::collections::BTreeMap;
use std::time::SystemTime;

use anyhow::{Result, anyhow};
use qchess_core::text::with_causes;
use qchess_remote::RemoteError;
use qchess_remote::braket::{BraketClient, BraketConfig, DeviceInfo, Environment, listing_regions};
use qchess_route::target::braket::{DEVICES, target_of};
use serde_json::{Value, json};

use crate::backend::BraketArgs;
use crate::exit::bad_input_at;
use crate::output::print;

/// The providers whose devices can be listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Provider {
    /// Amazon Braket.
    Braket,
}

/// Flags of `qchess devices`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Whose devices to list.
    #[arg(long, value_enum)]
    provider: Provider,
    /// How to reach Amazon Braket (`--aws-region` asks that region only).
    #[command(flatten)]
    braket: BraketArgs,
}

/// Runs `qchess devices`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let Provider::Braket = args.provider;
    let env = Environment::current();
    let now = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut found: BTreeMap<String, DeviceInfo> = BTreeMap::new();
    for region in listing_regions(args.braket.aws_region.as_deref(), &env) {
        let config = BraketConfig::from_environment("sv1", Some(&region), &env, now)
            .map_err(|e| bad_input_at("--provider braket", e))?;
        let client = BraketClient::new(config)?;
        let listed = runtime.block_on(client.search_devices(client.deadline())).map_err(|error| match &error {
            RemoteError::AwsAuth { .. } => bad_input_at(format!("Braket in {region}"), with_causes(&error)),
            _ => anyhow!("Braket in {region}: {}", with_causes(&error)),
        })?;
        found.extend(listed.into_iter().map(|d| (d.arn.clone(), d)));
    }
    let rows: Vec<Value> = found
        .values()
        .map(|device| {
            let known = DEVICES.iter().find(|d| d.arn == device.arn);
            let snapshot = known.and_then(|d| target_of(d).ok().flatten()).and_then(|t| t.calibration.date);
            json!({
                "name": known.map(|d| d.name),
                "arn": device.arn,
                "provider": device.provider,
                "device": device.name,
                "type": device.device_type,
                "status": device.status,
                "snapshot": snapshot,
            })
        })
        .collect();
    if json {
        return print(&format!("{}\n", json!({ "provider": "braket", "devices": rows })));
    }
    let mut text = String::new();
    for row in &rows {
        let field = |key: &str| row[key].as_str().unwrap_or("-").to_owned();
        let snapshot =
            row["snapshot"].as_str().map(|d| format!("snapshot of {}", &d[..10.min(d.len())])).unwrap_or_default();
        text.push_str(&format!(
            "{:24} {:8} {:9} {:8} {:24} {}  {}\n",
            field("name"),
            field("provider"),
            field("type"),
            field("status"),
            field("device"),
            field("arn"),
            snapshot
        ));
    }
    if rows.is_empty() {
        text.push_str("Braket lists no devices\n");
    }
    print(&text)
}
