//! Running compiled code, one instruction at a time. Each step gives what happened to the
//! qubits ([`Effect`]); the caller (a simulator, or the recorder of a static circuit) decides
//! what to do with it. A step that needs the outcome of a pending measurement asks for it
//! ([`Effect::Force`]) and runs again once it is given ([`Vm::resolve`]).

use std::collections::VecDeque;
use std::sync::Arc;

use super::code::{Code, GateCode, Instr, ModifierCode};
use super::compile::MAX_CALL_DEPTH;
use super::memory::{Frame, Memory, Pending, Target};
use crate::classical::convert::{cast, real};
use crate::classical::value::{Duration, Value};
use crate::classical::{Env, EvalError, Expr, Slot, Type};
use crate::program::{GateCall, Modifier};

/// What a step did to the qubits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
    /// Nothing quantum.
    Continue,
    /// A gate call, evaluated.
    Gate(GateCall),
    /// A measurement recorded as pending (its outcome is drawn when needed).
    Measured {
        qubit: u32,
        target: Option<Target>,
    },
    /// The program needs the outcome of the pending measurement of this qubit.
    Force(u32),
    Reset(u32),
    Barrier(Vec<u32>),
    Delay(Vec<u32>, Duration),
    /// The program has ended.
    Done,
}

/// A failure while running: the instruction, the offset of the part at fault (if known) and
/// the message; `limit` when a bound on running was reached rather than the program being
/// wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failure {
    pub(crate) pc: usize,
    pub(crate) offset: Option<usize>,
    pub(crate) message: String,
    pub(crate) limit: bool,
}

/// The running state: where it is, its memory, the effects of the current instruction still
/// to give, and whether it has ended.
#[derive(Debug, Clone)]
pub(crate) struct Vm {
    pub(crate) code: Arc<Code>,
    /// Per instruction: the variables it reads (a pending measurement of one is resolved first).
    reads: Arc<Vec<Vec<Slot>>>,
    pub(crate) pc: usize,
    pub(crate) memory: Memory,
    effects: VecDeque<Effect>,
    pub(crate) done: bool,
    steps: u64,
    max_steps: u64,
}

impl PartialEq for Vm {
    fn eq(&self, other: &Vm) -> bool {
        self.pc == other.pc && self.done == other.done && self.memory == other.memory && self.effects == other.effects
    }
}

impl Eq for Vm {}

impl std::hash::Hash for Vm {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.pc.hash(state);
        self.done.hash(state);
        self.memory.hash(state);
    }
}

fn qubit_list(value: &Value) -> Vec<u32> {
    match value {
        Value::Qubits(q) => q.to_vec(),
        _ => Vec::new(),
    }
}

impl Vm {
    pub(crate) fn new(code: Arc<Code>, max_steps: u64) -> Vm {
        let reads = Arc::new(code.instrs.iter().map(super::reads::of).collect());
        let memory = Memory::new(code.globals);
        Vm { code, reads, pc: 0, memory, effects: VecDeque::new(), done: false, steps: 0, max_steps }
    }

    fn fail(&self, (offset, message): EvalError) -> Failure {
        Failure { pc: self.pc, offset: (offset != usize::MAX).then_some(offset), message, limit: false }
    }

    fn eval(&self, expr: &Expr) -> Result<Value, Failure> {
        expr.evaluate(&self.memory).map_err(|e| self.fail(e))
    }

    fn qubits(&self, expr: &Expr) -> Result<Vec<u32>, Failure> {
        Ok(qubit_list(&self.eval(expr)?))
    }

    /// Gives the outcome of the pending measurement of `qubit` to every bit it writes.
    pub(crate) fn resolve(&mut self, qubit: u32, outcome: bool) {
        let (resolved, kept): (Vec<Pending>, Vec<Pending>) =
            std::mem::take(&mut self.memory.pending).into_iter().partition(|p| p.qubit == qubit);
        self.memory.pending = kept;
        for pending in resolved {
            if let Some(target) = pending.target {
                self.memory.set_bit(target, outcome, &pending.ty);
            }
        }
    }

    /// Whether effects of the current instruction are still to be given.
    pub(crate) fn has_effects(&self) -> bool {
        !self.effects.is_empty()
    }

    /// Moves the pending measurements of `qubit` to the qubit number `to`.
    pub(crate) fn detach(&mut self, qubit: u32, to: u32) {
        self.memory.pending.iter_mut().filter(|p| p.qubit == qubit).for_each(|p| p.qubit = to);
    }

    /// The qubit of a pending measurement among `qubits`, if any.
    fn pending_on(&self, qubits: &[u32]) -> Option<u32> {
        self.memory.pending.iter().find(|p| qubits.contains(&p.qubit)).map(|p| p.qubit)
    }

    /// Runs until something happens to the qubits (or a measurement outcome is needed).
    pub(crate) fn step(&mut self) -> Result<Effect, Failure> {
        if let Some(effect) = self.effects.pop_front() {
            return Ok(effect);
        }
        loop {
            if self.done {
                return Ok(Effect::Done);
            }
            self.steps += 1;
            if self.steps > self.max_steps {
                return Err(Failure {
                    pc: self.pc,
                    offset: None,
                    message: format!("the program ran more than {} steps (does a loop never end?)", self.max_steps),
                    limit: true,
                });
            }
            if !self.memory.pending.is_empty()
                && let Some(qubit) = self.reads[self.pc].iter().find_map(|&slot| self.memory.pending_in(slot))
            {
                return Ok(Effect::Force(qubit));
            }
            let effect = self.execute()?;
            if effect != Effect::Continue {
                return Ok(effect);
            }
            if let Some(effect) = self.effects.pop_front() {
                return Ok(effect);
            }
        }
    }

    /// Executes the instruction at `pc`.
    fn execute(&mut self) -> Result<Effect, Failure> {
        let code = Arc::clone(&self.code);
        let next = self.pc + 1;
        match &code.instrs[self.pc] {
            Instr::Init { slot, value } => {
                let value = self.eval(value)?;
                let frame = self.memory.frame_of(*slot);
                self.memory.overwrote |= self.memory.forget(frame, slot.index, None) && frame == 0;
                self.memory.frames[frame].slots[slot.index as usize] = value;
            }
            Instr::Assign { place, value } => {
                let value = self.eval(value)?;
                self.memory.write(place, value).map_err(|e| self.fail(e))?;
            }
            Instr::Gate(gate) => {
                if let Some(effect) = self.gate(gate)? {
                    return Ok(effect);
                }
            }
            Instr::Measure { qubits, target } => {
                let qubits = self.qubits(qubits)?;
                let targets: Vec<Option<Target>> = match target {
                    None => vec![None; qubits.len()],
                    Some(place) => {
                        let (frame, bits) = self.memory.target_bits(place).map_err(|e| self.fail(e))?;
                        if bits.len() != qubits.len() {
                            let message = format!("measuring {} qubits into {} bits", qubits.len(), bits.len());
                            return Err(self.fail((usize::MAX, message)));
                        }
                        bits.into_iter()
                            .map(|bit| Some(Target { frame, slot: place.slot.index, bit: bit as u32 }))
                            .collect()
                    }
                };
                let ty = target.as_ref().map_or(Type::Bit, |place| place.root.clone());
                for (qubit, target) in qubits.into_iter().zip(targets) {
                    if let Some(t) = target {
                        self.memory.forget(t.frame, t.slot, Some(&[t.bit as usize]));
                    }
                    self.memory.pending.push(Pending { qubit, target, ty: ty.clone() });
                    self.effects.push_back(Effect::Measured { qubit, target });
                }
            }
            Instr::Reset(qubits) => {
                let qubits = self.qubits(qubits)?;
                if let Some(qubit) = self.pending_on(&qubits) {
                    return Ok(Effect::Force(qubit));
                }
                self.effects.extend(qubits.into_iter().map(Effect::Reset));
            }
            Instr::Barrier(operands) => {
                let qubits = self.operand_qubits(operands)?;
                self.effects.push_back(Effect::Barrier(qubits));
            }
            Instr::Delay { duration, qubits } => {
                let Value::Duration(duration) = self.eval(duration)? else { unreachable!("checked as a duration") };
                super::compile::check_duration(&duration).map_err(|m| self.fail((usize::MAX, m)))?;
                let qubits = self.operand_qubits(qubits)?;
                self.effects.push_back(Effect::Delay(qubits, duration));
            }
            Instr::BoxStart(duration) => {
                let Value::Duration(duration) = self.eval(duration)? else { unreachable!("checked as a duration") };
                super::compile::check_duration(&duration).map_err(|m| self.fail((usize::MAX, m)))?;
            }
            Instr::Jump(target) => {
                self.pc = *target;
                return Ok(Effect::Continue);
            }
            Instr::Branch { condition, otherwise, .. } => {
                if !self.eval(condition)?.truthy() {
                    self.pc = *otherwise;
                    return Ok(Effect::Continue);
                }
            }
            Instr::ForStart { values, store, index } => {
                let values = match self.eval(values)? {
                    Value::ArrayRef(view) => {
                        let Value::Array(root) = self.memory.read(Slot { global: true, index: view.slot }) else {
                            return Err(self.fail((usize::MAX, "not an array".into())));
                        };
                        Value::Array(crate::classical::expr::copy(&root.items, &view))
                    }
                    other => other,
                };
                let frame = self.memory.frame_of(*store);
                self.memory.frames[frame].slots[store.index as usize] = values;
                self.memory.frames[frame].slots[index.index as usize] = Value::Int(0);
            }
            Instr::ForNext { store, index, var, var_ty, item, exit } => {
                let Value::Int(i) = *self.memory.read(*index) else { unreachable!("a loop counter") };
                let value = match self.memory.read(*store) {
                    Value::Range(range) => range.get(i as u64).map(Value::Int),
                    Value::Array(array) => array.items.get(i as usize).cloned(),
                    Value::Bits(bits) => bits.get(i as usize).map(|&b| Value::Bool(b)),
                    _ => None,
                };
                let Some(value) = value else {
                    self.pc = *exit;
                    return Ok(Effect::Continue);
                };
                let value = cast(&value, item, var_ty).map_err(|m| self.fail((usize::MAX, m)))?;
                let frame = self.memory.frame_of(*var);
                self.memory.forget(frame, var.index, None);
                self.memory.frames[frame].slots[var.index as usize] = value;
                self.memory.frames[frame].slots[index.index as usize] = Value::Int(i + 1);
            }
            Instr::Switch { value, cases, default } => {
                let Value::Int(v) = self.eval(value)? else { unreachable!("checked as an integer") };
                self.pc = cases.iter().find(|(label, _)| *label == v).map_or(*default, |&(_, target)| target);
                return Ok(Effect::Continue);
            }
            Instr::Call { function, args, result } => return self.call(*function, args, *result),
            Instr::Return(value) => return self.ret(value.as_ref()),
            Instr::End => {
                self.done = true;
                return Ok(Effect::Done);
            }
        }
        self.pc = next;
        Ok(Effect::Continue)
    }

    /// The qubits of `operands`, or every qubit when there are none.
    fn operand_qubits(&self, operands: &[Expr]) -> Result<Vec<u32>, Failure> {
        if operands.is_empty() {
            return Ok((0..self.code.shell.qubits.len() as u32).collect());
        }
        let mut qubits = Vec::new();
        for operand in operands {
            qubits.extend(self.qubits(operand)?);
        }
        Ok(qubits)
    }

    /// A gate call broadcast over its operands; `Some` when a pending measurement must be
    /// resolved first.
    fn gate(&mut self, gate: &GateCode) -> Result<Option<Effect>, Failure> {
        let lists = gate.operands.iter().map(|o| self.qubits(o)).collect::<Result<Vec<_>, _>>()?;
        let all: Vec<u32> = lists.iter().flatten().copied().collect();
        if let Some(qubit) = self.pending_on(&all) {
            return Ok(Some(Effect::Force(qubit)));
        }
        let mut params = Vec::with_capacity(gate.params.len());
        for expr in &gate.params {
            let value = self.eval(expr)?;
            let x = real(&value, &expr.ty).unwrap_or(f64::NAN);
            params.push(crate::program::finite(x).map_err(|m| self.fail((expr.offset, m)))?);
        }
        let mut modifiers = Vec::with_capacity(gate.modifiers.len());
        for modifier in &gate.modifiers {
            modifiers.push(match modifier {
                ModifierCode::Inv => Modifier::Inv,
                ModifierCode::Ctrl { count, on } => Modifier::Ctrl { count: *count, on: *on },
                ModifierCode::Pow(k) => {
                    let value = self.eval(k)?;
                    Modifier::Pow(real(&value, &k.ty).unwrap_or(f64::NAN))
                }
            });
        }
        let width = lists.iter().map(Vec::len).max().unwrap_or(1);
        if let Some((list, operand)) = lists.iter().zip(&gate.operands).find(|(l, _)| l.len() != 1 && l.len() != width)
        {
            let message = format!("registers of {} and {width} qubits cannot be broadcast together", list.len());
            return Err(self.fail((operand.offset, message)));
        }
        for i in 0..width.max(1) {
            let qubits: Vec<u32> = lists.iter().map(|l| if l.len() == 1 { l[0] } else { l[i] }).collect();
            if let Some(&repeated) = qubits.iter().enumerate().find(|(k, q)| qubits[..*k].contains(q)).map(|(_, q)| q) {
                let name = self.code.shell.qubits.get(repeated as usize).cloned().unwrap_or_default();
                let message =
                    format!("`{}` is applied to qubit {name} twice", crate::machine::compile::show(&gate.name));
                return Err(self.fail((usize::MAX, message)));
            }
            self.effects.push_back(Effect::Gate(GateCall {
                name: gate.name.clone(),
                params: params.clone(),
                qubits,
                modifiers: modifiers.clone(),
            }));
        }
        Ok(None)
    }

    fn call(&mut self, function: usize, args: &[Expr], result: Option<Slot>) -> Result<Effect, Failure> {
        let code = Arc::clone(&self.code);
        let callee = &code.functions[function];
        if self.memory.frames.len() > MAX_CALL_DEPTH {
            return Err(Failure {
                pc: self.pc,
                offset: None,
                message: format!("subroutine calls nest more than {MAX_CALL_DEPTH} deep"),
                limit: true,
            });
        }
        let mut slots = Vec::with_capacity(callee.frame);
        let mut passed: Vec<u32> = Vec::new();
        for (arg, param) in args.iter().zip(&callee.params) {
            let value = self.eval(arg)?;
            if let Value::Qubits(qubits) = &value {
                let wanted = match param {
                    Type::Qubits(Some(n)) => Some(*n as usize),
                    Type::Qubit => Some(1),
                    _ => None,
                };
                if wanted.is_some_and(|n| n != qubits.len()) {
                    let message = format!("a `{param}` parameter of `{}` given {} qubits", callee.name, qubits.len());
                    return Err(self.fail((arg.offset, message)));
                }
                if qubits.iter().any(|q| passed.contains(q)) {
                    return Err(self.fail((arg.offset, format!("a qubit is passed to `{}` twice", callee.name))));
                }
                passed.extend(qubits.iter());
            }
            slots.push(value);
        }
        slots.resize(callee.frame, Value::Int(0));
        self.memory.frames.push(Frame { function: Some(function), return_to: self.pc + 1, result, slots });
        self.pc = callee.entry;
        Ok(Effect::Continue)
    }

    fn ret(&mut self, value: Option<&Expr>) -> Result<Effect, Failure> {
        let value = value.map(|v| self.eval(v)).transpose()?;
        let depth = self.memory.frames.len() - 1;
        let Some(frame) = self.memory.frames.pop() else { unreachable!("a frame returns") };
        let function = &self.code.functions[frame.function.unwrap_or(0)];
        if function.returns.is_some() && value.is_none() {
            self.memory.frames.push(frame);
            let message = format!("`{}` ended without returning a value", function.name);
            return Err(self.fail((usize::MAX, message)));
        }
        for pending in &mut self.memory.pending {
            if pending.target.is_some_and(|t| t.frame == depth) {
                pending.target = None;
            }
        }
        if let (Some(slot), Some(value)) = (frame.result, value) {
            let caller = self.memory.frame_of(slot);
            self.memory.frames[caller].slots[slot.index as usize] = value;
        }
        self.pc = frame.return_to;
        Ok(Effect::Continue)
    }

    /// The bits of a shot's result, low first: each output variable's bits, a pending
    /// measurement's bit read by `read` (the final basis state's qubit).
    pub(crate) fn result(&self, read: &dyn Fn(u32) -> bool) -> u64 {
        let mut key = 0u64;
        let mut position = 0u32;
        for &(slot, width) in &self.code.outputs {
            let value = self.memory.read(Slot { global: true, index: slot });
            let bits = match value {
                Value::Bits(bits) => bits.clone(),
                Value::Bool(b) => vec![*b],
                Value::Int(i) => crate::classical::value::bits_of(*i, width),
                Value::Angle(p) => crate::classical::value::bits_of(i128::from(*p), width),
                _ => vec![false; width as usize],
            };
            for (bit, mut value) in bits.into_iter().enumerate() {
                let here = Target { frame: 0, slot, bit: bit as u32 };
                if let Some(pending) = self.memory.pending.iter().find(|p| p.target == Some(here)) {
                    value = read(pending.qubit);
                }
                if value && position < 64 {
                    key |= 1 << position;
                }
                position += 1;
            }
        }
        key
    }
}
