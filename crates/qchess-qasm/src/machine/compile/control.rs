//! Control flow into jumps: `if`/`else`, `for` over a range, a set, bits or an array, `while`,
//! `break`, `continue`, `switch`, `box`, blocks, `end` and `return`.

use std::collections::HashSet;

use super::scope::{ScopeKind, Symbol};
use super::{Compiler, Fail, Loop};
use crate::classical::convert::implicit;
use crate::classical::{Type, Value};
use crate::machine::code::Instr;
use crate::parse::v3::syntax::{Stmt, StmtKind};

impl Compiler<'_> {
    /// The statements of a block, in a scope of their own.
    pub(crate) fn block(&mut self, statements: &[Stmt]) -> Result<(), Fail> {
        self.scopes.push(ScopeKind::Block);
        let result = statements.iter().try_for_each(|s| self.statement(s));
        self.scopes.pop();
        result
    }

    fn patch_branch(&mut self, at: usize, to_otherwise: usize, to_end: usize) {
        if let Instr::Branch { otherwise, end, .. } = &mut self.code.instrs[at] {
            *otherwise = to_otherwise;
            *end = to_end;
        }
    }

    fn patch_jump(&mut self, at: usize, to: usize) {
        if let Instr::Jump(target) = &mut self.code.instrs[at] {
            *target = to;
        }
    }

    /// Closes the innermost loop: its `break`s jump to `exit`, its `continue`s to `next`.
    fn close_loop(&mut self, exit: usize, next: usize) {
        if let Some(closed) = self.loops.pop() {
            closed.breaks.into_iter().for_each(|at| self.patch_jump(at, exit));
            closed.continues.into_iter().for_each(|at| self.patch_jump(at, next));
        }
    }

    pub(crate) fn control(&mut self, statement: &Stmt) -> Result<(), Fail> {
        let offset = statement.offset;
        match &statement.kind {
            StmtKind::If { condition, then, otherwise } => {
                let condition = self.expr(condition)?;
                let condition = self.truth(condition)?;
                let branch = self.emit(Instr::Branch { condition, otherwise: 0, end: 0 }, offset);
                self.block(then)?;
                match otherwise {
                    Some(otherwise) => {
                        let jump = self.emit(Instr::Jump(0), offset);
                        let start = self.here();
                        self.block(otherwise)?;
                        let end = self.here();
                        self.patch_jump(jump, end);
                        self.patch_branch(branch, start, end);
                    }
                    None => {
                        let end = self.here();
                        self.patch_branch(branch, end, end);
                    }
                }
            }
            StmtKind::For { ty, var, values, body } => {
                let (values, item) = self.loop_values(values)?;
                let var_ty = self.resolve_type(ty, offset)?;
                if !implicit(&item, &var_ty) {
                    return Err((offset, format!("a loop over `{item}` values cannot set a `{var_ty}` variable")));
                }
                let (store, index) = (self.slot(), self.slot());
                self.emit(Instr::ForStart { values, store, index }, offset);
                self.scopes.push(ScopeKind::Block);
                let slot = self.slot();
                let next = self
                    .emit(Instr::ForNext { store, index, var: slot, var_ty: var_ty.clone(), item, exit: 0 }, offset);
                self.declare(var, Symbol::Var { slot, ty: var_ty, writable: true }, offset)?;
                self.loops.push(Loop { continue_to: Some(next), ..Loop::default() });
                let result = body.iter().try_for_each(|s| self.statement(s));
                self.scopes.pop();
                result?;
                self.emit(Instr::Jump(next), offset);
                let exit = self.here();
                if let Instr::ForNext { exit: e, .. } = &mut self.code.instrs[next] {
                    *e = exit;
                }
                self.close_loop(exit, next);
            }
            StmtKind::While { condition, body } => {
                let top = self.here();
                let condition = self.expr(condition)?;
                let condition = self.truth(condition)?;
                let branch = self.emit(Instr::Branch { condition, otherwise: 0, end: 0 }, offset);
                self.loops.push(Loop { continue_to: Some(top), ..Loop::default() });
                self.block(body)?;
                self.emit(Instr::Jump(top), offset);
                let exit = self.here();
                self.patch_branch(branch, exit, exit);
                self.close_loop(exit, top);
            }
            StmtKind::Switch { value, cases, default } => self.switch(value, cases, default.as_deref(), offset)?,
            StmtKind::Box { duration, body } => {
                if let Some(duration) = duration {
                    let duration = self.duration(duration)?;
                    self.emit(Instr::BoxStart(duration), offset);
                }
                self.block(body)?;
            }
            StmtKind::Block(body) => self.block(body)?,
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(statement.kind, StmtKind::Break);
                let word = if is_break { "break" } else { "continue" };
                if self.loops.is_empty() {
                    return Err((offset, format!("`{word}` outside a loop")));
                }
                let jump = self.emit(Instr::Jump(0), offset);
                let Some(current) = self.loops.last_mut() else { unreachable!("checked above") };
                match (is_break, current.continue_to) {
                    (true, _) => current.breaks.push(jump),
                    (false, Some(next)) => self.patch_jump(jump, next),
                    (false, None) => current.continues.push(jump),
                }
            }
            StmtKind::End => {
                self.emit(Instr::End, offset);
            }
            StmtKind::Return(value) => {
                let Some(returns) = self.returns.clone() else {
                    return Err((offset, "`return` outside a subroutine".into()));
                };
                let value = match (value, returns) {
                    (None, None) => None,
                    (Some(value), Some(ty)) => Some(self.expect(value, &ty)?),
                    (None, Some(ty)) => {
                        return Err((offset, format!("this subroutine returns a `{ty}`: `return` needs one")));
                    }
                    (Some(value), None) => {
                        return Err((value.offset, "this subroutine returns nothing (declare it `-> type`)".into()));
                    }
                };
                self.emit(Instr::Return(value), offset);
            }
            _ => unreachable!("statements are dispatched by kind"),
        }
        Ok(())
    }

    fn switch(
        &mut self,
        value: &crate::parse::v3::syntax::Expr,
        cases: &[crate::parse::v3::syntax::Case],
        default: Option<&[Stmt]>,
        offset: usize,
    ) -> Result<(), Fail> {
        let checked = self.expr(value)?;
        if !checked.ty.is_integer() {
            return Err((value.offset, format!("a `switch` needs an integer, not a `{}` (cast it)", checked.ty)));
        }
        if cases.is_empty() {
            return Err((offset, "a `switch` needs at least one `case`".into()));
        }
        let checked = super::exprs::coerce(checked, &Type::Int(None))?;
        let at = self.emit(Instr::Switch { value: checked, cases: Vec::new(), default: 0 }, offset);
        let mut seen = HashSet::new();
        let mut targets = Vec::new();
        let mut jumps = Vec::new();
        for case in cases {
            let start = self.here();
            for label in &case.labels {
                let checked = self.expr(label)?;
                let Some(Value::Int(v)) = checked.constant().filter(|_| checked.ty.is_integer()) else {
                    return Err((label.offset, "a `case` label must be a constant integer".into()));
                };
                if !seen.insert(*v) {
                    return Err((label.offset, format!("the value {v} appears in two `case`s")));
                }
                targets.push((*v, start));
            }
            self.block(&case.body)?;
            jumps.push(self.emit(Instr::Jump(0), case.offset));
        }
        let default_start = self.here();
        if let Some(body) = default {
            self.block(body)?;
        }
        let end = self.here();
        jumps.into_iter().for_each(|j| self.patch_jump(j, end));
        if let Instr::Switch { cases, default, .. } = &mut self.code.instrs[at] {
            *cases = targets;
            *default = default_start;
        }
        Ok(())
    }
}
