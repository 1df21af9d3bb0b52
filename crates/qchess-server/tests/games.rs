//! The game API against a real server on 127.0.0.1: every endpoint with exact probabilities,
//! bad input answered 4xx with the game intact, limits, the API key, idle expiry, and 100
//! games played to the end at once.

use std::time::Duration;

use qchess_server::ServerKey;
use reqwest::StatusCode;
use reqwest::blocking::{Client, RequestBuilder};
use serde_json::{Value, json};

mod common;

use common::{ok_json as ok, seat_token as seat, send_json as send, start};

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(60)).build().expect("client")
}

/// Asserts a 4xx in the server's error shape whose message says `says`.
fn rejected(request: RequestBuilder, status: StatusCode, says: &str) {
    let (got, body) = send(request);
    assert_eq!(got, status, "{body}");
    assert_eq!(body["statusCode"], status.as_u16(), "{body}");
    let message = body["message"].as_str().expect("a message");
    assert!(message.contains(says), "`{message}` should say `{says}`");
}

fn probability(state: &Value, square: &str) -> f64 {
    state["squares"][square]["probability"].as_f64().expect("a probability")
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn every_endpoint_answers_with_exact_probabilities() {
    let base = start(|_| {});
    let http = client();
    let options = ok(http.get(format!("{base}/api/options")));
    assert_eq!(options["rules"][0]["id"], "official");
    assert_eq!(options["backends"].as_array().expect("backends").len(), 1, "no remote is configured");
    let players: Vec<&str> =
        options["players"].as_array().expect("players").iter().map(|p| p["id"].as_str().expect("id")).collect();
    assert_eq!(players[..4], ["human", "random", "greedy", "ai:1"]);
    let rules: Vec<&str> =
        options["rules"].as_array().expect("rules").iter().map(|r| r["id"].as_str().expect("id")).collect();
    assert!(rules.contains(&"classical"), "{rules:?}");

    let (status, created) =
        send(http.post(format!("{base}/api/games")).json(&json!({"seed": 7, "white": "human", "black": "random"})));
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["id"].as_str().expect("an id").to_owned();
    let game = format!("{base}/api/games/{id}");
    let white = seat(&created, "white");
    assert!(created["seats"]["black"].is_null(), "the computer has no seat: {created}");
    assert_eq!(created["to_move"], "white");
    assert_eq!(created["black"], "random");
    assert!(close(probability(&created, "b1"), 1.0));
    assert_eq!(created["squares"]["b1"]["piece"], "N");
    let listed = ok(http.get(format!("{base}/api/games")));
    assert!(listed["games"].as_array().expect("games").iter().any(|g| g["id"] == json!(id)), "{listed}");

    let legal = ok(http.get(format!("{game}/moves")));
    let moves = legal["moves"].as_array().expect("moves");
    let find = |text: &str| moves.iter().find(|m| m["move"] == text).cloned();
    assert_eq!(find("b1^a3c3").expect("a split")["kind"], "split");
    assert_eq!(find("b1c3").expect("a jump")["type"], "JUMP");
    assert_eq!(find("e2e4").expect("a two-step")["type"], "PAWN_TWO_STEP");
    assert_eq!(moves.len(), 20 + 2, "20 classical moves and one split per knight");

    let split = ok(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "b1^a3c3"})));
    assert!(close(probability(&split, "a3"), 0.5) && close(probability(&split, "c3"), 0.5));
    assert!(close(probability(&split, "b1"), 0.0));
    assert_eq!(split["last_move"]["move"], "b1^a3c3");
    assert_eq!(split["last_move"]["outcome"], Value::Null);
    let links = split["links"].as_array().expect("links");
    assert_eq!(links.len(), 1, "{links:?}");
    assert!(close(links[0]["negativity"].as_f64().expect("value"), 1.0), "a split makes a maximally entangled pair");

    let analysis = ok(http.get(format!("{game}/squares/a3")));
    assert!(close(analysis["entanglement"]["c3"].as_f64().expect("c3"), 1.0));
    assert!(close(analysis["bell"]["c3"]["Psi+"].as_f64().expect("Psi+"), 1.0));
    let occupied = &analysis["preview"]["occupied"];
    assert!(close(occupied["probability"].as_f64().expect("p"), 0.5));
    assert!(close(occupied["probabilities"]["a3"].as_f64().expect("a3"), 1.0));
    assert!(close(occupied["probabilities"]["c3"].as_f64().expect("c3"), 0.0));
    assert!(close(analysis["preview"]["empty"]["probabilities"]["c3"].as_f64().expect("c3"), 1.0));
    let classical = ok(http.get(format!("{game}/squares/e2")));
    assert_eq!(classical["preview"]["empty"], Value::Null, "e2 is certainly full");

    // Black is the computer.
    let replied = ok(http.post(format!("{game}/computer")).bearer_auth(&white).json(&json!({})));
    assert_eq!(replied["to_move"], "white");
    assert_eq!(replied["moves"].as_array().expect("moves").len(), 2);
    let merged = ok(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "a3c3^b5"})));
    let b5 = probability(&merged, "b5");
    assert!(close(b5, 1.0) || merged["last_move"]["move"] != "a3c3^b5", "the halves interfere: {b5}");
    assert!(merged["links"].as_array().expect("links").is_empty());

    let undone = ok(http.post(format!("{game}/undo")).bearer_auth(&white).json(&json!({"plies": 2})));
    assert_eq!(undone["moves"].as_array().expect("moves").len(), 1);
    assert!(close(probability(&undone, "a3"), 0.5));

    let record = ok(http.get(format!("{game}/record")))["record"].as_str().expect("text").to_owned();
    assert!(record.contains("[Variant \"official\"]") && record.contains("1. b1^a3c3 *"), "{record}");
    let qasm2 = ok(http.get(format!("{game}/circuit?format=qasm2")));
    assert!(qasm2["qasm"].as_str().expect("text").starts_with("OPENQASM 2.0;"), "{qasm2}");
    assert!(qasm2["sidecar"]["squares"]["a3"].is_number(), "{qasm2}");
    let qasm3 = ok(http.get(format!("{game}/circuit?format=qasm3")));
    assert!(qasm3["qasm"].as_str().expect("text").starts_with("OPENQASM 3"), "{qasm3}");

    // The record loads back into a new game at the same position.
    let loaded = ok(http.post(format!("{base}/api/games")).json(&json!({"record": record})));
    assert!(close(probability(&loaded, "c3"), 0.5));
    assert_eq!(loaded["seed"], 7);

    let deleted = ok(http.delete(&game).bearer_auth(&white));
    assert_eq!(deleted["deleted"], true);
    rejected(http.get(&game), StatusCode::NOT_FOUND, "no game");
    rejected(http.delete(&game).bearer_auth(&white), StatusCode::NOT_FOUND, "no game");

    let openapi: Value = ok(http.get(format!("{base}/openapi.json")));
    assert!(openapi["openapi"].as_str().expect("version").starts_with("3."));
    for path in [
        "/api/options",
        "/api/games",
        "/api/games/{id}",
        "/api/games/{id}/moves",
        "/api/games/{id}/computer",
        "/api/games/{id}/undo",
        "/api/games/{id}/cancel",
        "/api/games/{id}/squares/{square}",
        "/api/games/{id}/record",
        "/api/games/{id}/circuit",
        "/api/games/{id}/events",
        "/api/games/{id}/seats/claim",
        "/api/games/{id}/resign",
        "/api/games/{id}/draw",
        "/api/games/{id}/takeback",
        "/api/games/{id}/flag",
    ] {
        assert!(openapi["paths"][path].is_object(), "openapi.json documents {path}");
    }
}

#[test]
fn a_capture_with_a_forced_outcome_is_recorded() {
    let base = start(|_| {});
    let http = client();
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"seed": 1})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    for (mv, side) in [("b1^a3c3", "white"), ("d7d5", "black"), ("c3xd5.m1", "white")] {
        ok(http.post(format!("{game}/moves")).bearer_auth(seat(&created, side)).json(&json!({"move": mv})));
    }
    let state = ok(http.get(&game));
    let last = &state["last_move"];
    assert_eq!(last["move"], "c3xd5.m1");
    assert_eq!(last["outcome"], 1);
    assert!(close(last["outcome_probability"].as_f64().expect("p"), 0.5));
    assert!(close(probability(&state, "d5"), 1.0) && close(probability(&state, "a3"), 0.0));
    let lost = state["captured"]["black"].as_array().expect("black's losses");
    assert_eq!(lost, &vec![json!({"piece": "p", "amount": 1.0})]);
}

#[test]
fn bad_input_is_a_clear_4xx_and_leaves_the_game_intact() {
    let base = start(|_| {});
    let http = client();
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"seed": 3})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let (white, black) = (seat(&created, "white"), seat(&created, "black"));
    let before = ok(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "g1^f3h3"})));
    let bad = StatusCode::BAD_REQUEST;
    let post = |path: &str| http.post(format!("{game}/{path}")).bearer_auth(&black);
    rejected(post("moves").json(&json!({"move": "e2e5"})), bad, "e2e5");
    rejected(post("moves").json(&json!({"move": "f3f4"})), bad, "Black's turn");
    rejected(post("moves").json(&json!({"move": "zz"})), bad, "zz");
    rejected(post("moves").body("{\"move\": "), bad, "not valid JSON");
    rejected(post("moves").json(&json!({"mv": "e7e5"})), bad, "unknown field `mv`");
    rejected(post("moves").json(&json!({"move": 5})), bad, "bad move");
    rejected(post("undo").json(&json!({"plies": 5})), bad, "1 have been played");
    rejected(post("computer").json(&json!({})), bad, "played by a human");
    rejected(post("computer").json(&json!({"player": "deep"})), bad, "not a player");
    rejected(post("computer").json(&json!({"player": "uqci:sh"})), bad, "external engines");
    rejected(http.get(format!("{game}/squares/i9")), bad, "not a square");
    rejected(http.get(format!("{game}/circuit?format=qasm4")), bad, "qasm4");
    rejected(http.get(format!("{base}/api/games/nope")), StatusCode::NOT_FOUND, "no game `nope`");
    rejected(
        http.post(format!("{base}/api/games/nope/moves")).json(&json!({"move": "e2e4"})),
        StatusCode::NOT_FOUND,
        "nope",
    );
    let new_game = format!("{base}/api/games");
    rejected(http.post(&new_game).json(&json!({"rules": "atomic"})), bad, "choose one of official");
    rejected(http.post(&new_game).json(&json!({"backend": "remote"})), bad, "no remote provider");
    rejected(http.post(&new_game).json(&json!({"fen": "8/8/8 w"})), bad, "fen");
    rejected(http.post(&new_game).json(&json!({"record": "1. e2e5 *"})), bad, "record: move 1: e2e5: a pawn moves");
    rejected(http.post(&new_game).json(&json!({"colour": "red"})), bad, "unknown field `colour`");
    let after = ok(http.get(&game));
    assert_eq!(after["squares"], before["squares"]);
    assert_eq!(after["moves"], before["moves"]);
    ok(post("moves").json(&json!({"move": "e7e5"})));
}

#[test]
fn the_key_limits_and_idle_timeout_apply() {
    let base = start(|config| {
        config.api_key = Some(ServerKey::new("sesame").expect("key"));
        config.games.max_games = 2;
        config.limits.max_body_bytes = 1024;
        config.games.idle_timeout = Duration::from_secs(1);
    });
    let http = client();
    rejected(http.post(format!("{base}/api/games")).json(&json!({})), StatusCode::UNAUTHORIZED, "apiKey");
    let keyed = |request: RequestBuilder| request.header("Authorization", "apiKey sesame");
    let first = ok(keyed(http.post(format!("{base}/api/games")).json(&json!({}))));
    ok(keyed(http.post(format!("{base}/api/games")).json(&json!({}))));
    rejected(
        keyed(http.post(format!("{base}/api/games")).json(&json!({}))),
        StatusCode::TOO_MANY_REQUESTS,
        "2 games are open",
    );
    let long_record = format!("[Event \"{}\"]\n\n*", "x".repeat(2000));
    rejected(
        keyed(http.post(format!("{base}/api/games")).json(&json!({"record": long_record}))),
        StatusCode::PAYLOAD_TOO_LARGE,
        "--max-body-bytes",
    );
    // The page and what it loads need no key.
    for (path, kind) in [
        ("/", "text/html"),
        ("/assets/board.js", "text/javascript"),
        ("/assets/play.js", "text/javascript"),
        ("/assets/seats.js", "text/javascript"),
        ("/assets/board.css", "text/css"),
        ("/favicon.svg", "image/svg+xml"),
        ("/favicon.ico", "image/svg+xml"),
        ("/openapi.json", "application/json"),
    ] {
        let response = http.get(format!("{base}{path}")).send().expect("an asset");
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let content_type = response.headers()["content-type"].to_str().expect("ASCII").to_owned();
        assert!(content_type.starts_with(kind), "{path}: {content_type}");
        assert!(!response.text().expect("text").is_empty(), "{path}");
    }
    std::thread::sleep(Duration::from_millis(1500));
    // Unused past the idle time, the games are unloaded and archived, never deleted: a new game
    // has room, and the old one opens again.
    ok(keyed(http.post(format!("{base}/api/games")).json(&json!({}))));
    let id = first["id"].as_str().expect("id");
    let listed = ok(keyed(http.get(format!("{base}/api/games?archived=true"))));
    let archived = listed["games"].as_array().expect("games").iter().find(|g| g["id"] == json!(id)).cloned();
    assert_eq!(archived.expect("listed")["archived"], true, "{listed}");
    let reopened = ok(keyed(http.get(format!("{base}/api/games/{id}"))));
    assert_eq!(reopened["id"], json!(id));
}

#[test]
fn a_hundred_games_play_to_the_end_at_once() {
    // One address plays them all: no rate limits here.
    let base = start(common::unlimited_rates);
    // Few pieces and a fifty-move counter at 80, so that random games end soon: a king
    // captured, or the counter reaching 100 and every square measured.
    let fen = "r3k3/8/8/8/8/8/8/4K2R w - - 80 1";
    let games: u64 = std::env::var("QCHESS_TEST_GAMES").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
    let players: Vec<_> = (0..games)
        .map(|seed| {
            let base = base.clone();
            std::thread::spawn(move || {
                let http = client();
                let created = ok(http
                    .post(format!("{base}/api/games"))
                    .json(&json!({"seed": seed, "fen": fen, "white": "random", "black": "random"})));
                let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
                let mut plies = 0;
                loop {
                    // A bad request between moves changes nothing.
                    rejected(
                        http.post(format!("{game}/moves")).json(&json!({"move": "a1a1"})),
                        StatusCode::BAD_REQUEST,
                        "a1a1",
                    );
                    let state = ok(http.post(format!("{game}/computer")).json(&json!({})));
                    plies += 1;
                    assert_eq!(state["moves"].as_array().expect("moves").len(), plies, "no move lost");
                    if state["over"] == true {
                        return (seed, plies, state["result"].as_str().expect("result").to_owned());
                    }
                    assert!(plies < 1000, "game {seed} does not end");
                }
            })
        })
        .collect();
    let mut results = Vec::new();
    for player in players {
        results.push(player.join().expect("the game played to the end"));
    }
    eprintln!("plies per game: {:?}", results.iter().map(|r| r.1).collect::<Vec<_>>());
    assert_eq!(results.len() as u64, games);
    assert!(results.iter().all(|(_, _, result)| result != "*"));
    let http = client();
    let listed = ok(http.get(format!("{base}/api/games?limit=1000")))["games"].as_array().expect("games").len();
    assert_eq!(listed as u64, games, "every finished game is still there");
}

/// A server whose games may also run on the provider API of the server at `provider`.
fn start_with_remote(provider: String) -> String {
    start(move |config| {
        let provider = qchess_remote::ProviderConfig::new(&format!("{provider}/v0.4"))
            .expect("provider URL")
            .with_overall_timeout(Duration::from_secs(3));
        config.games.remote = Some(qchess_games::RemoteGameBackend {
            label: "served (simulator, ideal)".to_owned(),
            config: qchess_remote::RemoteBoardConfig::new(provider),
        });
        // Every move is answered when it ends, however long the provider takes to fail.
        config.games.answer_wait = Duration::from_secs(60);
    })
}

#[test]
fn a_game_runs_on_the_configured_remote_provider() {
    let provider = start(|_| {});
    let base = start_with_remote(provider);
    let http = client();
    let options = ok(http.get(format!("{base}/api/options")));
    assert_eq!(options["backends"][1]["id"], "remote", "{options}");
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"backend": "remote", "seed": 2})));
    assert_eq!(created["backend"], "served (simulator, ideal)");
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let split =
        ok(http.post(format!("{game}/moves")).bearer_auth(seat(&created, "white")).json(&json!({"move": "b1^a3c3"})));
    // The ideal simulator answers exact probabilities.
    assert!((probability(&split, "a3") - 0.5).abs() < 1e-9, "{split}");
    assert!(split["links_error"].as_str().expect("no density matrices remotely").contains("density"), "{split}");
    let analysis = ok(http.get(format!("{game}/squares/a3")));
    assert!((analysis["preview"]["occupied"]["probabilities"]["c3"].as_f64().expect("c3")).abs() < 1e-9);
    rejected(http.get(format!("{game}/circuit")), StatusCode::BAD_REQUEST, "local backend");
}

#[test]
fn a_failing_provider_is_a_502_and_the_game_stays() {
    // Nothing listens on the provider's port.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let provider = format!("http://{}", closed.local_addr().expect("address"));
    drop(closed);
    let base = start_with_remote(provider);
    let http = client();
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"backend": "remote"})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let (status, body) =
        send(http.post(format!("{game}/moves")).bearer_auth(seat(&created, "white")).json(&json!({"move": "b1^a3c3"})));
    assert_eq!(status, StatusCode::BAD_GATEWAY, "{body}");
    let state = ok(http.get(&game));
    assert!(state["moves"].as_array().expect("moves").is_empty());
    assert!(close(probability(&state, "b1"), 1.0));
}

#[test]
fn the_search_plays_a_classical_game_and_takes_the_king() {
    let base = start(|_| {});
    let http = client();
    // Classical rules: no quantum moves are offered.
    let classical = ok(http.post(format!("{base}/api/games")).json(&json!({"rules": "classical", "seed": 1})));
    assert_eq!(classical["rules"], "classical");
    let game = format!("{base}/api/games/{}", classical["id"].as_str().expect("id"));
    let legal = ok(http.get(format!("{game}/moves")));
    assert!(legal["moves"].as_array().expect("moves").iter().all(|m| m["kind"] == "standard"), "{legal}");
    rejected(
        http.post(format!("{game}/moves")).bearer_auth(seat(&classical, "white")).json(&json!({"move": "b1^a3c3"})),
        StatusCode::BAD_REQUEST,
        "b1^a3c3",
    );
    let record = ok(http.get(format!("{game}/record")))["record"].as_str().expect("text").to_owned();
    assert!(record.contains("[Rules \"classical\"]"), "{record}");

    // ai:2 finds the rook's capture of the king at once; greedy answers for a human side.
    let fen = "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1";
    let created =
        ok(http.post(format!("{base}/api/games")).json(&json!({"fen": fen, "white": "ai:2", "black": "human"})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    // The computer's move is asked for by the game's one person.
    let after = ok(http.post(format!("{game}/computer")).bearer_auth(seat(&created, "black")).json(&json!({})));
    assert_eq!(after["last_move"]["move"], "e1xe8", "{after}");
    assert_eq!(after["result"], "1-0");
    assert_eq!(after["reason"], "king captured");
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"fen": fen, "seed": 5})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let after = ok(http
        .post(format!("{game}/computer"))
        .bearer_auth(seat(&created, "white"))
        .json(&json!({"player": "greedy"})));
    assert_eq!(after["last_move"]["move"], "e1xe8", "greedy takes the most material: {after}");
}

#[test]
fn the_checkmate_quantum_mode_toggles_without_a_turn() {
    let base = start(|_| {});
    let http = client();
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"rules": "checkmate", "seed": 3})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let white = seat(&created, "white");
    let moves = || http.post(format!("{game}/moves")).bearer_auth(&white);
    assert_eq!(created["quantum_mode"], true);
    let off = ok(moves().json(&json!({"move": "mode:classical"})));
    assert_eq!((&off["quantum_mode"], &off["to_move"], &off["ply"]), (&false.into(), &"white".into(), &0.into()));
    rejected(moves().json(&json!({"move": "b1^a3c3"})), StatusCode::BAD_REQUEST, "quantum mode is off");
    rejected(moves().json(&json!({"move": "mode:maybe"})), StatusCode::BAD_REQUEST, "mode:maybe");
    ok(moves().json(&json!({"move": "mode:quantum"})));
    let split = ok(moves().json(&json!({"move": "b1^a3c3"})));
    assert!(close(probability(&split, "a3"), 0.5));
    let record = ok(http.get(format!("{game}/record")))["record"].as_str().expect("text").to_owned();
    assert!(record.contains("mode:classical mode:quantum 1. b1^a3c3"), "{record}");
}

#[test]
fn concurrent_creations_never_pass_the_game_limit() {
    let base = start(|config| config.games.max_games = 10);
    let answers: Vec<StatusCode> = (0..40)
        .map(|_| {
            let base = base.clone();
            std::thread::spawn(move || send(client().post(format!("{base}/api/games")).json(&json!({}))).0)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|thread| thread.join().expect("answers"))
        .collect();
    let created = answers.iter().filter(|s| **s == StatusCode::CREATED).count();
    let refused = answers.iter().filter(|s| **s == StatusCode::TOO_MANY_REQUESTS).count();
    assert_eq!((created, refused), (10, 30), "{answers:?}");
    let listed = ok(client().get(format!("{base}/api/games")))["games"].as_array().expect("games").len();
    assert_eq!(listed, 10);
}
