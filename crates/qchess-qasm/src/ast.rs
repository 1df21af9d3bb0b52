//! An OpenQASM 2.0 / 3.0 program as data: the emitters build one, [`crate::print`] writes it.
//!
//! The AST covers what the emitters write: includes, comments, register declarations, gate
//! definitions, gate calls with modifiers, measurements, resets, barriers and classically
//! conditioned statements. Version differences (`qreg` vs `qubit[n]`, `measure a -> b` vs
//! `b = measure a`, modifiers) are the printer's business.
//!
//! ```
//! use qchess_qasm::ast::{Expr, GateCall, Operand, Program, Statement, Version};
//!
//! let mut program = Program::new(Version::V3);
//! program.includes.push("stdgates.inc".into());
//! program.statements.push(Statement::QubitRegister { name: "q".into(), size: 2 });
//! program.statements.push(Statement::Gate(
//!     GateCall::new("rz", [Operand::indexed("q", 1)]).with_args([Expr::angle(std::f64::consts::FRAC_PI_2)]),
//! ));
//! assert_eq!(
//!     program.to_string(),
//!     "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nrz(pi/2) q[1];\n"
//! );
//! ```

use std::f64::consts::PI;

/// The OpenQASM version a program is printed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// OpenQASM 2.0 (`qelib1.inc`, no modifiers).
    V2,
    /// OpenQASM 3.0 (`stdgates.inc`, `ctrl @` and friends).
    V3,
}

/// A whole program: version line, includes, then statements in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The version line.
    pub version: Version,
    /// Included files, in order.
    pub includes: Vec<String>,
    /// Everything after the includes.
    pub statements: Vec<Statement>,
}

impl Program {
    /// An empty program of `version`.
    pub fn new(version: Version) -> Program {
        Program { version, includes: Vec::new(), statements: Vec::new() }
    }
}

/// One top-level statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    /// A `//` comment line (the text without the slashes).
    Comment(String),
    /// An empty line, for readability.
    Blank,
    /// A quantum register of `size` qubits.
    QubitRegister {
        /// Register name.
        name: String,
        /// Number of qubits.
        size: u32,
    },
    /// A classical register of `size` bits.
    BitRegister {
        /// Register name.
        name: String,
        /// Number of bits.
        size: u32,
    },
    /// A gate definition.
    GateDefinition(GateDefinition),
    /// A gate call.
    Gate(GateCall),
    /// Measurement of one qubit into one bit.
    Measure {
        /// The measured qubit.
        qubit: Operand,
        /// The bit receiving the result.
        bit: Operand,
    },
    /// Reset of one qubit to |0>.
    Reset(Operand),
    /// A barrier across operands.
    Barrier(Vec<Operand>),
    /// A statement that runs only when a classical register equals `value` (bit 0 least
    /// significant).
    If {
        /// The register compared.
        register: String,
        /// The value it must equal.
        value: u64,
        /// The conditioned statement (a gate call, measurement or reset).
        body: Box<Statement>,
    },
}

/// `gate name(params) qubits { body }`.
#[derive(Debug, Clone, PartialEq)]
pub struct GateDefinition {
    /// Gate name.
    pub name: String,
    /// Names of the real parameters.
    pub params: Vec<String>,
    /// Names of the qubit arguments.
    pub qubits: Vec<String>,
    /// The body, calls on the argument names.
    pub body: Vec<GateCall>,
}

/// A gate modifier (OpenQASM 3 only).
#[derive(Debug, Clone, PartialEq)]
pub enum Modifier {
    /// `ctrl(n) @`: the next `n` operands are controls active on |1>.
    Ctrl(u32),
    /// `negctrl(n) @`: the next `n` operands are controls active on |0>.
    NegCtrl(u32),
    /// `inv @`.
    Inv,
    /// `pow(k) @`.
    Pow(Expr),
}

/// A gate call: `modifiers name(args) qubits;`.
#[derive(Debug, Clone, PartialEq)]
pub struct GateCall {
    /// Modifiers, outermost first.
    pub modifiers: Vec<Modifier>,
    /// Gate name.
    pub name: String,
    /// Real arguments.
    pub args: Vec<Expr>,
    /// Qubit operands: the modifiers' controls first, then the gate's own.
    pub qubits: Vec<Operand>,
}

impl GateCall {
    /// A call of `name` on `qubits`, without arguments or modifiers.
    pub fn new(name: impl Into<String>, qubits: impl IntoIterator<Item = Operand>) -> GateCall {
        GateCall { modifiers: Vec::new(), name: name.into(), args: Vec::new(), qubits: qubits.into_iter().collect() }
    }

    /// This call with real arguments.
    #[must_use]
    pub fn with_args(mut self, args: impl IntoIterator<Item = Expr>) -> GateCall {
        self.args = args.into_iter().collect();
        self
    }

    /// This call with modifiers (outermost first).
    #[must_use]
    pub fn with_modifiers(mut self, modifiers: impl IntoIterator<Item = Modifier>) -> GateCall {
        self.modifiers = modifiers.into_iter().collect();
        self
    }
}

/// A qubit or bit operand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Operand {
    /// One element of a register: `q[3]`.
    Indexed {
        /// Register name.
        register: String,
        /// Element index.
        index: u32,
    },
    /// A bare name: a gate definition's argument, or a whole register.
    Name(String),
}

impl Operand {
    /// `register[index]`.
    pub fn indexed(register: impl Into<String>, index: u32) -> Operand {
        Operand::Indexed { register: register.into(), index }
    }

    /// A bare name.
    pub fn name(name: impl Into<String>) -> Operand {
        Operand::Name(name.into())
    }
}

/// A binary operator of a real expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// A real-valued expression (gate arguments).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal; printed in full precision, never in exponent notation.
    Number(f64),
    /// The constant `pi`.
    Pi,
    /// A gate definition's parameter.
    Param(String),
    /// `-operand`.
    Neg(Box<Expr>),
    /// `lhs op rhs`.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
}

/// Denominators tried when recognising rational multiples of pi.
const PI_DENOMINATORS: [u32; 10] = [1, 2, 3, 4, 6, 8, 12, 16, 32, 64];

impl Expr {
    /// An angle, written as a rational multiple of pi when it is one to the last bit
    /// (`pi/2`, `-3*pi/4`), else as a literal. Reading the text back gives the same `f64`.
    pub fn angle(value: f64) -> Expr {
        if value != 0.0 && value.is_finite() && value.abs() <= 64.0 * PI {
            for denominator in PI_DENOMINATORS {
                let numerator = (value / PI * f64::from(denominator)).round();
                if numerator == 0.0 {
                    continue;
                }
                // Evaluate exactly as a reader would: (n * pi) / d.
                let rebuilt = numerator.abs() * PI / f64::from(denominator);
                if rebuilt == value.abs() {
                    let magnitude = Expr::pi_fraction(numerator.abs() as u64, denominator);
                    return if value < 0.0 { Expr::Neg(Box::new(magnitude)) } else { magnitude };
                }
            }
        }
        Expr::Number(value)
    }

    /// `n*pi/d`, dropping factors of 1.
    fn pi_fraction(numerator: u64, denominator: u32) -> Expr {
        let top = if numerator == 1 {
            Expr::Pi
        } else {
            Expr::binary(BinaryOp::Mul, Expr::Number(numerator as f64), Expr::Pi)
        };
        if denominator == 1 { top } else { Expr::binary(BinaryOp::Div, top, Expr::Number(f64::from(denominator))) }
    }

    /// A parameter reference.
    pub fn param(name: impl Into<String>) -> Expr {
        Expr::Param(name.into())
    }

    /// `lhs op rhs`.
    pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary(op, Box::new(lhs), Box::new(rhs))
    }

    /// `-self`.
    #[must_use]
    pub fn negated(self) -> Expr {
        Expr::Neg(Box::new(self))
    }

    /// The value, with parameters looked up by `param`; `None` if a parameter is unknown.
    pub fn evaluate(&self, param: &dyn Fn(&str) -> Option<f64>) -> Option<f64> {
        Some(match self {
            Expr::Number(value) => *value,
            Expr::Pi => PI,
            Expr::Param(name) => param(name)?,
            Expr::Neg(operand) => -operand.evaluate(param)?,
            Expr::Binary(op, lhs, rhs) => {
                let (a, b) = (lhs.evaluate(param)?, rhs.evaluate(param)?);
                match op {
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    BinaryOp::Mul => a * b,
                    BinaryOp::Div => a / b,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiples_of_pi_are_recognised_only_when_exact() {
        let show = |value: f64| crate::print::expr_to_string(&Expr::angle(value));
        assert_eq!(show(PI), "pi");
        assert_eq!(show(-PI / 2.0), "-pi/2");
        assert_eq!(show(3.0 * PI / 4.0), "3*pi/4");
        assert_eq!(show(-5.0 * PI / 12.0), "-5*pi/12");
        assert_eq!(show(2.0 * PI), "2*pi");
        assert_eq!(show(PI / 2.0 + 1e-12), "1.5707963267958966");
        assert_eq!(show(0.3), "0.3");
        assert_eq!(show(0.0), "0");
        assert_eq!(show(1e-7), "0.0000001");
        for value in [PI / 3.0, -7.0 * PI / 8.0, 0.1, 12.5 * PI, -PI / 64.0] {
            let reread = Expr::angle(value).evaluate(&|_| None).expect("no parameters");
            assert_eq!(reread, value, "{value}");
        }
    }
}
