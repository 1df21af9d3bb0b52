//! Source text handling around the `openqasm` crate: checks it cannot do safely, literal
//! precision, and mapping byte offsets to lines and columns.
//!
//! The crate's lexer reads real literals as `f32` and knows no exponent notation (`1.e-07`,
//! which Qiskit writes). Before lexing, every literal the lexer would misread is replaced by a
//! placeholder of the same length (`0.0000`), so all spans stay valid; the translator then
//! re-reads each literal from the original text as `f64`.

use std::collections::HashMap;
use std::path::PathBuf;

use openqasm::ast::FileSpan;

/// The most arithmetic operators one parenthesised expression may contain: the crate's type
/// checker recurses once per operator, so this bounds its stack use.
const MAX_OPERATORS: usize = 1024;

/// The deepest parenthesis nesting accepted.
const MAX_NESTING: usize = 256;

/// A problem found before the crate sees the text: byte offset and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PrecheckError {
    pub(crate) offset: usize,
    pub(crate) message: String,
}

/// Checks `text` and returns the text for the crate's lexer (same length, same spans).
pub(crate) fn prepare(text: &str) -> Result<String, PrecheckError> {
    check_version(text)?;
    let bytes = text.as_bytes();
    let mut lexed = text.as_bytes().to_vec();
    let mut depth = 0usize;
    let mut operators = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += 1;
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                continue;
            }
            b'0'..=b'9' | b'.' if b != b'.' || bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let end = literal_end(bytes, i);
                if !lexer_reads_exactly(&bytes[i..end]) {
                    let len = end - i;
                    let placeholder: Vec<u8> = if len >= 3 {
                        [b'0', b'.'].into_iter().chain(std::iter::repeat_n(b'0', len - 2)).collect()
                    } else {
                        vec![b'0'; len]
                    };
                    lexed[i..end].copy_from_slice(&placeholder);
                }
                i = end;
                continue;
            }
            b'(' => {
                if depth == 0 {
                    operators = 0;
                }
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(PrecheckError {
                        offset: i,
                        message: format!("parentheses nested more than {MAX_NESTING} deep"),
                    });
                }
            }
            b')' => depth = depth.saturating_sub(1),
            b'+' | b'-' | b'*' | b'/' | b'^' if depth > 0 => {
                operators += 1;
                if operators > MAX_OPERATORS {
                    return Err(PrecheckError {
                        offset: i,
                        message: format!("expression too long: more than {MAX_OPERATORS} operators"),
                    });
                }
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes were replaced, by ASCII bytes of the same length.
    String::from_utf8(lexed).map_err(|_| PrecheckError { offset: 0, message: "the text is not valid UTF-8".into() })
}

/// End of the real or integer literal starting at `start` (OpenQASM 2's grammar:
/// `[0-9]+(\.[0-9]*)?|\.[0-9]+`, then an optional exponent).
fn literal_end(bytes: &[u8], start: usize) -> usize {
    let digits = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = digits(start);
    if bytes.get(i) == Some(&b'.') {
        i = digits(i + 1);
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if bytes.get(j).is_some_and(u8::is_ascii_digit) {
            i = digits(j);
        }
    }
    i
}

/// Whether the crate's lexer reads this literal as one token of the same value: `[0-9]+` or
/// `[0-9]+\.[0-9]+` (the latter loses precision as `f32`, but the translator re-reads it).
fn lexer_reads_exactly(literal: &[u8]) -> bool {
    match literal.iter().position(|&b| b == b'.') {
        None => literal.iter().all(u8::is_ascii_digit),
        Some(dot) => {
            dot > 0
                && dot + 1 < literal.len()
                && literal[..dot].iter().all(u8::is_ascii_digit)
                && literal[dot + 1..].iter().all(u8::is_ascii_digit)
        }
    }
}

/// Rejects a version line other than `OPENQASM 2.0` with a clear message (the crate's lexer
/// would only report an unexpected token).
fn check_version(text: &str) -> Result<(), PrecheckError> {
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start();
        if let Some(comment) = trimmed.strip_prefix("//") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else {
            rest = trimmed;
            break;
        }
    }
    if let Some(after) = rest.strip_prefix("OPENQASM") {
        let version: String = after.trim_start().chars().take_while(|c| !c.is_whitespace() && *c != ';').collect();
        if version != "2.0" {
            let offset = text.len() - rest.len();
            return Err(PrecheckError {
                offset,
                message: format!("OpenQASM {version} is not supported; this reads OpenQASM 2.0"),
            });
        }
    }
    Ok(())
}

/// The original text of every file the parser has read, keyed by the path the parser's cache
/// knows it by.
#[derive(Debug, Default)]
pub(crate) struct SourceMap {
    files: HashMap<PathBuf, (String, String)>,
}

/// A place in a source file, 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

impl SourceMap {
    /// Records a file: the cache path, the name shown in errors, and its original text.
    pub(crate) fn insert(&mut self, path: PathBuf, display: String, text: String) {
        self.files.insert(path, (display, text));
    }

    /// The display name and original text of the file a span belongs to.
    pub(crate) fn file_of(&self, cache: &openqasm::SourceCache, span: FileSpan) -> Option<&(String, String)> {
        cache.get_path(span).and_then(|path| self.files.get(path))
    }

    /// The original text a span covers (empty if unknown).
    pub(crate) fn text<'a>(&'a self, cache: &openqasm::SourceCache, span: FileSpan) -> &'a str {
        use ariadne::Span;
        self.file_of(cache, span).and_then(|(_, text)| text.get(span.start()..span.end())).unwrap_or("")
    }

    /// Where a span starts.
    pub(crate) fn locate(&self, cache: &openqasm::SourceCache, span: FileSpan) -> Location {
        use ariadne::Span;
        match self.file_of(cache, span) {
            Some((display, text)) => locate_offset(display, text, span.start()),
            None => Location { file: "<unknown>".into(), line: 0, column: 0 },
        }
    }
}

/// Line and column (in characters) of a byte offset.
pub(crate) fn locate_offset(display: &str, text: &str, offset: usize) -> Location {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    Location { file: display.to_string(), line, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_the_lexer_misreads_become_same_length_placeholders() {
        let text = "rx(1.e-07) q[0]; ry(.5) q; rz(2.) q; u1(3.25) q; u1(1E+3) q; x q1e5;";
        let lexed = prepare(text).expect("valid");
        assert_eq!(lexed.len(), text.len());
        assert_eq!(lexed, "rx(0.0000) q[0]; ry(00) q; rz(00) q; u1(3.25) q; u1(0.00) q; x q1e5;");
        // Comments and strings are left alone.
        let text = "include \"a1.e5.inc\"; // 1e5\n";
        assert_eq!(prepare(text).expect("valid"), text);
    }

    #[test]
    fn versions_other_than_two_are_named() {
        let error = prepare("// comment\nOPENQASM 3.0;\nqubit q;").expect_err("version 3");
        assert_eq!(error.message, "OpenQASM 3.0 is not supported; this reads OpenQASM 2.0");
        assert_eq!(error.offset, 11);
        assert!(prepare("OPENQASM 2.0;").is_ok());
    }

    #[test]
    fn runaway_expressions_are_refused_before_parsing() {
        let long = format!("rx({}1) q;", "1+".repeat(2000));
        assert!(prepare(&long).expect_err("too long").message.contains("more than 1024 operators"));
        let deep = format!("rx({}1{}) q;", "(".repeat(300), ")".repeat(300));
        assert!(prepare(&deep).expect_err("too deep").message.contains("nested"));
    }

    #[test]
    fn offsets_map_to_lines_and_character_columns() {
        let text = "ab\nπx\ny";
        assert_eq!(locate_offset("f", text, 0), Location { file: "f".into(), line: 1, column: 1 });
        assert_eq!(locate_offset("f", text, 5), Location { file: "f".into(), line: 2, column: 2 });
        assert_eq!(locate_offset("f", text, 4), Location { file: "f".into(), line: 2, column: 1 });
        assert_eq!(locate_offset("f", text, 99), Location { file: "f".into(), line: 3, column: 2 });
    }
}
