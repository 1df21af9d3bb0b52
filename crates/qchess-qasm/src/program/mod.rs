//! Circuits as read, instruction by instruction: what the OpenQASM 3 reader
//! ([`parse::v3`](crate::parse::v3)) and the QPY reader ([`qpy`](crate::qpy)) produce, before
//! gates are expanded into the IR.
//!
//! A [`Program`] keeps each top-level call with its name, evaluated parameters, qubit indices
//! and modifiers, so a consumer can judge gates by name (the IBM stand-in checks that a circuit
//! holds only its device's basis gates) or [`lower`](Program::to_circuit) it into an IR
//! [`Circuit`](qchess_circuit::ir::Circuit): standard gates map to IR gates with their exact
//! matrices (global phases kept where a control makes them matter), defined gates expand from
//! their bodies, and `inv`, `pow(k)`, `ctrl` and `negctrl` apply to whole expansions.
//!
//! Conventions: qubit `i` of the program is qubit `i` of the lowered circuit (a program over
//! physical qubits `$n` keeps `n` as its index; [`Program::compact`] drops the unused ones);
//! classical bits are numbered over all registers in declaration order.

mod gates;
mod lower;

use std::collections::BTreeMap;
use std::fmt;

pub use gates::{GateLibrary, STANDARD_GATES, StandardGate, standard_gate};
pub use lower::LowerError;
pub(crate) use lower::finite;
use qchess_circuit::ir::ClassicalRegister;

/// Where an instruction came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A place in a source file (1-based line and column).
    Source {
        /// The file as named by the caller.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column in characters, from 1.
        column: usize,
    },
    /// A described place without a line, such as `instruction 4` of a QPY circuit.
    Item(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Source { file, line, column } => write!(f, "{file}:{line}:{column}"),
            Origin::Item(text) => f.write_str(text),
        }
    }
}

/// A gate modifier, as OpenQASM 3 writes it before `@`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Modifier {
    /// `inv @`: the inverse.
    Inv,
    /// `pow(k) @`: the `k`-th power (integers only are lowered).
    Pow(f64),
    /// `ctrl(n) @` (`on`) or `negctrl(n) @` (not `on`): `n` more leading control operands.
    Ctrl {
        /// How many control qubits.
        count: u32,
        /// Whether the controls act on |1> (`ctrl`) or |0> (`negctrl`).
        on: bool,
    },
}

/// A gate applied to qubits.
#[derive(Debug, Clone, PartialEq)]
pub struct GateCall {
    /// The gate's name as written (`rz`, `cx`, `ecr`, a defined gate, `U`, `gphase`).
    pub name: String,
    /// Evaluated parameters.
    pub params: Vec<f64>,
    /// Operand qubits: the modifiers' controls first, then the gate's own operands.
    pub qubits: Vec<u32>,
    /// Modifiers, outermost first (`ctrl @ inv @ g` is `[Ctrl, Inv]`).
    pub modifiers: Vec<Modifier>,
}

/// A duration, as `delay` takes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Duration {
    /// In seconds.
    Seconds(f64),
    /// In the device's sample time `dt`.
    Dt(f64),
}

/// One step of a program.
#[derive(Debug, Clone, PartialEq)]
pub enum Operation {
    /// A gate.
    Gate(GateCall),
    /// Measurement of `qubit`, into `clbit` unless the result is discarded.
    Measure {
        /// The measured qubit.
        qubit: u32,
        /// The bit written, if any.
        clbit: Option<u32>,
    },
    /// Reset of a qubit to |0>.
    Reset {
        /// The qubit.
        qubit: u32,
    },
    /// A barrier (no effect on results).
    Barrier {
        /// The qubits it spans (all of them when written bare).
        qubits: Vec<u32>,
    },
    /// An idle period.
    Delay {
        /// The qubits that wait.
        qubits: Vec<u32>,
        /// How long.
        duration: Duration,
    },
}

/// A test on classical bits: the bits read as an integer (first bit least significant)
/// equal (or, with `equal` false, differ from) `value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitTest {
    /// The bits, least significant first.
    pub bits: Vec<u32>,
    /// The value compared with.
    pub value: u64,
    /// `==` when true, `!=` when false.
    pub equal: bool,
}

impl BitTest {
    /// Whether the test holds for the classical bits `read` (bit `i` of the program = `read(i)`).
    pub fn holds(&self, read: impl Fn(u32) -> bool) -> bool {
        let value = self.bits.iter().enumerate().fold(
            0u64,
            |value, (i, &bit)| {
                if i < 64 && read(bit) { value | 1 << i } else { value }
            },
        );
        (value == self.value) == self.equal
    }
}

/// An operation, the condition it runs under, and where it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// What it does.
    pub operation: Operation,
    /// Runs only when this holds (an `if` around it).
    pub condition: Option<BitTest>,
    /// Where it came from.
    pub origin: Origin,
}

/// A statement of a gate definition's body, over the definition's parameters and qubits.
#[derive(Debug, Clone, PartialEq)]
pub enum BodyStatement {
    /// A gate call: parameters are expressions over the definition's parameters, qubits are
    /// indices into its qubit list.
    Call {
        /// The gate called.
        name: String,
        /// Parameter expressions, reading the definition's parameters as the variables
        /// `0, 1, ...` of a frame of their own.
        params: Vec<crate::classical::Expr>,
        /// Operands: indices of the definition's qubit arguments.
        qubits: Vec<usize>,
        /// Modifiers, outermost first.
        modifiers: Vec<Modifier>,
        /// Where it was written.
        origin: Origin,
    },
}

/// A gate defined by the program (`gate name(params) qubits { body }`).
#[derive(Debug, Clone, PartialEq)]
pub struct GateDefinition {
    /// Parameter names, in order.
    pub params: Vec<String>,
    /// Number of qubit arguments.
    pub num_qubits: usize,
    /// The body.
    pub body: Vec<BodyStatement>,
    /// Where it was defined.
    pub origin: Origin,
}

/// A circuit as read. See the [module docs](self).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Program {
    /// Each qubit's name (`q[0]`, `$87`), index = qubit.
    pub qubits: Vec<String>,
    /// Classical registers over the bits, in declaration order.
    pub registers: Vec<ClassicalRegister>,
    /// Number of classical bits.
    pub clbits: u32,
    /// The instructions in order.
    pub body: Vec<Instruction>,
    /// Gates the program defines, by name.
    pub definitions: BTreeMap<String, GateDefinition>,
    /// The gates in scope without a definition: `stdgates.inc` once included, Qiskit's
    /// standard gates for a QPY circuit.
    pub library: GateLibrary,
    /// The global phase written at top level (`gphase`) or stored with the circuit.
    pub global_phase: f64,
}

impl Program {
    /// The qubits any instruction touches, in increasing order.
    pub fn used_qubits(&self) -> Vec<u32> {
        let mut used: Vec<u32> = self
            .body
            .iter()
            .flat_map(|instruction| match &instruction.operation {
                Operation::Gate(call) => call.qubits.clone(),
                Operation::Measure { qubit, .. } | Operation::Reset { qubit } => vec![*qubit],
                Operation::Barrier { .. } | Operation::Delay { .. } => Vec::new(),
            })
            .collect();
        used.sort_unstable();
        used.dedup();
        used
    }

    /// The program over only the qubits some gate, measurement or reset touches, renumbered in
    /// increasing order (names kept); barriers and delays keep the qubits that remain.
    pub fn compact(&self) -> Program {
        let used = self.used_qubits();
        let new_index = |q: u32| used.binary_search(&q).ok().map(|i| i as u32);
        let mut program = self.clone();
        program.qubits = used.iter().map(|&q| self.qubits.get(q as usize).cloned().unwrap_or_default()).collect();
        for instruction in &mut program.body {
            match &mut instruction.operation {
                Operation::Gate(call) => call.qubits.iter_mut().for_each(|q| *q = new_index(*q).unwrap_or(*q)),
                Operation::Measure { qubit, .. } | Operation::Reset { qubit } => {
                    *qubit = new_index(*qubit).unwrap_or(*qubit)
                }
                Operation::Barrier { qubits } | Operation::Delay { qubits, .. } => {
                    *qubits = qubits.iter().filter_map(|&q| new_index(q)).collect();
                }
            }
        }
        program
    }
}
