//! Errors of the dense simulator.

/// Why a dense simulation could not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DenseError {
    /// The state vector would exceed the configured qubit limit; nothing was allocated.
    #[error(
        "{qubits} qubits need {} for a dense state vector, over the limit of {limit} qubits ({})",
        format_bytes(state_bytes(*qubits)),
        format_bytes(state_bytes(*limit))
    )]
    TooManyQubits {
        /// Qubits the circuit has.
        qubits: usize,
        /// The configured limit.
        limit: usize,
    },
    /// The allocator refused the memory for a state vector.
    #[error("could not allocate {} for a {qubits}-qubit state vector", format_bytes(state_bytes(*qubits)))]
    OutOfMemory {
        /// Qubits of the state that could not be allocated.
        qubits: usize,
    },
    /// The system reports less available memory than the state vector needs; nothing was
    /// allocated.
    #[error(
        "{qubits} qubits need {} for a dense state vector, but only {} of memory is available",
        format_bytes(state_bytes(*qubits)),
        format_approx_bytes(*available)
    )]
    InsufficientMemory {
        /// Qubits of the state that was refused.
        qubits: usize,
        /// Bytes the system reported available.
        available: u64,
    },
    /// Exact probabilities would enumerate more measurement branches than allowed.
    #[error(
        "exact probabilities need more than {limit} measurement branches (the branch limit); sample with shots instead"
    )]
    TooManyOutcomeBranches {
        /// The branch limit.
        limit: usize,
    },
    /// The deadline passed before the simulation finished.
    #[error(transparent)]
    TimeLimit(#[from] crate::deadline::TimeLimitExceeded),
    /// The circuit is malformed: an operation refers to something that does not exist.
    #[error("operation {op}: {reason}")]
    InvalidCircuit {
        /// Index of the offending operation in `Circuit::ops` (or the number of operations for
        /// problems outside the operation list).
        op: usize,
        /// What is wrong.
        reason: String,
    },
    /// A gate applied directly to a state is malformed.
    #[error("invalid gate {gate}: {reason}")]
    InvalidGate {
        /// The gate, printed.
        gate: String,
        /// What is wrong.
        reason: String,
    },
    /// A qubit index outside the state.
    #[error("qubit {qubit} does not exist in a {qubits}-qubit state")]
    QubitOutOfRange {
        /// The qubit asked for.
        qubit: usize,
        /// Qubits of the state.
        qubits: usize,
    },
    /// Exact probabilities of a circuit with mid-circuit measurements branch on every outcome,
    /// and the branches would need more memory than the qubit limit allows for one state.
    #[error(
        "exact probabilities would keep {branches} measurement branches of {} each in memory, over the budget of {}; sample with shots instead",
        format_bytes(state_bytes(*qubits)),
        format_bytes(branch_budget(*limit))
    )]
    TooManyBranches {
        /// Branches that would be pending at once.
        branches: usize,
        /// Qubits of each branch's state.
        qubits: usize,
        /// The qubit limit that sets the memory budget.
        limit: usize,
    },
    /// Sampled results are keyed by a 64-bit integer, so at most 64 bits can be read.
    #[error("results are limited to 64 bits, but the circuit reads {bits}")]
    TooManyResultBits {
        /// Bits the results would need.
        bits: usize,
    },
    /// A unitary was asked for a circuit that is not a plain sequence of gates.
    #[error("operation {op} is {what}, so the circuit has no unitary")]
    NotUnitary {
        /// Index of the offending operation.
        op: usize,
        /// What the operation is.
        what: &'static str,
    },
    /// The circuit is too large for an explicit unitary matrix.
    #[error("a unitary of {qubits} qubits is too large; at most {limit} qubits are supported")]
    UnitaryTooLarge {
        /// Qubits of the circuit.
        qubits: usize,
        /// The largest supported size.
        limit: usize,
    },
    /// The shot count is out of range.
    #[error("shots must be between 1 and {max}, got {shots}")]
    InvalidShots {
        /// The shots asked for.
        shots: u64,
        /// The largest supported shot count.
        max: u64,
    },
    /// The recorded post-selections have probability zero: no run can satisfy them.
    #[error("the post-selected outcomes have probability zero")]
    PostSelectionImpossible,
    /// Sampling with post-selection rejected too many runs.
    #[error(
        "post-selection rejected {rejected} runs for {accepted} accepted; the post-selected outcomes are too unlikely to sample"
    )]
    PostSelectionTooRare {
        /// Runs kept before giving up.
        accepted: u64,
        /// Runs thrown away.
        rejected: u64,
    },
    /// Amplitudes given for a state do not form one.
    #[error("invalid amplitudes: {reason}")]
    InvalidAmplitudes {
        /// What is wrong.
        reason: String,
    },
}

/// Live measurement branches never hold more than this together, whatever the qubit limit.
const BRANCH_MEMORY_CAP: u128 = 1 << 30;

/// Bytes all pending branches of an exact run may hold: one state at the qubit limit, at most
/// [`BRANCH_MEMORY_CAP`].
pub(crate) fn branch_budget(max_qubits: usize) -> u128 {
    state_bytes(max_qubits).min(BRANCH_MEMORY_CAP)
}

/// Bytes of a dense state vector of `qubits` qubits (saturating).
pub(crate) fn state_bytes(qubits: usize) -> u128 {
    let amplitude = std::mem::size_of::<num_complex::Complex64>() as u128;
    if qubits >= 100 { u128::MAX } else { amplitude << qubits }
}

/// `16 GiB`, `512 MiB`, `64 KiB`, `32 B`.
pub(crate) fn format_bytes(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes >= 1 << 70 {
        return "more than 1 ZiB".to_string();
    }
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1024 && value.is_multiple_of(1024) {
        value /= 1024;
        unit += 1;
    }
    format!("{value} {}", UNITS[unit])
}

/// `7.8 GiB`, `512 MiB`, `900 B`: one decimal past the largest whole unit.
pub(crate) fn format_approx_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} B") } else { format!("{value:.1} {}", UNITS[unit]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(format_bytes(state_bytes(0)), "16 B");
        assert_eq!(format_bytes(state_bytes(10)), "16 KiB");
        assert_eq!(format_bytes(state_bytes(30)), "16 GiB");
        assert_eq!(format_bytes(state_bytes(64)), "256 EiB");
        assert_eq!(format_bytes(state_bytes(200)), "more than 1 ZiB");
        let message = DenseError::TooManyQubits { qubits: 31, limit: 30 }.to_string();
        assert_eq!(message, "31 qubits need 32 GiB for a dense state vector, over the limit of 30 qubits (16 GiB)");
        assert_eq!(format_approx_bytes(900), "900 B");
        let message = DenseError::TooManyBranches { branches: 2, qubits: 28, limit: 30 }.to_string();
        assert!(
            message.contains("2 measurement branches of 4 GiB each in memory, over the budget of 1 GiB"),
            "{message}"
        );
        assert_eq!(format_approx_bytes(8_192_000_000), "7.6 GiB");
        let message = DenseError::InsufficientMemory { qubits: 33, available: 3 << 30 }.to_string();
        assert_eq!(message, "33 qubits need 128 GiB for a dense state vector, but only 3.0 GiB of memory is available");
    }
}
