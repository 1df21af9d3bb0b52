//! Types as written into checked types: widths and sizes are constant positive integers,
//! integers and angles at most 64 bits, floats 32 or 64 bits.

use super::{Compiler, Fail};
use crate::classical::types::MAX_WIDTH;
use crate::classical::{Type, Value};
use crate::parse::v3::syntax::{ArrayDims, Expr, ScalarKind, TypeSyntax};

/// The most dimensions an array may have.
const MAX_DIMS: usize = 7;

/// The most elements an array may hold.
const MAX_ELEMENTS: u64 = 1 << 20;

impl Compiler<'_> {
    /// A constant non-negative integer (sizes, widths, counts).
    pub(crate) fn constant_size(&mut self, expr: &Expr, what: &str) -> Result<u64, Fail> {
        let checked = self.expr(expr)?;
        match checked.constant() {
            Some(Value::Int(n)) if *n >= 0 && *n <= i128::from(u32::MAX) => Ok(*n as u64),
            Some(Value::Int(n)) => Err((expr.offset, format!("{what} must be a non-negative integer, not {n}"))),
            Some(Value::Bool(_)) | Some(_) => {
                Err((expr.offset, format!("{what} must be an integer, not a `{}`", checked.ty)))
            }
            None => Err((expr.offset, format!("{what} must be a constant"))),
        }
    }

    fn width(&mut self, expr: &Option<Expr>, what: &str) -> Result<Option<u32>, Fail> {
        let Some(expr) = expr else { return Ok(None) };
        let width = self.constant_size(expr, "a width")?;
        if width == 0 {
            return Err((expr.offset, format!("`{what}` needs a width of at least 1")));
        }
        Ok(Some(width as u32))
    }

    /// The checked type `ty` stands for.
    pub(crate) fn resolve_type(&mut self, ty: &TypeSyntax, offset: usize) -> Result<Type, Fail> {
        Ok(match ty {
            TypeSyntax::Qubit { size: None } => Type::Qubit,
            TypeSyntax::Qubit { size: Some(size) } => Type::Qubits(Some(self.constant_size(size, "a size")? as u32)),
            TypeSyntax::Scalar { kind, width, component } => {
                let name = format!("{kind:?}").to_lowercase();
                let w = self.width(width, &name)?;
                let at = width.as_ref().map_or(offset, |w| w.offset);
                match kind {
                    ScalarKind::Bit => w.map_or(Type::Bit, Type::Bits),
                    ScalarKind::Bool => Type::Bool,
                    ScalarKind::Duration => Type::Duration,
                    ScalarKind::Stretch => Type::Stretch,
                    ScalarKind::Int | ScalarKind::UInt | ScalarKind::Angle => {
                        if let Some(w) = w
                            && w > MAX_WIDTH
                        {
                            return Err((at, format!("`{name}[{w}]` is wider than the {MAX_WIDTH} bits supported")));
                        }
                        match kind {
                            ScalarKind::Int => Type::Int(w),
                            ScalarKind::UInt => Type::UInt(w),
                            _ => Type::Angle(w),
                        }
                    }
                    ScalarKind::Float => Type::Float(self.float_width(w, at)?),
                    ScalarKind::Complex => match component.as_deref() {
                        None => Type::Complex(None),
                        Some(TypeSyntax::Scalar { kind: ScalarKind::Float, width, .. }) => {
                            let w = self.width(width, "float")?;
                            Type::Complex(self.float_width(w, offset)?)
                        }
                        Some(_) => return Err((offset, "a `complex` holds `float` components only".into())),
                    },
                }
            }
            TypeSyntax::Array { base, dims } => {
                let base = self.resolve_type(base, offset)?;
                let dims =
                    dims.iter()
                        .map(|d| Ok(self.constant_size(d, "an array size")? as u32))
                        .collect::<Result<Vec<u32>, Fail>>()?;
                self.array_type(base, dims, offset)?
            }
            TypeSyntax::ArrayRef { mutable, base, dims } => {
                let base = self.resolve_type(base, offset)?;
                let (dims, ndim) = match dims {
                    ArrayDims::Sizes(sizes) => {
                        let sizes = sizes
                            .iter()
                            .map(|d| Ok(self.constant_size(d, "an array size")? as u32))
                            .collect::<Result<Vec<u32>, Fail>>()?;
                        let ndim = sizes.len() as u32;
                        (Some(sizes), ndim)
                    }
                    ArrayDims::Count(count) => (None, self.constant_size(count, "`#dim`")? as u32),
                };
                if ndim == 0 || ndim as usize > MAX_DIMS {
                    return Err((offset, format!("an array has 1 to {MAX_DIMS} dimensions")));
                }
                check_array_base(&base, offset)?;
                Type::ArrayRef { base: Box::new(base), dims, ndim, mutable: *mutable }
            }
        })
    }

    fn float_width(&self, width: Option<u32>, offset: usize) -> Result<Option<u32>, Fail> {
        match width {
            None | Some(64) => Ok(None),
            Some(w @ (16 | 32)) => Ok(Some(w)),
            Some(w) => Err((offset, format!("`float[{w}]` is not supported: floats are 16, 32 or 64 bits"))),
        }
    }

    fn array_type(&self, base: Type, dims: Vec<u32>, offset: usize) -> Result<Type, Fail> {
        check_array_base(&base, offset)?;
        if dims.is_empty() || dims.len() > MAX_DIMS {
            return Err((offset, format!("an array has 1 to {MAX_DIMS} dimensions")));
        }
        let count = dims.iter().try_fold(1u64, |n, &d| n.checked_mul(u64::from(d)));
        if count.is_none_or(|n| n > MAX_ELEMENTS) {
            return Err((offset, format!("an array holds at most {MAX_ELEMENTS} elements")));
        }
        Ok(Type::Array { base: Box::new(base), dims })
    }
}

fn check_array_base(base: &Type, offset: usize) -> Result<(), Fail> {
    match base {
        Type::Int(_)
        | Type::UInt(_)
        | Type::Float(_)
        | Type::Angle(_)
        | Type::Complex(_)
        | Type::Bool
        | Type::Duration => Ok(()),
        other => Err((offset, format!("`{other}` cannot be the element type of an array"))),
    }
}
