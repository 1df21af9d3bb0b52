//! Checked expressions: every name resolved to a variable slot or a constant, every operand
//! converted to the type its operator computes in, every node typed. Evaluating one reads
//! variables through an [`Env`]; a constant part was evaluated when it was checked.

use std::sync::Arc;

use super::builtins::Builtin;
use super::convert::cast;
use super::ops::{BinaryOp, Signature, UnaryOp};
use super::types::Type;
use super::value::{Array, ArrayView, Range, Value};
use super::{arith, convert};

/// Where a variable lives: the program's global frame or the running subroutine's frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot {
    /// In the global frame (else the current subroutine's).
    pub global: bool,
    /// Its index in that frame.
    pub index: u32,
}

/// The variables an expression reads.
pub trait Env {
    /// The value of the variable at `slot`.
    fn read(&self, slot: Slot) -> &Value;
}

/// Why an expression has no value: the byte offset of the part at fault and a message.
pub type EvalError = (usize, String);

/// What a `[...]` item selects.
#[derive(Debug, Clone, PartialEq)]
pub enum Selector {
    /// One element (negative indices count from the end).
    One(Expr),
    /// `start:step:end`, inclusive (missing ends: the whole length).
    Range {
        /// First index.
        start: Option<Box<Expr>>,
        /// Step.
        step: Option<Box<Expr>>,
        /// Last index.
        end: Option<Box<Expr>>,
    },
    /// `{a, b}`.
    Set(Vec<Expr>),
}

/// A checked expression. See the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What it computes.
    pub kind: ExprKind,
    /// Its type.
    pub ty: Type,
    /// Byte offset of its first character in its file.
    pub offset: usize,
}

/// What a checked expression computes.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A constant.
    Literal(Value),
    /// A variable.
    Read(Slot),
    /// Bits of a value, elements of an array or qubits of a register: one `[...]`, one selector
    /// per item; `what` names the base in messages.
    Select {
        /// What is indexed.
        base: Box<Expr>,
        /// One selector per comma-separated item.
        selectors: Vec<Selector>,
        /// The base as written.
        what: Arc<str>,
    },
    /// A unary operation on an operand of the operator's type.
    Unary(UnaryOp, Box<Expr>),
    /// A binary operation on operands of its signature's types.
    Binary(BinaryOp, Box<Signature>, Box<Expr>, Box<Expr>),
    /// The operand converted to this expression's type.
    Convert(Box<Expr>),
    /// A built-in function on arguments of its signature's types.
    Builtin(Builtin, Vec<Expr>),
    /// The length of dimension `dim` of an array reference.
    SizeOf(Box<Expr>, u32),
    /// Bits, qubits or arrays one after another.
    Concat(Vec<Expr>),
    /// An array of the given dimensions from its elements, in row-major order.
    Array(Vec<u32>, Vec<Expr>),
    /// A `for` loop's range.
    Range(Box<Expr>, Option<Box<Expr>>, Box<Expr>),
}

impl Expr {
    /// A constant of type `ty`.
    pub fn literal(value: Value, ty: Type, offset: usize) -> Expr {
        Expr { kind: ExprKind::Literal(value), ty, offset }
    }

    /// The constant value, if the expression is one.
    pub fn constant(&self) -> Option<&Value> {
        match &self.kind {
            ExprKind::Literal(value) => Some(value),
            _ => None,
        }
    }

    /// The expression's value.
    pub fn evaluate(&self, env: &dyn Env) -> Result<Value, EvalError> {
        let at = |message: String| (self.offset, message);
        Ok(match &self.kind {
            ExprKind::Literal(value) => value.clone(),
            ExprKind::Read(slot) => env.read(*slot).clone(),
            ExprKind::Select { base, selectors, what } => {
                let value = base.evaluate(env)?;
                select(&value, &base.ty, selectors, what, env, &self.ty)?
            }
            ExprKind::Unary(op, operand) => arith::unary(*op, &operand.ty, &operand.evaluate(env)?).map_err(at)?,
            ExprKind::Binary(op, signature, left, right) => {
                let a = left.evaluate(env)?;
                // `&&` and `||` look at their right side only when they must.
                match (op, a.truthy()) {
                    (BinaryOp::And, false) => return Ok(Value::Bool(false)),
                    (BinaryOp::Or, true) => return Ok(Value::Bool(true)),
                    _ => {}
                }
                let b = right.evaluate(env)?;
                arith::binary(*op, signature, &a, &b).map_err(at)?
            }
            ExprKind::Convert(inner) => cast(&inner.evaluate(env)?, &inner.ty, &self.ty).map_err(at)?,
            ExprKind::Builtin(function, args) => {
                let values = args.iter().map(|a| a.evaluate(env)).collect::<Result<Vec<_>, _>>()?;
                let types: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
                function.apply(&values, &types, &self.ty).map_err(at)?
            }
            ExprKind::SizeOf(array, dim) => match array.evaluate(env)? {
                Value::ArrayRef(view) => Value::Int(i128::from(view.dims.get(*dim as usize).copied().unwrap_or(0))),
                Value::Array(array) => Value::Int(i128::from(array.dims.get(*dim as usize).copied().unwrap_or(0))),
                _ => return Err(at("`sizeof` needs an array".into())),
            },
            ExprKind::Concat(parts) => concat(parts, env, &self.ty).map_err(at)?,
            ExprKind::Array(dims, items) => {
                let items = items.iter().map(|i| i.evaluate(env)).collect::<Result<Vec<_>, _>>()?;
                Value::Array(Array { dims: dims.clone(), items })
            }
            ExprKind::Range(start, step, end) => {
                let int = |e: &Expr| match e.evaluate(env)? {
                    Value::Int(i) => Ok(i),
                    Value::Bool(b) => Ok(i128::from(b)),
                    _ => Err((e.offset, "a range needs integers".to_string())),
                };
                let step_value = match step {
                    Some(s) => int(s)?,
                    None => 1,
                };
                if step_value == 0 {
                    return Err(at("a range's step cannot be zero".into()));
                }
                Value::Range(Range { start: int(start)?, step: step_value, end: int(end)? })
            }
        })
    }
}

/// The indices `selector` picks from something of `len` elements.
pub fn indices(selector: &Selector, len: usize, what: &str, env: &dyn Env) -> Result<Vec<usize>, EvalError> {
    let resolve = |expr: &Expr| -> Result<usize, EvalError> {
        let i = match expr.evaluate(env)? {
            Value::Int(i) => i,
            Value::Bool(b) => i128::from(b),
            _ => return Err((expr.offset, "an index must be an integer".into())),
        };
        let len = len as i128;
        if (0..len).contains(&i) {
            Ok(i as usize)
        } else if i < 0 && -i <= len {
            Ok((len + i) as usize)
        } else {
            Err((expr.offset, format!("index {i} is out of range for `{what}` of size {len}")))
        }
    };
    Ok(match selector {
        Selector::One(expr) => vec![resolve(expr)?],
        Selector::Set(items) => items.iter().map(resolve).collect::<Result<_, _>>()?,
        Selector::Range { start, step, end } => {
            if len == 0 {
                return Ok(Vec::new());
            }
            let first = start.as_deref().map(resolve).transpose()?.unwrap_or(0) as i128;
            let step_value = match step {
                None => 1,
                Some(s) => match s.evaluate(env)? {
                    Value::Int(k) if k != 0 => k,
                    _ => return Err((s.offset, "a range's step must be a non-zero integer".into())),
                },
            };
            let last = match end.as_deref() {
                Some(e) => resolve(e)? as i128,
                None if step_value > 0 => len as i128 - 1,
                None => 0,
            };
            let mut out = Vec::new();
            let mut i = first;
            while (step_value > 0 && i <= last) || (step_value < 0 && i >= last) {
                out.push(i as usize);
                i += step_value;
            }
            out
        }
    })
}

/// The part of `value` (of type `ty`) that `selectors` pick, as a value of type `result`.
fn select(
    value: &Value,
    ty: &Type,
    selectors: &[Selector],
    what: &str,
    env: &dyn Env,
    result: &Type,
) -> Result<Value, EvalError> {
    match value {
        Value::Array(array) => {
            let view = ArrayView { slot: 0, offset: 0, dims: array.dims.clone(), strides: strides(&array.dims) };
            select_array(&array.items, &view, selectors, what, env, result)
        }
        Value::ArrayRef(view) => {
            let Value::Array(array) = env.read(Slot { global: true, index: view.slot }) else {
                return Err((usize::MAX, format!("`{what}` is not an array")));
            };
            select_array(&array.items, view, selectors, what, env, result)
        }
        Value::Qubits(qubits) => {
            let picked = indices(&selectors[0], qubits.len(), what, env)?;
            Ok(Value::Qubits(picked.into_iter().map(|i| qubits[i]).collect()))
        }
        other => {
            // Bits of a register, an integer or an angle.
            let width = ty.bit_width().unwrap_or(1) as usize;
            let bits = match other {
                Value::Bits(bits) => bits.clone(),
                Value::Bool(b) => vec![*b],
                Value::Int(i) => super::value::bits_of(*i, width as u32),
                Value::Angle(p) => super::value::bits_of(i128::from(*p), width as u32),
                _ => return Err((usize::MAX, format!("`{what}` cannot be indexed"))),
            };
            let picked = indices(&selectors[0], bits.len(), what, env)?;
            Ok(match result {
                Type::Bool | Type::Bit => Value::Bool(bits[picked[0]]),
                _ => Value::Bits(picked.into_iter().map(|i| bits[i]).collect()),
            })
        }
    }
}

/// Row-major strides of `dims`.
pub fn strides(dims: &[u32]) -> Vec<usize> {
    let mut out = vec![1usize; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        out[i] = out[i + 1] * dims[i + 1] as usize;
    }
    out
}

/// The view of the elements of `view` that `selectors` pick (one per leading dimension).
pub fn narrow(view: &ArrayView, selectors: &[Selector], what: &str, env: &dyn Env) -> Result<ArrayView, EvalError> {
    let mut offset = view.offset;
    let mut dims = Vec::new();
    let mut steps = Vec::new();
    for (d, selector) in selectors.iter().enumerate() {
        let picked = indices(selector, view.dims[d] as usize, what, env)?;
        let first = picked.first().copied().unwrap_or(0);
        offset += first * view.strides[d];
        if !matches!(selector, Selector::One(_)) {
            let step = if picked.len() > 1 { picked[1] as isize - picked[0] as isize } else { 1 };
            if step <= 0 {
                return Err((usize::MAX, format!("a slice of `{what}` must run forwards")));
            }
            dims.push(picked.len() as u32);
            steps.push(step as usize * view.strides[d]);
        }
    }
    dims.extend_from_slice(&view.dims[selectors.len()..]);
    steps.extend_from_slice(&view.strides[selectors.len()..]);
    Ok(ArrayView { slot: view.slot, offset, dims, strides: steps })
}

fn select_array(
    items: &[Value],
    view: &ArrayView,
    selectors: &[Selector],
    what: &str,
    env: &dyn Env,
    result: &Type,
) -> Result<Value, EvalError> {
    let part = narrow(view, selectors, what, env)?;
    if part.dims.is_empty() {
        return Ok(items[part.offset].clone());
    }
    if matches!(result, Type::ArrayRef { .. }) {
        return Ok(Value::ArrayRef(part));
    }
    Ok(Value::Array(copy(items, &part)))
}

/// The elements a view shows, as an array of its own.
pub fn copy(items: &[Value], view: &ArrayView) -> Array {
    let count: usize = view.dims.iter().map(|&d| d as usize).product();
    let mut out = Vec::with_capacity(count);
    let mut index = vec![0usize; view.dims.len()];
    for _ in 0..count {
        out.push(items[view.position(&index)].clone());
        // Next index, last dimension fastest.
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < view.dims[d] as usize {
                break;
            }
            index[d] = 0;
        }
    }
    Array { dims: view.dims.clone(), items: out }
}

fn concat(parts: &[Expr], env: &dyn Env, ty: &Type) -> Result<Value, String> {
    let values = parts.iter().map(|p| p.evaluate(env).map_err(|(_, m)| m)).collect::<Result<Vec<_>, _>>()?;
    Ok(match ty {
        Type::Qubits(_) => {
            let mut all: Vec<u32> = Vec::new();
            for value in &values {
                let Value::Qubits(qubits) = value else { return Err("`++` joins qubits with qubits".into()) };
                for q in qubits.iter() {
                    if all.contains(q) {
                        return Err("a register cannot be joined with a part of itself".into());
                    }
                    all.push(*q);
                }
            }
            Value::Qubits(all.into())
        }
        Type::Bits(_) => Value::Bits(
            values
                .iter()
                .flat_map(|v| match v {
                    Value::Bits(bits) => bits.clone(),
                    Value::Bool(b) => vec![*b],
                    _ => Vec::new(),
                })
                .collect(),
        ),
        Type::Array { dims, .. } => {
            let mut items = Vec::new();
            for (value, part) in values.iter().zip(parts) {
                match value {
                    Value::Array(array) => items.extend(array.items.iter().cloned()),
                    Value::ArrayRef(view) => {
                        let Value::Array(root) = env.read(Slot { global: true, index: view.slot }) else {
                            return Err("not an array".into());
                        };
                        items.extend(copy(&root.items, view).items);
                    }
                    _ => return Err(format!("`++` joins arrays, not `{}`", part.ty)),
                }
            }
            Value::Array(Array { dims: dims.clone(), items })
        }
        _ => return Err(format!("`++` does not make a `{ty}`")),
    })
}

/// A value converted to `ty` for storing, with the conversion's error placed at `offset`.
pub fn store(value: &Value, from: &Type, to: &Type, offset: usize) -> Result<Value, EvalError> {
    convert::cast(value, from, to).map_err(|m| (offset, m))
}
