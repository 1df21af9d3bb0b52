//! The coach's endpoints against a real server on 127.0.0.1: the evaluation, the hint with its
//! line, and the review of a game with its blunder marked; bad limits answered 400 and games
//! that are over answered without a move; whoever may watch a casual game may ask the coach
//! about it (its seats and its spectators), no one else. Fair play: in a game between two
//! people that is not casual the coach answers nobody (403, with the reason) until it ends,
//! then everyone; a game against the computer keeps it.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::blocking::Client;
use serde_json::{Value, json};

mod common;

use common::{ok_json as ok, seat_token, send_json as send, start};

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(120)).build().expect("client")
}

/// A game between two people from `fen` after `moves` (each played with the seat to move's
/// token); its URL and the answer that created it (with the seats' tokens).
fn seated_game(http: &Client, base: &str, body: Value, moves: &[&str]) -> (String, Value) {
    let created = ok(http.post(format!("{base}/api/games")).json(&body));
    let game = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    for mv in moves {
        let state = ok(http.get(&game).bearer_auth(seat_token(&created, "white")));
        let token = seat_token(&created, state["to_move"].as_str().expect("a side to move"));
        ok(http.post(format!("{game}/moves")).bearer_auth(token).json(&json!({ "move": mv })));
    }
    (game, created)
}

/// A public casual game (the coach helps while it runs) between two people from `fen` after
/// `moves`; its URL.
fn game(http: &Client, base: &str, fen: &str, moves: &[&str]) -> String {
    let body = json!({ "fen": fen, "seed": 3, "white": "human", "black": "human", "casual": true });
    seated_game(http, base, body, moves).0
}

/// Each coach route, at the lowest limit.
const ROUTES: [&str; 3] = ["evaluation?depth=1", "hint?depth=1", "review?depth=1"];

#[test]
fn the_evaluation_and_the_hint_see_the_queen_to_take() {
    let base = start(|_| {});
    let http = client();
    // Black to move takes the undefended queen.
    let game = game(&http, &base, "3r4/8/8/8/8/8/k7/3Q3K b - - 0 1", &[]);
    let evaluation = ok(http.get(format!("{game}/evaluation?depth=2")));
    assert_eq!(evaluation["over"], false);
    assert_eq!(evaluation["to_move"], "black");
    assert_eq!(evaluation["best"], "d8xd1");
    assert!(evaluation["score"].as_f64().unwrap() > 400.0, "{evaluation}");
    assert!(evaluation["white_expected"].as_f64().unwrap() < 0.2, "{evaluation}");
    assert_eq!(evaluation["depth"], 2);
    let hint = ok(http.get(format!("{game}/hint?depth=2")));
    assert_eq!(hint["best"], "d8xd1");
    assert_eq!(hint["squares"], json!({ "from": ["d8"], "to": ["d1"] }));
    assert_eq!(hint["line"][0], "d8xd1");
    let moves = hint["moves"].as_array().expect("moves");
    assert!(!moves.is_empty() && moves.len() <= 5);
    let values: Vec<f64> = moves.iter().map(|m| m["value"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|pair| pair[0] >= pair[1]), "{values:?}");
    // A move time works too.
    let timed = ok(http.get(format!("{game}/evaluation?movetime=100")));
    assert_eq!(timed["best"], "d8xd1");
}

#[test]
fn the_review_marks_the_blunder_and_shows_the_board_before_it() {
    let base = start(|_| {});
    let http = client();
    let game = game(&http, &base, "3r4/8/8/8/8/8/k7/3QK3 w - - 0 1", &["e1f2", "d8xd1", "f2e3"]);
    let review = ok(http.get(format!("{game}/review?depth=2")));
    let moves = review["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 3, "{review}");
    assert_eq!(moves[0]["move"], "e1f2");
    assert_eq!(moves[0]["judgement"], "blunder");
    assert_eq!(moves[0]["best"], "d1xd8");
    assert_eq!(moves[0]["best_squares"], json!({ "from": ["d1"], "to": ["d8"] }));
    assert!(moves[0]["loss"].as_f64().unwrap() >= 0.3);
    assert_eq!(review["marked"][0], 1);
    // The marked move carries the board before it: the king still on e1, the queen on d1.
    let board = &moves[0]["board"];
    assert_eq!(board["e1"]["piece"], "K");
    assert_eq!(board["d1"]["piece"], "Q");
    assert_eq!(board["d1"]["probability"], 1.0);
    assert!(moves[1].get("board").is_none() || moves[1]["judgement"] != "best");
    assert_eq!(review["ply"], 3);
}

#[test]
fn bad_limits_are_refused_and_an_ended_game_has_no_move() {
    let base = start(|_| {});
    let http = client();
    let game = game(&http, &base, "3r4/8/8/8/8/8/k7/3Q3K b - - 0 1", &[]);
    for query in ["depth=0", "depth=9", "movetime=5", "movetime=20000", "depth=2&movetime=100", "depth=x", "color=red"]
    {
        let (status, body) = send(http.get(format!("{game}/evaluation?{query}")));
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert!(body["message"].as_str().is_some(), "{body}");
    }
    let (status, _) = send(http.get(format!("{base}/api/games/nosuchgame/hint")));
    assert_eq!(status, StatusCode::NOT_FOUND);
    // The rook takes the king: the game ends.
    let ended = self::game(&http, &base, "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", &["e1xe8"]);
    let evaluation = ok(http.get(format!("{ended}/evaluation?depth=1")));
    assert_eq!(evaluation["over"], true);
    assert_eq!(evaluation["result"], "1-0");
    assert!(evaluation.get("best").is_none());
    let review = ok(http.get(format!("{ended}/review?depth=1")));
    assert_eq!(review["moves"][0]["judgement"], "best");
}

#[test]
fn whoever_may_watch_a_game_may_ask_the_coach_and_no_one_else() {
    let base = start(|_| {});
    let http = client();
    let body = json!({ "fen": "3r4/8/8/8/8/8/k7/3QK3 w - - 0 1", "seed": 3, "white": "human", "black": "human",
        "public": false, "casual": true });
    let (game, created) = seated_game(&http, &base, body, &["e1f2"]);
    let (other, other_created) = seated_game(
        &http,
        &base,
        json!({ "fen": "3r4/8/8/8/8/8/k7/3QK3 w - - 0 1", "white": "human", "black": "human", "public": false,
            "casual": true }),
        &[],
    );
    assert_eq!(created["casual"], true, "both seats see the setting: {created}");
    for path in ROUTES {
        // The players and the spectators of the game, while it is being played.
        for seat in ["white", "black", "spectator"] {
            let answer = ok(http.get(format!("{game}/{path}")).bearer_auth(seat_token(&created, seat)));
            assert_eq!(answer["ply"], 1, "{seat}: {path}: {answer}");
        }
        // Without a token, and with another game's.
        let (status, body) = send(http.get(format!("{game}/{path}")));
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}: {body}");
        let (status, body) = send(http.get(format!("{game}/{path}")).bearer_auth(seat_token(&other_created, "white")));
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
        assert!(!body.to_string().contains(&seat_token(&other_created, "white")), "{body}");
    }
    // The coach changed nothing: the game is where it was, and the other game too.
    let state = ok(http.get(&game).bearer_auth(seat_token(&created, "spectator")));
    assert_eq!(state["moves"].as_array().map(Vec::len), Some(1), "{state}");
    let state = ok(http.get(&other).bearer_auth(seat_token(&other_created, "spectator")));
    assert_eq!(state["moves"].as_array().map(Vec::len), Some(0), "{state}");
}

#[test]
fn fair_play_closes_the_coach_to_everyone_until_a_game_between_two_people_ends_then_reviews_it() {
    let base = start(|_| {});
    let http = client();
    let (game, created) = seated_game(
        &http,
        &base,
        json!({ "fen": "3r4/8/8/8/8/8/k7/3QK3 w - - 0 1", "white": "human", "black": "human" }),
        &["e1f2", "d8xd1"],
    );
    let tokens: Vec<Option<String>> =
        ["white", "black", "spectator"].iter().map(|seat| Some(seat_token(&created, seat))).chain([None]).collect();
    let ask = |path: &str, token: &Option<String>| {
        let request = http.get(format!("{game}/{path}"));
        send(match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        })
    };
    // Both seats see the setting and that the coach is closed, before and during the game.
    assert_eq!((&created["casual"], created["coach_closed"].is_string()), (&json!(false), true), "{created}");
    for path in ROUTES {
        for token in &tokens {
            let (status, body) = ask(path, token);
            assert_eq!(status, StatusCode::FORBIDDEN, "{path}, {}: {body}", token.is_some());
            let message = body["message"].as_str().expect("a message");
            assert!(message.contains("fair play") && message.contains("when the game ends"), "{message}");
        }
    }
    let state = ok(http.get(&game).bearer_auth(seat_token(&created, "black")));
    assert!(state["coach_closed"].as_str().is_some_and(|r| r.contains("fair play")), "{state}");
    // Over: the coach answers everyone, the players, the spectators and anyone else.
    ok(http.post(format!("{game}/resign")).bearer_auth(seat_token(&created, "white")).json(&json!({})));
    for path in ROUTES {
        for token in &tokens {
            let (status, body) = ask(path, token);
            assert_eq!(status, StatusCode::OK, "{path}, {}: {body}", token.is_some());
        }
    }
    let state = ok(http.get(&game));
    assert_eq!(state["coach_closed"], Value::Null, "{state}");
    // The resigned game has no evaluation, and its review covers every move.
    let evaluation = ok(http.get(format!("{game}/evaluation?depth=1")));
    assert_eq!(evaluation["over"], true, "{evaluation}");
    assert_eq!(evaluation["result"], "0-1", "{evaluation}");
    let hint = ok(http.get(format!("{game}/hint?depth=1")));
    assert!(hint.get("best").is_none(), "{hint}");
    let review = ok(http.get(format!("{game}/review?depth=2")));
    assert_eq!(review["moves"].as_array().map(Vec::len), Some(2), "{review}");
    assert_eq!(review["moves"][0]["judgement"], "blunder", "{review}");
    // A game against the computer keeps the coach while it runs.
    let against = ok(http.post(format!("{base}/api/games")).json(&json!({ "white": "human", "black": "random" })));
    let against = format!("{base}/api/games/{}", against["id"].as_str().expect("id"));
    for path in ROUTES {
        ok(http.get(format!("{against}/{path}")));
    }
}
