//! Helpers of the server tests: a real server on 127.0.0.1 and a blocking client.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use qchess_server::{Server, ServerConfig};
use serde_json::Value;

/// Starts a server on its own thread and runtime; returns its base URL.
pub fn start(configure: impl FnOnce(&mut ServerConfig) + Send + 'static) -> String {
    let (sender, receiver) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let mut config = ServerConfig::new("127.0.0.1:0".parse().expect("address"));
            configure(&mut config);
            let server = Server::bind(config).await.expect("binds");
            sender.send(server.local_addr()).expect("sends");
            server.run(std::future::pending()).await.expect("serves");
        });
    });
    let addr = receiver.recv_timeout(Duration::from_secs(10)).expect("the server starts");
    format!("http://{addr}")
}

pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder().timeout(Duration::from_secs(10)).build().expect("client")
}

pub fn wait_until_final(http: &reqwest::blocking::Client, base: &str, id: &str) -> (Value, Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    loop {
        let job: Value = http.get(format!("{base}/v0.4/jobs/{id}")).send().expect("answers").json().expect("JSON");
        let status = job["status"].as_str().expect("status").to_owned();
        if seen.last() != Some(&status) {
            seen.push(status.clone());
        }
        if ["completed", "failed", "canceled"].contains(&status.as_str()) {
            return (job, seen);
        }
        assert!(Instant::now() < deadline, "job {id} stuck in {status}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Random JSON, with the keys of jobs and circuits among random ones.
pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-z0-9_.]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("gate".to_owned()),
                    Just("targets".to_owned()),
                    Just("controls".to_owned()),
                    Just("target".to_owned()),
                    Just("rotation".to_owned()),
                    Just("qubits".to_owned()),
                    Just("circuit".to_owned()),
                    Just("gateset".to_owned()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Sends and reads the JSON answer with its status.
pub fn send_json(request: reqwest::blocking::RequestBuilder) -> (reqwest::StatusCode, Value) {
    let response = request.send().expect("the server answers");
    let status = response.status();
    let text = response.text().expect("a whole answer");
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status}: not JSON ({e}): {text}")))
}

/// Sends and reads the JSON answer, which must be a success.
pub fn ok_json(request: reqwest::blocking::RequestBuilder) -> Value {
    let (status, body) = send_json(request);
    assert!(status.is_success(), "{status}: {body}");
    body
}

/// The token of `side`'s seat (or `spectator`'s), from a new game's answer.
pub fn seat_token(created: &Value, side: &str) -> String {
    let entry = if side == "spectator" { &created["spectator"] } else { &created["seats"][side] };
    entry["token"].as_str().unwrap_or_else(|| panic!("{side} has a seat: {created}")).to_owned()
}

/// No rate limits: for tests that drive many games from one address.
pub fn unlimited_rates(config: &mut ServerConfig) {
    let unlimited = qchess_games::Rate::UNLIMITED;
    config.games.rates = qchess_games::GameRates { seat: unlimited, address: unlimited, creation: unlimited };
}

/// One server-sent event.
#[derive(Debug, Clone)]
pub struct Event {
    /// Its id.
    pub id: Option<i64>,
    /// Its name.
    pub name: String,
    /// Its data.
    pub data: String,
}

/// Reads events from a stream until it ends.
pub struct Events(BufReader<reqwest::blocking::Response>);

impl Events {
    pub fn open(http: &reqwest::blocking::Client, game: &str, token: Option<&str>, last: Option<i64>) -> Events {
        let mut request = http.get(format!("{game}/events"));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(last) = last {
            request = request.header("last-event-id", last.to_string());
        }
        let response = request.send().expect("the stream opens");
        assert_eq!(response.status(), reqwest::StatusCode::OK);
        assert!(response.headers()["content-type"].to_str().expect("ASCII").starts_with("text/event-stream"));
        Events(BufReader::new(response))
    }

    /// The next event; `None` when the server closed the stream.
    pub fn next(&mut self) -> Option<Event> {
        let mut event = Event { id: None, name: "message".to_owned(), data: String::new() };
        let mut fields = 0;
        loop {
            let mut line = String::new();
            if self.0.read_line(&mut line).ok()? == 0 {
                return None;
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if fields > 0 {
                    return Some(event);
                }
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => event.id = Some(value.parse().expect("a numeric id")),
                "event" => event.name = value.to_owned(),
                "data" => event.data.push_str(value),
                _ => continue,
            }
            fields += 1;
        }
    }
}
