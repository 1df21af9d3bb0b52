//! OpenQASM input: text to an IR [`Circuit`], OpenQASM 2.0 or 3 by the file's version line.
//!
//! [`parse_file`] and [`parse_source`] read either version: a file that declares `OPENQASM 2.0`
//! is read as OpenQASM 2, any other (`OPENQASM 3`, `3.0`, or no version line, which OpenQASM 3
//! allows) as OpenQASM 3 ([`v3`], which also gives the instruction-level
//! [`Program`](crate::program::Program)). Every problem is one [`QasmError`] naming the file,
//! line and column.
//!
//! OpenQASM 2.0: parsing and type checking are the `openqasm` crate's; this module guards it
//! and translates its AST.
//!
//! * Quantum registers become qubits in declaration order (register `q` of size 3 declared
//!   first is qubits 0, 1, 2, named `q[0]`...); classical registers become
//!   [`ClassicalRegister`](qchess_circuit::ir::ClassicalRegister)s over consecutive bits in
//!   declaration order.
//! * `if (c == k)` becomes a [`Condition`](qchess_circuit::ir::Condition); `measure` and
//!   `reset` become their operations; `barrier` is dropped.
//! * `qelib1.inc` is built in (a file of that name on disk is not read), and its gates map to
//!   IR gates directly. So do the gates Qiskit writes without defining them (`sx`, `p`, `swap`,
//!   `rzz`, `cp`, `cu`, `c3x`, ...), unless the program defines them itself. Every other gate
//!   is expanded from its definition.
//! * Real literals are read in full `f64` precision, exponents included (`1.e-07`).
//! * [`parse_file`] resolves other `include`s relative to the main file's directory;
//!   [`parse_source`] allows only `qelib1.inc` (`stdgates.inc` in OpenQASM 3), so it never
//!   touches the file system.
//!
//! ```
//! use qchess_qasm::parse::parse_source;
//!
//! let circuit = parse_source(
//!     "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0], q[1];\nmeasure q -> c;\n",
//!     "bell.qasm",
//! )
//! .unwrap();
//! assert_eq!(circuit.num_qubits(), 2);
//! assert_eq!(circuit.ops.len(), 4);
//!
//! let error = parse_source("OPENQASM 2.0;\nqreg q[1];\nfoo q[0];\n", "bad.qasm").unwrap_err();
//! assert_eq!(error.to_string(), "bad.qasm:3:1: undefined gate `foo`");
//!
//! let bell3 = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;\n";
//! assert_eq!(parse_source(bell3, "bell.qasm3").unwrap().ops, circuit.ops);
//! ```

mod builtin;
mod diagnostics;
pub(crate) mod source;
mod translate;
pub mod v3;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use openqasm::ast::{Decl, FileSpan, Program, Span, Stmt};
use openqasm::parser::{FilePolicy, FileResult};
use openqasm::{Parser, SourceCache};
use qchess_circuit::ir::Circuit;

use source::{Location, SourceMap, locate_offset, prepare};

/// Bounds on what a program may declare or expand to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most qubits over all quantum registers.
    pub max_qubits: usize,
    /// Most bits over all classical registers.
    pub max_clbits: usize,
    /// Most operations after expanding gates and broadcasts.
    pub max_operations: usize,
    /// Largest source file, in bytes (each included file too).
    pub max_source_bytes: u64,
    /// Most instructions one run of a program may execute (bounds loops that never end).
    pub max_steps: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_qubits: 4096,
            max_clbits: 4096,
            max_operations: 1_000_000,
            max_source_bytes: 16 << 20,
            max_steps: 10_000_000,
        }
    }
}

/// Why OpenQASM input was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QasmError {
    /// The file could not be read at all.
    #[error("{file}: {reason}")]
    Unreadable {
        /// The file as named by the caller.
        file: String,
        /// Why.
        reason: String,
    },
    /// The text is not a valid program (or exceeds a limit); the place is 1-based.
    #[error("{file}:{line}:{column}: {message}")]
    Invalid {
        /// The file the problem is in (an included file, perhaps).
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column in characters, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

impl QasmError {
    /// An error at `origin` (a place in a file, or a described item).
    pub(crate) fn placed(origin: crate::program::Origin, message: String) -> QasmError {
        match origin {
            crate::program::Origin::Source { file, line, column } => QasmError::Invalid { file, line, column, message },
            crate::program::Origin::Item(item) => QasmError::Unreadable { file: item, reason: message },
        }
    }

    pub(crate) fn at(location: Location, message: impl Into<String>) -> QasmError {
        QasmError::Invalid {
            file: location.file,
            line: location.line,
            column: location.column,
            message: message.into(),
        }
    }
}

/// Where the translator's extension declarations live in the parser's cache.
const EXTENSIONS_PATH: &str = "<qelib1 extensions>";
const QELIB1: &str = "qelib1.inc";

/// Reads an OpenQASM 2.0 or 3 file; `include`s other than the standard library are read
/// relative to its directory.
pub fn parse_file(path: &Path) -> Result<Circuit, QasmError> {
    parse_file_with(path, &Limits::default())
}

/// [`parse_file`] with explicit limits.
pub fn parse_file_with(path: &Path, limits: &Limits) -> Result<Circuit, QasmError> {
    let display = path.display().to_string();
    let text = read_limited(path, limits).map_err(|reason| QasmError::Unreadable { file: display.clone(), reason })?;
    let directory = path.parent().map(Path::to_path_buf).unwrap_or_default();
    match version_of(&text) {
        Version::Two => parse(&text, &display, Some(directory), limits),
        Version::Three => lower(v3::read_with(&text, &display, Some(&directory), limits)?, limits),
    }
}

/// Reads OpenQASM 2.0 or 3 text named `name` in errors; only the standard library
/// (`qelib1.inc`, `stdgates.inc`) may be included.
pub fn parse_source(source: &str, name: &str) -> Result<Circuit, QasmError> {
    parse_source_with(source, name, &Limits::default())
}

/// [`parse_source`] with explicit limits.
pub fn parse_source_with(source: &str, name: &str, limits: &Limits) -> Result<Circuit, QasmError> {
    if source.len() as u64 > limits.max_source_bytes {
        return Err(QasmError::Unreadable {
            file: name.to_string(),
            reason: format!("larger than the limit of {} bytes", limits.max_source_bytes),
        });
    }
    match version_of(source) {
        Version::Two => parse(source, name, None, limits),
        Version::Three => lower(v3::read_with(source, name, None, limits)?, limits),
    }
}

/// Which reader a text is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    Two,
    Three,
}

/// OpenQASM 2 when the first statement (after comments) is `OPENQASM 2...`, else OpenQASM 3
/// (whose reader names any other version it finds).
pub(crate) fn version_of(text: &str) -> Version {
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start();
        if let Some(comment) = trimmed.strip_prefix("//") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(comment) = trimmed.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else {
            rest = trimmed;
            break;
        }
    }
    match rest.strip_prefix("OPENQASM") {
        Some(after) if after.trim_start().starts_with('2') => Version::Two,
        _ => Version::Three,
    }
}

/// A program read from OpenQASM 3 as an IR circuit, errors placed in its source.
fn lower(program: crate::program::Program, limits: &Limits) -> Result<Circuit, QasmError> {
    program.to_circuit(limits.max_operations).map_err(placed)
}

/// A lowering error as an error placed in the source.
pub(crate) fn placed(error: crate::program::LowerError) -> QasmError {
    QasmError::placed(error.origin, error.message)
}

/// Reads a regular file of at most `max_source_bytes` as UTF-8.
pub(crate) fn read_limited(path: &Path, limits: &Limits) -> Result<String, String> {
    let metadata = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file".into());
    }
    if metadata.len() > limits.max_source_bytes {
        return Err(format!("{} bytes, over the limit of {} bytes", metadata.len(), limits.max_source_bytes));
    }
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))
}

/// The text of the built-in `qelib1.inc`, as the `openqasm` crate ships it.
fn qelib1_text() -> String {
    match FilePolicy::filesystem() {
        FilePolicy::FileSystem { hardcoded } => hardcoded.get(Path::new(QELIB1)).cloned().unwrap_or_default(),
        _ => String::new(),
    }
}

/// A file read through an `include`.
struct Included {
    path: PathBuf,
    display: String,
    text: String,
}

pub(crate) fn parse(
    text: &str,
    display: &str,
    include_dir: Option<PathBuf>,
    limits: &Limits,
) -> Result<Circuit, QasmError> {
    let lexed = prepare(text).map_err(|e| QasmError::at(locate_offset(display, text, e.offset), e.message))?;
    // The parser resolves includes against the parent of this path, which must exist.
    let main_path =
        if Path::new(display).parent().is_some() { PathBuf::from(display) } else { PathBuf::from("<input>") };
    let mut sources = SourceMap::default();
    sources.insert(main_path.clone(), display.to_string(), text.to_string());

    let mut cache = SourceCache::new();
    let mut included: Vec<Included> = Vec::new();
    let mut include_failure: Option<QasmError> = None;
    let parsed = {
        let mut resolve = |path: &Path| -> FileResult {
            match include(path, include_dir.as_deref(), limits) {
                Ok(file) => match prepare(&file.text) {
                    Ok(lexed) => {
                        included.push(file);
                        FileResult::Success(lexed)
                    }
                    Err(e) => {
                        include_failure =
                            Some(QasmError::at(locate_offset(&file.display, &file.text, e.offset), e.message.clone()));
                        FileResult::Error(Box::new(std::io::Error::other(e.message)))
                    }
                },
                Err(reason) => FileResult::Error(Box::new(std::io::Error::other(reason))),
            }
        };
        let mut parser = Parser::new(&mut cache).with_file_policy(FilePolicy::Custom(&mut resolve));
        parser.parse_source(lexed, Some(main_path.clone()));
        parser.done()
    };
    for file in included {
        sources.insert(file.path, file.display, file.text);
    }
    let mut program = match parsed {
        Ok(program) => program,
        Err(errors) => {
            let first = errors.first();
            if let (Some(failure), Some(openqasm::parser::ParseError::ReadUnableCustom { .. })) =
                (include_failure, first)
            {
                return Err(failure);
            }
            let (message, span) = first.map_or_else(
                || ("the program could not be parsed".to_string(), None),
                |e| diagnostics::parse_error(e, &sources, &cache),
            );
            return Err(located(&sources, &cache, span, display, message));
        }
    };

    // Included files (definitions, usually) before the main file, each in its own order.
    program.decls.sort_by_key(|decl| cache.get_path(decl.span) == Some(main_path.as_path()));
    add_extension_declarations(&mut program, &mut sources, &mut cache)?;
    check_condition_widths(&program, &sources, &cache)?;
    if let Err(errors) = program.type_check() {
        let (message, span) = errors.first().map_or_else(
            || ("the program is not well typed".to_string(), None),
            |e| diagnostics::type_error(e, &sources, &cache),
        );
        return Err(located(&sources, &cache, span, display, message));
    }
    let is_builtin = |span: FileSpan| {
        cache.get_path(span).is_some_and(|path| path == Path::new(QELIB1) || path == Path::new(EXTENSIONS_PATH))
    };
    translate::translate(&program, &sources, &cache, limits, &is_builtin)
        .map_err(|(message, span)| located(&sources, &cache, Some(span), display, message))
}

/// An error at `span`, or at the start of the main file when there is no span.
fn located(
    sources: &SourceMap,
    cache: &SourceCache,
    span: Option<FileSpan>,
    display: &str,
    message: String,
) -> QasmError {
    let location = match span {
        Some(span) => sources.locate(cache, span),
        None => Location { file: display.to_string(), line: 1, column: 1 },
    };
    let location =
        if location.line == 0 { Location { file: display.to_string(), line: 1, column: 1 } } else { location };
    QasmError::at(location, message)
}

/// Serves an `include`: the built-in `qelib1.inc`, or a file under the main file's directory.
fn include(path: &Path, include_dir: Option<&Path>, limits: &Limits) -> Result<Included, String> {
    if path == Path::new(QELIB1) {
        return Ok(Included { path: path.to_path_buf(), display: QELIB1.into(), text: qelib1_text() });
    }
    let Some(directory) = include_dir else {
        return Err("only \"qelib1.inc\" can be included here".into());
    };
    let resolved = directory.join(path);
    let text = read_limited(&resolved, limits)?;
    Ok(Included { path: path.to_path_buf(), display: resolved.display().to_string(), text })
}

/// Gate names a statement calls, looking inside conditions.
fn called_names<'a>(stmt: &'a Span<Stmt>, names: &mut HashSet<&'a str>) {
    match &*stmt.inner {
        Stmt::Gate { name, .. } => {
            names.insert(name.inner.as_str());
        }
        Stmt::Conditional { then, .. } => called_names(then, names),
        _ => {}
    }
}

/// Declares the Qiskit extension gates the program calls without defining them.
fn add_extension_declarations(
    program: &mut Program,
    sources: &mut SourceMap,
    cache: &mut SourceCache,
) -> Result<(), QasmError> {
    let mut called = HashSet::new();
    let mut defined = HashSet::new();
    for decl in &program.decls {
        match &*decl.inner {
            Decl::Def { name, body, .. } => {
                defined.insert(name.inner.as_str());
                body.iter().flatten().for_each(|stmt| called_names(stmt, &mut called));
            }
            Decl::Stmt(stmt) => called_names(stmt, &mut called),
            _ => {}
        }
    }
    let mut needed: Vec<&str> = called.difference(&defined).copied().filter(|n| builtin::is_extension(n)).collect();
    if needed.is_empty() {
        return Ok(());
    }
    needed.sort_unstable();
    let text = builtin::extension_declarations(needed);
    sources.insert(PathBuf::from(EXTENSIONS_PATH), "qelib1 extensions".into(), text.clone());
    let mut parser = Parser::new(cache).with_file_policy(FilePolicy::Deny);
    parser.parse_source(text, Some(PathBuf::from(EXTENSIONS_PATH)));
    let extensions = parser.done().map_err(|_| QasmError::Invalid {
        file: EXTENSIONS_PATH.into(),
        line: 1,
        column: 1,
        message: "internal error: extension declarations do not parse".into(),
    })?;
    program.decls.extend(extensions.decls);
    Ok(())
}

/// The `openqasm` crate's type checker overflows on conditions over registers of 64 or more
/// bits; such conditions are refused here first.
fn check_condition_widths(program: &Program, sources: &SourceMap, cache: &SourceCache) -> Result<(), QasmError> {
    let widths: std::collections::HashMap<&str, u64> = program
        .decls
        .iter()
        .filter_map(|decl| match &*decl.inner {
            Decl::CReg { reg } => Some((reg.inner.name.as_str(), reg.inner.index.unwrap_or(1))),
            _ => None,
        })
        .collect();
    fn visit(stmt: &Span<Stmt>, widths: &std::collections::HashMap<&str, u64>) -> Option<FileSpan> {
        match &*stmt.inner {
            Stmt::Conditional { reg, then, .. } => {
                if widths.get(reg.inner.name.as_str()).is_some_and(|&w| w >= 64) {
                    Some(reg.span)
                } else {
                    visit(then, widths)
                }
            }
            _ => None,
        }
    }
    for decl in &program.decls {
        let found = match &*decl.inner {
            Decl::Stmt(stmt) => visit(stmt, &widths),
            Decl::Def { body: Some(body), .. } => body.iter().find_map(|stmt| visit(stmt, &widths)),
            _ => None,
        };
        if let Some(span) = found {
            return Err(QasmError::at(
                sources.locate(cache, span),
                "conditions on registers of 64 or more bits are not supported",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
