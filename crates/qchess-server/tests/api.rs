//! The provider API in process: the rules real clients depend on (statuses over time, the
//! relative results URL, echoed metadata, both field spellings, unknown fields, the error
//! shape), and property tests that no body makes a handler panic or hang.

mod common;

use std::time::{Duration, Instant};

use common::{client, json_value, start, wait_until_final};
use proptest::prelude::*;
use qchess_server::ServerKey;
use serde_json::{Value, json};

#[test]
fn a_cirq_style_job_moves_through_its_statuses_and_echoes_metadata() {
    let base = start(|config| config.run.queue_delay = Duration::from_millis(150));
    let http = client();
    let cirq = json!({"backend":"simulator","type":"ionq.circuit.v1","lang":"json",
        "input":{"gateset":"qis","qubits":3,"circuit":[{"gate":"x","targets":[0]},{"gate":"cnot","control":0,"target":2}]},
        "metadata":{"measurement0":"m\u{1f}0,1,2","shots":"20"},"shots":"20","settings":{"anything":true}});
    let created: Value =
        http.post(format!("{base}/v0.4/jobs")).json(&cirq).send().expect("answers").json().expect("JSON");
    assert_eq!(created["status"], "submitted");
    assert!(created["session_id"].is_null());
    let id = created["id"].as_str().expect("id").to_owned();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    let (job, seen) = wait_until_final(&http, &base, &id);
    assert_eq!(seen.last().map(String::as_str), Some("completed"));
    assert!(seen.iter().all(|s| ["submitted", "ready", "started", "completed"].contains(&s.as_str())), "{seen:?}");
    assert!(seen.len() >= 2, "the worker moves the job over time: {seen:?}");
    assert_eq!(job["metadata"], cirq["metadata"], "metadata is echoed verbatim");
    assert_eq!(job["shots"], 20);
    assert_eq!(job["stats"]["qubits"], 3);
    let url = job["results"]["probabilities"]["url"].as_str().expect("url");
    assert_eq!(url, format!("/v0.4/jobs/{id}/results/probabilities"));
    let results: Value = http.get(format!("{base}{url}")).send().expect("answers").json().expect("JSON");
    assert_eq!(results, json!({"5": 1.0}), "qubits 0 and 2 set: outcome 0b101");
}

#[test]
fn qiskit_style_controls_noise_and_hardware_backends() {
    let base = start(|config| config.run.seed = 2);
    let http = client();
    let qiskit = |backend: &str| {
        json!({"type":"ionq.circuit.v1","backend":backend,"shots":1000,"name":"circuit-60",
            "input":{"gateset":"qis","qubits":2,"circuit":[{"gate":"h","targets":[0]},{"gate":"x","targets":[1],"controls":[0]}]},
            "metadata":{"shots":"1000","sampler_seed":"None"},"noise":{"model":"ideal","seed":null}})
    };
    let run = |body: Value| -> Value {
        let created: Value =
            http.post(format!("{base}/v0.4/jobs")).json(&body).send().expect("answers").json().expect("JSON");
        let id = created["id"].as_str().expect("id").to_owned();
        let (job, _) = wait_until_final(&http, &base, &id);
        assert_eq!(job["status"], "completed", "{job}");
        http.get(format!("{base}/v0.4/jobs/{id}/results/probabilities")).send().expect("answers").json().expect("JSON")
    };
    let exact = run(qiskit("simulator"));
    assert_eq!(exact, json!({"0": 0.5, "3": 0.5}));
    let sampled = run(qiskit("qpu.aria-1"));
    let p0 = sampled["0"].as_f64().expect("frequency");
    assert!(p0 != 0.5 && (p0 - 0.5).abs() < 0.06, "shot frequencies of 1000 shots: {sampled}");
    assert!((p0 * 1000.0 - (p0 * 1000.0).round()).abs() < 1e-9, "whole shots");
    assert_eq!(sampled.as_object().expect("object").len(), 2);
}

#[test]
fn failures_listing_deleting_and_the_error_shape() {
    let base = start(|config| {
        config.api_key = Some(ServerKey::new("k").expect("key"));
        config.run.queue_delay = Duration::from_millis(200);
    });
    let http = client();
    let authed = |request: reqwest::blocking::RequestBuilder| {
        request.header("Authorization", "apiKey k").send().expect("answers")
    };
    // Backends are open; jobs need the key.
    let backends: Value = http.get(format!("{base}/v0.4/backends")).send().expect("answers").json().expect("JSON");
    assert!(backends.as_array().expect("list").iter().any(|b| b["backend"] == "simulator" && b["qubits"] == 29));
    assert_eq!(http.get(format!("{base}/v0.4/backends/qpu.nothing")).send().expect("answers").status().as_u16(), 404);
    let whoami: Value = authed(http.get(format!("{base}/v0.4/whoami"))).json().expect("JSON");
    assert_eq!(whoami["key_name"], "qchess serve");

    let submit = |input: Value| -> String {
        let body = json!({"backend": "simulator", "type": "ionq.circuit.v1", "shots": 10, "input": input});
        let created: Value = authed(http.post(format!("{base}/v0.4/jobs")).json(&body)).json().expect("JSON");
        created["id"].as_str().expect("id").to_owned()
    };
    let unsupported = submit(json!({"gateset": "qis", "qubits": 1, "circuit": [{"gate": "u3", "targets": [0]}]}));
    let pending = submit(json!({"gateset": "qis", "qubits": 1, "circuit": [{"gate": "h", "targets": [0]}]}));
    let not_yet = authed(http.get(format!("{base}/v0.4/jobs/{pending}/results/probabilities")));
    assert_eq!(not_yet.status().as_u16(), 404);
    let canceled: Value = authed(http.put(format!("{base}/v0.4/jobs/{pending}/status/cancel"))).json().expect("JSON");
    assert_eq!(canceled, json!({"id": pending, "status": "canceled"}));

    let deadline = Instant::now() + Duration::from_secs(10);
    let failed = loop {
        let job: Value = authed(http.get(format!("{base}/v0.4/jobs/{unsupported}"))).json().expect("JSON");
        if job["status"] == "failed" {
            break job;
        }
        assert!(Instant::now() < deadline, "{job}");
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(failed["failure"]["code"], "UnsupportedGate");
    assert!(failed["failure"]["message"].as_str().expect("message").contains("`u3`"));
    // A finished job cannot be canceled.
    let late = authed(http.put(format!("{base}/v0.4/jobs/{unsupported}/status/cancel")));
    assert_eq!(late.status().as_u16(), 400);

    let listed: Value = authed(http.get(format!("{base}/v0.4/jobs?status=failed&limit=10"))).json().expect("JSON");
    assert_eq!(listed["jobs"].as_array().expect("jobs").len(), 1);
    assert!(listed["next"].is_null());
    let deleted: Value = authed(http.delete(format!("{base}/v0.4/jobs/{unsupported}"))).json().expect("JSON");
    assert_eq!(deleted["status"], "deleted");
    let gone = authed(http.get(format!("{base}/v0.4/jobs/{unsupported}")));
    assert_eq!(gone.status().as_u16(), 404);
    let body: Value = gone.json().expect("JSON");
    assert_eq!(body["statusCode"], 404);
    assert_eq!(body["error"], "Not Found Error");
    assert!(body["message"].as_str().expect("message").contains(&unsupported));
}

#[test]
fn garbage_bodies_are_400s_not_crashes() {
    let base = start(|_| {});
    let http = client();
    for (path, body) in [
        ("/v0.4/jobs", "{"),
        ("/v0.4/jobs", "[1,2,3]"),
        ("/v0.4/jobs", r#"{"backend": 7, "input": {}}"#),
        ("/v0.4/jobs", r#"{"backend": "simulator", "input": "circuit"}"#),
        ("/v0.4/jobs", r#"{"backend": "simulator", "shots": -3, "input": {"qubits": 1, "circuit": []}}"#),
        ("/v0.4/jobs", r#"{"backend": "simulator", "input": {"qubits": 65, "circuit": []}}"#),
        ("/v0.4/jobs", r#"{"backend": "quantum-toaster", "input": {"qubits": 1, "circuit": []}}"#),
        ("/v0.4/jobs", r#"{"type": "ionq.multi-circuit.v1", "backend": "simulator", "input": {}}"#),
        ("/quantumboard/init", r#"{"init_basis_state": -1}"#),
        ("/quantumboard/do_move", r#"{"square1": 1, "square2": 18, "type": 2, "variant": 7}"#),
    ] {
        let response = http.post(format!("{base}{path}")).body(body).send().expect("answers");
        assert_eq!(response.status().as_u16(), 400, "{path} {body}");
        let error: Value = response.json().expect("IonQ error shape");
        assert_eq!(error["statusCode"], 400);
        assert!(!error["message"].as_str().expect("message").is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random inputs inside a well-formed job either fail as a job or complete; the server
    /// always answers.
    #[test]
    fn random_job_inputs_never_break_the_server(input in json_value(), shots in proptest::option::of(0u64..2000)) {
        use std::sync::OnceLock;
        static BASE: OnceLock<String> = OnceLock::new();
        let base = BASE.get_or_init(|| start(|config| config.jobs.max_qubits = 8));
        let http = client();
        let body = json!({"backend": "simulator", "shots": shots, "input": input});
        let response = http.post(format!("{base}/v0.4/jobs")).json(&body).send().expect("answers");
        let status = response.status().as_u16();
        prop_assert!(status == 200 || status == 400, "{status}");
        let answer: Value = response.json().expect("JSON");
        if status == 200 {
            let id = answer["id"].as_str().expect("id").to_owned();
            let (job, _) = wait_until_final(&http, base, &id);
            prop_assert!(job["status"] == "completed" || job["status"] == "failed", "{job}");
        }
        let health = http.get(format!("{base}/health")).send().expect("answers");
        prop_assert_eq!(health.status().as_u16(), 200);
    }

    /// Mutated quantum board moves are answered 200 or 400, never a crash.
    #[test]
    fn random_board_moves_never_break_the_server(s1 in 0u64..70, s2 in 0u64..70, s3 in proptest::option::of(0u64..70), kind in 0u64..15, variant in 0u64..5) {
        use std::sync::OnceLock;
        static BASE: OnceLock<String> = OnceLock::new();
        let base = BASE.get_or_init(|| start(|_| {}));
        let http = client();
        // Each case starts from the start position, so the state stays small.
        let start = http.post(format!("{base}/quantumboard/init")).json(&json!({"init_basis_state": 0xFFFF_0000_0000_FFFFu64})).send().expect("answers");
        prop_assert_eq!(start.status().as_u16(), 200);
        let body = json!({"square1": s1, "square2": s2, "square3": s3, "type": kind, "variant": variant});
        let response = http.post(format!("{base}/quantumboard/do_move")).json(&body).send().expect("answers");
        let status = response.status().as_u16();
        prop_assert!(status == 200 || status == 400, "{status} for {body}");
        if status == 200 {
            let answer: Value = response.json().expect("JSON");
            prop_assert_eq!(answer["probabilities"].as_array().map(Vec::len), Some(64));
        }
    }
}
