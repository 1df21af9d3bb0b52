//! Writes an [`ast::Program`](crate::ast::Program) as OpenQASM 2.0 or 3.0 text.

use std::fmt::{self, Write};

use crate::ast::{BinaryOp, Expr, GateCall, GateDefinition, Modifier, Operand, Program, Statement, Version};

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.version {
            Version::V2 => writeln!(f, "OPENQASM 2.0;")?,
            Version::V3 => writeln!(f, "OPENQASM 3.0;")?,
        }
        for include in &self.includes {
            writeln!(f, "include \"{include}\";")?;
        }
        for statement in &self.statements {
            write_statement(f, statement, self.version)?;
            f.write_char('\n')?;
        }
        Ok(())
    }
}

fn write_statement(f: &mut dyn Write, statement: &Statement, version: Version) -> fmt::Result {
    match statement {
        Statement::Comment(text) => {
            if text.is_empty() {
                write!(f, "//")
            } else {
                write!(f, "// {text}")
            }
        }
        Statement::Blank => Ok(()),
        Statement::QubitRegister { name, size } => match version {
            Version::V2 => write!(f, "qreg {name}[{size}];"),
            Version::V3 => write!(f, "qubit[{size}] {name};"),
        },
        Statement::BitRegister { name, size } => match version {
            Version::V2 => write!(f, "creg {name}[{size}];"),
            Version::V3 => write!(f, "bit[{size}] {name};"),
        },
        Statement::GateDefinition(definition) => write_definition(f, definition),
        Statement::Gate(call) => {
            write_call(f, call)?;
            f.write_char(';')
        }
        Statement::Measure { qubit, bit } => match version {
            Version::V2 => write!(f, "measure {} -> {};", operand(qubit), operand(bit)),
            Version::V3 => write!(f, "{} = measure {};", operand(bit), operand(qubit)),
        },
        Statement::Reset(qubit) => write!(f, "reset {};", operand(qubit)),
        Statement::Barrier(operands) => {
            write!(f, "barrier {};", operands.iter().map(operand).collect::<Vec<_>>().join(", "))
        }
        Statement::If { register, value, body } => {
            write!(f, "if ({register} == {value}) ")?;
            match version {
                Version::V2 => write_statement(f, body, version),
                Version::V3 => {
                    f.write_str("{ ")?;
                    write_statement(f, body, version)?;
                    f.write_str(" }")
                }
            }
        }
    }
}

fn write_definition(f: &mut dyn Write, definition: &GateDefinition) -> fmt::Result {
    write!(f, "gate {}", definition.name)?;
    if !definition.params.is_empty() {
        write!(f, "({})", definition.params.join(", "))?;
    }
    write!(f, " {} {{", definition.qubits.join(", "))?;
    if definition.body.is_empty() {
        return f.write_str(" }");
    }
    f.write_char('\n')?;
    for call in &definition.body {
        f.write_str("  ")?;
        write_call(f, call)?;
        f.write_str(";\n")?;
    }
    f.write_char('}')
}

/// Writes a call. Modifiers do not exist in OpenQASM 2: the emitters never put them there, and
/// a stray one is printed anyway, so a reader sees an error rather than a different gate.
fn write_call(f: &mut dyn Write, call: &GateCall) -> fmt::Result {
    for modifier in &call.modifiers {
        match modifier {
            Modifier::Ctrl(1) => f.write_str("ctrl @ ")?,
            Modifier::Ctrl(n) => write!(f, "ctrl({n}) @ ")?,
            Modifier::NegCtrl(1) => f.write_str("negctrl @ ")?,
            Modifier::NegCtrl(n) => write!(f, "negctrl({n}) @ ")?,
            Modifier::Inv => f.write_str("inv @ ")?,
            Modifier::Pow(k) => write!(f, "pow({}) @ ", expr_to_string(k))?,
        }
    }
    f.write_str(&call.name)?;
    if !call.args.is_empty() {
        write!(f, "({})", call.args.iter().map(expr_to_string).collect::<Vec<_>>().join(", "))?;
    }
    write!(f, " {}", call.qubits.iter().map(operand).collect::<Vec<_>>().join(", "))
}

fn operand(operand: &Operand) -> String {
    match operand {
        Operand::Indexed { register, index } => format!("{register}[{index}]"),
        Operand::Name(name) => name.clone(),
    }
}

/// Binding strength, loosest first.
fn precedence(expr: &Expr) -> u8 {
    match expr {
        Expr::Binary(BinaryOp::Add | BinaryOp::Sub, ..) => 1,
        Expr::Binary(BinaryOp::Mul | BinaryOp::Div, ..) => 2,
        Expr::Neg(_) => 3,
        Expr::Number(value) if *value < 0.0 => 3,
        Expr::Number(_) | Expr::Pi | Expr::Param(_) => 4,
    }
}

/// An expression as OpenQASM text, with the fewest parentheses that keep its meaning.
pub fn expr_to_string(expr: &Expr) -> String {
    match expr {
        // `Display` for f64 never uses exponent notation and round-trips exactly.
        Expr::Number(value) => format!("{value}"),
        Expr::Pi => "pi".into(),
        Expr::Param(name) => name.clone(),
        // Negation commutes exactly with `*` and `/` in floating point, so `-pi/2` needs no
        // parentheses; sums and other negations do.
        Expr::Neg(operand) => {
            let sign_first = matches!(**operand, Expr::Neg(_)) || matches!(**operand, Expr::Number(v) if v < 0.0);
            format!("-{}", wrap(operand, precedence(operand) < 2 || sign_first))
        }
        Expr::Binary(op, lhs, rhs) => {
            let own = precedence(expr);
            let symbol = match op {
                BinaryOp::Add => "+",
                BinaryOp::Sub => "-",
                BinaryOp::Mul => "*",
                BinaryOp::Div => "/",
            };
            // Left-associative: the right operand needs parentheses at equal strength too.
            let left = wrap(lhs, precedence(lhs) < own);
            let right = wrap(rhs, precedence(rhs) <= own);
            format!("{left}{symbol}{right}")
        }
    }
}

fn wrap(expr: &Expr, parenthesise: bool) -> String {
    let text = expr_to_string(expr);
    if parenthesise { format!("({text})") } else { text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Expr;

    #[test]
    fn expressions_print_with_minimal_parentheses() {
        let t = || Expr::param("t");
        let e = Expr::binary(BinaryOp::Div, Expr::binary(BinaryOp::Mul, Expr::Pi, t()).negated(), Expr::Number(2.0));
        assert_eq!(expr_to_string(&e), "-pi*t/2");
        let e = Expr::binary(BinaryOp::Sub, t(), Expr::binary(BinaryOp::Sub, t(), Expr::Number(-1.5)));
        assert_eq!(expr_to_string(&e), "t-(t--1.5)");
        let e = Expr::binary(BinaryOp::Mul, Expr::binary(BinaryOp::Add, t(), Expr::Pi), Expr::Number(0.5));
        assert_eq!(expr_to_string(&e), "(t+pi)*0.5");
        assert_eq!(expr_to_string(&Expr::Neg(Box::new(Expr::Number(-2.0)))), "-(-2)");
    }

    #[test]
    fn statements_follow_each_versions_syntax() {
        let call = GateCall::new("iswap", [Operand::indexed("q", 0), Operand::indexed("q", 1)]);
        let controlled = call.clone().with_modifiers([Modifier::Ctrl(2), Modifier::NegCtrl(1)]);
        let definition = GateDefinition {
            name: "rzz".into(),
            params: vec!["theta".into()],
            qubits: vec!["a".into(), "b".into()],
            body: vec![
                GateCall::new("cx", [Operand::name("a"), Operand::name("b")]),
                GateCall::new("rz", [Operand::name("b")]).with_args([Expr::param("theta")]),
                GateCall::new("cx", [Operand::name("a"), Operand::name("b")]),
            ],
        };
        let statements = vec![
            Statement::Comment("header".into()),
            Statement::GateDefinition(definition),
            Statement::QubitRegister { name: "q".into(), size: 5 },
            Statement::BitRegister { name: "c".into(), size: 2 },
            Statement::Gate(controlled),
            Statement::Measure { qubit: Operand::indexed("q", 0), bit: Operand::indexed("c", 1) },
            Statement::If {
                register: "c".into(),
                value: 2,
                body: Box::new(Statement::Gate(GateCall::new("x", [Operand::indexed("q", 4)]))),
            },
            Statement::Reset(Operand::indexed("q", 3)),
            Statement::Barrier(vec![Operand::name("q")]),
        ];
        let mut v2 = Program::new(Version::V2);
        v2.includes.push("qelib1.inc".into());
        v2.statements = statements.clone();
        let mut v3 = Program::new(Version::V3);
        v3.includes.push("stdgates.inc".into());
        v3.statements = statements;
        assert_eq!(
            v2.to_string(),
            "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n// header\ngate rzz(theta) a, b {\n  cx a, b;\n  rz(theta) b;\n  cx a, b;\n}\n\
             qreg q[5];\ncreg c[2];\nctrl(2) @ negctrl @ iswap q[0], q[1];\nmeasure q[0] -> c[1];\nif (c == 2) x q[4];\n\
             reset q[3];\nbarrier q;\n"
        );
        assert_eq!(
            v3.to_string(),
            "OPENQASM 3.0;\ninclude \"stdgates.inc\";\n// header\ngate rzz(theta) a, b {\n  cx a, b;\n  rz(theta) b;\n  cx a, b;\n}\n\
             qubit[5] q;\nbit[2] c;\nctrl(2) @ negctrl @ iswap q[0], q[1];\nc[1] = measure q[0];\nif (c == 2) { x q[4]; }\n\
             reset q[3];\nbarrier q;\n"
        );
    }
}
