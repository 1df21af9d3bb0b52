//! Several `qchess serve` instances on one PostgreSQL store (the test script's throwaway
//! cluster, `QCHESS_TEST_POSTGRES_URL`): 100 games played through alternating instances, each
//! move seen by the other at once; moves sent at once to one game through both are serialised
//! (one wins, the other gets 409 with the current state); an instance killed while its moves
//! wait has them taken over and finished by the other.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::Served;

fn http() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder().timeout(Duration::from_secs(30)).build().expect("a client")
}

/// The PostgreSQL URL, when the test script started a cluster (required when it says so).
fn postgres() -> Option<String> {
    match std::env::var("QCHESS_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            let required = std::env::var("QCHESS_TEST_POSTGRES").is_ok_and(|v| v == "required");
            assert!(!required, "QCHESS_TEST_POSTGRES=required but QCHESS_TEST_POSTGRES_URL is not set");
            eprintln!("note: QCHESS_TEST_POSTGRES_URL is not set; tests/store/with-postgres.sh runs this test");
            None
        }
    }
}

fn instance(db: &str, provider: &str) -> Served {
    Served::game_server("127.0.0.1:0", db, provider, "500", "50")
}

fn send(request: reqwest::blocking::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().expect("an answer");
    let status = response.status();
    (status, response.json().expect("JSON"))
}

/// Waits until game `id` has no waiting move (asking `base`); returns its state.
fn settled(client: &reqwest::blocking::Client, base: &str, id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (status, state) = send(client.get(format!("{base}/api/games/{id}")));
        assert_eq!(status, StatusCode::OK, "{state}");
        if state["waiting"] == false {
            return state;
        }
        assert!(Instant::now() < deadline, "game {id} still waits: {state}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn moves(state: &Value) -> Vec<String> {
    state["moves"].as_array().expect("moves").iter().map(|m| m["move"].as_str().expect("a move").to_owned()).collect()
}

#[test]
fn instances_on_one_postgres_share_games_serialise_conflicts_and_take_over() {
    let Some(db) = postgres() else { return };
    let provider = Served::start(&["--queue-delay-ms", "150", "--db", ":memory:", "--workers", "4"]);
    let a = instance(&db, &provider.url);
    let b = instance(&db, &provider.url);
    let servers = [a.url.clone(), b.url.clone()];
    let fen = "r3k2r/pppp4/8/8/8/8/PPPP4/R3K2R w - - 0 1";
    // 100 games through alternating instances, 10 at a time.
    let players: Vec<_> = (0..10)
        .map(|thread| {
            let servers = servers.clone();
            std::thread::spawn(move || {
                let client = http();
                let mut ids = Vec::new();
                for game in 0..10 {
                    let index = thread * 10 + game;
                    let backend = if index % 4 == 0 { "remote" } else { "local" };
                    let body =
                        json!({"seed": index, "fen": fen, "white": "random", "black": "random", "backend": backend});
                    let (status, created) = send(client.post(format!("{}/api/games", servers[index % 2])).json(&body));
                    assert_eq!(status, StatusCode::CREATED, "{created}");
                    let id = created["id"].as_str().expect("id").to_owned();
                    for ply in 0..6 {
                        let (here, there) = (&servers[(index + ply) % 2], &servers[(index + ply + 1) % 2]);
                        let (status, state) =
                            send(client.post(format!("{here}/api/games/{id}/computer")).json(&json!({})));
                        assert!(status == StatusCode::OK || status == StatusCode::ACCEPTED, "{status}: {state}");
                        let done = settled(&client, there, &id);
                        if status == StatusCode::OK {
                            assert_eq!(moves(&done), moves(&state), "the other instance sees the move at once");
                        }
                        assert_eq!(done["ply"], ply + 1, "{done}");
                        if done["over"] == true {
                            break;
                        }
                    }
                    ids.push(id);
                }
                ids
            })
        })
        .collect();
    let ids: Vec<String> = players.into_iter().flat_map(|p| p.join().expect("a player")).collect();
    assert_eq!(ids.len(), 100);
    let client = http();
    // Conflicting moves at once through both instances, on local and remote games.
    for id in ids.iter().take(20) {
        let state = settled(&client, &servers[0], id);
        if state["over"] == true {
            continue;
        }
        let legal: Value =
            client.get(format!("{}/api/games/{id}/moves", servers[1])).send().expect("moves").json().expect("JSON");
        let legal: Vec<String> = legal["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m["move"].as_str().expect("move").to_owned())
            .collect();
        let ply = state["ply"].as_u64().expect("ply");
        let sent: Vec<_> =
            [(servers[0].clone(), legal[0].clone()), (servers[1].clone(), legal[legal.len() - 1].clone())]
                .into_iter()
                .map(|(server, mv)| {
                    let id = id.clone();
                    std::thread::spawn(move || {
                        send(
                            http()
                                .post(format!("{server}/api/games/{id}/moves"))
                                .json(&json!({"move": mv, "ply": ply})),
                        )
                    })
                })
                .collect();
        let answers: Vec<(StatusCode, Value)> = sent.into_iter().map(|t| t.join().expect("an answer")).collect();
        let won = answers.iter().filter(|(s, _)| *s == StatusCode::OK || *s == StatusCode::ACCEPTED).count();
        let lost: Vec<_> = answers.iter().filter(|(s, _)| *s == StatusCode::CONFLICT).collect();
        assert_eq!((won, lost.len()), (1, 1), "game {id}: {answers:?}");
        assert!(lost[0].1["state"]["id"] == json!(id), "409 carries the state: {:?}", lost[0]);
        let after = settled(&client, &servers[1], id);
        assert_eq!(after["ply"].as_u64(), Some(ply + 1), "exactly one of the two moves: {after}");
    }
    // Moves left waiting on A when it dies are finished by B.
    let remote: Vec<&String> =
        ids.iter().step_by(4).filter(|id| settled(&client, &servers[1], id)["over"] == false).take(10).collect();
    let before: Vec<u64> =
        remote.iter().map(|id| settled(&client, &servers[1], id)["ply"].as_u64().expect("ply")).collect();
    let mut waiting = 0;
    for id in &remote {
        let (status, state) = send(client.post(format!("{}/api/games/{id}/computer", servers[0])).json(&json!({})));
        assert!(status == StatusCode::OK || status == StatusCode::ACCEPTED, "{state}");
        waiting += usize::from(status == StatusCode::ACCEPTED);
    }
    let mut a = a;
    a.child.kill().expect("A killed");
    a.child.wait().expect("A reaped");
    for (id, ply) in remote.iter().zip(&before) {
        let state = settled(&client, &servers[1], id);
        assert_eq!(state["ply"].as_u64(), Some(ply + 1), "B finished A's waiting move: {state}");
    }
    assert!(waiting > 0, "moves were waiting on A when it was killed");
    let jobs: Value =
        client.get(format!("{}/v0.4/jobs?limit=1000", provider.url)).send().expect("jobs").json().expect("JSON");
    let names: Vec<&str> =
        jobs["jobs"].as_array().expect("jobs").iter().map(|j| j["name"].as_str().expect("name")).collect();
    let distinct: HashSet<&&str> = names.iter().collect();
    assert_eq!(distinct.len(), names.len(), "no job submitted twice");
    eprintln!(
        "100 games through two instances, 20 conflicts serialised, {waiting} moves waiting on a killed instance finished by the other; {} jobs",
        names.len()
    );
}
