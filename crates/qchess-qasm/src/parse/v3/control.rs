//! Control flow (`if`, `for`, `while`, `switch`, `box`, `break`, `continue`, `end`, `return`),
//! the quantum statements (`measure`, `reset`, `barrier`, `delay`, `nop`), assignments and
//! calls.

use super::lexer::Token;
use super::parser::{ParseError, Parser};
use super::syntax::{BinaryOp, Case, ExprKind, GateModifier, ScalarKind, StmtKind, TypeSyntax};

/// Compound assignment operators and the operation each applies.
const COMPOUND: &[(&str, BinaryOp)] = &[
    ("+=", BinaryOp::Add),
    ("-=", BinaryOp::Sub),
    ("*=", BinaryOp::Mul),
    ("/=", BinaryOp::Div),
    ("%=", BinaryOp::Rem),
    ("**=", BinaryOp::Pow),
    ("&=", BinaryOp::BitAnd),
    ("|=", BinaryOp::BitOr),
    ("^=", BinaryOp::BitXor),
    ("<<=", BinaryOp::Shl),
    (">>=", BinaryOp::Shr),
];

impl Parser<'_> {
    /// A control-flow or quantum statement, if the statement starts with one's keyword.
    pub(super) fn control(&mut self) -> Result<Option<StmtKind>, ParseError> {
        let Some(Token::Ident(word)) = self.peek() else { return Ok(None) };
        let word = word.as_str();
        if !matches!(
            word,
            "measure"
                | "reset"
                | "barrier"
                | "delay"
                | "nop"
                | "if"
                | "for"
                | "while"
                | "switch"
                | "box"
                | "break"
                | "continue"
                | "end"
                | "return"
        ) {
            return Ok(None);
        }
        self.at += 1;
        let kind = match word {
            "measure" => {
                let source = self.operand()?;
                let target = if self.eat("->") { Some(self.operand()?) } else { None };
                StmtKind::Measure { source, target }
            }
            "reset" => StmtKind::Reset(self.operand()?),
            "barrier" => StmtKind::Barrier(self.operands()?),
            "nop" => StmtKind::Nop(self.operands()?),
            "delay" => {
                self.expect("[")?;
                let duration = self.expression()?;
                self.expect("]")?;
                StmtKind::Delay { duration, operands: self.operands()? }
            }
            "if" => return self.conditional().map(Some),
            "for" => return self.for_loop().map(Some),
            "while" => {
                self.expect("(")?;
                let condition = self.expression()?;
                self.expect(")")?;
                return Ok(Some(StmtKind::While { condition, body: self.body()? }));
            }
            "switch" => return self.switch().map(Some),
            "box" => {
                let duration = self.bracketed()?;
                return Ok(Some(StmtKind::Box { duration, body: self.block("a `box`")? }));
            }
            "break" => StmtKind::Break,
            "continue" => StmtKind::Continue,
            "end" => StmtKind::End,
            _ => StmtKind::Return(if self.is(";") { None } else { Some(self.expression()?) }),
        };
        self.expect(";")?;
        Ok(Some(kind))
    }

    fn conditional(&mut self) -> Result<StmtKind, ParseError> {
        self.expect("(")?;
        let condition = self.expression()?;
        self.expect(")")?;
        let then = self.body()?;
        let otherwise = if self.eat_word("else") { Some(self.body()?) } else { None };
        Ok(StmtKind::If { condition, then, otherwise })
    }

    /// `for type name in values body`; the type may be left out (older programs), meaning `int`.
    fn for_loop(&mut self) -> Result<StmtKind, ParseError> {
        let ty = if matches!(self.peek_at(1), Some(Token::Ident(w)) if w == "in") {
            TypeSyntax::Scalar { kind: ScalarKind::Int, width: None, component: None }
        } else {
            self.type_syntax()?
        };
        let var = self.ident("a loop variable")?;
        if !self.eat_word("in") {
            return self.error(format!("expected `in`, found {}", self.found()));
        }
        let values = if self.is("[") {
            let offset = self.offset();
            self.at += 1;
            let start = Some(Box::new(self.expression()?));
            self.expect(":")?;
            let second = self.expression()?;
            let (step, end) = if self.eat(":") {
                (Some(Box::new(second)), Some(Box::new(self.expression()?)))
            } else {
                (None, Some(Box::new(second)))
            };
            self.expect("]")?;
            super::syntax::Expr { kind: ExprKind::Range { start, step, end }, offset }
        } else {
            self.expression()?
        };
        Ok(StmtKind::For { ty, var, values, body: self.body()? })
    }

    fn switch(&mut self) -> Result<StmtKind, ParseError> {
        self.expect("(")?;
        let value = self.expression()?;
        self.expect(")")?;
        self.expect("{")?;
        self.enter()?;
        let mut cases = Vec::new();
        let mut default = None;
        while !self.eat("}") {
            let offset = self.offset();
            if self.eat_word("case") {
                if default.is_some() {
                    return Err((offset, "a `case` after `default`".into()));
                }
                let mut labels = vec![self.expression()?];
                while self.eat(",") {
                    labels.push(self.expression()?);
                }
                let body = self.block("a `case`")?;
                cases.push(Case { labels, body, offset });
            } else if self.eat_word("default") {
                if default.is_some() {
                    return Err((offset, "a second `default`".into()));
                }
                default = Some(self.block("a `default`")?);
            } else if self.peek().is_none() {
                return self.error("a `switch` is never closed");
            } else {
                return self.error(format!("expected `case` or `default`, found {}", self.found()));
            }
        }
        self.leave();
        Ok(StmtKind::Switch { value, cases, default })
    }

    /// A statement that starts with a name: an assignment (`x = 1;`, `c[0] = measure q;`,
    /// `a += 2;`), a gate call (`h q;`, `ctrl @ rz(t) a, b;`), a subroutine called like a gate
    /// (`f(x) q;`) or a call as a statement (`f(x);`).
    pub(super) fn assignment_or_call(&mut self) -> Result<StmtKind, ParseError> {
        let is_assignment = match self.peek_at(1) {
            Some(Token::Sym(s)) => *s == "=" || *s == "[" || COMPOUND.iter().any(|(c, _)| c == s),
            _ => false,
        };
        if is_assignment {
            let target = self.postfix()?;
            let op = if self.eat("=") {
                None
            } else if let Some(&(_, op)) = COMPOUND.iter().find(|(c, _)| self.is(c)) {
                self.at += 1;
                Some(op)
            } else {
                return self.error(format!("expected `=` or an assignment operator, found {}", self.found()));
            };
            let value = self.expression()?;
            self.expect(";")?;
            return Ok(StmtKind::Assign { target, op, value });
        }
        let modifiers = self.modifiers()?;
        let name = self.ident("a statement")?;
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
        if self.is("[") {
            return self.error("gates with a duration (`g[100ns] q;`) are not supported");
        }
        let operands = self.operands()?;
        self.expect(";")?;
        Ok(StmtKind::Call { modifiers, name, params, operands })
    }

    /// `inv @`, `pow(k) @`, `ctrl(n) @`, `negctrl @` before a gate's name.
    fn modifiers(&mut self) -> Result<Vec<GateModifier>, ParseError> {
        let mut modifiers = Vec::new();
        loop {
            let offset = self.offset();
            let name = match self.peek() {
                Some(Token::Ident(w)) => match w.as_str() {
                    "inv" => "inv",
                    "pow" => "pow",
                    "ctrl" => "ctrl",
                    "negctrl" => "negctrl",
                    _ => break,
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
            modifiers.push(GateModifier { name, arg, offset });
        }
        Ok(modifiers)
    }
}
