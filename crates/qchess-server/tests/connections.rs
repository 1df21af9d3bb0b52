//! Slow, silent and greedy clients on real sockets: half-sent headers, bodies that never
//! finish, idle keep-alive connections, more connections than the cap, and shutdown with work
//! in hand.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use common::{client, start};
use qchess_server::{Server, ServerConfig, ShutdownReport};
use serde_json::{Value, json};

fn addr_of(base: &str) -> SocketAddr {
    base.trim_start_matches("http://").parse().expect("address")
}

/// Whether the server closed the connection: waits up to `within` for its end.
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    let mut sink = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        stream.set_read_timeout(Some(left)).expect("timeout");
        match stream.read(&mut sink) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return false,
            Err(_) => return true,
        }
    }
}

/// Reads one whole answer (headers and a body of known length) from a raw connection.
fn read_answer(stream: &mut TcpStream) -> (u16, String, String) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let head = text[..end].to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().expect("length"));
            if bytes.len() >= end + 4 + length {
                let status = head[9..12].parse().expect("status");
                return (status, head, text[end + 4..end + 4 + length].to_owned());
            }
        }
        let n = stream.read(&mut buffer).expect("reads the answer");
        assert!(n > 0, "closed before a whole answer: {}", String::from_utf8_lossy(&bytes));
        bytes.extend_from_slice(&buffer[..n]);
    }
}

#[test]
fn half_sent_headers_are_dropped_and_do_not_hold_the_server() {
    let base = start(|config| config.timeouts.header = Duration::from_millis(700));
    let addr = addr_of(&base);
    let mut slow: Vec<TcpStream> = (0..200)
        .map(|_| {
            let mut stream = TcpStream::connect(addr).expect("connects");
            stream.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n").expect("half a header");
            stream
        })
        .collect();
    let silent = TcpStream::connect(addr).expect("connects");
    // Meanwhile others are served at once.
    let asked = Instant::now();
    let health = client().get(format!("{base}/health")).send().expect("answers");
    assert_eq!(health.status().as_u16(), 200);
    assert!(asked.elapsed() < Duration::from_millis(500), "{:?}", asked.elapsed());
    let started = Instant::now();
    for stream in slow.iter_mut().chain(std::iter::once(&mut silent.try_clone().expect("clone"))) {
        assert!(closed_within(stream, Duration::from_secs(5)), "a half-sent header holds its connection");
    }
    assert!(started.elapsed() < Duration::from_secs(3), "closed after the header timeout: {:?}", started.elapsed());
}

#[test]
fn idle_keep_alive_connections_close_after_the_idle_timeout() {
    let base = start(|config| config.timeouts.idle = Duration::from_millis(600));
    let mut stream = TcpStream::connect(addr_of(&base)).expect("connects");
    for _ in 0..2 {
        stream.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").expect("request");
        let (status, _, body) = read_answer(&mut stream);
        assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#), "kept alive between requests");
    }
    assert!(!closed_within(&mut stream, Duration::from_millis(200)), "not closed before the idle timeout");
    assert!(closed_within(&mut stream, Duration::from_secs(3)), "closed once idle");
}

#[test]
fn a_client_that_stops_reading_an_answer_is_dropped_after_the_idle_timeout() {
    let base = start(|config| config.timeouts.idle = Duration::from_millis(500));
    // 20 qubits in uniform superposition: about 31 MB of results, more than socket buffers hold.
    let gates: Vec<Value> = (0..20).map(|q| json!({"gate": "h", "targets": [q]})).collect();
    let body = json!({"backend": "simulator", "input": {"gateset": "qis", "qubits": 20, "circuit": gates}});
    let created: Value =
        client().post(format!("{base}/v0.4/jobs")).json(&body).send().expect("answers").json().expect("JSON");
    let id = created["id"].as_str().expect("id").to_owned();
    let (job, _) = common::wait_until_final(&client(), &base, &id);
    assert_eq!(job["status"], "completed");
    let mut stream = TcpStream::connect(addr_of(&base)).expect("connects");
    write!(stream, "GET /v0.4/jobs/{id}/results/probabilities HTTP/1.1\r\nHost: x\r\n\r\n").expect("request");
    // Read nothing for a while: the server's writes stall, and it gives up.
    std::thread::sleep(Duration::from_secs(3));
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    let mut received = 0usize;
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => received += n,
        }
    }
    assert!(received < 20_000_000, "{received} bytes were sent to a client that stopped reading");
}

#[test]
fn a_body_that_never_finishes_is_answered_408() {
    let base = start(|config| config.timeouts.body = Duration::from_millis(500));
    let mut stream = TcpStream::connect(addr_of(&base)).expect("connects");
    stream
        .write_all(b"POST /v0.4/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"backend\":")
        .expect("part of a body");
    let asked = Instant::now();
    let (status, _, body) = read_answer(&mut stream);
    assert_eq!(status, 408, "{body}");
    assert!(asked.elapsed() < Duration::from_secs(3));
    let error: Value = serde_json::from_str(&body).expect("JSON");
    assert_eq!(error["statusCode"], 408);
    assert!(error["message"].as_str().expect("message").contains("--body-timeout"), "{error}");
}

#[test]
fn connections_over_the_cap_wait_until_one_closes_or_goes_idle() {
    let base = start(|config| config.limits.max_connections = 4);
    let addr = addr_of(&base);
    let mut held: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(addr).expect("connects")).collect();
    // Let the server take all four before the fifth arrives.
    std::thread::sleep(Duration::from_millis(200));
    let mut fifth = TcpStream::connect(addr).expect("the listen queue takes it");
    fifth.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").expect("request");
    fifth.set_read_timeout(Some(Duration::from_millis(500))).expect("timeout");
    let mut byte = [0u8; 1];
    let early = fifth.read(&mut byte);
    assert!(
        matches!(&early, Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut)),
        "not served while four connections are held: {early:?}"
    );
    // A held connection still works; once answered it is idle, and is closed to let the
    // fifth in, which is then answered.
    held[0].write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").expect("request");
    assert_eq!(read_answer(&mut held[0]).0, 200);
    let (status, _, body) = read_answer(&mut fifth);
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    assert!(closed_within(&mut held[0], Duration::from_secs(1)), "the idle connection made room");
    // Closing a silent one makes room too.
    drop(held.pop());
    let mut sixth = TcpStream::connect(addr).expect("connects");
    sixth.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n").expect("request");
    assert_eq!(read_answer(&mut sixth).0, 200);
}

/// A server whose shutdown the test triggers; returns its address, the trigger, and what
/// `run` returned with how long it took after the trigger.
fn stoppable(
    configure: impl FnOnce(&mut ServerConfig) + Send + 'static,
) -> (String, tokio::sync::oneshot::Sender<()>, std::sync::mpsc::Receiver<(ShutdownReport, Instant)>) {
    let (addresses, address) = std::sync::mpsc::channel();
    let (reports, report) = std::sync::mpsc::channel();
    let (trigger, triggered) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let mut config = ServerConfig::new("127.0.0.1:0".parse().expect("address"));
            configure(&mut config);
            let server = Server::bind(config).await.expect("binds");
            addresses.send(server.local_addr()).expect("sends");
            let shutdown = async move {
                let _ = triggered.await;
            };
            let done = server.run(shutdown).await.expect("runs");
            reports.send((done, Instant::now())).expect("sends");
        });
        runtime.shutdown_timeout(Duration::from_secs(1));
    });
    let addr = address.recv_timeout(Duration::from_secs(10)).expect("starts");
    (format!("http://{addr}"), trigger, report)
}

fn submit(base: &str, input: Value) -> String {
    let body = json!({"backend": "simulator", "shots": 10, "input": input});
    let created: Value =
        client().post(format!("{base}/v0.4/jobs")).json(&body).send().expect("answers").json().expect("JSON");
    created["id"].as_str().expect("id").to_owned()
}

fn status_of(base: &str, id: &str) -> String {
    let job: Value = client().get(format!("{base}/v0.4/jobs/{id}")).send().expect("answers").json().expect("JSON");
    job["status"].as_str().expect("status").to_owned()
}

#[test]
fn shutdown_fails_queued_jobs_and_stops_running_ones_after_the_grace_period() {
    let (base, trigger, report) = stoppable(|config| {
        config.run.workers = 1;
        config.timeouts.shutdown_grace = Duration::from_millis(800);
    });
    // One job runs for minutes; the next waits for the only worker.
    let gates: Vec<Value> = (0..60_000).map(|i| json!({"gate": "h", "targets": [i % 20]})).collect();
    let running = submit(&base, json!({"gateset": "qis", "qubits": 20, "circuit": gates}));
    let queued = submit(&base, json!({"gateset": "qis", "qubits": 1, "circuit": [{"gate": "x", "targets": [0]}]}));
    let deadline = Instant::now() + Duration::from_secs(10);
    while status_of(&base, &running) != "started" {
        assert!(Instant::now() < deadline, "the slow job starts");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(status_of(&base, &queued), "submitted");
    // A client in the middle of a header must not hold the shutdown up.
    let mut half = TcpStream::connect(addr_of(&base)).expect("connects");
    half.write_all(b"GET /health HTTP/1.1\r\n").expect("half a header");
    let triggered = Instant::now();
    trigger.send(()).expect("triggers");
    let (done, at) = report.recv_timeout(Duration::from_secs(10)).expect("the server stops");
    let took = at.duration_since(triggered);
    assert!(took >= Duration::from_millis(700) && took < Duration::from_secs(3), "stopped after the grace: {took:?}");
    assert_eq!((done.unstarted_failed, done.running_finished, done.running_stopped), (1, 0, 1), "{done:?}");
    assert!(closed_within(&mut half, Duration::from_secs(1)), "the half-sent header's connection is closed");
    assert!(TcpStream::connect(addr_of(&base)).is_err(), "no longer accepting");
}

#[test]
fn shutdown_lets_a_running_job_finish_within_the_grace_period() {
    let (base, trigger, report) = stoppable(|config| {
        config.timeouts.shutdown_grace = Duration::from_secs(20);
        config.run.queue_delay = Duration::ZERO;
    });
    // Seconds of work on a 20-qubit dense state (in a test build).
    let gates: Vec<Value> = (0..40).map(|i| json!({"gate": "h", "targets": [i % 20]})).collect();
    let job = submit(&base, json!({"gateset": "qis", "qubits": 20, "circuit": gates}));
    let deadline = Instant::now() + Duration::from_secs(10);
    while status_of(&base, &job) != "started" {
        assert!(Instant::now() < deadline, "the job starts");
        std::thread::sleep(Duration::from_millis(5));
    }
    trigger.send(()).expect("triggers");
    let (done, _) = report.recv_timeout(Duration::from_secs(30)).expect("the server stops");
    assert_eq!(done, ShutdownReport { running_finished: 1, ..ShutdownReport::default() });
}
