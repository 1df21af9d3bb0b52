//! Random devices with random broken qubits and couplers: no compiled circuit ever puts a gate
//! or a measurement on a broken element, every one stays equivalent to its logical circuit, and
//! a device whose working part is too small says so with the right sizes.

use std::collections::VecDeque;

use proptest::prelude::*;
use qchess_circuit::ir::GateKind;
use qchess_route::program::{Instr, Program};
use qchess_route::target::{Basis, Target};
use qchess_route::verify::{Equivalence, SplitMix, check_structure};
use qchess_route::{CompileOptions, Incremental, RouteError, compile};

/// A random device: a grid with a few extra diagonals, a random gate set (ECR couplers in a
/// random direction), random error rates, and some qubits and couplers broken by an error of at
/// least 0.5 or by an `operational` flag.
fn device(seed: u64) -> Target {
    let mut rng = SplitMix(seed);
    let (rows, columns) = (2 + rng.below(3) as u32, 2 + rng.below(4) as u32);
    let n = rows * columns;
    let basis = [Basis::Cz, Basis::Ecr, Basis::SqrtIswap, Basis::Cz][rng.below(4)];
    let mut pairs = Vec::new();
    for r in 0..rows {
        for c in 0..columns {
            let q = r * columns + c;
            if c + 1 < columns {
                pairs.push((q, q + 1));
            }
            if r + 1 < rows {
                pairs.push((q, q + columns));
                if c + 1 < columns && rng.below(4) == 0 {
                    pairs.push((q, q + columns + 1));
                }
            }
        }
    }
    let coupling: Vec<(u32, u32)> = if basis == Basis::Ecr {
        pairs.iter().map(|&(a, b)| if rng.below(2) == 0 { (a, b) } else { (b, a) }).collect()
    } else {
        pairs.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect()
    };
    let mut target = Target::new(format!("random-{seed}"), u64::from(n), basis, coupling.clone()).expect("valid");
    target.qubit_error = Some((0..n).map(|_| 0.005 + 0.05 * rng.next_f64()).collect());
    target.calibration.sx_error = Some((0..n).map(|_| 0.0001 + 0.001 * rng.next_f64()).collect());
    for &(a, b) in &coupling {
        let error = 0.001 + 0.03 * rng.next_f64();
        target.pair_error.insert((a, b), error);
        if basis != Basis::Ecr {
            target.pair_error.insert((b, a), error);
        }
    }
    for _ in 0..rng.below(3) {
        let q = rng.below(n as usize) as u32;
        match rng.below(3) {
            0 => target.calibration.down_qubits.extend([q]),
            1 => target.qubit_error.as_mut().expect("set")[q as usize] = 0.5 + 0.5 * rng.next_f64(),
            _ => target.calibration.sx_error.as_mut().expect("set")[q as usize] = 1.0,
        }
    }
    for _ in 0..rng.below(4) {
        let (a, b) = coupling[rng.below(coupling.len())];
        if rng.below(2) == 0 {
            target.calibration.down_pairs.insert((a, b));
        } else {
            target.pair_error.insert((a, b), 1.0);
        }
    }
    target
}

/// A random circuit over `n` qubits: CX, iSWAP powers and one-qubit gates, every qubit measured
/// at the end.
fn circuit(n: u32, gates: usize, seed: u64) -> Program {
    let mut rng = SplitMix(seed ^ 0xABCD);
    let mut instrs = Vec::new();
    for _ in 0..gates {
        let a = rng.below(n as usize) as u32;
        if n == 1 || rng.below(3) == 0 {
            let kind = GateKind::U(rng.next_f64() * 3.0, rng.next_f64() * 6.0 - 3.0, rng.next_f64() * 6.0 - 3.0);
            instrs.push(Instr::One { qubit: a, matrix: kind.matrix2().expect("1q") });
        } else {
            let b = (a + 1 + rng.below(n as usize - 1) as u32) % n;
            instrs.push(match rng.below(4) {
                0 => Instr::ISwap { power: [1.0, -1.0, 0.5][rng.below(3)], a, b, swapped: false },
                _ => Instr::Cx { control: a, target: b },
            });
        }
    }
    instrs.extend((0..n).map(|q| Instr::Measure { qubit: q, clbit: q }));
    Program { num_qubits: n, num_clbits: n, instrs }
}

/// The size of the largest connected part of working qubits and couplers, found directly.
fn largest_working_part(target: &Target) -> usize {
    let n = target.num_qubits;
    let works = |a: u32, b: u32| {
        (target.allows(a, b) && !target.is_pair_broken(a, b)) || (target.allows(b, a) && !target.is_pair_broken(b, a))
    };
    let mut seen = vec![false; n as usize];
    let mut largest = 0;
    for start in (0..n).filter(|&q| !target.is_qubit_broken(q)) {
        if seen[start as usize] {
            continue;
        }
        seen[start as usize] = true;
        let (mut size, mut queue) = (0, VecDeque::from([start]));
        while let Some(q) = queue.pop_front() {
            size += 1;
            for p in 0..n {
                if !seen[p as usize] && !target.is_qubit_broken(p) && works(q, p) {
                    seen[p as usize] = true;
                    queue.push_back(p);
                }
            }
        }
        largest = largest.max(size);
    }
    largest
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn no_gate_lands_on_a_broken_element_and_every_circuit_stays_equivalent(
        device_seed in any::<u64>(),
        circuit_seed in any::<u64>(),
        qubits in 1u32..7,
        gates in 0usize..30,
    ) {
        let target = device(device_seed);
        let logical = circuit(qubits.min(target.num_qubits), gates, circuit_seed);
        let largest = largest_working_part(&target);
        match compile(&logical, &target, &CompileOptions { trials: 2, seed: circuit_seed, verify: true, threads: 1 }) {
            Ok(compiled) => {
                prop_assert!(logical.num_qubits as usize <= largest);
                prop_assert_eq!(check_structure(&compiled.ops, &target), Ok(()));
                prop_assert_eq!(target.broken_uses(&compiled.ops), 0);
                prop_assert_eq!(compiled.equivalence, Equivalence::Equivalent);
                let esp = compiled.esp.expect("calibrated");
                prop_assert!(esp > 0.0 && esp <= 1.0, "{}", esp);
            }
            Err(RouteError::NoPartFits { needed, largest: found, .. }) => {
                prop_assert_eq!(needed, logical.num_qubits);
                prop_assert_eq!(found as usize, largest);
                prop_assert!((found as usize) < logical.num_qubits as usize);
            }
            Err(other) => prop_assert!(false, "unexpected error: {}", other),
        }
    }

    #[test]
    fn move_by_move_routing_avoids_broken_elements_too(device_seed in any::<u64>(), circuit_seed in any::<u64>()) {
        let target = device(device_seed);
        let qubits = 3.min(target.num_qubits);
        prop_assume!(largest_working_part(&target) >= qubits as usize);
        let whole = circuit(qubits, 24, circuit_seed);
        let gates: Vec<Instr> = whole.instrs.iter().copied().filter(|i| !matches!(i, Instr::Measure { .. })).collect();
        let mut router = Incremental::new(target.clone(), circuit_seed);
        for chunk in gates.chunks(6) {
            router.extend(&Program { num_qubits: qubits, num_clbits: 0, instrs: chunk.to_vec() }).expect("routes");
        }
        let measured: Vec<u32> = (0..qubits).collect();
        let compiled = router.compiled(circuit_seed, &measured, 0).expect("verified");
        prop_assert_eq!(target.broken_uses(&compiled.ops), 0);
        prop_assert_eq!(compiled.equivalence, Equivalence::Equivalent);
    }
}
