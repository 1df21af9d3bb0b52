//! Values where a type is expected: assignments, initialisers and arguments convert as the
//! specification's implicit conversions allow; an array literal builds an array of the
//! expected shape; a `for` loop's values are a range, a set, bits or an array.

use super::exprs::{coerce, fold};
use super::{Compiler, Fail};
use crate::classical::convert::{explicit, implicit};
use crate::classical::{Expr, ExprKind, Type, ops};
use crate::parse::v3::syntax;

impl Compiler<'_> {
    /// `e` as a value of type `to`, converted as assignments convert (an array literal builds
    /// an array of `to`'s shape).
    pub(crate) fn expect(&mut self, e: &syntax::Expr, to: &Type) -> Result<Expr, Fail> {
        if let (syntax::ExprKind::List(items), Type::Array { base, dims }) = (&e.kind, to) {
            let mut leaves = Vec::new();
            self.array_literal(items, base, dims, e.offset, &mut leaves)?;
            return fold(Expr { kind: ExprKind::Array(dims.clone(), leaves), ty: to.clone(), offset: e.offset });
        }
        let value = self.expr(e)?;
        self.assignable(value, to)
    }

    /// `value` converted to `to` if assignments may convert it.
    pub(crate) fn assignable(&self, value: Expr, to: &Type) -> Result<Expr, Fail> {
        if let (Type::Bits(n), Type::Bits(m)) = (&value.ty, to)
            && n != m
        {
            return Err((value.offset, format!("a `bit[{n}]` value does not fit a `bit[{m}]`")));
        }
        if implicit(&value.ty, to) {
            return coerce(value, to);
        }
        let hint = if explicit(&value.ty, to).is_ok() { format!(" (cast it: `{to}(...)`)") } else { String::new() };
        Err((value.offset, format!("a value of type `{}` cannot be used as `{to}`{hint}", value.ty)))
    }

    fn array_literal(
        &mut self,
        items: &[syntax::Expr],
        base: &Type,
        dims: &[u32],
        offset: usize,
        leaves: &mut Vec<Expr>,
    ) -> Result<(), Fail> {
        if items.len() != dims[0] as usize {
            return Err((offset, format!("{} values for a dimension of size {}", items.len(), dims[0])));
        }
        for item in items {
            match (&item.kind, dims.len()) {
                (syntax::ExprKind::List(inner), n) if n > 1 => {
                    self.array_literal(inner, base, &dims[1..], item.offset, leaves)?
                }
                (_, 1) => leaves.push(self.expect(item, base)?),
                _ => return Err((item.offset, format!("expected a list of {} values", dims[1]))),
            }
        }
        Ok(())
    }

    /// A `for` loop's values: a range (of integers), a set, a `bit[n]` or an array.
    pub(crate) fn loop_values(&mut self, values: &syntax::Expr) -> Result<(Expr, Type), Fail> {
        let offset = values.offset;
        match &values.kind {
            syntax::ExprKind::Range { start, step, end } => {
                let (Some(start), Some(end)) = (start, end) else {
                    return Err((offset, "a loop's range needs both ends".into()));
                };
                let mut int = |e: &syntax::Expr| -> Result<Expr, Fail> {
                    let value = self.expr(e)?;
                    if !value.ty.is_integer() && !value.ty.is_boolean() {
                        return Err((e.offset, format!("a range needs integers, not a `{}`", value.ty)));
                    }
                    Ok(value)
                };
                let (start, end) = (int(start)?, int(end)?);
                let item = ops::common_int(&start.ty, &end.ty);
                let step = step.as_deref().map(&mut int).transpose()?;
                let (start, end) = (coerce(start, &Type::Int(None))?, coerce(end, &Type::Int(None))?);
                let step = step.map(|s| coerce(s, &Type::Int(None)).map(Box::new)).transpose()?;
                let range =
                    Expr { kind: ExprKind::Range(Box::new(start), step, Box::new(end)), ty: Type::Range, offset };
                Ok((fold(range)?, item))
            }
            syntax::ExprKind::List(items) => {
                let checked = items.iter().map(|i| self.expr(i)).collect::<Result<Vec<_>, _>>()?;
                let item = checked.first().map_or(Type::Int(None), |e| e.ty.clone());
                let leaves = checked.into_iter().map(|e| coerce(e, &item)).collect::<Result<Vec<_>, _>>()?;
                let n = leaves.len() as u32;
                let ty = Type::Array { base: Box::new(item.clone()), dims: vec![n] };
                Ok((fold(Expr { kind: ExprKind::Array(vec![n], leaves), ty, offset })?, item))
            }
            _ => {
                let value = self.expr(values)?;
                let item = match &value.ty {
                    Type::Bits(_) => Type::Bit,
                    Type::Array { base, dims } if dims.len() == 1 => (**base).clone(),
                    Type::ArrayRef { base, ndim: 1, .. } => (**base).clone(),
                    other => {
                        return Err((
                            offset,
                            format!("a loop runs over a range, a set, bits or an array, not a `{other}`"),
                        ));
                    }
                };
                Ok((value, item))
            }
        }
    }
}
