//! Final permutations taken into the layout: where the last run of gates on a pair costs more
//! than the same run followed by a SWAP, the run becomes `SWAP . run` and the two qubits'
//! places in the final layout are exchanged, since nothing after the run reads them where they
//! are (Qiskit's idea of eliding a permutation into the layout).
//!
//! A SWAP left at the end by routing then costs nothing instead of three CX; a last run of
//! the iSWAP's class takes one CX instead of two; on iSWAP targets a last CX takes one iSWAP
//! instead of two. Measurements taken out of the program before compiling follow the final
//! layout (see [`crate::compile::Compiled::measure_at_end`]); a measurement kept in the program
//! ends the run before it, so that run is not last.

use qchess_circuit::ir::{GateKind, Matrix4};

use crate::iswap::{fewest_iswaps, iswap_count};
use crate::kak::{cx_count, synthesize};
use crate::linalg::mul4;
use crate::program::{Instr, Program};
use crate::resynth::{replace_runs, runs};
use crate::target::Basis;

/// What the target pays for a two-qubit run: its CX, or the native iSWAPs it is rebuilt in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunCost {
    /// CX (CZ, ECR, and the other gates one CX becomes).
    Cx,
    /// Native iSWAPs ([`crate::iswap`]).
    ISwap,
}

impl RunCost {
    /// How a target of `basis` pays: in iSWAPs on iSWAP targets, where runs are rebuilt in them
    /// before translation, in CX on the others.
    pub fn of(basis: Basis) -> RunCost {
        if basis == Basis::RigettiIswap { RunCost::ISwap } else { RunCost::Cx }
    }
}

/// Exchanges the last run on a pair for `SWAP . run` wherever that costs less by `cost`, and the
/// pair's places in `final_layout` (physical qubit of each logical qubit) with it; returns how
/// many runs it changed.
pub fn elide_final_swaps(program: &mut Program, final_layout: &mut [u32], cost: RunCost) -> usize {
    let Some(swap) = GateKind::Swap.matrix4() else { return 0 };
    let mut rebuilt = Vec::new();
    for run in runs(program).into_iter().filter(|run| run.last) {
        let Some(unitary) = run.unitary(program) else { continue };
        let swapped = mul4(&swap, &unitary);
        let (Some(kept), Some(moved)) =
            (cheapest(&unitary, run.a, run.b, cost), cheapest(&swapped, run.a, run.b, cost))
        else {
            continue;
        };
        if moved.0 < kept.0 {
            for place in final_layout.iter_mut() {
                if *place == run.a {
                    *place = run.b;
                } else if *place == run.b {
                    *place = run.a;
                }
            }
            rebuilt.push((run, moved.1));
        }
    }
    let changed = rebuilt.len();
    replace_runs(program, rebuilt);
    changed
}

/// `u`'s cost by `cost` and its circuit of the fewest CX.
fn cheapest(u: &Matrix4, a: u32, b: u32, cost: RunCost) -> Option<(usize, Vec<Instr>)> {
    let circuit = synthesize(u, a, b, 4)?;
    let count = match cost {
        RunCost::Cx => cx_count(&circuit),
        RunCost::ISwap => iswap_count(&fewest_iswaps(u, a, b)?),
    };
    Some((count, circuit))
}

#[cfg(test)]
mod tests;
