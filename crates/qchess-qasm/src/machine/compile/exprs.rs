//! Expressions checked and typed: names resolved, operands converted to what their operator
//! computes in, constant parts evaluated at once (so `const` values, sizes and case labels
//! come out as literals). A subroutine call or a `measure` inside an expression is compiled
//! into an instruction before it, its result kept in a variable of its own.

use std::sync::Arc;

use num_complex::Complex64;

use super::scope::Symbol;
use super::{Compiler, Fail, show};
use crate::classical::builtins::Builtin;
use crate::classical::convert::explicit;
use crate::classical::expr::{Env, Selector};
use crate::classical::value::Duration;
use crate::classical::{BinaryOp, Expr, ExprKind, Slot, Type, Value, ops};
use crate::machine::code::{Instr, Place};
use crate::parse::v3::syntax::{self, IndexItem, TimeUnit};

/// The environment of constant expressions: they read no variable.
struct Constants;

static NOTHING: Value = Value::Bool(false);

impl Env for Constants {
    fn read(&self, _: Slot) -> &Value {
        &NOTHING
    }
}

/// Whether every operand of `kind` is a constant (so the whole is one).
fn all_constant(kind: &ExprKind) -> bool {
    let constant = |e: &Expr| e.constant().is_some();
    let selector = |s: &Selector| match s {
        Selector::One(e) => constant(e),
        Selector::Range { start, step, end } => [start, step, end].iter().all(|e| e.as_deref().is_none_or(constant)),
        Selector::Set(items) => items.iter().all(constant),
    };
    match kind {
        ExprKind::Literal(_) => true,
        ExprKind::Read(_) | ExprKind::SizeOf(..) => false,
        ExprKind::Select { base, selectors, .. } => constant(base) && selectors.iter().all(selector),
        ExprKind::Unary(_, e) | ExprKind::Convert(e) => constant(e),
        ExprKind::Binary(_, _, a, b) => constant(a) && constant(b),
        ExprKind::Builtin(_, args) | ExprKind::Concat(args) | ExprKind::Array(_, args) => args.iter().all(constant),
        ExprKind::Range(a, b, c) => constant(a) && b.as_deref().is_none_or(constant) && constant(c),
    }
}

/// `expr` evaluated now when it is constant.
pub(crate) fn fold(expr: Expr) -> Result<Expr, Fail> {
    if matches!(expr.kind, ExprKind::Literal(_)) || !all_constant(&expr.kind) {
        return Ok(expr);
    }
    let value = expr.evaluate(&Constants)?;
    Ok(Expr::literal(value, expr.ty, expr.offset))
}

/// `expr` converted to `ty` (any conversion [`cast`](crate::classical::convert::cast) does).
pub(crate) fn coerce(expr: Expr, ty: &Type) -> Result<Expr, Fail> {
    if expr.ty == *ty {
        return Ok(expr);
    }
    let offset = expr.offset;
    fold(Expr { kind: ExprKind::Convert(Box::new(expr)), ty: ty.clone(), offset })
}

/// Whether evaluating `e` runs a subroutine or a measurement.
fn has_effect(e: &syntax::Expr) -> bool {
    use syntax::ExprKind as K;
    match &e.kind {
        K::Measure(_) => true,
        K::Call(name, args) => (Builtin::named(name).is_none() && name != "sizeof") || args.iter().any(has_effect),
        K::Index(base, items) => {
            has_effect(base)
                || items.iter().any(|item| match item {
                    IndexItem::Single(e) => has_effect(e),
                    IndexItem::Set(items) => items.iter().any(has_effect),
                    IndexItem::Range { start, step, end } => {
                        [start, step, end].iter().flat_map(|e| e.iter()).any(has_effect)
                    }
                })
        }
        K::Unary(_, e) | K::Cast(_, e) => has_effect(e),
        K::Binary(_, a, b) | K::Concat(a, b) => has_effect(a) || has_effect(b),
        K::List(items) => items.iter().any(has_effect),
        _ => false,
    }
}

impl Compiler<'_> {
    /// The checked form of `e`. See the [module docs](self).
    pub(crate) fn expr(&mut self, e: &syntax::Expr) -> Result<Expr, Fail> {
        use syntax::ExprKind as K;
        let offset = e.offset;
        let literal = |value: Value, ty: Type| Ok(Expr::literal(value, ty, offset));
        match &e.kind {
            K::Int(i) if *i <= i64::MAX as u64 => literal(Value::Int(i128::from(*i)), Type::Int(None)),
            K::Int(i) => literal(Value::Int(i128::from(*i)), Type::UInt(None)),
            K::Float(x) => literal(Value::Float(*x), Type::Float(None)),
            K::Imag(x) => literal(Value::Complex(Complex64::new(0.0, *x)), Type::Complex(None)),
            K::Bool(b) => literal(Value::Bool(*b), Type::Bool),
            K::BitString(digits) => {
                let bits: Vec<bool> = digits.chars().rev().map(|c| c == '1').collect();
                let n = bits.len() as u32;
                literal(Value::Bits(bits), Type::Bits(n))
            }
            K::Duration(value, unit) => {
                let duration = match unit {
                    TimeUnit::Seconds(per_second) => Duration::seconds(value / per_second),
                    TimeUnit::Dt => Duration { dt: *value, ..Duration::default() },
                };
                literal(Value::Duration(duration), Type::Duration)
            }
            K::Name(name) => self.name(name, offset),
            K::Physical(n) => {
                self.physical(*n, offset)?;
                literal(Value::Qubits(Arc::from([*n])), Type::Qubit)
            }
            K::Index(base, items) => self.index(base, items, offset),
            K::Unary(op, inner) => {
                let inner = self.expr(inner)?;
                let (operand, result) = ops::unary_signature(*op, &inner.ty).map_err(|m| (offset, m))?;
                let inner = coerce(inner, &operand)?;
                fold(Expr { kind: ExprKind::Unary(*op, Box::new(inner)), ty: result, offset })
            }
            K::Binary(op @ (BinaryOp::And | BinaryOp::Or), left, right) if has_effect(right) => {
                self.short_circuit(*op, left, right, offset)
            }
            K::Binary(op, left, right) => {
                let (left, right) = (self.expr(left)?, self.expr(right)?);
                self.binary(*op, left, right, offset)
            }
            K::Call(name, args) => self.call_expr(name, args, offset),
            K::Cast(ty, value) => {
                let to = self.resolve_type(ty, offset)?;
                let value = self.expr(value)?;
                explicit(&value.ty, &to).map_err(|m| (offset, m))?;
                coerce(value, &to)
            }
            K::Concat(..) => self.concat(e),
            K::List(_) => Err((offset, "a list `{...}` needs an array type here: declare an array with it".into())),
            K::Range { .. } => Err((offset, "a range `[a:b]` gives a `for` loop its values only".into())),
            K::Measure(operand) => self.measure_value(operand, offset),
            K::DurationOf(body) => {
                // Checked like any block, then dropped: gates take no time in the ideal model.
                let mark = self.here();
                self.block(body)?;
                self.code.instrs.truncate(mark);
                self.code.origins.truncate(mark);
                literal(Value::Duration(Duration::default()), Type::Duration)
            }
        }
    }

    /// `left op right`, typed by the operator's signature.
    pub(crate) fn binary(&mut self, op: BinaryOp, left: Expr, right: Expr, offset: usize) -> Result<Expr, Fail> {
        let signature = ops::signature(op, &left.ty, &right.ty).map_err(|m| (offset, m))?;
        let left = coerce(left, &signature.left)?;
        let right = coerce(right, &signature.right)?;
        let ty = signature.result.clone();
        fold(Expr { kind: ExprKind::Binary(op, Box::new(signature), Box::new(left), Box::new(right)), ty, offset })
    }

    /// `left && right` or `left || right` whose right side calls a subroutine or measures: the
    /// right side runs only when it decides the result.
    fn short_circuit(
        &mut self,
        op: BinaryOp,
        left: &syntax::Expr,
        right: &syntax::Expr,
        offset: usize,
    ) -> Result<Expr, Fail> {
        let left = self.expr(left)?;
        let left = self.truth(left)?;
        let slot = self.slot();
        self.emit(Instr::Init { slot, value: left }, offset);
        let read = Expr { kind: ExprKind::Read(slot), ty: Type::Bool, offset };
        let condition = if op == BinaryOp::And {
            read.clone()
        } else {
            Expr {
                kind: ExprKind::Unary(crate::classical::UnaryOp::Not, Box::new(read.clone())),
                ty: Type::Bool,
                offset,
            }
        };
        let branch = self.emit(Instr::Branch { condition, otherwise: 0, end: 0 }, offset);
        let right = self.expr(right)?;
        let right = self.truth(right)?;
        self.emit(Instr::Init { slot, value: right }, offset);
        let end = self.here();
        if let Instr::Branch { otherwise, end: e, .. } = &mut self.code.instrs[branch] {
            *otherwise = end;
            *e = end;
        }
        Ok(read)
    }

    /// `expr` as a `bool` (a condition).
    pub(crate) fn truth(&mut self, expr: Expr) -> Result<Expr, Fail> {
        if expr.ty == Type::Bool {
            return Ok(expr);
        }
        let (operand, _) = ops::unary_signature(crate::classical::UnaryOp::Not, &expr.ty)
            .map_err(|_| (expr.offset, format!("a condition must be true or false, not a `{}`", expr.ty)))?;
        let expr = coerce(expr, &operand)?;
        coerce(expr, &Type::Bool)
    }

    fn name(&mut self, name: &str, offset: usize) -> Result<Expr, Fail> {
        match self.scopes.lookup(name) {
            Some(Symbol::Var { slot, ty, .. }) => Ok(Expr { kind: ExprKind::Read(*slot), ty: ty.clone(), offset }),
            Some(Symbol::Const { value, ty }) => Ok(Expr::literal(value.clone(), ty.clone(), offset)),
            Some(Symbol::Alias(expr)) => Ok(Expr { offset, ..expr.clone() }),
            Some(Symbol::Gate) => Err((offset, format!("`{}` is a gate, not a value", show(name)))),
            Some(Symbol::Def(_)) => {
                Err((offset, format!("`{}` is a subroutine: call it with `{}(...)`", show(name), show(name))))
            }
            None => {
                if let Some(x) = crate::classical::builtins::constant(name) {
                    return Ok(Expr::literal(Value::Float(x), Type::Float(None), offset));
                }
                if self.scopes.in_definition() && self.scopes.global(name).is_some() {
                    return Err((
                        offset,
                        format!(
                            "`{}` is a global variable, which a subroutine or gate cannot see (only constants, gates and subroutines)",
                            show(name)
                        ),
                    ));
                }
                Err((offset, format!("`{}` is not declared", show(name))))
            }
        }
    }

    /// Records the use of physical qubit `$n`.
    pub(crate) fn physical(&mut self, n: u32, offset: usize) -> Result<(), Fail> {
        if self.declared_qubits {
            return Err((offset, "a program that declares qubits cannot also name physical qubits (`$n`)".into()));
        }
        if n as usize >= self.limits.max_qubits {
            return Err((
                offset,
                format!("physical qubit ${n} is past the limit of {} qubits", self.limits.max_qubits),
            ));
        }
        let count = n as usize + 1;
        if self.code.shell.qubits.len() < count {
            self.code.shell.qubits = (0..count).map(|i| format!("${i}")).collect();
        }
        self.code.physical = true;
        Ok(())
    }

    /// An index converted to an integer.
    fn index_value(&mut self, e: &syntax::Expr) -> Result<Expr, Fail> {
        let index = self.expr(e)?;
        if !(index.ty.is_integer() || index.ty.is_boolean()) {
            return Err((e.offset, format!("an index must be an integer, not a `{}`", index.ty)));
        }
        coerce(index, &Type::Int(None))
    }

    pub(crate) fn selector(&mut self, item: &IndexItem) -> Result<Selector, Fail> {
        Ok(match item {
            IndexItem::Single(e) => Selector::One(self.index_value(e)?),
            IndexItem::Set(items) => {
                Selector::Set(items.iter().map(|e| self.index_value(e)).collect::<Result<_, _>>()?)
            }
            IndexItem::Range { start, step, end } => {
                let mut part =
                    |e: &Option<syntax::Expr>| e.as_ref().map(|e| self.index_value(e).map(Box::new)).transpose();
                Selector::Range { start: part(start)?, step: part(step)?, end: part(end)? }
            }
        })
    }

    /// How many elements `selector` picks, when that is known before the program runs.
    pub(crate) fn selected_len(selector: &Selector, len: Option<u32>) -> Option<u32> {
        match selector {
            Selector::One(_) => Some(1),
            Selector::Set(items) => Some(items.len() as u32),
            Selector::Range { .. } => {
                let len = len?;
                let indices = crate::classical::expr::indices(selector, len as usize, "", &Constants).ok()?;
                Some(indices.len() as u32)
            }
        }
    }

    fn index(&mut self, base: &syntax::Expr, items: &[IndexItem], offset: usize) -> Result<Expr, Fail> {
        let base = self.expr(base)?;
        let what: Arc<str> = Arc::from(self.describe(&base));
        let selectors = items.iter().map(|i| self.selector(i)).collect::<Result<Vec<_>, _>>()?;
        let one_item = |kind: &str| {
            if selectors.len() == 1 {
                Ok(())
            } else {
                Err((offset, format!("{kind} take one index, not {}", selectors.len())))
            }
        };
        let ty = match &base.ty {
            Type::Qubit | Type::Qubits(_) => {
                one_item("qubit registers")?;
                let len = match base.ty {
                    Type::Qubits(n) => n,
                    _ => Some(1),
                };
                match &selectors[0] {
                    Selector::One(_) => Type::Qubit,
                    s => Type::Qubits(Self::selected_len(s, len)),
                }
            }
            Type::Bits(_) | Type::Int(_) | Type::UInt(_) | Type::Angle(_) | Type::Bit | Type::Bool => {
                one_item("bits")?;
                match &selectors[0] {
                    Selector::One(_) => Type::Bit,
                    s => match Self::selected_len(s, base.ty.bit_width()) {
                        Some(n) if n > 0 => Type::Bits(n),
                        _ => return Err((offset, "a slice of bits needs constant bounds and at least one bit".into())),
                    },
                }
            }
            Type::Array { base: element, dims } => {
                self.array_part(element, Some(dims), dims.len(), &selectors, false, offset)?
            }
            Type::ArrayRef { base: element, dims, ndim, mutable } => {
                self.array_part(element, dims.as_ref(), *ndim as usize, &selectors, *mutable, offset)?
            }
            other => return Err((offset, format!("`{what}` of type `{other}` cannot be indexed"))),
        };
        fold(Expr { kind: ExprKind::Select { base: Box::new(base), selectors, what }, ty, offset })
    }

    /// The type of the part of an array that `selectors` pick.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn array_part(
        &self,
        element: &Type,
        dims: Option<&Vec<u32>>,
        ndim: usize,
        selectors: &[Selector],
        mutable: bool,
        offset: usize,
    ) -> Result<Type, Fail> {
        if selectors.len() > ndim {
            return Err((offset, format!("an array of {ndim} dimensions takes at most {ndim} indices")));
        }
        if selectors.iter().any(|s| matches!(s, Selector::Set(_))) {
            return Err((offset, "arrays are indexed by integers and ranges, not sets".into()));
        }
        if selectors.len() == ndim && selectors.iter().all(|s| matches!(s, Selector::One(_))) {
            return Ok(element.clone());
        }
        let Some(dims) = dims else {
            let kept = selectors.iter().filter(|s| !matches!(s, Selector::One(_))).count() + ndim - selectors.len();
            return Ok(Type::ArrayRef { base: Box::new(element.clone()), dims: None, ndim: kept as u32, mutable });
        };
        let mut out = Vec::new();
        for (selector, &len) in selectors.iter().zip(dims) {
            if !matches!(selector, Selector::One(_)) {
                let n = Self::selected_len(selector, Some(len))
                    .ok_or((offset, "a slice of an array needs constant bounds".to_string()))?;
                out.push(n);
            }
        }
        out.extend_from_slice(&dims[selectors.len()..]);
        Ok(Type::Array { base: Box::new(element.clone()), dims: out })
    }

    /// A name for an expression in messages.
    pub(crate) fn describe(&self, expr: &Expr) -> String {
        let (name, text) = &self.code.files[self.file];
        let _ = name;
        let rest = &text[expr.offset.min(text.len())..];
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).unwrap_or(rest.len());
        show(&rest[..end])
    }

    fn concat(&mut self, e: &syntax::Expr) -> Result<Expr, Fail> {
        let mut parts = Vec::new();
        let mut stack = vec![e];
        while let Some(part) = stack.pop() {
            match &part.kind {
                syntax::ExprKind::Concat(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => parts.push(self.expr(part)?),
            }
        }
        let offset = e.offset;
        let ty = if parts.iter().all(|p| p.ty.is_quantum()) {
            let lens: Option<Vec<u32>> = parts
                .iter()
                .map(|p| match p.ty {
                    Type::Qubit => Some(1),
                    Type::Qubits(n) => n,
                    _ => None,
                })
                .collect();
            Type::Qubits(lens.map(|l| l.iter().sum()))
        } else if parts.iter().all(|p| matches!(p.ty, Type::Bits(_) | Type::Bit)) {
            Type::Bits(parts.iter().map(|p| p.ty.bit_width().unwrap_or(1)).sum())
        } else if let Some(Type::Array { base, dims }) = parts.first().map(|p| p.ty.clone()) {
            let mut first = 0;
            for part in &parts {
                match &part.ty {
                    Type::Array { base: b, dims: d } if *b == base && d[1..] == dims[1..] => first += d[0],
                    other => return Err((part.offset, format!("`++` joins arrays of one shape, not `{other}`"))),
                }
            }
            let mut dims = dims;
            dims[0] = first;
            Type::Array { base, dims }
        } else {
            return Err((offset, "`++` joins qubits, bit registers or arrays of one kind".into()));
        };
        fold(Expr { kind: ExprKind::Concat(parts), ty, offset })
    }

    /// `measure q` as a value: measured into a variable of its own, which the value reads.
    fn measure_value(&mut self, operand: &syntax::Expr, offset: usize) -> Result<Expr, Fail> {
        let qubits = self.qubits(operand)?;
        let ty = match qubits.ty {
            Type::Qubit => Type::Bit,
            Type::Qubits(Some(n)) => Type::Bits(n),
            _ => return Err((offset, "`measure` as a value needs qubits of a size known before the run".into())),
        };
        let slot = self.slot();
        self.emit(
            Instr::Init { slot, value: Expr::literal(crate::classical::convert::zero(&ty), ty.clone(), offset) },
            offset,
        );
        let place = Place { slot, root: ty.clone(), path: Vec::new(), ty: ty.clone(), what: Arc::from("measure") };
        self.emit(Instr::Measure { qubits, target: Some(place) }, offset);
        Ok(Expr { kind: ExprKind::Read(slot), ty, offset })
    }

    /// Qubits: a register, part of one, an alias, a parameter or `$n`.
    pub(crate) fn qubits(&mut self, e: &syntax::Expr) -> Result<Expr, Fail> {
        let expr = self.expr(e)?;
        if !expr.ty.is_quantum() {
            return Err((e.offset, format!("`{}` is not a qubit or a register of qubits", self.describe(&expr))));
        }
        Ok(expr)
    }
}
