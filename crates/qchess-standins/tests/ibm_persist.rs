//! The IBM stand-in's jobs and sessions kept in a real database, through its routes: SQLite in
//! a temporary file always, PostgreSQL too when the test script started one
//! (`QCHESS_TEST_POSTGRES_URL`). A job and a session read back the same after a restart, a job
//! left queued is failed with the reason, and a row that does not read back stops the opening
//! with an error naming it.

mod ibm_common;

use std::time::{Duration, Instant};

use ibm_common::{BELL, KEY, block_on, call, config, serve};
use qchess_remote::ibm::IbmClient;
use qchess_standins::ibm::persist::{Database, PersistError, RESTART_REASON_CODE};
use qchess_standins::ibm::{IbmOptions, IbmStandIn};
use qchess_standins::{RunOptions, ServerKey};
use reqwest::Method;
use serde_json::{Value, json};

/// The databases to test on: a SQLite file in `dir`, and PostgreSQL when there is one.
fn databases(dir: &std::path::Path) -> Vec<Database> {
    let file = dir.join("kept.db");
    let sqlite = Database { url: format!("sqlite://{}?mode=rwc", file.display()), shown: file.display().to_string() };
    match std::env::var("QCHESS_TEST_POSTGRES_URL") {
        Ok(url) => vec![sqlite, Database { url: url.clone(), shown: url }],
        Err(_) => {
            assert_ne!(
                std::env::var("QCHESS_TEST_POSTGRES").as_deref(),
                Ok("required"),
                "PostgreSQL is required but QCHESS_TEST_POSTGRES_URL is not set"
            );
            vec![sqlite]
        }
    }
}

/// A stand-in on `database` whose jobs wait `queue_delay`, served on 127.0.0.1; its URL and a
/// token.
fn stand_in(database: &Database, queue_delay: Duration) -> (String, String) {
    let mut options = IbmOptions::new(Some(ServerKey::new(KEY).expect("a key")), Duration::from_secs(3600));
    options.run = RunOptions { queue_delay, ..options.run };
    let stand_in = block_on(IbmStandIn::open(options, database)).expect("the database opens");
    let base = serve(stand_in.router());
    let token = block_on(IbmClient::new(config(&base, KEY, "ibm_fez")).expect("client").token()).expect("a token");
    (base, token)
}

/// Submits a tagged Bell-pair sampler job, in `session` when given; its id.
fn submit(base: &str, token: &str, tag: &str, session: Option<&str>) -> String {
    let job = json!({
        "program_id": "sampler", "backend": "ibm_fez", "tags": [tag], "session_id": session,
        "params": { "pubs": [[BELL, null, 50]], "version": 2 },
    });
    let (status, answer) = call(base, token, Method::POST, "/jobs", Some(&job.to_string()));
    assert_eq!(status, 200, "{answer}");
    answer["id"].as_str().expect("an id").to_owned()
}

/// What the stand-in shows of job `id` once it is over: the job, its results, metrics and logs.
fn finished(base: &str, token: &str, id: &str) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(300);
    while call(base, token, Method::GET, &format!("/jobs/{id}"), None).1["status"] == "Queued"
        || call(base, token, Method::GET, &format!("/jobs/{id}"), None).1["status"] == "Running"
    {
        assert!(Instant::now() < deadline, "job {id} never ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = |path: &str| {
        let answer = reqwest::blocking::Client::new()
            .get(format!("{base}/api/v1/jobs/{id}{path}"))
            .bearer_auth(token)
            .header("Service-CRN", "crn:v1:qchess:test")
            .send()
            .expect("answers");
        Value::from(answer.text().expect("a body"))
    };
    ["", "/results", "/metrics", "/logs"].iter().map(|path| text(path)).collect()
}

#[test]
fn jobs_and_sessions_read_back_the_same_after_a_restart() {
    let dir = tempfile::tempdir().expect("a directory");
    for database in databases(dir.path()) {
        let (base, token) = stand_in(&database, Duration::ZERO);
        let session = |base: &str, token: &str, id: &str| {
            let (_, mut details) = call(base, token, Method::GET, &format!("/sessions/{id}"), None);
            details.as_object_mut().expect("an object").remove("elapsed_time");
            details
        };
        let (_, created) = call(&base, &token, Method::POST, "/sessions", Some(r#"{"backend": "ibm_fez"}"#));
        let session_id = created["id"].as_str().expect("a session id").to_owned();
        let job = submit(&base, &token, "kept", Some(&session_id));
        let before = finished(&base, &token, &job);
        assert!(before[0].as_str().expect("text").contains("Completed"), "{}", before[0]);
        let metrics: Value = serde_json::from_str(before[2].as_str().expect("text")).expect("JSON");
        assert!(metrics["usage"]["quantum_seconds"].as_f64().expect("seconds") > 0.0, "{metrics}");
        let close = call(
            &base,
            &token,
            Method::PATCH,
            &format!("/sessions/{session_id}"),
            Some(r#"{"accepting_jobs": false}"#),
        );
        assert_eq!(close.0, 204, "{}", close.1);
        let session_before = session(&base, &token, &session_id);
        assert_eq!(session_before["state"], "closed", "{session_before}");
        let (_, usage_before) = call(&base, &token, Method::GET, "/instances/usage", None);

        // Started again on the same database (with a long queue, so a job stays queued).
        let (base, token) = stand_in(&database, Duration::from_secs(600));
        assert_eq!(finished(&base, &token, &job), before, "on {}", database.shown);
        assert_eq!(session(&base, &token, &session_id), session_before);
        let (_, listed) = call(&base, &token, Method::GET, &format!("/jobs?session_id={session_id}"), None);
        assert_eq!(listed["jobs"][0]["id"], job.as_str(), "{listed}");
        let (_, usage) = call(&base, &token, Method::GET, "/instances/usage", None);
        assert!(usage["usage_consumed_seconds"].as_f64() >= usage_before["usage_consumed_seconds"].as_f64(), "{usage}");
        let queued = submit(&base, &token, "queued", None);
        let (_, now) = call(&base, &token, Method::GET, &format!("/jobs/{queued}"), None);
        assert_eq!(now["status"], "Queued", "{now}");

        let (base, token) = stand_in(&database, Duration::ZERO);
        let (_, failed) = call(&base, &token, Method::GET, &format!("/jobs/{queued}"), None);
        assert_eq!(failed["status"], "Failed", "{failed}");
        assert_eq!(failed["state"]["reason_code"], RESTART_REASON_CODE, "{failed}");
        let reason = failed["state"]["reason"].as_str().expect("a reason");
        assert!(reason.contains("restarted while the job was queued"), "{reason}");
        assert_eq!(finished(&base, &token, &job), before);
    }
}

/// Opens a stand-in on `database` after running `statement` on it; the error it gives.
fn opening_after(database: &Database, statement: &str) -> PersistError {
    block_on(async {
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&database.url).await.expect("connects");
        sqlx::query("DELETE FROM ibm_jobs").execute(&pool).await.expect("empties");
        sqlx::query("DELETE FROM ibm_sessions").execute(&pool).await.expect("empties");
        sqlx::query(sqlx::AssertSqlSafe(statement.to_owned())).execute(&pool).await.expect("inserts");
        pool.close().await;
        let options = IbmOptions::new(None, Duration::from_secs(60));
        IbmStandIn::open(options, database).await.expect_err("a bad row")
    })
}

#[test]
fn a_row_that_does_not_read_back_is_named() {
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("bad.db");
    let database = Database { url: format!("sqlite://{}?mode=rwc", file.display()), shown: file.display().to_string() };
    block_on(IbmStandIn::open(IbmOptions::new(None, Duration::from_secs(60)), &database)).expect("makes the tables");
    let job = |status: &str, tags: &str, results: &str| {
        format!(
            "INSERT INTO ibm_jobs (id, serial, backend, program, status, created, quantum_seconds, tags, results)
             VALUES ('d1', 1, 'ibm_fez', 'sampler', '{status}', 1.5, 0.0, '{tags}', '{results}')"
        )
    };
    let session = |mode: &str, timestamps: &str, max_ttl: i64| {
        format!(
            "INSERT INTO ibm_sessions (id, serial, mode, backend, max_ttl, interactive_ttl, state, accepting_jobs,
                expired, timestamps, busy_seconds)
             VALUES ('s1', 1, '{mode}', 'ibm_fez', {max_ttl}, 60, 'open', 1, 0, '{timestamps}', 0.0)"
        )
    };
    for (statement, table, id, column, says) in [
        (job("Sleeping", "[]", "null"), "ibm_jobs", "d1", "status", "`Sleeping` is not a known name"),
        (job("Completed", r#"["a", 3]"#, "null"), "ibm_jobs", "d1", "tags", "is not a list of strings"),
        (job("Completed", "[]", "{"), "ibm_jobs", "d1", "results", "not JSON"),
        (session("solo", "[]", 60), "ibm_sessions", "s1", "mode", "`solo` is not a known name"),
        (session("batch", r#"[["open"]]"#, 60), "ibm_sessions", "s1", "timestamps", "is not [state, time]"),
        (session("batch", "[]", -5), "ibm_sessions", "s1", "max_ttl", "-5 is negative"),
    ] {
        let error = opening_after(&database, &statement);
        let PersistError::BadRow(bad) = &error else { panic!("not a bad row: {error}") };
        assert_eq!((bad.table, bad.id.as_str(), bad.column), (table, id, column), "{error}");
        assert!(bad.reason.contains(says), "{error}");
        assert!(error.to_string().contains(&format!("table {table}, row {id}: {column}")), "{error}");
    }
}
