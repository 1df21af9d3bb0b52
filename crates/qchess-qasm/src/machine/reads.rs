//! The variables an instruction reads, so that a pending measurement writing one of them is
//! resolved before the instruction runs. A place assigned is not read (a measurement or an
//! assignment overwrites it), but the indices that pick its part are.

use super::code::{GateCode, Instr, ModifierCode, Place, PlaceStep};
use crate::classical::{Expr, ExprKind, Selector, Slot};

fn selector(s: &Selector, out: &mut Vec<Slot>) {
    match s {
        Selector::One(e) => expr(e, out),
        Selector::Set(items) => items.iter().for_each(|e| expr(e, out)),
        Selector::Range { start, step, end } => [start, step, end].into_iter().flatten().for_each(|e| expr(e, out)),
    }
}

fn expr(e: &Expr, out: &mut Vec<Slot>) {
    match &e.kind {
        ExprKind::Literal(_) => {}
        ExprKind::Read(slot) => out.push(*slot),
        ExprKind::Select { base, selectors, .. } => {
            expr(base, out);
            selectors.iter().for_each(|s| selector(s, out));
        }
        ExprKind::Unary(_, inner) | ExprKind::Convert(inner) | ExprKind::SizeOf(inner, _) => expr(inner, out),
        ExprKind::Binary(_, _, a, b) => {
            expr(a, out);
            expr(b, out);
        }
        ExprKind::Builtin(_, args) | ExprKind::Concat(args) | ExprKind::Array(_, args) => {
            args.iter().for_each(|a| expr(a, out))
        }
        ExprKind::Range(a, b, c) => {
            expr(a, out);
            b.iter().for_each(|b| expr(b, out));
            expr(c, out);
        }
    }
}

fn place(p: &Place, out: &mut Vec<Slot>) {
    for step in &p.path {
        match step {
            PlaceStep::Elements(selectors) => selectors.iter().for_each(|s| selector(s, out)),
            PlaceStep::Bits(s, _) => selector(s, out),
        }
    }
}

fn gate(g: &GateCode, out: &mut Vec<Slot>) {
    g.params.iter().chain(&g.operands).for_each(|e| expr(e, out));
    for modifier in &g.modifiers {
        if let ModifierCode::Pow(k) = modifier {
            expr(k, out);
        }
    }
}

/// The variables `instr` reads.
pub(crate) fn of(instr: &Instr) -> Vec<Slot> {
    let mut out = Vec::new();
    match instr {
        Instr::Init { value, .. } => expr(value, &mut out),
        Instr::Assign { place: p, value } => {
            place(p, &mut out);
            expr(value, &mut out);
        }
        Instr::Gate(g) => gate(g, &mut out),
        Instr::Measure { qubits, target } => {
            expr(qubits, &mut out);
            target.iter().for_each(|p| place(p, &mut out));
        }
        Instr::Reset(e) | Instr::BoxStart(e) => expr(e, &mut out),
        Instr::Barrier(es) => es.iter().for_each(|e| expr(e, &mut out)),
        Instr::Delay { duration, qubits } => {
            expr(duration, &mut out);
            qubits.iter().for_each(|e| expr(e, &mut out));
        }
        Instr::Branch { condition, .. } => expr(condition, &mut out),
        Instr::ForStart { values, .. } => expr(values, &mut out),
        Instr::Switch { value, .. } => expr(value, &mut out),
        Instr::Call { args, .. } => args.iter().for_each(|e| expr(e, &mut out)),
        Instr::Return(value) => value.iter().for_each(|e| expr(e, &mut out)),
        Instr::Jump(_) | Instr::ForNext { .. } | Instr::End => {}
    }
    out.sort_unstable();
    out.dedup();
    out
}
