//! The Braket stand-in's routes on 127.0.0.1, driven by qchess's own Braket client (SigV4,
//! the endpoints the AWS SDKs read, S3 path-style): devices, a verbatim task's whole life and
//! its results, verbatim boxes refused naming the gate or pair, AWS's error shapes for
//! unsigned, expired, wrongly signed, offline and unknown requests (Braket's and S3's), cancelling, a task past the time
//! limit failing with its reason, and the bucket listed.

mod ibm_common;

use std::collections::BTreeSet;
use std::time::Duration;

use ibm_common::{block_on, serve};
use qchess_remote::braket::{BraketClient, BraketConfig, Environment, TaskState, sigv4};
use qchess_remote::retry::Deadline;
use qchess_standins::RunOptions;
use qchess_standins::braket::{self, BraketOptions, KeyPair};

const KEY: &str = "AKIDQCHESSTEST";
const SECRET: &str = "braket-stand-in-secret";
const GARNET: &str = "arn:aws:braket:eu-north-1::device/qpu/iqm/Garnet";

/// A Bell pair in Garnet's native gates on the coupled qubits 1 and 2.
const BELL: &str = "OPENQASM 3.0;\nbit[2] c;\n#pragma braket verbatim\nbox {\n  prx(1.5707963267948966, 1.5707963267948966) $1;\n  prx(1.5707963267948966, 1.5707963267948966) $2;\n  cz $1, $2;\n  prx(1.5707963267948966, 4.71238898038469) $2;\n}\nc[0] = measure $1;\nc[1] = measure $2;\n";

fn options(configure: impl FnOnce(&mut BraketOptions)) -> BraketOptions {
    let mut options = BraketOptions::new(Some(KeyPair { access_key_id: KEY.into(), secret: SECRET.into() }));
    options.offline = BTreeSet::from(["iqm-emerald".to_owned()]);
    configure(&mut options);
    options
}

fn start(configure: impl FnOnce(&mut BraketOptions)) -> String {
    serve(braket::service(options(configure)))
}

fn client(base: &str, device: &str, secret: &str) -> BraketClient {
    let env = Environment::of(&[
        ("AWS_ACCESS_KEY_ID", KEY),
        ("AWS_SECRET_ACCESS_KEY", secret),
        ("AWS_ENDPOINT_URL_BRAKET", &format!("{base}/braket")),
        ("AWS_ENDPOINT_URL_S3", &format!("{base}/s3")),
        ("AWS_ENDPOINT_URL_STS", &format!("{base}/sts")),
        ("AWS_REGION", "us-east-1"),
    ]);
    let mut config = BraketConfig::from_environment(device, None, &env, braket::now()).expect("a configuration");
    config.retry.max_retries = 0;
    config.overall_timeout = Duration::from_secs(60);
    BraketClient::new(config).expect("a client")
}

fn deadline() -> Deadline {
    Deadline::after(Duration::from_secs(60))
}

/// Polls a task until it is over.
fn wait(client: &BraketClient, arn: &str) -> TaskState {
    for _ in 0..600 {
        let state = block_on(client.task(arn, deadline())).expect("the task's state");
        if matches!(state.status.as_str(), "COMPLETED" | "FAILED" | "CANCELLED") {
            return state;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("task {arn} never ended");
}

#[test]
fn a_verbatim_bell_pair_runs_on_garnet_and_its_results_are_in_the_bucket() {
    let base = start(|_| {});
    let client = client(&base, "iqm-garnet", SECRET);
    let garnet = block_on(client.device(GARNET, deadline())).expect("Garnet");
    assert_eq!((garnet.status.as_str(), garnet.device_type.as_str()), ("ONLINE", "QPU"));
    assert_eq!(garnet.capabilities["paradigm"]["qubitCount"], 20);
    let listed = block_on(client.search_devices(deadline())).expect("the devices");
    assert_eq!(listed.len(), 7);
    assert!(listed.iter().any(|d| d.arn.ends_with("Emerald") && d.status == "OFFLINE"));

    let shots = 4000;
    let arn = block_on(client.create_task(BELL, shots, "token-1", deadline())).expect("created");
    assert!(arn.starts_with("arn:aws:braket:eu-north-1:123456789012:quantum-task/"), "{arn}");
    let again = block_on(client.create_task(BELL, shots, "token-1", deadline())).expect("the same");
    assert_eq!(again, arn, "a client token answers the task it created");
    let state = wait(&client, &arn);
    assert_eq!(state.status, "COMPLETED", "{state:?}");
    // The default bucket is named from STS's account, as the SDK names it.
    assert_eq!(state.bucket, "amazon-braket-eu-north-1-123456789012");
    let result = block_on(client.results(&state, &arn, deadline())).expect("results.json");
    assert_eq!((result.measured_qubits.clone(), result.shots), (vec![1, 2], shots));
    let count = |outcome: u64| result.weights.get(&outcome).copied().unwrap_or(0.0);
    assert_eq!(count(0b01) + count(0b10), 0.0, "{:?}", result.weights);
    // Half of the shots read 00: within 5.5 standard errors (p > 1e-7 of a false alarm).
    let z = (count(0) - shots as f64 / 2.0) / (shots as f64 / 4.0).sqrt();
    assert!(z.abs() < 5.5, "{:?}: z = {z}", result.weights);

    let listing = reqwest::blocking::get(format!("{base}/s3/{}?list-type=2", state.bucket)).expect("answers");
    assert_eq!(listing.status(), 403, "unsigned");
    let missing = TaskState { directory: "nowhere".into(), ..state };
    let error = block_on(client.results(&missing, &arn, deadline())).expect_err("no object").to_string();
    assert!(error.contains("NoSuchKey"), "{error}");
}

#[test]
fn verbatim_boxes_are_checked_against_the_devices_gates_and_connectivity() {
    let base = start(|_| {});
    let client = client(&base, "iqm-garnet", SECRET);
    let not_native = BELL.replace("cz $1, $2;", "cnot $1, $2;");
    let error = block_on(client.create_task(&not_native, 10, "a", deadline())).expect_err("not native").to_string();
    assert!(
        error.contains("ValidationException") && error.contains("gate `cnot`") && error.contains("native"),
        "{error}"
    );
    let uncoupled = BELL.replace("cz $1, $2;", "cz $1, $3;");
    let error = block_on(client.create_task(&uncoupled, 10, "b", deadline())).expect_err("uncoupled").to_string();
    assert!(error.contains("(1, 3)"), "{error}");
    let virtual_qubits = "OPENQASM 3.0;\nqubit[2] q;\n#pragma braket verbatim\nbox {\n  cz q[0], q[1];\n}\n";
    let error = block_on(client.create_task(virtual_qubits, 10, "c", deadline())).expect_err("virtual").to_string();
    assert!(error.contains("physical qubits"), "{error}");
    let pragma = "OPENQASM 3.0;\n#pragma braket result state_vector\nqubit[1] q;\nh q[0];\n";
    let error = block_on(client.create_task(pragma, 10, "d", deadline())).expect_err("a pragma").to_string();
    assert!(error.contains("program:2:1") && error.contains("pragma"), "{error}");
}

#[test]
fn requests_are_refused_in_awss_shapes() {
    let base = start(|_| {});
    let unsigned =
        reqwest::blocking::get(format!("{base}/braket/device/{}", GARNET.replace(':', "%3A").replace('/', "%2F")))
            .expect("answers");
    assert_eq!(unsigned.status(), 403);
    assert_eq!(unsigned.headers()["x-amzn-ErrorType"], "MissingAuthenticationTokenException");
    let listing = reqwest::blocking::get(format!("{base}/s3/a-bucket?list-type=2")).expect("answers");
    assert_eq!(listing.status(), 403);
    let xml = listing.text().expect("a body");
    assert!(xml.contains("<Code>AccessDenied</Code>") && xml.contains("<Message>"), "{xml}");
    // Signed properly, but twenty minutes ago.
    let path = format!("/braket/device/{}", sigv4::uri_encode(GARNET, false));
    let host = base.trim_start_matches("http://").to_owned();
    let date = sigv4::amz_date(braket::now() - 1200);
    let headers = vec![("host".to_owned(), host), ("x-amz-date".to_owned(), date.clone())];
    let signable = sigv4::Signable {
        method: "GET",
        path: &path,
        query: &[],
        headers: &headers,
        payload_hash: sigv4::EMPTY_SHA256,
    };
    let scope =
        sigv4::Scope { access_key_id: KEY, secret: SECRET, region: "eu-north-1", service: "braket", amz_date: &date };
    let stale = reqwest::blocking::Client::new()
        .get(format!("{base}{path}"))
        .header("x-amz-date", &date)
        .header("authorization", sigv4::authorization(&signable, &scope))
        .send()
        .expect("answers");
    assert_eq!(
        (stale.status().as_u16(), stale.headers()["x-amzn-ErrorType"].to_str().ok()),
        (403, Some("InvalidSignatureException"))
    );
    let message = stale.text().expect("a body");
    assert!(message.contains("Signature expired"), "{message}");
    let wrong = client(&base, "iqm-garnet", "not the secret");
    let error = block_on(wrong.device(GARNET, deadline())).expect_err("wrongly signed").to_string();
    assert!(error.contains("InvalidSignatureException") && error.contains("signature"), "{error}");
    let offline = client(&base, "iqm-emerald", SECRET);
    let error = block_on(offline.create_task(BELL, 10, "e", deadline())).expect_err("offline").to_string();
    assert!(error.contains("DeviceOfflineException") && error.contains("OFFLINE"), "{error}");
    let unknown = client(&base, "arn:aws:braket:eu-north-1::device/qpu/iqm/Nowhere", SECRET);
    let error = block_on(unknown.device("arn:aws:braket:eu-north-1::device/qpu/iqm/Nowhere", deadline()))
        .expect_err("unknown")
        .to_string();
    assert!(error.contains("ResourceNotFoundException"), "{error}");
}

#[test]
fn tasks_are_cancelled_and_fail_with_their_reason() {
    let queued = start(|o| o.run = RunOptions { queue_delay: Duration::from_secs(600), ..RunOptions::default() });
    let client = client(&queued, "iqm-garnet", SECRET);
    let arn = block_on(client.create_task(BELL, 10, "f", deadline())).expect("created");
    assert_eq!(block_on(client.task(&arn, deadline())).expect("state").status, "QUEUED");
    block_on(client.cancel_task(&arn)).expect("cancelled");
    assert_eq!(block_on(client.task(&arn, deadline())).expect("state").status, "CANCELLED");
    let error = block_on(client.cancel_task(&arn)).expect_err("over").to_string();
    assert!(error.contains("ConflictException"), "{error}");

    let limited = start(|o| o.run = RunOptions { time_limit: Duration::from_nanos(1), ..RunOptions::default() });
    let client = self::client(&limited, "iqm-garnet", SECRET);
    let arn = block_on(client.create_task(BELL, 100, "g", deadline())).expect("created");
    let state = wait(&client, &arn);
    assert_eq!(state.status, "FAILED");
    assert!(state.failure_reason.as_deref().is_some_and(|r| r.contains("limit")), "{state:?}");
}
