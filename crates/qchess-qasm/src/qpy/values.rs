//! QPY values: instruction parameters, parameters and parameter expressions (the replay
//! format of QPY 13 and later), and the classical expressions of conditions.

use super::QpyError;
use super::bytes::Bytes;

/// How deep nested expressions may go.
const MAX_EXPRESSION_DEPTH: usize = 64;

/// A parameter of a circuit: a `Parameter` or an element of a `ParameterVector`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Symbol {
    pub(super) uuid: [u8; 16],
    /// The parameter's name, or the vector's.
    pub(super) name: String,
    /// The element's index, for a vector element.
    pub(super) index: Option<u64>,
}

impl Symbol {
    /// The name Qiskit prints (`θ`, `x[3]`).
    pub(super) fn display(&self) -> String {
        match self.index {
            Some(i) => format!("{}[{i}]", self.name),
            None => self.name.clone(),
        }
    }
}

/// The parameters met so far in a payload, by UUID.
#[derive(Debug, Clone, Default)]
pub(super) struct Symbols {
    pub(super) list: Vec<Symbol>,
}

impl Symbols {
    fn intern(&mut self, symbol: Symbol) -> usize {
        match self.list.iter().position(|s| s.uuid == symbol.uuid) {
            Some(index) => index,
            None => {
                self.list.push(symbol);
                self.list.len() - 1
            }
        }
    }
}

/// A real-valued parameter expression over symbols.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum ParamExpr {
    Const(f64),
    Symbol(usize),
    Unary(u8, Box<ParamExpr>),
    Binary(u8, Box<ParamExpr>, Box<ParamExpr>),
}

impl ParamExpr {
    /// The value with symbol `i` set to `values[i]`.
    pub(super) fn evaluate(&self, values: &[f64]) -> f64 {
        match self {
            ParamExpr::Const(x) => *x,
            ParamExpr::Symbol(i) => values.get(*i).copied().unwrap_or(f64::NAN),
            ParamExpr::Unary(op, a) => {
                let a = a.evaluate(values);
                match op {
                    5 => a.sin(),
                    6 => a.cos(),
                    7 => a.tan(),
                    8 => a.asin(),
                    9 => a.acos(),
                    10 => a.exp(),
                    11 => a.ln(),
                    12 => a.signum() * f64::from(u8::from(a != 0.0)),
                    16 => a.abs(),
                    17 => a.atan(),
                    // 14 (conjugate) of a real value is itself.
                    _ => a,
                }
            }
            ParamExpr::Binary(op, a, b) => {
                let (a, b) = (a.evaluate(values), b.evaluate(values));
                match op {
                    0 => a + b,
                    1 => a - b,
                    2 => a * b,
                    3 => a / b,
                    4 => a.powf(b),
                    18 => b - a,
                    19 => b / a,
                    _ => b.powf(a),
                }
            }
        }
    }
}

/// An instruction parameter as read.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Real(ParamExpr),
    Text(String),
    Null,
    /// A circuit payload (a block of a control-flow operation), unread.
    Circuit(Vec<u8>, usize),
    Condition(Condition),
    Other(char),
}

/// A condition on classical bits, as QPY stores it: a register or one bit compared with a
/// value, possibly negated.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Condition {
    pub(super) target: Target,
    pub(super) value: u64,
    pub(super) equal: bool,
}

/// What a condition reads.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Target {
    Clbit(u32),
    Register(String),
}

fn malformed(bytes: &Bytes, what: impl Into<String>) -> QpyError {
    QpyError::Malformed { at: format!("byte {}", bytes.offset()), what: what.into() }
}

fn unsupported(what: impl Into<String>) -> QpyError {
    QpyError::Unsupported { at: String::new(), what: what.into() }
}

/// A `PARAMETER` payload.
fn parameter(bytes: &mut Bytes) -> Result<Symbol, QpyError> {
    let name_size = bytes.u16("parameter name size")?;
    let uuid = uuid(bytes)?;
    let name = bytes.text(u64::from(name_size), "parameter name")?;
    Ok(Symbol { uuid, name, index: None })
}

/// A `PARAMETER_VECTOR_ELEMENT` payload (QPY 17 and earlier).
fn vector_element(bytes: &mut Bytes) -> Result<Symbol, QpyError> {
    let name_size = bytes.u16("vector name size")?;
    let _vector_size = bytes.u64("vector size")?;
    let uuid = uuid(bytes)?;
    let index = bytes.u64("vector index")?;
    let name = bytes.text(u64::from(name_size), "vector name")?;
    Ok(Symbol { uuid, name, index: Some(index) })
}

fn uuid(bytes: &mut Bytes) -> Result<[u8; 16], QpyError> {
    let mut uuid = [0; 16];
    uuid.copy_from_slice(bytes.take(16, "parameter UUID")?);
    Ok(uuid)
}

/// One typed value: a type key, a size and that many bytes.
pub(super) fn typed<'a>(bytes: &mut Bytes<'a>) -> Result<(u8, Bytes<'a>), QpyError> {
    let key = bytes.u8("value type")?;
    let size = bytes.u64("value size")?;
    let data = bytes.sub(size, "value data")?;
    Ok((key, data))
}

/// An `INSTRUCTION_PARAM`.
pub(super) fn instruction_param(bytes: &mut Bytes, symbols: &mut Symbols) -> Result<Value, QpyError> {
    let (key, mut data) = typed(bytes)?;
    let value = match key {
        // Integers and reals of instruction parameters are little-endian up to QPY 17.
        b'i' => Value::Real(ParamExpr::Const(i64::from_le_bytes(fixed(&mut data, "integer")?) as f64)),
        b'f' => Value::Real(ParamExpr::Const(f64::from_le_bytes(fixed(&mut data, "real")?))),
        b'c' => {
            let (re, im) = (data.f64("complex real part")?, data.f64("complex imaginary part")?);
            if im != 0.0 {
                return Err(unsupported(format!("a complex parameter ({re}{im:+}i)")));
            }
            Value::Real(ParamExpr::Const(re))
        }
        b'p' => Value::Real(ParamExpr::Symbol(symbols.intern(parameter(&mut data)?))),
        b'v' => Value::Real(ParamExpr::Symbol(symbols.intern(vector_element(&mut data)?))),
        b'e' => Value::Real(parameter_expression(&mut data, symbols, 0)?),
        b's' => Value::Text(data.text(data.left(), "string")?),
        b'z' => Value::Null,
        b'q' => {
            let offset = data.offset();
            let rest = data.take(data.left(), "circuit block")?;
            Value::Circuit(rest.to_vec(), offset)
        }
        b'x' => Value::Condition(expression(&mut data, 0)?),
        other => Value::Other(char::from(other)),
    };
    Ok(value)
}

fn fixed<const N: usize>(bytes: &mut Bytes, field: &'static str) -> Result<[u8; N], QpyError> {
    let mut out = [0; N];
    out.copy_from_slice(bytes.take(N as u64, field)?);
    Ok(out)
}

/// A `PARAMETER_EXPR` of QPY 13 and later: a symbol map, then a replay of the calls that
/// built the expression.
pub(super) fn parameter_expression(
    bytes: &mut Bytes,
    symbols: &mut Symbols,
    depth: usize,
) -> Result<ParamExpr, QpyError> {
    if depth > MAX_EXPRESSION_DEPTH {
        return Err(malformed(bytes, format!("parameter expressions nest more than {MAX_EXPRESSION_DEPTH} deep")));
    }
    let map_elements = bytes.u64("expression map size")?;
    let expr_size = bytes.u64("expression size")?;
    let mut replay = bytes.sub(expr_size, "expression replay")?;
    // UUID -> what the symbol stands for (itself, or a value bound to it).
    let mut bound: Vec<([u8; 16], ParamExpr)> = Vec::new();
    for _ in 0..map_elements {
        let symbol_type = bytes.u8("symbol type")?;
        let value_type = bytes.u8("symbol value type")?;
        let size = bytes.u64("symbol value size")?;
        let symbol = match symbol_type {
            b'p' => parameter(bytes)?,
            b'v' => vector_element(bytes)?,
            other => return Err(unsupported(format!("a parameter-expression symbol of type `{}`", char::from(other)))),
        };
        let mut data = bytes.sub(size, "symbol value")?;
        let meaning = match value_type {
            b'p' | b'v' => ParamExpr::Symbol(symbols.intern(symbol.clone())),
            b'f' => ParamExpr::Const(data.f64("symbol value")?),
            b'i' => ParamExpr::Const(data.i64("symbol value")? as f64),
            b'e' => parameter_expression(&mut data, symbols, depth + 1)?,
            other => return Err(unsupported(format!("a parameter bound to a value of type `{}`", char::from(other)))),
        };
        bound.push((symbol.uuid, meaning));
    }
    let mut stack: Vec<ParamExpr> = Vec::new();
    while !replay.is_empty() {
        let op = replay.u8("expression op code")?;
        let operand = |replay: &mut Bytes, stack: &mut Vec<ParamExpr>| -> Result<bool, QpyError> {
            let kind = replay.u8("operand type")?;
            let data: [u8; 16] = fixed(replay, "operand")?;
            let value = match kind {
                b'p' => bound
                    .iter()
                    .find(|(uuid, _)| *uuid == data)
                    .map(|(_, meaning)| meaning.clone())
                    .ok_or_else(|| malformed(replay, "an expression names a parameter missing from its map"))?,
                b'f' => ParamExpr::Const(f64::from_be_bytes(data[8..].try_into().unwrap_or_default())),
                b'i' => ParamExpr::Const(i64::from_be_bytes(data[8..].try_into().unwrap_or_default()) as f64),
                b'c' => {
                    let re = f64::from_be_bytes(data[..8].try_into().unwrap_or_default());
                    let im = f64::from_be_bytes(data[8..].try_into().unwrap_or_default());
                    if im != 0.0 {
                        return Err(unsupported("a complex value in a parameter expression"));
                    }
                    ParamExpr::Const(re)
                }
                b'n' => return Ok(true),
                // Markers of nested definitions: the entry carries no operation.
                b's' | b'e' => return Ok(false),
                b'u' => return Err(unsupported("a parameter expression with a substitution (`subs`)")),
                other => {
                    return Err(malformed(replay, format!("unknown expression operand type `{}`", char::from(other))));
                }
            };
            stack.push(value);
            Ok(true)
        };
        if !operand(&mut replay, &mut stack)? | !operand(&mut replay, &mut stack)? {
            continue;
        }
        if op == 255 {
            continue;
        }
        let underflow = || malformed(bytes, "a parameter expression pops more values than it pushed");
        match op {
            0..=4 | 18..=20 => {
                let b = stack.pop().ok_or_else(underflow)?;
                let a = stack.pop().ok_or_else(underflow)?;
                stack.push(ParamExpr::Binary(op, Box::new(a), Box::new(b)));
            }
            5..=12 | 14 | 16 | 17 => {
                let a = stack.pop().ok_or_else(underflow)?;
                stack.push(ParamExpr::Unary(op, Box::new(a)));
            }
            13 => return Err(unsupported("a parameter gradient")),
            15 => return Err(unsupported("a parameter expression with a substitution (`subs`)")),
            other => return Err(malformed(bytes, format!("unknown parameter-expression op code {other}"))),
        }
    }
    match (stack.pop(), stack.is_empty()) {
        (Some(expr), true) => Ok(expr),
        _ => Err(malformed(bytes, "a parameter expression does not reduce to one value")),
    }
}

/// A classical expression (`EXPRESSION`) that a condition can be made of.
pub(super) fn expression(bytes: &mut Bytes, depth: usize) -> Result<Condition, QpyError> {
    let node = node(bytes, depth)?;
    condition_of(&node).ok_or_else(|| unsupported("a condition other than a bit or register compared with a constant"))
}

/// A parsed expression node (only the kinds a simple condition uses).
#[derive(Debug, Clone)]
enum Node {
    Clbit(u32),
    Register(String),
    Int(u64),
    Bool(bool),
    Unary(u8, Box<Node>),
    Binary(u8, Box<Node>, Box<Node>),
}

fn node(bytes: &mut Bytes, depth: usize) -> Result<Node, QpyError> {
    if depth > MAX_EXPRESSION_DEPTH {
        return Err(malformed(bytes, format!("expressions nest more than {MAX_EXPRESSION_DEPTH} deep")));
    }
    let kind = bytes.u8("expression kind")?;
    match bytes.u8("expression type")? {
        b'u' => {
            bytes.u32("expression width")?;
        }
        b'b' | b'f' | b'd' => {}
        other => return Err(malformed(bytes, format!("unknown expression type `{}`", char::from(other)))),
    }
    Ok(match kind {
        b'x' => match bytes.u8("variable kind")? {
            b'C' => Node::Clbit(bytes.u32("clbit index")?),
            b'R' => {
                let size = bytes.u16("register name size")?;
                Node::Register(bytes.text(u64::from(size), "register name")?)
            }
            b'U' => return Err(unsupported("classical variables in conditions")),
            other => return Err(malformed(bytes, format!("unknown variable kind `{}`", char::from(other)))),
        },
        b'v' => match bytes.u8("value kind")? {
            b'b' => Node::Bool(bytes.bool("boolean")?),
            b'i' => {
                let size = bytes.u8("integer size")?;
                let digits = bytes.take(u64::from(size), "integer")?;
                if digits.len() > 8 && digits[..digits.len() - 8].iter().any(|&b| b != 0)
                    || digits.first().is_some_and(|b| b & 0x80 != 0)
                {
                    return Err(unsupported("a condition value that is negative or wider than 64 bits"));
                }
                Node::Int(digits.iter().fold(0u64, |v, &b| v << 8 | u64::from(b)))
            }
            other => return Err(unsupported(format!("a condition value of kind `{}`", char::from(other)))),
        },
        b'c' => {
            bytes.bool("cast flag")?;
            node(bytes, depth + 1)?
        }
        b'u' => {
            let op = bytes.u8("unary op")?;
            Node::Unary(op, Box::new(node(bytes, depth + 1)?))
        }
        b'b' => {
            let op = bytes.u8("binary op")?;
            let left = node(bytes, depth + 1)?;
            let right = node(bytes, depth + 1)?;
            Node::Binary(op, Box::new(left), Box::new(right))
        }
        other => return Err(unsupported(format!("an expression of kind `{}`", char::from(other)))),
    })
}

/// The condition a node stands for, when it is a simple one.
fn condition_of(node: &Node) -> Option<Condition> {
    let target = |n: &Node| match n {
        Node::Clbit(i) => Some(Target::Clbit(*i)),
        Node::Register(name) => Some(Target::Register(name.clone())),
        _ => None,
    };
    let constant = |n: &Node| match n {
        Node::Int(v) => Some(*v),
        Node::Bool(b) => Some(u64::from(*b)),
        _ => None,
    };
    match node {
        Node::Clbit(i) => Some(Condition { target: Target::Clbit(*i), value: 1, equal: true }),
        // Logical or bitwise not of one bit.
        Node::Unary(1 | 2, inner) => match **inner {
            Node::Clbit(i) => Some(Condition { target: Target::Clbit(i), value: 0, equal: true }),
            _ => None,
        },
        // 6: equal, 7: not equal.
        Node::Binary(op @ (6 | 7), a, b) => {
            let (t, v) = match (target(a), constant(b)) {
                (Some(t), Some(v)) => (t, v),
                _ => (target(b)?, constant(a)?),
            };
            Some(Condition { target: t, value: v, equal: *op == 6 })
        }
        _ => None,
    }
}

/// The condition of a register parameter (`R`, or a legacy tuple condition's register bytes):
/// `"\0N"` names clbit `N`, anything else a register.
pub(super) fn register_target(text: &[u8], at: &Bytes) -> Result<Target, QpyError> {
    let text = std::str::from_utf8(text).map_err(|_| malformed(at, "a condition register name is not UTF-8"))?;
    match text.strip_prefix('\0') {
        Some(index) => {
            index.parse().map(Target::Clbit).map_err(|_| malformed(at, "a condition bit index is not a number"))
        }
        None => Ok(Target::Register(text.to_string())),
    }
}
