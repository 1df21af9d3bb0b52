//! `qchess serve` keeps its games through crashes: 50 games in progress (half of them waiting
//! on a slow provider) while the server is killed with SIGKILL at random moments 20 times and
//! restarted on the same store. Every move the server acknowledged is still there, no job is
//! submitted twice, and every waiting move completes after the last restart.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};

use crate::common::Served;

const GAMES: usize = 50;
const KILLS: usize = 20;

fn http() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder().timeout(Duration::from_secs(10)).build().expect("a client")
}

/// Starts the game server on `addr` with its store at `db`.
fn game_server(addr: &str, db: &std::path::Path, provider: &str) -> Served {
    Served::game_server(addr, db.to_str().expect("utf-8"), provider, "400", "30")
}

/// The moves of a game state.
fn moves(state: &Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .map_or_else(Vec::new, |moves| moves.iter().map(|m| m["move"].as_str().expect("a move").to_owned()).collect())
}

#[test]
fn serve_killed_twenty_times_loses_no_move_and_submits_no_job_twice() {
    let provider = Served::start(&["--queue-delay-ms", "250", "--db", ":memory:", "--workers", "4"]);
    let dir = tempfile::tempdir().expect("a directory");
    let db = dir.path().join("games.db");
    let mut server = game_server("127.0.0.1:0", &db, &provider.url);
    let base = server.url.clone();
    let addr = base.trim_start_matches("http://").to_owned();
    let client = http();
    // Few pieces and the fifty-move counter at 70, so games end within tens of plies.
    let fen = "r3k2r/pppp4/8/8/8/8/PPPP4/R3K2R w - - 70 1";
    let ids: Vec<String> = (0..GAMES)
        .map(|index| {
            let backend = if index % 2 == 0 { "remote" } else { "local" };
            let body = json!({"seed": index, "fen": fen, "white": "random", "black": "random", "backend": backend});
            let created: Value =
                client.post(format!("{base}/api/games")).json(&body).send().expect("created").json().expect("JSON");
            created["id"].as_str().unwrap_or_else(|| panic!("{created}")).to_owned()
        })
        .collect();
    // What the server acknowledged (a 200 with the state after the move), per game.
    let acknowledged: Arc<Mutex<BTreeMap<String, Vec<String>>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let drivers: Vec<_> = ids
        .chunks(GAMES / 5)
        .map(|chunk| {
            let (chunk, base, acknowledged, stop) =
                (chunk.to_vec(), base.clone(), Arc::clone(&acknowledged), Arc::clone(&stop));
            std::thread::spawn(move || {
                let client = http();
                while !stop.load(Ordering::SeqCst) {
                    for id in &chunk {
                        let Ok(response) =
                            client.post(format!("{base}/api/games/{id}/computer")).json(&json!({})).send()
                        else {
                            std::thread::sleep(Duration::from_millis(20));
                            continue;
                        };
                        // A state the server answers (after a move, or asked for) shows finished
                        // moves only: each must survive every crash.
                        let state = match response.status() {
                            reqwest::StatusCode::OK => response.json::<Value>().ok(),
                            _ => client.get(format!("{base}/api/games/{id}")).send().ok().and_then(|r| r.json().ok()),
                        };
                        if let Some(state) = state.filter(|s| s["moves"].is_array()) {
                            let mut acknowledged = acknowledged.lock().expect("the table");
                            let known = acknowledged.entry(id.clone()).or_default();
                            let now = moves(&state);
                            if now.len() > known.len() {
                                *known = now;
                            }
                        }
                    }
                }
            })
        })
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(28);
    let mut waiting_at_kills = 0;
    for _ in 0..KILLS {
        std::thread::sleep(Duration::from_millis(rng.random_range(150..900)));
        let listed: Option<Value> =
            client.get(format!("{base}/api/games?limit=100")).send().ok().and_then(|r| r.json().ok());
        waiting_at_kills += listed.map_or(0, |listed| {
            listed["games"].as_array().map_or(0, |games| games.iter().filter(|g| g["waiting"] == true).count())
        });
        // SIGKILL: no shutdown, no flush, nothing.
        server.child.kill().expect("killed");
        server.child.wait().expect("reaped");
        server = game_server(&addr, &db, &provider.url);
    }
    stop.store(true, Ordering::SeqCst);
    for driver in drivers {
        driver.join().expect("a driver");
    }
    // Every waiting move completes after the last restart.
    let deadline = Instant::now() + Duration::from_secs(90);
    let finals: BTreeMap<String, Value> = loop {
        let states: BTreeMap<String, Value> = ids
            .iter()
            .map(|id| {
                (
                    id.clone(),
                    client.get(format!("{base}/api/games/{id}")).send().expect("a state").json().expect("JSON"),
                )
            })
            .collect();
        if states.values().all(|state| state["waiting"] == false) {
            break states;
        }
        let waiting = states.values().filter(|state| state["waiting"] == true).count();
        assert!(Instant::now() < deadline, "{waiting} moves still wait after the last restart");
        std::thread::sleep(Duration::from_millis(200));
    };
    // Every acknowledged move is there, as acknowledged.
    let acknowledged = acknowledged.lock().expect("the table");
    let mut plies = 0;
    for (id, state) in &finals {
        assert!(state["id"] == json!(id), "{state}");
        let stored = moves(state);
        plies += stored.len();
        if let Some(known) = acknowledged.get(id) {
            assert!(
                stored.len() >= known.len() && stored[..known.len()] == known[..],
                "game {id}: {known:?} vs {stored:?}"
            );
        }
    }
    let with_moves = acknowledged.values().filter(|known| !known.is_empty()).count();
    assert_eq!(with_moves, GAMES, "every game had moves acknowledged");
    // No job submitted twice: the provider's jobs have distinct names, each recorded in the store.
    let jobs: Value =
        client.get(format!("{}/v0.4/jobs?limit=1000", provider.url)).send().expect("jobs").json().expect("JSON");
    let names: Vec<String> =
        jobs["jobs"].as_array().expect("jobs").iter().map(|j| j["name"].as_str().expect("a name").to_owned()).collect();
    let distinct: HashSet<&String> = names.iter().collect();
    assert_eq!(distinct.len(), names.len(), "a job was submitted twice");
    let mut recorded = HashSet::new();
    for id in ids.iter().step_by(2) {
        let run = crate::common::command()
            .env("QCHESS_DB", &db)
            .args(["games", "--json", "show", id])
            .output()
            .expect("qchess games show");
        let shown: Value = serde_json::from_slice(&run.stdout).expect("JSON");
        for job in shown["jobs"].as_array().expect("jobs") {
            assert_eq!(job["state"], "completed", "game {id}: {job}");
            recorded.insert(job["name"].as_str().expect("a name").to_owned());
        }
    }
    for name in &names {
        assert!(recorded.contains(name), "the provider ran job {name}, which no game recorded");
    }
    assert!(waiting_at_kills > KILLS, "moves were waiting when the server was killed: {waiting_at_kills}");
    let over = finals.values().filter(|state| state["over"] == true).count();
    eprintln!(
        "{KILLS} kills ({waiting_at_kills} moves waiting just before them): {plies} plies in {GAMES} games ({over} finished), {} provider jobs, each submitted once",
        names.len()
    );
}
