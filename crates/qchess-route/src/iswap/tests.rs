use qchess_circuit::ir::GateKind;

use super::*;
use crate::kak::{cx_count, matrix_of};
use crate::linalg::equal_up_to_phase;
use crate::program::Program;
use crate::verify::SplitMix;

fn random_one(rng: &mut SplitMix) -> Instr {
    let angle = |rng: &mut SplitMix| rng.next_f64() * 6.4 - 3.2;
    let qubit = rng.below(2) as u32;
    Instr::One { qubit, matrix: GateKind::U(angle(rng), angle(rng), angle(rng)).matrix2().expect("1q") }
}

/// The product of one-qubit gates and native iSWAPs on 0 (bit 0) and 1, in time order.
fn product(circuit: &[Instr]) -> Matrix4 {
    let iswap = GateKind::ISwap(1.0).matrix4().expect("2q");
    let mut m = matrix_of(&[], 0, 1).expect("the identity");
    for instr in circuit {
        let step = match instr {
            Instr::Native { gate: NativeGate::ISwap, .. } => iswap,
            one => matrix_of(std::slice::from_ref(one), 0, 1).expect("one-qubit gates on 0 and 1 only"),
        };
        m = mul4(&step, &m);
    }
    m
}

/// The iSWAPs `fewest_iswaps` takes for `u`, checking its circuit's product.
fn iswaps(u: &Matrix4) -> usize {
    let circuit = fewest_iswaps(u, 0, 1).expect("every two-qubit unitary takes at most 3 iSWAPs");
    assert!(equal_up_to_phase(&product(&circuit).concat(), &u.concat()), "{circuit:?}");
    assert!(circuit.iter().all(|i| matches!(i, Instr::One { .. } | Instr::Native { gate: NativeGate::ISwap, .. })));
    iswap_count(&circuit)
}

#[test]
fn known_gates_take_the_fewest_iswaps() {
    let two = |kind: GateKind| kind.matrix4().expect("2q");
    let local = matrix_of(&[random_one(&mut SplitMix(1)), random_one(&mut SplitMix(2))], 0, 1).expect("1q");
    assert_eq!(iswaps(&local), 0);
    assert_eq!(iswaps(&two(GateKind::ISwap(1.0))), 1);
    assert_eq!(iswaps(&two(GateKind::ISwap(-1.0))), 1);
    assert_eq!(iswaps(&two(GateKind::ISwap(0.5))), 2);
    assert_eq!(iswaps(&NativeGate::Cz.matrix4().expect("2q")), 2);
    assert_eq!(iswaps(&matrix_of(&[Instr::Cx { control: 0, target: 1 }], 0, 1).expect("CX")), 2);
    assert_eq!(iswaps(&two(GateKind::Swap)), 3);
}

#[test]
fn random_runs_take_at_most_three_iswaps_and_keep_their_product() {
    let mut rng = SplitMix(7);
    for cx in 0..6 {
        for _ in 0..40 {
            let mut run = Vec::new();
            for _ in 0..cx {
                run.extend([random_one(&mut rng), random_one(&mut rng)]);
                let (control, target) = if rng.below(2) == 0 { (0, 1) } else { (1, 0) };
                run.push(Instr::Cx { control, target });
            }
            run.push(random_one(&mut rng));
            let u = matrix_of(&run, 0, 1).expect("1q and CX");
            let taken = iswaps(&u);
            assert!(taken <= 3.min(2 * cx), "{cx} CX took {taken} iSWAPs");
        }
    }
}

#[test]
fn a_program_keeps_everything_outside_its_runs() {
    // A run on 0 and 1 of a SWAP (three CX) and a CX: the iSWAP's class, one iSWAP instead of
    // eight. A gate on qubit 2 inside it, and a measurement after it.
    let before = Program {
        num_qubits: 3,
        num_clbits: 1,
        instrs: vec![
            Instr::Cx { control: 0, target: 1 },
            Instr::Cx { control: 1, target: 0 },
            Instr::Cx { control: 0, target: 1 },
            Instr::One { qubit: 2, matrix: GateKind::H.matrix2().expect("1q") },
            Instr::Cx { control: 1, target: 0 },
            Instr::Measure { qubit: 0, clbit: 0 },
        ],
    };
    let mut after = before.clone();
    assert_eq!(rebuild_in_iswaps(&mut after), 7);
    assert_eq!(iswap_count(&after.instrs), 1);
    assert_eq!(cx_count(&after.instrs), 0);
    assert_eq!(after.instrs.last(), before.instrs.last(), "the measurement stays last");
    let run: Vec<Instr> =
        after.instrs.iter().copied().filter(|i| i.qubits().0 != 2 && !matches!(i, Instr::Measure { .. })).collect();
    let expected = matrix_of(&before.instrs[..3].iter().chain(&before.instrs[4..5]).copied().collect::<Vec<_>>(), 0, 1)
        .expect("CX");
    assert!(equal_up_to_phase(&product(&run).concat(), &expected.concat()));
}
