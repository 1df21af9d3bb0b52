//! OpenQASM 3 statements from tokens: the subset the reader supports, and a clear refusal
//! naming every other construct.

use super::lexer::{Lexeme, Token};
use crate::program::expr::Expr;

/// The deepest nesting of expressions, `if`s and blocks accepted (bounds recursion).
const MAX_DEPTH: usize = 64;

/// A statement and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Stmt {
    pub(super) kind: StmtKind,
    pub(super) offset: usize,
}

/// The type of a `const` declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ConstType {
    Int,
    Float,
    Bool,
}

/// A modifier before `@`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ModifierAst {
    pub(super) name: &'static str,
    pub(super) arg: Option<Expr>,
    pub(super) offset: usize,
}

/// Which elements of a register an index picks.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Index {
    Single(Expr),
    Range { start: Option<Expr>, step: Option<Expr>, end: Option<Expr> },
    Set(Vec<Expr>),
}

/// A qubit or bit operand.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum OperandKind {
    Name(String),
    Indexed(String, Index),
    Physical(u32),
}

/// An operand and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Operand {
    pub(super) kind: OperandKind,
    pub(super) offset: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum StmtKind {
    Version(String),
    Include(String),
    QubitDecl { name: String, size: Option<Expr> },
    BitDecl { name: String, size: Option<Expr> },
    Const { ty: ConstType, name: String, value: Expr },
    GateDef { name: String, params: Vec<String>, qubits: Vec<(String, usize)>, body: Vec<Stmt> },
    Call { modifiers: Vec<ModifierAst>, name: String, params: Vec<Expr>, operands: Vec<Operand> },
    Measure { source: Operand, target: Option<Operand> },
    Reset(Operand),
    Barrier(Vec<Operand>),
    Delay { seconds: f64, dt: bool, operands: Vec<Operand> },
    If { condition: Expr, then: Vec<Stmt>, otherwise: Option<Vec<Stmt>> },
}

/// A parse error: offset and message.
pub(super) type ParseError = (usize, String);

/// What each unsupported keyword at the start of a statement is called in messages.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("for", "`for` loops"),
    ("while", "`while` loops"),
    ("switch", "`switch` statements"),
    ("def", "subroutines (`def`)"),
    ("defcal", "calibrations (`defcal`)"),
    ("defcalgrammar", "calibration grammars (`defcalgrammar`)"),
    ("cal", "calibration blocks (`cal`)"),
    ("extern", "`extern` functions"),
    ("box", "`box` blocks"),
    ("let", "aliases (`let`)"),
    ("input", "`input` declarations (bind every parameter before export)"),
    ("output", "`output` declarations"),
    ("return", "`return`"),
    ("break", "`break`"),
    ("continue", "`continue`"),
    ("end", "`end`"),
    ("opaque", "`opaque` gates (OpenQASM 2 only)"),
    ("stretch", "`stretch` declarations"),
    ("duration", "`duration` variables"),
    ("array", "arrays"),
    ("complex", "`complex` variables"),
    ("int", "classical variables (only `const` declarations are)"),
    ("uint", "classical variables (only `const` declarations are)"),
    ("float", "classical variables (only `const` declarations are)"),
    ("angle", "classical variables (only `const` declarations are)"),
    ("bool", "classical variables (only `const` declarations are)"),
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
            statements.push(self.statement(false)?);
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

    pub(super) fn eat(&mut self, symbol: &str) -> bool {
        let found = self.is(symbol);
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

    pub(super) fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { self.error(format!("nested more than {MAX_DEPTH} deep")) } else { Ok(()) }
    }

    /// One statement; `in_gate` restricts it to what a gate body may hold.
    fn statement(&mut self, in_gate: bool) -> Result<Stmt, ParseError> {
        let offset = self.offset();
        let kind = match self.peek() {
            Some(Token::Directive(kind)) => return self.error(format!("{kind}s are not supported")),
            Some(Token::Ident(word)) => match word.as_str() {
                "OPENQASM" if !in_gate => self.version()?,
                "include" if !in_gate => {
                    self.at += 1;
                    let Some(Token::Str(path)) = self.next() else {
                        self.at -= 1;
                        return self.error(format!("expected a file name in quotes, found {}", self.found()));
                    };
                    self.expect(";")?;
                    StmtKind::Include(path.clone())
                }
                "qubit" | "bit" if !in_gate => self.declaration(word == "qubit", true)?,
                "qreg" | "creg" if !in_gate => self.declaration(word == "qreg", false)?,
                "const" if !in_gate => self.constant()?,
                "gate" if !in_gate => self.gate_definition()?,
                "measure" if !in_gate => {
                    self.at += 1;
                    let source = self.operand()?;
                    let target = if self.eat("->") { Some(self.operand()?) } else { None };
                    self.expect(";")?;
                    StmtKind::Measure { source, target }
                }
                "reset" if !in_gate => {
                    self.at += 1;
                    let operand = self.operand()?;
                    self.expect(";")?;
                    StmtKind::Reset(operand)
                }
                "barrier" => {
                    self.at += 1;
                    let operands = self.operands()?;
                    self.expect(";")?;
                    StmtKind::Barrier(operands)
                }
                "delay" if !in_gate => self.delay()?,
                "if" if !in_gate => self.conditional()?,
                "else" => return self.error("`else` without an `if`"),
                other => {
                    if let Some((_, what)) = UNSUPPORTED.iter().find(|(k, _)| *k == other) {
                        return self.error(format!("{what} are not supported"));
                    }
                    if in_gate && matches!(other, "measure" | "reset" | "delay" | "if" | "qubit" | "bit" | "gate") {
                        return self.error(format!("`{other}` cannot appear in a gate definition"));
                    }
                    // A name followed by `=` or `[` is an assignment target: gate names are never indexed.
                    if !in_gate && matches!(self.peek_at(1), Some(Token::Sym("=" | "[" | "+=" | "-="))) {
                        self.assignment()?
                    } else {
                        self.call()?
                    }
                }
            },
            Some(Token::Sym("{")) => return self.error("a bare block `{ ... }` is not supported"),
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

    /// `qubit[n] q;` / `bit c;` (new style) or `qreg q[n];` / `creg c;` (old style).
    fn declaration(&mut self, quantum: bool, new_style: bool) -> Result<StmtKind, ParseError> {
        self.at += 1;
        let mut size = None;
        if new_style && self.eat("[") {
            size = Some(self.expression()?);
            self.expect("]")?;
        }
        let name = self.ident("a register name")?;
        if !new_style && self.eat("[") {
            size = Some(self.expression()?);
            self.expect("]")?;
        }
        if self.is("=") {
            return self.error("initialised registers are not supported");
        }
        self.expect(";")?;
        Ok(if quantum { StmtKind::QubitDecl { name, size } } else { StmtKind::BitDecl { name, size } })
    }

    fn constant(&mut self) -> Result<StmtKind, ParseError> {
        self.at += 1;
        let ty = match self.ident("a type")?.as_str() {
            "int" | "uint" => ConstType::Int,
            "float" | "angle" => ConstType::Float,
            "bool" => ConstType::Bool,
            other => {
                self.at -= 1;
                return self
                    .error(format!("constants of type `{}` are not supported", qchess_core::text::excerpt(other)));
            }
        };
        if self.eat("[") {
            self.expression()?;
            self.expect("]")?;
        }
        let name = self.ident("a constant name")?;
        self.expect("=")?;
        let value = self.expression()?;
        self.expect(";")?;
        Ok(StmtKind::Const { ty, name, value })
    }

    fn gate_definition(&mut self) -> Result<StmtKind, ParseError> {
        self.at += 1;
        let name = self.ident("a gate name")?;
        let mut params = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                params.push(self.ident("a parameter name")?);
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let mut qubits = Vec::new();
        while !self.is("{") {
            let offset = self.offset();
            qubits.push((self.ident("a qubit argument")?, offset));
            if !self.eat(",") {
                break;
            }
        }
        self.expect("{")?;
        self.enter()?;
        let mut body = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return self.error("a gate definition is never closed");
            }
            body.push(self.statement(true)?);
        }
        self.depth -= 1;
        Ok(StmtKind::GateDef { name, params, qubits, body })
    }

    /// `c = measure q;` or `c[i] = measure q[j];`.
    fn assignment(&mut self) -> Result<StmtKind, ParseError> {
        let target = self.operand()?;
        if !self.eat("=") {
            return self.error(format!("only `= measure` assignments are supported, found {}", self.found()));
        }
        if !matches!(self.peek(), Some(Token::Ident(w)) if w == "measure") {
            return self.error("only `= measure` assignments are supported (classical computation is not)");
        }
        self.at += 1;
        let source = self.operand()?;
        self.expect(";")?;
        Ok(StmtKind::Measure { source, target: Some(target) })
    }

    fn delay(&mut self) -> Result<StmtKind, ParseError> {
        self.at += 1;
        self.expect("[")?;
        let (seconds, dt) = match self.next() {
            Some(Token::Timing(value, unit)) => match *unit {
                "dt" => (*value, true),
                "ns" => (value / 1e9, false),
                "us" => (value / 1e6, false),
                "ms" => (value / 1e3, false),
                _ => (*value, false),
            },
            _ => {
                self.at -= 1;
                return self.error(format!("expected a duration such as `100ns`, found {}", self.found()));
            }
        };
        self.expect("]")?;
        let operands = self.operands()?;
        self.expect(";")?;
        Ok(StmtKind::Delay { seconds, dt, operands })
    }

    fn conditional(&mut self) -> Result<StmtKind, ParseError> {
        self.at += 1;
        self.expect("(")?;
        let condition = self.expression()?;
        self.expect(")")?;
        self.enter()?;
        let then = self.branch()?;
        let otherwise = if matches!(self.peek(), Some(Token::Ident(w)) if w == "else") {
            self.at += 1;
            Some(self.branch()?)
        } else {
            None
        };
        self.depth -= 1;
        Ok(StmtKind::If { condition, then, otherwise })
    }

    /// A block `{ ... }` or a single statement.
    fn branch(&mut self) -> Result<Vec<Stmt>, ParseError> {
        if !self.eat("{") {
            return Ok(vec![self.statement(false)?]);
        }
        let mut statements = Vec::new();
        while !self.eat("}") {
            if self.peek().is_none() {
                return self.error("a block is never closed");
            }
            statements.push(self.statement(false)?);
        }
        Ok(statements)
    }

    /// `[modifiers @]* name[(params)] operands;`
    fn call(&mut self) -> Result<StmtKind, ParseError> {
        let mut modifiers = Vec::new();
        loop {
            let offset = self.offset();
            let name = match self.peek() {
                Some(Token::Ident(w)) if matches!(w.as_str(), "inv" | "pow" | "ctrl" | "negctrl") => match w.as_str() {
                    "inv" => "inv",
                    "pow" => "pow",
                    "ctrl" => "ctrl",
                    _ => "negctrl",
                },
                _ => break,
            };
            // `pow` and friends are modifiers only before `@` (or `(`...`)` `@`).
            let is_modifier = matches!(self.peek_at(1), Some(Token::Sym("@")))
                || (matches!(self.peek_at(1), Some(Token::Sym("("))) && name != "inv");
            if !is_modifier {
                break;
            }
            self.at += 1;
            let arg = if self.eat("(") {
                let e = self.expression()?;
                self.expect(")")?;
                Some(e)
            } else {
                None
            };
            self.expect("@")?;
            modifiers.push(ModifierAst { name, arg, offset });
        }
        let name = self.ident("a gate name")?;
        let mut params = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                params.push(self.expression()?);
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let operands = self.operands()?;
        self.expect(";")?;
        Ok(StmtKind::Call { modifiers, name, params, operands })
    }
}
