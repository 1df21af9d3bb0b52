//! Games kept in the store, against real servers on 127.0.0.1 and a real database (a SQLite
//! file; PostgreSQL too when the test script started one): a move that waits for a slow
//! provider answers 202 and finishes in the background, a waiting move is canceled at the
//! provider, and two servers on one store serve the same games, with conflicting moves
//! serialised (one wins, the other gets 409 with the current state), and a game's event stream
//! on one server shows the moves and players of the other.

use std::time::{Duration, Instant};

use qchess_remote::config::PollPolicy;
use qchess_server::ServerConfig;
use qchess_store::Location;
use reqwest::StatusCode;
use reqwest::blocking::Client;
use serde_json::{Value, json};

mod common;

use common::{ok_json as ok, seat_token as seat, send_json as send, start};

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(60)).build().expect("client")
}

/// The stores to run on: a SQLite file, and PostgreSQL when given.
fn stores(dir: &std::path::Path) -> Vec<Location> {
    let mut stores = vec![Location::Sqlite(dir.join("games.db"))];
    match std::env::var("QCHESS_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => stores.push(Location::parse(&url).expect("a URL")),
        _ => assert!(
            std::env::var("QCHESS_TEST_POSTGRES").as_deref() != Ok("required"),
            "PostgreSQL is required but QCHESS_TEST_POSTGRES_URL is not set"
        ),
    }
    stores
}

/// A game server on `db` whose remote backend is the provider at `provider`.
fn game_server(db: Location, provider: Option<String>, answer_wait: Duration) -> String {
    start(move |config: &mut ServerConfig| {
        config.games.db = db;
        config.games.answer_wait = answer_wait;
        config.games.lease = Duration::from_millis(600);
        if let Some(provider) = provider {
            let provider = qchess_remote::ProviderConfig::new(&format!("{provider}/v0.4"))
                .expect("provider URL")
                .with_poll(PollPolicy { initial: Duration::from_millis(5), max: Duration::from_millis(50) });
            config.games.remote = Some(qchess_games::RemoteGameBackend {
                label: "slow stand-in".to_owned(),
                config: qchess_remote::RemoteBoardConfig::new(provider),
            });
        }
    })
}

/// A provider whose jobs wait `delay` in its queue.
fn slow_provider(delay: Duration) -> String {
    start(move |config| config.run.queue_delay = delay)
}

/// Polls game `url` until `done` holds.
fn wait_for(http: &Client, url: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let state = ok(http.get(url));
        if done(&state) {
            return state;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}: {state}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn probability(state: &Value, square: &str) -> f64 {
    state["squares"][square]["probability"].as_f64().expect("a probability")
}

/// Every job of the provider: (name, status).
fn provider_jobs(http: &Client, provider: &str) -> Vec<(String, String)> {
    let jobs = ok(http.get(format!("{provider}/v0.4/jobs?limit=1000")));
    jobs["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .map(|j| (j["name"].as_str().unwrap_or("").to_owned(), j["status"].as_str().expect("status").to_owned()))
        .collect()
}

#[test]
fn a_move_waits_for_a_slow_provider_and_finishes_in_the_background() {
    let dir = tempfile::tempdir().expect("a directory");
    let provider = slow_provider(Duration::from_millis(700));
    let base =
        game_server(Location::Sqlite(dir.path().join("games.db")), Some(provider.clone()), Duration::from_millis(50));
    let http = client();
    let created =
        ok(http.post(format!("{base}/api/games")).json(&json!({"backend": "remote", "seed": 3, "owner": "me"})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let white = seat(&created, "white");
    let (status, waiting) =
        send(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "b1^a3c3", "ply": 0})));
    assert_eq!(status, StatusCode::ACCEPTED, "{waiting}");
    assert_eq!((&waiting["waiting"], &waiting["pending"]["move"]), (&json!(true), &json!("b1^a3c3")), "{waiting}");
    assert!(waiting["moves"].as_array().expect("moves").is_empty(), "the move is not played yet");
    // While it waits, the job shows, and nothing else may change the game.
    let seen =
        wait_for(&http, &game, "the job id", |s| s["pending"]["job"]["job_id"].is_string() || s["waiting"] == false);
    if seen["waiting"] == true {
        assert_eq!(seen["pending"]["job"]["provider"], "slow stand-in", "{seen}");
        assert!(seen["pending"]["status"].as_str().expect("status").starts_with("waiting for job"), "{seen}");
        let (status, refused) =
            send(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "e7e6"})));
        assert_eq!(status, StatusCode::CONFLICT, "{refused}");
        assert!(refused["message"].as_str().expect("message").contains("has a move waiting"), "{refused}");
        assert_eq!(refused["state"]["waiting"], true, "409 carries the state: {refused}");
        let (status, _) = send(http.post(format!("{game}/undo")).bearer_auth(&white).json(&json!({})));
        assert_eq!(status, StatusCode::CONFLICT);
    }
    let done = wait_for(&http, &game, "the move to finish", |s| s["waiting"] == false);
    assert_eq!(done["moves"].as_array().expect("moves").len(), 1, "{done}");
    assert!((probability(&done, "a3") - 0.5).abs() < 1e-9, "the ideal simulator is exact: {done}");
    let listed = ok(http.get(format!("{base}/api/games?owner=me")));
    assert_eq!(listed["games"][0]["ply"], 1, "{listed}");
    // One job per circuit, each under its own name.
    let jobs = provider_jobs(&http, &provider);
    let mut names: Vec<&String> = jobs.iter().map(|(name, _)| name).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), jobs.len(), "no circuit submitted twice: {jobs:?}");
    assert!(jobs.iter().all(|(name, status)| name.starts_with("qchess-") && status == "completed"), "{jobs:?}");
}

#[test]
fn a_waiting_move_is_canceled_at_the_provider_and_taken_back() {
    let dir = tempfile::tempdir().expect("a directory");
    let provider = slow_provider(Duration::from_secs(20));
    let base =
        game_server(Location::Sqlite(dir.path().join("games.db")), Some(provider.clone()), Duration::from_millis(50));
    let http = client();
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"backend": "remote", "seed": 4})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let white = seat(&created, "white");
    let (status, _) = send(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "g1^f3h3"})));
    assert_eq!(status, StatusCode::ACCEPTED);
    let waiting = wait_for(&http, &game, "the job id", |s| s["pending"]["job"]["job_id"].is_string());
    let job_id = waiting["pending"]["job"]["job_id"].as_str().expect("a job").to_owned();
    let canceled = ok(http.post(format!("{game}/cancel")).bearer_auth(&white));
    assert_eq!(canceled["waiting"], false, "{canceled}");
    assert!(canceled["moves"].as_array().expect("moves").is_empty());
    let job = ok(http.get(format!("{provider}/v0.4/jobs/{job_id}")));
    assert_eq!(job["status"], "canceled", "the provider's job is canceled: {job}");
    let (status, body) = send(http.post(format!("{game}/cancel")).bearer_auth(&white));
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    // The game goes on once the canceled wait has stopped (within a poll).
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (status, body) =
            send(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "e2e4"})));
        if status.is_success() {
            break;
        }
        assert_eq!(status, StatusCode::CONFLICT, "{body}");
        assert!(Instant::now() < deadline, "the canceled move still holds the game: {body}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn two_servers_on_one_store_serve_the_same_games_and_serialise_conflicts() {
    let dir = tempfile::tempdir().expect("a directory");
    let provider = slow_provider(Duration::from_millis(200));
    for db in stores(dir.path()) {
        let a = game_server(db.clone(), Some(provider.clone()), Duration::from_secs(30));
        let b = game_server(db.clone(), Some(provider.clone()), Duration::from_secs(30));
        let http = client();
        for backend in ["local", "remote"] {
            let created = ok(http.post(format!("{a}/api/games")).json(&json!({"backend": backend, "seed": 5})));
            let id = created["id"].as_str().expect("id").to_owned();
            let (white, black) = (seat(&created, "white"), seat(&created, "black"));
            // Moves through alternating servers: each sees the other's at once.
            for (ply, (server, mv)) in
                [(&a, "b1^a3c3"), (&b, "e7e6"), (&a, "a3c3^b5"), (&b, "d7d5")].into_iter().enumerate()
            {
                let token = if ply % 2 == 0 { &white } else { &black };
                let state = ok(http
                    .post(format!("{server}/api/games/{id}/moves"))
                    .bearer_auth(token)
                    .json(&json!({"move": mv, "ply": ply})));
                assert_eq!(state["ply"], ply + 1, "{db} {backend}: {state}");
                let other = if server == &a { &b } else { &a };
                let seen = ok(http.get(format!("{other}/api/games/{id}")));
                assert_eq!(seen["moves"], state["moves"], "{db} {backend}: the other server sees the move");
            }
            // Two moves at once at the same ply through different servers: one wins.
            let sent: Vec<_> = [(a.clone(), "e2e4"), (b.clone(), "d2d4")]
                .into_iter()
                .map(|(server, mv)| {
                    let (id, white) = (id.clone(), white.clone());
                    std::thread::spawn(move || {
                        send(
                            client()
                                .post(format!("{server}/api/games/{id}/moves"))
                                .bearer_auth(white)
                                .json(&json!({"move": mv, "ply": 4})),
                        )
                    })
                })
                .collect();
            let answers: Vec<(StatusCode, Value)> = sent.into_iter().map(|t| t.join().expect("answers")).collect();
            let won: Vec<_> = answers.iter().filter(|(status, _)| status.is_success()).collect();
            let lost: Vec<_> = answers.iter().filter(|(status, _)| *status == StatusCode::CONFLICT).collect();
            assert_eq!((won.len(), lost.len()), (1, 1), "{db} {backend}: {answers:?}");
            let winner = won[0].1["last_move"]["move"].clone();
            let loser_sees = &lost[0].1["state"];
            let final_state = wait_for(&http, &format!("{a}/api/games/{id}"), "the winner", |s| s["waiting"] == false);
            assert_eq!(final_state["ply"], 5, "{db} {backend}: {final_state}");
            assert_eq!(final_state["last_move"]["move"], winner, "{db} {backend}");
            assert!(loser_sees.is_object(), "{db} {backend}: 409 with the state: {:?}", lost[0]);
        }
    }
}

#[test]
fn a_stream_on_one_server_shows_moves_and_players_of_another() {
    let dir = tempfile::tempdir().expect("a directory");
    for db in stores(dir.path()) {
        let a = game_server(db.clone(), None, Duration::from_secs(5));
        let b = game_server(db.clone(), None, Duration::from_secs(5));
        let http = client();
        let created = ok(http.post(format!("{a}/api/games")).json(&json!({"seed": 9})));
        let id = created["id"].as_str().expect("id").to_owned();
        let (white, black) = (seat(&created, "white"), seat(&created, "black"));
        // Carol watches through A; White's board is open on B.
        let mut watched =
            common::Events::open(&http, &format!("{a}/api/games/{id}"), Some(&seat(&created, "spectator")), None);
        let _white_board = common::Events::open(&http, &format!("{b}/api/games/{id}"), Some(&white), None);
        let started = Instant::now();
        loop {
            let event = watched.next().expect("an event");
            if event.name == "presence" && serde_json::from_str::<Value>(&event.data).expect("JSON")["white"] == true {
                break;
            }
        }
        let presence_after = started.elapsed();
        let mut worst = Duration::ZERO;
        for (ply, mv) in ["e2e4", "e7e5", "g1f3", "b8c6"].into_iter().enumerate() {
            let token = if ply % 2 == 0 { &white } else { &black };
            let sent = Instant::now();
            ok(http.post(format!("{b}/api/games/{id}/moves")).bearer_auth(token).json(&json!({"move": mv})));
            let state: Value = loop {
                let event = watched.next().expect("an event");
                if event.name == "state" {
                    let state: Value = serde_json::from_str(&event.data).expect("JSON");
                    if state["ply"] == json!(ply + 1) {
                        break state;
                    }
                }
            };
            worst = worst.max(sent.elapsed());
            assert_eq!(state["last_move"]["move"], mv, "{db}");
        }
        assert!(worst < Duration::from_secs(1), "{db}: a move took {worst:?} to reach the other server's stream");
        eprintln!("{db}: White online on the other server after {presence_after:?}; moves there within {worst:?}");
    }
}
