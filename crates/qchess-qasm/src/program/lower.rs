//! A [`Program`] lowered into an IR [`Circuit`].
//!
//! Each call expands to IR gates and a global phase: the built-in `U` and `gphase`, a gate of
//! the program's library ([`gates`](super::gates)), or a defined gate from its body. Modifiers
//! then apply from the innermost out: `inv` reverses and inverts the expansion, `pow(k)` repeats
//! it (integer `k`; a negative one repeats the inverse), `ctrl`/`negctrl` add controls to every
//! gate and turn the accumulated global phase into a phase gate on the controls. A top-level
//! global phase has no effect on results and is dropped.

use qchess_circuit::ir::{Circuit, ClassicalRegister, Clbit, Condition, Control, Gate, GateKind, Op, Qubit, QubitRole};
use smallvec::SmallVec;

use super::gates::{self, GateLibrary, Piece};
use super::{BitTest, BodyStatement, GateCall, Modifier, Operation, Origin, Program};
use crate::classical::{Env, Slot, Value};

/// How deep gate definitions may call each other.
const MAX_CALL_DEPTH: usize = 256;

/// Why a program could not be lowered: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct LowerError {
    /// The instruction (or statement of a definition) at fault.
    pub origin: Origin,
    /// What is wrong.
    pub message: String,
    /// Whether the construct is one the IR's circuits cannot hold but a run step by step can
    /// (a [`Machine`](crate::machine::Machine)): a conditional measurement or reset, a
    /// discarded measurement, an `else` on several bits.
    pub dynamic: bool,
}

/// IR gates and the global phase they carry.
#[derive(Debug, Default)]
struct Expansion {
    gates: Vec<Gate>,
    phase: f64,
}

struct Lowering<'p> {
    program: &'p Program,
    max_operations: usize,
    /// Operations emitted so far (bounds runaway `pow` and nesting).
    emitted: usize,
}

impl Program {
    /// The program as an IR circuit of at most `max_operations` operations: each call expands
    /// to exact IR gates (library gates, `U`, `gphase`, or a definition's body), modifiers apply
    /// from the innermost out, and a controlled global phase becomes a phase gate on the
    /// controls; barriers, delays and the top-level global phase are dropped.
    pub fn to_circuit(&self, max_operations: usize) -> Result<Circuit, LowerError> {
        let mut circuit = Circuit::new();
        for name in &self.qubits {
            circuit.add_named_qubit(QubitRole::General, name.clone());
        }
        circuit.clbits = self.clbits;
        circuit.registers = self.registers.clone();
        let mut lowering = Lowering { program: self, max_operations, emitted: 0 };
        for instruction in &self.body {
            let fail = |message: String| LowerError { origin: instruction.origin.clone(), message, dynamic: false };
            let condition = match &instruction.condition {
                Some(test) => Some(condition(&mut circuit, test).map_err(|m| LowerError { dynamic: true, ..fail(m) })?),
                None => None,
            };
            let simple = |op: Op, lowering: &mut Lowering, circuit: &mut Circuit| {
                if condition.is_some() {
                    let message = "a measurement or reset under a condition cannot be simulated here".to_string();
                    return Err(LowerError { dynamic: true, ..fail(message) });
                }
                lowering.count(1).map_err(fail)?;
                circuit.ops.push(op);
                Ok(())
            };
            match &instruction.operation {
                Operation::Gate(call) => {
                    let qubits: Vec<Qubit> = call.qubits.iter().map(|&q| Qubit(q)).collect();
                    let expansion = lowering.call(call, &qubits, &instruction.origin, 0)?;
                    for gate in expansion.gates {
                        circuit.ops.push(Op::Gate { gate, condition });
                    }
                }
                Operation::Measure { qubit, clbit: Some(clbit) } => {
                    simple(Op::Measure { qubit: Qubit(*qubit), clbit: Clbit(*clbit) }, &mut lowering, &mut circuit)?;
                }
                Operation::Measure { clbit: None, .. } => {
                    let message = "a measurement whose result is discarded cannot be simulated here".to_string();
                    return Err(LowerError { dynamic: true, ..fail(message) });
                }
                Operation::Reset { qubit } => simple(Op::Reset { qubit: Qubit(*qubit) }, &mut lowering, &mut circuit)?,
                Operation::Barrier { .. } | Operation::Delay { .. } => {}
            }
        }
        Ok(circuit)
    }
}

impl Program {
    /// The IR gates of one call (its modifiers applied), for running it directly; a global
    /// phase left at the top has no effect and is dropped. `max_operations` bounds the
    /// expansion.
    pub(crate) fn expand(
        &self,
        call: &GateCall,
        origin: &Origin,
        max_operations: usize,
    ) -> Result<Vec<Gate>, LowerError> {
        let mut lowering = Lowering { program: self, max_operations, emitted: 0 };
        let qubits: Vec<Qubit> = call.qubits.iter().map(|&q| Qubit(q)).collect();
        Ok(lowering.call(call, &qubits, origin, 0)?.gates)
    }
}

/// The IR condition of a test: `==` over a contiguous run of bits, or either test on one bit.
/// A run that is not a register of the circuit gets one (named after its bits).
fn condition(circuit: &mut Circuit, test: &BitTest) -> Result<Condition, String> {
    let (value, bits) = match (test.equal, test.bits.as_slice()) {
        (true, bits) => (test.value, bits),
        (false, [bit]) => (u64::from(test.value == 0), std::slice::from_ref(bit)),
        (false, _) => {
            return Err("a `!=` test (an `else`) on a register of several bits cannot be simulated here".into());
        }
    };
    let Some(&start) = bits.first() else {
        return Err("a condition on no bits".into());
    };
    if bits.iter().enumerate().any(|(i, &b)| b != start + i as u32) || bits.len() > 64 {
        return Err("a condition on bits that are not one run of at most 64 cannot be simulated here".into());
    }
    let len = bits.len() as u32;
    let register = match circuit.registers.iter().position(|r| r.start == start && r.len == len) {
        Some(index) => index,
        None => {
            let name = if len == 1 { format!("bit {start}") } else { format!("bits {start}..{}", start + len - 1) };
            circuit.registers.push(ClassicalRegister { name, start, len });
            circuit.registers.len() - 1
        }
    };
    Ok(Condition { register, value })
}

impl Lowering<'_> {
    fn count(&mut self, more: usize) -> Result<(), String> {
        self.emitted = self.emitted.saturating_add(more);
        if self.emitted > self.max_operations {
            return Err(format!("the circuit expands to more than {} operations", self.max_operations));
        }
        Ok(())
    }

    /// Expands one call (modifiers included) on `qubits`.
    fn call(
        &mut self,
        call: &GateCall,
        qubits: &[Qubit],
        origin: &Origin,
        depth: usize,
    ) -> Result<Expansion, LowerError> {
        let fail = |message: String| LowerError { origin: origin.clone(), message, dynamic: false };
        if depth > MAX_CALL_DEPTH {
            return Err(fail(format!("gate definitions nest more than {MAX_CALL_DEPTH} deep")));
        }
        if let Some(repeated) = qubits.iter().enumerate().find(|(k, q)| qubits[..*k].contains(q)).map(|(_, q)| q) {
            let name = self.program.qubits.get(repeated.index()).map_or("a qubit", String::as_str);
            return Err(fail(format!("`{}` is applied to {name} twice", show(&call.name))));
        }
        let controls: usize =
            call.modifiers.iter().map(|m| if let Modifier::Ctrl { count, .. } = m { *count as usize } else { 0 }).sum();
        if controls > qubits.len() {
            return Err(fail(format!(
                "`{}` has {} control modifiers but {} operands",
                show(&call.name),
                controls,
                qubits.len()
            )));
        }
        let (control_qubits, own) = qubits.split_at(controls);
        let mut expansion = self.base(&call.name, &call.params, own, origin, depth)?;
        // Each ctrl modifier takes its operands from the front, outermost first.
        let mut next_control = controls;
        for modifier in call.modifiers.iter().rev() {
            expansion = match *modifier {
                Modifier::Inv => inverse(expansion),
                Modifier::Pow(k) => self.power(expansion, k).map_err(fail)?,
                Modifier::Ctrl { count, on } => {
                    let first = next_control - count as usize;
                    let added: Vec<Control> =
                        control_qubits[first..next_control].iter().map(|&qubit| Control { qubit, on }).collect();
                    next_control = first;
                    control(expansion, &added)
                }
            };
        }
        self.count(expansion.gates.len()).map_err(fail)?;
        Ok(expansion)
    }

    /// The expansion of a gate without modifiers.
    fn base(
        &mut self,
        name: &str,
        params: &[f64],
        qubits: &[Qubit],
        origin: &Origin,
        depth: usize,
    ) -> Result<Expansion, LowerError> {
        let fail = |message: String| LowerError { origin: origin.clone(), message, dynamic: false };
        let shape = |want_params: usize, want_qubits: usize| {
            if params.len() != want_params || qubits.len() != want_qubits {
                Err(fail(format!(
                    "`{}` takes {want_params} parameters and {want_qubits} qubits, not {} and {}",
                    show(name),
                    params.len(),
                    qubits.len()
                )))
            } else {
                Ok(())
            }
        };
        if let Some(definition) = self.program.definitions.get(name) {
            shape(definition.params.len(), definition.num_qubits)?;
            let mut expansion = Expansion::default();
            for statement in &definition.body {
                let BodyStatement::Call { name: callee, params: exprs, qubits: slots, modifiers, origin: at } =
                    statement;
                let frame = Params(params.iter().map(|&x| Value::Float(x)).collect());
                let values = exprs
                    .iter()
                    .map(|e| {
                        let value = e.evaluate(&frame).map_err(|(_, m)| m)?.as_f64(64).unwrap_or(f64::NAN);
                        finite(value)
                    })
                    .collect::<Result<Vec<f64>, String>>()
                    .map_err(|message| LowerError { origin: at.clone(), message, dynamic: false })?;
                let operands: Vec<Qubit> = slots.iter().map(|&s| qubits[s]).collect();
                let inner =
                    GateCall { name: callee.clone(), params: values, qubits: Vec::new(), modifiers: modifiers.clone() };
                let part = self.call(&inner, &operands, at, depth + 1)?;
                expansion.gates.extend(part.gates);
                expansion.phase += part.phase;
            }
            return Ok(expansion);
        }
        match name {
            "U" => {
                shape(3, 1)?;
                return Ok(Expansion {
                    gates: vec![Gate::one(GateKind::U(params[0], params[1], params[2]), qubits[0])],
                    phase: 0.0,
                });
            }
            "gphase" => {
                shape(1, 0)?;
                return Ok(Expansion { gates: Vec::new(), phase: params[0] });
            }
            _ => {}
        }
        if let Some(known) = gates::standard_gate(name, self.program.library) {
            shape(known.params, known.qubits)?;
            let pieces = gates::expand(name, params, self.program.library).unwrap_or_default();
            let mut expansion = Expansion::default();
            for piece in pieces {
                match piece {
                    Piece::Phase(angle) => expansion.phase += angle,
                    Piece::Gate { kind, targets, controls } => {
                        let gate = Gate {
                            kind,
                            targets: targets.iter().map(|&t| qubits[t]).collect(),
                            controls: controls.iter().map(|&(c, on)| Control { qubit: qubits[c], on }).collect(),
                        };
                        expansion.gates.push(gate);
                    }
                }
            }
            return Ok(expansion);
        }
        let hint = match (gates::standard_gate(name, GateLibrary::Qiskit), self.program.library) {
            (Some(_), GateLibrary::Core) => " (is `include \"stdgates.inc\";` missing?)",
            (Some(_), GateLibrary::Stdgates) => " (it is not in stdgates.inc: define it with `gate`)",
            _ => "",
        };
        Err(fail(format!("undefined gate `{}`{hint}", show(name))))
    }

    /// `expansion` to the power `k`.
    fn power(&mut self, expansion: Expansion, k: f64) -> Result<Expansion, String> {
        if k.fract() != 0.0 || !k.is_finite() {
            return Err(format!("`pow({k})` is not supported: only integer powers are"));
        }
        let base = if k < 0.0 { inverse(expansion) } else { expansion };
        let times = k.abs();
        let total = times * base.gates.len() as f64;
        if total > (self.max_operations.saturating_sub(self.emitted)) as f64 {
            return Err(format!("the circuit expands to more than {} operations", self.max_operations));
        }
        let times = times as usize;
        let mut gates = Vec::with_capacity(base.gates.len() * times);
        for _ in 0..times {
            gates.extend(base.gates.iter().cloned());
        }
        Ok(Expansion { gates, phase: base.phase * times as f64 })
    }
}

/// A gate definition's parameters, as the variables its parameter expressions read.
struct Params(Vec<Value>);

impl Env for Params {
    fn read(&self, slot: Slot) -> &Value {
        &self.0[slot.index as usize]
    }
}

/// `value` if it is a finite number.
pub(crate) fn finite(value: f64) -> Result<f64, String> {
    if value.is_finite() { Ok(value) } else { Err(format!("the expression evaluates to {value}, not a finite number")) }
}

/// The inverse expansion: gates reversed and inverted, the phase negated.
fn inverse(expansion: Expansion) -> Expansion {
    Expansion { gates: expansion.gates.iter().rev().map(Gate::inverse).collect(), phase: -expansion.phase }
}

/// Every gate of `expansion` under the `added` controls, and its global phase as a phase gate
/// on them.
fn control(expansion: Expansion, added: &[Control]) -> Expansion {
    let mut gates: Vec<Gate> = Vec::with_capacity(expansion.gates.len() + 3);
    if expansion.phase != 0.0 && !added.is_empty() {
        // The phase applies where every control holds: a phase gate on one of them, under the others.
        let (target, others) = match added.iter().position(|c| c.on) {
            Some(i) => (added[i], added.iter().enumerate().filter(|&(k, _)| k != i).map(|(_, c)| *c).collect()),
            None => (added[0], added[1..].to_vec()),
        };
        let phase = Gate {
            kind: GateKind::Phase(expansion.phase),
            targets: SmallVec::from_slice(&[target.qubit]),
            controls: others.into_iter().collect(),
        };
        if target.on {
            gates.push(phase);
        } else {
            gates.push(Gate::x(target.qubit));
            gates.push(phase);
            gates.push(Gate::x(target.qubit));
        }
    }
    gates.extend(expansion.gates.into_iter().map(|gate| gate.with_controls(added.iter().copied())));
    let phase = if added.is_empty() { expansion.phase } else { 0.0 };
    Expansion { gates, phase }
}

fn show(name: &str) -> String {
    qchess_core::text::excerpt(name)
}
