//! The working form every pass reads and writes: one-qubit matrices, CX, SWAP and native
//! two-qubit gates, measurements and resets over numbered qubits (logical before routing,
//! physical after).

use qchess_circuit::ir::{Circuit, GateKind, Matrix2, Op, Qubit};
use qchess_qasm::lower::{GateSet, lower};

use crate::error::RouteError;
use crate::native::NativeGate;

/// One instruction of a [`Program`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Instr {
    /// Any one-qubit unitary.
    One {
        /// The qubit.
        qubit: u32,
        /// Its matrix.
        matrix: Matrix2,
    },
    /// CNOT.
    Cx {
        /// Control.
        control: u32,
        /// Target.
        target: u32,
    },
    /// Exchange of two qubits (inserted by routing).
    Swap {
        /// One qubit.
        a: u32,
        /// The other.
        b: u32,
    },
    /// A native two-qubit gate (after translation).
    Native {
        /// The gate.
        gate: NativeGate,
        /// First operand.
        a: u32,
        /// Second operand.
        b: u32,
    },
    /// Measurement into a classical bit.
    Measure {
        /// The qubit.
        qubit: u32,
        /// The classical bit.
        clbit: u32,
    },
    /// Reset to |0>.
    Reset {
        /// The qubit.
        qubit: u32,
    },
}

impl Instr {
    /// The qubits it touches: one or two.
    pub fn qubits(&self) -> (u32, Option<u32>) {
        match *self {
            Instr::One { qubit, .. } | Instr::Measure { qubit, .. } | Instr::Reset { qubit } => (qubit, None),
            Instr::Cx { control, target } => (control, Some(target)),
            Instr::Swap { a, b } | Instr::Native { a, b, .. } => (a, Some(b)),
        }
    }

    /// Whether it acts on two qubits.
    pub fn is_two_qubit(&self) -> bool {
        self.qubits().1.is_some()
    }

    /// The same instruction on other qubits.
    #[must_use]
    pub fn remapped(&self, map: impl Fn(u32) -> u32) -> Instr {
        match *self {
            Instr::One { qubit, matrix } => Instr::One { qubit: map(qubit), matrix },
            Instr::Cx { control, target } => Instr::Cx { control: map(control), target: map(target) },
            Instr::Swap { a, b } => Instr::Swap { a: map(a), b: map(b) },
            Instr::Native { gate, a, b } => Instr::Native { gate, a: map(a), b: map(b) },
            Instr::Measure { qubit, clbit } => Instr::Measure { qubit: map(qubit), clbit },
            Instr::Reset { qubit } => Instr::Reset { qubit: map(qubit) },
        }
    }
}

/// Instructions over `num_qubits` qubits and `num_clbits` classical bits.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Program {
    /// Number of qubits.
    pub num_qubits: u32,
    /// Number of classical bits.
    pub num_clbits: u32,
    /// The instructions in order.
    pub instrs: Vec<Instr>,
}

impl Program {
    /// Number of two-qubit instructions.
    pub fn two_qubit_count(&self) -> usize {
        self.instrs.iter().filter(|i| i.is_two_qubit()).count()
    }
}

/// `ops[from..]` of `circuit` as instructions: every gate lowered to CX and one-qubit gates, then
/// `measure` (qubits measured at the end into the bits after the circuit's own).
pub fn from_circuit(circuit: &Circuit, from: usize, measure: &[Qubit]) -> Result<Program, RouteError> {
    let tail = Circuit { ops: circuit.ops[from.min(circuit.ops.len())..].to_vec(), ..circuit.clone() };
    let lowered = lower(&tail, GateSet::CxSingleQubit)?;
    let mut instrs = Vec::with_capacity(lowered.ops.len() + measure.len());
    for (index, op) in lowered.ops.iter().enumerate() {
        match op {
            Op::Gate { condition: Some(_), .. } => return Err(RouteError::Conditional { op: from + index }),
            Op::Gate { gate, condition: None } => {
                match (gate.kind, gate.controls.as_slice(), gate.targets.as_slice()) {
                    (GateKind::X, [control], [target]) if control.on => {
                        instrs.push(Instr::Cx { control: control.qubit.0, target: target.0 })
                    }
                    (kind, [], [target]) => {
                        let matrix = kind.matrix2().ok_or(RouteError::Internal("a lowered gate is not one-qubit"))?;
                        instrs.push(Instr::One { qubit: target.0, matrix });
                    }
                    _ => {
                        return Err(RouteError::Internal(
                            "the CX lowering left a gate that is neither CX nor one-qubit",
                        ));
                    }
                }
            }
            Op::Measure { qubit, clbit } => instrs.push(Instr::Measure { qubit: qubit.0, clbit: clbit.0 }),
            Op::Reset { qubit } => instrs.push(Instr::Reset { qubit: qubit.0 }),
        }
    }
    for (j, qubit) in measure.iter().enumerate() {
        instrs.push(Instr::Measure { qubit: qubit.0, clbit: circuit.clbits + j as u32 });
    }
    Ok(Program { num_qubits: circuit.num_qubits() as u32, num_clbits: circuit.clbits + measure.len() as u32, instrs })
}
