//! Running the `qchess` binary from tests.

use std::io::{BufRead, BufReader};
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
        let mut child = command()
            .args(["serve", "--addr", addr])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("qchess serve starts");
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
