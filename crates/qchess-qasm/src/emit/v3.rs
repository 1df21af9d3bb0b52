//! OpenQASM 3 gate calls: the base gate under `ctrl @` / `negctrl @` modifiers.

use qchess_circuit::ir::Gate;

use super::library::base_call;
use super::{Definitions, qubit_operand};
use crate::ast::{GateCall, Modifier, Version};

/// The call for `gate`, adding the library definitions it needs.
pub(super) fn gate_calls(gate: &Gate, definitions: &mut Definitions) -> Vec<GateCall> {
    let (name, args) = base_call(gate.kind, Version::V3);
    definitions.require_library(&name, Version::V3);
    // One modifier per run of controls with the same polarity keeps the operand order.
    let mut modifiers: Vec<Modifier> = Vec::new();
    for control in &gate.controls {
        match (modifiers.last_mut(), control.on) {
            (Some(Modifier::Ctrl(n)), true) | (Some(Modifier::NegCtrl(n)), false) => *n += 1,
            (_, true) => modifiers.push(Modifier::Ctrl(1)),
            (_, false) => modifiers.push(Modifier::NegCtrl(1)),
        }
    }
    let qubits = gate.controls.iter().map(|c| c.qubit).chain(gate.targets.iter().copied()).map(qubit_operand);
    vec![GateCall::new(name, qubits).with_args(args).with_modifiers(modifiers)]
}
