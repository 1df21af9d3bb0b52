//! Peephole passes: one-qubit runs fused into one matrix, and adjacent inverse pairs of
//! self-inverse two-qubit gates cancelled (looking through one-qubit gates that commute with
//! them: diagonal ones on a CX control or either side of a CZ, X-axis ones on a CX target).

use crate::linalg::{EPS, identity2, is_identity_up_to_phase, mul2};
use crate::native::NativeGate;
use crate::program::{Instr, Program};

/// How far back cancellation looks through commuting one-qubit gates.
const LOOK_BACK: usize = 8;

/// Fuses and cancels until nothing changes (a few rounds at most).
pub fn optimize(program: &mut Program) {
    for _ in 0..6 {
        let before = program.instrs.len();
        fuse_one_qubit_runs(program);
        cancel_inverse_pairs(program);
        if program.instrs.len() == before {
            break;
        }
    }
    fuse_one_qubit_runs(program);
}

/// Multiplies every run of one-qubit gates on a qubit into one (dropped if the identity).
pub fn fuse_one_qubit_runs(program: &mut Program) {
    let mut pending: Vec<Option<qchess_circuit::ir::Matrix2>> = vec![None; program.num_qubits as usize];
    let mut out = Vec::with_capacity(program.instrs.len());
    let flush = |q: u32, pending: &mut Vec<Option<qchess_circuit::ir::Matrix2>>, out: &mut Vec<Instr>| {
        if let Some(matrix) = pending[q as usize].take()
            && !is_identity_up_to_phase(&matrix)
        {
            out.push(Instr::One { qubit: q, matrix });
        }
    };
    for instr in &program.instrs {
        match *instr {
            Instr::One { qubit, matrix } => {
                let slot = &mut pending[qubit as usize];
                *slot = Some(mul2(&matrix, &slot.unwrap_or_else(identity2)));
            }
            other => {
                let (a, b) = other.qubits();
                flush(a, &mut pending, &mut out);
                if let Some(b) = b {
                    flush(b, &mut pending, &mut out);
                }
                out.push(other);
            }
        }
    }
    for q in 0..program.num_qubits {
        flush(q, &mut pending, &mut out);
    }
    program.instrs = out;
}

/// Removes pairs of equal self-inverse two-qubit gates with nothing between them but
/// one-qubit gates that commute with them.
pub fn cancel_inverse_pairs(program: &mut Program) {
    let mut out: Vec<Option<Instr>> = Vec::with_capacity(program.instrs.len());
    let mut stacks: Vec<Vec<usize>> = vec![Vec::new(); program.num_qubits as usize];
    for instr in &program.instrs {
        if let (a, Some(b)) = instr.qubits()
            && let Some(i) = partner_before(instr, a, &stacks[a as usize], &out)
            && partner_before(instr, b, &stacks[b as usize], &out) == Some(i)
        {
            out[i] = None;
            continue;
        }
        let (a, b) = instr.qubits();
        stacks[a as usize].push(out.len());
        if let Some(b) = b {
            stacks[b as usize].push(out.len());
        }
        out.push(Some(*instr));
    }
    let mut kept = Vec::with_capacity(out.len());
    kept.extend(out.into_iter().flatten());
    program.instrs = kept;
}

/// The index of the last live instruction on `qubit` that is not a one-qubit gate commuting
/// with `instr`, if it cancels `instr`.
fn partner_before(instr: &Instr, qubit: u32, stack: &[usize], out: &[Option<Instr>]) -> Option<usize> {
    let mut looked = 0;
    for &i in stack.iter().rev() {
        let Some(previous) = &out[i] else { continue };
        if let Instr::One { matrix, .. } = previous
            && looked < LOOK_BACK
            && commutes_on(instr, qubit, matrix)
        {
            looked += 1;
            continue;
        }
        return cancels(previous, instr).then_some(i);
    }
    None
}

/// Whether `a` then `b` is the identity (both self-inverse and equal).
fn cancels(a: &Instr, b: &Instr) -> bool {
    match (*a, *b) {
        (Instr::Cx { control: c1, target: t1 }, Instr::Cx { control: c2, target: t2 }) => c1 == c2 && t1 == t2,
        (Instr::Swap { a: a1, b: b1 }, Instr::Swap { a: a2, b: b2 }) => (a1, b1) == (a2, b2) || (a1, b1) == (b2, a2),
        (Instr::Native { gate: g1, a: a1, b: b1 }, Instr::Native { gate: g2, a: a2, b: b2 }) => match (g1, g2) {
            (NativeGate::Cz, NativeGate::Cz) => (a1, b1) == (a2, b2) || (a1, b1) == (b2, a2),
            (NativeGate::Ecr, NativeGate::Ecr) => (a1, b1) == (a2, b2),
            _ => false,
        },
        _ => false,
    }
}

/// Whether the one-qubit `matrix` on `qubit` commutes with the two-qubit `instr`.
fn commutes_on(instr: &Instr, qubit: u32, matrix: &qchess_circuit::ir::Matrix2) -> bool {
    let small = |z: num_complex::Complex64| z.norm_sqr() < EPS * EPS;
    let diagonal = small(matrix[0][1]) && small(matrix[1][0]);
    let x_axis = small(matrix[0][0] - matrix[1][1]) && small(matrix[0][1] - matrix[1][0]);
    match *instr {
        Instr::Cx { control, .. } => {
            if qubit == control {
                diagonal
            } else {
                x_axis
            }
        }
        Instr::Native { gate: NativeGate::Cz, .. } => diagonal,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::GateKind;

    use super::*;

    fn one(qubit: u32, kind: GateKind) -> Instr {
        Instr::One { qubit, matrix: kind.matrix2().expect("1q") }
    }

    #[test]
    fn cx_pairs_cancel_through_commuting_gates_only() {
        let mut program = Program {
            num_qubits: 2,
            num_clbits: 0,
            instrs: vec![
                Instr::Cx { control: 0, target: 1 },
                one(0, GateKind::T),
                one(1, GateKind::X),
                Instr::Cx { control: 0, target: 1 },
            ],
        };
        optimize(&mut program);
        assert_eq!(program.two_qubit_count(), 0);
        assert_eq!(program.instrs.len(), 2);

        let mut blocked = Program {
            num_qubits: 2,
            num_clbits: 0,
            instrs: vec![Instr::Cx { control: 0, target: 1 }, one(0, GateKind::H), Instr::Cx { control: 0, target: 1 }],
        };
        optimize(&mut blocked);
        assert_eq!(blocked.two_qubit_count(), 2);
    }

    #[test]
    fn one_qubit_runs_fuse_and_identities_vanish() {
        let mut program = Program {
            num_qubits: 1,
            num_clbits: 0,
            instrs: vec![one(0, GateKind::H), one(0, GateKind::H), one(0, GateKind::S), one(0, GateKind::T)],
        };
        optimize(&mut program);
        assert_eq!(program.instrs.len(), 1);
        let Instr::One { matrix, .. } = program.instrs[0] else { panic!("one-qubit") };
        let expected = GateKind::Phase(3.0 * std::f64::consts::FRAC_PI_4).matrix2().expect("1q");
        assert!(crate::linalg::equal_up_to_phase2(&matrix, &expected));
    }
}
