//! Live updates from a real server on 127.0.0.1: a game's event stream, which the server
//! closes every second, followed through a whole game by reconnecting with `Last-Event-ID`:
//! no move missed, none sent twice, and the last event is the game as it is; a resumed
//! stream sends nothing until the game changes; presence; a deleted game's stream ends.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::blocking::Client;
use serde_json::{Value, json};

mod common;

use common::{Events, ok_json as ok, seat_token, send_json, start};

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(30)).build().expect("client")
}

fn moves(state: &Value) -> Vec<String> {
    state["moves"].as_array().expect("moves").iter().map(|m| m["move"].as_str().expect("move").to_owned()).collect()
}

#[test]
fn a_stream_the_server_keeps_closing_misses_no_move_and_repeats_none() {
    let base = start(|config| {
        config.games.events_lifetime = Duration::from_secs(1);
        common::unlimited_rates(config);
    });
    let http = client();
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"seed": 8})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let tokens = [seat_token(&created, "white"), seat_token(&created, "black")];
    // The spectator follows the game from a thread, reconnecting whenever the server closes.
    let final_revision = Arc::new(AtomicI64::new(i64::MAX));
    let seen: Arc<Mutex<Vec<(i64, Value)>>> = Arc::default();
    let watcher = {
        let (game, spectator) = (game.clone(), seat_token(&created, "spectator"));
        let (final_revision, seen) = (Arc::clone(&final_revision), Arc::clone(&seen));
        std::thread::spawn(move || {
            let http = client();
            let mut last = None;
            let mut connections = 0;
            let deadline = Instant::now() + Duration::from_secs(120);
            while Instant::now() < deadline {
                connections += 1;
                let mut events = Events::open(&http, &game, Some(&spectator), last);
                while let Some(event) = events.next() {
                    if event.name != "state" {
                        continue;
                    }
                    let id = event.id.expect("a state event has an id");
                    let state: Value = serde_json::from_str(&event.data).expect("JSON");
                    assert_eq!(state["revision"], id, "the id is the state's revision");
                    last = Some(id);
                    seen.lock().expect("the list").push((id, state));
                }
                if last.is_some_and(|last| last >= final_revision.load(Ordering::SeqCst)) {
                    return connections;
                }
            }
            panic!("the stream never reached the game's last revision");
        })
    };
    // The players play 40 plies (or to the end), a little apart, through the computer's random
    // choices made for each side with its own seat.
    let mut played = 0;
    for ply in 0..40 {
        let state =
            ok(http.post(format!("{game}/computer")).bearer_auth(&tokens[ply % 2]).json(&json!({"player": "random"})));
        played += 1;
        if state["over"] == true {
            break;
        }
        std::thread::sleep(Duration::from_millis(70));
    }
    let last = ok(http.get(&game));
    final_revision.store(last["revision"].as_i64().expect("revision"), Ordering::SeqCst);
    let connections = watcher.join().expect("the watcher followed the game");
    let seen = seen.lock().expect("the list").clone();
    assert!(connections >= 3, "the server closed the stream mid-game: {connections} connections");
    let ids: Vec<i64> = seen.iter().map(|(id, _)| *id).collect();
    assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "no event twice, none out of order: {ids:?}");
    for pair in seen.windows(2) {
        let (before, after) = (moves(&pair[0].1), moves(&pair[1].1));
        assert!(
            after.len() >= before.len() && after[..before.len()] == before[..],
            "a move went missing: {before:?} then {after:?}"
        );
    }
    let (_, shown) = seen.last().expect("events");
    assert_eq!(moves(shown), moves(&last), "the last event is the game as it is");
    assert_eq!(moves(&last).len(), played);
    assert_eq!(shown["squares"], last["squares"]);
    eprintln!("{played} plies followed through {connections} connections, {} state events", seen.len());
}

#[test]
fn a_resumed_stream_waits_for_the_next_change_and_a_deleted_game_ends_it() {
    let base = start(|_| {});
    let http = client();
    let created = ok(http.post(format!("{base}/api/games")).json(&json!({"seed": 2, "black": "random"})));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    let white = seat_token(&created, "white");
    let revision = created["revision"].as_i64().expect("revision");
    // Resumed at the current revision: presence first (White's board is this one), no state.
    let mut events = Events::open(&http, &game, Some(&white), Some(revision));
    let presence = events.next().expect("presence");
    assert_eq!((presence.name.as_str(), presence.id), ("presence", None));
    assert_eq!(serde_json::from_str::<Value>(&presence.data).expect("JSON"), json!({"white": true, "black": false}));
    let watched = ok(http.get(&game));
    assert_eq!(watched["players"]["white"]["online"], true, "{watched}");
    ok(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "e2e4"})));
    let next = events.next().expect("the move");
    assert_eq!((next.name.as_str(), next.id), ("state", Some(revision + 1)));
    assert_eq!(moves(&serde_json::from_str(&next.data).expect("JSON")), ["e2e4"]);
    // A bad Last-Event-ID is a 400; a game deleted ends its streams.
    let (status, body) = send_json(http.get(format!("{game}/events")).header("last-event-id", "yesterday"));
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    ok(http.delete(&game).bearer_auth(&white));
    let mut ended = None;
    while let Some(event) = events.next() {
        ended = Some(event);
    }
    assert_eq!(ended.expect("an event").name, "gone");
    let (status, _) = send_json(http.get(format!("{game}/events")));
    assert_eq!(status, StatusCode::NOT_FOUND);
}
