//! One clear message and one place for each error of the `openqasm` crate.

use openqasm::ast::FileSpan;
use openqasm::parser::ParseError;
use openqasm::typing::TypeError;

use super::source::SourceMap;

/// The first line of a source excerpt, escaped and shortened for a message.
fn excerpt(text: &str) -> String {
    qchess_core::text::excerpt(text.lines().next().unwrap_or(""))
}

/// The grammar's token names (`"\";\""`, `identifier`) as a reader expects them.
fn expected_list(expected: &[String]) -> String {
    let mut names: Vec<String> = expected
        .iter()
        .map(|e| {
            let bare = e.trim_matches('"').replace("\\\"", "\"");
            if bare.chars().all(|c| c.is_ascii_lowercase())
                && matches!(bare.as_str(), "identifier" | "integer" | "real" | "string")
            {
                bare
            } else {
                format!("`{}`", bare.trim_matches('"'))
            }
        })
        .collect();
    names.sort();
    names.dedup();
    if names.len() > 8 {
        names.truncate(8);
        names.push("...".into());
    }
    names.join(", ")
}

/// Message and span of a parse error; `None` span for errors without a place.
pub(crate) fn parse_error(
    error: &ParseError,
    sources: &SourceMap,
    cache: &openqasm::SourceCache,
) -> (String, Option<FileSpan>) {
    match error {
        ParseError::InvalidToken { span } => {
            let text = sources.text(cache, *span);
            let shown = if text.is_empty() { String::new() } else { format!(" `{}`", excerpt(text)) };
            (format!("invalid token{shown}"), Some(*span))
        }
        ParseError::UnexpectedToken { expected, span, .. } => {
            let found = excerpt(sources.text(cache, *span));
            if expected.is_empty() {
                (format!("unexpected `{found}`"), Some(*span))
            } else {
                (format!("unexpected `{found}`; expected {}", expected_list(expected)), Some(*span))
            }
        }
        ParseError::UnexpectedEOF { expected, span } => {
            (format!("unexpected end of file; expected {}", expected_list(expected)), Some(*span))
        }
        ParseError::ReadUnableSandboxed { path, from } => (
            format!("cannot include \"{}\": includes are not allowed here", excerpt(&path.display().to_string())),
            *from,
        ),
        ParseError::ReadUnableFilesystem { path, from, error } => {
            (format!("cannot include \"{}\": {error}", excerpt(&path.display().to_string())), *from)
        }
        ParseError::ReadUnableCustom { path, from, error } => {
            (format!("cannot include \"{}\": {error}", excerpt(&path.display().to_string())), *from)
        }
    }
}

/// Message and span of a type error.
pub(crate) fn type_error(
    error: &TypeError,
    sources: &SourceMap,
    cache: &openqasm::SourceCache,
) -> (String, Option<FileSpan>) {
    let line_of = |span: FileSpan| sources.locate(cache, span).line;
    match error {
        TypeError::RedefinedGate { name, prev, .. } => (
            format!("gate `{}` is already defined (line {})", excerpt(name.inner.as_str()), line_of(*prev)),
            Some(name.span),
        ),
        TypeError::RedefinedArgument { name, .. } => {
            (format!("argument `{}` is declared twice", excerpt(name.inner.as_str())), Some(name.span))
        }
        TypeError::RedefinedParameter { name, .. } => {
            (format!("parameter `{}` is declared twice", excerpt(name.inner.as_str())), Some(name.span))
        }
        TypeError::RecursiveDefinition { cycle } => match cycle.first() {
            Some((_, call)) => ("recursive gate definition: a gate calls itself".into(), Some(*call)),
            None => ("recursive gate definition".into(), None),
        },
        TypeError::ZeroSizeRegister { reg, .. } => ("a register must have at least one element".into(), Some(*reg)),
        TypeError::RedefinedRegister { reg, prev, .. } => (
            format!("register `{}` is already declared (line {})", excerpt(reg.inner.name.as_str()), line_of(*prev)),
            Some(reg.span),
        ),
        TypeError::UndefinedParameter { name, span, .. } => {
            (format!("undefined parameter `{}`", excerpt(name.as_str())), Some(*span))
        }
        TypeError::InvalidComparisonSize { value, reg_size, value_size, .. } => {
            (format!("the value needs {value_size} bits but the register has {reg_size}"), Some(*value))
        }
        TypeError::WrongArgumentArity { stmt, name, arity, actual, .. } => {
            (format!("gate `{}` takes {arity} qubit argument(s), got {actual}", excerpt(name.as_str())), Some(*stmt))
        }
        TypeError::WrongParameterArity { stmt, name, arity, actual, .. } => {
            (format!("gate `{}` takes {arity} parameter(s), got {actual}", excerpt(name.as_str())), Some(*stmt))
        }
        TypeError::UndefinedGate { name, .. } => {
            let hint = if super::builtin::is_qelib1(name.inner.as_str()) {
                " (is `include \"qelib1.inc\";` missing?)"
            } else {
                ""
            };
            (format!("undefined gate `{}`{hint}", excerpt(name.inner.as_str())), Some(name.span))
        }
        TypeError::WrongOperandSize { span, size, match_size, .. } => {
            (format!("register of size {size} where an earlier operand has size {match_size}"), Some(*span))
        }
        TypeError::InvalidRegisterIndex { name, index, size, reg, .. } => (
            format!("index {index} is out of range for register `{}` of size {size}", excerpt(name.as_str())),
            Some(*reg),
        ),
        TypeError::WrongRegisterType { name, reg, classical, .. } => {
            let (is, needed) = if *classical { ("quantum", "classical") } else { ("classical", "quantum") };
            (format!("`{}` is a {is} register where a {needed} one is needed", excerpt(name.as_str())), Some(*reg))
        }
        TypeError::UndefinedRegister { name, reg, .. } => {
            (format!("undefined register `{}`", excerpt(name.as_str())), Some(*reg))
        }
    }
}
