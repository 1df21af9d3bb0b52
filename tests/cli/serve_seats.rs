//! `qchess serve`'s seats, clocks and live updates across a crash: a game with a claimed seat
//! and a running clock, the server killed with SIGKILL and started again on its store; the
//! claimed link stays spent and the claimed token plays on, the event stream resumes from its
//! last id with nothing missed or repeated, the clock runs on and the restarted server decides
//! the flag fall with no client online; no token ever reaches the server's log.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::blocking::{Client, RequestBuilder};
use serde_json::{Value, json};

use crate::common::{Served, command};

fn http() -> Client {
    Client::builder().timeout(Duration::from_secs(20)).build().expect("a client")
}

fn send(request: RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().expect("the server answers");
    let status = response.status();
    (status, response.json().expect("JSON"))
}

fn ok(request: RequestBuilder) -> Value {
    let (status, body) = send(request);
    assert!(status.is_success(), "{status}: {body}");
    body
}

/// `qchess serve` on `addr` with its store at `db`, its log (stderr) written to `log`.
fn serve(addr: &str, db: &std::path::Path, log: &std::path::Path) -> Served {
    let mut child = command()
        .args(["serve", "--addr", addr, "--db", db.to_str().expect("utf-8")])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log).expect("a log file"))
        .spawn()
        .expect("qchess serve starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first).expect("the first line");
    let url = first.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("first line: {first:?}")).to_owned();
    Served { child, url }
}

/// The next `state` event of an event stream: (id, state); `None` when the stream ends.
fn next_state(stream: &mut BufReader<reqwest::blocking::Response>) -> Option<(i64, Value)> {
    let (mut id, mut name, mut data) = (None, String::new(), String::new());
    loop {
        let mut line = String::new();
        if stream.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            if name == "state" {
                return Some((id.expect("an id"), serde_json::from_str(&data).expect("JSON")));
            }
            (id, name, data) = (None, String::new(), String::new());
        } else if let Some(value) = line.strip_prefix("id: ") {
            id = Some(value.parse::<i64>().expect("a numeric id"));
        } else if let Some(value) = line.strip_prefix("event: ") {
            name = value.to_owned();
        } else if let Some(value) = line.strip_prefix("data: ") {
            data.push_str(value);
        }
    }
}

fn moves(state: &Value) -> Vec<&str> {
    state["moves"].as_array().expect("moves").iter().map(|m| m["move"].as_str().expect("move")).collect()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("after 1970").as_millis() as i64
}

#[test]
fn seats_clocks_and_streams_survive_a_killed_server() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = dir.path().join("games.db");
    let logs = [dir.path().join("first.log"), dir.path().join("second.log")];
    let mut first = serve("127.0.0.1:0", &db, &logs[0]);
    let client = http();
    let base = first.url.clone();
    let created = ok(client.post(format!("{base}/api/games")).json(&json!({"seed": 6, "clock": "0.1+0"})));
    let token = |side: &str| created["seats"][side]["token"].as_str().expect("a seat").to_owned();
    let (white, link, spectator) =
        (token("white"), token("black"), created["spectator"]["token"].as_str().expect("a token").to_owned());
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let black = ok(client.post(format!("{game}/seats/claim")).bearer_auth(&link))["token"]
        .as_str()
        .expect("a token")
        .to_owned();
    // A spectator follows the game.
    let stream = client.get(format!("{game}/events")).bearer_auth(&spectator).send().expect("a stream");
    let mut stream = BufReader::new(stream);
    let (start_id, start) = next_state(&mut stream).expect("the game as it starts");
    assert!(moves(&start).is_empty());
    ok(client.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "e2e4"})));
    let (seen_id, seen) = next_state(&mut stream).expect("White's move");
    assert_eq!((seen_id, moves(&seen)), (start_id + 1, vec!["e2e4"]));

    // SIGKILL, and a new server on the same address and store.
    first.child.kill().expect("killed");
    first.child.wait().expect("reaped");
    assert!(next_state(&mut stream).is_none(), "the stream ends with the server");
    let addr = base.trim_start_matches("http://").to_owned();
    let _second = serve(&addr, &db, &logs[1]);
    let (status, body) = send(client.post(format!("{game}/moves")).bearer_auth(&link).json(&json!({"move": "e7e5"})));
    assert_eq!(status, StatusCode::FORBIDDEN, "the claimed link stays spent: {body}");
    let state = ok(client.get(&game).bearer_auth(&black));
    assert_eq!((state["you"].clone(), state["clock"]["running"].clone()), (json!("black"), json!("black")));
    // The stream resumes after its last event: nothing until the next change, then that change.
    let resumed = client
        .get(format!("{game}/events"))
        .bearer_auth(&spectator)
        .header("last-event-id", seen_id.to_string())
        .send()
        .expect("the stream again");
    let mut resumed = BufReader::new(resumed);
    let replied = ok(client.post(format!("{game}/moves")).bearer_auth(&black).json(&json!({"move": "e7e5"})));
    let (next_id, next) = next_state(&mut resumed).expect("Black's move");
    assert_eq!((next_id, moves(&next)), (seen_id + 1, vec!["e2e4", "e7e5"]), "no move missed or repeated");
    drop(resumed);
    // Nobody is connected while White's clock runs out; the restarted server decides.
    let deadline = replied["clock"]["deadline"].as_i64().expect("White's deadline");
    std::thread::sleep(Duration::from_millis(u64::try_from(deadline - now_ms()).unwrap_or(0) + 300));
    let over = ok(client.get(&game));
    assert_eq!((&over["result"], &over["reason"]), (&json!("0-1"), &json!("time")), "{over}");
    let late = over["clock"]["since"].as_i64().expect("decided at") - deadline;
    assert!((0..=100).contains(&late), "decided {late} ms after the deadline");
    let record = ok(client.get(format!("{game}/record")))["record"].as_str().expect("text").to_owned();
    assert!(record.contains("1. e2e4 { [%clk 0:00:06] } 1... e7e5 { [%clk 0:00:"), "{record}");
    assert!(record.contains("[Termination \"white lost on time\"]"), "{record}");
    for log in &logs {
        let text = std::fs::read_to_string(log).expect("the log");
        for secret in [&white, &link, &black, &spectator] {
            assert!(!text.contains(&secret[4..]), "a token in the log {}: {text}", log.display());
        }
        assert!(!text.contains("qcs_"), "{text}");
    }
}
