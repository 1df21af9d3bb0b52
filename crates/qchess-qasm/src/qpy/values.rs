//! QPY values: instruction parameters, parameters and parameter expressions (the replay
//! format of QPY 13 and later), and the parameter-vector table of QPY 18.

use super::QpyError;
use super::bytes::Bytes;
use super::conditions::{Condition, expression, register_target};

/// How deep a parameter expression may nest.
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

/// A `ParameterVector` of a circuit's vector table (QPY 18).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Vector {
    /// The vector's UUID; its element `i` has this UUID plus `i`.
    uuid: u128,
    name: String,
    size: u64,
}

/// How the values of a circuit payload are stored: its QPY version and, from QPY 18, the
/// vectors its elements refer to.
#[derive(Debug, Clone, Copy)]
pub(super) struct Format<'t> {
    pub(super) version: u8,
    pub(super) vectors: &'t [Vector],
}

/// A `PARAMETER_VECTOR_TABLE` (QPY 18).
pub(super) fn vector_table(bytes: &mut Bytes) -> Result<Vec<Vector>, QpyError> {
    let count = bytes.u16("vector table size")?;
    (0..count)
        .map(|_| {
            let name_size = bytes.u16("vector name size")?;
            let size = bytes.u64("vector size")?;
            let uuid = u128::from_be_bytes(uuid(bytes)?);
            let name = bytes.text(u64::from(name_size), "vector name")?;
            Ok(Vector { uuid, name, size })
        })
        .collect()
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

/// A `PARAMETER_VECTOR_ELEMENT` payload: the element whole up to QPY 17, a reference into the
/// circuit's vector table from 18.
fn vector_element(bytes: &mut Bytes, format: Format) -> Result<Symbol, QpyError> {
    let (name, size, uuid, index) = if format.version >= 18 {
        let vector = bytes.u16("vector table index")?;
        let index = bytes.u64("vector index")?;
        let Some(vector) = format.vectors.get(usize::from(vector)) else {
            return Err(malformed(
                bytes,
                format!("an element of vector {vector}, in a table of {} vectors", format.vectors.len()),
            ));
        };
        let uuid = vector.uuid.wrapping_add(u128::from(index)).to_be_bytes();
        (vector.name.clone(), vector.size, uuid, index)
    } else {
        let name_size = bytes.u16("vector name size")?;
        let size = bytes.u64("vector size")?;
        let uuid = uuid(bytes)?;
        let index = bytes.u64("vector index")?;
        (bytes.text(u64::from(name_size), "vector name")?, size, uuid, index)
    };
    if index >= size {
        return Err(malformed(bytes, format!("element {index} of the vector `{name}` of {size} elements")));
    }
    Ok(Symbol { uuid, name, index: Some(index) })
}

/// A circuit's global phase, stored as a value of type `kind`.
pub(super) fn global_phase(
    kind: u8,
    bytes: &mut Bytes,
    symbols: &mut Symbols,
    format: Format,
) -> Result<ParamExpr, QpyError> {
    Ok(match kind {
        b'f' => ParamExpr::Const(bytes.f64("global phase")?),
        b'i' => ParamExpr::Const(bytes.i64("global phase")? as f64),
        b'e' => parameter_expression(bytes, symbols, format, 0)?,
        b'p' => ParamExpr::Symbol(symbols.intern(parameter(bytes)?)),
        b'v' => ParamExpr::Symbol(symbols.intern(vector_element(bytes, format)?)),
        other => return Err(malformed(bytes, format!("unknown global phase type `{}`", char::from(other)))),
    })
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
pub(super) fn instruction_param(bytes: &mut Bytes, symbols: &mut Symbols, format: Format) -> Result<Value, QpyError> {
    let (key, mut data) = typed(bytes)?;
    // Integers and reals of instruction parameters are little-endian up to QPY 17.
    let little = format.version < 18;
    let value = match key {
        b'i' => {
            let bytes = fixed(&mut data, "integer")?;
            let value = if little { i64::from_le_bytes(bytes) } else { i64::from_be_bytes(bytes) };
            Value::Real(ParamExpr::Const(value as f64))
        }
        b'f' => {
            let bytes = fixed(&mut data, "real")?;
            Value::Real(ParamExpr::Const(if little { f64::from_le_bytes(bytes) } else { f64::from_be_bytes(bytes) }))
        }
        b'c' => {
            let (re, im) = (data.f64("complex real part")?, data.f64("complex imaginary part")?);
            if im != 0.0 {
                return Err(unsupported(format!("a complex parameter ({re}{im:+}i)")));
            }
            Value::Real(ParamExpr::Const(re))
        }
        b'p' => Value::Real(ParamExpr::Symbol(symbols.intern(parameter(&mut data)?))),
        b'v' => Value::Real(ParamExpr::Symbol(symbols.intern(vector_element(&mut data, format)?))),
        b'e' => Value::Real(parameter_expression(&mut data, symbols, format, 0)?),
        b's' => Value::Text(data.text(data.left(), "string")?),
        b'z' => Value::Null,
        b'q' => {
            let offset = data.offset();
            let rest = data.take(data.left(), "circuit block")?;
            Value::Circuit(rest.to_vec(), offset)
        }
        b'x' => Value::Condition(expression(&mut data, 0)?),
        b'R' => {
            // A `switch`'s target: checked, though nothing reads a `switch`.
            let text = data.take(data.left(), "register")?;
            register_target(text, &data, format.version)?;
            Value::Other('R')
        }
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
    format: Format,
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
            b'v' => vector_element(bytes, format)?,
            other => return Err(unsupported(format!("a parameter-expression symbol of type `{}`", char::from(other)))),
        };
        let mut data = bytes.sub(size, "symbol value")?;
        let meaning = match value_type {
            b'p' | b'v' => ParamExpr::Symbol(symbols.intern(symbol.clone())),
            b'f' => ParamExpr::Const(data.f64("symbol value")?),
            b'i' => ParamExpr::Const(data.i64("symbol value")? as f64),
            b'e' => parameter_expression(&mut data, symbols, format, depth + 1)?,
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
