//! Shared by the IBM stand-in's integration tests: serving the routes on 127.0.0.1, the client's
//! configuration, and submitting a Sampler V2 job and waiting for its results.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use qchess_remote::config::{ApiKey, RetryPolicy};
use qchess_remote::ibm::{IbmClient, IbmConfig};
use qchess_standins::{ServerKey, ibm};

/// The API key the servers accept.
pub const KEY: &str = "ibm-cloud-key";

/// Serves the IBM routes (tokens living `lifetime`) on their own thread; returns the base URL.
pub fn start(lifetime: Duration) -> String {
    start_with(ibm::IbmOptions::new(Some(ServerKey::new(KEY).expect("a key")), lifetime))
}

/// Serves the IBM routes set up by `options` on their own thread; returns the base URL.
pub fn start_with(options: ibm::IbmOptions) -> String {
    serve(ibm::service(options))
}

/// Serves `app` on 127.0.0.1 on its own thread and runtime; returns the base URL.
pub fn serve(app: axum::Router) -> String {
    let (sender, receiver) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
            sender.send(listener.local_addr().expect("address")).expect("sends");
            axum::serve(listener, app).await.expect("serves");
        });
    });
    let addr = receiver.recv_timeout(Duration::from_secs(10)).expect("the server starts");
    format!("http://{addr}")
}

/// Sends `body` (JSON text, or none) with `method` to `path`; the status and the JSON answer
/// (`null` for none).
pub fn call(
    base: &str,
    token: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<&str>,
) -> (u16, serde_json::Value) {
    let mut request = reqwest::blocking::Client::new()
        .request(method, format!("{base}/api/v1{path}"))
        .bearer_auth(token)
        .header("Service-CRN", "crn:v1:qchess:test");
    if let Some(body) = body {
        request = request.header("Content-Type", "application/json").body(body.to_owned());
    }
    let answer = request.send().expect("answers");
    let status = answer.status().as_u16();
    let text = answer.text().expect("a body");
    (status, if text.is_empty() { serde_json::Value::Null } else { serde_json::from_str(&text).expect("JSON") })
}

pub fn config(base: &str, key: &str, device: &str) -> IbmConfig {
    let retry =
        RetryPolicy { max_retries: 1, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(50) };
    IbmConfig { retry, ..IbmConfig::new(ApiKey::new(key).expect("a key"), "crn:v1:qchess:test", device).at(base) }
}

pub fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(future)
}

/// Submits a Sampler V2 job with a fresh token; returns the status and the JSON answer.
pub fn submit(base: &str, circuit: &str, shots: u64) -> (u16, serde_json::Value) {
    let client = IbmClient::new(config(base, KEY, "ibm_fez")).expect("client");
    let token = block_on(client.token()).expect("a token");
    let job = serde_json::json!({
        "program_id": "sampler", "backend": "ibm_fez",
        "params": { "pubs": [[circuit, null, shots]], "version": 2 },
    });
    let answer = reqwest::blocking::Client::new()
        .post(format!("{base}/api/v1/jobs"))
        .bearer_auth(&token)
        .header("Service-CRN", "crn:v1:qchess:test")
        .json(&job)
        .send()
        .expect("answers");
    let status = answer.status().as_u16();
    let body: serde_json::Value = answer.json().expect("JSON");
    if status != 200 {
        return (status, body);
    }
    let id = body["id"].as_str().expect("an id").to_owned();
    let get = |path: &str| -> serde_json::Value {
        reqwest::blocking::Client::new()
            .get(format!("{base}/api/v1/jobs/{id}{path}"))
            .bearer_auth(&token)
            .header("Service-CRN", "crn:v1:qchess:test")
            .send()
            .expect("answers")
            .json()
            .expect("JSON")
    };
    // Jobs run in the background: poll until the job is over.
    let deadline = std::time::Instant::now() + Duration::from_secs(600);
    while get("")["status"] != "Completed" {
        assert!(!["Failed", "Cancelled"].contains(&get("")["status"].as_str().unwrap_or("")), "{}", get(""));
        assert!(std::time::Instant::now() < deadline, "the job never finished: {}", get(""));
        std::thread::sleep(Duration::from_millis(20));
    }
    (status, get("/results"))
}

/// A Bell pair on ibm_fez's coupled qubits 87 and 88 in its basis: H = rz(pi/2) sx rz(pi/2).
pub const BELL: &str = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[2] c;\n\
    rz(pi/2) q[87]; sx q[87]; rz(pi/2) q[87];\n\
    rz(pi/2) q[88]; sx q[88]; rz(pi/2) q[88];\ncz q[87], q[88];\n\
    rz(pi/2) q[88]; sx q[88]; rz(pi/2) q[88];\nc[0] = measure q[87];\nc[1] = measure q[88];\n";
