//! An external UQCI engine as a player: started with `sh -c COMMAND`, spoken to over pipes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use qchess_engine::Game;

/// How long the engine may take to answer `uci` or `isready`.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long past the move time a `bestmove` may take.
const MOVE_GRACE: Duration = Duration::from_secs(5);

/// Why the external engine could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The command could not be started.
    #[error("could not start `{command}`")]
    Start {
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Writing to the engine failed (it exited).
    #[error("engine `{command}`: writing `{line}` failed")]
    Write {
        /// The command.
        command: String,
        /// The line.
        line: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The engine did not answer in time.
    #[error("engine `{command}` did not answer `{waiting_for}` within {seconds:.1} s")]
    Timeout {
        /// The command.
        command: String,
        /// The reply waited for.
        waiting_for: String,
        /// How long it was given.
        seconds: f64,
    },
    /// The engine closed its output.
    #[error("engine `{command}` exited while we waited for `{waiting_for}`")]
    Closed {
        /// The command.
        command: String,
        /// The reply waited for.
        waiting_for: String,
    },
    /// The engine answered `bestmove` without a move.
    #[error("engine `{command}` gave no move: `{line}`")]
    NoMove {
        /// The command.
        command: String,
        /// Its answer.
        line: String,
    },
}

/// A running external engine.
#[derive(Debug)]
pub struct EngineClient {
    command: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl EngineClient {
    /// Starts `command` and does the `uci` / `isready` handshake.
    pub fn start(command: &str) -> Result<EngineClient, ClientError> {
        let start_error = |source| ClientError::Start { command: command.to_owned(), source };
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(start_error)?;
        let stdin = child.stdin.take().ok_or_else(|| start_error(std::io::Error::other("no stdin pipe")))?;
        let stdout = child.stdout.take().ok_or_else(|| start_error(std::io::Error::other("no stdout pipe")))?;
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut client = EngineClient { command: command.to_owned(), child, stdin, lines };
        client.send("uci")?;
        client.wait_for("uciok", HANDSHAKE_TIMEOUT)?;
        client.ready()?;
        Ok(client)
    }

    fn send(&mut self, line: &str) -> Result<(), ClientError> {
        writeln!(self.stdin, "{line}").and_then(|()| self.stdin.flush()).map_err(|source| ClientError::Write {
            command: self.command.clone(),
            line: line.to_owned(),
            source,
        })
    }

    /// Reads lines until one starts with `prefix`; returns it.
    fn wait_for(&mut self, prefix: &str, timeout: Duration) -> Result<String, ClientError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.trim_start().starts_with(prefix) => return Ok(line),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    return Err(ClientError::Timeout {
                        command: self.command.clone(),
                        waiting_for: prefix.to_owned(),
                        seconds: timeout.as_secs_f64(),
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(ClientError::Closed { command: self.command.clone(), waiting_for: prefix.to_owned() });
                }
            }
        }
    }

    fn ready(&mut self) -> Result<(), ClientError> {
        self.send("isready")?;
        self.wait_for("readyok", HANDSHAKE_TIMEOUT).map(|_| ())
    }

    /// `ucinewgame`, then waits until the engine is ready.
    pub fn new_game(&mut self) -> Result<(), ClientError> {
        self.send("ucinewgame")?;
        self.ready()
    }

    /// The engine's move in `game` (official notation), given `movetime` to think.
    pub fn best_move(&mut self, game: &Game, movetime: Duration) -> Result<String, ClientError> {
        self.send(&position_command(game))?;
        self.send(&format!("go movetime {}", movetime.as_millis().max(1)))?;
        let line = self.wait_for("bestmove", movetime + MOVE_GRACE)?;
        match line.split_whitespace().nth(1) {
            Some(mv) if mv != "0000" && mv != "(none)" => Ok(mv.to_owned()),
            _ => Err(ClientError::NoMove { command: self.command.clone(), line }),
        }
    }
}

/// The `position` command of a game: its start and every move with its outcome.
pub fn position_command(game: &Game) -> String {
    let start = if *game.start_fen() == qchess_core::Fen::start() {
        "startpos".to_owned()
    } else {
        format!("fen {}", game.start_fen())
    };
    // As declared: an observer-rules pair as the pair, not the half it played.
    let moves: Vec<String> = game.moves().iter().map(|m| m.declared.to_string()).collect();
    if moves.is_empty() { format!("position {start}") } else { format!("position {start} moves {}", moves.join(" ")) }
}

impl Drop for EngineClient {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // Give it a moment to exit by itself, then make sure.
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use qchess_engine::{GameOptions, RuleSet};

    #[test]
    fn the_position_command_writes_pairs_as_pairs() {
        let options = GameOptions { rules: RuleSet::Observer, ..GameOptions::with_seed(1) };
        let mut game = Game::new(&qchess_core::Fen::start(), options).unwrap();
        for mv in ["b1^a3c3", "e7e6", "a3b5|c3d5.m0"] {
            game.play(mv).unwrap();
        }
        assert_eq!(position_command(&game), "position startpos moves b1^a3c3 e7e6 a3b5|c3d5.m0");
    }
}
