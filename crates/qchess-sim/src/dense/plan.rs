//! Checking a circuit and deciding how each operation runs.
//!
//! A measurement is *deferrable* when nothing after it can tell whether it happened: no later
//! operation touches its qubit, no condition reads its bit and no other measurement writes
//! that bit. Deferrable measurements are read from the final state instead of collapsing it,
//! which lets a circuit that only measures at the end be simulated once and then sampled.

use qchess_circuit::ir::{Circuit, Op};

use super::error::DenseError;

/// How one operation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// An unconditional gate.
    Gate,
    /// A gate under a classical condition: needs the bits of one run.
    ConditionalGate,
    /// A measurement read from the final state.
    DeferredMeasure,
    /// A measurement of a post-selected bit: the run must read `value`.
    Postselect {
        /// The required outcome.
        value: bool,
    },
    /// A measurement whose outcome matters later in the run.
    Measure,
    /// A reset.
    Reset,
}

impl Step {
    /// Whether the step needs the random outcomes of one run (a trajectory) to be simulated.
    pub(crate) fn is_dynamic(self) -> bool {
        matches!(self, Step::ConditionalGate | Step::Measure | Step::Reset)
    }
}

/// The steps of a checked circuit.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// One step per operation.
    pub(crate) steps: Vec<Step>,
    /// Index of the first dynamic step (`steps.len()` when there is none).
    pub(crate) first_dynamic: usize,
    /// Whether the circuit has any measurement at all.
    pub(crate) measures: bool,
}

impl Plan {
    /// Whether any step needs a trajectory.
    pub(crate) fn is_dynamic(&self) -> bool {
        self.first_dynamic < self.steps.len()
    }
}

fn invalid(op: usize, reason: impl Into<String>) -> DenseError {
    DenseError::InvalidCircuit { op, reason: reason.into() }
}

/// Checks every operation, register and post-selection of `circuit` and plans its steps.
pub(crate) fn plan(circuit: &Circuit) -> Result<Plan, DenseError> {
    let num_qubits = circuit.num_qubits();
    let clbits = circuit.clbits as usize;
    let end = circuit.ops.len();
    for (index, register) in circuit.registers.iter().enumerate() {
        if u64::from(register.start) + u64::from(register.len) > clbits as u64 {
            return Err(invalid(
                end,
                format!("register {index} ({}) ends past the {clbits} classical bits", register.name),
            ));
        }
    }

    // Which bits some condition reads, and how many measurements write each bit.
    let mut read_by_condition = vec![false; clbits];
    let mut writes = vec![0usize; clbits];
    for (op_index, op) in circuit.ops.iter().enumerate() {
        match op {
            Op::Gate { gate, condition } => {
                gate.check_shape(num_qubits).map_err(|error| invalid(op_index, error.to_string()))?;
                if let Some(condition) = condition {
                    let register = circuit.registers.get(condition.register).ok_or_else(|| {
                        invalid(op_index, format!("condition on register {}, which does not exist", condition.register))
                    })?;
                    if register.len > 64 {
                        return Err(invalid(
                            op_index,
                            format!(
                                "condition on register {} of {} bits; at most 64 can be compared",
                                register.name, register.len
                            ),
                        ));
                    }
                    let start = register.start as usize;
                    read_by_condition[start..start + register.len as usize].iter_mut().for_each(|r| *r = true);
                }
            }
            Op::Measure { qubit, clbit } => {
                if qubit.index() >= num_qubits {
                    return Err(invalid(op_index, format!("measures qubit {}, which does not exist", qubit.0)));
                }
                let slot = writes.get_mut(clbit.index()).ok_or_else(|| {
                    invalid(op_index, format!("writes classical bit {}, which does not exist", clbit.0))
                })?;
                *slot += 1;
            }
            Op::Reset { qubit } => {
                if qubit.index() >= num_qubits {
                    return Err(invalid(op_index, format!("resets qubit {}, which does not exist", qubit.0)));
                }
            }
        }
    }

    let mut postselected: Vec<Option<bool>> = vec![None; clbits];
    for selection in &circuit.postselect {
        let measured = circuit.ops.iter().any(
            |op| matches!(op, Op::Measure { qubit, clbit } if *qubit == selection.qubit && *clbit == selection.clbit),
        );
        if !measured {
            return Err(invalid(
                end,
                format!(
                    "post-selection on bit {} of qubit {}, but no operation measures that qubit into that bit",
                    selection.clbit.0, selection.qubit.0
                ),
            ));
        }
        match postselected[selection.clbit.index()] {
            Some(value) if value != selection.value => {
                return Err(invalid(end, format!("bit {} is post-selected on both 0 and 1", selection.clbit.0)));
            }
            _ => postselected[selection.clbit.index()] = Some(selection.value),
        }
    }

    // Walk backwards, tracking which qubits a later gate or reset touches. A later measurement
    // does not count: measuring again reads the same value.
    let mut touched_later = vec![false; num_qubits];
    let mut steps = vec![Step::Gate; end];
    for (op_index, op) in circuit.ops.iter().enumerate().rev() {
        steps[op_index] = match op {
            Op::Gate { gate, condition } => {
                gate.qubits().for_each(|q| touched_later[q.index()] = true);
                if condition.is_some() { Step::ConditionalGate } else { Step::Gate }
            }
            Op::Measure { qubit, clbit } => {
                let bit = clbit.index();
                if let Some(value) = postselected[bit] {
                    Step::Postselect { value }
                } else if touched_later[qubit.index()] || read_by_condition[bit] || writes[bit] > 1 {
                    Step::Measure
                } else {
                    Step::DeferredMeasure
                }
            }
            Op::Reset { qubit } => {
                touched_later[qubit.index()] = true;
                Step::Reset
            }
        };
    }

    let first_dynamic = steps.iter().position(|s| s.is_dynamic()).unwrap_or(end);
    let measures = circuit.ops.iter().any(|op| matches!(op, Op::Measure { .. }));
    Ok(Plan { steps, first_dynamic, measures })
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::{Circuit, Condition, Gate, Op, PostSelection, Qubit, QubitRole};

    use super::*;

    fn two_qubits() -> (Circuit, Qubit, Qubit) {
        let mut circuit = Circuit::new();
        let a = circuit.add_qubit(QubitRole::General);
        let b = circuit.add_qubit(QubitRole::General);
        (circuit, a, b)
    }

    #[test]
    fn final_measurements_are_deferred() {
        let (mut circuit, a, b) = two_qubits();
        circuit.push_gate(Gate::one(qchess_circuit::ir::GateKind::H, a));
        circuit.push_measure(a);
        circuit.push_measure(a);
        circuit.push_measure(b);
        let planned = plan(&circuit).expect("valid");
        assert_eq!(planned.steps[1..], [Step::DeferredMeasure; 3]);
        assert!(!planned.is_dynamic());
    }

    #[test]
    fn measurement_before_a_gate_or_condition_is_dynamic() {
        let (mut circuit, a, b) = two_qubits();
        circuit.push_measure(a);
        circuit.push_gate(Gate::cx(a, b));
        let planned = plan(&circuit).expect("valid");
        assert_eq!(planned.steps[0], Step::Measure);
        assert_eq!(planned.first_dynamic, 0);

        let (mut circuit, a, b) = two_qubits();
        let register = circuit.add_register("c", 1);
        circuit.ops.push(Op::Measure { qubit: a, clbit: qchess_circuit::ir::Clbit(0) });
        circuit.ops.push(Op::Gate { gate: Gate::x(b), condition: Some(Condition { register, value: 1 }) });
        let planned = plan(&circuit).expect("valid");
        assert_eq!(planned.steps, [Step::Measure, Step::ConditionalGate]);
    }

    #[test]
    fn post_selected_measurements_are_marked() {
        let (mut circuit, a, b) = two_qubits();
        let bit = circuit.push_measure(a);
        circuit.push_gate(Gate::cx(a, b));
        circuit.postselect.push(PostSelection { qubit: a, clbit: bit, value: true });
        let planned = plan(&circuit).expect("valid");
        assert_eq!(planned.steps[0], Step::Postselect { value: true });
        assert!(!planned.is_dynamic());
    }

    #[test]
    fn malformed_circuits_are_rejected_with_the_operation() {
        let (mut circuit, a, _) = two_qubits();
        circuit.push_gate(Gate::cx(a, a));
        let error = plan(&circuit).expect_err("repeated qubit");
        assert_eq!(error.to_string(), "operation 0: qubit 0 is used twice");

        let (mut circuit, a, _) = two_qubits();
        circuit.ops.push(Op::Measure { qubit: a, clbit: qchess_circuit::ir::Clbit(3) });
        let error = plan(&circuit).expect_err("missing bit");
        assert_eq!(error.to_string(), "operation 0: writes classical bit 3, which does not exist");

        let (mut circuit, a, _) = two_qubits();
        circuit.postselect.push(PostSelection { qubit: a, clbit: qchess_circuit::ir::Clbit(0), value: true });
        circuit.clbits = 1;
        assert!(plan(&circuit).is_err());
    }
}
