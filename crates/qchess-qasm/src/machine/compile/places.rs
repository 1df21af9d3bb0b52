//! Places that can be assigned: variables, array elements and slices, bits of registers,
//! integers and angles, and classical aliases.

use std::sync::Arc;

use super::scope::Symbol;
use super::{Compiler, Fail, show};
use crate::classical::{Expr, ExprKind, Selector, Type};
use crate::machine::code::{Place, PlaceStep};
use crate::parse::v3::syntax;

impl Compiler<'_> {
    /// The place `target` names.
    pub(crate) fn place(&mut self, target: &syntax::Expr) -> Result<Place, Fail> {
        let offset = target.offset;
        match &target.kind {
            syntax::ExprKind::Name(name) => match self.scopes.lookup(name) {
                Some(Symbol::Var { slot, ty, writable: true }) => Ok(Place {
                    slot: *slot,
                    root: ty.clone(),
                    path: Vec::new(),
                    ty: ty.clone(),
                    what: Arc::from(name.as_str()),
                }),
                Some(Symbol::Var { ty: Type::ArrayRef { mutable: false, .. }, .. }) => {
                    Err((offset, format!("`{}` is a `readonly` array", show(name))))
                }
                Some(Symbol::Var { .. } | Symbol::Const { .. }) => {
                    Err((offset, format!("`{}` cannot be assigned", show(name))))
                }
                Some(Symbol::Alias(expr)) => self.alias_place(expr.clone(), name, offset),
                _ => self.expr(target).and_then(|_| Err((offset, format!("`{}` cannot be assigned", show(name))))),
            },
            syntax::ExprKind::Index(base, items) => {
                let mut place = self.place(base)?;
                let selectors = items.iter().map(|i| self.selector(i)).collect::<Result<Vec<_>, _>>()?;
                self.narrow_place(&mut place, selectors, offset)?;
                Ok(place)
            }
            _ => Err((offset, "only a variable, an element or bits of one can be assigned".into())),
        }
    }

    fn narrow_place(&mut self, place: &mut Place, selectors: Vec<Selector>, offset: usize) -> Result<(), Fail> {
        match &place.ty {
            Type::Array { base, dims } => {
                let part = self.array_part(base, Some(dims), dims.len(), &selectors, true, offset)?;
                place.path.push(PlaceStep::Elements(selectors));
                place.ty = part;
            }
            Type::ArrayRef { base, dims, ndim, mutable } => {
                if !mutable {
                    return Err((offset, format!("`{}` is a `readonly` array", place.what)));
                }
                let part = self.array_part(base, dims.as_ref(), *ndim as usize, &selectors, true, offset)?;
                place.path.push(PlaceStep::Elements(selectors));
                place.ty = part;
            }
            Type::Bits(_) | Type::Int(_) | Type::UInt(_) | Type::Angle(_) | Type::Bit | Type::Bool => {
                if selectors.len() != 1 {
                    return Err((offset, "bits take one index".into()));
                }
                let width = place.ty.bit_width();
                let selector = selectors.into_iter().next().unwrap_or(Selector::Set(Vec::new()));
                let ty = match &selector {
                    Selector::One(_) => Type::Bit,
                    s => Type::Bits(
                        Self::selected_len(s, width)
                            .filter(|&n| n > 0)
                            .ok_or((offset, "a slice of bits needs constant bounds".to_string()))?,
                    ),
                };
                place.path.push(PlaceStep::Bits(Box::new(selector), place.ty.clone()));
                place.ty = ty;
            }
            other => return Err((offset, format!("`{}` of type `{other}` cannot be indexed", place.what))),
        }
        Ok(())
    }

    /// The place a classical alias stands for: a bit variable or constant bits of one.
    fn alias_place(&mut self, expr: Expr, name: &str, offset: usize) -> Result<Place, Fail> {
        let refuse = || Err((offset, format!("`{}` is an alias that cannot be assigned", show(name))));
        match expr.kind {
            ExprKind::Read(slot) => {
                Ok(Place { slot, root: expr.ty.clone(), path: Vec::new(), ty: expr.ty, what: Arc::from(name) })
            }
            ExprKind::Select { base, selectors, what } => {
                let ExprKind::Read(slot) = base.kind else { return refuse() };
                let [selector] =
                    <[Selector; 1]>::try_from(selectors).map_err(|_| (offset, "bits take one index".to_string()))?;
                Ok(Place {
                    slot,
                    root: base.ty.clone(),
                    path: vec![PlaceStep::Bits(Box::new(selector), base.ty)],
                    ty: expr.ty,
                    what,
                })
            }
            _ => refuse(),
        }
    }
}
