use qchess_circuit::ir::GateKind;

use super::*;

fn one(qubit: u32, kind: GateKind) -> Instr {
    Instr::One { qubit, matrix: kind.matrix2().expect("1q") }
}

#[test]
fn a_last_swap_goes_into_the_layout_and_an_earlier_one_stays() {
    // Logical 0 on physical 1, logical 1 on physical 0 (after the last SWAP), logical 2 on 2.
    let swap_of = |a: u32, b: u32| {
        [Instr::Cx { control: a, target: b }, Instr::Cx { control: b, target: a }, Instr::Cx { control: a, target: b }]
    };
    let mut instrs = vec![one(0, GateKind::H)];
    instrs.extend(swap_of(1, 2));
    instrs.push(Instr::Cx { control: 2, target: 1 });
    instrs.push(Instr::Measure { qubit: 1, clbit: 0 });
    instrs.extend(swap_of(0, 1));
    instrs.push(one(1, GateKind::T));
    let mut program = Program { num_qubits: 3, num_clbits: 1, instrs };
    let mut final_layout = vec![1, 0, 2];
    assert_eq!(elide_final_swaps(&mut program, &mut final_layout, RunCost::Cx), 1);
    assert_eq!(final_layout, vec![0, 1, 2], "the last SWAP's qubits exchanged places");
    // The run before the measurement keeps its four CX; the last SWAP is gone, its T now on 0.
    assert_eq!(program.two_qubit_count(), 4);
    let after_measure = program.instrs.iter().position(|i| matches!(i, Instr::Measure { .. })).expect("kept");
    assert!(program.instrs[after_measure + 1..].iter().all(|i| matches!(i, Instr::One { .. })));
}

#[test]
fn a_last_cx_stays_on_cx_targets_and_goes_into_the_layout_on_iswap_ones() {
    let program = Program { num_qubits: 2, num_clbits: 0, instrs: vec![Instr::Cx { control: 0, target: 1 }] };
    let mut layout = vec![0, 1];
    assert_eq!(elide_final_swaps(&mut program.clone(), &mut layout, RunCost::Cx), 0);
    assert_eq!(layout, vec![0, 1]);
    // SWAP . CX is the iSWAP's class: one iSWAP, where CX takes two.
    let mut moved = program.clone();
    assert_eq!(elide_final_swaps(&mut moved, &mut layout, RunCost::ISwap), 1);
    assert_eq!(layout, vec![1, 0]);
    assert_eq!(moved.two_qubit_count(), 2, "SWAP . CX in CX form, one iSWAP once rebuilt");
}
