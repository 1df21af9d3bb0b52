//! Reading a record, with the line and column of every error.

use std::str::FromStr;

use qchess_core::text::excerpt;
use qchess_core::{Notation, ParseMoveError};
use thiserror::Error;

use super::{GameRecord, RecordedMove, Tag, normalize_comment};
use crate::GameResult;

/// What is wrong at one place in a record.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RecordProblem {
    /// A tag's name is missing or has characters other than letters, digits and `_`.
    #[error("expected a tag name (letters, digits and _) after `[`")]
    BadTagName,
    /// A tag's value is not a quoted string.
    #[error("expected the tag value in double quotes, like [Event \"Casual game\"]")]
    ExpectedTagValue,
    /// A tag's value runs to the end of its line.
    #[error("the tag value has no closing `\"` on its line")]
    UnterminatedTagValue,
    /// A backslash in a tag value that escapes neither `"` nor `\`.
    #[error("`\\{}` is not an escape; write `\\\"` or `\\\\`", excerpt(&.0.to_string()))]
    BadEscape(char),
    /// A tag is not closed by `]`.
    #[error("expected `]` to close the tag")]
    UnterminatedTag,
    /// The same tag twice.
    #[error("tag {} is given twice", excerpt(.0))]
    DuplicateTag(String),
    /// A tag after the movetext began.
    #[error("tags go before the moves")]
    TagAfterMoves,
    /// A `{` comment that never closes.
    #[error("the comment has no closing `}}`")]
    UnterminatedComment,
    /// A word of the movetext that is not a move.
    #[error("{0}")]
    BadMove(ParseMoveError),
    /// Text after the result token.
    #[error("unexpected `{}` after the result", excerpt(.0))]
    AfterResult(String),
    /// The `Result` tag is not a result.
    #[error("the Result tag `{}` is not a result (1-0, 0-1, 1/2-1/2 or *)", excerpt(.0))]
    BadResultTag(String),
    /// The result token disagrees with the `Result` tag.
    #[error("the result {} disagrees with the Result tag {}", excerpt(.token), excerpt(.tag))]
    ResultMismatch {
        /// The tag's value.
        tag: String,
        /// The token at the end of the movetext.
        token: String,
    },
}

/// A record that could not be read: where, and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}, column {column}: {problem}")]
pub struct ParseRecordError {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
    /// What is wrong.
    pub problem: RecordProblem,
}

/// A value with the line and column where it starts.
type Located<T> = ((usize, usize), T);

/// A character cursor that knows its line and column.
struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    column: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn here(&self) -> (usize, usize) {
        (self.line, self.column)
    }

    fn skip_whitespace(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    /// Skips the rest of the line (a `;` comment).
    fn skip_line(&mut self) {
        while self.peek().is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    /// A word of the movetext: up to whitespace or the start of a comment.
    fn word(&mut self) -> &'a str {
        let start = self.pos;
        while self.peek().is_some_and(|c| !c.is_whitespace() && c != '{' && c != ';') {
            self.bump();
        }
        &self.text[start..self.pos]
    }
}

fn error_at((line, column): (usize, usize), problem: RecordProblem) -> ParseRecordError {
    ParseRecordError { line, column, problem }
}

impl FromStr for GameRecord {
    type Err = ParseRecordError;

    fn from_str(text: &str) -> Result<GameRecord, ParseRecordError> {
        let mut scanner = Scanner { text, pos: 0, line: 1, column: 1 };
        let mut record = GameRecord::default();
        loop {
            scanner.skip_whitespace();
            match scanner.peek() {
                Some('[') => {
                    let at = scanner.here();
                    let tag = read_tag(&mut scanner)?;
                    if record.tag(&tag.name).is_some() {
                        return Err(error_at(at, RecordProblem::DuplicateTag(tag.name)));
                    }
                    record.tags.push(tag);
                }
                Some(';') => scanner.skip_line(),
                _ => break,
            }
        }
        let token = read_movetext(&mut scanner, &mut record)?;
        let tagged = match record.tag("Result") {
            Some(value) => Some(
                value
                    .parse::<GameResult>()
                    .map_err(|_| error_at((1, 1), RecordProblem::BadResultTag(value.to_owned())))?,
            ),
            None => None,
        };
        record.result = match (token, tagged) {
            (Some((at, token)), Some(tagged)) if token != tagged => {
                let problem = RecordProblem::ResultMismatch { tag: tagged.to_string(), token: token.to_string() };
                return Err(error_at(at, problem));
            }
            (Some((_, token)), _) => token,
            (None, tagged) => tagged.unwrap_or_default(),
        };
        Ok(record)
    }
}

/// `[Name "value"]`, the scanner on the `[`.
fn read_tag(scanner: &mut Scanner<'_>) -> Result<Tag, ParseRecordError> {
    scanner.bump();
    scanner.skip_whitespace();
    let at = scanner.here();
    let start = scanner.pos;
    while scanner.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
        scanner.bump();
    }
    let name = scanner.text[start..scanner.pos].to_owned();
    if name.is_empty() {
        return Err(error_at(at, RecordProblem::BadTagName));
    }
    while scanner.peek().is_some_and(|c| c == ' ' || c == '\t') {
        scanner.bump();
    }
    if scanner.peek() != Some('"') {
        return Err(error_at(scanner.here(), RecordProblem::ExpectedTagValue));
    }
    let open = scanner.here();
    scanner.bump();
    let mut value = String::new();
    loop {
        let at = scanner.here();
        match scanner.bump() {
            None | Some('\n') | Some('\r') => return Err(error_at(open, RecordProblem::UnterminatedTagValue)),
            Some('"') => break,
            Some('\\') => match scanner.bump() {
                Some(c @ ('"' | '\\')) => value.push(c),
                Some(c) if c != '\n' => return Err(error_at(at, RecordProblem::BadEscape(c))),
                _ => return Err(error_at(open, RecordProblem::UnterminatedTagValue)),
            },
            Some(c) => value.push(c),
        }
    }
    while scanner.peek().is_some_and(|c| c == ' ' || c == '\t') {
        scanner.bump();
    }
    if scanner.peek() != Some(']') {
        return Err(error_at(scanner.here(), RecordProblem::UnterminatedTag));
    }
    scanner.bump();
    Ok(Tag { name, value })
}

/// Moves, comments and the result token. Returns the token and where it stood.
fn read_movetext(
    scanner: &mut Scanner<'_>,
    record: &mut GameRecord,
) -> Result<Option<Located<GameResult>>, ParseRecordError> {
    loop {
        scanner.skip_whitespace();
        let at = scanner.here();
        match scanner.peek() {
            None => return Ok(None),
            Some('[') => return Err(error_at(at, RecordProblem::TagAfterMoves)),
            Some(';') => scanner.skip_line(),
            Some('{') => {
                let comment = read_comment(scanner)?;
                let slot = match record.moves.last_mut() {
                    Some(mv) => &mut mv.comment,
                    None => &mut record.comment,
                };
                *slot = match (slot.take(), comment) {
                    (Some(old), Some(new)) => Some(format!("{old} {new}")),
                    (old, new) => old.or(new),
                };
            }
            Some(_) => {
                let word = scanner.word();
                if let Ok(result) = word.parse::<GameResult>() {
                    check_nothing_after(scanner)?;
                    return Ok(Some((at, result)));
                }
                let mv = strip_move_number(word);
                if mv.is_empty() {
                    continue;
                }
                let notation: Notation = mv.parse().map_err(|e| error_at(at, RecordProblem::BadMove(e)))?;
                record.moves.push(RecordedMove { notation, comment: None });
            }
        }
    }
}

/// A `{ ... }` comment, the scanner on the `{`.
fn read_comment(scanner: &mut Scanner<'_>) -> Result<Option<String>, ParseRecordError> {
    let open = scanner.here();
    scanner.bump();
    let start = scanner.pos;
    loop {
        match scanner.peek() {
            None => return Err(error_at(open, RecordProblem::UnterminatedComment)),
            Some('}') => {
                let text = &scanner.text[start..scanner.pos];
                scanner.bump();
                return Ok(normalize_comment(text));
            }
            Some(_) => {
                scanner.bump();
            }
        }
    }
}

/// Only whitespace may follow the result token.
fn check_nothing_after(scanner: &mut Scanner<'_>) -> Result<(), ParseRecordError> {
    scanner.skip_whitespace();
    let at = scanner.here();
    if scanner.peek().is_some() {
        let rest: String = scanner.text[scanner.pos..].chars().take(20).collect();
        let first = rest.split_whitespace().next().unwrap_or_default().to_owned();
        return Err(error_at(at, RecordProblem::AfterResult(first)));
    }
    Ok(())
}

/// `12.`, `12...` or `12.e2e4` lose their number; other words are left alone.
fn strip_move_number(word: &str) -> &str {
    let digits = word.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || word.as_bytes().get(digits) != Some(&b'.') {
        return word;
    }
    word[digits..].trim_start_matches('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> GameRecord {
        text.parse().unwrap_or_else(|e| panic!("{text:?}: {e}"))
    }

    fn problem(text: &str) -> ParseRecordError {
        text.parse::<GameRecord>().expect_err(text)
    }

    #[test]
    fn tags_moves_numbers_comments_and_result() {
        let record = parse(
            "[Event \"Test \\\"quoted\\\" \\\\ game\"]\n[Result \"1-0\"]\n\n{ intro }\n1. b1^a3c3 {split\n  here} g8f6 ; dropped\n2.a3c3^b5 2... e7e6 1-0\n",
        );
        assert_eq!(record.tag("Event"), Some("Test \"quoted\" \\ game"));
        assert_eq!(record.comment.as_deref(), Some("intro"));
        let moves: Vec<String> = record.moves.iter().map(|m| m.notation.to_string()).collect();
        assert_eq!(moves, ["b1^a3c3", "g8f6", "a3c3^b5", "e7e6"]);
        assert_eq!(record.moves[0].comment.as_deref(), Some("split here"));
        assert_eq!(record.result, GameResult::WhiteWins);
    }

    #[test]
    fn a_missing_result_token_falls_back_to_the_tag() {
        assert_eq!(parse("[Result \"0-1\"]\ne2e4").result, GameResult::BlackWins);
        assert_eq!(parse("e2e4").result, GameResult::Ongoing);
        assert_eq!(parse("").moves.len(), 0);
    }

    #[test]
    fn errors_name_line_and_column() {
        let cases: [(&str, usize, usize, &str); 10] = [
            ("[Event \"x\"]\n1. e2e4 e7e9 *", 2, 9, "bad move `e7e9`"),
            ("[Event \"x]\n", 1, 8, "no closing `\"`"),
            ("[ \"x\"]", 1, 3, "expected a tag name"),
            ("[Event x]", 1, 8, "double quotes"),
            ("[Event \"x\" junk]", 1, 12, "expected `]`"),
            ("[Event \"a\\n\"]", 1, 10, "not an escape"),
            ("[Event \"a\"]\n[Event \"b\"]", 2, 1, "tag Event is given twice"),
            ("e2e4 [Event \"a\"]", 1, 6, "tags go before the moves"),
            ("e2e4 { open", 1, 6, "no closing `}`"),
            ("[Result \"1-0\"]\ne2e4 0-1", 2, 6, "disagrees with the Result tag"),
        ];
        for (text, line, column, expected) in cases {
            let error = problem(text);
            assert_eq!((error.line, error.column), (line, column), "{text:?}: {error}");
            assert!(error.to_string().contains(expected), "{text:?}: {error}");
        }
        let error = problem("e2e4 * e7e5");
        assert_eq!(error.to_string(), "line 1, column 8: unexpected `e7e5` after the result");
        assert!(problem("[Result \"2-0\"]").to_string().contains("is not a result"));
    }
}
