//! Conversions between classical types: which are implicit (assignments, arguments,
//! initialisers), which need a cast, and what they do to a value.
//!
//! Following the specification's table of casts, with these choices where it leaves them to
//! the implementation: an integer that does not fit its target type wraps around (two's
//! complement, as hardware registers do); a float converts to an integer by truncation, and a
//! float that is not finite is an error; an angle converts to fewer bits by rounding to the
//! nearest pattern, ties to even. Beyond the table, an angle converts to a float (its radians)
//! and an integer to an angle (as radians), and `bit[n]` casts to an unsized `int`/`uint`.

use num_complex::Complex64;

use super::types::{MAX_WIDTH, Type};
use super::value::{Value, angle_radians, bits_of, number_of};

/// `value` wrapped to the integer type `ty` (two's complement for `int[n]`).
pub fn wrap_int(value: i128, ty: &Type) -> i128 {
    let (width, signed) = match ty {
        Type::Int(w) => (w.unwrap_or(MAX_WIDTH), true),
        Type::UInt(w) => (w.unwrap_or(MAX_WIDTH), false),
        Type::Bool | Type::Bit => return value & 1,
        _ => return value,
    };
    let low = value & ((1i128 << width) - 1);
    if signed && low >> (width - 1) & 1 == 1 { low - (1i128 << width) } else { low }
}

/// `x` rounded to the precision of the float type `ty`: `float[16]` and `float[32]` are IEEE
/// half and single precision.
pub fn round_float(x: f64, ty: &Type) -> f64 {
    match ty.float_width() {
        16 => round_half(x),
        32 => f64::from(x as f32),
        _ => x,
    }
}

/// `x` rounded to the nearest IEEE half-precision value (ties to even; overflow to infinity).
fn round_half(x: f64) -> f64 {
    const LARGEST: f64 = 65504.0;
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    // The spacing of half-precision values near x: 2^(exponent - 10), never below 2^-24.
    let exponent = x.abs().log2().floor().max(-14.0) as i32;
    let spacing = 2f64.powi(exponent - 10);
    let rounded = (x / spacing).round_ties_even() * spacing;
    // Ties at the top of the range round to the largest value or past it to infinity.
    if rounded.abs() > LARGEST { x.signum() * f64::INFINITY } else { rounded }
}

/// The pattern of `width` bits nearest to `radians` modulo 2 pi, ties to even.
pub fn angle_from_radians(radians: f64, width: u32) -> Result<u64, String> {
    if !radians.is_finite() {
        return Err(format!("{radians} is not an angle"));
    }
    let turns = (radians / std::f64::consts::TAU).rem_euclid(1.0);
    let steps = 2f64.powi(width as i32);
    let pattern = (turns * steps).round_ties_even();
    Ok(if pattern >= steps { 0 } else { pattern as u64 })
}

/// An angle pattern of `from` bits as one of `to` bits: padded with zeros below, or rounded to
/// the nearest, ties to even.
pub fn resize_angle(pattern: u64, from: u32, to: u32) -> u64 {
    let mask = |w: u32| if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    if to >= from {
        return (pattern << (to - from)) & mask(to);
    }
    let shift = from - to;
    let kept = pattern >> shift;
    let rest = pattern & mask(shift);
    let half = 1u64 << (shift - 1);
    let up = rest > half || (rest == half && kept & 1 == 1);
    (if up { kept.wrapping_add(1) } else { kept }) & mask(to)
}

/// Whether a value of type `from` may be used where `to` is expected without a cast.
pub fn implicit(from: &Type, to: &Type) -> bool {
    use Type::*;
    match (from, to) {
        (a, b) if a == b => true,
        (Bool | Bit, Bool | Bit) => true,
        // A single bit and a register of one bit.
        (Bool | Bit, Bits(1)) | (Bits(1), Bool | Bit) => true,
        (Bool | Bit | Int(_) | UInt(_), Int(_) | UInt(_) | Float(_) | Complex(_)) => true,
        (Int(_) | UInt(_), Bool | Bit) => true,
        (Float(_), Float(_) | Complex(_) | Angle(_)) => true,
        (Int(_) | UInt(_), Angle(_)) => true,
        (Angle(_), Angle(_)) => true,
        (Complex(_), Complex(_)) => true,
        (Duration | Stretch, Duration | Stretch) => true,
        (Array { base: a, dims: d }, Array { base: b, dims: e }) => d == e && a == b,
        (Array { base: a, dims }, ArrayRef { base: b, dims: want, ndim, .. }) => {
            a == b && dims.len() as u32 == *ndim && want.as_ref().is_none_or(|w| w == dims)
        }
        (ArrayRef { base: a, dims: Some(dims), .. }, ArrayRef { base: b, dims: want, ndim, .. }) => {
            a == b && dims.len() as u32 == *ndim && want.as_ref().is_none_or(|w| w == dims)
        }
        (ArrayRef { base: a, ndim: n, .. }, ArrayRef { base: b, ndim: m, dims: None, .. }) => a == b && n == m,
        (Qubit, Qubit) | (Qubit | Qubits(_), Qubits(None)) => true,
        (Qubits(Some(n)), Qubits(Some(m))) => n == m,
        (Qubit, Qubits(Some(1))) => true,
        _ => false,
    }
}

/// Why `from` cannot be cast to `to`, if it cannot.
pub fn explicit(from: &Type, to: &Type) -> Result<(), String> {
    use Type::*;
    let refused = || Err(format!("a value of type `{from}` cannot be cast to `{to}`"));
    match (from, to) {
        _ if implicit(from, to) && !matches!((from, to), (Bits(_), Bits(_))) => Ok(()),
        (Bool | Bit | Int(_) | UInt(_) | Float(_) | Angle(_) | Bits(_), Bool | Bit) => Ok(()),
        (Float(_) | Angle(_), Int(_) | UInt(_) | Float(_)) => Ok(()),
        (Bits(n), Int(w) | UInt(w) | Angle(w)) => match w {
            Some(w) if w != n => Err(format!("`{from}` casts to `{to}` only with as many bits: slice it first")),
            _ => Ok(()),
        },
        (Int(w) | UInt(w) | Angle(w), Bits(n)) => match w {
            Some(w) if w != n => Err(format!("`{from}` casts to `{to}` only with as many bits: slice it first")),
            _ => Ok(()),
        },
        (Bool | Bit, Bits(_)) => Ok(()),
        (Bits(n), Bits(m)) if n == m => Ok(()),
        (Bits(_), Bits(_)) => Err(format!("`{from}` cannot be cast to `{to}`: slice it to the same width")),
        _ => refused(),
    }
}

/// `value` of type `from` converted to `to` (a conversion [`implicit`] or [`explicit`] allows).
pub fn cast(value: &Value, from: &Type, to: &Type) -> Result<Value, String> {
    use Type::*;
    if from == to {
        return Ok(value.clone());
    }
    Ok(match (to, value) {
        (Bool | Bit, v) => Value::Bool(v.truthy()),
        (Int(_) | UInt(_), Value::Bool(b)) => Value::Int(wrap_int(i128::from(*b), to)),
        (Int(_) | UInt(_), Value::Int(i)) => Value::Int(wrap_int(*i, to)),
        (Int(_) | UInt(_), Value::Float(x)) => {
            let whole = x.trunc();
            if !whole.is_finite() || whole.abs() >= 2f64.powi(126) {
                return Err(format!("{x} does not fit `{to}`"));
            }
            Value::Int(wrap_int(whole as i128, to))
        }
        (Int(_) | UInt(_), Value::Angle(p)) => Value::Int(wrap_int(i128::from(*p), to)),
        // An `int[n]` from `n` bits reads the top bit as the sign; an unsized `int` holds the
        // bits in its low end.
        (Int(_) | UInt(_), Value::Bits(bits)) => Value::Int(wrap_int(number_of(bits) as i128, to)),
        (Float(_), v) => match v.as_f64(from.angle_width()) {
            Some(x) => Value::Float(round_float(x, to)),
            None => return Err(format!("a value of type `{from}` is not a number")),
        },
        (Angle(w), Value::Angle(p)) => Value::Angle(resize_angle(*p, from.angle_width(), w.unwrap_or(MAX_WIDTH))),
        (Angle(_), Value::Bits(bits)) => Value::Angle(number_of(bits) as u64),
        (Angle(w), v) => match v.as_f64(MAX_WIDTH) {
            Some(x) => Value::Angle(angle_from_radians(x, w.unwrap_or(MAX_WIDTH))?),
            None => return Err(format!("a value of type `{from}` is not an angle")),
        },
        (Bits(n), Value::Bool(b)) => Value::Bits((0..*n).map(|i| i == 0 && *b).collect()),
        (Bits(n), Value::Int(i)) => Value::Bits(bits_of(*i, *n)),
        (Bits(n), Value::Angle(p)) => Value::Bits(bits_of(i128::from(*p), *n)),
        (Bits(n), Value::Bits(bits)) if bits.len() == *n as usize => Value::Bits(bits.clone()),
        (Complex(_), Value::Complex(z)) => Value::Complex(Complex64::new(round_float(z.re, to), round_float(z.im, to))),
        (Complex(_), v) => match v.as_f64(MAX_WIDTH) {
            Some(x) => Value::Complex(Complex64::new(round_float(x, to), 0.0)),
            None => return Err(format!("a value of type `{from}` is not a number")),
        },
        (Duration | Stretch, Value::Duration(d)) => Value::Duration(d.clone()),
        (Array { base: to_base, .. }, Value::Array(array)) => {
            let Array { base: from_base, .. } = from else { return Err(format!("`{from}` is not an array")) };
            let items = array.items.iter().map(|item| cast(item, from_base, to_base)).collect::<Result<_, _>>()?;
            Value::Array(super::value::Array { dims: array.dims.clone(), items })
        }
        (ArrayRef { .. } | Qubit | Qubits(_), v) => v.clone(),
        _ => return Err(format!("a value of type `{from}` cannot be converted to `{to}`")),
    })
}

/// The default value of a declared but not initialised variable (the specification leaves it
/// undefined; here it is zero, `false`, or an array of them).
pub fn zero(ty: &Type) -> Value {
    use Type::*;
    match ty {
        Bool | Bit => Value::Bool(false),
        Bits(n) => Value::Bits(vec![false; *n as usize]),
        Int(_) | UInt(_) => Value::Int(0),
        Float(_) => Value::Float(0.0),
        Angle(_) => Value::Angle(0),
        Complex(_) => Value::Complex(Complex64::new(0.0, 0.0)),
        Duration | Stretch => Value::Duration(super::value::Duration::default()),
        Array { base, dims } => {
            let count = dims.iter().map(|&d| d as usize).product();
            Value::Array(super::value::Array { dims: dims.clone(), items: vec![zero(base); count] })
        }
        _ => Value::Int(0),
    }
}

/// A value's radians when `ty` is an angle, or its real value.
pub fn real(value: &Value, ty: &Type) -> Option<f64> {
    match value {
        Value::Angle(p) => Some(angle_radians(*p, ty.angle_width())),
        other => other.as_f64(MAX_WIDTH),
    }
}
