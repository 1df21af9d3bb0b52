//! A program whose classical layer is settled before it runs, recorded as a static
//! [`Program`]: loops unrolled, subroutines inlined, classical values computed, measurements
//! into global bit registers kept as measurements, and an `if` on measured bits whose branches
//! only apply quantum operations kept as conditions on those bits. A program that reads a
//! measurement result any other way is dynamic: it runs on a simulator as it goes, and
//! [`Dynamic`] says where it first needs to.

use std::sync::Arc;

use super::code::{Code, Instr};
use super::memory::Target;
use super::vm::{Effect, Failure, Vm};
use crate::classical::{BinaryOp, Expr, ExprKind, Selector, Type, UnaryOp, Value};
use crate::parse::{Limits, QasmError};
use crate::program::{BitTest, Duration, Instruction, Modifier, Operation, Origin, Program};

/// Why a program is not static, and where that shows first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dynamic {
    /// The place.
    pub origin: Origin,
    /// Why.
    pub reason: String,
    /// Whether it ran into a bound (steps, operations) rather than reading a measurement.
    pub bound: bool,
}

/// A qubit number that stands for no qubit: a measurement whose qubit was used again, whose
/// outcome stays a circuit bit.
const DETACHED: u32 = u32::MAX;

/// A failure of the running program as an error placed in its source.
pub(crate) fn placed(code: &Code, failure: Failure) -> QasmError {
    QasmError::placed(code.origin(failure.pc, failure.offset), failure.message)
}

struct Recorder<'c> {
    code: &'c Arc<Code>,
    program: Program,
    condition: Option<BitTest>,
    limits: &'c Limits,
}

/// The static program `code` records, or why it is dynamic.
pub(crate) fn unroll(code: &Arc<Code>, limits: &Limits) -> Result<Result<Program, Dynamic>, QasmError> {
    let mut program = code.shell.clone();
    program.body.clear();
    if code.declared_outputs {
        let origin = code.origin(0, None);
        return Ok(Err(Dynamic { origin, reason: "the program declares `output`s".into(), bound: false }));
    }
    let mut recorder = Recorder { code, program, condition: None, limits };
    let mut vm = Vm::new(Arc::clone(code), limits.max_steps);
    match recorder.run(&mut vm, None)? {
        Some(dynamic) => Ok(Err(dynamic)),
        None => Ok(Ok(recorder.program)),
    }
}

impl Recorder<'_> {
    fn dynamic(&self, pc: usize, reason: &str) -> Option<Dynamic> {
        Some(Dynamic { origin: self.code.origin(pc, None), reason: reason.into(), bound: false })
    }

    /// Runs until the end (or, with `until`, until the program reaches that instruction with
    /// nothing left to record); `Some` when the program turns out dynamic.
    fn run(&mut self, vm: &mut Vm, until: Option<usize>) -> Result<Option<Dynamic>, QasmError> {
        loop {
            if until.is_some_and(|end| vm.pc >= end && !vm.has_effects()) {
                return Ok(None);
            }
            let pc = vm.pc;
            let effect = match vm.step() {
                Ok(effect) => effect,
                // Past a bound on running, the program is no static circuit; a run step by step
                // meets the same bound and says so as the runtime failure it is.
                Err(failure) if failure.limit => {
                    let origin = self.code.origin(failure.pc, None);
                    return Ok(Some(Dynamic { origin, reason: failure.message, bound: true }));
                }
                Err(failure) => return Err(placed(self.code, failure)),
            };
            if vm.memory.overwrote {
                return Ok(self.dynamic(pc, "an assignment overwrites a measured bit"));
            }
            let origin = self.code.origin(pc, None);
            let operation = match effect {
                Effect::Done => return Ok(None),
                Effect::Continue => continue,
                Effect::Gate(call) => {
                    if call.name == "gphase" && call.qubits.is_empty() {
                        // A global phase alone changes no result.
                        let sign = call.modifiers.iter().filter(|m| matches!(m, Modifier::Inv)).count() % 2;
                        let times: f64 =
                            call.modifiers.iter().map(|m| if let Modifier::Pow(k) = m { *k } else { 1.0 }).product();
                        let angle = call.params.first().copied().unwrap_or(0.0);
                        self.program.global_phase += if sign == 1 { -angle } else { angle } * times;
                        continue;
                    }
                    Operation::Gate(call)
                }
                Effect::Measured { qubit, target } => match target.map(|t| self.clbit(t)) {
                    None => Operation::Measure { qubit, clbit: None },
                    Some(Some(clbit)) => Operation::Measure { qubit, clbit: Some(clbit) },
                    Some(None) => {
                        return Ok(self.dynamic(pc, "a measurement into a variable other than a global bit register"));
                    }
                },
                Effect::Reset(qubit) => Operation::Reset { qubit },
                Effect::Barrier(qubits) => Operation::Barrier { qubits },
                Effect::Delay(qubits, d) => {
                    let duration = match (d.seconds, d.dt) {
                        (s, 0.0) => Duration::Seconds(s),
                        (0.0, dt) => Duration::Dt(dt),
                        _ => return Ok(self.dynamic(pc, "a delay that mixes seconds and `dt`")),
                    };
                    Operation::Delay { qubits, duration }
                }
                Effect::Force(qubit) => {
                    if qubit != DETACHED && matches!(self.code.instrs[vm.pc], Instr::Gate(_) | Instr::Reset(_)) {
                        // The qubit is used again: its measurement stays a circuit measurement.
                        vm.detach(qubit, DETACHED);
                        continue;
                    }
                    if self.condition.is_none()
                        && let Some(done) = self.conditional(vm)?
                    {
                        if let Some(dynamic) = done {
                            return Ok(Some(dynamic));
                        }
                        continue;
                    }
                    return Ok(self.dynamic(vm.pc, "this reads a measurement result while the program runs"));
                }
            };
            if self.program.body.len() >= self.limits.max_operations {
                let reason = format!("the program has more than {} operations", self.limits.max_operations);
                return Ok(Some(Dynamic { origin: self.code.origin(pc, None), reason, bound: true }));
            }
            self.program.body.push(Instruction { operation, condition: self.condition.clone(), origin });
        }
    }

    /// The circuit bit a measurement target is, if it is a bit of a global bit register.
    fn clbit(&self, target: Target) -> Option<u32> {
        if target.frame != 0 {
            return None;
        }
        let register = self.code.registers.iter().find(|r| r.slot == target.slot)?;
        Some(register.start + target.bit)
    }

    /// An `if` at `vm.pc` on measured bits whose branches only apply quantum operations,
    /// recorded under conditions. `None` when it is not one; `Some(Some(..))` when a branch
    /// turns out dynamic.
    fn conditional(&mut self, vm: &mut Vm) -> Result<Option<Option<Dynamic>>, QasmError> {
        let pc = vm.pc;
        let Instr::Branch { condition, otherwise, end } = &self.code.instrs[pc] else { return Ok(None) };
        let (otherwise, end) = (*otherwise, *end);
        let Some(test) = self.bit_test(condition, vm) else { return Ok(None) };
        let then_end = if otherwise != end { otherwise - 1 } else { otherwise };
        let quantum = |range: std::ops::Range<usize>| {
            self.code.instrs[range].iter().all(|i| {
                matches!(
                    i,
                    Instr::Gate(_) | Instr::Measure { .. } | Instr::Reset(_) | Instr::Barrier(_) | Instr::Delay { .. }
                )
            })
        };
        if !quantum(pc + 1..then_end) || !quantum(otherwise..end) {
            return Ok(None);
        }
        let negated = BitTest { equal: !test.equal, ..test.clone() };
        for (start, stop, test) in [(pc + 1, then_end, test), (otherwise, end, negated)] {
            vm.pc = start;
            self.condition = Some(test);
            let result = self.run(vm, Some(stop));
            self.condition = None;
            if let Some(dynamic) = result? {
                return Ok(Some(Some(dynamic)));
            }
        }
        vm.pc = end;
        Ok(Some(None))
    }

    /// The test on circuit bits `condition` is, if it is one: a bit, its negation, or bits
    /// compared with a constant for (in)equality.
    fn bit_test(&self, condition: &Expr, vm: &Vm) -> Option<BitTest> {
        match &condition.kind {
            ExprKind::Convert(inner) if condition.ty == Type::Bool => self.bit_test(inner, vm),
            ExprKind::Unary(UnaryOp::Not, inner) => {
                let (bits, _) = self.circuit_bits(inner, vm)?;
                (bits.len() == 1).then_some(BitTest { bits, value: 0, equal: true })
            }
            ExprKind::Binary(op @ (BinaryOp::Eq | BinaryOp::Ne), _, left, right) => {
                let (bits, signed, constant) = match (self.circuit_bits(left, vm), self.circuit_bits(right, vm)) {
                    (Some((bits, signed)), None) => (bits, signed, right),
                    (None, Some((bits, signed))) => (bits, signed, left),
                    _ => return None,
                };
                let value = match constant.constant()? {
                    Value::Int(v) => *v,
                    Value::Bool(b) => i128::from(*b),
                    _ => return None,
                };
                let n = bits.len() as u32;
                if n == 0 || n > 64 {
                    return None;
                }
                let (low, high) = if signed { (-(1i128 << (n - 1)), 1i128 << (n - 1)) } else { (0, 1i128 << n) };
                if value < low || value >= high {
                    return None;
                }
                Some(BitTest { bits, value: value.rem_euclid(1i128 << n) as u64, equal: *op == BinaryOp::Eq })
            }
            _ => {
                let (bits, _) = self.circuit_bits(condition, vm)?;
                (bits.len() == 1).then_some(BitTest { bits, value: 1, equal: true })
            }
        }
    }

    /// The circuit bits an expression reads, and whether it reads them as a signed integer:
    /// bits of a global register that the circuit holds (measured, or never set otherwise).
    fn circuit_bits(&self, expr: &Expr, vm: &Vm) -> Option<(Vec<u32>, bool)> {
        let (inner, signed) = match &expr.kind {
            ExprKind::Convert(inner) => {
                let signed = matches!(expr.ty, Type::Int(Some(n)) if Some(n) == inner.ty.bit_width());
                (&**inner, signed)
            }
            _ => (expr, false),
        };
        let (slot, picked) = match &inner.kind {
            ExprKind::Read(slot) => (*slot, None),
            ExprKind::Select { base, selectors, .. } => match (&base.kind, selectors.as_slice()) {
                (ExprKind::Read(slot), [selector]) => (*slot, Some(selector)),
                _ => return None,
            },
            _ => return None,
        };
        if !slot.global {
            return None;
        }
        let register = self.code.registers.iter().find(|r| r.slot == slot.index)?;
        let positions: Vec<usize> = match picked {
            None => (0..register.len as usize).collect(),
            Some(selector @ (Selector::One(_) | Selector::Set(_) | Selector::Range { .. })) => {
                crate::classical::expr::indices(selector, register.len as usize, "", &vm.memory).ok()?
            }
        };
        let value = vm.memory.read_bits(slot);
        for &bit in &positions {
            let here = Target { frame: 0, slot: slot.index, bit: bit as u32 };
            let measured = vm.memory.pending.iter().any(|p| p.target == Some(here));
            if !measured && value.get(bit).copied().unwrap_or(true) {
                // Set by the program, not by a measurement: the circuit bit would not hold it.
                return None;
            }
        }
        Some((positions.into_iter().map(|b| register.start + b as u32).collect(), signed))
    }
}
