//! The server's limits, each hit on purpose on a real server on 127.0.0.1: what the client
//! sees, and that nothing accepted is lost.

mod common;

use std::time::{Duration, Instant};

use common::{client, start, wait_until_final};
use serde_json::{Value, json};

fn submit(http: &reqwest::blocking::Client, base: &str, input: Value) -> reqwest::blocking::Response {
    let body = json!({"backend": "simulator", "shots": 10, "input": input});
    http.post(format!("{base}/v0.4/jobs")).json(&body).send().expect("answers")
}

fn x_on(qubit: u64) -> Value {
    json!({"gateset": "qis", "qubits": 3, "circuit": [{"gate": "x", "targets": [qubit]}]})
}

#[test]
fn no_accepted_job_is_dropped_before_its_owner_reads_it() {
    let base = start(|config| config.jobs.max_jobs = 10);
    let http = client();
    let mut accepted = Vec::new();
    let mut refused = 0;
    for i in 0..30 {
        let response = submit(&http, &base, x_on(i % 3));
        match response.status().as_u16() {
            200 => accepted.push((response.json::<Value>().expect("JSON")["id"].as_str().expect("id").to_owned(), i)),
            429 => {
                let retry: u64 = response.headers()["retry-after"].to_str().expect("text").parse().expect("seconds");
                assert!(retry >= 1);
                let error: Value = response.json().expect("JSON");
                let message = error["message"].as_str().expect("message");
                assert!(message.contains("--max-jobs") && message.contains("not read"), "{message}");
                refused += 1;
            }
            status => panic!("unexpected {status}"),
        }
        // Let the worker finish what it has, so the refusals are about unread results.
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!((accepted.len(), refused), (10, 20), "ten accepted, the rest refused with 429");
    // Every accepted job is still there with its own results.
    for (id, i) in &accepted {
        let (job, _) = wait_until_final(&http, &base, id);
        assert_eq!(job["status"], "completed");
        let results: Value = http
            .get(format!("{base}/v0.4/jobs/{id}/results/probabilities"))
            .send()
            .expect("answers")
            .json()
            .expect("JSON");
        assert_eq!(results, json!({ (1u64 << (i % 3)).to_string(): 1.0 }));
    }
    // Read results make room: ten more are accepted, and the first ones are dropped.
    for i in 0..10 {
        assert_eq!(submit(&http, &base, x_on(i % 3)).status().as_u16(), 200, "submission {i}");
    }
    let first = http.get(format!("{base}/v0.4/jobs/{}", accepted[0].0)).send().expect("answers");
    assert_eq!(first.status().as_u16(), 404, "a read job made room");
}

#[test]
fn unread_results_past_the_retention_time_make_room() {
    let base = start(|config| {
        config.jobs.max_jobs = 2;
        config.result_ttl = Duration::from_millis(300);
    });
    let http = client();
    let ids: Vec<String> = (0..2)
        .map(|i| submit(&http, &base, x_on(i)).json::<Value>().expect("JSON")["id"].as_str().expect("id").to_owned())
        .collect();
    for id in &ids {
        wait_until_final(&http, &base, id);
    }
    let refused = submit(&http, &base, x_on(2));
    assert_eq!(refused.status().as_u16(), 429);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(submit(&http, &base, x_on(2)).status().as_u16(), 200, "the unread results expired");
}

#[test]
fn a_job_past_its_time_limit_fails_with_a_timeout_code_and_frees_its_worker() {
    let base = start(|config| {
        config.run.time_limit = Duration::from_millis(500);
        config.run.workers = 1;
    });
    let http = client();
    // A 20-qubit dense state with 60,000 gates runs for minutes.
    let gates: Vec<Value> = (0..60_000).map(|i| json!({"gate": "h", "targets": [i % 20]})).collect();
    let slow = submit(&http, &base, json!({"gateset": "qis", "qubits": 20, "circuit": gates}));
    assert_eq!(slow.status().as_u16(), 200);
    let slow_id = slow.json::<Value>().expect("JSON")["id"].as_str().expect("id").to_owned();
    let quick_id = submit(&http, &base, x_on(1)).json::<Value>().expect("JSON")["id"].as_str().expect("id").to_owned();
    let started = Instant::now();
    let (job, _) = wait_until_final(&http, &base, &slow_id);
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(job["failure"]["code"], "TimeLimitExceeded");
    assert!(job["failure"]["message"].as_str().expect("message").contains("--time-limit"), "{job}");
    assert!(started.elapsed() < Duration::from_secs(5), "failed soon after the limit: {:?}", started.elapsed());
    let (quick, _) = wait_until_final(&http, &base, &quick_id);
    assert_eq!(quick["status"], "completed", "the single worker is free again");
}

#[test]
fn the_board_past_its_state_cap_answers_422_naming_the_cap_and_keeps_its_state() {
    let base = start(|config| config.limits.max_board_states = 4);
    let http = client();
    let post =
        |path: &str, body: Value| http.post(format!("{base}/quantumboard/{path}")).json(&body).send().expect("answers");
    assert_eq!(post("init", json!({"init_basis_state": 1u64 << 1 | 1 << 6})).status().as_u16(), 200);
    // Split b1 and g1: each split doubles the state, 4 basis states are the cap.
    let split_b1 = json!({"square1": 1, "square2": 16, "square3": 18, "type": 4, "variant": 1});
    let first = post("do_move", split_b1);
    assert_eq!(first.status().as_u16(), 200);
    let before: Value = first.json().expect("JSON");
    let split_g1 = json!({"square1": 6, "square2": 21, "square3": 23, "type": 4, "variant": 1});
    let second = post("do_move", split_g1.clone());
    assert_eq!(second.status().as_u16(), 200, "4 basis states fit");
    let split_c3 = json!({"square1": 18, "square2": 33, "square3": 35, "type": 4, "variant": 1});
    let refused = post("do_move", split_c3);
    assert_eq!(refused.status().as_u16(), 422);
    let error: Value = refused.json().expect("JSON");
    assert_eq!(error["statusCode"], 422);
    let message = error["message"].as_str().expect("message");
    assert!(message.contains("at most 4 basis states") && message.contains("--max-board-states"), "{message}");
    // The refused move was not made: undo takes back the second split, not a third.
    let undone: Value = post("undo_last_move", json!({})).json().expect("JSON");
    assert_eq!(undone["result"], true);
    assert_eq!(undone["probabilities"], before["probabilities"]);
}

#[test]
fn malformed_paths_and_queries_are_json_400s() {
    let base = start(|_| {});
    let http = client();
    for url in [
        format!("{base}/v0.4/jobs?limit=many"),
        format!("{base}/v0.4/jobs?limit=-1"),
        format!("{base}/v0.4/jobs/%FF%FE"),
        format!("{base}/v0.4/backends/%C3%28"),
    ] {
        let response = http.get(&url).send().expect("answers");
        assert_eq!(response.status().as_u16(), 400, "{url}");
        let error: Value = response.json().expect("the IonQ error shape");
        assert_eq!(error["statusCode"], 400, "{url}");
        assert!(!error["message"].as_str().expect("message").is_empty());
    }
}
