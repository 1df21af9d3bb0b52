//! OpenQASM 2.0 and 3.0 emitters for IR circuits.
//!
//! [`to_qasm2`] and [`to_qasm3`] take a [`Circuit`] (with its post-selections) and the qubits
//! to measure at the end, and return the program text; [`qasm2_program`] and
//! [`qasm3_program`] return the AST instead. Both programs:
//!
//! * start with a header comment mapping every qubit to its square or ancilla, stating that
//!   qubit `i` is bit `i` of every result, and listing the post-selections and the final
//!   measurements;
//! * declare one quantum register `q` (qubit `i` of the circuit is `q[i]`) and the circuit's
//!   classical registers in bit order (bits outside any register are gathered into `c`), so
//!   classical bit `i` of the circuit is bit `i` of every result too; the final measurements
//!   go into one more register, `meas`, after all of them;
//! * define in the file every gate the standard include lacks (iSWAP and its powers, `rxx`,
//!   `ryy`, `rzz`, ...).
//!
//! OpenQASM 2 has no control modifiers: anti-controls become X conjugations, the controlled
//! gates of `qelib1.inc` are used where they exist (`cx`, `ccx`, `cz`, `crz`, `cu1`, ...), and
//! any other controlled gate is defined in the file (`c2_iswap`, `c4_x`), its body being the
//! exact CX + one-qubit lowering. OpenQASM 3 writes `ctrl @` / `negctrl @` modifiers.
//!
//! ```
//! use qchess_circuit::ir::{Circuit, Gate, QubitRole};
//! use qchess_core::Square;
//! use qchess_qasm::emit::{EmitOptions, to_qasm3};
//!
//! let mut circuit = Circuit::new();
//! let b1 = circuit.add_qubit(QubitRole::square(Square::B1));
//! let c3 = circuit.add_qubit(QubitRole::square(Square::C3));
//! circuit.push_gate(Gate::x(b1));
//! circuit.push_gate(Gate::iswap(b1, c3, 0.5));
//! let text = to_qasm3(&circuit, &EmitOptions::measure_all(&circuit)).unwrap();
//! assert!(text.contains("// q[1]: c3 (square c3)"));
//! assert!(text.contains("sqrt_iswap q[0], q[1];"));
//! assert!(text.ends_with("meas[0] = measure q[0];\nmeas[1] = measure q[1];\n"));
//! ```

mod header;
mod layout;
pub(crate) mod library;
mod v2;
mod v3;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};

use qchess_circuit::ir::{Circuit, GateShapeError, Op, Qubit};

use crate::ast::{GateCall, GateDefinition, Operand, Program, Statement, Version};
use crate::lower::LowerError;

pub use layout::is_reserved_name;

/// What to add to an emitted circuit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmitOptions {
    /// Qubits to measure at the end, in this order, into a new register `meas` (bit `j` of it
    /// reads the `j`-th qubit listed).
    pub measure: Vec<Qubit>,
}

impl EmitOptions {
    /// Options that measure every qubit of `circuit` at the end, in qubit order.
    pub fn measure_all(circuit: &Circuit) -> EmitOptions {
        EmitOptions { measure: (0..circuit.num_qubits() as u32).map(Qubit).collect() }
    }
}

/// Why a circuit cannot be written out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EmitError {
    /// A gate does not fit the circuit.
    #[error("operation {op}")]
    InvalidGate {
        /// Index of the operation.
        op: usize,
        /// What is wrong with the gate.
        source: GateShapeError,
    },
    /// A measurement or reset refers to a qubit or bit that does not exist.
    #[error("operation {op}: {reason}")]
    InvalidOperation {
        /// Index of the operation.
        op: usize,
        /// What is wrong.
        reason: String,
    },
    /// A qubit asked to be measured at the end does not exist.
    #[error("cannot measure qubit {qubit} at the end: the circuit has {qubits} qubits")]
    InvalidFinalMeasurement {
        /// The qubit asked for.
        qubit: u32,
        /// Qubits of the circuit.
        qubits: usize,
    },
    /// A classical register cannot be declared as it is.
    #[error("classical register {name:?}: {reason}")]
    InvalidRegister {
        /// Register name.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A condition names a register that does not exist or a value it cannot hold.
    #[error("operation {op}: {reason}")]
    InvalidCondition {
        /// Index of the operation.
        op: usize,
        /// What is wrong.
        reason: String,
    },
    /// A controlled gate could not be decomposed for OpenQASM 2.
    #[error("operation {op}")]
    Lowering {
        /// Index of the operation.
        op: usize,
        /// The lowering failure.
        source: LowerError,
    },
    /// A post-selection refers to a qubit or bit that does not exist.
    #[error("post-selection {index}: {reason}")]
    InvalidPostSelection {
        /// Index in `Circuit::postselect`.
        index: usize,
        /// What is wrong.
        reason: String,
    },
}

/// Writes `circuit` as OpenQASM 2.0 (see the module docs).
pub fn to_qasm2(circuit: &Circuit, options: &EmitOptions) -> Result<String, EmitError> {
    Ok(qasm2_program(circuit, options)?.to_string())
}

/// Writes `circuit` as OpenQASM 3.0 (see the module docs).
pub fn to_qasm3(circuit: &Circuit, options: &EmitOptions) -> Result<String, EmitError> {
    Ok(qasm3_program(circuit, options)?.to_string())
}

/// The OpenQASM 2.0 AST of `circuit`.
pub fn qasm2_program(circuit: &Circuit, options: &EmitOptions) -> Result<Program, EmitError> {
    build(circuit, options, Version::V2)
}

/// The OpenQASM 3.0 AST of `circuit`.
pub fn qasm3_program(circuit: &Circuit, options: &EmitOptions) -> Result<Program, EmitError> {
    build(circuit, options, Version::V3)
}

/// Gate definitions a program needs, in the order they must appear (callees first).
#[derive(Debug, Default)]
pub(crate) struct Definitions {
    statements: Vec<Statement>,
    names: HashSet<String>,
    /// Names given to controlled parameterised gates, keyed by kind, controls and values.
    pub(crate) numbered: HashMap<String, String>,
}

impl Definitions {
    /// Whether a definition of `name` is already present.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Adds the library definition of `name` (and what it calls) if `version` lacks the gate.
    pub(crate) fn require_library(&mut self, name: &str, version: Version) {
        if self.has(name) {
            return;
        }
        if let Some((definition, callees)) = library::library_definition(name, version) {
            for callee in callees {
                self.require_library(callee, version);
            }
            self.add(None, definition);
        }
    }

    /// Adds a definition, preceded by a comment line if given.
    pub(crate) fn add(&mut self, comment: Option<String>, definition: GateDefinition) {
        if self.names.insert(definition.name.clone()) {
            self.statements.extend(comment.map(Statement::Comment));
            self.statements.push(Statement::GateDefinition(definition));
        }
    }
}

fn qubit_operand(qubit: Qubit) -> Operand {
    Operand::indexed(layout::QUBIT_REGISTER, qubit.0)
}

fn build(circuit: &Circuit, options: &EmitOptions, version: Version) -> Result<Program, EmitError> {
    let layout = layout::Layout::new(circuit, options)?;
    let mut definitions = Definitions::default();
    let mut body = Vec::new();
    for (index, op) in circuit.ops.iter().enumerate() {
        match op {
            Op::Gate { gate, condition } => {
                gate.check_shape(circuit.num_qubits())
                    .map_err(|source| EmitError::InvalidGate { op: index, source })?;
                let calls: Vec<GateCall> = match version {
                    Version::V2 => v2::gate_calls(gate, &mut definitions)
                        .map_err(|source| EmitError::Lowering { op: index, source })?,
                    Version::V3 => v3::gate_calls(gate, &mut definitions),
                };
                match condition {
                    None => body.extend(calls.into_iter().map(Statement::Gate)),
                    Some(condition) => {
                        let (register, value) = layout.condition(circuit, index, condition)?;
                        body.extend(calls.into_iter().map(|call| Statement::If {
                            register: register.clone(),
                            value,
                            body: Box::new(Statement::Gate(call)),
                        }));
                    }
                }
            }
            Op::Measure { qubit, clbit } => {
                if qubit.index() >= circuit.num_qubits() {
                    return Err(EmitError::InvalidOperation {
                        op: index,
                        reason: format!("measures missing qubit {}", qubit.0),
                    });
                }
                let bit = layout.bit(clbit.index()).ok_or_else(|| EmitError::InvalidOperation {
                    op: index,
                    reason: format!("writes missing classical bit {}", clbit.0),
                })?;
                body.push(Statement::Measure { qubit: qubit_operand(*qubit), bit });
            }
            Op::Reset { qubit } => {
                if qubit.index() >= circuit.num_qubits() {
                    return Err(EmitError::InvalidOperation {
                        op: index,
                        reason: format!("resets missing qubit {}", qubit.0),
                    });
                }
                body.push(Statement::Reset(qubit_operand(*qubit)));
            }
        }
    }
    if let Some((name, qubits)) = &layout.final_register {
        for (j, qubit) in qubits.iter().enumerate() {
            body.push(Statement::Measure {
                qubit: qubit_operand(*qubit),
                bit: Operand::indexed(name.clone(), j as u32),
            });
        }
    }

    let mut program = Program::new(version);
    program.includes.push(match version {
        Version::V2 => "qelib1.inc".into(),
        Version::V3 => "stdgates.inc".into(),
    });
    program.statements.extend(header::header(circuit, &layout)?);
    program.statements.extend(definitions.statements);
    program.statements.extend(layout.declarations());
    program.statements.extend(body);
    Ok(program)
}
