//! Two-qubit block resynthesis: every maximal run of CX on one pair (with the one-qubit gates on
//! its two qubits in between) is multiplied into its 4x4 unitary and rebuilt with the fewest CX
//! the KAK decomposition allows ([`crate::kak`]), when that is fewer than the run has.
//!
//! A run starts at a CX and takes every later CX on the same pair and one-qubit gate on either
//! of its qubits; anything else on one of them (a CX with a third qubit, a SWAP or iSWAP power,
//! a measurement, a reset) ends it. After routing, SWAPs have become three CX, so a SWAP next to
//! gates on the same pair is absorbed: a SWAP and a CX take two CX, not four. The rebuilt run
//! replaces the old one where the old one ended; nothing between its first and last gate touched
//! its qubits, so the order of everything else is kept.

use qchess_circuit::ir::Matrix4;

use crate::kak::{cx_count, matrix_of, synthesize};
use crate::program::{Instr, Program};

/// One run: its pair (the first CX's control and target), its instructions' indices, how many
/// of them are CX, and whether it is the last of the program on both its qubits.
pub(crate) struct Run {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) members: Vec<usize>,
    pub(crate) cx: usize,
    pub(crate) last: bool,
}

impl Run {
    /// The run's 4x4 unitary (`a` is index bit 0).
    pub(crate) fn unitary(&self, program: &Program) -> Option<Matrix4> {
        let instrs: Vec<Instr> = self.members.iter().map(|&i| program.instrs[i]).collect();
        matrix_of(&instrs, self.a, self.b)
    }
}

/// Rebuilds every run of CX on one pair with fewer CX where it can; returns how many CX it
/// saved.
pub fn resynthesize(program: &mut Program) -> usize {
    let mut saved = 0;
    let mut rebuilt = Vec::new();
    for run in runs(program).into_iter().filter(|run| run.cx >= 2) {
        let Some(unitary) = run.unitary(program) else { continue };
        let Some(circuit) = synthesize(&unitary, run.a, run.b, run.cx) else { continue };
        saved += run.cx - cx_count(&circuit);
        rebuilt.push((run, circuit));
    }
    replace_runs(program, rebuilt);
    saved
}

/// The maximal runs of CX on one pair in `program`, in the order they start.
pub(crate) fn runs(program: &Program) -> Vec<Run> {
    let n = program.num_qubits as usize;
    let mut open: Vec<Option<usize>> = vec![None; n];
    let mut runs: Vec<Run> = Vec::new();
    let close = |open: &mut Vec<Option<usize>>, runs: &[Run], q: u32| {
        if let Some(r) = open[q as usize].take() {
            let run = &runs[r];
            for other in [run.a, run.b] {
                if open[other as usize] == Some(r) {
                    open[other as usize] = None;
                }
            }
        }
    };
    for (index, instr) in program.instrs.iter().enumerate() {
        match *instr {
            Instr::One { qubit, .. } => {
                if let Some(r) = open[qubit as usize] {
                    runs[r].members.push(index);
                }
            }
            Instr::Cx { control, target } => {
                let same = open[control as usize].filter(|&r| open[target as usize] == Some(r));
                if let Some(r) = same {
                    runs[r].members.push(index);
                    runs[r].cx += 1;
                } else {
                    close(&mut open, &runs, control);
                    close(&mut open, &runs, target);
                    open[control as usize] = Some(runs.len());
                    open[target as usize] = Some(runs.len());
                    runs.push(Run { a: control, b: target, members: vec![index], cx: 1, last: false });
                }
            }
            other => {
                let (a, b) = other.qubits();
                close(&mut open, &runs, a);
                if let Some(b) = b {
                    close(&mut open, &runs, b);
                }
            }
        }
    }
    for r in open.into_iter().flatten() {
        runs[r].last = true;
    }
    runs
}

/// Replaces each run by its new instructions, where the run ended (nothing between its first
/// and last instruction touched its qubits, so the order of everything else is kept).
pub(crate) fn replace_runs(program: &mut Program, rebuilt: Vec<(Run, Vec<Instr>)>) {
    if rebuilt.is_empty() {
        return;
    }
    let mut replacement: Vec<Option<Vec<Instr>>> = vec![None; program.instrs.len()];
    let mut dropped = vec![false; program.instrs.len()];
    for (run, instrs) in rebuilt {
        run.members.iter().for_each(|&i| dropped[i] = true);
        let last = *run.members.last().unwrap_or(&0);
        replacement[last] = Some(instrs);
    }
    let mut out = Vec::with_capacity(program.instrs.len());
    for (index, instr) in program.instrs.iter().enumerate() {
        if let Some(instrs) = replacement[index].take() {
            out.extend(instrs);
        } else if !dropped[index] {
            out.push(*instr);
        }
    }
    program.instrs = out;
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::GateKind;

    use super::*;
    use crate::verify::{Equivalence, SplitMix, check_equivalence};

    fn one(qubit: u32, kind: GateKind) -> Instr {
        Instr::One { qubit, matrix: kind.matrix2().expect("1q") }
    }

    /// The program as ISA operations of the all-to-all CZ target, to check it with the
    /// equivalence checker.
    fn equivalent(before: &Program, after: &Program) -> bool {
        let target = crate::target::Target::resolve(&format!("all:{}@cz", before.num_qubits)).expect("preset");
        let mut lowered = after.clone();
        crate::translate::cx_to_native(&mut lowered, &target).expect("coupled");
        let ops = crate::translate::synthesize(&lowered, target.basis).expect("native");
        let layout: Vec<u32> = (0..before.num_qubits).collect();
        let initial: Vec<Option<u32>> = layout.iter().copied().map(Some).collect();
        check_equivalence(before, &ops, &initial, &layout, 1) == Ok(Equivalence::Equivalent)
    }

    #[test]
    fn a_swap_next_to_a_cx_takes_two_and_the_rest_is_untouched() {
        let before = Program {
            num_qubits: 3,
            num_clbits: 1,
            instrs: vec![
                one(2, GateKind::H),
                Instr::Cx { control: 0, target: 1 },
                one(2, GateKind::T),
                // A SWAP of 0 and 1 as three CX.
                Instr::Cx { control: 0, target: 1 },
                Instr::Cx { control: 1, target: 0 },
                Instr::Cx { control: 0, target: 1 },
                one(0, GateKind::S),
                Instr::Cx { control: 1, target: 2 },
                Instr::Measure { qubit: 1, clbit: 0 },
            ],
        };
        let mut after = before.clone();
        assert_eq!(resynthesize(&mut after), 2);
        assert_eq!(after.two_qubit_count(), 3);
        assert!(equivalent(&before, &after));
        assert_eq!(after.instrs.last(), before.instrs.last(), "the measurement stays last");
    }

    #[test]
    fn runs_stop_at_other_qubits_and_random_programs_stay_equivalent() {
        // CX 0-1, CX 1-2, CX 0-1: no two CX on one pair are adjacent, nothing to do.
        let mut interleaved = Program {
            num_qubits: 3,
            num_clbits: 0,
            instrs: vec![
                Instr::Cx { control: 0, target: 1 },
                Instr::Cx { control: 1, target: 2 },
                Instr::Cx { control: 0, target: 1 },
            ],
        };
        assert_eq!(resynthesize(&mut interleaved), 0);
        assert_eq!(interleaved.instrs.len(), 3);
        let mut rng = SplitMix(17);
        for seed in 0..30 {
            let mut instrs = Vec::new();
            for _ in 0..40 {
                let a = rng.below(4) as u32;
                let b = (a + 1 + rng.below(3) as u32) % 4;
                if rng.below(3) == 0 {
                    let kind = GateKind::U(rng.next_f64() * 3.0, rng.next_f64(), rng.next_f64() * 2.0);
                    instrs.push(one(a, kind));
                } else {
                    // Mostly two pairs, so that runs form.
                    let (a, b) = if rng.below(2) == 0 { (a % 2, 1 - a % 2) } else { (a, b) };
                    instrs.push(Instr::Cx { control: a, target: b });
                }
            }
            let before = Program { num_qubits: 4, num_clbits: 0, instrs };
            let mut after = before.clone();
            let saved = resynthesize(&mut after);
            assert_eq!(after.two_qubit_count() + saved, before.two_qubit_count(), "seed {seed}");
            assert!(equivalent(&before, &after), "seed {seed}");
        }
    }
}
