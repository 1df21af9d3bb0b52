//! The classical types of OpenQASM 3 as the checker knows them, with their widths.
//!
//! A width of `None` is the machine width the specification leaves to the implementation:
//! here 64 bits for `int`, `uint`, `angle` and `float` (a double), which behave as `int[64]`,
//! `uint[64]`, `angle[64]` and `float[64]` but keep their own names in messages. Integers and
//! angles are at most 64 bits wide; floats are `float[16]` or `float[32]` (half or single
//! precision: every result is rounded to it) or `float[64]`.

use std::fmt;

/// The widest integer, angle or float.
pub const MAX_WIDTH: u32 = 64;

/// A classical (or, for parameters and aliases, quantum) type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Type {
    /// `bool`.
    Bool,
    /// A scalar `bit` (interchangeable with `bool` in expressions).
    Bit,
    /// `bit[n]`, a register of `n` bits.
    Bits(u32),
    /// `int[n]` (`None`: `int`).
    Int(Option<u32>),
    /// `uint[n]` (`None`: `uint`).
    UInt(Option<u32>),
    /// `float[n]` (`None`: `float`).
    Float(Option<u32>),
    /// `angle[n]` (`None`: `angle`).
    Angle(Option<u32>),
    /// `complex[float[n]]` (`None`: `complex`).
    Complex(Option<u32>),
    /// `duration`.
    Duration,
    /// `stretch`, a duration that may grow.
    Stretch,
    /// `array[base, dims...]`.
    Array {
        /// The element type.
        base: Box<Type>,
        /// The size of each dimension, outermost first.
        dims: Vec<u32>,
    },
    /// A subroutine's `readonly` / `mutable` array parameter.
    ArrayRef {
        /// The element type.
        base: Box<Type>,
        /// The dimensions, when the parameter gives them (`None` for `#dim = n`).
        dims: Option<Vec<u32>>,
        /// How many dimensions.
        ndim: u32,
        /// Whether the subroutine may write through it.
        mutable: bool,
    },
    /// One qubit.
    Qubit,
    /// Several qubits (a register, a slice, an alias), of a length known when checking or not.
    Qubits(Option<u32>),
    /// The values of a `for` loop over a range.
    Range,
    /// No value: a subroutine that returns nothing.
    Void,
}

impl Type {
    /// An integer type's width in bits (64 for the machine width).
    pub fn int_width(&self) -> Option<u32> {
        match self {
            Type::Int(w) | Type::UInt(w) => Some(w.unwrap_or(MAX_WIDTH)),
            Type::Bool | Type::Bit => Some(1),
            _ => None,
        }
    }

    /// Whether the type is `int` or `uint` of any width.
    pub fn is_integer(&self) -> bool {
        matches!(self, Type::Int(_) | Type::UInt(_))
    }

    /// Whether the type is `bool` or a scalar `bit`.
    pub fn is_boolean(&self) -> bool {
        matches!(self, Type::Bool | Type::Bit)
    }

    /// Whether the type is `duration` or `stretch`.
    pub fn is_duration(&self) -> bool {
        matches!(self, Type::Duration | Type::Stretch)
    }

    /// Whether values of this type are qubits.
    pub fn is_quantum(&self) -> bool {
        matches!(self, Type::Qubit | Type::Qubits(_))
    }

    /// The number of bits of a value's representation, for types that have one (bits,
    /// booleans, sized integers and angles).
    pub fn bit_width(&self) -> Option<u32> {
        match self {
            Type::Bool | Type::Bit => Some(1),
            Type::Bits(n) => Some(*n),
            Type::Int(w) | Type::UInt(w) | Type::Angle(w) => Some(w.unwrap_or(MAX_WIDTH)),
            _ => None,
        }
    }

    /// A float's width (64 for the machine width).
    pub fn float_width(&self) -> u32 {
        match self {
            Type::Float(w) | Type::Complex(w) => w.unwrap_or(MAX_WIDTH),
            _ => MAX_WIDTH,
        }
    }

    /// An angle's width (64 for the machine width).
    pub fn angle_width(&self) -> u32 {
        match self {
            Type::Angle(w) => w.unwrap_or(MAX_WIDTH),
            _ => MAX_WIDTH,
        }
    }
}

fn sized(f: &mut fmt::Formatter<'_>, name: &str, width: &Option<u32>) -> fmt::Result {
    match width {
        Some(w) => write!(f, "{name}[{w}]"),
        None => f.write_str(name),
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Bool => f.write_str("bool"),
            Type::Bit => f.write_str("bit"),
            Type::Bits(n) => write!(f, "bit[{n}]"),
            Type::Int(w) => sized(f, "int", w),
            Type::UInt(w) => sized(f, "uint", w),
            Type::Float(w) => sized(f, "float", w),
            Type::Angle(w) => sized(f, "angle", w),
            Type::Complex(None) => f.write_str("complex"),
            Type::Complex(Some(w)) => write!(f, "complex[float[{w}]]"),
            Type::Duration => f.write_str("duration"),
            Type::Stretch => f.write_str("stretch"),
            Type::Array { base, dims } => {
                write!(f, "array[{base}")?;
                dims.iter().try_for_each(|d| write!(f, ", {d}"))?;
                f.write_str("]")
            }
            Type::ArrayRef { base, dims, ndim, mutable } => {
                write!(f, "{} array[{base}", if *mutable { "mutable" } else { "readonly" })?;
                match dims {
                    Some(dims) => dims.iter().try_for_each(|d| write!(f, ", {d}"))?,
                    None => write!(f, ", #dim = {ndim}")?,
                }
                f.write_str("]")
            }
            Type::Qubit => f.write_str("qubit"),
            Type::Qubits(Some(n)) => write!(f, "qubit[{n}]"),
            Type::Qubits(None) => f.write_str("qubits"),
            Type::Range => f.write_str("range"),
            Type::Void => f.write_str("nothing"),
        }
    }
}
