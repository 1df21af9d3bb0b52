//! The client and the remote board against a misbehaving provider: an axum server on
//! 127.0.0.1 that answers each request as its script says (429, 500, malformed JSON, a job that
//! never finishes, a dropped connection, a late answer) and otherwise like a correct IonQ API
//! backed by the exact simulator.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use qchess_circuit::ir::{Circuit, Gate, QubitRole};
use qchess_core::{Bitboard, QuantumBoard, Square, TypedMove};
use qchess_qasm::ionq::IonqCircuit;
use qchess_remote::config::{ApiKey, PollPolicy, ProviderConfig, RetryPolicy};
use qchess_remote::journal::{JobEnd, JobJournal, JobKey, JobProgress, JournalError, Recorded, WaitPolicy, Watch};
use qchess_remote::{IonqClient, JobResult, RemoteBoard, RemoteBoardConfig, RemoteError};
use qchess_sim::sparse::SparseState;
use serde_json::{Value, json};

/// How the fake provider answers one request.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Act {
    /// A correct answer.
    Good,
    /// This status with an IonQ error body, and `Retry-After` seconds if given.
    Status(u16, Option<u32>),
    /// `200` with a body that is not JSON.
    Malformed,
    /// The connection is dropped without an answer.
    Drop,
    /// A correct answer, three seconds late.
    Late,
}

#[derive(Default)]
struct Fake {
    submit: Mutex<VecDeque<Act>>,
    status: Mutex<VecDeque<Act>>,
    results: Mutex<VecDeque<Act>>,
    /// Jobs never leave `started`.
    stuck: std::sync::atomic::AtomicBool,
    jobs: Mutex<Vec<Value>>,
    submits: AtomicUsize,
    polls: AtomicUsize,
    fetches: AtomicUsize,
    cancels: AtomicUsize,
}

fn next(script: &Mutex<VecDeque<Act>>) -> Act {
    script.lock().expect("script").pop_front().unwrap_or(Act::Good)
}

/// The scripted failure for `act`, or `None` to answer correctly.
fn misbehave(act: Act) -> Option<Response> {
    match act {
        Act::Good => None,
        Act::Status(code, retry_after) => {
            let status = StatusCode::from_u16(code).expect("status");
            let body = json!({"statusCode": code, "error": "Scripted", "message": format!("scripted {code}")});
            let mut response = (status, Json(body)).into_response();
            if let Some(seconds) = retry_after {
                response.headers_mut().insert("retry-after", seconds.into());
            }
            Some(response)
        }
        Act::Malformed => Some((StatusCode::OK, "{\"id\": \"job-0\", \"status\": ").into_response()),
        // A panicking handler makes hyper close the connection without an answer.
        Act::Drop => panic!("scripted dropped connection"),
        Act::Late => None,
    }
}

async fn submit(State(fake): State<Arc<Fake>>, _headers: HeaderMap, Json(body): Json<Value>) -> Response {
    fake.submits.fetch_add(1, Ordering::SeqCst);
    if let Some(response) = misbehave(next(&fake.submit)) {
        return response;
    }
    let mut jobs = fake.jobs.lock().expect("jobs");
    jobs.push(body["input"].clone());
    Json(json!({"id": format!("job-{}", jobs.len() - 1), "status": "submitted", "session_id": null})).into_response()
}

async fn status(State(fake): State<Arc<Fake>>, Path(id): Path<String>) -> Response {
    fake.polls.fetch_add(1, Ordering::SeqCst);
    if let Some(response) = misbehave(next(&fake.status)) {
        return response;
    }
    let status = if fake.stuck.load(Ordering::SeqCst) { "started" } else { "completed" };
    Json(json!({"id": id, "status": status, "failure": null, "unknown_field": [1, 2]})).into_response()
}

async fn results(State(fake): State<Arc<Fake>>, Path(id): Path<String>) -> Response {
    fake.fetches.fetch_add(1, Ordering::SeqCst);
    let act = next(&fake.results);
    if act == Act::Late {
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    if let Some(response) = misbehave(act) {
        return response;
    }
    let index: usize = id.trim_start_matches("job-").parse().expect("our id");
    let input = fake.jobs.lock().expect("jobs")[index].clone();
    let circuit: IonqCircuit = serde_json::from_value(input).expect("a QIS circuit");
    let circuit = circuit.to_circuit().expect("valid");
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0);
    let state = SparseState::run_circuit(&circuit, 1 << 20, &mut rng).expect("runs");
    let map: serde_json::Map<String, Value> =
        state.qubit_distribution().into_iter().map(|(outcome, p)| (outcome.to_string(), json!(p))).collect();
    Json(Value::Object(map)).into_response()
}

async fn cancel(State(fake): State<Arc<Fake>>, Path(id): Path<String>) -> Json<Value> {
    fake.cancels.fetch_add(1, Ordering::SeqCst);
    Json(json!({"id": id, "status": "canceled"}))
}

/// Starts the fake provider on its own thread and runtime; returns its base URL.
fn start(fake: Arc<Fake>) -> String {
    let (sender, receiver) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let app = Router::new()
                .route("/v0.4/jobs", post(submit))
                .route("/v0.4/jobs/{id}", get(status))
                .route("/v0.4/jobs/{id}/results/probabilities", get(results))
                .route("/v0.4/jobs/{id}/status/cancel", put(cancel))
                .with_state(fake);
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
            sender.send(listener.local_addr().expect("address")).expect("sends");
            axum::serve(listener, app).await.expect("serves");
        });
    });
    let addr = receiver.recv_timeout(Duration::from_secs(10)).expect("the fake provider starts");
    format!("http://{addr}/v0.4")
}

fn config(url: &str) -> ProviderConfig {
    ProviderConfig::new(url)
        .expect("valid")
        .with_api_key(ApiKey::new("k").expect("valid"))
        .with_progress(false)
        .with_cancel_on_interrupt(false)
        .with_request_timeout(Duration::from_secs(2))
        .with_overall_timeout(Duration::from_secs(20))
        .with_poll(PollPolicy { initial: Duration::from_millis(5), max: Duration::from_millis(20) })
        .with_retry(RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_millis(200),
        })
}

fn x_circuit() -> Circuit {
    let mut circuit = Circuit::new();
    let q: Vec<_> = (0..3).map(|_| circuit.add_qubit(QubitRole::General)).collect();
    circuit.push_gate(Gate::x(q[0]));
    circuit
}

fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(future)
}

#[test]
fn rate_limits_are_retried_after_retry_after() {
    let fake = Arc::new(Fake::default());
    fake.submit.lock().expect("script").extend([Act::Status(429, Some(1)), Act::Status(429, None)]);
    fake.status.lock().expect("script").push_back(Act::Status(503, None));
    let client = IonqClient::new(config(&start(Arc::clone(&fake)))).expect("client");
    let started = Instant::now();
    let result = block_on(client.run(&x_circuit(), 100)).expect("succeeds after retries");
    assert_eq!(result.probabilities.outcomes(), &[(1, 1.0)], "X on qubit 0 of 3 reads 1");
    assert_eq!(fake.submits.load(Ordering::SeqCst), 3);
    // Retry-After: 1 is capped by the policy's 200 ms maximum wait.
    assert!(started.elapsed() >= Duration::from_millis(200), "{:?}", started.elapsed());
}

#[test]
fn persistent_rate_limits_and_server_errors_give_up_within_bounds() {
    let fake = Arc::new(Fake::default());
    fake.submit.lock().expect("script").extend([Act::Status(429, None); 10]);
    let client = IonqClient::new(config(&start(Arc::clone(&fake)))).expect("client");
    let error = block_on(client.run(&x_circuit(), 100)).expect_err("rate limited");
    assert!(matches!(error, RemoteError::RateLimited { attempts: 4, .. }), "{error}");
    assert_eq!(fake.submits.load(Ordering::SeqCst), 4, "1 try + 3 retries");

    fake.submit.lock().expect("script").clear();
    fake.status.lock().expect("script").extend([Act::Status(500, None); 10]);
    let error = block_on(client.run(&x_circuit(), 100)).expect_err("server error");
    assert!(matches!(error, RemoteError::Server { status: 500, attempts: 4, .. }), "{error}");
    assert!(error.to_string().contains("scripted 500"), "{error}");

    // A submission answered 500 may have been taken: it is not sent twice.
    fake.status.lock().expect("script").clear();
    let before = fake.submits.load(Ordering::SeqCst);
    fake.submit.lock().expect("script").push_back(Act::Status(500, None));
    let error = block_on(client.run(&x_circuit(), 100)).expect_err("server error");
    assert!(matches!(error, RemoteError::Server { attempts: 1, .. }), "{error}");
    assert_eq!(fake.submits.load(Ordering::SeqCst), before + 1);
}

#[test]
fn malformed_answers_and_auth_failures_are_named() {
    let fake = Arc::new(Fake::default());
    fake.results.lock().expect("script").push_back(Act::Malformed);
    let client = IonqClient::new(config(&start(Arc::clone(&fake)))).expect("client");
    let error = block_on(client.run(&x_circuit(), 100)).expect_err("malformed");
    assert!(matches!(error, RemoteError::MalformedResponse { .. }), "{error}");
    assert!(error.to_string().contains("malformed answer to the results of job job-0"), "{error}");

    fake.status.lock().expect("script").push_back(Act::Status(401, None));
    let error = block_on(client.run(&x_circuit(), 100)).expect_err("unauthorized");
    assert!(matches!(error, RemoteError::Auth { status: 401, .. }), "{error}");
    assert!(!format!("{error:?}").contains("apiKey k"), "the key is never shown");
}

#[test]
fn a_job_that_never_completes_times_out_and_is_canceled() {
    let fake = Arc::new(Fake::default());
    fake.stuck.store(true, Ordering::SeqCst);
    let client = IonqClient::new(config(&start(Arc::clone(&fake))).with_overall_timeout(Duration::from_millis(300)))
        .expect("client");
    let started = Instant::now();
    let error = block_on(client.run(&x_circuit(), 100)).expect_err("times out");
    assert!(matches!(error, RemoteError::OutOfTime { .. }), "{error}");
    assert!(error.to_string().ends_with("(canceled) did not finish within the --timeout of 0.3 s"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(fake.cancels.load(Ordering::SeqCst), 1, "the abandoned job is canceled");
    assert!(fake.polls.load(Ordering::SeqCst) >= 2);
}

#[test]
fn dropped_connections_are_retried_then_reported() {
    let fake = Arc::new(Fake::default());
    fake.status.lock().expect("script").push_back(Act::Drop);
    let client = IonqClient::new(config(&start(Arc::clone(&fake)))).expect("client");
    let result = block_on(client.run(&x_circuit(), 100)).expect("a poll is retried after a dropped connection");
    assert_eq!(result.probabilities.outcomes(), &[(1, 1.0)]);

    fake.results.lock().expect("script").extend([Act::Drop; 10]);
    let error = block_on(client.run(&x_circuit(), 100)).expect_err("keeps dropping");
    assert!(matches!(error, RemoteError::Network { attempts: 4, .. }), "{error}");

    // Nobody listens here: the connection is refused.
    let closed = IonqClient::new(config("http://127.0.0.1:9/v0.4")).expect("client");
    let error = block_on(closed.run(&x_circuit(), 100)).expect_err("refused");
    assert!(matches!(error, RemoteError::Network { .. }), "{error}");
}

fn board_state(board: &RemoteBoard) -> (String, Bitboard, usize) {
    let circuit = board.circuit();
    (circuit.to_string(), board.register().classical_occupancy(), circuit.postselect.len())
}

#[test]
fn a_failed_move_or_query_leaves_the_remote_board_unchanged() {
    let fake = Arc::new(Fake::default());
    let url = start(Arc::clone(&fake));
    let config = RemoteBoardConfig::new(config(&url));
    let mut board =
        RemoteBoard::new(Bitboard::from_square(Square::G1) | Bitboard::from_square(Square::E2), config).expect("board");
    let mv = |text: &str| text.parse::<TypedMove>().expect("valid");
    board.apply(&mv("g1^f3h3:SPLIT_JUMP:BASIC")).expect("a split needs no job");
    assert_eq!(board.jobs_submitted(), 0);
    let before = board_state(&board);

    // The capture from f3 measures it: every way the provider can fail leaves the board as it was.
    let failures: [(&Mutex<VecDeque<Act>>, Vec<Act>); 4] = [
        (&fake.submit, vec![Act::Status(429, None); 10]),
        (&fake.status, vec![Act::Status(502, None); 10]),
        (&fake.results, vec![Act::Malformed]),
        (&fake.results, vec![Act::Drop; 10]),
    ];
    for (script, acts) in failures {
        script.lock().expect("script").extend(acts);
        let error = board.apply(&mv("f3e5:JUMP:CAPTURE")).expect_err("the provider fails");
        // The board's words, then the provider's cause, each once.
        let said = qchess_core::text::with_causes(&error);
        assert!(said.starts_with("the backend failed: ") && said.matches("the backend failed").count() == 1, "{said}");
        assert_eq!(board_state(&board), before, "after {error}");
        script.lock().expect("script").clear();
    }
    // A failed query changes nothing either.
    fake.status.lock().expect("script").extend([Act::Status(500, None); 10]);
    assert!(board.square_probabilities().is_err());
    assert_eq!(board_state(&board), before);
    fake.status.lock().expect("script").clear();

    // With the provider well again, the same move works and the results match the exact values.
    let report = board.apply(&mv("f3e5.m1:JUMP:CAPTURE")).expect("works now");
    assert_eq!(report.outcome_probability.map(|p| (p * 1e9).round() / 1e9), Some(0.5));
    let probabilities = board.square_probabilities().expect("probabilities");
    assert_eq!(probabilities.get(Square::E5), 1.0);
    assert_eq!(probabilities.get(Square::H3), 0.0);
}

/// A job journal in memory: what a game store records, without the store.
#[derive(Default)]
struct MemoryJournal {
    records: HashMap<JobKey, Recorded>,
}

impl JobJournal for MemoryJournal {
    fn find(&mut self, key: &JobKey) -> Result<Option<Recorded>, JournalError> {
        Ok(self.records.get(key).cloned())
    }
    fn reserve(&mut self, key: &JobKey) -> Result<String, JournalError> {
        let name = format!("move-{}", self.records.len());
        self.records.insert(key.clone(), Recorded::Reserved { name: name.clone() });
        Ok(name)
    }
    fn release(&mut self, key: &JobKey, _name: &str) -> Result<(), JournalError> {
        self.records.remove(key);
        Ok(())
    }
    fn submitted(&mut self, key: &JobKey, _name: &str, job_id: &str) -> Result<(), JournalError> {
        self.records.insert(key.clone(), Recorded::Submitted { job_id: job_id.to_owned() });
        Ok(())
    }
    fn progress(&mut self, _key: &JobKey, _job_id: &str, _progress: &JobProgress) -> Result<Watch, JournalError> {
        Ok(Watch::Continue)
    }
    fn completed(&mut self, key: &JobKey, result: &JobResult) -> Result<(), JournalError> {
        self.records.insert(key.clone(), Recorded::Completed(result.clone()));
        Ok(())
    }
    fn ended(&mut self, key: &JobKey, _job_id: &str, _end: &JobEnd) -> Result<(), JournalError> {
        self.records.remove(key);
        Ok(())
    }
}

/// With a foreground limit (`--timeout`), a move whose job has finished but whose results
/// arrive after the limit detaches like a wait at the limit (the job keeps its place), and
/// taking the move up again reads the results.
#[test]
fn results_that_arrive_after_the_foreground_limit_detach_the_move() {
    let fake = Arc::new(Fake::default());
    let url = start(Arc::clone(&fake));
    let wait = WaitPolicy { foreground: Some(Duration::from_secs(1)), detach_on_interrupt: false };
    let mut board = RemoteBoard::new(
        Bitboard::from_square(Square::G1) | Bitboard::from_square(Square::E2),
        RemoteBoardConfig::new(config(&url)),
    )
    .expect("board")
    .with_journal(Box::new(MemoryJournal::default()), wait);
    let mv = |text: &str| text.parse::<TypedMove>().expect("valid");
    board.apply(&mv("g1^f3h3:SPLIT_JUMP:BASIC")).expect("a split needs no job");
    fake.results.lock().expect("script").push_back(Act::Late);
    let error = board.apply(&mv("f3e5.m1:JUMP:CAPTURE")).expect_err("the results come too late");
    let said = qchess_core::text::with_causes(&error);
    assert!(said.contains("keeps its place at the provider"), "{said}");
    assert_eq!(fake.submits.load(Ordering::SeqCst), 1);
    // Taken up again: the same job, its results read this time.
    let report = board.apply(&mv("f3e5.m1:JUMP:CAPTURE")).expect("the results arrive");
    assert_eq!(report.outcome_probability.map(|p| (p * 1e9).round() / 1e9), Some(0.5));
    assert_eq!(fake.submits.load(Ordering::SeqCst), 1, "no second submission");
}

/// Set in the child process of [`ctrl_c_while_waiting_cancels_the_job`].
const INTERRUPT_CHILD: &str = "QCHESS_REMOTE_INTERRUPT_CHILD";

#[test]
fn ctrl_c_while_waiting_cancels_the_job() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};

    if std::env::var_os(INTERRUPT_CHILD).is_some() {
        // The child: wait on a job that never finishes until Ctrl-C arrives.
        let fake = Arc::new(Fake::default());
        fake.stuck.store(true, Ordering::SeqCst);
        let client = IonqClient::new(config(&start(Arc::clone(&fake))).with_cancel_on_interrupt(true)).expect("client");
        let error = block_on(async {
            let id =
                client.submit(&qchess_qasm::ionq::to_ionq(&x_circuit()).expect("lowers"), 10).await.expect("submitted");
            // Announce only once the wait (polled first) listens for Ctrl-C.
            let announce = async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                println!("waiting");
                std::io::stdout().flush().expect("flush");
            };
            let (result, ()) = tokio::join!(client.wait(&id), announce);
            result.expect_err("interrupted")
        });
        println!("result: {error} | cancels={}", fake.cancels.load(Ordering::SeqCst));
        println!("idle");
        std::io::stdout().flush().expect("flush");
        // Not waiting any more: Ctrl-C ends the process as usual.
        std::thread::sleep(Duration::from_secs(20));
        println!("still alive");
        return;
    }
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "ctrl_c_while_waiting_cancels_the_job", "--nocapture", "--test-threads=1"])
        .env(INTERRUPT_CHILD, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("child starts");
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let mut next_line = |wanted: &str| loop {
        let line = lines.next().expect("the child prints").expect("reads");
        if line.contains(wanted) {
            return line;
        }
    };
    next_line("waiting");
    let interrupt = || {
        let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
        assert!(status.success());
    };
    interrupt();
    let result = next_line("result:");
    assert!(result.contains("was canceled at the user's request") && result.contains("cancels=1"), "{result}");
    next_line("idle");
    interrupt();
    let status = child.wait().expect("the child ends");
    assert_eq!(status.signal(), Some(2), "Ctrl-C outside a wait ends the process: {status}");
}
