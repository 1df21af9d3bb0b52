//! Declarations: types as written, qubit and classical declarations (`const`, `input`,
//! `output`, arrays), aliases (`let`), and the definitions of gates, subroutines and `extern`s.

use super::lexer::Token;
use super::parser::{ParseError, Parser};
use super::syntax::{ArrayDims, Modifier, Param, ScalarKind, StmtKind, TypeSyntax};

/// The scalar type keywords.
pub(super) fn scalar_kind(word: &str) -> Option<ScalarKind> {
    Some(match word {
        "bit" => ScalarKind::Bit,
        "bool" => ScalarKind::Bool,
        "int" => ScalarKind::Int,
        "uint" => ScalarKind::UInt,
        "float" => ScalarKind::Float,
        "angle" => ScalarKind::Angle,
        "complex" => ScalarKind::Complex,
        "duration" => ScalarKind::Duration,
        "stretch" => ScalarKind::Stretch,
        _ => return None,
    })
}

impl Parser<'_> {
    /// A declaration or definition, if the statement starts with one's keyword.
    pub(super) fn declaration(&mut self) -> Result<Option<StmtKind>, ParseError> {
        let Some(Token::Ident(word)) = self.peek() else { return Ok(None) };
        Ok(Some(match word.as_str() {
            "qubit" | "qreg" => self.qubit_declaration()?,
            "creg" => {
                self.at += 1;
                let name = self.ident("a register name")?;
                let width = self.bracketed()?;
                let ty = TypeSyntax::Scalar { kind: ScalarKind::Bit, width, component: None };
                self.declaration_rest(Modifier::Plain, ty, Some(name))?
            }
            "const" | "input" | "output" => {
                let modifier = match word.as_str() {
                    "const" => Modifier::Const,
                    "input" => Modifier::Input,
                    _ => Modifier::Output,
                };
                self.at += 1;
                let ty = self.type_syntax()?;
                self.declaration_rest(modifier, ty, None)?
            }
            "let" => {
                self.at += 1;
                let name = self.ident("an alias name")?;
                self.expect("=")?;
                let value = self.expression()?;
                self.expect(";")?;
                StmtKind::Alias { name, value }
            }
            "gate" => self.gate_definition()?,
            "def" => self.subroutine()?,
            "extern" => self.external()?,
            // A cast starts like a declaration: `int[4](c) == 1;` is an expression.
            other if (scalar_kind(other).is_some() || other == "array") && !self.is_cast() => {
                let ty = self.type_syntax()?;
                self.declaration_rest(Modifier::Plain, ty, None)?
            }
            _ => return Ok(None),
        }))
    }

    /// `[expression]`, if a `[` comes next.
    pub(super) fn bracketed(&mut self) -> Result<Option<super::syntax::Expr>, ParseError> {
        if !self.eat("[") {
            return Ok(None);
        }
        let expr = self.expression()?;
        self.expect("]")?;
        Ok(Some(expr))
    }

    /// Whether a type keyword here starts a cast (`int(x)`, `int[8](x)`) rather than a
    /// declaration.
    fn is_cast(&self) -> bool {
        match self.peek_at(1) {
            Some(Token::Sym("(")) => true,
            Some(Token::Sym("[")) => {
                // Find the matching `]` and look past it.
                let mut depth = 0usize;
                let mut ahead = 1;
                while let Some(token) = self.peek_at(ahead) {
                    match token {
                        Token::Sym("[") => depth += 1,
                        Token::Sym("]") => {
                            depth -= 1;
                            if depth == 0 {
                                return matches!(self.peek_at(ahead + 1), Some(Token::Sym("(")));
                            }
                        }
                        Token::Sym(";") => return false,
                        _ => {}
                    }
                    ahead += 1;
                }
                false
            }
            _ => false,
        }
    }

    /// `qubit[n] q;`, `qubit q;` or `qreg q[n];`.
    fn qubit_declaration(&mut self) -> Result<StmtKind, ParseError> {
        let new_style = self.is_word("qubit");
        self.at += 1;
        let mut size = if new_style { self.bracketed()? } else { None };
        let name = self.ident("a register name")?;
        if !new_style {
            size = self.bracketed()?;
        }
        if self.is("=") {
            return self.error("qubits cannot be initialised; use `reset` and gates");
        }
        self.expect(";")?;
        Ok(StmtKind::QubitDecl { name, size })
    }

    /// The name, initialiser and `;` of a classical declaration.
    fn declaration_rest(
        &mut self,
        modifier: Modifier,
        ty: TypeSyntax,
        name: Option<String>,
    ) -> Result<StmtKind, ParseError> {
        let name = match name {
            Some(name) => name,
            None => self.ident("a variable name")?,
        };
        let init = if self.eat("=") { Some(self.expression()?) } else { None };
        self.expect(";")?;
        Ok(StmtKind::Declare { modifier, ty, name, init })
    }

    /// A type: `int`, `uint[8]`, `bit[n]`, `complex[float[64]]`, `array[float[32], 2, 3]`,
    /// `qubit[3]`, `readonly array[int[8], #dim = 1]`.
    pub(super) fn type_syntax(&mut self) -> Result<TypeSyntax, ParseError> {
        let word = self.ident("a type")?;
        if word == "qubit" || word == "qreg" {
            return Ok(TypeSyntax::Qubit { size: self.bracketed()? });
        }
        if word == "creg" {
            return Ok(TypeSyntax::Scalar { kind: ScalarKind::Bit, width: self.bracketed()?, component: None });
        }
        if word == "array" {
            self.expect("[")?;
            let base = Box::new(self.type_syntax()?);
            let mut dims = Vec::new();
            while self.eat(",") {
                dims.push(self.expression()?);
            }
            self.expect("]")?;
            if dims.is_empty() {
                return self.error("an array needs its dimensions: `array[int[8], 4]`");
            }
            return Ok(TypeSyntax::Array { base, dims });
        }
        if word == "readonly" || word == "mutable" {
            if !self.eat_word("array") {
                return self.error(format!("expected `array` after `{word}`, found {}", self.found()));
            }
            self.expect("[")?;
            let base = Box::new(self.type_syntax()?);
            self.expect(",")?;
            let dims = if self.eat("#dim") {
                self.expect("=")?;
                ArrayDims::Count(self.expression()?)
            } else {
                let mut sizes = vec![self.expression()?];
                while self.eat(",") {
                    sizes.push(self.expression()?);
                }
                ArrayDims::Sizes(sizes)
            };
            self.expect("]")?;
            return Ok(TypeSyntax::ArrayRef { mutable: word == "mutable", base, dims });
        }
        let Some(kind) = scalar_kind(&word) else {
            self.at -= 1;
            return self.error(format!("expected a type, found {}", self.found()));
        };
        if !self.is("[") {
            return Ok(TypeSyntax::Scalar { kind, width: None, component: None });
        }
        if matches!(kind, ScalarKind::Bool | ScalarKind::Duration | ScalarKind::Stretch) {
            return self.error(format!("`{word}` takes no width"));
        }
        self.at += 1;
        if kind == ScalarKind::Complex {
            let component = self.type_syntax()?;
            self.expect("]")?;
            return Ok(TypeSyntax::Scalar { kind, width: None, component: Some(Box::new(component)) });
        }
        let width = self.expression()?;
        self.expect("]")?;
        Ok(TypeSyntax::Scalar { kind, width: Some(width), component: None })
    }

    /// `gate name(params) qubits { body }`.
    fn gate_definition(&mut self) -> Result<StmtKind, ParseError> {
        self.at += 1;
        let name = self.ident("a gate name")?;
        let mut params = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                let offset = self.offset();
                params.push((self.ident("a parameter name")?, offset));
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
        let body = self.block("a gate definition")?;
        Ok(StmtKind::GateDef { name, params, qubits, body })
    }

    /// `def name(params) -> type { body }`.
    fn subroutine(&mut self) -> Result<StmtKind, ParseError> {
        self.at += 1;
        let name = self.ident("a subroutine name")?;
        self.expect("(")?;
        let mut params = Vec::new();
        if !self.eat(")") {
            loop {
                let offset = self.offset();
                self.eat_word("const");
                let ty = self.type_syntax()?;
                let name = self.ident("a parameter name")?;
                // OpenQASM 2's `qreg q[2]` / `creg c[2]` put the size after the name.
                let ty = match ty {
                    TypeSyntax::Qubit { size: None } => TypeSyntax::Qubit { size: self.bracketed()? },
                    other => other,
                };
                params.push(Param { ty, name, offset });
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let returns = if self.eat("->") { Some(self.type_syntax()?) } else { None };
        let body = self.block("a subroutine")?;
        Ok(StmtKind::Def { name, params, returns, body })
    }

    /// `extern name(types) -> type;`
    fn external(&mut self) -> Result<StmtKind, ParseError> {
        self.at += 1;
        let name = self.ident("a function name")?;
        let mut params = Vec::new();
        if self.eat("(") && !self.eat(")") {
            loop {
                self.eat_word("const");
                params.push(self.type_syntax()?);
                // A parameter name is allowed and ignored.
                if matches!(self.peek(), Some(Token::Ident(_))) {
                    self.at += 1;
                }
                if self.eat(")") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let returns = if self.eat("->") { Some(self.type_syntax()?) } else { None };
        self.expect(";")?;
        Ok(StmtKind::Extern { name, params, returns })
    }
}
