//! OpenQASM 3 statements from tokens: the parser's state, its helpers, and the dispatch on a
//! statement's first token. Declarations are read in `declarations`, control flow and quantum
//! statements in `control`, expressions in `expression`. Pulse-level constructs are refused by
//! name.

use super::lexer::{Lexeme, Token};
use super::syntax::{Stmt, StmtKind};

/// The deepest nesting of expressions, blocks and statements accepted (bounds recursion).
const MAX_DEPTH: usize = 64;

/// A parse error: offset and message.
pub(super) type ParseError = (usize, String);

/// Constructs this reader refuses, with what each is called in messages.
const REFUSED: &[(&str, &str)] = &[
    ("defcal", "calibrations (`defcal`) are pulse programs, which are not supported"),
    ("defcalgrammar", "calibration grammars (`defcalgrammar`) are pulse programs, which are not supported"),
    ("cal", "calibration blocks (`cal`) are pulse programs, which are not supported"),
    ("opaque", "`opaque` gates (OpenQASM 2 only) are not supported"),
];

pub(super) struct Parser<'t> {
    tokens: &'t [Lexeme],
    pub(super) at: usize,
    end_offset: usize,
    pub(super) depth: usize,
}

impl<'t> Parser<'t> {
    pub(super) fn new(tokens: &'t [Lexeme], end_offset: usize) -> Parser<'t> {
        Parser { tokens, at: 0, end_offset, depth: 0 }
    }

    /// Every statement up to the end of the tokens.
    pub(super) fn program(&mut self) -> Result<Vec<Stmt>, ParseError> {
        let mut statements = Vec::new();
        while self.peek().is_some() {
            statements.push(self.statement()?);
        }
        Ok(statements)
    }

    pub(super) fn peek(&self) -> Option<&'t Token> {
        self.tokens.get(self.at).map(|l| &l.token)
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<&'t Token> {
        self.tokens.get(self.at + ahead).map(|l| &l.token)
    }

    pub(super) fn offset(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end_offset, |l| l.offset)
    }

    pub(super) fn next(&mut self) -> Option<&'t Token> {
        let token = self.peek();
        self.at += 1;
        token
    }

    pub(super) fn error<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err((self.offset(), message.into()))
    }

    /// A description of the next token for "expected ..." messages.
    pub(super) fn found(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some(Token::Ident(name)) => format!("`{}`", qchess_core::text::excerpt(name)),
            Some(Token::Int(i)) => format!("`{i}`"),
            Some(Token::Float(x)) => format!("`{x}`"),
            Some(Token::Imag(x)) => format!("`{x}im`"),
            Some(Token::Timing(x, unit)) => format!("`{x}{unit}`"),
            Some(Token::Str(_)) => "a string".into(),
            Some(Token::Physical(n)) => format!("`${n}`"),
            Some(Token::Directive(kind)) => format!("a {kind}"),
            Some(Token::Sym(s)) => format!("`{s}`"),
        }
    }

    pub(super) fn is(&self, symbol: &str) -> bool {
        matches!(self.peek(), Some(Token::Sym(s)) if *s == symbol)
    }

    pub(super) fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Ident(w)) if w == word)
    }

    pub(super) fn eat(&mut self, symbol: &str) -> bool {
        let found = self.is(symbol);
        if found {
            self.at += 1;
        }
        found
    }

    pub(super) fn eat_word(&mut self, word: &str) -> bool {
        let found = self.is_word(word);
        if found {
            self.at += 1;
        }
        found
    }

    pub(super) fn expect(&mut self, symbol: &str) -> Result<(), ParseError> {
        if self.eat(symbol) { Ok(()) } else { self.error(format!("expected `{symbol}`, found {}", self.found())) }
    }

    pub(super) fn ident(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Token::Ident(name)) => {
                self.at += 1;
                Ok(name.clone())
            }
            _ => self.error(format!("expected {what}, found {}", self.found())),
        }
    }

    /// Enters one more level of nesting, refusing past [`MAX_DEPTH`].
    pub(super) fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { self.error(format!("nested more than {MAX_DEPTH} deep")) } else { Ok(()) }
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// `{ statements }`.
    pub(super) fn block(&mut self, what: &str) -> Result<Vec<Stmt>, ParseError> {
        self.expect("{")?;
        self.enter()?;
        let mut statements = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return self.error(format!("{what} is never closed"));
            }
            statements.push(self.statement()?);
        }
        self.leave();
        Ok(statements)
    }

    /// A block `{ ... }` or a single statement (the body of `if`, `for`, `while`).
    pub(super) fn body(&mut self) -> Result<Vec<Stmt>, ParseError> {
        if self.is("{") {
            return self.block("a block");
        }
        self.enter()?;
        let statement = self.statement();
        self.leave();
        Ok(vec![statement?])
    }

    /// One statement.
    pub(super) fn statement(&mut self) -> Result<Stmt, ParseError> {
        let offset = self.offset();
        let kind = match self.peek() {
            Some(Token::Directive(kind)) => return self.error(format!("{kind}s are not supported")),
            Some(Token::Sym("{")) => StmtKind::Block(self.block("a block")?),
            Some(Token::Ident(word)) => match word.as_str() {
                "OPENQASM" => self.version()?,
                "include" => {
                    self.at += 1;
                    let Some(Token::Str(path)) = self.next() else {
                        self.at -= 1;
                        return self.error(format!("expected a file name in quotes, found {}", self.found()));
                    };
                    self.expect(";")?;
                    StmtKind::Include(path.clone())
                }
                "else" => return self.error("`else` without an `if`"),
                "case" | "default" => return self.error(format!("`{word}` outside a `switch`")),
                other => {
                    if let Some((_, message)) = REFUSED.iter().find(|(k, _)| *k == other) {
                        return self.error(*message);
                    }
                    match self.declaration()? {
                        Some(kind) => kind,
                        None => match self.control()? {
                            Some(kind) => kind,
                            None => self.assignment_or_call()?,
                        },
                    }
                }
            },
            _ => return self.error(format!("expected a statement, found {}", self.found())),
        };
        Ok(Stmt { kind, offset })
    }

    fn version(&mut self) -> Result<StmtKind, ParseError> {
        self.at += 1;
        let version = match self.next() {
            Some(Token::Int(i)) => i.to_string(),
            Some(Token::Float(x)) => {
                let text = x.to_string();
                if text.contains('.') { text } else { format!("{text}.0") }
            }
            _ => {
                self.at -= 1;
                return self.error(format!("expected a version number, found {}", self.found()));
            }
        };
        self.expect(";")?;
        Ok(StmtKind::Version(version))
    }
}
