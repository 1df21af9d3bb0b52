//! OpenQASM 3 input: text to a [`Program`] (and through it to an IR circuit), or to a program
//! that runs step by step ([`machine`](crate::machine)).
//!
//! The reader takes the language as its specification writes it: the version line (optional),
//! `include` (`stdgates.inc` built in, other files relative to the main file), qubits (virtual
//! and physical `$n`), the classical types (`bit`, `bit[n]`, `int[n]`, `uint[n]`, `float[n]`,
//! `angle[n]`, `bool`, `complex`, `duration`, `stretch`, arrays) with `const`, `input` and
//! `output`, every operator, cast and built-in function, assignments, aliases (`let`, slices,
//! `++`), gate definitions (with `for` loops over constants), gate calls with modifiers and
//! broadcasting, `measure`, `reset`, `barrier`, `delay`, `box`, `nop`, `if`/`else`, `for`,
//! `while`, `break`, `continue`, `switch`, `end`, subroutines (`def`, `return`, recursion) and
//! `extern` functions with bindings. This module has the lexer, the syntax tree and the
//! parser; the checker and the machine are in [`machine`](crate::machine), the classical values
//! in [`classical`](crate::classical).
//!
//! Refused, by name: calibrations (`defcal`, `cal`, `defcalgrammar`), pragmas and annotations,
//! and gates with a duration. Every error has the file, line and column. Gates that are
//! neither defined nor in the library are kept by name: consumers that judge gates by name
//! (the IBM stand-in) decide, and lowering to the IR refuses them.
//!
//! [`read_source`], [`read_file`] and [`read_with`] give a static [`Program`]: a program whose
//! run depends on its measurement outcomes is refused there, at the first place it reads one.
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
//! // A loop with constant bounds unrolls into the static program.
//! let ghz = read_source(
//!     "include \"stdgates.inc\";\nqubit[4] q;\nh q[0];\nfor int i in [0:2] { cx q[i], q[i + 1]; }\n",
//!     "ghz.qasm3",
//! )
//! .unwrap();
//! assert_eq!(ghz.body.len(), 4);
//!
//! let error = read_source("OPENQASM 3;\nqubit q;\ndefcal x $0 { }\n", "bad.qasm3").unwrap_err();
//! assert_eq!(error.to_string(), "bad.qasm3:3:1: calibrations (`defcal`) are pulse programs, which are not supported");
//! ```

mod control;
mod declarations;
mod expression;
mod lexer;
mod parser;
pub(crate) mod syntax;

use std::path::Path;

use self::parser::Parser;
use self::syntax::Stmt;
use super::{Limits, QasmError, read_limited};
use crate::machine::{Bindings, Compiler, Fail, load};
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
/// `None`), within `limits`, as a static program: a program whose run depends on measurement
/// outcomes (see [`machine`](crate::machine)) is refused at the first place it does.
pub fn read_with(text: &str, name: &str, include_dir: Option<&Path>, limits: &Limits) -> Result<Program, QasmError> {
    let loaded = load(text, name, include_dir, limits, &Bindings::default())?;
    loaded.program.map_err(|dynamic| {
        let message = if dynamic.bound {
            dynamic.reason
        } else {
            format!("{}: the program is dynamic, which only `qchess sim` runs", dynamic.reason)
        };
        QasmError::placed(dynamic.origin, message)
    })
}

/// The statements of `text`; errors carry their byte offset.
fn parse(text: &str) -> Result<Vec<Stmt>, Fail> {
    let tokens = lexer::lex(text)?;
    Parser::new(&tokens, text.len()).program()
}

/// One expression: the whole of `text`.
pub(crate) fn parse_expression(text: &str) -> Result<syntax::Expr, Fail> {
    let tokens = lexer::lex(text)?;
    let mut parser = Parser::new(&tokens, text.len());
    let expr = parser.expression()?;
    if parser.peek().is_some() {
        return parser.error(format!("unexpected {} after the value", parser.found()));
    }
    Ok(expr)
}

/// Reads and checks OpenQASM 3 `text` into compiled code (see [`machine`](crate::machine)).
pub(crate) fn check(
    text: &str,
    name: &str,
    include_dir: Option<&Path>,
    limits: &Limits,
    bindings: &Bindings,
) -> Result<crate::machine::Code, QasmError> {
    if text.len() as u64 > limits.max_source_bytes {
        return Err(QasmError::Unreadable {
            file: name.to_string(),
            reason: format!("larger than the limit of {} bytes", limits.max_source_bytes),
        });
    }
    let mut includer = |path: &str| -> Result<(String, String), String> {
        let Some(directory) = include_dir else {
            return Err("only \"stdgates.inc\" can be included here".into());
        };
        let resolved = directory.join(path);
        let text = read_limited(&resolved, limits)?;
        Ok((resolved.display().to_string(), text))
    };
    let statements = parse(text)
        .map_err(|(offset, message)| QasmError::at(super::source::locate_offset(name, text, offset), message))?;
    let mut compiler = Compiler::new(limits, bindings);
    compiler.bind(&parse)?;
    compiler.file(name, text, &statements, &mut includer, 0, &parse)?;
    compiler.finish()
}

#[cfg(test)]
mod tests;
