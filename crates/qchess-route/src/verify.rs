//! Checks of a compiled circuit: only the target's gates, every two-qubit gate on a pair the
//! coupling map allows, and the same action as the logical circuit up to the layouts.
//!
//! Equivalence is checked on random input states (a generic state is an eigenvector of
//! `U^dagger V` only when `U` and `V` are equal up to phase): the logical program runs on a
//! random state of its qubits; the compiled one runs on that state placed by the initial layout
//! (every other physical qubit |0>); the results must agree, up to one global phase, once the
//! logical result is placed by the final layout. Measurements are skipped (the circuits defer
//! them: no gate touches a measured qubit afterwards).

use std::collections::HashMap;

use num_complex::Complex64;
use qchess_circuit::ir::{GateKind, Matrix2, Matrix4};

use crate::linalg::equal_up_to_phase;
use crate::native::IsaOp;
use crate::program::{Instr, Program};
use crate::target::Target;

/// The most qubits (logical, or physical ones the compiled circuit touches) an equivalence
/// check simulates.
pub const MAX_VERIFIED_QUBITS: usize = 20;

/// What the equivalence check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Equivalence {
    /// Equal up to the layouts and a global phase on every input tried.
    Equivalent,
    /// Too many qubits to simulate (or a reset): only the structure was checked.
    Skipped,
}

/// A dense state vector over `qubits` qubits (bit `i` of the index is qubit `i`).
#[derive(Debug, Clone)]
pub struct State {
    amps: Vec<Complex64>,
}

impl State {
    /// A state from its amplitudes (length a power of two).
    pub fn from_amplitudes(amps: Vec<Complex64>) -> State {
        State { amps }
    }

    /// The amplitudes.
    pub fn amplitudes(&self) -> &[Complex64] {
        &self.amps
    }

    /// Applies a one-qubit matrix to qubit `q`.
    pub fn apply1(&mut self, q: usize, m: &Matrix2) {
        let bit = 1usize << q;
        for i in 0..self.amps.len() {
            if i & bit == 0 {
                let (x, y) = (self.amps[i], self.amps[i | bit]);
                self.amps[i] = m[0][0] * x + m[0][1] * y;
                self.amps[i | bit] = m[1][0] * x + m[1][1] * y;
            }
        }
    }

    /// Applies a two-qubit matrix to `(a, b)` (index bit 0 = `a`).
    pub fn apply2(&mut self, a: usize, b: usize, m: &Matrix4) {
        let (ba, bb) = (1usize << a, 1usize << b);
        for i in 0..self.amps.len() {
            if i & ba == 0 && i & bb == 0 {
                let idx = [i, i | ba, i | bb, i | ba | bb];
                let v = idx.map(|k| self.amps[k]);
                for (r, &k) in idx.iter().enumerate() {
                    self.amps[k] = (0..4).map(|c| m[r][c] * v[c]).sum();
                }
            }
        }
    }

    /// The probability that measuring qubit `q` gives 1.
    pub fn probability_of_one(&self, q: usize) -> f64 {
        let bit = 1usize << q;
        self.amps.iter().enumerate().filter(|(i, _)| i & bit != 0).map(|(_, a)| a.norm_sqr()).sum()
    }

    /// Projects qubit `q` onto `value` and renormalises: the state after a measurement of `q`
    /// gave `value` (left unnormalised if that outcome had no weight at all).
    pub fn collapse(&mut self, q: usize, value: bool) {
        let bit = 1usize << q;
        let mut kept = 0.0;
        for (i, amp) in self.amps.iter_mut().enumerate() {
            if (i & bit != 0) == value {
                kept += amp.norm_sqr();
            } else {
                *amp = Complex64::new(0.0, 0.0);
            }
        }
        if kept > 0.0 {
            let scale = 1.0 / kept.sqrt();
            self.amps.iter_mut().for_each(|amp| *amp *= scale);
        }
    }

    /// Exchanges qubits `a` and `b`.
    pub fn swap(&mut self, a: usize, b: usize) {
        let (ba, bb) = (1usize << a, 1usize << b);
        for i in 0..self.amps.len() {
            if i & ba != 0 && i & bb == 0 {
                self.amps.swap(i, i ^ ba ^ bb);
            }
        }
    }
}

/// A deterministic generator for test states (splitmix64).
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform index below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// Runs the CX / one-qubit / SWAP / native instructions of `program` on `state`, qubit `q` of
/// the program being qubit `dense[q]` of the state; measurements are skipped.
pub fn run_program(program: &Program, state: &mut State, dense: &dyn Fn(u32) -> usize) -> Result<(), String> {
    for instr in &program.instrs {
        match *instr {
            Instr::One { qubit, matrix } => state.apply1(dense(qubit), &matrix),
            Instr::Cx { control, target } => {
                let mut cx = [[Complex64::new(0.0, 0.0); 4]; 4];
                [(0, 0), (1, 3), (2, 2), (3, 1)].iter().for_each(|&(r, c)| cx[r][c] = Complex64::new(1.0, 0.0));
                state.apply2(dense(control), dense(target), &cx);
            }
            Instr::Swap { a, b } => state.swap(dense(a), dense(b)),
            Instr::ISwap { power, a, b, swapped } => {
                state.apply2(dense(a), dense(b), &GateKind::ISwap(power).matrix4().ok_or("iSWAP without a matrix")?);
                if swapped {
                    state.swap(dense(a), dense(b));
                }
            }
            Instr::Native { gate, a, b } => {
                state.apply2(dense(a), dense(b), &gate.matrix4().ok_or("a native gate without a 4x4 matrix")?)
            }
            Instr::Measure { .. } => {}
            Instr::Reset { .. } => return Err("resets cannot be checked by state vectors".into()),
        }
    }
    Ok(())
}

/// Runs ISA operations on `state` (measurements skipped).
pub fn run_isa(ops: &[IsaOp], state: &mut State, dense: &dyn Fn(u32) -> usize) -> Result<(), String> {
    for op in ops {
        match *op {
            IsaOp::One { gate, qubit } => {
                state.apply1(dense(qubit), &gate.matrix2().ok_or("a one-qubit gate without a 2x2 matrix")?)
            }
            IsaOp::Two { gate, a, b } => {
                state.apply2(dense(a), dense(b), &gate.matrix4().ok_or("a two-qubit gate without a 4x4 matrix")?)
            }
            IsaOp::Measure { .. } => {}
            IsaOp::Reset { .. } => return Err("resets cannot be checked by state vectors".into()),
        }
    }
    Ok(())
}

/// Only the target's gates, each two-qubit gate on a pair it allows in that direction, every
/// qubit on the device, and nothing on a qubit or coupler the calibration marks broken.
pub fn check_structure(ops: &[IsaOp], target: &Target) -> Result<(), String> {
    for (index, op) in ops.iter().enumerate() {
        if let Some(q) = op.qubits().find(|&q| q >= target.num_qubits) {
            return Err(format!(
                "operation {index}: qubit {q} is not on {} ({} qubits)",
                target.name, target.num_qubits
            ));
        }
        if let Some(q) = op.qubits().find(|&q| target.is_qubit_broken(q)) {
            return Err(format!(
                "operation {index}: qubit {q} of {} is faulty (its calibration marks it broken)",
                target.name
            ));
        }
        if let IsaOp::Two { gate, a, b } = *op
            && target.is_pair_broken(a, b)
        {
            return Err(format!(
                "operation {index}: `{}` on ({a}, {b}), a faulty edge of {} (its calibration marks it broken)",
                gate.name(),
                target.name
            ));
        }
        match *op {
            IsaOp::One { gate, .. } | IsaOp::Two { gate, .. } if !gate.in_basis(target.basis) => {
                return Err(format!("operation {index}: `{}` is not a {} gate", gate.name(), target.basis));
            }
            IsaOp::Two { gate, a, b } if !target.allows(a, b) => {
                return Err(format!(
                    "operation {index}: `{}` on ({a}, {b}), not a coupled pair of {}",
                    gate.name(),
                    target.name
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Checks that `compiled` acts as `logical` with logical qubit `q` starting on physical
/// `initial[q]` (`None`: placed later, starting in |0>) and ending on `final_layout[q]`.
pub fn check_equivalence(
    logical: &Program,
    compiled: &[IsaOp],
    initial: &[Option<u32>],
    final_layout: &[u32],
    seed: u64,
) -> Result<Equivalence, String> {
    let mut physical: Vec<u32> = initial.iter().flatten().chain(final_layout).copied().collect();
    physical.extend(compiled.iter().flat_map(IsaOp::qubits));
    physical.sort_unstable();
    physical.dedup();
    let n = logical.num_qubits as usize;
    if n > MAX_VERIFIED_QUBITS || physical.len() > MAX_VERIFIED_QUBITS {
        return Ok(Equivalence::Skipped);
    }
    let dense_of: HashMap<u32, usize> = physical.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let dense = |p: u32| dense_of[&p];
    let mut rng = SplitMix(seed);
    for _ in 0..2 {
        let input: Vec<Complex64> = (0..1usize << n)
            .map(|x| {
                let late = (0..n).any(|q| x >> q & 1 == 1 && initial[q].is_none());
                if late { Complex64::new(0.0, 0.0) } else { Complex64::new(rng.next_f64() - 0.5, rng.next_f64() - 0.5) }
            })
            .collect();
        let place = |amps: &[Complex64], layout: &dyn Fn(usize) -> Option<u32>| -> Vec<Complex64> {
            let mut out = vec![Complex64::new(0.0, 0.0); 1 << physical.len()];
            for (x, &amp) in amps.iter().enumerate() {
                if amp.norm() == 0.0 {
                    continue;
                }
                let index =
                    (0..n).filter(|q| x >> q & 1 == 1).map(|q| layout(q).map_or(0, |p| 1 << dense(p))).sum::<usize>();
                out[index] = amp;
            }
            out
        };
        let mut compiled_state = State::from_amplitudes(place(&input, &|q| initial[q]));
        if run_isa(compiled, &mut compiled_state, &dense).is_err() {
            return Ok(Equivalence::Skipped);
        }
        let mut logical_state = State::from_amplitudes(input);
        if run_program(logical, &mut logical_state, &|q| q as usize).is_err() {
            return Ok(Equivalence::Skipped);
        }
        let expected = place(logical_state.amplitudes(), &|q| Some(final_layout[q]));
        if !equal_up_to_phase(compiled_state.amplitudes(), &expected) {
            return Err("the compiled circuit does not act as the logical one up to the layouts".into());
        }
    }
    Ok(Equivalence::Equivalent)
}
