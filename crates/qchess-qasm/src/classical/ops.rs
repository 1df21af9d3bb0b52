//! Operators: which operand types each accepts, what type it gives (`signature`), and how it
//! computes (`apply`).
//!
//! Mixed operands follow the specification's usual arithmetic conversions: a `float` operand
//! makes the operation a float one (a `complex` one a complex one); two integers combine in the
//! wider of their types (unsigned when the widths tie and one is unsigned), and the result wraps
//! around in that type. Angles add and subtract as angles, scale by integers and divide into an
//! unsigned ratio; mixed with a float they count as their radians. `bit[n]` registers take the
//! bitwise operators and compare with integers as `uint[n]`. Durations add, scale and divide.

use super::types::{MAX_WIDTH, Type};

/// A unary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `+x`.
    Plus,
    /// `!x` (logical not).
    Not,
    /// `~x` (bitwise not).
    BitNot,
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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

impl BinaryOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Pow => "**",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
        }
    }
}

/// How an operation computes once its operands have the types of its [`Signature`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arith {
    /// On integers, wrapping to the result type.
    Int,
    /// On reals, rounded to the result's width.
    Float,
    /// On complex numbers.
    Complex,
    /// On truth values (`&&`, `||`, and bitwise operators on `bool` / `bit`).
    Bool,
    /// Bit by bit on `bit[n]` registers.
    Bits,
    /// On angle patterns of the result's width (sums, bitwise operators).
    Angle,
    /// An angle times or divided by an integer.
    AngleScale,
    /// An angle divided by an angle: an unsigned ratio.
    AngleRatio,
    /// A shift of the left operand's bits by an integer.
    Shift,
    /// On durations.
    Duration,
    /// A comparison of two values of the same kind.
    Compare,
}

/// What a binary operator does with operands of given types: the types its operands are
/// converted to, the type of its result, and how it computes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Signature {
    /// The left operand's type after conversion.
    pub left: Type,
    /// The right operand's type after conversion.
    pub right: Type,
    /// The result's type.
    pub result: Type,
    /// How it computes.
    pub arith: Arith,
}

fn sig(left: Type, right: Type, result: Type, arith: Arith) -> Result<Signature, String> {
    Ok(Signature { left, right, result, arith })
}

/// Whether values of `t` have a truth value.
fn has_truth(t: &Type) -> bool {
    matches!(t, Type::Bool | Type::Bit | Type::Bits(_) | Type::Int(_) | Type::UInt(_) | Type::Float(_) | Type::Angle(_))
}

/// `bool`, `bit`, `int` or `uint`.
fn int_like(t: &Type) -> bool {
    t.is_boolean() || t.is_integer()
}

/// The integer type two integer operands combine in: the wider one's; when the widths tie,
/// unsigned if either is (`bool` and `bit` count as `int`).
pub fn common_int(l: &Type, r: &Type) -> Type {
    let view = |t: &Type| match t {
        Type::Int(w) => (*w, true),
        Type::UInt(w) => (*w, false),
        _ => (None, true),
    };
    let ((wl, sl), (wr, sr)) = (view(l), view(r));
    let (el, er) = (wl.unwrap_or(MAX_WIDTH), wr.unwrap_or(MAX_WIDTH));
    let (width, signed) = if el != er {
        if el > er { (wl, sl) } else { (wr, sr) }
    } else {
        (if wl.is_none() || wr.is_none() { None } else { wl }, sl && sr)
    };
    if signed { Type::Int(width) } else { Type::UInt(width) }
}

fn common_angle(l: &Type, r: &Type) -> Type {
    match (l, r) {
        (Type::Angle(a), Type::Angle(b)) => match (a, b) {
            (Some(a), Some(b)) => Type::Angle(Some(*a.max(b))),
            _ => Type::Angle(None),
        },
        _ => Type::Angle(None),
    }
}

/// The float (or complex) type of a real operation on `l` and `r`: the widest float operand.
fn common_float(l: &Type, r: &Type, complex: bool) -> Type {
    let width = |t: &Type| match t {
        Type::Float(w) | Type::Complex(w) => Some(w.unwrap_or(MAX_WIDTH)),
        _ => None,
    };
    let w = match (width(l), width(r)) {
        (Some(a), Some(b)) => a.max(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => MAX_WIDTH,
    };
    let w = if w == MAX_WIDTH { None } else { Some(w) };
    if complex { Type::Complex(w) } else { Type::Float(w) }
}

/// The signature of `l op r`, or why the operator does not apply.
pub fn signature(op: BinaryOp, l: &Type, r: &Type) -> Result<Signature, String> {
    use BinaryOp::*;
    let refuse = || Err(format!("`{}` does not apply to `{l}` and `{r}`", op.symbol()));
    match op {
        And | Or if has_truth(l) && has_truth(r) => sig(Type::Bool, Type::Bool, Type::Bool, Arith::Bool),
        And | Or => refuse(),
        Eq | Ne | Lt | Le | Gt | Ge => comparison(op, l, r),
        BitAnd | BitOr | BitXor => bitwise(l, r).unwrap_or_else(refuse),
        Shl | Shr => match l {
            Type::Bits(_) | Type::Int(_) | Type::UInt(_) | Type::Angle(_) if int_like(r) => {
                sig(l.clone(), Type::Int(None), l.clone(), Arith::Shift)
            }
            _ => refuse(),
        },
        Add | Sub | Mul | Div | Rem | Pow => arithmetic(op, l, r).unwrap_or_else(refuse),
    }
}

/// The integer a comparison reads from an integer-like or `bit[n]` operand.
fn int_view(t: &Type) -> Option<Type> {
    match t {
        Type::Bool | Type::Bit => Some(Type::Int(None)),
        Type::Bits(n) if *n <= MAX_WIDTH => Some(Type::UInt(Some(*n))),
        Type::Int(_) | Type::UInt(_) => Some(t.clone()),
        _ => None,
    }
}

fn comparison(op: BinaryOp, l: &Type, r: &Type) -> Result<Signature, String> {
    use Type::*;
    let compare = |left: Type, right: Type| sig(left, right, Bool, Arith::Compare);
    let ordered = !matches!(op, BinaryOp::Eq | BinaryOp::Ne);
    match (l, r) {
        (Complex(_), _) | (_, Complex(_)) if ordered => {
            Err(format!("complex numbers have no order: `{}` does not apply", op.symbol()))
        }
        (Complex(_), Complex(_) | Float(_) | Int(_) | UInt(_) | Bool | Bit)
        | (Float(_) | Int(_) | UInt(_) | Bool | Bit, Complex(_)) => compare(Complex(None), Complex(None)),
        (Angle(_), Angle(_)) => compare(common_angle(l, r), common_angle(l, r)),
        (Duration | Stretch, Duration | Stretch) => compare(Duration, Duration),
        (Float(_) | Angle(_), _) | (_, Float(_) | Angle(_)) if l.as_real() && r.as_real() => {
            compare(Float(None), Float(None))
        }
        _ => match (int_view(l), int_view(r)) {
            (Some(a), Some(b)) => compare(a, b),
            _ => Err(format!("`{}` cannot compare `{l}` with `{r}`", op.symbol())),
        },
    }
}

impl Type {
    /// Whether the type has a real value (integers, booleans, floats, angles as radians).
    fn as_real(&self) -> bool {
        int_like(self) || matches!(self, Type::Float(_) | Type::Angle(_))
    }
}

fn bitwise(l: &Type, r: &Type) -> Option<Result<Signature, String>> {
    use Type::*;
    Some(match (l, r) {
        (Bits(n), Bits(m)) if n != m => {
            Err(format!("bitwise operators need registers of one width, not `{l}` and `{r}`"))
        }
        (Bits(n), Bits(_)) | (Bits(n), Int(_) | UInt(_)) | (Int(_) | UInt(_), Bits(n)) => {
            sig(Bits(*n), Bits(*n), Bits(*n), Arith::Bits)
        }
        (Bool | Bit, Bool | Bit) => {
            let result = if *l == Bool && *r == Bool { Bool } else { Bit };
            sig(Bool, Bool, result, Arith::Bool)
        }
        _ if int_like(l) && int_like(r) => {
            let common = common_int(l, r);
            sig(common.clone(), common.clone(), common, Arith::Int)
        }
        (Angle(_), Angle(_)) => {
            let common = common_angle(l, r);
            sig(common.clone(), common.clone(), common, Arith::Angle)
        }
        _ => return None,
    })
}

fn arithmetic(op: BinaryOp, l: &Type, r: &Type) -> Option<Result<Signature, String>> {
    use BinaryOp::*;
    use Type::*;
    let numeric = |t: &Type| int_like(t) || matches!(t, Float(_));
    Some(match (l, r) {
        (Duration | Stretch, Duration | Stretch) => match op {
            Add | Sub => sig(Duration, Duration, Duration, Arith::Duration),
            Div => sig(Duration, Duration, Float(None), Arith::Duration),
            _ => return None,
        },
        (Duration | Stretch, t) if numeric(t) && matches!(op, Mul | Div) => {
            sig(Duration, Float(None), Duration, Arith::Duration)
        }
        (t, Duration | Stretch) if numeric(t) && op == Mul => sig(Float(None), Duration, Duration, Arith::Duration),
        (Bits(_), _) | (_, Bits(_)) => {
            let bits = if matches!(l, Bits(_)) { l } else { r };
            Err(format!("arithmetic on `{bits}` needs a cast, such as `uint[{}](...)`", bits.bit_width().unwrap_or(1)))
        }
        (Angle(_), Angle(_)) if matches!(op, Add | Sub) => {
            let common = common_angle(l, r);
            sig(common.clone(), common.clone(), common, Arith::Angle)
        }
        (Angle(_), Angle(_)) if op == Div => {
            let common = common_angle(l, r);
            let ratio = UInt(Some(common.angle_width()));
            sig(common.clone(), common, ratio, Arith::AngleRatio)
        }
        (Angle(_), t) if int_like(t) && matches!(op, Mul | Div) => {
            sig(l.clone(), Int(None), l.clone(), Arith::AngleScale)
        }
        (t, Angle(_)) if int_like(t) && op == Mul => sig(Int(None), r.clone(), r.clone(), Arith::AngleScale),
        (Complex(_), _) | (_, Complex(_)) if op != Rem && l.as_complex() && r.as_complex() => {
            let common = common_float(l, r, true);
            sig(common.clone(), common.clone(), common, Arith::Complex)
        }
        (Float(_) | Angle(_), _) | (_, Float(_) | Angle(_)) if l.as_real() && r.as_real() => {
            if op == Rem {
                return Some(Err(format!("`%` needs integers, not `{l}` and `{r}`")));
            }
            let common = common_float(l, r, false);
            sig(common.clone(), common.clone(), common, Arith::Float)
        }
        _ if int_like(l) && int_like(r) => {
            let common = common_int(l, r);
            sig(common.clone(), common.clone(), common, Arith::Int)
        }
        _ => return None,
    })
}

impl Type {
    fn as_complex(&self) -> bool {
        self.as_real() || matches!(self, Type::Complex(_))
    }
}

/// The operand type a unary operator converts its operand to, and its result type.
pub fn unary_signature(op: UnaryOp, t: &Type) -> Result<(Type, Type), String> {
    use Type::*;
    let same = || Ok((t.clone(), t.clone()));
    match (op, t) {
        (UnaryOp::Neg | UnaryOp::Plus, Int(_) | UInt(_) | Float(_) | Complex(_) | Angle(_) | Duration) => same(),
        (UnaryOp::Neg | UnaryOp::Plus, Stretch) => Ok((Duration, Duration)),
        (UnaryOp::Neg | UnaryOp::Plus, Bool | Bit) => Ok((Int(None), Int(None))),
        (UnaryOp::Not, t) if has_truth(t) => Ok((Bool, Bool)),
        (UnaryOp::BitNot, Bits(_) | Int(_) | UInt(_) | Angle(_) | Bool | Bit) => same(),
        _ => Err(format!("`{}` does not apply to `{t}`", unary_symbol(op))),
    }
}

fn unary_symbol(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "-",
        UnaryOp::Plus => "+",
        UnaryOp::Not => "!",
        UnaryOp::BitNot => "~",
    }
}
