//! Fischer clocks kept by a real server on 127.0.0.1 (its store a SQLite file): with no client
//! connected, the server decides each flag fall within 100 ms of its deadline (as the game's
//! state and, independently, the store's event time say); the record keeps `[%clk]`; a claim
//! before the deadline is refused; a move after it is refused and ends the game on time.

use std::time::{Duration, Instant};

use qchess_store::{Location, Store};
use reqwest::StatusCode;
use reqwest::blocking::Client;
use serde_json::{Value, json};

mod common;

use common::{ok_json as ok, seat_token, send_json, start};

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(30)).build().expect("client")
}

/// Milliseconds since 1970.
fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("after 1970").as_millis() as i64
}

#[test]
fn the_server_decides_flag_falls_within_100_ms_with_no_client_online() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = Location::Sqlite(dir.path().join("games.db"));
    let store_location = db.clone();
    let base = start(move |config| config.games.db = db);
    let http = client();
    // Five games whose Black clocks run out 3 s after White's first move, a quarter second
    // apart: the referee decides each at its own deadline.
    let mut games = Vec::new();
    for index in 0..5 {
        let created = ok(http.post(format!("{base}/api/games")).json(&json!({"seed": index, "clock": "0.05+2"})));
        let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
        assert_eq!(created["clock"]["running"], Value::Null, "no clock runs before the first move");
        let white = seat_token(&created, "white");
        let moved = ok(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "e2e4"})));
        let clock = &moved["clock"];
        assert_eq!(clock["running"], "black", "{moved}");
        assert_eq!(clock["white_ms"], 5000, "the first move is not timed, and gets its increment");
        let deadline = clock["deadline"].as_i64().expect("a deadline");
        assert_eq!(deadline, clock["since"].as_i64().expect("since") + 3000);
        games.push((created["id"].as_str().expect("id").to_owned(), game, deadline, created));
        std::thread::sleep(Duration::from_millis(250));
    }
    // Before its deadline, a claim on time is refused, saying the time left.
    let (_, first, _, created) = &games[4];
    let (status, body) = send_json(http.post(format!("{first}/flag")).bearer_auth(seat_token(created, "white")));
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().expect("message").contains("still has"), "{body}");
    // Nobody is connected until every deadline has passed.
    let last = games.iter().map(|g| g.2).max().expect("games");
    std::thread::sleep(Duration::from_millis(u64::try_from(last - now_ms()).unwrap_or(0) + 400));
    let store = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let store_handle = store.block_on(Store::open(&store_location)).expect("the store");
    let mut lateness = Vec::new();
    for (id, game, deadline, _) in &games {
        let state = ok(http.get(game));
        assert_eq!((&state["result"], &state["reason"]), (&json!("1-0"), &json!("time")), "{state}");
        let decided = state["clock"]["since"].as_i64().expect("when it was decided");
        assert_eq!((state["clock"]["black_ms"].clone(), state["clock"]["deadline"].clone()), (json!(0), Value::Null));
        let stored = store.block_on(store_handle.game(id)).expect("the stored game");
        let event = stored.events.last().expect("an event");
        assert_eq!(event.input, "time:black");
        let late = (decided - deadline, event.played_at - deadline);
        assert!((0..=100).contains(&late.0) && (0..=100).contains(&late.1), "game {id}: decided {late:?} ms late");
        lateness.push(late.1);
        let record = ok(http.get(format!("{game}/record")))["record"].as_str().expect("text").to_owned();
        assert!(record.contains("1. e2e4 { [%clk 0:00:05] } 1-0"), "{record}");
        assert!(record.contains("[TimeControl \"3+2\"]") && record.contains("black lost on time"), "{record}");
    }
    eprintln!("flag falls decided {lateness:?} ms after their deadlines");
}

#[test]
fn a_move_after_the_deadline_is_refused_and_clocks_charge_each_move() {
    let base = start(|_| {});
    let http = client();
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"seed": 1, "clock": "0.5+1"})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let (white, black) = (seat_token(&created, "white"), seat_token(&created, "black"));
    // Black's clock starts when the server takes White's move: after `started`.
    let started = Instant::now();
    ok(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "e2e4"})));
    std::thread::sleep(Duration::from_millis(300));
    let replied = ok(http.post(format!("{game}/moves")).bearer_auth(&black).json(&json!({"move": "e7e5"})));
    let used = started.elapsed().as_millis() as i64;
    let black_ms = replied["clock"]["black_ms"].as_i64().expect("time left");
    // 30 s, less the time the move took as the server measured it (at least the 300 ms slept,
    // at most what the client saw), plus the 1 s increment.
    assert!((31_000 - used..=31_000 - 300).contains(&black_ms), "{black_ms} after {used} ms");
    assert_eq!(replied["clock"]["running"], "white");
    // Past the deadline a move is refused: the game ended on time.
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"seed": 2, "clock": "0.05+0"})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    ok(http.post(format!("{game}/moves")).bearer_auth(seat_token(&created, "white")).json(&json!({"move": "e2e4"})));
    std::thread::sleep(Duration::from_millis(3100));
    let (status, body) = send_json(
        http.post(format!("{game}/moves")).bearer_auth(seat_token(&created, "black")).json(&json!({"move": "e7e5"})),
    );
    assert!(status == StatusCode::CONFLICT || status == StatusCode::BAD_REQUEST, "{status}: {body}");
    let state = ok(http.get(&game));
    assert_eq!((&state["result"], &state["reason"], &state["ply"]), (&json!("1-0"), &json!("time"), &json!(1)));
    // A remote game has no clocks.
    let (status, body) =
        send_json(http.post(format!("{base}/api/games")).json(&json!({"clock": "5+3", "backend": "remote"})));
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    for bad in ["5", "x+3", "0.001+0", "2000+0"] {
        let (status, body) = send_json(http.post(format!("{base}/api/games")).json(&json!({"clock": bad})));
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
        assert!(body["message"].as_str().expect("message").starts_with("clock: "), "{body}");
    }
}
