use super::*;
use crate::native::NativeGate;
use crate::verify::SplitMix;

fn random_one(rng: &mut SplitMix) -> Matrix2 {
    let angle = |rng: &mut SplitMix| rng.next_f64() * 6.4 - 3.2;
    GateKind::U(angle(rng), angle(rng), angle(rng)).matrix2().expect("1q")
}

/// A random circuit of `cx` CX (random directions) between random one-qubit layers on 0 and 1.
fn random_circuit(cx: usize, rng: &mut SplitMix) -> Vec<Instr> {
    let mut instrs = Vec::new();
    for k in 0..=cx {
        instrs.push(Instr::One { qubit: 0, matrix: random_one(rng) });
        instrs.push(Instr::One { qubit: 1, matrix: random_one(rng) });
        if k < cx {
            let (control, target) = if rng.below(2) == 0 { (0, 1) } else { (1, 0) };
            instrs.push(Instr::Cx { control, target });
        }
    }
    instrs
}

/// The fewest CX `synthesize` finds for `u`, checking its circuit's product.
fn fewest(u: &Matrix4) -> usize {
    let circuit = synthesize(u, 0, 1, 4).expect("every two-qubit unitary takes at most 3 CX");
    let product = matrix_of(&circuit, 0, 1).expect("1q and CX on 0, 1");
    assert!(same_up_to_phase(&product, u, 1e-9));
    cx_count(&circuit)
}

#[test]
fn the_magic_basis_turns_one_qubit_pairs_real() {
    let mut rng = SplitMix(3);
    let b = magic();
    for _ in 0..20 {
        let local = kron(&random_one(&mut rng), &random_one(&mut rng));
        let in_magic = mul4(&adjoint(&b), &mul4(&special(&local), &b));
        // Real up to the sign a fourth root of the determinant may leave.
        let phase = in_magic.iter().flatten().max_by(|x, y| x.norm().total_cmp(&y.norm())).expect("entries");
        let phase = phase / phase.norm();
        assert!(in_magic.iter().flatten().all(|x| (x / phase).im.abs() < 1e-12), "{in_magic:?}");
    }
}

#[test]
fn known_gates_take_their_known_cx_counts() {
    let two = |kind: GateKind| kind.matrix4().expect("2q");
    let local = kron(&GateKind::H.matrix2().expect("1q"), &GateKind::T.matrix2().expect("1q"));
    assert_eq!(fewest(&local), 0);
    for gate in [NativeGate::Cz, NativeGate::Ecr] {
        assert_eq!(fewest(&gate.matrix4().expect("2q")), 1, "{gate:?}");
    }
    assert_eq!(fewest(&NativeGate::SqrtIswap.matrix4().expect("2q")), 2);
    assert_eq!(fewest(&two(GateKind::ISwap(1.0))), 2);
    assert_eq!(fewest(&two(GateKind::ISwap(0.3))), 2);
    assert_eq!(fewest(&two(GateKind::Rxx(0.7))), 2);
    assert_eq!(fewest(&two(GateKind::Swap)), 3);
    let swap_cx = matrix_of(
        &[
            Instr::Cx { control: 0, target: 1 },
            Instr::Cx { control: 1, target: 0 },
            Instr::Cx { control: 0, target: 1 },
            Instr::Cx { control: 0, target: 1 },
        ],
        0,
        1,
    )
    .expect("CX");
    assert_eq!(fewest(&swap_cx), 2, "a SWAP next to a CX on the same pair is two CX");
}

#[test]
fn random_circuits_resynthesise_exactly_with_no_more_cx() {
    let mut rng = SplitMix(11);
    for cx in 0..7 {
        for _ in 0..25 {
            let circuit = random_circuit(cx, &mut rng);
            let u = matrix_of(&circuit, 0, 1).expect("1q and CX");
            let found = fewest(&u);
            assert!(found <= cx.min(3), "{cx} CX became {found}");
            if cx >= 3 {
                assert_eq!(found, 3, "random circuits of {cx} CX are generic");
            }
        }
    }
}

#[test]
fn below_limits_what_is_returned_and_qubits_are_kept() {
    let mut rng = SplitMix(5);
    let u = matrix_of(&random_circuit(3, &mut rng), 0, 1).expect("1q and CX");
    assert!(synthesize(&u, 0, 1, 3).is_none(), "three are needed, fewer asked for");
    let on_other_qubits = synthesize(&u, 7, 4, 4).expect("three CX");
    assert!(on_other_qubits.iter().all(|i| {
        let (x, y) = i.qubits();
        [7, 4].contains(&x) && y.is_none_or(|y| [7, 4].contains(&y))
    }));
    let product = matrix_of(&on_other_qubits, 7, 4).expect("on 7 and 4");
    assert!(same_up_to_phase(&product, &u, 1e-9));
}
