//! `qchess serve` at its limits, as a real process: SIGTERM with work in hand, large results
//! under concurrent downloads, the client's cap on what it reads, and the limit flags.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use qchess_remote::config::{PollPolicy, ProviderConfig};
use qchess_remote::{IonqClient, RemoteError};
use serde_json::{Value, json};

use crate::common::{Served, qchess};

/// A peak memory figure of a process, in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn submit(url: &str, input: Value) -> String {
    let body = json!({"backend": "simulator", "shots": 10, "input": input});
    let response =
        reqwest::blocking::Client::new().post(format!("{url}/v0.4/jobs")).json(&body).send().expect("answers");
    assert_eq!(response.status().as_u16(), 200);
    response.json::<Value>().expect("JSON")["id"].as_str().expect("id").to_owned()
}

fn wait_for(url: &str, id: &str, wanted: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let job: Value =
            reqwest::blocking::get(format!("{url}/v0.4/jobs/{id}")).expect("answers").json().expect("JSON");
        if job["status"] == wanted {
            return;
        }
        assert!(Instant::now() < deadline, "job {id} never {wanted}: {job}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_with_work_in_hand_stops_within_the_grace_and_says_what_became_of_it() {
    let mut served = Served::start_keeping_stderr(&["--workers", "1", "--shutdown-grace", "1"]);
    let (child, url) = (&mut served.child, served.url.as_str());
    // A job that runs for minutes, and one queued behind it.
    let gates: Vec<Value> = (0..60_000).map(|i| json!({"gate": "h", "targets": [i % 20]})).collect();
    let slow = submit(url, json!({"gateset": "qis", "qubits": 20, "circuit": gates}));
    submit(url, json!({"gateset": "qis", "qubits": 1, "circuit": [{"gate": "x", "targets": [0]}]}));
    wait_for(url, &slow, "started");
    let mut half = TcpStream::connect(url.trim_start_matches("http://")).expect("connects");
    half.write_all(b"GET /health HTTP/1.1\r\n").expect("half a header");
    let terminated = Instant::now();
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("waits") {
            break exit;
        }
        assert!(terminated.elapsed() < Duration::from_secs(10), "serve did not stop");
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = terminated.elapsed();
    assert!(exit.success(), "{exit}");
    assert!(took < Duration::from_secs(4), "stopped within the grace of 1 s and a margin: {took:?}");
    let mut stderr = String::new();
    child.stderr.take().expect("piped").read_to_string(&mut stderr).expect("reads");
    assert!(
        stderr.contains("1 queued jobs failed (ServerShutdown)") && stderr.contains("1 running jobs stopped"),
        "{stderr}"
    );
}

#[test]
fn large_results_stream_in_bounded_memory_and_the_client_caps_what_it_reads() {
    let mut served = Served::start(&[]);
    let (child, url) = (&mut served.child, served.url.as_str());
    // 16 qubits in uniform superposition: 65,536 outcomes, about 1.9 MB of JSON (built whole,
    // each download used to cost five times that).
    let gates: Vec<Value> = (0..16).map(|q| json!({"gate": "h", "targets": [q]})).collect();
    let id = submit(url, json!({"gateset": "qis", "qubits": 16, "circuit": gates}));
    wait_for(url, &id, "completed");
    let before = status_kib(child.id(), "VmHWM:");
    let downloads: Vec<_> = (0..20)
        .map(|_| {
            let results = format!("{url}/v0.4/jobs/{id}/results/probabilities");
            std::thread::spawn(move || {
                let http =
                    reqwest::blocking::Client::builder().timeout(Duration::from_secs(300)).build().expect("client");
                let body = http.get(results).send().expect("answers").bytes().expect("body");
                let parsed: serde_json::Map<String, Value> = serde_json::from_slice(&body).expect("JSON object");
                (body.len(), parsed.len())
            })
        })
        .collect();
    for download in downloads {
        let (bytes, outcomes) = download.join().expect("download");
        assert_eq!(outcomes, 1 << 16);
        assert!(bytes > 1_500_000, "{bytes} bytes");
    }
    let grown = status_kib(child.id(), "VmHWM:").saturating_sub(before);
    eprintln!("20 concurrent downloads of a 1.9 MB result raised the server's peak RSS by {grown} KiB");
    assert!(grown < 24 * 1024, "peak RSS grew by {grown} KiB");

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let provider = |cap: Option<u64>| {
        let config = ProviderConfig::new(&format!("{url}/v0.4"))
            .expect("URL")
            .with_progress(false)
            .with_cancel_on_interrupt(false)
            .with_poll(PollPolicy { initial: Duration::from_millis(2), max: Duration::from_millis(20) });
        IonqClient::new(cap.map_or(config.clone(), |bytes| config.with_max_response_bytes(bytes))).expect("client")
    };
    let capped = runtime.block_on(provider(Some(1 << 20)).probabilities(&id, 16)).expect_err("over the cap");
    assert!(matches!(capped, RemoteError::ResponseTooLarge { limit: 1_048_576, .. }), "{capped}");
    assert!(capped.to_string().contains("--max-response-bytes"), "{capped}");
    let whole = runtime.block_on(provider(None).probabilities(&id, 16)).expect("within the default cap");
    assert_eq!(whole.outcomes().len(), 1 << 16);
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn limit_flags_out_of_range_exit_2_naming_the_flag() {
    for (flag, value) in [
        ("--time-limit", "0"),
        ("--header-timeout", "-1"),
        ("--body-timeout", "1e12"),
        ("--shutdown-grace", "nan"),
        ("--result-ttl", "0"),
        ("--max-connections", "0"),
        ("--max-board-states", "0"),
    ] {
        let run = qchess(&["serve", "--addr", "127.0.0.1:0", &format!("{flag}={value}")]);
        assert_eq!(run.code, Some(2), "{flag} {value}: {}", run.stderr);
        assert!(run.stderr.contains(flag), "{flag}: {}", run.stderr);
    }
    let run = qchess(&["game", "--moves", "e2e4", "--backend", "http://127.0.0.1:9", "--max-response-bytes", "10"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("--max-response-bytes"), "{}", run.stderr);
}
