//! Gate definitions: arguments checked, calls in the body checked against the gates known at
//! that point, constants inlined into parameter expressions, modifier arguments evaluated.

use super::elaborate::{Elaborator, File, describe, show};
use super::parser::{ModifierAst, OperandKind, Stmt, StmtKind};
use crate::program::expr::{Expr, ExprKind, Value, builtin_constant};
use crate::program::{BodyStatement, GateDefinition, Modifier};

impl Elaborator<'_> {
    pub(super) fn modifiers(
        &self,
        modifiers: &[ModifierAst],
        params: &dyn Fn(&str) -> Option<Value>,
    ) -> Result<Vec<Modifier>, (usize, String)> {
        modifiers
            .iter()
            .map(|m| {
                let lookup = |n: &str| {
                    if params(n).is_some() { None } else { self.constant(n) }
                };
                let arg = m.arg.as_ref().map(|e| e.evaluate(&lookup)).transpose()?;
                Ok(match (m.name, arg) {
                    ("inv", _) => Modifier::Inv,
                    ("pow", Some(v)) => Modifier::Pow(v.as_f64()),
                    ("pow", None) => return Err((m.offset, "`pow` needs an exponent: `pow(k) @`".into())),
                    (name, arg) => {
                        let count = match arg {
                            None => 1,
                            Some(Value::Int(n)) if (1..=64).contains(&n) => n as u32,
                            Some(other) => {
                                return Err((
                                    m.offset,
                                    format!("`{name}` takes a control count from 1 to 64, not {}", describe(other)),
                                ));
                            }
                        };
                        Modifier::Ctrl { count, on: name == "ctrl" }
                    }
                })
            })
            .collect()
    }

    pub(super) fn definition(
        &self,
        file: &File,
        params: &[String],
        qubits: &[(String, usize)],
        body: &[Stmt],
    ) -> Result<GateDefinition, (usize, String)> {
        for (i, (name, offset)) in qubits.iter().enumerate() {
            if qubits[..i].iter().any(|(n, _)| n == name) || params.contains(name) {
                return Err((*offset, format!("`{}` is named twice in the gate's arguments", show(name))));
            }
        }
        let is_param = |n: &str| params.iter().any(|p| p == n).then_some(Value::Float(0.0));
        let mut statements = Vec::new();
        for statement in body {
            let StmtKind::Call { modifiers, name, params: exprs, operands } = &statement.kind else {
                if matches!(statement.kind, StmtKind::Barrier(_)) {
                    continue;
                }
                return Err((statement.offset, "only gate calls may appear in a gate definition".into()));
            };
            let modifiers = self.modifiers(modifiers, &is_param)?;
            let controls: usize =
                modifiers.iter().map(|m| if let Modifier::Ctrl { count, .. } = m { *count as usize } else { 0 }).sum();
            match self.shape(name) {
                Some((want_params, want_qubits))
                    if exprs.len() != want_params || operands.len() != controls + want_qubits =>
                {
                    return Err((
                        statement.offset,
                        format!(
                            "`{}` takes {want_params} parameters and {} qubits, not {} and {}",
                            show(name),
                            controls + want_qubits,
                            exprs.len(),
                            operands.len()
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    return Err((
                        statement.offset,
                        format!("undefined gate `{}` (gates must be defined before use)", show(name)),
                    ));
                }
            }
            let mut slots = Vec::new();
            for operand in operands {
                let OperandKind::Name(n) = &operand.kind else {
                    return Err((operand.offset, "a gate body names its qubit arguments, without indices".into()));
                };
                let slot = qubits
                    .iter()
                    .position(|(q, _)| q == n)
                    .ok_or_else(|| (operand.offset, format!("`{}` is not a qubit argument of this gate", show(n))))?;
                if slots.contains(&slot) {
                    return Err((operand.offset, format!("`{}` is applied to `{}` twice", show(name), show(n))));
                }
                slots.push(slot);
            }
            let params =
                exprs.iter().map(|e| self.inline(e, params)).collect::<Result<Vec<Expr>, (usize, String)>>()?;
            statements.push(BodyStatement::Call {
                name: name.clone(),
                params,
                qubits: slots,
                modifiers,
                origin: Self::origin(file, statement.offset),
            });
        }
        Ok(GateDefinition {
            params: params.to_vec(),
            num_qubits: qubits.len(),
            body: statements,
            origin: Self::origin(file, body.first().map_or(0, |s| s.offset)),
        })
    }

    /// `expr` with every constant replaced by its value; names must be constants or `params`.
    pub(super) fn inline(&self, expr: &Expr, params: &[String]) -> Result<Expr, (usize, String)> {
        let kind = match &expr.kind {
            ExprKind::Name(n) if params.contains(n) || builtin_constant(n).is_some() => expr.kind.clone(),
            ExprKind::Name(n) => match self.constant(n) {
                Some(Value::Int(i)) => ExprKind::Int(i),
                Some(Value::Float(x)) => ExprKind::Float(x),
                Some(Value::Bool(b)) => ExprKind::Bool(b),
                None => {
                    return Err((expr.offset, format!("`{}` is not a parameter of this gate or a constant", show(n))));
                }
            },
            ExprKind::Index(n, _) => {
                return Err((expr.offset, format!("`{}[...]` cannot appear in a gate parameter", show(n))));
            }
            ExprKind::Unary(op, inner) => ExprKind::Unary(*op, Box::new(self.inline(inner, params)?)),
            ExprKind::Binary(op, a, b) => {
                ExprKind::Binary(*op, Box::new(self.inline(a, params)?), Box::new(self.inline(b, params)?))
            }
            ExprKind::Call(f, args) => {
                ExprKind::Call(f.clone(), args.iter().map(|a| self.inline(a, params)).collect::<Result<_, _>>()?)
            }
            other => other.clone(),
        };
        Ok(Expr { kind, offset: expr.offset })
    }
}
