//! Operands and conditions resolved against the declarations: register indices, ranges and
//! sets, physical qubits, and `if` conditions as bit tests.

use super::elaborate::{Elaborator, Symbol, describe, show};
use super::parser::{Index, Operand, OperandKind};
use crate::program::BitTest;
use crate::program::expr::{BinaryOp, Expr, ExprKind, UnaryOp, Value};

impl Elaborator<'_> {
    /// The elements of a register an index selects (negative indices count from the end).
    pub(super) fn select(&self, index: &Index, len: u32, name: &str) -> Result<Vec<u32>, (usize, String)> {
        let resolve = |expr: &Expr| -> Result<u32, (usize, String)> {
            match self.evaluate(expr)? {
                Value::Int(i) if i >= 0 && i < i64::from(len) => Ok(i as u32),
                Value::Int(i) if i < 0 && -i <= i64::from(len) => Ok((i64::from(len) + i) as u32),
                Value::Int(i) => {
                    Err((expr.offset, format!("index {i} is out of range for `{}` of size {len}", show(name))))
                }
                other => Err((expr.offset, format!("an index must be an integer, not {}", describe(other)))),
            }
        };
        match index {
            Index::Single(expr) => Ok(vec![resolve(expr)?]),
            Index::Set(items) => items.iter().map(resolve).collect(),
            Index::Range { start, step, end } => {
                let first = start.as_ref().map(resolve).transpose()?.unwrap_or(0);
                let last = end.as_ref().map(resolve).transpose()?.unwrap_or(len - 1);
                let step = match step.as_ref().map(|s| self.evaluate(s)).transpose()? {
                    None => 1,
                    Some(Value::Int(s)) if s != 0 => s,
                    Some(other) => {
                        let at = step.as_ref().map_or(0, |s| s.offset);
                        return Err((at, format!("a range step must be a non-zero integer, not {}", describe(other))));
                    }
                };
                let mut out = Vec::new();
                let mut i = i64::from(first);
                while (step > 0 && i <= i64::from(last)) || (step < 0 && i >= i64::from(last)) {
                    out.push(i as u32);
                    i += step;
                }
                Ok(out)
            }
        }
    }

    pub(super) fn qubits(&mut self, operand: &Operand) -> Result<Vec<u32>, (usize, String)> {
        let (name, index) = match &operand.kind {
            OperandKind::Physical(n) => {
                if self.declared_qubits {
                    return Err((
                        operand.offset,
                        "a program that declares qubits cannot also name physical qubits (`$n`)".into(),
                    ));
                }
                if *n as usize >= self.limits.max_qubits {
                    return Err((
                        operand.offset,
                        format!("physical qubit ${n} is past the limit of {} qubits", self.limits.max_qubits),
                    ));
                }
                self.physical = Some(self.physical.map_or(*n, |m| m.max(*n)));
                return Ok(vec![*n]);
            }
            OperandKind::Name(name) => (name, None),
            OperandKind::Indexed(name, index) => (name, Some(index)),
        };
        let Some(Symbol::Qubits { start, len }) = self.symbols.get(name.as_str()).copied() else {
            let what =
                if self.symbols.contains_key(name.as_str()) { "is not a qubit register" } else { "is not declared" };
            return Err((operand.offset, format!("`{}` {what}", show(name))));
        };
        match index {
            None => Ok((start..start + len).collect()),
            Some(index) => Ok(self.select(index, len, name)?.into_iter().map(|i| start + i).collect()),
        }
    }

    pub(super) fn bits(&self, operand: &Operand) -> Result<Vec<u32>, (usize, String)> {
        let (name, index) = match &operand.kind {
            OperandKind::Physical(n) => return Err((operand.offset, format!("`${n}` is a qubit, not a bit"))),
            OperandKind::Name(name) => (name, None),
            OperandKind::Indexed(name, index) => (name, Some(index)),
        };
        let Some(Symbol::Bits(register)) = self.symbols.get(name.as_str()).copied() else {
            let what =
                if self.symbols.contains_key(name.as_str()) { "is not a bit register" } else { "is not declared" };
            return Err((operand.offset, format!("`{}` {what}", show(name))));
        };
        let register = &self.program.registers[register];
        match index {
            None => Ok((register.start..register.start + register.len).collect()),
            Some(index) => {
                Ok(self.select(index, register.len, name)?.into_iter().map(|i| register.start + i).collect())
            }
        }
    }

    /// The bits an expression names, if it names a register or one bit of one.
    pub(super) fn named_bits(&self, expr: &Expr) -> Result<Option<Vec<u32>>, (usize, String)> {
        let (name, index) = match &expr.kind {
            ExprKind::Name(name) => (name, None),
            ExprKind::Index(name, index) => (name, Some(index)),
            _ => return Ok(None),
        };
        let Some(Symbol::Bits(_)) = self.symbols.get(name.as_str()) else {
            return Ok(None);
        };
        let operand = Operand {
            kind: match index {
                None => OperandKind::Name(name.clone()),
                Some(index) => OperandKind::Indexed(name.clone(), Index::Single((**index).clone())),
            },
            offset: expr.offset,
        };
        self.bits(&operand).map(Some)
    }

    /// The bit test an `if` condition means.
    pub(super) fn test(&self, condition: &Expr) -> Result<BitTest, (usize, String)> {
        let unsupported = || {
            (
                condition.offset,
                "a condition must compare bits with a constant (`c == 3`, `c[0]`, `!c[0]`, `c[1] != 0`)".to_string(),
            )
        };
        let (bits, value, equal) = match &condition.kind {
            ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), left, right) => {
                let (bits, constant) = match (self.named_bits(left)?, self.named_bits(right)?) {
                    (Some(bits), None) => (bits, right),
                    (None, Some(bits)) => (bits, left),
                    _ => return Err(unsupported()),
                };
                let value = match self.evaluate(constant)? {
                    Value::Int(i) if i >= 0 => i as u64,
                    Value::Bool(b) => u64::from(b),
                    other => {
                        return Err((
                            constant.offset,
                            format!("bits compare with a non-negative integer, not {}", describe(other)),
                        ));
                    }
                };
                (bits, value, *op == BinaryOp::Eq)
            }
            ExprKind::Unary(UnaryOp::Not, inner) => match self.named_bits(inner)? {
                Some(bits) if bits.len() == 1 => (bits, 0, true),
                _ => return Err(unsupported()),
            },
            _ => match self.named_bits(condition)? {
                Some(bits) if bits.len() == 1 => (bits, 1, true),
                _ => return Err(unsupported()),
            },
        };
        if bits.len() > 64 {
            return Err((condition.offset, "conditions on more than 64 bits are not supported".into()));
        }
        Ok(BitTest { bits, value, equal })
    }
}
