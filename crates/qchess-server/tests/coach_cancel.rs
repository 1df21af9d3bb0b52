//! The coach's searches against a real server on 127.0.0.1: a review whose client goes away
//! stops, and its place among the searches the server runs at once is free again long before
//! the review would have ended.
//!
//! On its own in this file: it fills every place the process has, which would turn other coach
//! tests running beside it away with 429.

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::json;

mod common;

use common::{client, ok_json as ok, seat_token, start};

/// The places the server gives the coach: four per processor.
fn places() -> usize {
    4 * std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Sends `GET path` on a connection of its own and leaves the answer unread.
fn send_get(base: &str, path: &str) -> TcpStream {
    let address = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).expect("connects");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\n\r\n").expect("sends");
    stream
}

/// Whether an answer (or the end of the connection) has come on `stream`.
fn answered(stream: &TcpStream) -> bool {
    stream.set_nonblocking(true).expect("non-blocking");
    let mut byte = [0u8; 1];
    let waiting = matches!(stream.peek(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
    stream.set_nonblocking(false).expect("blocking");
    !waiting
}

#[test]
fn a_review_whose_client_goes_away_frees_its_place() {
    let base = start(|_| {});
    let http = client();
    let created =
        ok(http.post(format!("{base}/api/games")).json(&json!({ "white": "human", "black": "human", "casual": true })));
    let id = created["id"].as_str().expect("id").to_owned();
    let game = format!("{base}/api/games/{id}");
    for mv in ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"] {
        let state = ok(http.get(&game).bearer_auth(seat_token(&created, "white")));
        let token = seat_token(&created, state["to_move"].as_str().expect("a side to move"));
        ok(http.post(format!("{game}/moves")).bearer_auth(token).json(&json!({ "move": mv })));
    }
    // Six positions at ten seconds each: every review would hold its place for a minute.
    let review = || send_get(&base, &format!("/api/games/{id}/review?movetime=10000"));
    let mut reviews: Vec<TcpStream> = (0..places()).map(|_| review()).collect();
    let probe = || http.get(format!("{game}/evaluation?movetime=10")).send().expect("answers").status();
    let deadline = Instant::now() + Duration::from_secs(20);
    // A probe may take a place before the last review does, which is then turned away: that
    // review is sent again until the reviews hold every place.
    while probe() != StatusCode::TOO_MANY_REQUESTS {
        assert!(Instant::now() < deadline, "the reviews never filled the coach's places");
        for stream in &mut reviews {
            if answered(stream) {
                *stream = review();
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Still searching: no review has answered.
    assert!(!reviews.iter().any(answered), "a review answered within its first seconds");
    let gone = Instant::now();
    drop(reviews);
    loop {
        match probe() {
            StatusCode::OK => break,
            StatusCode::TOO_MANY_REQUESTS => {
                assert!(
                    gone.elapsed() < Duration::from_secs(15),
                    "the abandoned reviews still hold the coach's places"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
            other => panic!("the evaluation answered {other}"),
        }
    }
}
