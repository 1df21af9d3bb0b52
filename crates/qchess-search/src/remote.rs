//! A quantum board behind the official quantum board REST API (`qchess serve` provides it),
//! for the UQCI option `resturl`.
//!
//! Moves go to `POST /quantumboard/do_move` with the official integer codes; the server draws
//! measurement outcomes itself (the API has no field to force one), so a forced outcome is not
//! honoured. The answers give exact probabilities; whole-board distributions and samples are
//! not part of the API. Plain `http://` only, one short-lived connection per request.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use qchess_core::{Bitboard, BoardError, MoveReport, QuantumBoard, SquareProbabilities, TypedMove};
use serde_json::{Value, json};

/// How long one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// A board on a quantum board REST server.
#[derive(Debug)]
pub struct RestBoard {
    host: String,
    base_path: String,
    probabilities: SquareProbabilities,
}

/// The server said something the board cannot use, or could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum RestError {
    /// The URL is not `http://HOST[:PORT][/PATH]`.
    #[error("`{}` is not an http://HOST[:PORT] URL", qchess_core::text::excerpt(.0))]
    Url(String),
    /// The connection failed.
    #[error("{url}")]
    Io {
        /// The request's URL.
        url: String,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// The server answered an error status or a body that is not the API's.
    #[error("{url}: {message}")]
    Answer {
        /// The request's URL.
        url: String,
        /// What was wrong.
        message: String,
    },
}

impl RestBoard {
    /// A board at `url` (for example `http://127.0.0.1:8080`); nothing is sent until `init`.
    pub fn new(url: &str) -> Result<RestBoard, RestError> {
        let rest = url.strip_prefix("http://").ok_or_else(|| RestError::Url(url.to_owned()))?;
        let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
        if host.is_empty() {
            return Err(RestError::Url(url.to_owned()));
        }
        let base_path = format!("/{}", path.trim_end_matches('/')).trim_end_matches('/').to_owned();
        Ok(RestBoard {
            host: host.to_owned(),
            base_path,
            probabilities: SquareProbabilities::classical(Bitboard::EMPTY),
        })
    }

    fn post(&mut self, route: &str, body: &Value) -> Result<Value, RestError> {
        let path = format!("{}/quantumboard/{route}", self.base_path);
        let url = format!("http://{}{path}", self.host);
        let io = |source| RestError::Io { url: url.clone(), source };
        let mut stream = TcpStream::connect(&self.host).map_err(io)?;
        stream.set_read_timeout(Some(REQUEST_TIMEOUT)).map_err(io)?;
        stream.set_write_timeout(Some(REQUEST_TIMEOUT)).map_err(io)?;
        let body = body.to_string();
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.host,
            body.len()
        );
        stream.write_all(request.as_bytes()).map_err(io)?;
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).map_err(io)?;
        let text = String::from_utf8_lossy(&answer);
        let bad = |message: String| RestError::Answer { url: url.clone(), message };
        let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| bad("the answer has no body".into()))?;
        let status = head.split_whitespace().nth(1).unwrap_or("");
        if status != "200" {
            return Err(bad(format!("HTTP {status}: {}", body.trim())));
        }
        let value: Value = serde_json::from_str(body.trim()).map_err(|e| bad(format!("the body is not JSON: {e}")))?;
        self.probabilities =
            read_probabilities(&value).ok_or_else(|| bad("the body has no 64 probabilities".into()))?;
        Ok(value)
    }
}

fn read_probabilities(value: &Value) -> Option<SquareProbabilities> {
    let list = value.get("probabilities")?.as_array()?;
    if list.len() != 64 {
        return None;
    }
    let mut probabilities = [0.0; 64];
    for (slot, p) in probabilities.iter_mut().zip(list) {
        *slot = p.as_f64().filter(|p| (0.0..=1.0 + 1e-9).contains(p))?.min(1.0);
    }
    Some(SquareProbabilities::exact(probabilities))
}

fn backend(error: RestError) -> BoardError {
    BoardError::Backend(Box::new(error))
}

impl QuantumBoard for RestBoard {
    fn init(&mut self, occupancy: Bitboard) -> Result<(), BoardError> {
        self.post("init", &json!({ "init_basis_state": occupancy.0 })).map_err(backend)?;
        Ok(())
    }

    fn apply(&mut self, mv: &TypedMove) -> Result<MoveReport, BoardError> {
        let (first, second, third) = mv.squares.api_squares();
        let body = json!({
            "square1": first.index(),
            "square2": second.index(),
            "square3": third.map(|s| s.index()),
            "type": mv.move_type.code(),
            "variant": mv.variant.code(),
        });
        let answer = self.post("do_move", &body).map_err(backend)?;
        let proceeded = answer.get("result").and_then(Value::as_bool).unwrap_or(true);
        Ok(MoveReport { proceeded, outcome: None, outcome_probability: None })
    }

    fn undo(&mut self) -> Result<(), BoardError> {
        let answer = self.post("undo_last_move", &json!({})).map_err(backend)?;
        match answer.get("result").and_then(Value::as_bool) {
            Some(false) => Err(BoardError::NothingToUndo),
            _ => Ok(()),
        }
    }

    fn square_probabilities(&mut self) -> Result<SquareProbabilities, BoardError> {
        Ok(self.probabilities.clone())
    }

    fn distribution(&mut self) -> Result<Vec<(Bitboard, f64)>, BoardError> {
        Err(BoardError::Unsupported { what: "whole-board distributions over the quantum board REST API".into() })
    }

    fn sample(&mut self, _shots: usize) -> Result<Vec<Bitboard>, BoardError> {
        Err(BoardError::Unsupported { what: "samples over the quantum board REST API".into() })
    }

    fn state_size(&self) -> usize {
        // The API does not say; the superposed squares bound the state from below.
        1usize << self.probabilities.superposed().count().min(20)
    }

    fn is_exact(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_must_be_plain_http() {
        assert!(RestBoard::new("https://example.com").is_err());
        assert!(RestBoard::new("http://").is_err());
        let board = RestBoard::new("http://127.0.0.1:8080/base/").unwrap();
        assert_eq!((board.host.as_str(), board.base_path.as_str()), ("127.0.0.1:8080", "/base"));
        let board = RestBoard::new("http://127.0.0.1:8080").unwrap();
        assert_eq!(board.base_path, "");
    }
}
