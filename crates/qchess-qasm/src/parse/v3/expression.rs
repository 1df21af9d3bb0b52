//! Expressions of OpenQASM 3 by precedence climbing (`**` right-associative and tighter than a
//! unary minus on its left), with indexing, calls, casts, literals, `measure` and
//! `durationof`; and qubit or bit operands, which are expressions of a restricted shape.

use super::lexer::Token;
use super::parser::{ParseError, Parser};
use super::syntax::{BinaryOp, Expr, ExprKind, IndexItem, TimeUnit, UnaryOp};

impl Parser<'_> {
    /// A comma-separated list of operands (possibly empty, before a `;`).
    pub(super) fn operands(&mut self) -> Result<Vec<Expr>, ParseError> {
        let mut operands = Vec::new();
        if self.is(";") {
            return Ok(operands);
        }
        loop {
            operands.push(self.operand()?);
            if !self.eat(",") {
                return Ok(operands);
            }
        }
    }

    /// A qubit or bit: `q`, `q[1]`, `q[0:2]`, `$3`.
    pub(super) fn operand(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Some(Token::Physical(n)) => {
                let offset = self.offset();
                self.at += 1;
                Ok(Expr { kind: ExprKind::Physical(*n), offset })
            }
            Some(Token::Ident(_)) => self.postfix(),
            _ => self.error(format!("expected a qubit or bit, found {}", self.found())),
        }
    }

    /// An expression, lowest precedence first.
    pub(super) fn expression(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let result = self.binary(0);
        self.leave();
        result
    }

    /// Precedence climbing: operands bound by operators of at least `min` precedence.
    fn binary(&mut self, min: u8) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        while let Some((precedence, op)) = self.binary_operator().filter(|&(p, _)| p >= min) {
            let offset = left.offset;
            self.at += 1;
            // Left-associative: the right side takes only tighter operators.
            self.enter()?;
            let right = self.binary(precedence + 1);
            self.leave();
            let right = Box::new(right?);
            let kind = match op {
                None => ExprKind::Concat(Box::new(left), right),
                Some(op) => ExprKind::Binary(op, Box::new(left), right),
            };
            left = Expr { kind, offset };
        }
        Ok(left)
    }

    /// The binary operator next, with its precedence (higher binds tighter); `None` is `++`.
    fn binary_operator(&self) -> Option<(u8, Option<BinaryOp>)> {
        let Some(Token::Sym(symbol)) = self.peek() else {
            return None;
        };
        let (precedence, op) = match *symbol {
            "++" => return Some((0, None)),
            "||" => (1, BinaryOp::Or),
            "&&" => (2, BinaryOp::And),
            "|" => (3, BinaryOp::BitOr),
            "^" => (4, BinaryOp::BitXor),
            "&" => (5, BinaryOp::BitAnd),
            "==" => (6, BinaryOp::Eq),
            "!=" => (6, BinaryOp::Ne),
            "<" => (7, BinaryOp::Lt),
            "<=" => (7, BinaryOp::Le),
            ">" => (7, BinaryOp::Gt),
            ">=" => (7, BinaryOp::Ge),
            "<<" => (8, BinaryOp::Shl),
            ">>" => (8, BinaryOp::Shr),
            "+" => (9, BinaryOp::Add),
            "-" => (9, BinaryOp::Sub),
            "*" => (10, BinaryOp::Mul),
            "/" => (10, BinaryOp::Div),
            "%" => (10, BinaryOp::Rem),
            _ => return None,
        };
        Some((precedence, Some(op)))
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        let offset = self.offset();
        let op = match self.peek() {
            Some(Token::Sym("-")) => Some(UnaryOp::Neg),
            Some(Token::Sym("+")) => Some(UnaryOp::Plus),
            Some(Token::Sym("!")) => Some(UnaryOp::Not),
            Some(Token::Sym("~")) => Some(UnaryOp::BitNot),
            _ => None,
        };
        if let Some(op) = op {
            self.at += 1;
            self.enter()?;
            let inner = self.unary();
            self.leave();
            return Ok(Expr { kind: ExprKind::Unary(op, Box::new(inner?)), offset });
        }
        self.power()
    }

    /// `a ** b`, right-associative, binding tighter than a unary minus on its left.
    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.postfix()?;
        if !self.eat("**") {
            return Ok(base);
        }
        self.enter()?;
        let exponent = self.unary();
        self.leave();
        let offset = base.offset;
        Ok(Expr { kind: ExprKind::Binary(BinaryOp::Pow, Box::new(base), Box::new(exponent?)), offset })
    }

    /// A primary expression followed by any number of `[...]` indices.
    pub(super) fn postfix(&mut self) -> Result<Expr, ParseError> {
        let mut expr = self.primary()?;
        while self.eat("[") {
            let items = self.index_items()?;
            self.expect("]")?;
            let offset = expr.offset;
            expr = Expr { kind: ExprKind::Index(Box::new(expr), items), offset };
        }
        Ok(expr)
    }

    /// The comma-separated items inside `[...]`: indices, ranges `a:b` / `a:s:b`, sets `{a, b}`.
    fn index_items(&mut self) -> Result<Vec<IndexItem>, ParseError> {
        let mut items = vec![self.index_item()?];
        while self.eat(",") {
            items.push(self.index_item()?);
        }
        Ok(items)
    }

    fn index_item(&mut self) -> Result<IndexItem, ParseError> {
        if self.is("{") {
            let ExprKind::List(items) = self.primary()?.kind else { unreachable!("a brace starts a list") };
            return Ok(IndexItem::Set(items));
        }
        let first = if self.is(":") { None } else { Some(self.expression()?) };
        if !self.eat(":") {
            return first.map(IndexItem::Single).map_or_else(|| self.error("an empty index"), Ok);
        }
        let second = if self.is("]") || self.is(":") || self.is(",") { None } else { Some(self.expression()?) };
        if self.eat(":") {
            let third = if self.is("]") || self.is(",") { None } else { Some(self.expression()?) };
            return Ok(IndexItem::Range { start: first, step: second, end: third });
        }
        Ok(IndexItem::Range { start: first, step: None, end: second })
    }

    /// Comma-separated expressions up to `close`.
    fn list(&mut self, close: &str) -> Result<Vec<Expr>, ParseError> {
        let mut items = Vec::new();
        if self.eat(close) {
            return Ok(items);
        }
        loop {
            items.push(self.expression()?);
            if self.eat(close) {
                return Ok(items);
            }
            self.expect(",")?;
        }
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let offset = self.offset();
        let kind = match self.next() {
            Some(Token::Int(i)) => ExprKind::Int(*i),
            Some(Token::Float(x)) => ExprKind::Float(*x),
            Some(Token::Imag(x)) => ExprKind::Imag(*x),
            Some(Token::Physical(n)) => ExprKind::Physical(*n),
            Some(Token::Timing(value, unit)) => {
                let unit = match *unit {
                    "dt" => TimeUnit::Dt,
                    "ns" => TimeUnit::Seconds(1e9),
                    "us" => TimeUnit::Seconds(1e6),
                    "ms" => TimeUnit::Seconds(1e3),
                    _ => TimeUnit::Seconds(1.0),
                };
                ExprKind::Duration(*value, unit)
            }
            Some(Token::Str(text)) => {
                if text.is_empty() || !text.chars().all(|c| matches!(c, '0' | '1' | '_')) {
                    self.at -= 1;
                    return self.error("a bit string holds only `0`, `1` and `_`");
                }
                ExprKind::BitString(text.chars().filter(|&c| c != '_').collect())
            }
            Some(Token::Sym("(")) => {
                let inner = self.expression()?;
                self.expect(")")?;
                return Ok(Expr { kind: inner.kind, offset });
            }
            Some(Token::Sym("{")) => {
                self.enter()?;
                let items = self.list("}");
                self.leave();
                ExprKind::List(items?)
            }
            Some(Token::Ident(name)) => match name.as_str() {
                "true" => ExprKind::Bool(true),
                "false" => ExprKind::Bool(false),
                "measure" => ExprKind::Measure(Box::new(self.operand()?)),
                "durationof" => {
                    self.expect("(")?;
                    let body = self.block("a `durationof` block")?;
                    self.expect(")")?;
                    ExprKind::DurationOf(body)
                }
                word if super::declarations::scalar_kind(word).is_some() && (self.is("(") || self.is("[")) => {
                    self.at -= 1;
                    let ty = self.type_syntax()?;
                    self.expect("(")?;
                    let value = self.expression()?;
                    self.expect(")")?;
                    ExprKind::Cast(Box::new(ty), Box::new(value))
                }
                _ if self.eat("(") => {
                    self.enter()?;
                    let args = self.list(")");
                    self.leave();
                    ExprKind::Call(name.clone(), args?)
                }
                _ => ExprKind::Name(name.clone()),
            },
            _ => {
                self.at -= 1;
                return self.error(format!("expected an expression, found {}", self.found()));
            }
        };
        Ok(Expr { kind, offset })
    }
}
