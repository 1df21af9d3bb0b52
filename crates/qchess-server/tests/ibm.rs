//! The IBM Quantum client against the stand-in routes on 127.0.0.1: key exchange, device
//! configurations (read by `qchess-route` as targets) and their disk cache, tokens refreshed
//! when they expire, and the service's refusals sorted into the error taxonomy.

use std::net::SocketAddr;
use std::time::Duration;

use qchess_remote::RemoteError;
use qchess_remote::config::{ApiKey, RetryPolicy};
use qchess_remote::ibm::{IbmClient, IbmConfig};
use qchess_server::{ServerKey, ibm};

const KEY: &str = "ibm-cloud-key";

/// Serves the IBM routes (tokens living `lifetime`) on their own thread; returns the base URL.
fn start(lifetime: Duration) -> String {
    start_with(ibm::IbmOptions::new(Some(ServerKey::new(KEY).expect("a key")), lifetime))
}

/// Serves the IBM routes set up by `options` on their own thread; returns the base URL.
fn start_with(options: ibm::IbmOptions) -> String {
    let (sender, receiver) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
            sender.send(listener.local_addr().expect("address")).expect("sends");
            axum::serve(listener, ibm::service::<()>(options)).await.expect("serves");
        });
    });
    let addr = receiver.recv_timeout(Duration::from_secs(10)).expect("the server starts");
    format!("http://{addr}")
}

fn config(base: &str, key: &str, device: &str) -> IbmConfig {
    let retry =
        RetryPolicy { max_retries: 1, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(50) };
    IbmConfig { retry, ..IbmConfig::new(ApiKey::new(key).expect("a key"), "crn:v1:qchess:test", device).at(base) }
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(future)
}

#[test]
fn the_configuration_is_fetched_read_as_a_target_and_cached() {
    let base = start(Duration::from_secs(3600));
    let cache = tempfile::tempdir().expect("a temporary directory");
    let client =
        IbmClient::new(IbmConfig { cache_dir: Some(cache.path().to_owned()), ..config(&base, KEY, "ibm_fez") })
            .expect("client");
    let configuration = block_on(client.configuration()).expect("fetched");
    assert_eq!(configuration["backend_name"], "ibm_fez");
    let target = qchess_route::Target::from_json(&configuration.to_string(), "ibm_fez").expect("a target");
    assert_eq!(target.num_qubits, 156);
    assert!(cache.path().join("ibm_fez.configuration.json").is_file());

    // The cache answers without the network: this client's services are unreachable.
    let offline =
        IbmConfig { cache_dir: Some(cache.path().to_owned()), ..config("http://127.0.0.1:9", KEY, "ibm_fez") };
    let cached = block_on(IbmClient::new(offline).expect("client").configuration()).expect("from the cache");
    assert_eq!(cached, configuration);
}

#[test]
fn an_expired_token_is_exchanged_again() {
    let base = start(Duration::from_secs(1));
    let client = IbmClient::new(config(&base, KEY, "ibm_brisbane")).expect("client");
    let first = block_on(client.token()).expect("a token");
    assert_eq!(block_on(client.token()).expect("a token"), first, "a live token is kept");
    std::thread::sleep(Duration::from_millis(1100));
    // The token has expired on the server; the client exchanges the key again.
    let configuration = block_on(client.configuration()).expect("fetched after a refresh");
    assert_eq!(configuration["n_qubits"], 127);
    assert_ne!(block_on(client.token()).expect("a token"), first);
}

#[test]
fn refusals_sort_into_the_taxonomy() {
    let base = start(Duration::from_secs(3600));
    let wrong_key = IbmClient::new(config(&base, "not-the-key", "ibm_fez")).expect("client");
    let refused = block_on(wrong_key.configuration()).expect_err("a wrong key is refused");
    assert!(matches!(&refused, RemoteError::Auth { status: 401, message } if message.contains("API key")), "{refused}");

    let unknown = IbmClient::new(config(&base, KEY, "ibm_nowhere")).expect("client");
    let missing = block_on(unknown.configuration()).expect_err("an unknown device");
    assert!(
        matches!(&missing, RemoteError::Rejected { status: 404, message, .. } if message.contains("ibm_nowhere")),
        "{missing}"
    );

    // Without a token the API answers 401 in the service's shape.
    let answer = reqwest::blocking::get(format!("{base}/api/v1/backends")).expect("answers");
    assert_eq!(answer.status(), 401);
    let body: serde_json::Value = answer.json().expect("JSON");
    assert!(body["errors"][0]["message"].as_str().is_some_and(|m| m.contains("bearer token")), "{body}");

    let unreachable = IbmClient::new(config("http://127.0.0.1:9", KEY, "ibm_fez")).expect("client");
    let down = block_on(unreachable.token()).expect_err("nothing listens");
    assert!(matches!(down, RemoteError::Network { attempts: 2, .. }), "{down}");
}

#[test]
fn a_token_the_api_refuses_is_exchanged_once_then_the_refusal_stands() {
    // IAM on one server, the API on another that knows none of its tokens: each request is
    // refused 401, the client exchanges the key again and retries once, then reports it.
    let (iam, api) = (start(Duration::from_secs(3600)), start(Duration::from_secs(3600)));
    let client =
        IbmClient::new(IbmConfig { api_url: format!("{api}/api/v1"), ..config(&iam, KEY, "ibm_fez") }).expect("client");
    let before = block_on(client.token()).expect("a token");
    let refused = block_on(client.configuration()).expect_err("the API does not know the token");
    assert!(
        matches!(&refused, RemoteError::Auth { status: 401, message } if message.contains("not valid")),
        "{refused}"
    );
    assert_ne!(block_on(client.token()).expect("a token"), before, "the refused token was exchanged");
}

/// Submits a Sampler V2 job with a fresh token; returns the status and the JSON answer.
fn submit(base: &str, circuit: &str, shots: u64) -> (u16, serde_json::Value) {
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
    assert_eq!(get("")["status"], "Completed");
    (status, get("/results"))
}

/// A Bell pair on ibm_fez's coupled qubits 87 and 88 in its basis: H = rz(pi/2) sx rz(pi/2).
const BELL: &str = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[2] c;\n\
    rz(pi/2) q[87]; sx q[87]; rz(pi/2) q[87];\n\
    rz(pi/2) q[88]; sx q[88]; rz(pi/2) q[88];\ncz q[87], q[88];\n\
    rz(pi/2) q[88]; sx q[88]; rz(pi/2) q[88];\nc[0] = measure q[87];\nc[1] = measure q[88];\n";

#[test]
fn sampler_jobs_run_isa_circuits_and_refuse_the_others() {
    let base = start(Duration::from_secs(3600));
    let (status, results) = submit(&base, BELL, 2000);
    assert_eq!(status, 200, "{results}");
    let register = &results["results"][0]["data"]["c"];
    assert_eq!(register["num_bits"], 2);
    let samples: Vec<&str> =
        register["samples"].as_array().expect("samples").iter().filter_map(|s| s.as_str()).collect();
    assert_eq!(samples.len(), 2000);
    assert!(samples.iter().all(|s| *s == "0x0" || *s == "0x3"), "only 00 and 11: {samples:?}");
    // Binomial(2000, 1/2): sigma 22.4; 6 sigma is a bound that fails with p < 1e-8.
    let ones = samples.iter().filter(|s| **s == "0x3").count() as f64;
    assert!((ones - 1000.0).abs() < 6.0 * 22.37, "{ones} of 2000 read 11");

    let hadamard = BELL.replace("rz(pi/2) q[87]; sx q[87]; rz(pi/2) q[87];", "h q[87];");
    let (status, refused) = submit(&base, &hadamard, 100);
    assert_eq!(status, 400);
    let message = refused["errors"][0]["message"].as_str().expect("a message");
    assert!(message.contains("not an ISA circuit") && message.contains("instruction h"), "{message}");

    let uncoupled = BELL.replace("cz q[87], q[88];", "cz q[0], q[88];");
    let (status, refused) = submit(&base, &uncoupled, 100);
    assert_eq!(status, 400, "{refused}");
    assert!(refused["errors"][0]["message"].as_str().is_some_and(|m| m.contains("not an ISA circuit")), "{refused}");
}

#[test]
fn the_client_runs_sampler_jobs_and_reports_refusals() {
    let base = start(Duration::from_secs(3600));
    let client = IbmClient::new(config(&base, KEY, "ibm_fez")).expect("client");
    let result = block_on(client.run(BELL, 1000)).expect("runs");
    let counts = result.counts("c").expect("register c");
    assert_eq!(counts.keys().copied().collect::<Vec<_>>(), vec![0, 3], "{counts:?}");
    assert_eq!(counts.values().sum::<u64>(), 1000);
    // Binomial(1000, 1/2): sigma 15.8; 6 sigma fails with p < 1e-8.
    assert!((counts[&3] as f64 - 500.0).abs() < 6.0 * 15.82, "{counts:?}");

    let refused = block_on(client.run(&BELL.replace("cz q[87], q[88];", "cx q[87], q[88];"), 100))
        .expect_err("a non-ISA circuit is refused");
    assert!(
        matches!(&refused, RemoteError::Rejected { status: 400, message, .. } if message.contains("instruction cx")),
        "{refused}"
    );
}

/// A game circuit routed onto ibm_fez by `qchess-route` runs on the stand-in and, read back
/// through the final measurements, gives the local exact probabilities within sampling error:
/// a knight split to a3 and c3, then the c3 half jumps to d5 (a3 and d5 hold 1/2 each).
#[test]
fn a_routed_game_circuit_gives_the_local_probabilities() {
    use qchess_circuit::compiler::{Register, Step};
    use qchess_core::{Bitboard, Square, TypedMove};
    use qchess_qasm::export::Export;
    use qchess_route::emit::{EmitInfo, QasmVersion, to_qasm};
    use qchess_route::program::from_circuit;
    use qchess_route::{CompileOptions, compile};

    let mut register = Register::new(Bitboard::from_square(Square::B1));
    for mv in ["b1^a3c3:SPLIT_JUMP:BASIC", "c3d5:JUMP:BASIC"] {
        let step = register.begin(&mv.parse::<TypedMove>().expect("a move")).expect("compiles");
        assert!(matches!(step, Step::Done(_)));
    }
    let export = Export::from_register(&register).expect("exports");
    let target = qchess_route::Target::resolve("ibm-heron").expect("a preset");
    let program = from_circuit(&export.circuit, 0, &export.sidecar.measure).expect("lowers");
    let compiled = compile(&program, &target, &CompileOptions::default()).expect("routes");
    let info = EmitInfo {
        qubit_names: export.circuit.qubits.iter().map(|q| q.name.clone()).collect(),
        circuit_clbits: export.circuit.clbits,
    };
    let qasm = to_qasm(&compiled, &target, &info, QasmVersion::V3);

    let base = start(Duration::from_secs(3600));
    let client = IbmClient::new(config(&base, KEY, "ibm_fez")).expect("client");
    let shots = 2000u64;
    let result = block_on(client.run(&qasm, shots)).expect("runs");
    let meas = &result.registers.iter().find(|r| r.name == "meas").expect("the final measurements").samples;
    for (square, expected) in [(Square::A3, 0.5), (Square::D5, 0.5), (Square::C3, 0.0), (Square::B1, 0.0)] {
        let probability = match export.sidecar.squares.iter().find(|(s, _)| *s == square) {
            Some((_, qubit)) => {
                let bit = export.sidecar.measure.iter().position(|q| q == qubit).expect("measured");
                meas.iter().filter(|&&sample| sample >> bit & 1 == 1).count() as f64 / shots as f64
            }
            None => f64::from(u8::from(export.sidecar.classical.contains(square))),
        };
        // Binomial(2000, 1/2) has sigma 0.0112: 6 sigma fails with p < 1e-8; certain squares are exact.
        assert!((probability - expected).abs() <= 6.0 * 0.0112, "{square}: {probability} vs {expected}");
        if expected == 0.0 {
            assert_eq!(probability, 0.0, "{square}");
        }
    }
}

/// Serves the IBM routes behind a layer that first answers each scripted status (with
/// `Retry-After: 0` on 429; 200 lets that request through), then lets requests through; returns
/// the base URL and the count of requests seen.
fn start_faulty(script: Vec<u16>) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let script = Arc::new(Mutex::new(std::collections::VecDeque::from(script)));
    let (sender, receiver) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
            sender.send(listener.local_addr().expect("address")).expect("sends");
            let key = ServerKey::new(KEY).expect("a key");
            let options = ibm::IbmOptions::new(Some(key), Duration::from_secs(3600));
            let app = ibm::service::<()>(options).layer(axum::middleware::from_fn(
                move |request: axum::extract::Request, next: axum::middleware::Next| {
                    let script = Arc::clone(&script);
                    let counter = Arc::clone(&counter);
                    async move {
                        counter.fetch_add(1, Ordering::SeqCst);
                        let fault = script.lock().expect("script").pop_front().filter(|&status| status != 200);
                        match fault {
                            Some(status) => {
                                let status = axum::http::StatusCode::from_u16(status).expect("a status");
                                let body =
                                    serde_json::json!({ "errors": [{ "code": "0", "message": "scripted fault" }] });
                                let mut response =
                                    axum::response::IntoResponse::into_response((status, axum::Json(body)));
                                response.headers_mut().insert("retry-after", axum::http::HeaderValue::from_static("0"));
                                response
                            }
                            None => next.run(request).await,
                        }
                    }
                },
            ));
            axum::serve(listener, app).await.expect("serves");
        });
    });
    let addr = receiver.recv_timeout(Duration::from_secs(10)).expect("the server starts");
    (format!("http://{addr}"), seen)
}

#[test]
fn rate_limits_and_server_errors_are_retried_then_reported() {
    use std::sync::atomic::Ordering;

    // 429 on the token exchange and 503 then 502 on the configuration: all retried.
    let (base, seen) = start_faulty(vec![429, 503, 502]);
    let retry =
        RetryPolicy { max_retries: 3, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(50) };
    let client = IbmClient::new(IbmConfig { retry, ..config(&base, KEY, "ibm_fez") }).expect("client");
    let configuration = block_on(client.configuration()).expect("fetched after the faults");
    assert_eq!(configuration["backend_name"], "ibm_fez");
    assert_eq!(seen.load(Ordering::SeqCst), 5, "two answered requests after three faults");

    // A service that keeps failing is reported with the attempts made.
    let (base, _) = start_faulty(vec![429; 10]);
    let limited = block_on(IbmClient::new(config(&base, KEY, "ibm_fez")).expect("client").token())
        .expect_err("still rate limited");
    assert!(matches!(limited, RemoteError::RateLimited { attempts: 2, .. }), "{limited}");
    let (base, _) = start_faulty(vec![500; 10]);
    let failing =
        block_on(IbmClient::new(config(&base, KEY, "ibm_fez")).expect("client").token()).expect_err("still failing");
    assert!(matches!(failing, RemoteError::Server { status: 500, attempts: 2, .. }), "{failing}");
}

#[test]
fn job_submissions_are_retried_only_when_the_service_cannot_have_taken_them() {
    use std::sync::atomic::Ordering;

    let retry =
        RetryPolicy { max_retries: 3, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(50) };
    // The token exchange passes; the submission is answered 429 twice, then taken and run.
    let (base, seen) = start_faulty(vec![200, 429, 429]);
    let client = IbmClient::new(IbmConfig { retry, ..config(&base, KEY, "ibm_fez") }).expect("client");
    let result = block_on(client.run(BELL, 100)).expect("runs after the rate limit");
    assert_eq!(result.counts("c").expect("register c").values().sum::<u64>(), 100);
    assert_eq!(seen.load(Ordering::SeqCst), 6, "token, three submissions, status, results");

    // A submission answered 500 may have run: it is not sent again.
    let (base, seen) = start_faulty(vec![200, 500]);
    let client = IbmClient::new(IbmConfig { retry, ..config(&base, KEY, "ibm_fez") }).expect("client");
    let failed = block_on(client.run(BELL, 100)).expect_err("the submission failed");
    assert!(matches!(failed, RemoteError::Server { status: 500, attempts: 1, .. }), "{failed}");
    assert_eq!(seen.load(Ordering::SeqCst), 2, "the token exchange and one submission");
}

#[test]
fn answers_beyond_max_response_bytes_are_refused_unread() {
    let base = start(Duration::from_secs(3600));
    // ibm_fez's configuration is 85 kB; the token and a small job's answers fit in 4 kB.
    let client =
        IbmClient::new(IbmConfig { max_response_bytes: 4096, ..config(&base, KEY, "ibm_fez") }).expect("client");
    let refused = block_on(client.configuration()).expect_err("too large");
    assert!(matches!(&refused, RemoteError::ResponseTooLarge { limit: 4096, .. }), "{refused}");
    assert!(refused.to_string().contains("--max-response-bytes"), "{refused}");
    let result = block_on(client.run(BELL, 10)).expect("small answers are read");
    assert_eq!(result.counts("c").expect("register c").values().sum::<u64>(), 10);
    let roomy = IbmClient::new(IbmConfig { max_response_bytes: 1 << 20, ..config(&base, KEY, "ibm_fez") });
    assert_eq!(block_on(roomy.expect("client").configuration()).expect("fits")["backend_name"], "ibm_fez");
}

/// Register `c`'s samples of a results body.
fn samples(results: &serde_json::Value) -> Vec<u64> {
    let register = results["results"][0]["data"]["c"]["samples"].as_array().expect("samples");
    register
        .iter()
        .map(|s| u64::from_str_radix(s.as_str().expect("hex").trim_start_matches("0x"), 16).expect("hex"))
        .collect()
}

/// A calibrated figure of ibm_fez's published properties, read here straight from the file.
fn fez_figure(gate: &str, qubits: &[u32]) -> f64 {
    let properties: serde_json::Value =
        serde_json::from_str(qchess_route::target::presets::FEZ_PROPS).expect("published properties");
    if gate == "readout" {
        let parameters = properties["qubits"][qubits[0] as usize].as_array().expect("qubit parameters");
        return parameters.iter().find(|p| p["name"] == "readout_error").expect("a readout error")["value"]
            .as_f64()
            .expect("a number");
    }
    let entry = properties["gates"]
        .as_array()
        .expect("gates")
        .iter()
        .find(|g| {
            g["gate"] == gate
                && g["qubits"]
                    .as_array()
                    .expect("qubits")
                    .iter()
                    .map(|q| q.as_u64().expect("a qubit") as u32)
                    .collect::<Vec<_>>()
                    == qubits
        })
        .unwrap_or_else(|| panic!("no {gate} on {qubits:?}"));
    entry["parameters"].as_array().expect("parameters").iter().find(|p| p["name"] == "gate_error").expect("an error")["value"]
        .as_f64()
        .expect("a number")
}

/// Asserts that `count` of `shots` is within 6 binomial sigmas of `expected` (a failure with
/// probability below 2e-9 when the model holds), and at least 10 sigmas from `without`, the
/// prediction without the error under test (so that the error is seen, not lost in sampling).
fn assert_predicted(what: &str, count: usize, shots: u64, expected: f64, without: f64) {
    let observed = count as f64 / shots as f64;
    let sigma = (expected * (1.0 - expected) / shots as f64).sqrt();
    assert!((observed - expected).abs() <= 6.0 * sigma, "{what}: {observed} vs predicted {expected} (sigma {sigma})");
    assert!(
        (expected - without).abs() >= 10.0 * sigma,
        "{what}: the error ({expected} vs {without}) is too small to see"
    );
}

/// A Bell pair on ibm_fez's qubits 87 and 88 (as [`BELL`]) with `extra` more CZs on the pair
/// before its last Hadamard, cancelling in pairs.
fn bell_with_czs(extra: usize) -> String {
    BELL.replace("cz q[87], q[88];", &"cz q[87], q[88];\n".repeat(extra + 1))
}

/// `--ibm-noise device` moves results by what ibm_fez's calibration predicts: an X then a
/// measurement of qubit 87 reads 0 at the rate of its readout error (and half its X error), and
/// a Bell pair on 87 and 88 whose CZ is repeated 41 times gives odd outcomes at the rate its one-
/// and two-qubit gate errors (global depolarizing) and both readout errors predict. The ideal
/// mode gives none of them, and a device-noise server with the same seed gives the same samples.
#[test]
fn device_noise_moves_results_by_the_calibrated_error_rates() {
    let key = || Some(ServerKey::new(KEY).expect("a key"));
    let hour = Duration::from_secs(3600);
    let device = ibm::IbmOptions { noise: ibm::noise::IbmNoise::Device, seed: 11, ..ibm::IbmOptions::new(key(), hour) };
    let (noisy, again, ideal) =
        (start_with(device.clone()), start_with(device), start_with(ibm::IbmOptions::new(key(), hour)));
    let shots = 100_000;

    let x = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[1] c;\nx q[87];\nc[0] = measure q[87];\n";
    let (status, results) = submit(&noisy, x, shots);
    assert_eq!(status, 200, "{results}");
    let x_samples = samples(&results);
    let read_zero = x_samples.iter().filter(|&&s| s == 0).count();
    let (x_error, readout) = (fez_figure("x", &[87]), fez_figure("readout", &[87]));
    // Depolarized (probability x_error): 0 or 1 evenly, whatever the readout does; else 1,
    // read as 0 with the readout error.
    let expected = x_error / 2.0 + (1.0 - x_error) * readout;
    assert_predicted("x then measure reads 0", read_zero, shots, expected, x_error / 2.0);
    let (_, clean) = submit(&ideal, x, shots);
    assert!(samples(&clean).iter().all(|&s| s == 1), "the ideal mode reads 1 every time");

    let czs: usize = 41;
    let circuit = bell_with_czs(czs - 1);
    let (status, results) = submit(&noisy, &circuit, shots);
    assert_eq!(status, 200, "{results}");
    let bell = samples(&results);
    let odd = bell.iter().filter(|&&s| s == 1 || s == 2).count();
    let survives = (1.0 - fez_figure("sx", &[87]))
        * (1.0 - fez_figure("sx", &[88])).powi(2)
        * (1.0 - fez_figure("cz", &[87, 88])).powi(czs as i32);
    let (r87, r88) = (fez_figure("readout", &[87]), fez_figure("readout", &[88]));
    // Uniform over the four outcomes when depolarized (odd with 1/2); then exactly one of the
    // two bits read wrong turns even into odd and back.
    let one_wrong = r87 * (1.0 - r88) + r88 * (1.0 - r87);
    let odd_before = (1.0 - survives) / 2.0;
    let expected = odd_before * (1.0 - one_wrong) + (1.0 - odd_before) * one_wrong;
    assert_predicted("Bell pair after 41 CZs reads 01 or 10", odd, shots, expected, one_wrong);
    let (_, clean) = submit(&ideal, &circuit, shots);
    assert!(samples(&clean).iter().all(|&s| s == 0 || s == 3), "the ideal mode reads 00 or 11 only");

    // Seeded: the same seed and job number give the same samples.
    let (_, first) = submit(&again, x, shots);
    assert_eq!(samples(&first), x_samples, "the first job of a server seeded 11 is the same");
    let (_, second) = submit(&again, &circuit, shots);
    assert_eq!(samples(&second), bell, "the second job of a server seeded 11 is the same");
}

/// A circuit that measures, resets and measures again goes through the same device noise: each
/// bit is a coin in a depolarized shot and is read wrong at the qubit's readout error.
#[test]
fn device_noise_reaches_mid_circuit_measurements() {
    let key = || Some(ServerKey::new(KEY).expect("a key"));
    let device = ibm::IbmOptions {
        noise: ibm::noise::IbmNoise::Device,
        seed: 5,
        ..ibm::IbmOptions::new(key(), Duration::from_secs(3600))
    };
    let noisy = start_with(device);
    let shots = 100_000;
    let circuit = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[2] c;\nx q[87];\n\
                   c[0] = measure q[87];\nreset q[87];\nc[1] = measure q[87];\n";
    let (status, results) = submit(&noisy, circuit, shots);
    assert_eq!(status, 200, "{results}");
    let bits = samples(&results);
    let (x_error, readout) = (fez_figure("x", &[87]), fez_figure("readout", &[87]));
    // Ideally c0 = 1 and c1 = 0: each reads the other way at this rate.
    let expected = x_error / 2.0 + (1.0 - x_error) * readout;
    let first_wrong = bits.iter().filter(|&&s| s & 1 == 0).count();
    let second_wrong = bits.iter().filter(|&&s| s & 2 != 0).count();
    assert_predicted("the measurement before the reset reads 0", first_wrong, shots, expected, x_error / 2.0);
    assert_predicted("the measurement after the reset reads 1", second_wrong, shots, expected, x_error / 2.0);
}
