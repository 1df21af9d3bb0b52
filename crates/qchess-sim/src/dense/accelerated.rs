//! How fast the dense simulator runs its gates: fusion width, precision and threads.
//!
//! Runs of unconditional gates are fused ([`fusion`](super::fusion)) and applied by the planar
//! kernel (the block kernel for states of at most 3 qubits); single precision keeps the amplitudes as `Complex32` (half the memory and
//! bandwidth) for circuits that need no trajectory, and reports probabilities as doubles.

use num_complex::{Complex, Complex64};
use qchess_circuit::ir::Gate;

use super::block_kernel::{self, Prepared, Real};
use super::error::DenseError;
use super::fusion::{self, MAX_FUSED_QUBITS};
use super::planar;
use crate::deadline::Deadline;

/// The precision of amplitudes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Precision {
    /// `Complex64`: exact to rounding, the default.
    #[default]
    Double,
    /// `Complex32`: half the memory and bandwidth; probabilities agree with double precision
    /// to about 1e-6. Used for circuits that need no trajectory; others run in double.
    Single,
}

/// Fusion width, precision and threads of the dense simulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acceleration {
    /// Gates are fused into blocks of at most this many qubits (0 or 1: no fusion, each gate
    /// runs on its own kernel).
    pub max_fused_qubits: usize,
    /// Amplitude precision.
    pub precision: Precision,
    /// Threads for passes over large states (results do not depend on it).
    pub threads: usize,
}

/// Fusion width of [`Acceleration::fused`]: blocks of up to 4 qubits (16 x 16 matrices).
/// Measured on the random circuits of `qchess bench` (one thread, single / double precision,
/// best of two, load about 2.6 on two cores): at 24 qubits 1.75 / 3.11 s with blocks of 3
/// qubits (78 passes), 1.56 / 2.60 s with 4 (51), 1.47 / 2.55 s with 5 (42), 1.89 / 3.45 s
/// with 6 (32); at 20 qubits 0.087 / 0.142 s with 4 against 0.095 / 0.169 s with 5. A pass of
/// a 4-qubit block costs about its arithmetic, not its memory traffic, so wider blocks gain
/// little and 4 is kept.
pub const DEFAULT_FUSED_QUBITS: usize = 4;

/// The default runs each gate on its own specialised kernel, bit for bit as before fusion
/// existed; [`Acceleration::fused`] is faster in both precisions (at 20 qubits, 600 gates, one
/// thread: 0.47 s unfused against 0.18 s fused in double precision, 0.09 s in single).
impl Default for Acceleration {
    fn default() -> Acceleration {
        Acceleration { max_fused_qubits: 0, precision: Precision::Double, threads: 1 }
    }
}

impl Acceleration {
    /// No fusion, double precision, one thread: every gate on its own kernel.
    pub fn unfused() -> Acceleration {
        Acceleration { max_fused_qubits: 0, precision: Precision::Double, threads: 1 }
    }

    /// Fused blocks of up to [`DEFAULT_FUSED_QUBITS`] qubits in `precision` on `threads` threads.
    pub fn fused(precision: Precision, threads: usize) -> Acceleration {
        Acceleration { max_fused_qubits: DEFAULT_FUSED_QUBITS, precision, threads }
    }

    /// Whether gates go through the fused block kernel.
    pub(crate) fn fuses(&self) -> bool {
        self.max_fused_qubits >= 1 && (self.max_fused_qubits >= 2 || self.threads > 1)
    }
}

/// Applies `gates` (checked) to a double-precision state, fused.
pub(crate) fn run_gates(
    amplitudes: &mut [Complex64],
    gates: &[Gate],
    acceleration: &Acceleration,
    deadline: &Deadline,
) -> Result<(), DenseError> {
    apply_fused::<f64>(amplitudes, gates, acceleration, deadline)
}

fn apply_fused<T: Real>(
    amplitudes: &mut [Complex<T>],
    gates: &[Gate],
    acceleration: &Acceleration,
    deadline: &Deadline,
) -> Result<(), DenseError> {
    if gates.is_empty() {
        return Ok(());
    }
    let width = acceleration.max_fused_qubits.clamp(1, MAX_FUSED_QUBITS);
    let blocks = fusion::fuse(gates, width);
    let qubits = amplitudes.len().trailing_zeros() as usize;
    if !planar::is_planar(qubits) {
        for block in blocks {
            deadline.check()?;
            block_kernel::apply(amplitudes, &Prepared::<T>::new(&block), acceleration.threads);
        }
        return Ok(());
    }
    let values: &mut [T] = bytemuck::cast_slice_mut(amplitudes);
    planar::reorder(values, acceleration.threads, planar::to_planar);
    let mut outcome = Ok(());
    for block in &blocks {
        if let Err(error) = deadline.check() {
            outcome = Err(error.into());
            break;
        }
        planar::apply(values, &planar::Prepared::new(block), acceleration.threads);
    }
    // Back to interleaved amplitudes even when the deadline passed: the state stays readable.
    planar::reorder(values, acceleration.threads, planar::to_interleaved);
    outcome
}
