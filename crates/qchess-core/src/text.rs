//! Showing user input and error chains in messages a person reads.
//!
//! Input named by an error goes through [`excerpt`]: a terminal must never receive the raw
//! bytes a user (or a file) gave us, and a 100 KB argument must not come back as a 100 KB
//! error line. Errors follow one convention: a type's `Display` says only its own words, and
//! its cause is reachable through [`std::error::Error::source`]; [`with_causes`] joins the
//! chain for places that need one line of text (JSON error bodies, reports).

use std::error::Error;
use std::fmt::Write as _;

/// How many characters of input an error message shows before cutting with `...`.
pub const EXCERPT_CHARS: usize = 60;

/// How many characters of a whole message line built by someone else (a JSON parser, an
/// argument parser) that may quote input are shown before cutting with `...`.
pub const LINE_CHARS: usize = 300;

/// `text` made safe for a message: control characters escaped (`\n`, `\t`, `\u{1b}`) and cut
/// to [`EXCERPT_CHARS`] characters followed by `...` when longer.
///
/// ```
/// use qchess_core::text::excerpt;
///
/// assert_eq!(excerpt("\u{1b}[31mRED"), "\\u{1b}[31mRED");
/// assert_eq!(excerpt(&"a".repeat(100)), format!("{}...", "a".repeat(60)));
/// ```
pub fn excerpt(text: &str) -> String {
    excerpt_of(text, EXCERPT_CHARS)
}

/// A message line that may quote input (a parser's error): escaped, cut at [`LINE_CHARS`].
pub fn excerpt_line(text: &str) -> String {
    excerpt_of(text, LINE_CHARS)
}

/// [`excerpt`] with another limit.
pub fn excerpt_of(text: &str, limit: usize) -> String {
    let mut shown = String::new();
    let mut count = 0;
    for c in text.chars() {
        let escaped = escape(c);
        let width = escaped.chars().count();
        if count + width > limit {
            shown.push_str("...");
            return shown;
        }
        count += width;
        shown.push_str(&escaped);
    }
    shown
}

/// One character as shown in a message: itself, or an escape when it would act on a terminal.
fn escape(c: char) -> String {
    match c {
        '\n' => "\\n".to_owned(),
        '\r' => "\\r".to_owned(),
        '\t' => "\\t".to_owned(),
        // Bidirectional overrides and zero-width characters can reorder or hide what follows.
        c if c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') =>
        {
            c.escape_unicode().to_string()
        }
        c => c.to_string(),
    }
}

/// The error's message followed by each cause's, joined by `: ` (the chain a person reads).
///
/// ```
/// use qchess_core::text::with_causes;
///
/// #[derive(Debug, thiserror::Error)]
/// #[error("saving the record")]
/// struct Save(#[source] std::io::Error);
///
/// let error = Save(std::io::Error::other("disk full"));
/// assert_eq!(with_causes(&error), "saving the record: disk full");
/// ```
pub fn with_causes(error: &(dyn Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let _ = write!(text, ": {cause}");
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_plain_text_is_unchanged() {
        assert_eq!(excerpt("b1^a3c3"), "b1^a3c3");
        assert_eq!(excerpt(""), "");
        assert_eq!(excerpt("é♞"), "é♞");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(excerpt("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(excerpt("\u{1b}[31mRED"), "\\u{1b}[31mRED");
        assert_eq!(excerpt("\u{7f}\u{0}"), "\\u{7f}\\u{0}");
        assert_eq!(excerpt("x\u{202e}y"), "x\\u{202e}y");
        assert!(!excerpt("\u{1b}\u{9b}\u{7}").chars().any(char::is_control));
    }

    #[test]
    fn long_text_is_cut_at_the_limit() {
        let long = "x".repeat(100_000);
        let shown = excerpt(&long);
        assert_eq!(shown, format!("{}...", "x".repeat(EXCERPT_CHARS)));
        assert_eq!(excerpt(&"x".repeat(EXCERPT_CHARS)), "x".repeat(EXCERPT_CHARS));
    }

    #[test]
    fn an_escape_is_never_cut_in_half() {
        let text = format!("{}\u{1b}tail", "x".repeat(EXCERPT_CHARS - 2));
        assert_eq!(excerpt(&text), format!("{}...", "x".repeat(EXCERPT_CHARS - 2)));
    }

    #[test]
    fn the_chain_is_joined_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("outer")]
        struct Outer(#[source] Inner);
        #[derive(Debug, thiserror::Error)]
        #[error("inner")]
        struct Inner(#[source] std::io::Error);
        let error = Outer(Inner(std::io::Error::other("root")));
        assert_eq!(with_causes(&error), "outer: inner: root");
    }
}
