//! Seats against a real server on 127.0.0.1 with its store in a SQLite file: a token of another
//! game, a claimed (stale) link, a truncated or extended token, a spectator's, the wrong seat's,
//! none, and 1000 random ones are all refused on every kind of change, and nothing changes;
//! no answer echoes a token and the store keeps none; private games; offers, takebacks,
//! resignations; rate limits; cross-origin requests.

use std::time::Duration;

use qchess_store::Location;
use rand::{RngExt, SeedableRng};
use reqwest::StatusCode;
use reqwest::blocking::{Client, RequestBuilder};
use serde_json::{Value, json};

mod common;

use common::{ok_json as ok, seat_token, send_json, start};

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(30)).build().expect("client")
}

/// A new game with `body` on `base`, and its URL.
fn new_game(http: &Client, base: &str, body: Value) -> (Value, String) {
    let created = ok(http.post(format!("{base}/api/games")).json(&body));
    let url = format!("{base}/api/games/{}", created["id"].as_str().expect("id"));
    (created, url)
}

/// What a game looks like, for "nothing changed": its moves, revision, result and offers.
fn fingerprint(http: &Client, game: &str, token: &str) -> Value {
    let state = ok(http.get(game).bearer_auth(token));
    json!([state["moves"], state["revision"], state["result"], state["offers"], state["clock"]])
}

/// Every kind of change, each sent with `token` (or none) as Bearer or in X-Qchess-Seat.
fn changes(http: &Client, game: &str, token: Option<&str>, header: bool) -> Vec<(String, RequestBuilder)> {
    let requests = [
        ("moves", json!({"move": "e2e4"})),
        ("computer", json!({"player": "random"})),
        ("undo", json!({})),
        ("takeback", json!({"action": "accept"})),
        ("draw", json!({"action": "offer"})),
        ("resign", json!({})),
        ("flag", json!({})),
        ("cancel", json!({})),
    ];
    let mut all: Vec<(String, RequestBuilder)> = requests
        .into_iter()
        .map(|(path, body)| (path.to_owned(), http.post(format!("{game}/{path}")).json(&body)))
        .collect();
    all.push(("delete".to_owned(), http.delete(game)));
    all.into_iter()
        .map(|(what, request)| {
            let request = match (token, header) {
                (None, _) => request,
                (Some(token), false) => request.bearer_auth(token),
                (Some(token), true) => request.header("x-qchess-seat", token),
            };
            (what, request)
        })
        .collect()
}

/// Asserts every change with `token` is refused with `status`, and no answer shows the token.
fn all_refused(http: &Client, game: &str, token: Option<&str>, status: StatusCode, what: &str) {
    for header in [false, true] {
        for (path, request) in changes(http, game, token, header) {
            let (got, body) = send_json(request);
            assert_eq!(got, status, "{what}: {path}: {body}");
            assert_eq!(body["statusCode"], status.as_u16(), "{what}: {path}: {body}");
            if let Some(token) = token.filter(|t| t.len() > 8) {
                assert!(!body.to_string().contains(token), "{what}: {path}: the answer echoes the token: {body}");
            }
        }
    }
}

#[test]
fn only_the_seat_to_move_changes_a_game_and_nothing_else_does() {
    let dir = tempfile::tempdir().expect("a directory");
    let db = dir.path().join("games.db");
    let store = Location::Sqlite(db.clone());
    let base = start(move |config| config.games.db = store);
    let http = client();
    let (a, game_a) = new_game(&http, &base, json!({"seed": 1, "clock": "10+5"}));
    let (b, game_b) = new_game(&http, &base, json!({"seed": 1}));
    let white = seat_token(&a, "white");
    let link = seat_token(&a, "black");
    let spectator = seat_token(&a, "spectator");
    assert_eq!((a["seated"].clone(), a["you"].clone()), (json!(true), Value::Null));
    assert!(a["seats"]["white"]["url"].as_str().expect("a link").ends_with(&format!("#seat={white}")));
    assert!(a["spectator"]["url"].as_str().expect("a link").contains("#watch="));
    // Opening the black link claims the seat: a new token, and the link's stops working.
    let claimed = ok(http.post(format!("{game_a}/seats/claim")).bearer_auth(&link));
    assert_eq!(claimed["seat"], "black");
    let black = claimed["token"].as_str().expect("a new token").to_owned();
    assert_ne!(black, link);
    let (status, body) = send_json(http.post(format!("{game_a}/seats/claim")).bearer_auth(&link));
    assert_eq!(status, StatusCode::FORBIDDEN, "a claimed link is spent: {body}");
    let (status, body) = send_json(http.post(format!("{game_a}/seats/claim")).bearer_auth(&spectator));
    assert_eq!(status, StatusCode::BAD_REQUEST, "spectator links are not claimed: {body}");

    let before = (fingerprint(&http, &game_a, &white), fingerprint(&http, &game_b, &seat_token(&b, "white")));
    let forbidden = StatusCode::FORBIDDEN;
    all_refused(&http, &game_a, None, StatusCode::UNAUTHORIZED, "no token");
    all_refused(&http, &game_a, Some(&seat_token(&b, "white")), forbidden, "game B's white token");
    all_refused(&http, &game_a, Some(&seat_token(&b, "spectator")), forbidden, "game B's spectator token");
    all_refused(&http, &game_a, Some(&spectator), forbidden, "the spectator's token");
    all_refused(&http, &game_a, Some(&link), forbidden, "the claimed link's token");
    all_refused(&http, &game_a, Some(&white[..white.len() - 1]), forbidden, "a truncated token");
    all_refused(&http, &game_a, Some(&white[..20]), forbidden, "a token cut short");
    all_refused(&http, &game_a, Some(&format!("{white}0")), forbidden, "an extended token");
    all_refused(&http, &game_a, Some(&white.to_uppercase()), forbidden, "an upper-cased token");
    all_refused(&http, &game_a, Some("qcs_"), forbidden, "the prefix alone");
    // The wrong seat: black may not move, ask the computer, resign... for white.
    let (status, body) =
        send_json(http.post(format!("{game_a}/moves")).bearer_auth(&black).json(&json!({"move": "e2e4"})));
    assert_eq!(status, forbidden, "{body}");
    let (status, body) =
        send_json(http.post(format!("{game_a}/computer")).bearer_auth(&black).json(&json!({"player": "random"})));
    assert_eq!(status, forbidden, "{body}");
    let (status, body) =
        send_json(http.post(format!("{game_a}/resign")).bearer_auth(&black).json(&json!({"side": "white"})));
    assert_eq!(status, forbidden, "{body}");
    // A seat enters moves only: no event that would end the game for the other side.
    for event in ["resign:black", "time:black", "draw:agreed"] {
        let (status, body) =
            send_json(http.post(format!("{game_a}/moves")).bearer_auth(&white).json(&json!({"move": event})));
        assert_eq!(status, StatusCode::BAD_REQUEST, "{event}: {body}");
    }
    // 1000 random tokens of the right shape.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(29);
    for _ in 0..1000 {
        let guess: String = (0..64).map(|_| char::from_digit(rng.random_range(0..16), 16).expect("a digit")).collect();
        let (status, body) = send_json(
            http.post(format!("{game_a}/moves")).bearer_auth(format!("qcs_{guess}")).json(&json!({"move": "e2e4"})),
        );
        assert_eq!(status, forbidden, "{body}");
    }
    let after = (fingerprint(&http, &game_a, &white), fingerprint(&http, &game_b, &seat_token(&b, "white")));
    assert_eq!(before, after, "nothing changed");

    // The right seats play.
    let moved = ok(http.post(format!("{game_a}/moves")).bearer_auth(&white).json(&json!({"move": "e2e4"})));
    assert_eq!((moved["ply"].clone(), moved["you"].clone()), (json!(1), json!("white")));
    let replied =
        ok(http.post(format!("{game_a}/moves")).header("x-qchess-seat", &black).json(&json!({"move": "e7e5"})));
    assert_eq!(replied["ply"], 2);

    // No token is kept in the store: only hashes.
    let mut stored = std::fs::read(&db).expect("the store");
    stored.extend(std::fs::read(dir.path().join("games.db-wal")).unwrap_or_default());
    let contains = |token: &str| stored.windows(token.len()).any(|window| window == token.as_bytes());
    for token in [&white, &black, &link, &spectator] {
        assert!(!contains(token), "the store holds a token");
        assert!(!contains(&token[4..]), "the store holds a token's digits");
    }
    assert!(contains("game_seats"), "the store is where the test looks");
    let record = ok(http.get(format!("{game_a}/record")))["record"].as_str().expect("text").to_owned();
    assert!(!record.contains("qcs_"), "{record}");
}

#[test]
fn private_games_are_watched_only_with_their_tokens() {
    let base = start(|_| {});
    let http = client();
    let (created, game) =
        new_game(&http, &base, json!({"public": false, "white": "human", "black": "random", "owner": "v1"}));
    assert!(created["seats"]["black"].is_null(), "the computer has no seat");
    let id = created["id"].as_str().expect("id");
    for path in ["", "/moves", "/record", "/squares/e2", "/events"] {
        let (status, body) = send_json(http.get(format!("{game}{path}")));
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}: {body}");
    }
    let watched = ok(http.get(&game).bearer_auth(seat_token(&created, "spectator")));
    assert_eq!((watched["you"].clone(), watched["public"].clone()), (json!("spectator"), json!(false)));
    let listed = ok(http.get(format!("{base}/api/games")));
    assert!(listed["games"].as_array().expect("games").iter().all(|g| g["id"] != json!(id)), "{listed}");
    let owned = ok(http.get(format!("{base}/api/games?owner=v1")));
    assert_eq!(owned["games"][0]["id"], json!(id), "its owner lists it");
    // The computer's move is asked for by the game's one person; a spectator may not.
    let white = seat_token(&created, "white");
    ok(http.post(format!("{game}/moves")).bearer_auth(&white).json(&json!({"move": "e2e4"})));
    let (status, _) = send_json(http.post(format!("{game}/computer")).bearer_auth(seat_token(&created, "spectator")));
    assert_eq!(status, StatusCode::FORBIDDEN);
    let replied = ok(http.post(format!("{game}/computer")).bearer_auth(&white).json(&json!({})));
    assert_eq!(replied["ply"], 2);
    // Against the computer, a takeback is done at once; the game's one person may delete it.
    let undone = ok(http.post(format!("{game}/undo")).bearer_auth(&white).json(&json!({"plies": 2})));
    assert_eq!(undone["ply"], 0);
    ok(http.delete(&game).bearer_auth(&white));
}

#[test]
fn offers_takebacks_and_resignations_need_the_opponent() {
    let base = start(|_| {});
    let http = client();
    let (created, game) = new_game(&http, &base, json!({"seed": 2}));
    let (white, black) = (seat_token(&created, "white"), seat_token(&created, "black"));
    let post =
        |token: &str, path: &str, body: Value| http.post(format!("{game}/{path}")).bearer_auth(token).json(&body);
    ok(post(&white, "moves", json!({"move": "e2e4"})));
    // White asks to take its move back; Black answers by moving, which ends the request.
    let (status, asked) = send_json(post(&white, "takeback", json!({})));
    assert_eq!(status, StatusCode::ACCEPTED, "{asked}");
    assert_eq!(
        asked["offers"],
        json!([{"kind": "takeback", "by": "white", "plies": 1, "ply": 1, "made_at": asked["offers"][0]["made_at"]}])
    );
    let (status, body) = send_json(post(&white, "takeback", json!({"action": "accept"})));
    assert_eq!(status, StatusCode::BAD_REQUEST, "one's own request is not answered by oneself: {body}");
    let moved = ok(post(&black, "moves", json!({"move": "e7e5"})));
    assert_eq!(moved["offers"], json!([]), "a move answers the request no");
    // Asked again (both moves back), and accepted.
    let (status, _) = send_json(post(&white, "undo", json!({"plies": 2})));
    assert_eq!(status, StatusCode::ACCEPTED);
    let taken = ok(post(&black, "takeback", json!({"action": "accept"})));
    assert_eq!((taken["ply"].clone(), taken["offers"].clone()), (json!(0), json!([])));
    // A draw offered on White's turn holds through Black's; accepted, the game is drawn.
    let offered = ok(post(&white, "draw", json!({})));
    assert_eq!(offered["offers"][0]["kind"], "draw");
    let (status, _) = send_json(post(&seat_token(&created, "spectator"), "draw", json!({"action": "accept"})));
    assert_eq!(status, StatusCode::FORBIDDEN);
    ok(post(&white, "moves", json!({"move": "d2d4"})));
    let drawn = ok(post(&black, "draw", json!({"action": "accept"})));
    assert_eq!((drawn["result"].clone(), drawn["reason"].clone()), (json!("1/2-1/2"), json!("draw agreed")));
    let record = ok(http.get(format!("{game}/record")))["record"].as_str().expect("text").to_owned();
    assert!(record.contains("[Termination \"draw agreed\"]") && record.contains("1/2-1/2"), "{record}");
    let (status, body) = send_json(post(&white, "undo", json!({})));
    assert_eq!(status, StatusCode::BAD_REQUEST, "a drawn game is not taken back: {body}");
    // A resignation ends a game; either player may resign, on either turn.
    let (created, game) = new_game(&http, &base, json!({"seed": 3}));
    let black = seat_token(&created, "black");
    let resigned = ok(http.post(format!("{game}/resign")).bearer_auth(&black).json(&json!({})));
    assert_eq!((resigned["result"].clone(), resigned["reason"].clone()), (json!("1-0"), json!("resignation")));
    // A declined draw offer is gone; a computer takes none.
    let (created, game) = new_game(&http, &base, json!({"seed": 4, "black": "random"}));
    let (status, body) = send_json(http.post(format!("{game}/draw")).bearer_auth(seat_token(&created, "white")));
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().expect("message").contains("computer"), "{body}");
}

#[test]
fn rate_limits_answer_429_with_retry_after() {
    let base = start(|config| {
        config.games.rates.seat = qchess_games::Rate { per_second: 0.5, burst: 3.0 };
        config.games.rates.creation = qchess_games::Rate { per_second: 0.01, burst: 4.0 };
    });
    let http = client();
    let (created, game) = new_game(&http, &base, json!({}));
    let white = seat_token(&created, "white");
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let response = http.post(format!("{game}/draw")).bearer_auth(&white).send().expect("answers");
        statuses.push((response.status(), response.headers().get("retry-after").is_some()));
    }
    assert_eq!(
        statuses,
        [
            (StatusCode::OK, false),
            (StatusCode::OK, false),
            (StatusCode::OK, false),
            (StatusCode::TOO_MANY_REQUESTS, true),
            (StatusCode::TOO_MANY_REQUESTS, true)
        ]
    );
    // Black's seat has its own allowance.
    ok(http
        .post(format!("{game}/draw"))
        .bearer_auth(seat_token(&created, "black"))
        .json(&json!({"action": "decline"})));
    let creations: Vec<StatusCode> = (0..4)
        .map(|_| http.post(format!("{base}/api/games")).json(&json!({})).send().expect("answers").status())
        .collect();
    assert_eq!(
        creations,
        [StatusCode::CREATED, StatusCode::CREATED, StatusCode::CREATED, StatusCode::TOO_MANY_REQUESTS]
    );
}

#[test]
fn other_sites_pages_are_refused_unless_allowed() {
    let closed = start(|_| {});
    let open = start(|config| config.cors_origins = vec!["https://friends.example".to_owned()]);
    let http = client();
    let host = closed.trim_start_matches("http://").to_owned();
    let (status, body) =
        send_json(http.post(format!("{closed}/api/games")).header("origin", "https://evil.example").json(&json!({})));
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let preflight = http
        .request(reqwest::Method::OPTIONS, format!("{closed}/api/games"))
        .header("origin", "https://evil.example")
        .header("access-control-request-method", "POST")
        .send()
        .expect("answers");
    assert_eq!(preflight.status(), StatusCode::FORBIDDEN);
    assert!(preflight.headers().get("access-control-allow-origin").is_none());
    // The board's own page sends its own origin.
    let (status, _) =
        send_json(http.post(format!("{closed}/api/games")).header("origin", format!("http://{host}")).json(&json!({})));
    assert_eq!(status, StatusCode::CREATED);
    let page = http.get(format!("{closed}/")).send().expect("the page");
    let policy = page.headers()["content-security-policy"].to_str().expect("ASCII").to_owned();
    assert!(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'"), "{policy}");
    assert_eq!(page.headers()["referrer-policy"], "no-referrer");
    // The API's description shows the shape of a token, never one.
    let openapi = http.get(format!("{closed}/openapi.json")).send().expect("the description").text().expect("text");
    let tokens = openapi
        .match_indices("qcs_")
        .filter(|(at, _)| openapi[at + 4..].chars().take_while(char::is_ascii_hexdigit).count() >= 8);
    assert_eq!(tokens.count(), 0, "a token in /openapi.json");
    let described: Value = serde_json::from_str(&openapi).expect("JSON");
    assert!(described["paths"]["/api/games/{id}/events"]["get"].is_object());
    assert!(described["components"]["securitySchemes"]["seat"].is_object());
    // An allowed origin gets its preflight and its answers.
    let preflight = http
        .request(reqwest::Method::OPTIONS, format!("{open}/api/games"))
        .header("origin", "https://friends.example")
        .header("access-control-request-method", "POST")
        .send()
        .expect("answers");
    assert_eq!(preflight.status(), StatusCode::NO_CONTENT);
    assert_eq!(preflight.headers()["access-control-allow-origin"], "https://friends.example");
    let allowed = http.post(format!("{open}/api/games")).header("origin", "https://friends.example").json(&json!({}));
    let response = allowed.send().expect("answers");
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(response.headers()["access-control-allow-origin"], "https://friends.example");
}
