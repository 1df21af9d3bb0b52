//! `--timeout` bounds a move's whole time with a remote provider: every request, retry and
//! back-off fits inside it, whether the provider refuses connections or takes them and never
//! answers. (Both once took far longer: 12 s and 62 s for `--timeout 2`, because the question
//! of the backend's size had a deadline of its own and each retry a fresh request timeout.)
//! The bound checked here is wide (a hang check, never a tight timing): the command must end
//! within a few times the timeout.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::common::{Run, qchess};

/// The most a `--timeout 1` command may take here: the timeout, process start and exit, and a
/// loaded machine's slack; the defects this guards against took 12 and 62 times the timeout.
const BOUND: Duration = Duration::from_secs(5);

/// A local port nothing listens on: bound, then released.
fn refusing_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("bound").port()
}

/// A listener that accepts every connection and never answers; it lives as long as the value.
struct Silent {
    port: u16,
}

impl Silent {
    fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("bound").port();
        std::thread::spawn(move || {
            let mut held = Vec::new();
            for connection in listener.incoming().flatten() {
                held.push(connection);
            }
        });
        Silent { port }
    }
}

/// Runs a one-move game with `--timeout 1` on `backend`, timing it.
fn one_move(backend: &[&str]) -> (Run, Duration) {
    let mut args = vec!["game", "--moves", "g1^f3h3", "--timeout", "1"];
    args.extend_from_slice(backend);
    let started = Instant::now();
    let run = qchess(&args);
    (run, started.elapsed())
}

#[test]
fn the_timeout_bounds_a_move_against_a_provider_that_refuses_connections() {
    let url = format!("http://127.0.0.1:{}/v0.4", refusing_port());
    for backend in
        [vec!["--backend", url.as_str()], vec!["--backend", "ionq", "--provider-url", url.as_str(), "--api-key", "k"]]
    {
        let (run, took) = one_move(&backend);
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(took < BOUND, "{backend:?}: {took:?} for --timeout 1: {}", run.stderr);
        // Which request meets the refusal last depends on how the retries' waits fall against
        // the deadline (a loaded machine oversleeps): the backend's description or the job's
        // submission. Either way the cause is said, once.
        assert!(run.stderr.contains("cannot reach the provider for"), "{}", run.stderr);
        assert_eq!(run.stderr.matches("Connection refused").count(), 1, "{}", run.stderr);
    }
}

#[test]
fn the_timeout_bounds_a_move_against_a_provider_that_never_answers() {
    let silent = Silent::start();
    let url = format!("http://127.0.0.1:{}/v0.4", silent.port);
    let (run, took) = one_move(&["--backend", "ionq", "--provider-url", &url, "--api-key", "k"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(took < BOUND, "{took:?} for --timeout 1: {}", run.stderr);
    let line = run.stderr.trim_end();
    assert!(line.ends_with("did not finish within the --timeout of 1.0 s"), "{line}");
    assert_eq!(line.matches("--timeout").count(), 1, "the cause once: {line}");

    // IBM: the device's description is asked for before the game starts, within the timeout.
    let base = format!("http://127.0.0.1:{}", silent.port);
    let (run, took) =
        one_move(&["--backend", "ibm:ibm_fez", "--ibm-url", &base, "--ibm-api-key", "k", "--ibm-crn", "crn:v1:test"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(took < BOUND, "{took:?} for --timeout 1: {}", run.stderr);
    assert!(run.stderr.contains("did not finish within the --timeout of 1.0 s"), "{}", run.stderr);
}
