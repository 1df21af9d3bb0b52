//! Two-qubit runs rebuilt straight in iSWAPs, for targets whose two-qubit gate is the iSWAP
//! (Rigetti's Ankaa).
//!
//! Lowered one CX at a time, a run of `k` CX takes `2k` iSWAPs (see [`crate::translate`]). But
//! `CZ = SWAP . iSWAP . (S^-1 (x) S^-1)`, and a SWAP moves past one-qubit gates by exchanging
//! their qubits, so a circuit of `k` CX (each `H . CZ . H`) with one-qubit gates between is
//! `SWAP^k` times a circuit of `k` iSWAPs with the same one-qubit gates, those after an odd
//! number of iSWAPs on the other qubit. A run `U` is therefore built from the fewest CX of
//! even count for `U` itself (0 or 2) or of odd count for `SWAP . U` (1 or 3), whichever is
//! fewer, and costs as many iSWAPs:
//!
//! | run | iSWAPs | one CX at a time |
//! |---|---|---|
//! | one-qubit gates only | 0 | 0 |
//! | the iSWAP's class | 1 | 4 |
//! | third KAK coordinate zero (CX, sqrt-iSWAP) | 2 | 2 to 4 |
//! | any other (SWAP among them) | 3 | 6 |
//!
//! which is the fewest any circuit of iSWAPs and one-qubit gates can take.

use qchess_circuit::ir::{GateKind, Matrix4};

use crate::kak::{cx_count, synthesize_with};
use crate::linalg::mul4;
use crate::native::NativeGate;
use crate::program::{Instr, Program, one};
use crate::resynth::{replace_runs, runs};

/// Rebuilds every run of CX on one pair in native iSWAPs where that takes fewer than two a CX;
/// returns how many iSWAPs it saved against lowering each CX alone.
pub fn rebuild_in_iswaps(program: &mut Program) -> usize {
    let mut saved = 0;
    let mut rebuilt = Vec::new();
    for run in runs(program) {
        let Some(unitary) = run.unitary(program) else { continue };
        let Some(circuit) = fewest_iswaps(&unitary, run.a, run.b) else { continue };
        let iswaps = iswap_count(&circuit);
        if iswaps < 2 * run.cx {
            saved += 2 * run.cx - iswaps;
            rebuilt.push((run, circuit));
        }
    }
    replace_runs(program, rebuilt);
    saved
}

/// One-qubit gates and the fewest native iSWAPs on `a` (index bit 0 of `u`) and `b` whose
/// product is `u` up to a global phase; `None` if the decompositions do not check out.
pub fn fewest_iswaps(u: &Matrix4, a: u32, b: u32) -> Option<Vec<Instr>> {
    let even = synthesize_with(u, a, b, [0, 2]);
    // With an odd count the circuit of iSWAPs is SWAP times the CX circuit's product.
    let odd = synthesize_with(&mul4(&GateKind::Swap.matrix4()?, u), a, b, [1, 3]);
    let fewest = [even, odd].into_iter().flatten().min_by_key(|circuit| cx_count(circuit))?;
    Some(in_iswaps(&fewest, a, b))
}

/// How many native iSWAPs `circuit` has.
pub fn iswap_count(circuit: &[Instr]) -> usize {
    circuit.iter().filter(|i| matches!(i, Instr::Native { gate: NativeGate::ISwap, .. })).count()
}

/// `SWAP^k` times `circuit` (one-qubit gates and `k` CX on `a` and `b`) as one-qubit gates and
/// `k` native iSWAPs: each `CX(c, t) = H_t . SWAP . iSWAP . (S^-1 (x) S^-1) . H_t`, its SWAP
/// moved to the end.
fn in_iswaps(circuit: &[Instr], a: u32, b: u32) -> Vec<Instr> {
    let mut out = Vec::with_capacity(circuit.len() + 4 * 3);
    // Whether an odd number of SWAPs has been moved past: the gates after act on the other qubit.
    let mut exchanged = false;
    let at = |qubit: u32, exchanged: bool| {
        if !exchanged {
            qubit
        } else if qubit == a {
            b
        } else {
            a
        }
    };
    for instr in circuit {
        match *instr {
            Instr::Cx { target, .. } => {
                out.extend([
                    one(at(target, exchanged), GateKind::H),
                    one(a, GateKind::Sdg),
                    one(b, GateKind::Sdg),
                    Instr::Native { gate: NativeGate::ISwap, a, b },
                ]);
                exchanged = !exchanged;
                out.push(one(at(target, exchanged), GateKind::H));
            }
            Instr::One { qubit, matrix } => out.push(Instr::One { qubit: at(qubit, exchanged), matrix }),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests;
