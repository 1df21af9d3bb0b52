//! The classical layer of OpenQASM 3: types with their widths ([`types`]), values
//! ([`value`]), conversions and casts ([`convert`]), operators ([`ops`] for what they accept,
//! [`arith`] for what they compute), built-in functions ([`builtins`]) and checked
//! expressions with their evaluation ([`expr`]).
//!
//! ```
//! use qchess_qasm::classical::convert::{angle_from_radians, cast, wrap_int};
//! use qchess_qasm::classical::types::Type;
//! use qchess_qasm::classical::value::Value;
//!
//! // An `int[8]` wraps around; `angle[4]` holds pi as its top bit ("1000").
//! assert_eq!(wrap_int(130, &Type::Int(Some(8))), -126);
//! assert_eq!(angle_from_radians(std::f64::consts::PI, 4), Ok(0b1000));
//! // A `bit[4]` read as an `int[4]` is two's complement.
//! let bits = Value::Bits(vec![false, false, false, true]);
//! assert_eq!(cast(&bits, &Type::Bits(4), &Type::Int(Some(4))), Ok(Value::Int(-8)));
//! ```

pub mod arith;
pub mod builtins;
pub mod convert;
pub mod expr;
pub mod ops;
pub mod types;
pub mod value;

pub use expr::{Env, EvalError, Expr, ExprKind, Selector, Slot};
pub use ops::{BinaryOp, UnaryOp};
pub use types::Type;
pub use value::Value;

#[cfg(test)]
mod reference_tests;
#[cfg(test)]
mod tests;
