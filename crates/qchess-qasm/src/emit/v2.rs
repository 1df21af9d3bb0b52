//! OpenQASM 2 gate calls: no modifiers, so anti-controls are X conjugations and controlled
//! gates are either in `qelib1.inc` or defined in the file from their exact lowering.

use std::f64::consts::PI;

use qchess_circuit::ir::{Control, Gate, GateKind, Qubit};

use super::library::base_call;
use super::{Definitions, qubit_operand};
use crate::ast::{Expr, GateCall, GateDefinition, Operand, Version};
use crate::lower::{GateSet, LowerError, lower_gate};

/// The calls for `gate` (X conjugations included), adding the definitions they need.
pub(super) fn gate_calls(gate: &Gate, definitions: &mut Definitions) -> Result<Vec<GateCall>, LowerError> {
    let flips: Vec<GateCall> =
        gate.controls.iter().filter(|c| !c.on).map(|c| GateCall::new("x", [qubit_operand(c.qubit)])).collect();
    let controls: Vec<Qubit> = gate.controls.iter().map(|c| c.qubit).collect();
    let operands: Vec<Operand> = controls.iter().chain(gate.targets.iter()).map(|&q| qubit_operand(q)).collect();
    let core = match qelib1_controlled(gate.kind, controls.len()) {
        Some((name, args)) => {
            definitions.require_library(&name, Version::V2);
            GateCall::new(name, operands).with_args(args)
        }
        None => {
            let name = controlled_definition(gate.kind, controls.len(), definitions)?;
            GateCall::new(name, operands)
        }
    };
    let mut calls = flips.clone();
    calls.push(core);
    calls.extend(flips);
    Ok(calls)
}

/// The `qelib1.inc` gate for `kind` under `controls` controls, when there is one.
fn qelib1_controlled(kind: GateKind, controls: usize) -> Option<(String, Vec<Expr>)> {
    use GateKind::*;
    let phase = |angle: f64| Some(("cu1".to_string(), vec![Expr::angle(angle)]));
    match (controls, kind) {
        (0, _) => Some(base_call(kind, Version::V2)),
        (1, X) => Some(("cx".into(), vec![])),
        (1, Y) => Some(("cy".into(), vec![])),
        (1, Z) => Some(("cz".into(), vec![])),
        (1, H) => Some(("ch".into(), vec![])),
        (1, Rz(a)) => Some(("crz".into(), vec![Expr::angle(a)])),
        (1, Phase(a)) => phase(a),
        (1, S) => phase(PI / 2.0),
        (1, Sdg) => phase(-PI / 2.0),
        (1, T) => phase(PI / 4.0),
        (1, Tdg) => phase(-PI / 4.0),
        (2, X) => Some(("ccx".into(), vec![])),
        _ => None,
    }
}

/// Defines `kind` under `controls` positive controls (if not yet defined) and returns its name:
/// `c2_iswap`, or `c1_rx_0` for a parameterised kind (numbered per distinct parameter values).
fn controlled_definition(kind: GateKind, controls: usize, definitions: &mut Definitions) -> Result<String, LowerError> {
    let (base, args) = base_call(kind, Version::V2);
    let name = if args.is_empty() {
        format!("c{controls}_{base}")
    } else {
        let values: Vec<String> = kind.parameters().iter().map(|p| p.to_string()).collect();
        let key = format!("c{controls}_{base}({})", values.join(","));
        if let Some(name) = definitions.numbered.get(&key) {
            return Ok(name.clone());
        }
        let name = format!("c{controls}_{base}_{}", definitions.numbered.len());
        definitions.numbered.insert(key, name.clone());
        name
    };
    if definitions.has(&name) {
        return Ok(name);
    }
    // Formal qubits: controls c0.., then a (and b) for the targets.
    let formal_names: Vec<String> = (0..controls)
        .map(|i| format!("c{i}"))
        .chain(["a", "b"].into_iter().take(kind.arity()).map(String::from))
        .collect();
    let gate = Gate {
        kind,
        targets: (controls..controls + kind.arity()).map(|i| Qubit(i as u32)).collect(),
        controls: (0..controls).map(|i| Control { qubit: Qubit(i as u32), on: true }).collect(),
    };
    let body = lower_gate(&gate, GateSet::CxSingleQubit)?
        .into_iter()
        .map(|g| {
            let operands = g
                .controls
                .iter()
                .map(|c| c.qubit)
                .chain(g.targets.iter().copied())
                .map(|q| Operand::name(formal_names[q.index()].clone()));
            let (name, args) =
                if g.controls.is_empty() { uncontrolled_in_body(g.kind) } else { ("cx".to_string(), vec![]) };
            GateCall::new(name, operands).with_args(args)
        })
        .collect();
    let shown: Vec<String> = kind.parameters().iter().map(|p| p.to_string()).collect();
    let description = if args.is_empty() { base.clone() } else { format!("{base}({})", shown.join(", ")) };
    let comment = format!("{name}: {description} with {controls} control(s), controls first");
    definitions.add(Some(comment), GateDefinition { name: name.clone(), params: vec![], qubits: formal_names, body });
    Ok(name)
}

/// A one-qubit gate inside a definition body, in `qelib1.inc` gates only (up to global phase,
/// which is harmless for an uncontrolled gate in a body).
fn uncontrolled_in_body(kind: GateKind) -> (String, Vec<Expr>) {
    let u3 = |theta: f64, phi: f64, lambda: f64| {
        ("u3".to_string(), vec![Expr::angle(theta), Expr::angle(phi), Expr::angle(lambda)])
    };
    match kind {
        GateKind::Sx => u3(PI / 2.0, -PI / 2.0, PI / 2.0),
        GateKind::Sxdg => u3(PI / 2.0, PI / 2.0, -PI / 2.0),
        other => base_call(other, Version::V2),
    }
}
