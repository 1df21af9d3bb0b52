//! What runs: a circuit with its parameter bindings and shots, as Sampler pubs and executor
//! program items both come down to, checked against the device, and NumPy's broadcasting of
//! shapes.

use qchess_qasm::qpy::QpyCircuit;
use qchess_route::Target;

use super::isa::{self, IsaCircuit};

/// The most shots one pub may take per parameter binding.
pub const MAX_SHOTS: u64 = 100_000;

/// The most shots a whole job may take.
pub const MAX_JOB_SHOTS: u64 = 10_000_000;

/// The most parameter bindings (or observables) one pub may have.
pub const MAX_BINDINGS: usize = 10_000;

/// The most classical bits a circuit may write.
pub const MAX_CLBITS: u32 = 128;

/// A pub's circuit: checked OpenQASM 3, or QPY whose bindings are checked when bound.
#[derive(Debug, Clone)]
pub enum PubCircuit {
    /// An ISA circuit read from OpenQASM 3 (no parameters).
    Qasm(IsaCircuit),
    /// A QPY circuit and its parameters.
    Qpy(Box<QpyCircuit>),
}

impl PubCircuit {
    /// Number of parameters.
    pub fn parameters(&self) -> usize {
        match self {
            PubCircuit::Qasm(_) => 0,
            PubCircuit::Qpy(circuit) => circuit.parameters.len(),
        }
    }

    /// The ISA circuit with `values` bound; the error says which part failed.
    pub fn bind(&self, values: &[f64], target: &Target) -> Result<IsaCircuit, String> {
        match self {
            PubCircuit::Qasm(circuit) => Ok(circuit.clone()),
            PubCircuit::Qpy(circuit) => {
                let program = circuit.bind(values).map_err(|e| format!("its QPY circuit: {e}"))?;
                isa::from_program(&program, target)
                    .map_err(|e| format!("not an ISA circuit for backend {}: {e}", target.name))
            }
        }
    }
}

/// Parameter values: one row of values per binding, and the bindings' shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Bindings {
    /// Shape of the bindings (the pub's shape before broadcasting).
    pub shape: Vec<usize>,
    /// Each binding's values, in row-major order of `shape`.
    pub rows: Vec<Vec<f64>>,
}

/// A Sampler pub.
#[derive(Debug, Clone)]
pub struct SamplerPub {
    /// The circuit.
    pub circuit: PubCircuit,
    /// Its parameter values.
    pub bindings: Bindings,
    /// Shots per binding.
    pub shots: u64,
}

/// Checks every binding's circuit once, so that a refusal comes at submission.
pub fn check_first(
    circuit: &PubCircuit,
    bindings: &Bindings,
    target: &Target,
    max_clbits: u32,
) -> Result<IsaCircuit, String> {
    let values = bindings.rows.first().cloned().unwrap_or_default();
    let isa = circuit.bind(&values, target)?;
    let clbits = isa.registers.iter().map(|r| r.start + r.len).max().unwrap_or(0);
    if clbits > max_clbits {
        return Err(format!("it writes {clbits} classical bits; this stand-in reads at most {max_clbits}"));
    }
    Ok(isa)
}

/// NumPy's broadcast shape of `a` and `b`.
pub fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| if i + s.len() >= n { s[i + s.len() - n] } else { 1 };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// The element of an array of `shape` that broadcasting to `full` maps `flat` (an index into
/// `full`, row-major) to.
pub fn broadcast_index(shape: &[usize], full: &[usize], flat: usize) -> usize {
    let mut rest = flat;
    let mut index = 0;
    let mut stride = 1;
    for i in (0..full.len()).rev() {
        let coordinate = rest % full[i];
        rest /= full[i];
        if let Some(k) = (i + shape.len()).checked_sub(full.len()) {
            let here = if shape[k] == 1 { 0 } else { coordinate };
            index += here * stride;
            stride *= shape[k];
        }
    }
    index
}
