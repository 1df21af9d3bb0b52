//! The built-in functions of OpenQASM 3: `sin`, `cos`, `tan`, `arcsin`, `arccos`, `arctan`,
//! `exp`, `log` (also `ln`), `sqrt`, `floor`, `ceiling`, `mod`, `popcount`, `rotl`, `rotr`,
//! `real` and `imag` (`sizeof` needs arrays and is the checker's). Each overload is chosen from
//! the arguments' types as the specification says: the first one all arguments convert to.

use num_complex::Complex64;

use super::convert::{real, round_float, wrap_int};
use super::ops::common_int;
use super::types::{MAX_WIDTH, Type};
use super::value::{Value, bits_of, number_of};

/// A built-in function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `sin`.
    Sin,
    /// `cos`.
    Cos,
    /// `tan`.
    Tan,
    /// `arcsin`.
    Arcsin,
    /// `arccos`.
    Arccos,
    /// `arctan`.
    Arctan,
    /// `exp`.
    Exp,
    /// `log` (natural; also written `ln`).
    Log,
    /// `sqrt`.
    Sqrt,
    /// `floor`.
    Floor,
    /// `ceiling`.
    Ceiling,
    /// `mod`.
    Mod,
    /// `popcount`.
    Popcount,
    /// `rotl`.
    Rotl,
    /// `rotr`.
    Rotr,
    /// `real`.
    Real,
    /// `imag`.
    Imag,
}

impl Builtin {
    /// The built-in function named `name`.
    pub fn named(name: &str) -> Option<Builtin> {
        use Builtin::*;
        Some(match name {
            "sin" => Sin,
            "cos" => Cos,
            "tan" => Tan,
            "arcsin" => Arcsin,
            "arccos" => Arccos,
            "arctan" => Arctan,
            "exp" => Exp,
            "log" | "ln" => Log,
            "sqrt" => Sqrt,
            "floor" => Floor,
            "ceiling" => Ceiling,
            "mod" => Mod,
            "popcount" => Popcount,
            "rotl" => Rotl,
            "rotr" => Rotr,
            "real" => Real,
            "imag" => Imag,
            _ => return None,
        })
    }

    fn arity(self) -> usize {
        match self {
            Builtin::Mod | Builtin::Rotl | Builtin::Rotr => 2,
            _ => 1,
        }
    }

    /// The types the arguments convert to and the result's type, or why the call is invalid.
    pub fn signature(self, name: &str, args: &[Type]) -> Result<(Vec<Type>, Type), String> {
        use Builtin::*;
        if args.len() != self.arity() {
            let plural = if self.arity() == 1 { "argument" } else { "arguments" };
            return Err(format!("`{name}` takes {} {plural}, not {}", self.arity(), args.len()));
        }
        let refuse = || Err(format!("`{name}` does not take `{}`", join(args)));
        let real_arg = |t: &Type| t.is_integer() || t.is_boolean() || matches!(t, Type::Float(_) | Type::Angle(_));
        let float_of = |t: &Type| match t {
            Type::Float(w) => Type::Float(*w),
            _ => Type::Float(None),
        };
        let a = &args[0];
        Ok(match self {
            Sin | Cos | Tan if matches!(a, Type::Angle(_)) => (vec![a.clone()], Type::Float(None)),
            Exp | Sqrt if matches!(a, Type::Complex(_)) => (vec![a.clone()], a.clone()),
            Sin | Cos | Tan | Arcsin | Arccos | Arctan | Exp | Log | Sqrt | Floor | Ceiling if real_arg(a) => {
                (vec![float_of(a)], float_of(a))
            }
            Mod if (a.is_integer() || a.is_boolean()) && (args[1].is_integer() || args[1].is_boolean()) => {
                let common = common_int(a, &args[1]);
                (vec![common.clone(), common.clone()], common)
            }
            Mod if real_arg(a) && real_arg(&args[1]) => (vec![Type::Float(None); 2], Type::Float(None)),
            Popcount if a.bit_width().is_some() => (vec![a.clone()], Type::UInt(None)),
            Rotl | Rotr
                if matches!(a, Type::Bits(_) | Type::UInt(_) | Type::Int(_) | Type::Angle(_))
                    && (args[1].is_integer() || args[1].is_boolean()) =>
            {
                (vec![a.clone(), Type::Int(None)], a.clone())
            }
            Real | Imag if matches!(a, Type::Complex(_)) => (vec![a.clone()], Type::Float(*complex_width(a))),
            _ => return refuse(),
        })
    }

    /// The function applied to `args` (already converted to its signature's types).
    pub fn apply(self, args: &[Value], types: &[Type], result: &Type) -> Result<Value, String> {
        use Builtin::*;
        let x = || real(&args[0], &types[0]).unwrap_or(f64::NAN);
        let float = |v: f64| Ok(Value::Float(round_float(v, result)));
        match self {
            Sin => float(x().sin()),
            Cos => float(x().cos()),
            Tan => float(x().tan()),
            Arcsin => float(x().asin()),
            Arccos => float(x().acos()),
            Arctan => float(x().atan()),
            Exp | Sqrt if matches!(args[0], Value::Complex(_)) => {
                let Value::Complex(z) = args[0] else { unreachable!("matched above") };
                let w = if self == Exp { z.exp() } else { z.sqrt() };
                Ok(Value::Complex(Complex64::new(round_float(w.re, result), round_float(w.im, result))))
            }
            Exp => float(x().exp()),
            Sqrt => float(x().sqrt()),
            Log => float(x().ln()),
            Floor => float(x().floor()),
            Ceiling => float(x().ceil()),
            Mod => match (&args[0], &args[1]) {
                (Value::Int(_), Value::Int(0)) => Err("`mod` by zero".into()),
                (Value::Int(a), Value::Int(b)) => Ok(Value::Int(wrap_int(a.rem_euclid(*b), result))),
                (a, b) => {
                    float(real(a, &types[0]).unwrap_or(f64::NAN).rem_euclid(real(b, &types[1]).unwrap_or(f64::NAN)))
                }
            },
            Popcount => {
                let width = types[0].bit_width().unwrap_or(MAX_WIDTH);
                let ones = representation(&args[0], width).iter().filter(|&&b| b).count();
                Ok(Value::Int(ones as i128))
            }
            Rotl | Rotr => {
                let width = types[0].bit_width().unwrap_or(MAX_WIDTH) as i128;
                let Value::Int(distance) = args[1] else { return Err("`rotl` needs an integer distance".into()) };
                let by = if self == Rotl { distance } else { -distance }.rem_euclid(width.max(1)) as usize;
                let bits = representation(&args[0], width as u32);
                let n = bits.len();
                // Towards higher indices: bit i comes from bit i - by.
                let rotated: Vec<bool> = (0..n).map(|i| bits[(i + n - by % n.max(1)) % n.max(1)]).collect();
                Ok(match &args[0] {
                    Value::Bits(_) => Value::Bits(rotated),
                    Value::Angle(_) => Value::Angle(number_of(&rotated) as u64),
                    _ => Value::Int(wrap_int(number_of(&rotated) as i128, result)),
                })
            }
            Real | Imag => match args[0] {
                Value::Complex(z) => float(if self == Real { z.re } else { z.im }),
                _ => Err("`real` and `imag` need a complex number".into()),
            },
        }
    }
}

fn complex_width(t: &Type) -> &Option<u32> {
    match t {
        Type::Complex(w) => w,
        _ => &None,
    }
}

/// A value's bits, least significant first.
fn representation(value: &Value, width: u32) -> Vec<bool> {
    match value {
        Value::Bits(bits) => bits.clone(),
        Value::Bool(b) => vec![*b],
        Value::Int(i) => bits_of(*i, width),
        Value::Angle(p) => bits_of(i128::from(*p), width),
        _ => Vec::new(),
    }
}

fn join(types: &[Type]) -> String {
    types.iter().map(ToString::to_string).collect::<Vec<_>>().join("`, `")
}

/// The value of a built-in constant: `pi`/`π`, `tau`/`τ`, `euler`/`ℇ`.
pub fn constant(name: &str) -> Option<f64> {
    use std::f64::consts::{E, PI, TAU};
    match name {
        "pi" | "π" => Some(PI),
        "tau" | "τ" => Some(TAU),
        "euler" | "ℇ" => Some(E),
        _ => None,
    }
}
