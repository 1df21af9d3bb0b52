//! The header comment of an emitted program.

use qchess_circuit::ir::{Circuit, QubitRole};

use super::EmitError;
use super::layout::Layout;
use crate::ast::{Operand, Statement};

/// What a qubit stands for, in words.
fn describe(role: QubitRole) -> String {
    match role {
        QubitRole::Square { square, generation: 0 } => format!("square {square}"),
        QubitRole::Square { square, generation } => format!("square {square}, qubit {} of it", generation + 1),
        QubitRole::Path => "ancilla: path-clear flag".into(),
        QubitRole::Condition => "ancilla: measured condition".into(),
        QubitRole::Captured => "ancilla: captured piece".into(),
        QubitRole::EnPassant => "ancilla: en passant record".into(),
        QubitRole::Scratch => "ancilla: scratch".into(),
        QubitRole::General => "qubit".into(),
    }
}

/// Keeps a name on one comment line.
fn printable(name: &str) -> String {
    name.chars().map(|c| if c.is_control() { '?' } else { c }).collect()
}

fn operand_text(operand: &Operand) -> String {
    match operand {
        Operand::Indexed { register, index } => format!("{register}[{index}]"),
        Operand::Name(name) => name.clone(),
    }
}

/// The header lines: sizes, bit order, qubit map, post-selections, final measurements.
pub(super) fn header(circuit: &Circuit, layout: &Layout) -> Result<Vec<Statement>, EmitError> {
    let mut lines = vec![
        format!("qchess circuit: {} qubits, {} classical bits.", circuit.num_qubits(), circuit.clbits),
        "Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.".to_string(),
    ];
    for (index, info) in circuit.qubits.iter().enumerate() {
        lines.push(format!("q[{index}]: {} ({})", printable(&info.name()), describe(info.role)));
    }
    if circuit.postselect.is_empty() {
        lines.push("Post-selection: none.".into());
    } else {
        lines.push("Post-selection: keep only the runs in which every bit below reads the value shown.".into());
        for (index, selection) in circuit.postselect.iter().enumerate() {
            let invalid = |reason: String| EmitError::InvalidPostSelection { index, reason };
            let bit = layout
                .bit(selection.clbit.index())
                .ok_or_else(|| invalid(format!("classical bit {} does not exist", selection.clbit.0)))?;
            let qubit = circuit
                .qubits
                .get(selection.qubit.index())
                .ok_or_else(|| invalid(format!("qubit {} does not exist", selection.qubit.0)))?;
            lines.push(format!(
                "  {} = {} (measured from q[{}], {})",
                operand_text(&bit),
                u8::from(selection.value),
                selection.qubit.0,
                printable(&qubit.name())
            ));
        }
    }
    if let Some((name, qubits)) = &layout.final_register {
        let reads: Vec<String> = qubits.iter().enumerate().map(|(j, q)| format!("{name}[{j}] = q[{}]", q.0)).collect();
        lines.push(format!("Final measurements: {}.", reads.join(", ")));
    }
    Ok(lines.into_iter().map(Statement::Comment).collect())
}
