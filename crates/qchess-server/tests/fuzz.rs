//! Every route fed random JSON, random bytes and random raw requests on a real server: a
//! client's mistake is never answered 5xx, every error is in the IonQ shape, and nothing
//! panics (a panicking handler would drop the connection unanswered). The case counts keep
//! each property to a few seconds.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::OnceLock;
use std::time::Duration;

use common::{client, json_value, start};
use proptest::prelude::*;
use serde_json::Value;

/// Every route: method and path, with `{id}` and `{backend}` filled in by each case.
const ROUTES: [(&str, &str); 36] = [
    ("GET", "/health"),
    ("GET", "/v0.4/backends"),
    ("GET", "/v0.4/backends/{backend}"),
    ("GET", "/v0.4/whoami"),
    ("POST", "/v0.4/jobs"),
    ("GET", "/v0.4/jobs"),
    ("GET", "/v0.4/jobs/{id}"),
    ("DELETE", "/v0.4/jobs/{id}"),
    ("GET", "/v0.4/jobs/{id}/results/probabilities"),
    ("GET", "/v0.4/jobs/{id}/results/probabilities/aggregated"),
    ("PUT", "/v0.4/jobs/{id}/status/cancel"),
    ("POST", "/quantumboard/init"),
    ("POST", "/quantumboard/do_move"),
    ("POST", "/quantumboard/undo_last_move"),
    ("GET", "/api/options"),
    ("POST", "/api/games"),
    ("GET", "/api/games"),
    ("GET", "/api/games/{id}"),
    ("DELETE", "/api/games/{id}"),
    ("GET", "/api/games/{id}/moves"),
    ("POST", "/api/games/{id}/moves"),
    ("POST", "/api/games/{id}/computer"),
    ("POST", "/api/games/{id}/undo"),
    ("GET", "/api/games/{id}/squares/{id}"),
    ("GET", "/api/games/{id}/record"),
    ("GET", "/api/games/{id}/circuit"),
    ("GET", "/api/games/{id}/events"),
    ("POST", "/api/games/{id}/seats/claim"),
    ("POST", "/api/games/{id}/resign"),
    ("POST", "/api/games/{id}/draw"),
    ("POST", "/api/games/{id}/takeback"),
    ("POST", "/api/games/{id}/flag"),
    ("GET", "/"),
    ("GET", "/assets/board.js"),
    ("GET", "/openapi.json"),
    ("PATCH", "/v0.4/jobs"),
];

/// Stands in a path for the id of a game that exists.
const GAME: &str = "GAME";

/// One shared server, small enough that random jobs and board moves stay quick, with one
/// game open (with clocks); that game's id, and its seats' tokens.
fn base() -> &'static (String, String, [String; 2]) {
    static BASE: OnceLock<(String, String, [String; 2])> = OnceLock::new();
    BASE.get_or_init(|| {
        let base = start(|config| {
            config.jobs.max_qubits = 8;
            config.limits.max_board_states = 4096;
            config.timeouts.header = Duration::from_secs(2);
            // Event streams of the game end soon, so that reading one whole takes a second.
            config.games.events_lifetime = Duration::from_secs(1);
        });
        let game: Value = client()
            .post(format!("{base}/api/games"))
            .body(r#"{"clock": "30+0"}"#)
            .send()
            .expect("answers")
            .json()
            .expect("JSON");
        let id = game["id"].as_str().expect("a game id").to_owned();
        let token = |side: &str| game["seats"][side]["token"].as_str().expect("a seat").to_owned();
        (base, id, [token("white"), token("black")])
    })
}

/// A path segment: a real job's id sometimes, otherwise text with odd characters, escapes and
/// invalid percent-encodings.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(GAME.to_owned()),
        Just("e4".to_owned()),
        Just("simulator".to_owned()),
        Just("qpu.aria-1".to_owned()),
        "[a-z0-9-]{0,40}",
        "(%[0-9A-F]{2}|[a-z.~-]){1,12}",
    ]
}

/// Bodies close to what the routes accept: board moves and positions with random numbers,
/// and jobs with random circuits, so that cases get past parsing into the handlers.
fn near_valid() -> impl Strategy<Value = Value> {
    let number = prop_oneof![0u64..70, any::<u64>()];
    prop_oneof![
        (number.clone(), number.clone(), proptest::option::of(number.clone()), 0u64..16, 0u64..5).prop_map(
            |(s1, s2, s3, kind, variant)| {
                serde_json::json!({"square1": s1, "square2": s2, "square3": s3, "type": kind, "variant": variant})
            }
        ),
        any::<u64>().prop_map(|state| serde_json::json!({"init_basis_state": state})),
        "[a-h][1-8][a-h1-8^xw.mq0-9:A-Z_]{0,12}".prop_map(|mv| serde_json::json!({"move": mv})),
        (0usize..5).prop_map(|plies| serde_json::json!({"plies": plies})),
        Just(serde_json::json!({"player": "random"})),
        ("[a-z]{0,10}", "[a-z:0-9]{0,8}", "[A-Za-z0-9/ -]{0,30}")
            .prop_map(|(rules, player, fen)| { serde_json::json!({"rules": rules, "white": player, "fen": fen}) }),
        (json_value(), proptest::option::of(0u64..3000), "[a-z.0-9-]{0,12}").prop_map(|(circuit, shots, backend)| {
            serde_json::json!({"backend": backend, "shots": shots, "input": {"qubits": 3, "circuit": [circuit]}})
        }),
    ]
}

/// A request body: JSON, near-valid JSON, or arbitrary bytes.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        json_value().prop_map(|value| serde_json::to_vec(&value).expect("writes")),
        near_valid().prop_map(|value| serde_json::to_vec(&value).expect("writes")),
        proptest::collection::vec(any::<u8>(), 0..300),
    ]
}

/// Checks an answer: below 500, and an error in the IonQ shape with its own status.
fn check(response: reqwest::blocking::Response, what: &str) -> Result<(), TestCaseError> {
    let status = response.status().as_u16();
    prop_assert!(status < 500, "{what}: answered {status}");
    let text = response.text().expect("a whole body");
    if status >= 400 {
        let error: Value =
            serde_json::from_str(&text).map_err(|e| TestCaseError::fail(format!("{what}: {e}: {text}")))?;
        prop_assert_eq!(error["statusCode"].as_u64(), Some(u64::from(status)), "{}: {}", what, text);
        prop_assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{}: {}", what, text);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random JSON or bytes to every route, with random path segments and content types.
    #[test]
    fn every_route_answers_random_bodies_without_a_5xx(
        route in 0..ROUTES.len(),
        id in segment(),
        body in body(),
        json_type in any::<bool>(),
        query in proptest::option::of("[a-z]{1,6}=[a-z0-9%-]{0,6}"),
        seat in 0usize..4,
    ) {
        let (method, template) = ROUTES[route];
        let (base, game, tokens) = base();
        let mut path = template.replace("{id}", &id.replace(GAME, game)).replace("{backend}", &id);
        if let Some(query) = query {
            path = format!("{path}?{query}");
        }
        let url = format!("{base}{path}");
        let mut request = client().request(method.parse().expect("method"), &url).body(body);
        if json_type {
            request = request.header("content-type", "application/json");
        }
        // Either seat's token, none, or one of no game.
        match seat {
            0 | 1 => request = request.bearer_auth(&tokens[seat]),
            2 => request = request.header("x-qchess-seat", "qcs_0123"),
            _ => {}
        }
        let response = request.send().map_err(|e| TestCaseError::fail(format!("{method} {path}: no answer: {e}")))?;
        check(response, &format!("{method} {path}"))?;
    }

    /// Random bytes, and valid requests with bytes changed, on a raw connection: the server
    /// answers below 500 or closes the connection, and keeps serving.
    #[test]
    fn raw_garbage_never_gets_a_5xx_or_stops_the_server(
        noise in proptest::collection::vec(any::<u8>(), 1..400),
        route in 0..ROUTES.len(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
        raw in any::<bool>(),
    ) {
        let (base, _, _) = base();
        let addr = base.trim_start_matches("http://").to_owned();
        let bytes = if raw {
            noise
        } else {
            let (method, template) = ROUTES[route];
            let body = String::from_utf8_lossy(&noise).into_owned();
            let mut request = format!(
                "{method} {} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                template.replace("{id}", "x").replace("{backend}", "simulator"),
                body.len()
            )
            .into_bytes();
            for (index, byte) in flips {
                let at = index.index(request.len());
                request[at] = byte;
            }
            request
        };
        let mut stream = TcpStream::connect(&addr).expect("connects");
        stream.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        // The server may close before reading everything; that is an answer too.
        let _ = stream.write_all(&bytes);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer);
        if let Some(status) = text.strip_prefix("HTTP/1.1 ").and_then(|rest| rest.get(..3)) {
            let status: u16 = status.parse().map_err(|_| TestCaseError::fail(format!("status line: {text}")))?;
            prop_assert!(status < 500, "answered {status}: {text}");
        }
        let health = client().get(format!("{base}/health")).send().expect("still serving");
        prop_assert_eq!(health.status().as_u16(), 200);
    }
}
