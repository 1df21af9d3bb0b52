//! Z rotations moved late and merged, on devices whose Z rotations are frame changes: an `rz`
//! commutes with `cz` on either of its qubits, moves to the other qubit across an `iswap` (which
//! is a SWAP up to diagonal phases), and turns into `rz(-theta)` across an `x` or `rx(pi)` (up to
//! a global phase), so each qubit's `rz` gates travel forward to the next other rotation,
//! measurement, reset or the end of the circuit and are emitted there as one. The circuit is the
//! same unitary; it has fewer gates and a smaller depth (IBM and Rigetti implement `rz` as a frame
//! change, so its error and duration are nil either way).
//!
//! IQM's gate set has no `rz` at all: [`fold_into_prx`] carries each qubit's Z rotation forward
//! into the phase of its next `prx` (`prx(theta, phi) rz(alpha) = rz(alpha) prx(theta, phi -
//! alpha)`), and what is left before a measurement, a reset or the end is written as two `prx`
//! by pi (`prx(pi, alpha/2) prx(pi, 0) = rz(alpha)` up to phase).

use crate::linalg::{is_zero_angle, wrap};
use crate::native::{IsaOp, NativeGate};

/// What a gate does with the Z rotations pending before it.
enum Passed {
    /// It is a Z rotation: added to its qubit's pending angle.
    Absorbed,
    /// The pending rotations move past it (as it changed them): emit this gate.
    Through(IsaOp),
    /// They do not: each of its qubits' pending rotation is written before it.
    Blocks,
}

/// Carries each qubit's Z rotation forward through `ops` (over `num_qubits` qubits): `pass` says
/// what each operation does with the pending angles, `write` what stands for an angle left
/// before a blocking operation or at the end.
fn carry_z(
    ops: &[IsaOp],
    num_qubits: u32,
    pass: impl Fn(&IsaOp, &mut [f64]) -> Passed,
    write: impl Fn(u32, f64) -> Vec<IsaOp>,
) -> Vec<IsaOp> {
    let mut pending = vec![0.0f64; num_qubits as usize];
    let mut out = Vec::with_capacity(ops.len());
    let flush = |qubit: u32, pending: &mut [f64], out: &mut Vec<IsaOp>| {
        let angle = std::mem::take(&mut pending[qubit as usize]);
        if !is_zero_angle(angle) {
            out.extend(write(qubit, angle));
        }
    };
    for op in ops {
        match pass(op, &mut pending) {
            Passed::Absorbed => {}
            Passed::Through(op) => out.push(op),
            Passed::Blocks => {
                for qubit in op.qubits() {
                    flush(qubit, &mut pending, &mut out);
                }
                out.push(*op);
            }
        }
    }
    for qubit in 0..num_qubits {
        flush(qubit, &mut pending, &mut out);
    }
    out
}

/// `ops` (over `num_qubits` qubits, of a gate set whose Z rotations are frame changes) with
/// their Z rotations moved and merged (see the [module docs](self)).
pub fn merge_z_rotations(ops: &[IsaOp], num_qubits: u32) -> Vec<IsaOp> {
    let pass = |op: &IsaOp, pending: &mut [f64]| match *op {
        IsaOp::One { gate: NativeGate::Rz(theta), qubit } => {
            pending[qubit as usize] += theta;
            Passed::Absorbed
        }
        IsaOp::One { gate, qubit } if is_pi_flip(gate) => {
            pending[qubit as usize] = -pending[qubit as usize];
            Passed::Through(*op)
        }
        IsaOp::Two { gate: NativeGate::Cz, .. } => Passed::Through(*op),
        IsaOp::Two { gate: NativeGate::ISwap, a, b } => {
            pending.swap(a as usize, b as usize);
            Passed::Through(*op)
        }
        _ => Passed::Blocks,
    };
    carry_z(ops, num_qubits, pass, |qubit, angle| vec![IsaOp::One { gate: NativeGate::Rz(wrap(angle)), qubit }])
}

/// Whether a gate is a rotation by pi about an axis in the XY plane that lies on X (`x`,
/// `rx(pi)`), which turns a Z rotation before it into the opposite one after it.
fn is_pi_flip(gate: NativeGate) -> bool {
    match gate {
        NativeGate::X => true,
        NativeGate::Rx(angle) => is_zero_angle(angle - std::f64::consts::PI),
        _ => false,
    }
}

/// `ops` (over `num_qubits` qubits: `prx`, `cz` and virtual `rz`) with every `rz` folded away
/// (see the [module docs](self)).
pub fn fold_into_prx(ops: &[IsaOp], num_qubits: u32) -> Vec<IsaOp> {
    let pass = |op: &IsaOp, pending: &mut [f64]| match *op {
        IsaOp::One { gate: NativeGate::Rz(theta), qubit } => {
            pending[qubit as usize] += theta;
            Passed::Absorbed
        }
        IsaOp::One { gate: NativeGate::Prx(theta, phi), qubit } => {
            Passed::Through(IsaOp::One { gate: NativeGate::Prx(theta, wrap(phi - pending[qubit as usize])), qubit })
        }
        IsaOp::Two { gate: NativeGate::Cz, .. } => Passed::Through(*op),
        _ => Passed::Blocks,
    };
    let pi = std::f64::consts::PI;
    carry_z(ops, num_qubits, pass, |qubit, angle| {
        vec![
            IsaOp::One { gate: NativeGate::Prx(pi, 0.0), qubit },
            IsaOp::One { gate: NativeGate::Prx(pi, wrap(angle / 2.0)), qubit },
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::SplitMix;

    #[test]
    fn rotations_pass_cz_and_x_and_the_unitary_is_kept() {
        let mut rng = SplitMix(4);
        for _ in 0..20 {
            let mut ops = Vec::new();
            for _ in 0..30 {
                let q = rng.below(3) as u32;
                ops.push(match rng.below(5) {
                    0 => IsaOp::One { gate: NativeGate::Sx, qubit: q },
                    1 => IsaOp::One { gate: NativeGate::X, qubit: q },
                    2 => IsaOp::Two { gate: NativeGate::Cz, a: q, b: (q + 1) % 3 },
                    _ => IsaOp::One { gate: NativeGate::Rz(rng.next_f64() * 6.0 - 3.0), qubit: q },
                });
            }
            let merged = merge_z_rotations(&ops, 3);
            let rz = |ops: &[IsaOp]| {
                ops.iter().filter(|op| matches!(op, IsaOp::One { gate: NativeGate::Rz(_), .. })).count()
            };
            assert!(rz(&merged) <= rz(&ops));
            // The original followed by the inverse of the merged circuit is the identity, which the
            // equivalence checker sees against an empty program.
            let logical = crate::program::Program { num_qubits: 3, num_clbits: 0, instrs: Vec::new() };
            let mut round_trip = ops.clone();
            round_trip.extend(inverse(&merged));
            let found =
                crate::verify::check_equivalence(&logical, &round_trip, &[Some(0), Some(1), Some(2)], &[0, 1, 2], 9);
            assert_eq!(found, Ok(crate::verify::Equivalence::Equivalent), "{ops:?}");
        }
    }

    /// The inverse of a circuit of `rz`, `sx`, `x` and `cz` (`sx` inverted as `sx` three times).
    fn inverse(ops: &[IsaOp]) -> Vec<IsaOp> {
        ops.iter()
            .rev()
            .flat_map(|op| match *op {
                IsaOp::One { gate: NativeGate::Rz(t), qubit } => vec![IsaOp::One { gate: NativeGate::Rz(-t), qubit }],
                IsaOp::One { gate: NativeGate::Sx, qubit } => vec![IsaOp::One { gate: NativeGate::Sx, qubit }; 3],
                other => vec![other],
            })
            .collect()
    }
}
