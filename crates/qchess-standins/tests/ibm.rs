//! The IBM Quantum client against the stand-in routes on 127.0.0.1: key exchange, device
//! configurations (read by `qchess-route` as targets) and their disk cache, tokens refreshed
//! when they expire, Sampler V2 jobs, and the service's refusals sorted into the error taxonomy.

mod ibm_common;

use std::time::Duration;

use ibm_common::{BELL, KEY, block_on, config, start, submit};
use qchess_remote::RemoteError;
use qchess_remote::config::RetryPolicy;
use qchess_remote::ibm::{IbmClient, IbmConfig};
use qchess_standins::{ServerKey, ibm};

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
        qubit_names: export.circuit.qubits.iter().map(|q| q.name().into_owned()).collect(),
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
    let options = ibm::IbmOptions::new(Some(ServerKey::new(KEY).expect("a key")), Duration::from_secs(3600));
    let app = ibm::service(options).layer(axum::middleware::from_fn(
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
                        let body = serde_json::json!({ "errors": [{ "code": "0", "message": "scripted fault" }] });
                        let mut response = axum::response::IntoResponse::into_response((status, axum::Json(body)));
                        response.headers_mut().insert("retry-after", axum::http::HeaderValue::from_static("0"));
                        response
                    }
                    None => next.run(request).await,
                }
            }
        },
    ));
    (ibm_common::serve(app), seen)
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

/// Submits a job of `program` with `pubs` and options; returns the status and the results.
fn submit_job(base: &str, program: &str, pubs: serde_json::Value) -> (u16, serde_json::Value) {
    let client = IbmClient::new(config(base, KEY, "ibm_fez")).expect("client");
    let token = block_on(client.token()).expect("a token");
    let http = reqwest::blocking::Client::new();
    let send = |request: reqwest::blocking::RequestBuilder| {
        request.bearer_auth(&token).header("Service-CRN", "crn:v1:qchess:test").send().expect("answers")
    };
    let job =
        serde_json::json!({ "program_id": program, "backend": "ibm_fez", "params": { "pubs": pubs, "version": 2 } });
    let answer = send(http.post(format!("{base}/api/v1/jobs")).json(&job));
    let status = answer.status().as_u16();
    let body: serde_json::Value = answer.json().expect("JSON");
    if status != 200 {
        return (status, body);
    }
    let id = body["id"].as_str().expect("an id");
    loop {
        let state: serde_json::Value = send(http.get(format!("{base}/api/v1/jobs/{id}"))).json().expect("JSON");
        if state["status"] == "Completed" {
            break;
        }
        assert!(state["status"] == "Queued" || state["status"] == "Running", "{state}");
        std::thread::sleep(Duration::from_millis(20));
    }
    (status, send(http.get(format!("{base}/api/v1/jobs/{id}/results"))).json().expect("JSON"))
}

/// Estimator V2 as IBM's REST guides send it (OpenQASM 3, Pauli labels over the device, qubit 0
/// last): exact expectation values of a Bell pair on qubits 87 and 88 with Rz(0.3) on 88, in
/// the observables' shape, and refusals of malformed pubs naming the pub and the part.
#[test]
fn estimator_jobs_give_exact_expectation_values() {
    let base = start(Duration::from_secs(3600));
    let bell = BELL.replace("c[0] = measure q[87];\nc[1] = measure q[88];\n", "rz(0.3) q[88];\n");
    let label = |paulis: &[(usize, char)]| -> String {
        let mut chars = vec!['I'; 156];
        paulis.iter().for_each(|&(q, p)| chars[155 - q] = p);
        chars.into_iter().collect()
    };
    let zz = label(&[(87, 'Z'), (88, 'Z')]);
    let xx = label(&[(87, 'X'), (88, 'X')]);
    let yy = label(&[(87, 'Y'), (88, 'Y')]);
    let observables = serde_json::json!([{ zz.clone(): 1.0 }, { xx: 0.5, yy: -2.0 }, zz]);
    let (status, results) = submit_job(&base, "estimator", serde_json::json!([[bell, observables]]));
    assert_eq!(status, 200, "{results}");
    let evs = results["results"][0]["data"]["evs"].as_array().expect("a list");
    // <ZZ> = 1; <XX> = cos 0.3 and <YY> = -cos 0.3 after Rz(0.3) on one half of the pair.
    let expected = [1.0, 0.5 * 0.3f64.cos() + 2.0 * 0.3f64.cos(), 1.0];
    for (value, want) in evs.iter().zip(expected) {
        assert!((value.as_f64().expect("a number") - want).abs() < 1e-12, "{evs:?}");
    }
    assert_eq!(results["results"][0]["data"]["stds"], serde_json::json!([0.0, 0.0, 0.0]));
    assert_eq!(results["results"][0]["metadata"]["target_precision"], 0.015625);

    let (status, refused) = submit_job(&base, "estimator", serde_json::json!([[BELL, "ZZ"]]));
    assert_eq!(status, 400);
    assert!(
        refused["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("pub 0: an Estimator circuit must not measure")),
        "{refused}"
    );
    let (status, refused) = submit_job(&base, "estimator", serde_json::json!([[bell, "ZQ"]]));
    assert_eq!(status, 400);
    assert!(
        refused["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`Q` in the observable `ZQ` is not a Pauli")),
        "{refused}"
    );
    let (status, refused) = submit_job(&base, "sampler", serde_json::json!([[BELL, null, 0]]));
    assert_eq!(status, 400);
    assert!(
        refused["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m == "pub 0: it asks for 0 shots; 1 to 100000 are allowed"),
        "{refused}"
    );
    let qpy = serde_json::json!({ "__type__": "QuantumCircuit", "__value__": "not base64!" });
    let (status, refused) = submit_job(&base, "sampler", serde_json::json!([[qpy, null, 10]]));
    assert_eq!(status, 400);
    assert!(
        refused["errors"][0]["message"].as_str().is_some_and(|m| m.starts_with("pub 0: its QPY circuit is not base64")),
        "{refused}"
    );
}
