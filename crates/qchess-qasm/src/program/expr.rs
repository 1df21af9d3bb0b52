//! Classical expressions of OpenQASM 3 (constants, gate parameters, conditions) and their
//! evaluation.
//!
//! Values are integers (`i64`), reals (`f64`) or booleans. Arithmetic mixes integers and reals
//! as reals, except that `+ - * %` and `**` with a non-negative exponent stay integers when
//! both sides are; `/` always divides as reals (a constant declared `int` truncates the
//! result). Built-in constants: `pi`/`π`, `tau`/`τ`, `euler`/`ℇ`; functions: `sin`, `cos`,
//! `tan`, `arcsin`, `arccos`, `arctan`, `exp`, `ln`/`log`, `sqrt`, `floor`, `ceiling`, `mod`,
//! `pow`.

use std::f64::consts::{E, PI, TAU};

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `+x`.
    Plus,
    /// `!x` (logical not).
    Not,
    /// `~x` (bitwise not of an integer).
    BitNot,
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `**`.
    Pow,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `&&`.
    And,
    /// `||`.
    Or,
    /// `&`.
    BitAnd,
    /// `|`.
    BitOr,
    /// `^`.
    BitXor,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
}

/// What an expression is.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A real literal.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
    /// A name: a constant, a gate parameter, or (in conditions) a classical register or bit.
    Name(String),
    /// `name[index]` (in conditions: one bit of a register).
    Index(String, Box<Expr>),
    /// A unary operation.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operation.
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// A call of a built-in function.
    Call(String, Vec<Expr>),
}

/// An expression and the byte offset where it starts in its file.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Byte offset of its first character.
    pub offset: usize,
}

/// A value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// An integer.
    Int(i64),
    /// A real.
    Float(f64),
    /// A boolean.
    Bool(bool),
}

impl Value {
    /// The value as a real (booleans are 0 or 1).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Int(i) => i as f64,
            Value::Float(x) => x,
            Value::Bool(b) => f64::from(u8::from(b)),
        }
    }

    /// The value as a boolean (numbers are true when non-zero).
    pub fn truthy(self) -> bool {
        match self {
            Value::Int(i) => i != 0,
            Value::Float(x) => x != 0.0,
            Value::Bool(b) => b,
        }
    }
}

/// Why an expression has no value: the offset of the part at fault and a message.
pub type EvalError = (usize, String);

/// The value of a built-in constant name.
pub fn builtin_constant(name: &str) -> Option<f64> {
    match name {
        "pi" | "π" => Some(PI),
        "tau" | "τ" => Some(TAU),
        "euler" | "ℇ" => Some(E),
        _ => None,
    }
}

impl Expr {
    /// Evaluates the expression; `lookup` gives the value of a name (`None`: undefined).
    pub fn evaluate(&self, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<Value, EvalError> {
        let at = |message: String| (self.offset, message);
        Ok(match &self.kind {
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Float(x) => Value::Float(*x),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::Name(name) => match lookup(name) {
                Some(value) => value,
                None => match builtin_constant(name) {
                    Some(x) => Value::Float(x),
                    None => return Err(at(format!("`{}` is not a known constant or parameter", show(name)))),
                },
            },
            ExprKind::Index(name, _) => {
                return Err(at(format!("`{}[...]` is not a constant expression", show(name))));
            }
            ExprKind::Unary(op, inner) => {
                let value = inner.evaluate(lookup)?;
                match (op, value) {
                    (UnaryOp::Plus, v) => v,
                    (UnaryOp::Neg, Value::Int(i)) => {
                        Value::Int(i.checked_neg().ok_or_else(|| at("integer overflow".into()))?)
                    }
                    (UnaryOp::Neg, v) => Value::Float(-v.as_f64()),
                    (UnaryOp::Not, v) => Value::Bool(!v.truthy()),
                    (UnaryOp::BitNot, Value::Int(i)) => Value::Int(!i),
                    (UnaryOp::BitNot, _) => return Err(at("`~` needs an integer".into())),
                }
            }
            ExprKind::Binary(op, left, right) => binary(*op, left.evaluate(lookup)?, right.evaluate(lookup)?)
                .map_err(|message| (self.offset, message))?,
            ExprKind::Call(name, args) => {
                let values = args.iter().map(|a| a.evaluate(lookup)).collect::<Result<Vec<Value>, EvalError>>()?;
                call(name, &values).map_err(|message| (self.offset, message))?
            }
        })
    }

    /// Evaluates to a finite real.
    pub fn evaluate_real(&self, lookup: &dyn Fn(&str) -> Option<Value>) -> Result<f64, EvalError> {
        let value = self.evaluate(lookup)?.as_f64();
        if value.is_finite() {
            Ok(value)
        } else {
            Err((self.offset, format!("the expression evaluates to {value}, not a finite number")))
        }
    }
}

/// A name shortened for messages.
fn show(name: &str) -> String {
    qchess_core::text::excerpt(name)
}

fn binary(op: BinaryOp, left: Value, right: Value) -> Result<Value, String> {
    use BinaryOp::*;
    let overflow = || "integer overflow".to_string();
    if let (Value::Int(a), Value::Int(b)) = (left, right) {
        let int = |v: Option<i64>| v.map(Value::Int).ok_or_else(overflow);
        match op {
            Add => return int(a.checked_add(b)),
            Sub => return int(a.checked_sub(b)),
            Mul => return int(a.checked_mul(b)),
            Rem if b == 0 => return Err("remainder by zero".into()),
            Rem => return int(a.checked_rem(b)),
            Pow if b >= 0 => return int(u32::try_from(b).ok().and_then(|b| a.checked_pow(b))),
            BitAnd => return Ok(Value::Int(a & b)),
            BitOr => return Ok(Value::Int(a | b)),
            BitXor => return Ok(Value::Int(a ^ b)),
            Shl | Shr if !(0..64).contains(&b) => return Err(format!("shift by {b}")),
            Shl => return Ok(Value::Int(a << b)),
            Shr => return Ok(Value::Int(a >> b)),
            _ => {}
        }
    }
    let (a, b) = (left.as_f64(), right.as_f64());
    Ok(match op {
        Add => Value::Float(a + b),
        Sub => Value::Float(a - b),
        Mul => Value::Float(a * b),
        Div => Value::Float(a / b),
        Rem => Value::Float(a % b),
        Pow => Value::Float(a.powf(b)),
        Eq => Value::Bool(a == b),
        Ne => Value::Bool(a != b),
        Lt => Value::Bool(a < b),
        Le => Value::Bool(a <= b),
        Gt => Value::Bool(a > b),
        Ge => Value::Bool(a >= b),
        And => Value::Bool(left.truthy() && right.truthy()),
        Or => Value::Bool(left.truthy() || right.truthy()),
        BitAnd | BitOr | BitXor | Shl | Shr => return Err("bitwise operators need integers".into()),
    })
}

/// The built-in functions.
pub const FUNCTIONS: &[&str] =
    &["sin", "cos", "tan", "arcsin", "arccos", "arctan", "exp", "ln", "log", "sqrt", "floor", "ceiling", "mod", "pow"];

fn call(name: &str, args: &[Value]) -> Result<Value, String> {
    let one = |f: fn(f64) -> f64| match args {
        [x] => Ok(Value::Float(f(x.as_f64()))),
        _ => Err(format!("`{name}` takes one argument, not {}", args.len())),
    };
    let two = |f: fn(f64, f64) -> f64| match args {
        [x, y] => Ok(Value::Float(f(x.as_f64(), y.as_f64()))),
        _ => Err(format!("`{name}` takes two arguments, not {}", args.len())),
    };
    match name {
        "sin" => one(f64::sin),
        "cos" => one(f64::cos),
        "tan" => one(f64::tan),
        "arcsin" => one(f64::asin),
        "arccos" => one(f64::acos),
        "arctan" => one(f64::atan),
        "exp" => one(f64::exp),
        "ln" | "log" => one(f64::ln),
        "sqrt" => one(f64::sqrt),
        "floor" => one(f64::floor),
        "ceiling" => one(f64::ceil),
        "mod" => match args {
            [Value::Int(a), Value::Int(b)] if *b != 0 => Ok(Value::Int(a.rem_euclid(*b))),
            _ => two(f64::rem_euclid),
        },
        "pow" => match args {
            [a, b] => binary(BinaryOp::Pow, *a, *b),
            _ => Err(format!("`pow` takes two arguments, not {}", args.len())),
        },
        _ => Err(format!("`{}` is not a built-in function", show(name))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(x: f64) -> Expr {
        Expr { kind: ExprKind::Float(x), offset: 0 }
    }

    fn int(i: i64) -> Expr {
        Expr { kind: ExprKind::Int(i), offset: 0 }
    }

    fn bin(op: BinaryOp, a: Expr, b: Expr) -> Expr {
        Expr { kind: ExprKind::Binary(op, Box::new(a), Box::new(b)), offset: 7 }
    }

    #[test]
    fn arithmetic_keeps_integers_and_divides_as_reals() {
        let none = |_: &str| None;
        assert_eq!(bin(BinaryOp::Add, int(2), int(3)).evaluate(&none), Ok(Value::Int(5)));
        assert_eq!(bin(BinaryOp::Div, int(7), int(2)).evaluate(&none), Ok(Value::Float(3.5)));
        assert_eq!(bin(BinaryOp::Pow, int(2), int(10)).evaluate(&none), Ok(Value::Int(1024)));
        assert_eq!(bin(BinaryOp::Mul, num(0.5), int(3)).evaluate(&none), Ok(Value::Float(1.5)));
        let pi = Expr { kind: ExprKind::Name("π".into()), offset: 0 };
        assert_eq!(bin(BinaryOp::Div, pi, int(4)).evaluate_real(&none), Ok(PI / 4.0));
        assert_eq!(bin(BinaryOp::Mul, int(i64::MAX), int(2)).evaluate(&none), Err((7, "integer overflow".into())));
        assert!(bin(BinaryOp::Div, int(1), int(0)).evaluate_real(&none).is_err());
    }

    #[test]
    fn names_and_functions_resolve() {
        let lookup = |name: &str| (name == "theta").then_some(Value::Float(0.25));
        let call = Expr {
            kind: ExprKind::Call("cos".into(), vec![Expr { kind: ExprKind::Name("theta".into()), offset: 4 }]),
            offset: 0,
        };
        assert_eq!(call.evaluate_real(&lookup), Ok(0.25f64.cos()));
        let unknown = Expr { kind: ExprKind::Name("phi".into()), offset: 9 };
        assert_eq!(unknown.evaluate(&lookup), Err((9, "`phi` is not a known constant or parameter".into())));
        let wrong = Expr { kind: ExprKind::Call("sin".into(), vec![int(1), int(2)]), offset: 3 };
        assert_eq!(wrong.evaluate(&lookup), Err((3, "`sin` takes one argument, not 2".into())));
    }
}
