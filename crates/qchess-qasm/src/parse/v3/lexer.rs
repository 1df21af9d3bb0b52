//! OpenQASM 3 tokens with their byte offsets.

/// A token.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    /// A name or keyword (Unicode letters allowed, as the specification allows).
    Ident(String),
    /// An integer literal (decimal, `0x`, `0o`, `0b`, `_` separators).
    Int(u64),
    /// A real literal.
    Float(f64),
    /// An imaginary literal (`2.5im`): its imaginary part.
    Imag(f64),
    /// A number with a time unit: the value and the unit (`ns`, `us`, `ms`, `s`, `dt`).
    Timing(f64, &'static str),
    /// A string literal's contents.
    Str(String),
    /// A physical qubit `$n`.
    Physical(u32),
    /// `#pragma ...` or `@annotation ...` to the end of the line.
    Directive(&'static str),
    /// Punctuation or an operator.
    Sym(&'static str),
}

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Lexeme {
    pub(super) token: Token,
    pub(super) offset: usize,
}

/// A lexical error: offset and message.
pub(super) type LexError = (usize, String);

/// Operators and punctuation, longest first.
const SYMBOLS: &[&str] = &[
    "**=", "<<=", ">>=", "->", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "**", "++", "+=", "-=", "*=", "/=",
    "&=", "|=", "^=", "%=", ";", ",", "(", ")", "[", "]", "{", "}", ":", "@", "=", "<", ">", "+", "-", "*", "/", "%",
    "!", "~", "&", "|", "^", ".",
];

/// The tokens of `text`.
pub(super) fn lex(text: &str) -> Result<Vec<Lexeme>, LexError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = text[i..].chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            continue;
        }
        if text[i..].starts_with("/*") {
            let end = text[i + 2..].find("*/").ok_or((i, "a `/*` comment is never closed".to_string()))?;
            i += end + 4;
            continue;
        }
        let start = i;
        if text[i..].starts_with("#dim") && !text[i + 4..].starts_with(|n: char| n.is_alphanumeric() || n == '_') {
            out.push(Lexeme { token: Token::Sym("#dim"), offset: start });
            i += 4;
            continue;
        }
        if c == '#' || (c == '@' && text[i + 1..].starts_with(|n: char| n.is_alphabetic())) {
            let kind = if c == '#' { "pragma" } else { "annotation" };
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            out.push(Lexeme { token: Token::Directive(kind), offset: start });
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            while let Some(n) = text[i..].chars().next().filter(|n| n.is_alphanumeric() || *n == '_') {
                i += n.len_utf8();
            }
            out.push(Lexeme { token: Token::Ident(text[start..i].to_string()), offset: start });
            continue;
        }
        if c.is_ascii_digit() || (c == '.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let (token, end) = number(text, i)?;
            i = end;
            out.push(Lexeme { token, offset: start });
            continue;
        }
        if c == '$' {
            i += 1;
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let index = text[start + 1..i].parse::<u32>().map_err(|_| {
                (start, format!("`{}` is not a physical qubit", excerpt(&text[start..i.max(start + 1)])))
            })?;
            out.push(Lexeme { token: Token::Physical(index), offset: start });
            continue;
        }
        if c == '"' || c == '\'' {
            let close = text[i + 1..].find(c).ok_or((i, "a string is never closed".to_string()))?;
            let contents = &text[i + 1..i + 1 + close];
            if contents.contains('\n') {
                return Err((i, "a string is never closed on its line".to_string()));
            }
            out.push(Lexeme { token: Token::Str(contents.to_string()), offset: start });
            i += close + 2;
            continue;
        }
        match SYMBOLS.iter().find(|s| text[i..].starts_with(**s)) {
            Some(symbol) => {
                out.push(Lexeme { token: Token::Sym(symbol), offset: start });
                i += symbol.len();
            }
            None => return Err((i, format!("unexpected character `{}`", c.escape_debug()))),
        }
    }
    Ok(out)
}

fn excerpt(text: &str) -> String {
    qchess_core::text::excerpt(text)
}

/// A numeric literal starting at `start`, with an optional time unit, and where it ends.
fn number(text: &str, start: usize) -> Result<(Token, usize), LexError> {
    let bytes = text.as_bytes();
    let radix = match (bytes[start], bytes.get(start + 1).map(u8::to_ascii_lowercase)) {
        (b'0', Some(b'x')) => 16,
        (b'0', Some(b'o')) => 8,
        (b'0', Some(b'b')) => 2,
        _ => 10,
    };
    let bad = |end: usize| (start, format!("`{}` is not a number", excerpt(&text[start..end])));
    if radix != 10 {
        let mut i = start + 2;
        while bytes.get(i).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') {
            i += 1;
        }
        let digits: String = text[start + 2..i].chars().filter(|&c| c != '_').collect();
        let value = u64::from_str_radix(&digits, radix).map_err(|_| bad(i))?;
        return Ok((Token::Int(value), i));
    }
    let mut i = start;
    let digits = |mut i: usize| {
        while bytes.get(i).is_some_and(|b| b.is_ascii_digit() || *b == b'_') {
            i += 1;
        }
        i
    };
    i = digits(i);
    let mut real = false;
    if bytes.get(i) == Some(&b'.') {
        real = true;
        i = digits(i + 1);
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if bytes.get(j).is_some_and(u8::is_ascii_digit) {
            real = true;
            i = digits(j);
        }
    }
    let literal: String = text[start..i].chars().filter(|&c| c != '_').collect();
    let value: f64 = literal.parse().map_err(|_| bad(i))?;
    // A time unit or `im` after the number (directly, or after blanks on the same line) makes
    // it a duration or an imaginary number.
    let blanks = text[i..].len() - text[i..].trim_start_matches([' ', '\t']).len();
    let after = i + blanks;
    let whole_word = |word: &str| {
        text[after..].starts_with(word)
            && !text[after + word.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    };
    for (written, unit) in [("ns", "ns"), ("us", "us"), ("µs", "us"), ("ms", "ms"), ("s", "s"), ("dt", "dt")] {
        if whole_word(written) {
            return Ok((Token::Timing(value, unit), after + written.len()));
        }
    }
    if whole_word("im") {
        return Ok((Token::Imag(value), after + 2));
    }
    if real {
        return Ok((Token::Float(value), i));
    }
    match literal.parse::<u64>() {
        Ok(int) => Ok((Token::Int(int), i)),
        // Integers past 64 bits are kept as reals.
        Err(_) => Ok((Token::Float(value), i)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<Token> {
        lex(text).expect("lexes").into_iter().map(|l| l.token).collect()
    }

    #[test]
    fn literals_names_and_operators() {
        assert_eq!(
            tokens("rz(1.e-07) $12; // comment\nπ**2 0x1F 1_000 .5 100ns 2.5µs"),
            [
                Token::Ident("rz".into()),
                Token::Sym("("),
                Token::Float(1e-7),
                Token::Sym(")"),
                Token::Physical(12),
                Token::Sym(";"),
                Token::Ident("π".into()),
                Token::Sym("**"),
                Token::Int(2),
                Token::Int(31),
                Token::Int(1000),
                Token::Float(0.5),
                Token::Timing(100.0, "ns"),
                Token::Timing(2.5, "us"),
            ]
        );
        assert_eq!(
            tokens("1000 ms 3.5im 2 im 0xFFFF_FFFF_FFFF_FFFF #dim=1 2 s_x"),
            [
                Token::Timing(1000.0, "ms"),
                Token::Imag(3.5),
                Token::Imag(2.0),
                Token::Int(u64::MAX),
                Token::Sym("#dim"),
                Token::Sym("="),
                Token::Int(1),
                Token::Int(2),
                Token::Ident("s_x".into()),
            ]
        );
        assert_eq!(tokens("c[0] = measure q[1]; /* a\n block */ -> !="), {
            let mut t: Vec<Token> = ["c"].iter().map(|s| Token::Ident((*s).into())).collect();
            t.extend([
                Token::Sym("["),
                Token::Int(0),
                Token::Sym("]"),
                Token::Sym("="),
                Token::Ident("measure".into()),
            ]);
            t.extend([Token::Ident("q".into()), Token::Sym("["), Token::Int(1), Token::Sym("]"), Token::Sym(";")]);
            t.extend([Token::Sym("->"), Token::Sym("!=")]);
            t
        });
    }

    #[test]
    fn errors_have_offsets() {
        assert_eq!(lex("x q;\n  `").unwrap_err().0, 7);
        assert_eq!(lex("/* never").unwrap_err(), (0, "a `/*` comment is never closed".into()));
        assert!(lex("include \"std").unwrap_err().1.contains("never closed"));
        assert_eq!(tokens("#pragma foo\nx"), [Token::Directive("pragma"), Token::Ident("x".into())]);
    }
}
