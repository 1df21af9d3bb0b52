//! The IBM stand-in's session and job-list routes on a real server: what the Python client
//! never sends (malformed bodies and queries, reopening, unknown sessions on every route) is
//! answered in the service's error shape, and a session's interactive time-to-live lets its
//! device go.

mod ibm_common;

use std::time::Duration;

use ibm_common::{BELL, KEY, block_on, call, config, start_with};
use qchess_remote::ibm::IbmClient;
use qchess_standins::{ServerKey, ibm};
use reqwest::Method;
use serde_json::{Value, json};

/// A server whose sessions let their device go after `interactive_ttl`, and a token for it.
fn server(interactive_ttl: Duration) -> (String, String) {
    let mut options = ibm::IbmOptions::new(Some(ServerKey::new(KEY).expect("a key")), Duration::from_secs(3600));
    options.interactive_ttl = interactive_ttl;
    let base = start_with(options);
    let token = block_on(IbmClient::new(config(&base, KEY, "ibm_fez")).expect("client").token()).expect("a token");
    (base, token)
}

/// The one error of an answer in the service's shape: its code and message.
fn error(answer: &(u16, Value)) -> (u16, String, String) {
    let (status, body) = answer;
    assert_eq!(body["status_code"], *status, "{body}");
    let text =
        |field: &str| body["errors"][0][field].as_str().unwrap_or_else(|| panic!("no {field}: {body}")).to_owned();
    (*status, text("code"), text("message"))
}

#[test]
fn bad_bodies_and_unknown_sessions_get_the_services_errors() {
    let (base, token) = server(Duration::from_secs(60));
    let post = |body: &str| call(&base, &token, Method::POST, "/sessions", Some(body));
    let (status, code, _) = error(&post("{"));
    assert_eq!((status, code.as_str()), (400, "1201"));
    let (_, _, message) = error(&post(r#"{"mode": "batch"}"#));
    assert!(message.contains("needs a `backend`"), "{message}");
    let (_, _, message) = error(&post(r#"{"backend": "ibm_fez", "mode": 3}"#));
    assert!(message.contains("mode must be a string"), "{message}");
    let (_, _, message) = error(&post(r#"{"backend": "ibm_fez", "max_ttl": 0}"#));
    assert!(message.contains("max_ttl must be whole seconds from 1 to 28800, not 0"), "{message}");

    let unknown = "s0000000000000000000";
    for (method, path, body) in [
        (Method::GET, format!("/sessions/{unknown}"), None),
        (Method::PATCH, format!("/sessions/{unknown}"), Some(r#"{"accepting_jobs": false}"#)),
        (Method::DELETE, format!("/sessions/{unknown}/close"), None),
    ] {
        let answer = call(&base, &token, method.clone(), &path, body);
        let expected = (404, "1228".into(), "Session `s0000000000000000000` not found.".into());
        assert_eq!(error(&answer), expected, "{method} {path}");
    }

    let (status, session) = post(r#"{"backend": "ibm_fez", "mode": "batch", "instance": "crn:v1:qchess:test"}"#);
    assert_eq!(status, 200, "{session}");
    let id = session["id"].as_str().expect("an id");
    assert_eq!((session["state"].as_str(), session["mode"].as_str()), (Some("open"), Some("batch")));
    let patch = |body: &str| call(&base, &token, Method::PATCH, &format!("/sessions/{id}"), Some(body));
    assert_eq!(error(&patch(r#"{"accepting_jobs": "no"}"#)).2, "the body must set `accepting_jobs` to true or false");
    assert_eq!(patch(r#"{"accepting_jobs": true}"#).0, 204, "an open session stays open");
    assert_eq!(patch(r#"{"accepting_jobs": false}"#).0, 204);
    let (_, _, message) = error(&patch(r#"{"accepting_jobs": true}"#));
    assert!(message.contains("cannot be opened again"), "{message}");
    let (_, details) = call(&base, &token, Method::GET, &format!("/sessions/{id}"), None);
    assert_eq!((details["state"].as_str(), details["accepting_jobs"].as_bool()), (Some("closed"), Some(false)));

    let job = json!({ "program_id": "sampler", "backend": "ibm_fez", "session_id": 7,
        "params": { "pubs": [[BELL, null, 10]], "version": 2 } });
    let (_, _, message) = error(&call(&base, &token, Method::POST, "/jobs", Some(&job.to_string())));
    assert_eq!(message, "session_id must be a string, not 7");
}

#[test]
fn a_job_list_query_it_cannot_read_is_refused() {
    let (base, token) = server(Duration::from_secs(60));
    let get = |query: &str| error(&call(&base, &token, Method::GET, &format!("/jobs?{query}"), None));
    assert_eq!(get("limit=ten"), (400, "1201".into(), "limit must be a whole number, not `ten`".into()));
    let (_, _, message) = get("created_before=2026-13-01T00:00:00Z");
    assert_eq!(message, "created_before must be an ISO 8601 time, not `2026-13-01T00:00:00Z`");
    let (status, list) = call(&base, &token, Method::GET, "/jobs?exclude_params=true&tags=x&tags=y", None);
    assert_eq!((status, list), (200, json!({ "jobs": [], "count": 0 })));
}

#[test]
fn an_idle_session_lets_its_device_go_and_a_job_wakes_it() {
    let (base, token) = server(Duration::from_secs(1));
    let (_, session) =
        call(&base, &token, Method::POST, "/sessions", Some(r#"{"backend": "ibm_fez", "mode": "dedicated"}"#));
    let id = session["id"].as_str().expect("an id").to_owned();
    let run = || {
        let job = json!({ "program_id": "sampler", "backend": "ibm_fez", "session_id": id,
            "params": { "pubs": [[BELL, null, 10]], "version": 2 } });
        let (status, answer) = call(&base, &token, Method::POST, "/jobs", Some(&job.to_string()));
        assert_eq!((status, answer["session_id"].as_str()), (200, Some(id.as_str())), "{answer}");
        let path = format!("/jobs/{}", answer["id"].as_str().expect("an id"));
        while call(&base, &token, Method::GET, &path, None).1["status"] != "Completed" {
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let state = || call(&base, &token, Method::GET, &format!("/sessions/{id}"), None).1["state"].clone();
    run();
    assert_eq!(state(), "active");
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(state(), "inactive", "idle past its interactive time-to-live");
    run();
    assert_eq!(state(), "active", "a new job makes it active again");
    let (_, details) = call(&base, &token, Method::GET, &format!("/sessions/{id}"), None);
    let states: Vec<&str> =
        details["timestamps"].as_array().expect("a list").iter().map(|t| t["status"].as_str().unwrap_or("")).collect();
    assert_eq!(states, ["open", "active", "inactive", "active"], "{details}");
}
