//! Why a circuit could not be compiled for a target.

use qchess_qasm::lower::LowerError;

/// Why a circuit could not be compiled for a target.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RouteError {
    /// A gate could not be lowered to CX and one-qubit gates.
    #[error("lowering")]
    Lower(#[from] LowerError),
    /// A gate runs under a classical condition, which routing does not carry.
    #[error("operation {op}: classically conditioned gates cannot be routed")]
    Conditional {
        /// Index of the operation in the circuit.
        op: usize,
    },
    /// The circuit needs more qubits than the target has.
    #[error("the circuit needs {needed} qubits but target `{target}` has {available}")]
    TooSmall {
        /// Qubits the circuit uses.
        needed: u32,
        /// Qubits the target has.
        available: u32,
        /// The target's name.
        target: String,
    },
    /// No connected part of the device's working qubits (broken ones removed) holds the circuit.
    #[error(
        "target `{target}`: the circuit needs {needed} qubits but the largest connected part of working \
         qubits has {largest} (the calibration marks {broken_qubits} qubits and {broken_couplers} couplers \
         broken; the working qubits form {parts} connected parts)"
    )]
    NoPartFits {
        /// The target's name.
        target: String,
        /// Qubits the circuit uses.
        needed: u32,
        /// Qubits of the largest connected part.
        largest: u32,
        /// How many connected parts the working qubits form.
        parts: usize,
        /// Broken qubits.
        broken_qubits: usize,
        /// Broken couplers.
        broken_couplers: usize,
    },
    /// Two qubits that must interact lie in parts of the coupling map that are not connected.
    #[error("target `{target}`: physical qubits {a} and {b} are not connected by any path of couplings")]
    Disconnected {
        /// The target's name.
        target: String,
        /// One physical qubit.
        a: u32,
        /// The other.
        b: u32,
    },
    /// The compiled circuit failed its own check: a bug, reported rather than hidden.
    #[error("the compiled circuit failed verification: {0}")]
    Verification(String),
    /// A pass broke one of its own invariants: a bug.
    #[error("internal error: {0}")]
    Internal(&'static str),
}
