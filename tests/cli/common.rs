//! Running the `qchess` binary from tests.

use std::process::{Command, Output};

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

/// Runs `qchess` with `args` and collects its output.
pub fn qchess(args: &[&str]) -> Run {
    let output: Output =
        Command::new(env!("CARGO_BIN_EXE_qchess")).args(args).output().expect("the qchess binary runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}
