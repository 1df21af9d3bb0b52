//! Subroutines (`def`) and `extern` functions with their bindings, calls of them (as values,
//! as statements, or written like gate calls: `f(x) q;`), gate calls, and calls of built-in
//! functions.

use std::sync::Arc;

use super::exprs::coerce;
use super::scope::{ScopeKind, Symbol};
use super::{Compiler, Fail, Frame, show};
use crate::classical::builtins::Builtin;
use crate::classical::expr::strides;
use crate::classical::value::ArrayView;
use crate::classical::{BinaryOp, Expr, ExprKind, Type, Value};
use crate::machine::code::{Function, GateCode, Instr, ModifierCode};
use crate::parse::v3::syntax::{self, GateModifier, Param, StmtKind, TypeSyntax};

impl Compiler<'_> {
    /// `def name(params) -> returns { body }`; the subroutine's index.
    pub(crate) fn subroutine(
        &mut self,
        name: &str,
        params: &[Param],
        returns: Option<&TypeSyntax>,
        body: &[syntax::Stmt],
        offset: usize,
    ) -> Result<usize, Fail> {
        if !self.scopes.at_global() {
            return Err((offset, "subroutines are defined at the top level only".into()));
        }
        let mut types = Vec::new();
        for (i, param) in params.iter().enumerate() {
            if params[..i].iter().any(|p| p.name == param.name) {
                return Err((param.offset, format!("`{}` is named twice in the parameters", show(&param.name))));
            }
            let ty = self.resolve_type(&param.ty, param.offset)?;
            if matches!(ty, Type::Array { .. }) {
                return Err((
                    param.offset,
                    "an array parameter is `readonly` or `mutable`: `readonly array[...]`".into(),
                ));
            }
            types.push(ty);
        }
        let returns = returns.map(|r| self.resolve_type(r, offset)).transpose()?;
        if let Some(ty) = &returns
            && (ty.is_quantum() || matches!(ty, Type::Array { .. } | Type::ArrayRef { .. }))
        {
            return Err((offset, format!("a subroutine cannot return a `{ty}`")));
        }
        let index = self.code.functions.len();
        self.code.functions.push(Function {
            name: name.to_string(),
            entry: 0,
            frame: 0,
            params: types.clone(),
            returns: returns.clone(),
        });
        self.declare(name, Symbol::Def(index), offset)?;
        let skip = self.emit(Instr::Jump(0), offset);
        let entry = self.here();
        let saved = (
            std::mem::replace(&mut self.frame, Frame { global: false, next: 0 }),
            std::mem::take(&mut self.loops),
            self.returns.replace(returns),
        );
        self.scopes.push(ScopeKind::Definition);
        let result = self.subroutine_body(params, &types, body, offset);
        self.scopes.pop();
        let frame = self.frame.next as usize;
        (self.frame, self.loops, self.returns) = saved;
        result?;
        let after = self.here();
        if let Instr::Jump(target) = &mut self.code.instrs[skip] {
            *target = after;
        }
        self.code.functions[index].entry = entry;
        self.code.functions[index].frame = frame;
        Ok(index)
    }

    fn subroutine_body(
        &mut self,
        params: &[Param],
        types: &[Type],
        body: &[syntax::Stmt],
        offset: usize,
    ) -> Result<(), Fail> {
        for (param, ty) in params.iter().zip(types) {
            let slot = self.slot();
            let writable = !ty.is_quantum() && !matches!(ty, Type::ArrayRef { mutable: false, .. });
            self.declare(&param.name, Symbol::Var { slot, ty: ty.clone(), writable }, param.offset)?;
        }
        body.iter().try_for_each(|s| self.statement(s))?;
        let end = body.last().map_or(offset, |s| s.offset);
        self.emit(Instr::Return(None), end);
        Ok(())
    }

    /// `extern name(types) -> type;`: compiled from the binding the user gave, whose signature
    /// must be the same.
    pub(crate) fn external(
        &mut self,
        name: &str,
        params: &[TypeSyntax],
        returns: Option<&TypeSyntax>,
        offset: usize,
    ) -> Result<(), Fail> {
        let Some((file, statement)) = self.binding_defs.get(name).cloned() else {
            return Err((
                offset,
                format!(
                    "`extern` function `{}` has no binding: give a file with a `def {}(...)` (`--extern FILE`)",
                    show(name),
                    show(name)
                ),
            ));
        };
        let declared = params.iter().map(|p| self.resolve_type(p, offset)).collect::<Result<Vec<_>, _>>()?;
        let declared_return = returns.map(|r| self.resolve_type(r, offset)).transpose()?;
        let StmtKind::Def { params: bound_params, returns: bound_returns, body, .. } = &statement.kind else {
            unreachable!("bindings are `def`s")
        };
        let previous = std::mem::replace(&mut self.file, file);
        let compiled = self.subroutine(name, bound_params, bound_returns.as_ref(), body, statement.offset);
        let placed = compiled.map_err(|e| {
            let location = self.placed(e);
            (offset, format!("in the binding of `{}`: {location}", show(name)))
        });
        self.file = previous;
        let index = placed?;
        let function = &self.code.functions[index];
        if function.params != declared || function.returns != declared_return {
            let signature = |params: &[Type], returns: &Option<Type>| {
                let list = params.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
                match returns {
                    Some(r) => format!("({list}) -> {r}"),
                    None => format!("({list})"),
                }
            };
            return Err((
                offset,
                format!(
                    "the binding of `{}` is {}, but the `extern` declares {}",
                    show(name),
                    signature(&function.params, &function.returns),
                    signature(&declared, &declared_return)
                ),
            ));
        }
        Ok(())
    }

    /// A statement that calls: a gate, or a subroutine (also written like a gate call).
    pub(crate) fn call_statement(
        &mut self,
        modifiers: &[GateModifier],
        name: &str,
        params: &[syntax::Expr],
        operands: &[syntax::Expr],
        offset: usize,
    ) -> Result<(), Fail> {
        match self.scopes.lookup(name) {
            Some(Symbol::Def(f)) => {
                if !modifiers.is_empty() {
                    return Err((offset, "modifiers apply to gates, not subroutines".into()));
                }
                let f = *f;
                self.call_function(f, params, operands, offset, false).map(|_| ())
            }
            Some(Symbol::Var { .. } | Symbol::Const { .. } | Symbol::Alias(_)) => {
                Err((offset, format!("`{}` is not a gate or a subroutine", show(name))))
            }
            Some(Symbol::Gate) | None => {
                if operands.is_empty() && name != "gphase" && self.gate_shape(name).is_none() {
                    return Err((offset, format!("`{}` is not a gate or a subroutine", show(name))));
                }
                let gate = self.gate_code(modifiers, name, params, operands, offset)?;
                self.emit(Instr::Gate(gate), offset);
                Ok(())
            }
        }
    }

    /// A gate call checked against the gate's shape when the gate is known.
    fn gate_code(
        &mut self,
        modifiers: &[GateModifier],
        name: &str,
        params: &[syntax::Expr],
        operands: &[syntax::Expr],
        offset: usize,
    ) -> Result<GateCode, Fail> {
        let (codes, controls) = self.modifier_codes(modifiers)?;
        let params = params.iter().map(|p| self.real(p)).collect::<Result<Vec<_>, _>>()?;
        let operands = operands.iter().map(|o| self.qubits(o)).collect::<Result<Vec<_>, _>>()?;
        self.check_shape(name, params.len(), operands.len(), controls, offset)?;
        Ok(GateCode { name: name.to_string(), modifiers: codes, params, operands })
    }

    /// A gate call's modifiers, and how many control qubits they add.
    pub(crate) fn modifier_codes(&mut self, modifiers: &[GateModifier]) -> Result<(Vec<ModifierCode>, usize), Fail> {
        let mut codes = Vec::new();
        let mut controls = 0usize;
        for modifier in modifiers {
            codes.push(match (modifier.name, &modifier.arg) {
                ("inv", _) => ModifierCode::Inv,
                ("pow", Some(k)) => ModifierCode::Pow(self.real(k)?),
                ("pow", None) => return Err((modifier.offset, "`pow` needs an exponent: `pow(k) @`".into())),
                (kind, arg) => {
                    let count = self.control_count(modifier.name, arg.as_ref(), modifier.offset)?;
                    controls += count as usize;
                    ModifierCode::Ctrl { count, on: kind == "ctrl" }
                }
            });
        }
        Ok((codes, controls))
    }

    /// Refuses a call of a known gate with the wrong number of parameters or qubits.
    pub(crate) fn check_shape(
        &self,
        name: &str,
        params: usize,
        qubits: usize,
        controls: usize,
        offset: usize,
    ) -> Result<(), Fail> {
        match self.gate_shape(name) {
            Some((want_params, want_qubits)) if params != want_params || qubits != controls + want_qubits => Err((
                offset,
                format!(
                    "`{}` takes {want_params} parameters and {} qubits, not {params} and {qubits}",
                    show(name),
                    controls + want_qubits
                ),
            )),
            _ => Ok(()),
        }
    }

    /// A `ctrl(n)` / `negctrl(n)` count: a constant from 1 to 64.
    pub(crate) fn control_count(&mut self, name: &str, arg: Option<&syntax::Expr>, offset: usize) -> Result<u32, Fail> {
        let Some(arg) = arg else { return Ok(1) };
        let count = self.expr(arg)?;
        match count.constant() {
            Some(Value::Int(n)) if (1..=64).contains(n) => Ok(*n as u32),
            Some(value) => {
                let shown = match value {
                    Value::Int(n) => n.to_string(),
                    Value::Float(x) => x.to_string(),
                    _ => format!("a `{}`", count.ty),
                };
                Err((offset, format!("`{name}` takes a control count from 1 to 64, not {shown}")))
            }
            None => Err((offset, format!("`{name}` takes a constant control count"))),
        }
    }

    /// A real-valued expression (a gate parameter or exponent).
    pub(crate) fn real(&mut self, e: &syntax::Expr) -> Result<Expr, Fail> {
        let value = self.expr(e)?;
        match value.ty {
            Type::Int(_) | Type::UInt(_) | Type::Float(_) | Type::Angle(_) | Type::Bool | Type::Bit => Ok(value),
            ref other => Err((e.offset, format!("a gate parameter is a number or an angle, not a `{other}`"))),
        }
    }

    /// Parameters and qubits of a gate known here (`None`: not known).
    pub(crate) fn gate_shape(&self, name: &str) -> Option<(usize, usize)> {
        match name {
            "U" => Some((3, 1)),
            "gphase" => Some((1, 0)),
            _ => {
                self.code.shell.definitions.get(name).map(|d| (d.params.len(), d.num_qubits)).or_else(|| {
                    crate::program::standard_gate(name, self.code.shell.library).map(|g| (g.params, g.qubits))
                })
            }
        }
    }

    /// A call of subroutine `f`: `args` in order, then (for a call written like a gate call)
    /// `operands` fill the qubit parameters. The result, when `value` asks for it.
    pub(crate) fn call_function(
        &mut self,
        f: usize,
        args: &[syntax::Expr],
        operands: &[syntax::Expr],
        offset: usize,
        value: bool,
    ) -> Result<Option<Expr>, Fail> {
        let Function { name, params, returns, .. } = self.code.functions[f].clone();
        let mut ordered: Vec<&syntax::Expr> = Vec::new();
        if operands.is_empty() {
            ordered.extend(args);
        } else {
            // Written like a gate call: the parenthesised arguments are the classical
            // parameters, the operands the qubit ones, each in order.
            let (mut classical, mut quantum) = (args.iter(), operands.iter());
            for param in &params {
                let next = if param.is_quantum() { quantum.next() } else { classical.next() };
                ordered.extend(next);
            }
            ordered.extend(classical);
            ordered.extend(quantum);
        }
        if ordered.len() != params.len() {
            return Err((offset, format!("`{}` takes {} arguments, not {}", show(&name), params.len(), ordered.len())));
        }
        let mut checked = Vec::new();
        for (arg, param) in ordered.iter().zip(&params) {
            checked.push(match param {
                Type::Qubit | Type::Qubits(_) => {
                    let qubits = self.qubits(arg)?;
                    let given = match qubits.ty {
                        Type::Qubit => Some(1),
                        Type::Qubits(n) => n,
                        _ => None,
                    };
                    let wanted = match param {
                        Type::Qubits(n) => *n,
                        _ => Some(1),
                    };
                    if let (Some(g), Some(w)) = (given, wanted)
                        && g != w
                    {
                        return Err((arg.offset, format!("a `{param}` parameter given {g} qubits")));
                    }
                    Expr { ty: param.clone(), ..qubits }
                }
                Type::ArrayRef { .. } => self.array_argument(arg, param)?,
                _ => self.expect(arg, param)?,
            });
        }
        if value && returns.is_none() {
            return Err((offset, format!("`{}` returns nothing, so it has no value", show(&name))));
        }
        let result = match (&returns, value) {
            (Some(_), true) => Some(self.slot()),
            _ => None,
        };
        self.emit(Instr::Call { function: f, args: checked, result }, offset);
        Ok(result.zip(returns).map(|(slot, ty)| Expr { kind: ExprKind::Read(slot), ty, offset }))
    }

    /// An array argument passed by reference: a global array, a slice of one, or an array
    /// parameter passed on.
    fn array_argument(&mut self, arg: &syntax::Expr, param: &Type) -> Result<Expr, Fail> {
        if matches!(arg.kind, syntax::ExprKind::Concat(..)) {
            return Err((arg.offset, "a joined array `a ++ b` cannot be passed: declare it first".into()));
        }
        let value = self.expr(arg)?;
        // The whole global array in `slot` as a reference.
        let whole = |slot: u32, element: &Type, dims: &[u32], offset: usize| {
            let view = ArrayView { slot, offset: 0, dims: dims.to_vec(), strides: strides(dims) };
            Expr::literal(Value::ArrayRef(view), reference_type(element, dims), offset)
        };
        let reference = match value.kind {
            ExprKind::Read(slot) if slot.global => match &value.ty {
                Type::Array { base, dims } => whole(slot.index, base, dims, value.offset),
                _ => value,
            },
            ExprKind::Select { ref base, ref selectors, ref what } => match (&base.kind, &base.ty) {
                (ExprKind::Read(slot), Type::Array { base: element, dims }) if slot.global => {
                    let root = whole(slot.index, element, dims, value.offset);
                    let ty = match &value.ty {
                        Type::Array { base, dims } => reference_type(base, dims),
                        other => other.clone(),
                    };
                    Expr {
                        kind: ExprKind::Select {
                            base: Box::new(root),
                            selectors: selectors.clone(),
                            what: Arc::clone(what),
                        },
                        ty,
                        offset: value.offset,
                    }
                }
                _ => value,
            },
            _ => value,
        };
        if !crate::classical::convert::implicit(&reference.ty, param) {
            return Err((arg.offset, format!("a `{}` cannot be passed as `{param}`", reference.ty)));
        }
        if let (Type::ArrayRef { mutable: false, .. }, Type::ArrayRef { mutable: true, .. }) = (&reference.ty, param) {
            return Err((arg.offset, "a `readonly` array cannot be passed as `mutable`".into()));
        }
        Ok(Expr { ty: param.clone(), ..reference })
    }

    /// A call in an expression: a subroutine, `sizeof`, or a built-in function.
    pub(crate) fn call_expr(&mut self, name: &str, args: &[syntax::Expr], offset: usize) -> Result<Expr, Fail> {
        match self.scopes.lookup(name) {
            Some(Symbol::Def(f)) => {
                let f = *f;
                let result = self.call_function(f, args, &[], offset, true)?;
                return result.ok_or((offset, format!("`{}` returns nothing", show(name))));
            }
            Some(Symbol::Gate) => {
                return Err((
                    offset,
                    format!("`{}` is a gate: apply it as a statement, `{}(...) q;`", show(name), show(name)),
                ));
            }
            Some(_) => return Err((offset, format!("`{}` is not a function", show(name)))),
            None => {}
        }
        if name == "sizeof" {
            return self.size_of(args, offset);
        }
        if name == "pow" && args.len() == 2 {
            // Older programs' `pow(a, b)` is `a ** b`.
            let (a, b) = (self.expr(&args[0])?, self.expr(&args[1])?);
            return self.binary(BinaryOp::Pow, a, b, offset);
        }
        let Some(function) = Builtin::named(name) else {
            let what = if self.gate_shape(name).is_some() { "a gate" } else { "not a function" };
            return Err((
                offset,
                format!("`{}` is {what}: define it with `def`, or declare it with `extern`", show(name)),
            ));
        };
        let values = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>, _>>()?;
        let types: Vec<Type> = values.iter().map(|v| v.ty.clone()).collect();
        let (wanted, result) = function.signature(name, &types).map_err(|m| (offset, m))?;
        let args = values.into_iter().zip(&wanted).map(|(v, t)| coerce(v, t)).collect::<Result<Vec<_>, _>>()?;
        super::exprs::fold(Expr { kind: ExprKind::Builtin(function, args), ty: result, offset })
    }

    fn size_of(&mut self, args: &[syntax::Expr], offset: usize) -> Result<Expr, Fail> {
        let (array, dim) = match args {
            [array] => (array, 0),
            [array, dim] => (array, self.constant_size(dim, "a dimension")? as u32),
            _ => return Err((offset, "`sizeof` takes an array and, optionally, a dimension".into())),
        };
        let array = self.expr(array)?;
        let literal = |n: u32| Ok(Expr::literal(Value::Int(i128::from(n)), Type::UInt(None), offset));
        match &array.ty {
            Type::Array { dims, .. } | Type::ArrayRef { dims: Some(dims), .. } => match dims.get(dim as usize) {
                Some(&n) => literal(n),
                None => Err((offset, format!("the array has {} dimensions, not {}", dims.len(), dim + 1))),
            },
            Type::ArrayRef { ndim, .. } if dim < *ndim => {
                Ok(Expr { kind: ExprKind::SizeOf(Box::new(array), dim), ty: Type::UInt(None), offset })
            }
            Type::ArrayRef { ndim, .. } => Err((offset, format!("the array has {ndim} dimensions, not {}", dim + 1))),
            other => Err((offset, format!("`sizeof` needs an array, not a `{other}`"))),
        }
    }
}

/// A mutable reference to an array of `dims` of `element`s.
fn reference_type(element: &Type, dims: &[u32]) -> Type {
    Type::ArrayRef {
        base: Box::new(element.clone()),
        dims: Some(dims.to_vec()),
        ndim: dims.len() as u32,
        mutable: true,
    }
}
