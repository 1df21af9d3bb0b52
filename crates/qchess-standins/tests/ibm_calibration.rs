//! Device calibrations between the IBM client and the stand-in on 127.0.0.1: the properties are
//! served in the live shape (an `operational` flag on every qubit and gate, 0 on the broken
//! ones), fetched and cached by the client (reused while fresh, fetched again once stale), read
//! by `qchess-route` as the same calibration as the published file; jobs that put a gate on a
//! broken coupler are refused as the service refuses them, and circuits the runner routes with
//! the calibration never do.

use std::time::Duration;

use qchess_circuit::ir::{Circuit, Gate, QubitRole};
use qchess_remote::RemoteError;
use qchess_remote::config::{ApiKey, RetryPolicy};
use qchess_remote::ibm::{IbmClient, IbmConfig};
use qchess_remote::sampler::IbmRunner;
use qchess_route::target::presets::{FEZ_CONF, FEZ_PROPS};
use qchess_route::target::{Target, ibm};
use qchess_standins::{ServerKey, ibm as stand_in};

mod ibm_common;

const KEY: &str = "ibm-cloud-key";

/// Serves the IBM routes on their own thread; returns the base URL.
fn start() -> String {
    ibm_common::start_with(stand_in::IbmOptions::new(
        Some(ServerKey::new(KEY).expect("a key")),
        Duration::from_secs(3600),
    ))
}

fn config(base: &str, cache: Option<&std::path::Path>) -> IbmConfig {
    let retry =
        RetryPolicy { max_retries: 1, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(50) };
    IbmConfig {
        retry,
        cache_dir: cache.map(std::path::Path::to_owned),
        ..IbmConfig::new(ApiKey::new(KEY).expect("a key"), "crn:v1:qchess:test", "ibm_fez").at(base)
    }
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(future)
}

/// The `operational` flag of a parameter list.
fn operational(parameters: &serde_json::Value) -> Option<u64> {
    parameters.as_array()?.iter().find(|p| p["name"] == "operational")?["value"].as_u64()
}

#[test]
fn properties_come_flagged_and_read_as_the_published_calibration() {
    let base = start();
    let client = IbmClient::new(config(&base, None)).expect("client");
    let properties = block_on(client.properties()).expect("fetched");
    assert_eq!(properties["last_update_date"], "2025-02-26T15:16:25-05:00");
    let gates = properties["gates"].as_array().expect("gates");
    let flag = |gate: &str, qubits: [u64; 2]| {
        gates
            .iter()
            .find(|g| g["gate"] == gate && g["qubits"] == serde_json::json!(qubits))
            .and_then(|g| operational(&g["parameters"]))
    };
    assert_eq!(flag("cz", [27, 28]), Some(0), "published with gate error 1");
    assert_eq!(flag("cz", [87, 88]), Some(1));
    assert!(properties["qubits"].as_array().expect("qubits").iter().all(|q| operational(q) == Some(1)));

    let configuration = block_on(client.configuration()).expect("fetched");
    let live = ibm::with_properties(
        Target::from_json(&configuration.to_string(), "ibm_fez").expect("a target"),
        &properties.to_string(),
        "ibm_fez",
    )
    .expect("calibrated");
    let published =
        ibm::with_properties(Target::from_json(FEZ_CONF, "ibm_fez").expect("a target"), FEZ_PROPS, "ibm_fez")
            .expect("calibrated");
    assert_eq!(live.broken_couplers(), published.broken_couplers());
    assert_eq!(live.broken_qubits(), published.broken_qubits());
    assert_eq!(live.calibration.down_pairs.len(), 14, "both directions of the seven dead couplers");
}

#[test]
fn properties_are_cached_while_fresh_and_fetched_again_once_stale() {
    let base = start();
    let cache = tempfile::tempdir().expect("a temporary directory");
    let fetched =
        block_on(IbmClient::new(config(&base, Some(cache.path()))).expect("client").properties()).expect("fetched");
    let path = cache.path().join("ibm_fez.properties.json");
    assert!(path.is_file());
    // Fresh: answered from the cache with the service unreachable. The calibration is more than a
    // day old, so the cache is reused for ten minutes only.
    let offline = IbmClient::new(config("http://127.0.0.1:9", Some(cache.path()))).expect("client");
    assert_eq!(block_on(offline.properties()).expect("from the cache"), fetched);
    // Stale: an entry fetched eleven minutes ago is not used; the unreachable service is asked.
    let mut entry: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("JSON");
    let now = entry["fetched_at"].as_u64().expect("a fetch time");
    entry["fetched_at"] = serde_json::json!(now - 11 * 60);
    std::fs::write(&path, entry.to_string()).expect("write");
    let refused = block_on(offline.properties()).expect_err("a stale cache is not used");
    assert!(matches!(refused, RemoteError::Network { .. }), "{refused}");
    // The reachable service refreshes it.
    let again = block_on(IbmClient::new(config(&base, Some(cache.path()))).expect("client").properties())
        .expect("fetched again");
    assert_eq!(again, fetched);
    let entry: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("JSON");
    assert!(entry["fetched_at"].as_u64().is_some_and(|t| t >= now));
}

/// A measured CZ between `a` and `b` on ibm_fez, in its basis.
fn cz_circuit(a: u32, b: u32) -> String {
    format!(
        "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[2] c;\nsx q[{a}];\ncz q[{a}], q[{b}];\n\
         c[0] = measure q[{a}];\nc[1] = measure q[{b}];\n"
    )
}

#[test]
fn a_gate_on_a_broken_coupler_is_refused_and_routed_circuits_avoid_them() {
    let base = start();
    let client = IbmClient::new(config(&base, None)).expect("client");
    assert!(block_on(client.run(&cz_circuit(87, 88), 100)).is_ok());
    let refused = block_on(client.run(&cz_circuit(27, 28), 100)).expect_err("a dead coupler");
    assert!(
        matches!(&refused, RemoteError::Rejected { status: 400, message, .. }
            if message.contains("(27, 28)") && message.contains("faulty edge")),
        "{refused}"
    );

    // A chain of CX along qubits that the runner must place on working couplers only.
    let mut circuit = Circuit::new();
    let qubits: Vec<_> = (0..8).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    circuit.push_gate(Gate::x(qubits[0]));
    for pair in qubits.windows(2) {
        circuit.push_gate(Gate::cx(pair[0], pair[1]));
    }
    let mut runner = IbmRunner::new(config(&base, None), 3).expect("runner");
    let target = block_on(runner.target()).expect("calibrated").clone();
    assert_eq!(target.broken_couplers().len(), 7);
    let qasm = block_on(runner.isa_circuit(&circuit)).expect("routed");
    assert!(qasm.contains("// estimated success probability: "), "{qasm}");
    for line in qasm.lines().filter(|l| l.starts_with("cz ")) {
        let pair: Vec<u32> =
            line.match_indices("q[").filter_map(|(at, _)| line[at + 2..].split(']').next()?.parse().ok()).collect();
        assert!(!target.is_pair_broken(pair[0], pair[1]), "{line}");
    }
    let result = block_on(runner.run(&circuit, 200)).expect("runs");
    // X then a CX chain: every qubit reads 1.
    assert_eq!(result.probabilities.outcomes().iter().map(|(outcome, _)| *outcome).collect::<Vec<_>>(), vec![0xFF]);
}
