//! A compiled circuit as the OpenQASM 3 program Amazon Braket takes (`braket.ir.openqasm.program`):
//! Braket's gate names, no include, one classical register `c` (Braket allows one) holding every
//! classical bit of the compiled circuit in order, and
//!
//! * on a QPU, every gate inside `#pragma braket verbatim` and a `box`, on physical qubits
//!   `$p`, so that the device runs what was compiled (no rewiring, no recompilation), and the
//!   measurements after the box;
//! * on a managed simulator (which takes no verbatim box), the same gates on a register
//!   `qubit[n] q`.
//!
//! Measurements move behind every gate: the circuits qchess submits to Braket defer them, so no
//! gate touches a measured qubit and moving them changes nothing (a qubit may be measured again,
//! into another bit). A circuit whose gates use a measured qubit again, or that resets one, is
//! refused.
//!
//! ```
//! use qchess_route::emit::{EmitInfo, to_braket};
//! use qchess_route::target::Target;
//! use qchess_route::{CompileOptions, IsaOp, NativeGate, compile};
//! use qchess_route::program::Program;
//!
//! let garnet = Target::resolve("braket:iqm-garnet")?;
//! let ops = vec![IsaOp::Two { gate: NativeGate::Cz, a: 1, b: 2 }, IsaOp::Measure { qubit: 1, clbit: 0 }];
//! let compiled = qchess_route::Compiled {
//!     ops, num_qubits: 21, num_clbits: 1, initial_layout: vec![Some(1)], final_layout: vec![1],
//!     swaps: 0, equivalence: qchess_route::verify::Equivalence::Skipped, esp: None,
//! };
//! let program = to_braket(&compiled, &garnet, &EmitInfo::default(), true)?;
//! assert!(program.contains("#pragma braket verbatim\nbox {\n  cz $1, $2;\n}\nc[0] = measure $1;\n"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::Write as _;

use super::{EmitInfo, arguments, header};
use crate::compile::Compiled;
use crate::native::{IsaOp, NativeGate};
use crate::target::Target;

/// Why a compiled circuit cannot be written as a Braket program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BraketEmitError {
    /// A gate Braket has no name for (IBM's ECR, whose operand order Braket reads otherwise).
    #[error("`{0}` is not one of Braket's gates")]
    UnknownGate(&'static str),
    /// A reset, which Braket's programs cannot hold.
    #[error("the circuit resets physical qubit {0}; Braket programs cannot")]
    Reset(u32),
    /// A gate after the measurement of one of its qubits.
    #[error("physical qubit {0} is used after it is measured; Braket measures at the end only")]
    UsedAfterMeasurement(u32),
}

/// A gate as Braket's OpenQASM writes it, with its arguments.
fn braket_call(gate: NativeGate) -> Result<String, BraketEmitError> {
    let half_pi = std::f64::consts::FRAC_PI_2;
    Ok(match gate {
        NativeGate::Sx => "v".to_owned(),
        NativeGate::Ms => format!("ms(0, 0, {half_pi})"),
        NativeGate::Zz => format!("zz({half_pi})"),
        NativeGate::SqrtIswap => format!("xy({half_pi})"),
        NativeGate::Ecr => return Err(BraketEmitError::UnknownGate("ecr")),
        other => format!("{}{}", other.name(), arguments(other)),
    })
}

/// The Braket program of `compiled` for `target`: see the [module docs](self). `verbatim` on a
/// QPU, not on a managed simulator.
pub fn to_braket(
    compiled: &Compiled,
    target: &Target,
    info: &EmitInfo,
    verbatim: bool,
) -> Result<String, BraketEmitError> {
    let qubit = |p: u32| if verbatim { format!("${p}") } else { format!("q[{p}]") };
    let mut text = header(compiled, target, info, qubit);
    text.push_str("OPENQASM 3.0;\n");
    if compiled.num_clbits > 0 {
        let _ = writeln!(text, "bit[{}] c;", compiled.num_clbits);
    }
    if !verbatim {
        let _ = writeln!(text, "qubit[{}] q;", compiled.num_qubits);
    }
    let (indent, open, close) = if verbatim { ("  ", "#pragma braket verbatim\nbox {\n", "}\n") } else { ("", "", "") };
    text.push_str(open);
    let mut measured = std::collections::BTreeSet::new();
    let mut measurements = String::new();
    for op in &compiled.ops {
        let gate = !matches!(op, IsaOp::Measure { .. });
        if let Some(q) = op.qubits().find(|q| gate && measured.contains(q)) {
            return Err(BraketEmitError::UsedAfterMeasurement(q));
        }
        match *op {
            IsaOp::One { gate, qubit: q } => {
                let _ = writeln!(text, "{indent}{} {};", braket_call(gate)?, qubit(q));
            }
            IsaOp::Two { gate, a, b } => {
                let _ = writeln!(text, "{indent}{} {}, {};", braket_call(gate)?, qubit(a), qubit(b));
            }
            IsaOp::Measure { qubit: q, clbit } => {
                measured.insert(q);
                let _ = writeln!(measurements, "c[{clbit}] = measure {};", qubit(q));
            }
            IsaOp::Reset { qubit: q } => return Err(BraketEmitError::Reset(q)),
        }
    }
    text.push_str(close);
    text.push_str(&measurements);
    Ok(text)
}
