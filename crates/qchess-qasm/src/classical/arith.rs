//! What operators compute, on operands already converted to their [`Signature`]'s types.

use std::cmp::Ordering;

use num_complex::Complex64;

use super::convert::{round_float, wrap_int};
use super::ops::{Arith, BinaryOp, Signature, UnaryOp};
use super::types::{MAX_WIDTH, Type};
use super::value::{Duration, Value, number_of};

fn int(v: &Value) -> i128 {
    match v {
        Value::Int(i) => *i,
        Value::Bool(b) => i128::from(*b),
        Value::Angle(p) => i128::from(*p),
        Value::Bits(bits) => number_of(bits) as i128,
        _ => 0,
    }
}

fn real(v: &Value) -> f64 {
    v.as_f64(MAX_WIDTH).unwrap_or(f64::NAN)
}

fn complex(v: &Value) -> Complex64 {
    match v {
        Value::Complex(z) => *z,
        other => Complex64::new(real(other), 0.0),
    }
}

fn mask(width: u32) -> u64 {
    if width >= 64 { u64::MAX } else { (1u64 << width) - 1 }
}

/// `base ** exponent` wrapping modulo 2^128 (exact modulo any smaller power of two).
fn wrapping_pow(mut base: i128, mut exponent: u128) -> i128 {
    let mut result: i128 = 1;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exponent >>= 1;
    }
    result
}

/// `a op b` under `signature`.
pub fn binary(op: BinaryOp, signature: &Signature, a: &Value, b: &Value) -> Result<Value, String> {
    use BinaryOp::*;
    let result = &signature.result;
    let unsupported = || Err(format!("`{}` does not apply here", op.symbol()));
    Ok(match signature.arith {
        Arith::Bool => {
            let (x, y) = (a.truthy(), b.truthy());
            Value::Bool(match op {
                And => x && y,
                Or => x || y,
                BitAnd => x & y,
                BitOr => x | y,
                BitXor => x ^ y,
                _ => return unsupported(),
            })
        }
        Arith::Int => {
            let (x, y) = (int(a), int(b));
            let value = match op {
                Add => x.wrapping_add(y),
                Sub => x.wrapping_sub(y),
                Mul => x.wrapping_mul(y),
                Div | Rem if y == 0 => return Err("division by zero".into()),
                Div => x.wrapping_div(y),
                Rem => x.wrapping_rem(y),
                // `1 / x^n` in integers, as `/` divides them.
                Pow if y < 0 && x == 0 => return Err("zero to a negative power".into()),
                Pow if y < 0 => match x {
                    1 => 1,
                    -1 => {
                        if y % 2 == 0 {
                            1
                        } else {
                            -1
                        }
                    }
                    _ => 0,
                },
                Pow => wrapping_pow(x, y as u128),
                BitAnd => x & y,
                BitOr => x | y,
                BitXor => x ^ y,
                _ => return unsupported(),
            };
            Value::Int(wrap_int(value, result))
        }
        Arith::Float => {
            let (x, y) = (real(a), real(b));
            let value = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div => x / y,
                Pow => x.powf(y),
                _ => return unsupported(),
            };
            Value::Float(round_float(value, result))
        }
        Arith::Complex => {
            let (x, y) = (complex(a), complex(b));
            let z = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div => x / y,
                Pow => x.powc(y),
                _ => return unsupported(),
            };
            Value::Complex(Complex64::new(round_float(z.re, result), round_float(z.im, result)))
        }
        Arith::Bits => {
            let (Value::Bits(x), Value::Bits(y)) = (a, b) else { return unsupported() };
            let f: fn(bool, bool) -> bool = match op {
                BitAnd => |p, q| p & q,
                BitOr => |p, q| p | q,
                BitXor => |p, q| p ^ q,
                _ => return unsupported(),
            };
            Value::Bits(x.iter().zip(y).map(|(&p, &q)| f(p, q)).collect())
        }
        Arith::Angle => {
            let w = result.angle_width();
            let (x, y) = (int(a) as u64, int(b) as u64);
            Value::Angle(
                match op {
                    Add => x.wrapping_add(y),
                    Sub => x.wrapping_sub(y),
                    BitAnd => x & y,
                    BitOr => x | y,
                    BitXor => x ^ y,
                    _ => return unsupported(),
                } & mask(w),
            )
        }
        Arith::AngleScale => {
            let w = result.angle_width();
            let (pattern, k) = if matches!(a, Value::Angle(_)) { (int(a), int(b)) } else { (int(b), int(a)) };
            let modulus = 1i128 << w;
            Value::Angle(match op {
                Mul => pattern.wrapping_mul(k).rem_euclid(modulus) as u64,
                Div if k <= 0 => return Err(format!("an angle divided by {k}: the divisor must be positive")),
                Div => (pattern / k) as u64,
                _ => return unsupported(),
            })
        }
        Arith::AngleRatio => {
            let (x, y) = (int(a), int(b));
            if y == 0 {
                return Err("division by a zero angle".into());
            }
            Value::Int(x / y)
        }
        Arith::Shift => shift(op, a, &signature.left, int(b))?,
        Arith::Duration => duration(op, a, b)?,
        Arith::Compare => Value::Bool(compare(op, a, b)?),
    })
}

fn shift(op: BinaryOp, value: &Value, ty: &Type, by: i128) -> Result<Value, String> {
    if by < 0 {
        return Err(format!("a shift by {by}"));
    }
    let left = op == BinaryOp::Shl;
    let by = by.min(i128::from(u32::MAX)) as u32;
    Ok(match value {
        Value::Bits(bits) => {
            let n = bits.len();
            let by = by as usize;
            Value::Bits(
                (0..n)
                    .map(|i| {
                        let from = if left { i.checked_sub(by) } else { i.checked_add(by) };
                        from.and_then(|j| bits.get(j).copied()).unwrap_or(false)
                    })
                    .collect(),
            )
        }
        Value::Angle(p) => {
            let w = ty.angle_width();
            let shifted = if by >= 64 {
                0
            } else if left {
                p << by
            } else {
                p >> by
            };
            Value::Angle(shifted & mask(w))
        }
        Value::Int(x) => {
            let by = by.min(127);
            Value::Int(wrap_int(if left { x << by } else { x >> by }, ty))
        }
        _ => return Err("a shift needs bits, an integer or an angle".into()),
    })
}

fn duration(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, String> {
    let refuse = || Err(format!("`{}` does not apply to these durations", op.symbol()));
    Ok(match (a, b) {
        (Value::Duration(x), Value::Duration(y)) => match op {
            BinaryOp::Add => Value::Duration(x.plus(y, 1.0)),
            BinaryOp::Sub => Value::Duration(x.plus(y, -1.0)),
            BinaryOp::Div => Value::Float(ratio(x, y)?),
            _ => return refuse(),
        },
        (Value::Duration(x), k) => match op {
            BinaryOp::Mul => Value::Duration(x.scaled(real(k))),
            BinaryOp::Div => Value::Duration(x.scaled(1.0 / real(k))),
            _ => return refuse(),
        },
        (k, Value::Duration(y)) if op == BinaryOp::Mul => Value::Duration(y.scaled(real(k))),
        _ => return refuse(),
    })
}

/// `x / y` for durations of one kind (both in seconds or both in `dt`, without stretches).
fn ratio(x: &Duration, y: &Duration) -> Result<f64, String> {
    let fixed = |d: &Duration| d.stretch.is_empty();
    if !fixed(x) || !fixed(y) {
        return Err("a duration with a `stretch` has no value until it is scheduled".into());
    }
    match ((x.seconds, x.dt), (y.seconds, y.dt)) {
        ((s, 0.0), (t, 0.0)) => Ok(s / t),
        ((0.0, s), (0.0, t)) => Ok(s / t),
        _ => Err("durations in seconds and in `dt` do not compare without a device's `dt`".into()),
    }
}

fn compare(op: BinaryOp, a: &Value, b: &Value) -> Result<bool, String> {
    use BinaryOp::*;
    let order = match (a, b) {
        (Value::Complex(x), Value::Complex(y)) => Some(if x == y { Ordering::Equal } else { Ordering::Less }),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Duration(x), Value::Duration(y)) => {
            let difference = x.plus(y, -1.0);
            if !difference.stretch.is_empty() {
                return Err("a duration with a `stretch` has no value until it is scheduled".into());
            }
            let (s, dt) = (difference.seconds, difference.dt);
            if s != 0.0 && dt != 0.0 && s.signum() != dt.signum() {
                return Err("durations in seconds and in `dt` do not compare without a device's `dt`".into());
            }
            (s + dt).partial_cmp(&0.0)
        }
        _ => Some(int(a).cmp(&int(b))),
    };
    Ok(match order {
        None => op == Ne,
        Some(order) => match op {
            Eq => order == Ordering::Equal,
            Ne => order != Ordering::Equal,
            Lt => order == Ordering::Less,
            Le => order != Ordering::Greater,
            Gt => order == Ordering::Greater,
            _ => order != Ordering::Less,
        },
    })
}

/// `op value`, with `value` of type `ty` (the operand type of the operator's signature).
pub fn unary(op: UnaryOp, ty: &Type, value: &Value) -> Result<Value, String> {
    Ok(match (op, value) {
        (UnaryOp::Plus, v) => v.clone(),
        (UnaryOp::Not, v) => Value::Bool(!v.truthy()),
        (UnaryOp::Neg, Value::Int(i)) => Value::Int(wrap_int(i.wrapping_neg(), ty)),
        (UnaryOp::Neg, Value::Float(x)) => Value::Float(-x),
        (UnaryOp::Neg, Value::Complex(z)) => Value::Complex(-z),
        (UnaryOp::Neg, Value::Angle(p)) => Value::Angle(p.wrapping_neg() & mask(ty.angle_width())),
        (UnaryOp::Neg, Value::Duration(d)) => Value::Duration(d.scaled(-1.0)),
        (UnaryOp::BitNot, Value::Bits(bits)) => Value::Bits(bits.iter().map(|b| !b).collect()),
        (UnaryOp::BitNot, Value::Bool(b)) => Value::Bool(!b),
        (UnaryOp::BitNot, Value::Int(i)) => Value::Int(wrap_int(!i, ty)),
        (UnaryOp::BitNot, Value::Angle(p)) => Value::Angle(!p & mask(ty.angle_width())),
        _ => return Err("this operator does not apply to this value".into()),
    })
}
