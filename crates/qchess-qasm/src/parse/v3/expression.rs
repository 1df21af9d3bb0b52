//! Operands and expressions of OpenQASM 3: qubit and bit operands with their indices, and
//! classical expressions by precedence climbing (`**` right-associative and tighter than a unary
//! minus on its left).

use super::lexer::Token;
use super::parser::{Index, Operand, OperandKind, ParseError, Parser};
use crate::program::expr::{BinaryOp, Expr, ExprKind, UnaryOp};

impl Parser<'_> {
    /// A comma-separated list of operands (possibly empty).
    pub(super) fn operands(&mut self) -> Result<Vec<Operand>, ParseError> {
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

    pub(super) fn operand(&mut self) -> Result<Operand, ParseError> {
        let offset = self.offset();
        let kind = match self.peek() {
            Some(Token::Physical(n)) => {
                self.at += 1;
                OperandKind::Physical(*n)
            }
            Some(Token::Ident(_)) => {
                let name = self.ident("an operand")?;
                if self.eat("[") {
                    let index = self.index()?;
                    self.expect("]")?;
                    if self.is("[") {
                        return self.error("multi-dimensional indexing is not supported");
                    }
                    OperandKind::Indexed(name, index)
                } else {
                    OperandKind::Name(name)
                }
            }
            _ => return self.error(format!("expected a qubit or bit, found {}", self.found())),
        };
        Ok(Operand { kind, offset })
    }

    /// The inside of `[...]`: an index, a range `a:b` / `a:s:b`, or a set `{a, b}`.
    fn index(&mut self) -> Result<Index, ParseError> {
        if self.eat("{") {
            let mut items = Vec::new();
            if !self.eat("}") {
                loop {
                    items.push(self.expression()?);
                    if self.eat("}") {
                        break;
                    }
                    self.expect(",")?;
                }
            }
            return Ok(Index::Set(items));
        }
        let first = if self.is(":") { None } else { Some(self.expression()?) };
        if !self.eat(":") {
            return first.map(Index::Single).map_or_else(|| self.error("an empty index"), Ok);
        }
        let second = if self.is("]") || self.is(":") { None } else { Some(self.expression()?) };
        if self.eat(":") {
            let third = if self.is("]") { None } else { Some(self.expression()?) };
            return Ok(Index::Range { start: first, step: second, end: third });
        }
        Ok(Index::Range { start: first, step: None, end: second })
    }

    /// An expression, lowest precedence first.
    pub(super) fn expression(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let result = self.binary(1);
        self.depth -= 1;
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
            self.depth -= 1;
            left = Expr { kind: ExprKind::Binary(op, Box::new(left), Box::new(right?)), offset };
        }
        Ok(left)
    }

    /// The binary operator next, with its precedence (higher binds tighter).
    fn binary_operator(&self) -> Option<(u8, BinaryOp)> {
        let Some(Token::Sym(symbol)) = self.peek() else {
            return None;
        };
        Some(match *symbol {
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
        })
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
            self.depth -= 1;
            return Ok(Expr { kind: ExprKind::Unary(op, Box::new(inner?)), offset });
        }
        self.power()
    }

    /// `a ** b`, right-associative, binding tighter than a unary minus on its left.
    fn power(&mut self) -> Result<Expr, ParseError> {
        let base = self.primary()?;
        if !self.eat("**") {
            return Ok(base);
        }
        self.enter()?;
        let exponent = self.unary();
        self.depth -= 1;
        let offset = base.offset;
        Ok(Expr { kind: ExprKind::Binary(BinaryOp::Pow, Box::new(base), Box::new(exponent?)), offset })
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let offset = self.offset();
        let kind = match self.next() {
            Some(Token::Int(i)) => ExprKind::Int(*i),
            Some(Token::Float(x)) => ExprKind::Float(*x),
            Some(Token::Timing(..)) => {
                self.at -= 1;
                return self.error("durations are only supported as the length of a `delay`");
            }
            Some(Token::Sym("(")) => {
                let inner = self.expression()?;
                self.expect(")")?;
                return Ok(Expr { kind: inner.kind, offset });
            }
            Some(Token::Ident(name)) => match name.as_str() {
                "true" => ExprKind::Bool(true),
                "false" => ExprKind::Bool(false),
                _ if self.is("(") => {
                    self.at += 1;
                    let mut args = Vec::new();
                    if !self.eat(")") {
                        loop {
                            args.push(self.expression()?);
                            if self.eat(")") {
                                break;
                            }
                            self.expect(",")?;
                        }
                    }
                    ExprKind::Call(name.clone(), args)
                }
                _ if self.eat("[") => {
                    let index = self.expression()?;
                    self.expect("]")?;
                    ExprKind::Index(name.clone(), Box::new(index))
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
