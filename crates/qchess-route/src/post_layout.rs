//! Re-placing a routed circuit (VF2PostLayout's idea): the physical qubits a routed circuit uses
//! and the couplers its CX use form a graph; any other placement of that graph onto the device
//! with every edge on a working coupler runs the same circuit, so the cheapest one found by
//! [`crate::vf2`] (scored by the calibrated errors of the gates and measurements it places)
//! replaces the routing's own when it is cheaper.
//!
//! This runs on the CX form after routing, before translation to the native gate, so that a
//! directed gate set (ECR) can still turn any CX around; [`relabel`] moves the program and the
//! layouts together.

use std::collections::HashMap;

use crate::cost::Costs;
use crate::program::{Instr, Program};
use crate::target::Target;
use crate::vf2::{Pattern, place};

/// Search steps the re-placement may take.
const STEPS: usize = 20_000;

/// The graph of a routed program (CX and one-qubit gates, measurements and resets over physical
/// qubits) and of the qubits holding its layouts, as a [`Pattern`] over the physical qubits it
/// lists (in increasing order); `None` if the program holds anything else.
fn pattern_of(program: &Program, holding: &[u32], target: &Target) -> Option<(Vec<u32>, Pattern)> {
    let mut qubits: Vec<u32> = program
        .instrs
        .iter()
        .flat_map(|i| {
            let (a, b) = i.qubits();
            std::iter::once(a).chain(b)
        })
        .chain(holding.iter().copied())
        .filter(|&q| q < target.num_qubits)
        .collect();
    qubits.sort_unstable();
    qubits.dedup();
    let index: HashMap<u32, u32> = qubits.iter().enumerate().map(|(i, &q)| (q, i as u32)).collect();
    let mut pattern = Pattern::new(qubits.len() as u32);
    for instr in &program.instrs {
        match *instr {
            // A CX is one native gate, and usually a one-qubit gate or two around it.
            Instr::Cx { control, target: t } => {
                pattern.add_edge(index[&control], index[&t], 1.0);
                pattern.ones[index[&t] as usize] += 1.0;
            }
            Instr::One { qubit, .. } => pattern.ones[index[&qubit] as usize] += 1.5,
            Instr::Measure { qubit, .. } => pattern.measures[index[&qubit] as usize] += 1.0,
            Instr::Reset { .. } => {}
            _ => return None,
        }
    }
    Some((qubits, pattern))
}

/// What a routed program (CX and one-qubit gates, measurements and resets over physical qubits,
/// with the qubits holding its layouts) is expected to cost where it is: the sum of
/// `-ln(1 - e)` over its gates and measurements, as the re-placement search scores it.
pub fn expected_cost(program: &Program, holding: &[u32], target: &Target, costs: &Costs) -> f64 {
    pattern_of(program, holding, target).map_or(f64::INFINITY, |(qubits, pattern)| pattern.cost(costs, &qubits))
}

/// A cheaper placement of the physical qubits of `program` (CX and one-qubit gates, measurements
/// and resets over physical qubits), and of the qubits holding the layouts `holding`, if one is
/// found: the map from each old physical qubit to its new one.
pub fn cheaper_placement(
    program: &Program,
    holding: &[u32],
    target: &Target,
    costs: &Costs,
) -> Option<HashMap<u32, u32>> {
    let (qubits, pattern) = pattern_of(program, holding, target)?;
    let current = pattern.cost(costs, &qubits);
    if !current.is_finite() {
        return None;
    }
    let (placement, cost) = place(&pattern, target, costs, current * (1.0 - 1e-9), STEPS)?;
    (cost < current).then(|| qubits.iter().zip(placement).map(|(&old, new)| (old, new)).collect())
}

/// `program` and the layouts moved by `map` (old physical qubit to new; others unchanged).
pub fn relabel(
    program: &Program,
    initial: &[Option<u32>],
    final_layout: &[u32],
    map: &HashMap<u32, u32>,
) -> (Program, Vec<Option<u32>>, Vec<u32>) {
    let moved = |q: u32| map.get(&q).copied().unwrap_or(q);
    let program = Program { instrs: program.instrs.iter().map(|i| i.remapped(moved)).collect(), ..program.clone() };
    let initial = initial.iter().map(|p| p.map(moved)).collect();
    let final_layout = final_layout.iter().map(|&p| moved(p)).collect();
    (program, initial, final_layout)
}
