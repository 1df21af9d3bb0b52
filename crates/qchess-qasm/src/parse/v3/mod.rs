//! OpenQASM 3 input: text to a [`Program`] (and through it to an IR circuit).
//!
//! What is read: the version line (optional; `3` or `3.x`), `include "stdgates.inc"` (built
//! in) and other includes (relative to the main file, when reading a file), `qubit`/`qubit[n]`
//! and `bit`/`bit[n]` declarations and OpenQASM 2's `qreg`/`creg`, physical qubits `$n`,
//! `const` declarations of `int`, `uint`, `float`, `angle` and `bool`, gate definitions,
//! gate calls with `inv`, `pow(k)`, `ctrl(n)` and `negctrl(n)` modifiers and broadcasting over
//! registers (indices, negative indices, ranges `a:b`/`a:s:b`, sets `{a, b}`), the built-in
//! `U` and `gphase`, `measure` in both forms (`c = measure q;`, `measure q -> c;`) and bare,
//! `reset`, `barrier`, `delay[duration]`, and `if`/`else` on a bit or a register compared with
//! a constant. Constant expressions: see [`expr`](crate::program::expr).
//!
//! Every other construct (loops, subroutines, classical variables, `box`, `let`, `input`,
//! calibrations, pragmas, ...) is refused with its name, and every error has the file, line
//! and column. Gates that are neither defined nor in the library are kept by name: consumers
//! that judge gates by name (the IBM stand-in) decide, and lowering to the IR refuses them.
//!
//! ```
//! use qchess_qasm::parse::v3::read_source;
//!
//! let program = read_source(
//!     "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;\n",
//!     "bell.qasm3",
//! )
//! .unwrap();
//! assert_eq!(program.body.len(), 4);
//! assert_eq!(program.to_circuit(100).unwrap().ops.len(), 4);
//!
//! let error = read_source("OPENQASM 3;\nqubit q;\nfor int i in [0:2] { }\n", "bad.qasm3").unwrap_err();
//! assert_eq!(error.to_string(), "bad.qasm3:3:1: `for` loops are not supported");
//! ```

mod definitions;
mod elaborate;
mod expression;
mod lexer;
mod parser;
mod resolve;

use std::path::Path;

use self::elaborate::{Elaborator, Failure, File};
use self::parser::{Parser, Stmt};
use super::source::locate_offset;
use super::{Limits, QasmError, read_limited};
use crate::program::Program;

/// Reads OpenQASM 3 text named `name` in errors; only `stdgates.inc` may be included.
pub fn read_source(text: &str, name: &str) -> Result<Program, QasmError> {
    read_with(text, name, None, &Limits::default())
}

/// Reads an OpenQASM 3 file; includes other than `stdgates.inc` are read relative to its
/// directory.
pub fn read_file(path: &Path) -> Result<Program, QasmError> {
    let limits = Limits::default();
    let display = path.display().to_string();
    let text = read_limited(path, &limits).map_err(|reason| QasmError::Unreadable { file: display.clone(), reason })?;
    let directory = path.parent().map(Path::to_path_buf).unwrap_or_default();
    read_with(&text, &display, Some(&directory), &limits)
}

/// Reads OpenQASM 3 `text` named `name`, resolving includes under `include_dir` (none when
/// `None`), within `limits`.
pub fn read_with(text: &str, name: &str, include_dir: Option<&Path>, limits: &Limits) -> Result<Program, QasmError> {
    if text.len() as u64 > limits.max_source_bytes {
        return Err(QasmError::Unreadable {
            file: name.to_string(),
            reason: format!("larger than the limit of {} bytes", limits.max_source_bytes),
        });
    }
    // The text of every file read, to place errors in it.
    let texts = std::cell::RefCell::new(vec![(name.to_string(), text.to_string())]);
    let locate = |(file, offset, message): Failure| {
        let texts = texts.borrow();
        let text = texts.iter().find(|(n, _)| *n == file).map_or("", |(_, t)| t.as_str());
        let location = locate_offset(&file, text, offset);
        QasmError::Invalid { file: location.file, line: location.line, column: location.column, message }
    };
    let parse = |text: &str, display: &str| -> Result<Vec<Stmt>, Failure> {
        let fail = |(offset, message): (usize, String)| (display.to_string(), offset, message);
        let tokens = lexer::lex(text).map_err(fail)?;
        Parser::new(&tokens, text.len()).program().map_err(fail)
    };
    let mut includer = |path: &str| -> Result<(String, String), String> {
        let Some(directory) = include_dir else {
            return Err("only \"stdgates.inc\" can be included here".into());
        };
        let resolved = directory.join(path);
        let text = read_limited(&resolved, limits)?;
        let display = resolved.display().to_string();
        texts.borrow_mut().push((display.clone(), text.clone()));
        Ok((display, text))
    };
    let statements = parse(text, name).map_err(&locate)?;
    let mut elaborator = Elaborator::new(limits);
    elaborator.file(&File { display: name, text }, &statements, &mut includer, 0, &parse).map_err(&locate)?;
    Ok(elaborator.finish())
}

#[cfg(test)]
mod tests;
