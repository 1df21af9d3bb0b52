//! Running the `qchess` binary from tests.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Output, Stdio};

/// The result of one `qchess` run.
#[allow(dead_code)]
pub struct Run {
    /// Exit code (`None` if killed by a signal).
    pub code: Option<i32>,
    /// Everything written to stdout.
    pub stdout: String,
    /// Everything written to stderr.
    pub stderr: String,
}

#[allow(dead_code)]
impl Run {
    /// Parses stdout as JSON, failing the test with the output if it is not.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", self.stdout, self.stderr))
    }
}

/// The `qchess` binary, with its game store in the test's own directory (never the user's).
pub fn command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_qchess"));
    command.env("QCHESS_DB", concat!(env!("CARGO_TARGET_TMPDIR"), "/cli-games.db"));
    command
}

/// Runs `qchess` with `args` and collects its output.
pub fn qchess(args: &[&str]) -> Run {
    let output: Output = command().args(args).output().expect("the qchess binary runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `command` with `input` on its stdin: its exit code, and its stdout followed by its stderr.
#[allow(dead_code)]
pub fn run_with_input(mut command: Command, input: &str) -> (Option<i32>, String) {
    let mut child =
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("qchess runs");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("writes the input");
    drop(stdin);
    let output = child.wait_with_output().expect("qchess finishes");
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.code(), text)
}

/// Runs `qchess COMMAND --json ARGS...`, requires exit code 0, and parses stdout.
#[allow(dead_code)]
pub fn qchess_json(command: &str, args: &[&str]) -> serde_json::Value {
    let run = qchess(&[&[command, "--json"], args].concat());
    assert_eq!(run.code, Some(0), "qchess {command} {args:?}: stderr: {}", run.stderr);
    run.json()
}

/// The path of `name` in the repository's `examples/`.
#[allow(dead_code)]
pub fn example(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name).display().to_string()
}

/// Every record in `examples/`, sorted.
#[allow(dead_code)]
pub fn all_examples() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .expect("examples/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
        .collect();
    files.sort();
    files.into_iter().map(|p| p.display().to_string()).collect()
}

/// Whether a JSON number is within 1e-12 of `expected`.
#[allow(dead_code)]
pub fn close(value: &serde_json::Value, expected: f64) -> bool {
    value.as_f64().is_some_and(|v| (v - expected).abs() < 1e-12)
}

/// A running `qchess serve` on 127.0.0.1 with a free port, killed when dropped.
#[allow(dead_code)]
pub struct Served {
    /// The server process.
    pub child: Child,
    /// `http://127.0.0.1:PORT`, read from the server's first line.
    pub url: String,
}

#[allow(dead_code)]
impl Served {
    /// Starts `qchess serve --addr 127.0.0.1:0` with `extra` flags and waits for its address.
    pub fn start(extra: &[&str]) -> Served {
        Served::start_at("127.0.0.1:0", extra)
    }

    /// Starts `qchess serve --addr ADDR` with `extra` flags and waits for its address.
    pub fn start_at(addr: &str, extra: &[&str]) -> Served {
        Served::spawn(addr, extra, Stdio::null())
    }

    /// [`Served::start`] with the server's stderr kept on a pipe (`child.stderr`).
    pub fn start_keeping_stderr(extra: &[&str]) -> Served {
        Served::spawn("127.0.0.1:0", extra, Stdio::piped())
    }

    /// A game server of the kept-games tests: the store `db`, its remote games on `provider`,
    /// a waiting move's lease of `lease_ms` and an answer wait of `answer_wait_ms`, and no rate
    /// limits (one address drives every game as fast as it can).
    pub fn game_server(addr: &str, db: &str, provider: &str, lease_ms: &str, answer_wait_ms: &str) -> Served {
        let rates = ["--game-address-rate", "0", "--game-seat-rate", "0", "--game-create-rate", "0"];
        let flags = ["--db", db, "--game-backend", provider, "--game-lease-ms", lease_ms];
        Served::start_at(addr, &[&flags[..], &["--game-answer-wait-ms", answer_wait_ms], &rates[..]].concat())
    }

    fn spawn(addr: &str, extra: &[&str], stderr: Stdio) -> Served {
        let mut serve = command();
        serve.args(["serve", "--addr", addr]).args(extra).stderr(stderr);
        Served::from_command(serve)
    }

    /// Starts `serve`, a prepared `qchess serve` command (its own flags and environment), and
    /// waits for its address.
    pub fn from_command(mut serve: std::process::Command) -> Served {
        let mut child = serve.stdout(Stdio::piped()).spawn().expect("qchess serve starts");
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut first = String::new();
        BufReader::new(stdout).read_line(&mut first).expect("reads the first line");
        let url =
            first.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("first line: {first:?}")).to_owned();
        Served { child, url }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
