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
/// the base URL and the count of requests seen (job status polls aside).
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
                        // Status polls are not counted: how many a job takes depends on timing.
                        let path = request.uri().path();
                        let poll = request.method() == axum::http::Method::GET
                            && path.starts_with("/api/v1/jobs/")
                            && !path.ends_with("/results");
                        if !poll {
                            counter.fetch_add(1, Ordering::SeqCst);
                        }
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
    assert_eq!(seen.load(Ordering::SeqCst), 5, "token, three submissions, results");

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

/// A calibrated figure of ibm_fez's published properties, read here straight from the file:
/// a gate's `gate_error` or `gate_length` (seconds), or a qubit's `readout_error`, `T1` or `T2`
/// (seconds).
fn fez_figure(gate: &str, qubits: &[u32], name: &str) -> f64 {
    let properties: serde_json::Value =
        serde_json::from_str(qchess_route::target::presets::FEZ_PROPS).expect("published properties");
    let scale = |figure: &serde_json::Value| match figure["unit"].as_str().unwrap_or("") {
        "us" => 1e-6,
        "ns" => 1e-9,
        _ => 1.0,
    };
    let parameters = if gate == "qubit" {
        properties["qubits"][qubits[0] as usize].as_array().expect("qubit figures").clone()
    } else {
        properties["gates"]
            .as_array()
            .expect("gates")
            .iter()
            .find(|g| g["gate"] == gate && g["qubits"] == serde_json::json!(qubits))
            .unwrap_or_else(|| panic!("no {gate} on {qubits:?}"))["parameters"]
            .as_array()
            .expect("parameters")
            .clone()
    };
    let figure = parameters.iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("no {name}"));
    figure["value"].as_f64().expect("a number") * scale(figure)
}

/// What a gate on ibm_fez does to populations (its noise keeps diagonal states diagonal):
/// qiskit-aer's depolarizing parameter, from the gate error and the relaxation's average gate
/// fidelity, and each qubit's decay probability over the gate.
fn fez_gate(gate: &str, qubits: &[u32]) -> (f64, Vec<f64>) {
    let t = fez_figure(gate, qubits, "gate_length");
    let mut process_fidelity = 1.0;
    let mut decay = Vec::new();
    for &q in qubits {
        let t1 = fez_figure("qubit", &[q], "T1");
        let t2 = fez_figure("qubit", &[q], "T2").min(2.0 * t1);
        let (gamma, coherence) = (1.0 - (-t / t1).exp(), (-t / t2).exp());
        process_fidelity *= (2.0 + 2.0 * coherence - gamma) / 4.0;
        decay.push(gamma);
    }
    let d = f64::from(1u32 << qubits.len());
    let fidelity = (d * process_fidelity + 1.0) / (d + 1.0);
    let error = fez_figure(gate, qubits, "gate_error");
    let p = if error > 1.0 - fidelity { d * (error - (1.0 - fidelity)) / (d * fidelity - 1.0) } else { 0.0 };
    (p, decay)
}

/// Populations (index bit i = qubit i) after a noisy gate on `qubits` whose noise keeps
/// diagonal states diagonal: X on the `flip` qubits, then depolarizing (`p` of the population
/// spread evenly over the gate's qubits' values), then each gate qubit decays from 1 to 0.
fn evolve(populations: &mut [f64], qubits: &[usize], flip: usize, p: f64, decay: &[f64]) {
    let d = populations.len();
    let mask = qubits.iter().fold(0, |m, &q| m | 1 << q);
    let flipped: Vec<f64> = (0..d).map(|k| populations[k ^ flip]).collect();
    for (k, population) in populations.iter_mut().enumerate() {
        let block: f64 = (0..d).filter(|j| j & !mask == k & !mask).map(|j| flipped[j]).sum();
        *population = (1.0 - p) * flipped[k] + p * block / f64::from(1u32 << qubits.len());
    }
    for (&q, &gamma) in qubits.iter().zip(decay) {
        for k in 0..d {
            if k >> q & 1 == 1 {
                let moved = gamma * populations[k];
                populations[k] -= moved;
                populations[k ^ (1 << q)] += moved;
            }
        }
    }
}

/// The probability of reading each outcome of populations through per-qubit readout errors.
fn read(populations: &[f64], readout: &[f64]) -> Vec<f64> {
    (0..populations.len())
        .map(|seen| {
            (0..populations.len())
                .map(|actual| {
                    let flips: f64 = readout
                        .iter()
                        .enumerate()
                        .map(|(q, r)| if (seen ^ actual) >> q & 1 == 1 { *r } else { 1.0 - r })
                        .product();
                    populations[actual] * flips
                })
                .sum()
        })
        .collect()
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

/// `--ibm-noise device` moves results by what ibm_fez's calibration predicts, derived here by
/// hand from the published figures: 41 X gates on qubit 87 (ideally |1>), and X on 87 and 88
/// then 41 CZs (ideally |11>, which a CZ only phases), each through its depolarizing channel and
/// relaxation, then both readout errors. The ideal mode reads the ideal outcome every time, and a
/// device-noise server with the same seed gives the same samples.
#[test]
fn device_noise_moves_results_by_the_calibrated_error_rates() {
    let key = || Some(ServerKey::new(KEY).expect("a key"));
    let hour = Duration::from_secs(3600);
    let device = ibm::IbmOptions { noise: ibm::noise::IbmNoise::Device, seed: 11, ..ibm::IbmOptions::new(key(), hour) };
    let (noisy, again, ideal) =
        (start_with(device.clone()), start_with(device), start_with(ibm::IbmOptions::new(key(), hour)));
    let shots = 100_000;
    let head = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\n";

    let xs = format!("{head}bit[1] c;\n{}c[0] = measure q[87];\n", "x q[87];\n".repeat(41));
    let (status, results) = submit(&noisy, &xs, shots);
    assert_eq!(status, 200, "{results}");
    let x_samples = samples(&results);
    let (p, decay) = fez_gate("x", &[87]);
    let mut populations = vec![1.0, 0.0];
    (0..41).for_each(|_| evolve(&mut populations, &[0], 1, p, &decay));
    let readout = fez_figure("qubit", &[87], "readout_error");
    let expected = read(&populations, &[readout])[0];
    let read_zero = x_samples.iter().filter(|&&s| s == 0).count();
    assert_predicted("41 X gates then a measurement read 0", read_zero, shots, expected, readout);
    let (_, clean) = submit(&ideal, &xs, shots);
    assert!(samples(&clean).iter().all(|&s| s == 1), "the ideal mode reads 1 every time");

    let czs = format!(
        "{head}bit[2] c;\nx q[87];\nx q[88];\n{}c[0] = measure q[87];\nc[1] = measure q[88];\n",
        "cz q[87], q[88];\n".repeat(41)
    );
    let (status, results) = submit(&noisy, &czs, shots);
    assert_eq!(status, 200, "{results}");
    let cz_samples = samples(&results);
    let mut populations = vec![1.0, 0.0, 0.0, 0.0];
    let (p87, d87) = fez_gate("x", &[87]);
    evolve(&mut populations, &[0], 1, p87, &d87);
    let (p88, d88) = fez_gate("x", &[88]);
    evolve(&mut populations, &[1], 2, p88, &d88);
    let (p_cz, decay_cz) = fez_gate("cz", &[87, 88]);
    (0..41).for_each(|_| evolve(&mut populations, &[0, 1], 0, p_cz, &decay_cz));
    let readouts = [fez_figure("qubit", &[87], "readout_error"), fez_figure("qubit", &[88], "readout_error")];
    let expected = read(&populations, &readouts);
    let without = read(&[0.0, 0.0, 0.0, 1.0], &readouts);
    for (outcome, &p) in expected.iter().enumerate() {
        let count = cz_samples.iter().filter(|&&s| s == outcome as u64).count();
        let observed = count as f64 / shots as f64;
        let sigma = (p * (1.0 - p) / shots as f64).sqrt();
        assert!((observed - p).abs() <= 6.0 * sigma, "{outcome:02b}: {observed} vs {p}");
    }
    let count = cz_samples.iter().filter(|&&s| s == 3).count();
    assert_predicted("X X then 41 CZs read 11", count, shots, expected[3], without[3]);
    let (_, clean) = submit(&ideal, &czs, shots);
    assert!(samples(&clean).iter().all(|&s| s == 3), "the ideal mode reads 11 only");

    // Seeded: the same seed and job number give the same samples.
    let (_, first) = submit(&again, &xs, shots);
    assert_eq!(samples(&first), x_samples, "the first job of a server seeded 11 is the same");
    let (_, second) = submit(&again, &czs, shots);
    assert_eq!(samples(&second), cz_samples, "the second job of a server seeded 11 is the same");
}

/// A circuit that measures, resets and measures again goes through the same device noise: the
/// X before the first measurement decays and depolarizes as calibrated, the reset leaves |0>,
/// and each measurement is misread at the qubit's readout error.
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
    let (p, decay) = fez_gate("x", &[87]);
    let mut populations = vec![1.0, 0.0];
    evolve(&mut populations, &[0], 1, p, &decay);
    let readout = fez_figure("qubit", &[87], "readout_error");
    // Ideally c0 = 1 and c1 = 0.
    let first_wrong = bits.iter().filter(|&&s| s & 1 == 0).count();
    let second_wrong = bits.iter().filter(|&&s| s & 2 != 0).count();
    assert_predicted(
        "the measurement before the reset reads 0",
        first_wrong,
        shots,
        read(&populations, &[readout])[0],
        0.0,
    );
    assert_predicted("the measurement after the reset reads 1", second_wrong, shots, readout, 0.0);
}
