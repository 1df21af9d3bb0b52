//! Gate definitions: arguments checked, calls in the body checked against the gates known at
//! that point, `for` loops over constant values unrolled, modifiers evaluated; parameter
//! expressions are kept over the gate's parameters (read as the first variables of its frame).

use std::sync::Arc;

use super::exprs::coerce;
use super::scope::{ScopeKind, Symbol};
use super::{Compiler, Fail, Frame, show};
use crate::classical::convert::cast;
use crate::classical::{Expr, ExprKind, Type, Value};
use crate::machine::code::ModifierCode;
use crate::parse::v3::syntax::{self, Stmt, StmtKind};
use crate::program::{BodyStatement, GateDefinition, Modifier, Origin};

impl Compiler<'_> {
    /// Where `offset` of the current file is.
    pub(crate) fn origin_at(&self, offset: usize) -> Origin {
        let (name, text) = &self.code.files[self.file];
        let location = crate::parse::source::locate_offset(name, text, offset);
        Origin::Source { file: location.file, line: location.line, column: location.column }
    }

    pub(crate) fn gate_definition(
        &mut self,
        name: &str,
        params: &[(String, usize)],
        qubits: &[(String, usize)],
        body: &[Stmt],
        offset: usize,
    ) -> Result<(), Fail> {
        if !self.scopes.at_global() {
            return Err((offset, "gates are defined at the top level only".into()));
        }
        let names: Vec<&(String, usize)> = params.iter().chain(qubits).collect();
        for (i, (arg, at)) in names.iter().enumerate() {
            if names[..i].iter().any(|(n, _)| n == arg) {
                return Err((*at, format!("`{}` is named twice in the gate's arguments", show(arg))));
            }
        }
        self.scopes.push(ScopeKind::Definition);
        let saved = std::mem::replace(&mut self.frame, Frame { global: false, next: 0 });
        let mut statements = Vec::new();
        let result = (|| {
            for (param, at) in params {
                let slot = self.slot();
                self.declare(param, Symbol::Var { slot, ty: Type::Float(None), writable: false }, *at)?;
            }
            for (i, (qubit, at)) in qubits.iter().enumerate() {
                let alias = Expr::literal(Value::Qubits(Arc::from([i as u32])), Type::Qubit, *at);
                self.declare(qubit, Symbol::Alias(alias), *at)?;
            }
            self.gate_body(body, &mut statements)
        })();
        self.scopes.pop();
        self.frame = saved;
        result?;
        self.declare(name, Symbol::Gate, offset)?;
        let origin = self.origin_at(body.first().map_or(offset, |s| s.offset));
        let definition = GateDefinition {
            params: params.iter().map(|(p, _)| p.clone()).collect(),
            num_qubits: qubits.len(),
            body: statements,
            origin,
        };
        self.code.shell.definitions.insert(name.to_string(), definition);
        Ok(())
    }

    fn gate_body(&mut self, body: &[Stmt], out: &mut Vec<BodyStatement>) -> Result<(), Fail> {
        for statement in body {
            let offset = statement.offset;
            match &statement.kind {
                StmtKind::Call { modifiers, name, params, operands } => {
                    if out.len() >= self.limits.max_operations {
                        return Err((
                            offset,
                            format!("the gate's body has more than {} calls", self.limits.max_operations),
                        ));
                    }
                    let call = self.body_call(modifiers, name, params, operands, offset)?;
                    out.push(call);
                }
                StmtKind::For { ty, var, values, body } => {
                    let (values, item) = self.loop_values(values)?;
                    let var_ty = self.resolve_type(ty, offset)?;
                    let items: Vec<Value> = match values.constant() {
                        Some(Value::Range(range)) => {
                            let mut items = Vec::new();
                            while let Some(v) = range.get(items.len() as u64) {
                                if items.len() >= self.limits.max_operations {
                                    return Err((offset, "the loop runs too many times".into()));
                                }
                                items.push(Value::Int(v));
                            }
                            items
                        }
                        Some(Value::Array(array)) => array.items.clone(),
                        _ => return Err((offset, "a `for` loop in a gate definition needs constant values".into())),
                    };
                    for value in items {
                        let value = cast(&value, &item, &var_ty).map_err(|m| (offset, m))?;
                        self.scopes.push(ScopeKind::Block);
                        self.declare(var, Symbol::Const { value, ty: var_ty.clone() }, offset)?;
                        let result = self.gate_body(body, out);
                        self.scopes.pop();
                        result?;
                    }
                }
                StmtKind::Block(inner) => {
                    self.scopes.push(ScopeKind::Block);
                    let result = self.gate_body(inner, out);
                    self.scopes.pop();
                    result?;
                }
                StmtKind::Barrier(_) => {}
                _ => {
                    return Err((
                        offset,
                        "only gate calls (and `for` loops over them) may appear in a gate definition".into(),
                    ));
                }
            }
        }
        Ok(())
    }

    fn body_call(
        &mut self,
        modifiers: &[syntax::GateModifier],
        name: &str,
        params: &[syntax::Expr],
        operands: &[syntax::Expr],
        offset: usize,
    ) -> Result<BodyStatement, Fail> {
        let (codes, controls) = self.modifier_codes(modifiers)?;
        let mut checked = Vec::new();
        for (code, modifier) in codes.into_iter().zip(modifiers) {
            checked.push(match code {
                ModifierCode::Inv => Modifier::Inv,
                ModifierCode::Ctrl { count, on } => Modifier::Ctrl { count, on },
                ModifierCode::Pow(k) => match k.constant().and_then(|v| crate::classical::convert::real(v, &k.ty)) {
                    Some(k) => Modifier::Pow(k),
                    None => return Err((modifier.offset, "`pow` in a gate definition takes a constant".into())),
                },
            });
        }
        let mut slots = Vec::new();
        for operand in operands {
            let syntax::ExprKind::Name(n) = &operand.kind else {
                return Err((operand.offset, "a gate body names its qubit arguments, without indices".into()));
            };
            let slot = match self.scopes.lookup(n) {
                Some(Symbol::Alias(Expr { kind: ExprKind::Literal(Value::Qubits(q)), ty: Type::Qubit, .. })) => {
                    q[0] as usize
                }
                _ => return Err((operand.offset, format!("`{}` is not a qubit argument of this gate", show(n)))),
            };
            if slots.contains(&slot) {
                return Err((operand.offset, format!("`{}` is applied to `{}` twice", show(name), show(n))));
            }
            slots.push(slot);
        }
        let params = params
            .iter()
            .map(|p| self.real(p).and_then(|e| coerce(e, &Type::Float(None))))
            .collect::<Result<Vec<_>, _>>()?;
        if self.gate_shape(name).is_none() {
            return Err((offset, format!("undefined gate `{}` (gates must be defined before use)", show(name))));
        }
        self.check_shape(name, params.len(), slots.len(), controls, offset)?;
        let origin = self.origin_at(offset);
        Ok(BodyStatement::Call { name: name.to_string(), params, qubits: slots, modifiers: checked, origin })
    }
}
