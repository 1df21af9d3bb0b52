//! Statements: declarations of qubits, classical variables, constants, inputs, outputs and
//! aliases; assignments; the quantum statements (`measure`, `reset`, `barrier`, `delay`,
//! `nop`). Control flow is in `control`, calls and definitions in `calls` and `gates`.

use std::sync::Arc;

use super::scope::Symbol;
use super::{Compiler, Fail, show};
use crate::classical::convert::zero;
use crate::classical::value::Duration;
use crate::classical::{Expr, ExprKind, Type, Value};
use crate::machine::code::{Instr, Place};
use crate::parse::v3::syntax::{self, Modifier, Stmt, StmtKind, TypeSyntax};

impl Compiler<'_> {
    pub(crate) fn statement(&mut self, statement: &Stmt) -> Result<(), Fail> {
        let offset = statement.offset;
        match &statement.kind {
            StmtKind::Version(_) | StmtKind::Include(_) => {
                Err((offset, "`OPENQASM` and `include` must be at the top level".into()))
            }
            StmtKind::QubitDecl { name, size } => self.qubit_declaration(name, size.as_ref(), offset),
            StmtKind::Declare { modifier, ty, name, init } => {
                self.declaration(*modifier, ty, name, init.as_ref(), offset)
            }
            StmtKind::Alias { name, value } => self.alias(name, value, offset),
            StmtKind::GateDef { name, params, qubits, body } => {
                self.gate_definition(name, params, qubits, body, offset)
            }
            StmtKind::Def { name, params, returns, body } => {
                self.subroutine(name, params, returns.as_ref(), body, offset).map(|_| ())
            }
            StmtKind::Extern { name, params, returns } => self.external(name, params, returns.as_ref(), offset),
            StmtKind::Call { modifiers, name, params, operands } => {
                self.call_statement(modifiers, name, params, operands, offset)
            }
            StmtKind::Assign { target, op, value } => self.assignment(target, *op, value, offset),
            StmtKind::Measure { source, target } => {
                let target = target.as_ref().map(|t| self.place(t)).transpose()?;
                self.measure(source, target, offset)
            }
            StmtKind::Reset(operand) => {
                let qubits = self.qubits(operand)?;
                self.emit(Instr::Reset(qubits), offset);
                Ok(())
            }
            StmtKind::Barrier(operands) => {
                let qubits = operands.iter().map(|o| self.qubits(o)).collect::<Result<Vec<_>, _>>()?;
                self.emit(Instr::Barrier(qubits), offset);
                Ok(())
            }
            StmtKind::Delay { duration, operands } => {
                let duration = self.duration(duration)?;
                let qubits = operands.iter().map(|o| self.qubits(o)).collect::<Result<Vec<_>, _>>()?;
                self.emit(Instr::Delay { duration, qubits }, offset);
                Ok(())
            }
            StmtKind::Nop(operands) => operands.iter().try_for_each(|o| self.qubits(o).map(|_| ())),
            _ => self.control(statement),
        }
    }

    fn qubit_declaration(&mut self, name: &str, size: Option<&syntax::Expr>, offset: usize) -> Result<(), Fail> {
        if !self.scopes.at_global() {
            return Err((offset, "qubits are declared at the top level only".into()));
        }
        if self.code.physical {
            return Err((offset, "a program that names physical qubits (`$n`) cannot declare qubits".into()));
        }
        let len = match size {
            Some(size) => {
                let n = self.constant_size(size, "a register size")?;
                if n == 0 {
                    return Err((size.offset, "a register size must be a positive integer, not 0".into()));
                }
                if n > self.limits.max_qubits as u64 {
                    return Err((size.offset, format!("{n} qubits are past the limit of {}", self.limits.max_qubits)));
                }
                n as u32
            }
            None => 1,
        };
        let start = self.code.shell.qubits.len() as u32;
        if start as usize + len as usize > self.limits.max_qubits {
            let message =
                format!("`{}` brings the qubit count past the limit of {}", show(name), self.limits.max_qubits);
            return Err((offset, message));
        }
        let qubits: Arc<[u32]> = (start..start + len).collect();
        let ty = if size.is_some() { Type::Qubits(Some(len)) } else { Type::Qubit };
        self.declare(name, Symbol::Alias(Expr::literal(Value::Qubits(qubits), ty, offset)), offset)?;
        self.declared_qubits = true;
        for i in 0..len {
            self.code.shell.qubits.push(if size.is_some() { format!("{name}[{i}]") } else { name.to_string() });
        }
        Ok(())
    }

    fn declaration(
        &mut self,
        modifier: Modifier,
        ty: &TypeSyntax,
        name: &str,
        init: Option<&syntax::Expr>,
        offset: usize,
    ) -> Result<(), Fail> {
        let ty = self.resolve_type(ty, offset)?;
        if ty.is_quantum() || matches!(ty, Type::ArrayRef { .. }) {
            return Err((offset, format!("a variable cannot be of type `{ty}`")));
        }
        if matches!(ty, Type::Array { .. }) && !self.scopes.at_global() {
            return Err((offset, "arrays are declared at the top level only".into()));
        }
        if matches!(modifier, Modifier::Input | Modifier::Output) && !self.scopes.at_global() {
            return Err((offset, "`input` and `output` variables are declared at the top level only".into()));
        }
        if modifier == Modifier::Const {
            let init = init.ok_or((offset, "a `const` needs a value".to_string()))?;
            let value = self.expect(init, &ty)?;
            let Some(constant) = value.constant() else {
                return Err((init.offset, "a `const` needs a value known before the program runs".into()));
            };
            return self.declare(name, Symbol::Const { value: constant.clone(), ty }, offset);
        }
        let slot = self.slot();
        let mut measured = None;
        let value = match (modifier, init) {
            (Modifier::Input, Some(init)) => {
                return Err((init.offset, "an `input` takes its value from outside the program".into()));
            }
            (Modifier::Input, None) => self.input_value(name, &ty, offset)?,
            (_, Some(syntax::Expr { kind: syntax::ExprKind::Measure(source), .. })) => {
                measured = Some(source);
                Expr::literal(zero(&ty), ty.clone(), offset)
            }
            (_, Some(init)) => self.expect(init, &ty)?,
            (_, None) if ty == Type::Stretch => {
                let stretch = Duration { stretch: vec![(self.stretches, 1.0)], ..Duration::default() };
                self.stretches += 1;
                Expr::literal(Value::Duration(stretch), Type::Stretch, offset)
            }
            (_, None) => Expr::literal(zero(&ty), ty.clone(), offset),
        };
        self.emit(Instr::Init { slot, value }, offset);
        self.declare(name, Symbol::Var { slot, ty: ty.clone(), writable: modifier != Modifier::Input }, offset)?;
        if self.scopes.at_global() && slot.global {
            if let Some(len) = match ty {
                Type::Bit => Some(1),
                Type::Bits(n) => Some(n),
                _ => None,
            } {
                self.register(name, slot, len, offset)?;
            }
            if modifier == Modifier::Output {
                let width = ty.bit_width().ok_or((
                    offset,
                    format!(
                        "an `output` of type `{ty}` cannot be counted: outputs are bits, booleans, integers or angles"
                    ),
                ))?;
                self.code.outputs.push((slot.index, width));
                self.code.declared_outputs = true;
            }
        }
        if let Some(source) = measured {
            let place = Place { slot, root: ty.clone(), path: Vec::new(), ty, what: Arc::from(name) };
            self.measure(source, Some(place), offset)?;
        }
        Ok(())
    }

    /// The value given for input `name`, or zero when none is (the name is then reported).
    fn input_value(&mut self, name: &str, ty: &Type, offset: usize) -> Result<Expr, Fail> {
        let Some((_, text)) = self.bindings.inputs.iter().find(|(n, _)| n == name) else {
            self.unbound_inputs.push(name.to_string());
            return Ok(Expr::literal(zero(ty), ty.clone(), offset));
        };
        let fail = |message: String| {
            (offset, format!("the value `{}` given for input `{}`: {message}", show(text), show(name)))
        };
        let expr = crate::parse::v3::parse_expression(text).map_err(|(_, m)| fail(m))?;
        // The value is checked in its own text, then placed at the declaration.
        let previous = self.enter_file(&format!("--input {name}"), text);
        let value = self.expect(&expr, ty);
        self.file = previous;
        let value = value.map_err(|(_, m)| fail(m))?;
        if value.constant().is_none() {
            return Err(fail("a value must be a constant".into()));
        }
        Ok(Expr { offset, ..value })
    }

    fn alias(&mut self, name: &str, value: &syntax::Expr, offset: usize) -> Result<(), Fail> {
        let value = self.expr(value)?;
        if value.ty.is_quantum() && value.constant().is_none() {
            // Qubits picked at run time: kept in a variable of their own.
            let slot = self.slot();
            let ty = value.ty.clone();
            self.emit(Instr::Init { slot, value }, offset);
            return self.declare(name, Symbol::Var { slot, ty, writable: false }, offset);
        }
        let classical = match &value.kind {
            ExprKind::Literal(_) => value.ty.is_quantum(),
            ExprKind::Read(_) => true,
            ExprKind::Select { base, selectors, .. } => {
                matches!(base.kind, ExprKind::Read(_)) && selectors.iter().all(constant_selector)
            }
            _ => false,
        };
        if !classical || matches!(value.ty, Type::Array { .. } | Type::ArrayRef { .. }) && !value.ty.is_quantum() {
            return Err((offset, "`let` names qubits, or a bit variable or constant bits of one".into()));
        }
        self.declare(name, Symbol::Alias(value), offset)
    }

    fn assignment(
        &mut self,
        target: &syntax::Expr,
        op: Option<crate::classical::BinaryOp>,
        value: &syntax::Expr,
        offset: usize,
    ) -> Result<(), Fail> {
        if let (syntax::ExprKind::Measure(source), None) = (&value.kind, op) {
            let place = self.place(target)?;
            return self.measure(source, Some(place), offset);
        }
        let place = self.place(target)?;
        let value = match op {
            None => self.expect(value, &place.ty)?,
            Some(op) => {
                let current = self.expr(target)?;
                let operand = self.expr(value)?;
                let combined = self.binary(op, current, operand, offset)?;
                self.assignable(combined, &place.ty)?
            }
        };
        self.emit(Instr::Assign { place, value }, offset);
        Ok(())
    }

    /// `measure source -> target` (or into nothing).
    fn measure(&mut self, source: &syntax::Expr, target: Option<Place>, offset: usize) -> Result<(), Fail> {
        let qubits = self.qubits(source)?;
        if let Some(place) = &target {
            let bits = match place.ty {
                Type::Bit | Type::Bool => Some(1),
                Type::Bits(n) => Some(n),
                ref other => return Err((offset, format!("a measurement writes bits, not a `{other}`"))),
            };
            let measured = match qubits.ty {
                Type::Qubit => Some(1),
                Type::Qubits(n) => n,
                _ => None,
            };
            if let (Some(bits), Some(measured)) = (bits, measured)
                && bits != measured
            {
                return Err((offset, format!("measuring {measured} qubits into {bits} bits")));
            }
        }
        self.emit(Instr::Measure { qubits, target }, offset);
        Ok(())
    }

    /// A duration expression (of a `delay` or `box`), refused when it is a negative constant.
    pub(crate) fn duration(&mut self, e: &syntax::Expr) -> Result<Expr, Fail> {
        let duration = self.expr(e)?;
        if !duration.ty.is_duration() {
            return Err((e.offset, format!("expected a duration such as `100ns`, not a `{}`", duration.ty)));
        }
        if let Some(Value::Duration(d)) = duration.constant() {
            check_duration(d).map_err(|m| (e.offset, m))?;
        }
        Ok(duration)
    }
}

/// Why a duration cannot be waited, if it cannot: a negative fixed length, or stretches that
/// cannot grow to make it non-negative.
pub(crate) fn check_duration(d: &Duration) -> Result<(), String> {
    let negative = (d.seconds < 0.0 && d.dt <= 0.0) || (d.dt < 0.0 && d.seconds <= 0.0);
    let grows = d.stretch.iter().any(|&(_, c)| c > 0.0);
    if negative && !grows {
        let part = if d.seconds < 0.0 { format!("{:?} s", d.seconds) } else { format!("{:?} dt", d.dt) };
        return Err(format!("a duration cannot be negative, and this one is {part}"));
    }
    Ok(())
}

fn constant_selector(selector: &crate::classical::Selector) -> bool {
    use crate::classical::Selector;
    let constant = |e: &Expr| e.constant().is_some();
    match selector {
        Selector::One(e) => constant(e),
        Selector::Set(items) => items.iter().all(constant),
        Selector::Range { start, step, end } => [start, step, end].iter().all(|e| e.as_deref().is_none_or(constant)),
    }
}
