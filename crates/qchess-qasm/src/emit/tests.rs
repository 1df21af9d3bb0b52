//! Tests of the emitters: read the output back and compare unitaries and distributions.

use std::collections::HashMap;

use proptest::prelude::*;
use qchess_circuit::ir::{Circuit, Clbit, Condition, Control, Gate, GateKind, Op, PostSelection, Qubit, QubitRole};
use qchess_core::Square;
use qchess_sim::dense::{DenseSimulator, unitary};

use super::*;
use crate::ast::{Expr, Modifier, Statement};
use crate::parse::parse_source;

const PATTERNS: [&[bool]; 7] =
    [&[], &[true], &[false], &[true, false], &[true, true], &[false, true, true], &[true, true, true]];

fn distance(a: &Circuit, b: &Circuit) -> f64 {
    unitary(a).expect("small").distance_up_to_global_phase(&unitary(b).expect("small"))
}

#[test]
fn qasm2_output_reads_back_as_the_same_unitary() {
    for kind in GateKind::samples() {
        for pattern in PATTERNS {
            let circuit = Circuit::single_gate(kind, pattern);
            let text = to_qasm2(&circuit, &EmitOptions::default()).expect("emits");
            let read = parse_source(&text, "emitted.qasm").unwrap_or_else(|e| panic!("{e}\n{text}"));
            let d = distance(&circuit, &read);
            assert!(d < 1e-10, "{kind:?} {pattern:?}: distance {d}\n{text}");
        }
    }
}

/// Reads our own OpenQASM 3 AST with OpenQASM 3 semantics: standard gates, the program's gate
/// definitions and `ctrl` / `negctrl` modifiers, all exact (global phase included).
fn interpret_qasm3(program: &Program) -> Circuit {
    let mut circuit = Circuit::new();
    let mut definitions: HashMap<&str, &GateDefinition> = HashMap::new();
    let mut bit_registers: HashMap<String, (usize, u32)> = HashMap::new();
    for statement in &program.statements {
        match statement {
            Statement::QubitRegister { size, .. } => {
                for _ in 0..*size {
                    circuit.add_qubit(QubitRole::General);
                }
            }
            Statement::BitRegister { name, size } => {
                let start = circuit.clbits;
                let index = circuit.add_register(name.clone(), *size);
                bit_registers.insert(name.clone(), (index, start));
            }
            Statement::GateDefinition(definition) => {
                definitions.insert(&definition.name, definition);
            }
            _ => {}
        }
    }
    let qubit = |operand: &Operand| match operand {
        Operand::Indexed { index, .. } => Qubit(*index),
        Operand::Name(name) => panic!("bare operand {name}"),
    };
    for statement in &program.statements {
        let (call, condition) = match statement {
            Statement::Gate(call) => (call, None),
            Statement::If { register, value, body } => match &**body {
                Statement::Gate(call) => (call, Some(Condition { register: bit_registers[register].0, value: *value })),
                other => panic!("conditional {other:?}"),
            },
            Statement::Measure { qubit: q, bit } => {
                let Operand::Indexed { register, index } = bit else { panic!("bit operand") };
                let clbit = Clbit(bit_registers[register].1 + index);
                circuit.ops.push(Op::Measure { qubit: qubit(q), clbit });
                continue;
            }
            Statement::Reset(q) => {
                circuit.ops.push(Op::Reset { qubit: qubit(q) });
                continue;
            }
            _ => continue,
        };
        let qubits: Vec<Qubit> = call.qubits.iter().map(qubit).collect();
        for gate in expand(call, &qubits, &HashMap::new(), &definitions) {
            circuit.ops.push(Op::Gate { gate, condition });
        }
    }
    circuit
}

fn expand(
    call: &GateCall,
    qubits: &[Qubit],
    params: &HashMap<String, f64>,
    definitions: &HashMap<&str, &GateDefinition>,
) -> Vec<Gate> {
    let mut controls = Vec::new();
    let mut next = 0;
    for modifier in &call.modifiers {
        let (count, on) = match modifier {
            Modifier::Ctrl(n) => (*n as usize, true),
            Modifier::NegCtrl(n) => (*n as usize, false),
            other => panic!("modifier {other:?}"),
        };
        controls.extend(qubits[next..next + count].iter().map(|&qubit| Control { qubit, on }));
        next += count;
    }
    let own = &qubits[next..];
    let args: Vec<f64> =
        call.args.iter().map(|a| a.evaluate(&|name| params.get(name).copied()).expect("bound")).collect();
    if let Some(definition) = definitions.get(call.name.as_str()) {
        let inner: HashMap<String, f64> = definition.params.iter().cloned().zip(args).collect();
        let formal: HashMap<&str, Qubit> =
            definition.qubits.iter().map(String::as_str).zip(own.iter().copied()).collect();
        return definition
            .body
            .iter()
            .flat_map(|body_call| {
                let operands: Vec<Qubit> = body_call
                    .qubits
                    .iter()
                    .map(|o| match o {
                        Operand::Name(n) => formal[n.as_str()],
                        other => panic!("indexed operand in a body: {other:?}"),
                    })
                    .collect();
                expand(body_call, &operands, &inner, definitions)
            })
            .map(|gate| gate.with_controls(controls.iter().copied()))
            .collect();
    }
    use GateKind::*;
    let (kind, own_controls) = match (call.name.as_str(), args.as_slice()) {
        ("x", []) => (X, 0),
        ("y", []) => (Y, 0),
        ("z", []) => (Z, 0),
        ("h", []) => (H, 0),
        ("s", []) => (S, 0),
        ("sdg", []) => (Sdg, 0),
        ("t", []) => (T, 0),
        ("tdg", []) => (Tdg, 0),
        ("sx", []) => (Sx, 0),
        ("rx", [a]) => (Rx(*a), 0),
        ("ry", [a]) => (Ry(*a), 0),
        ("rz", [a]) => (Rz(*a), 0),
        ("p", [a]) => (Phase(*a), 0),
        ("U", [a, b, c]) => (U(*a, *b, *c), 0),
        ("cx", []) => (X, 1),
        ("swap", []) => (Swap, 0),
        (name, args) => panic!("not an OpenQASM 3 standard gate: {name}{args:?}"),
    };
    let targets = &own[own_controls..];
    let gate = Gate { kind, targets: targets.iter().copied().collect(), controls: Default::default() };
    let own_control_list = own[..own_controls].iter().map(|&qubit| Control { qubit, on: true });
    vec![gate.with_controls(controls.into_iter().chain(own_control_list))]
}

#[test]
fn qasm3_output_means_the_same_unitary_with_exact_phases() {
    for kind in GateKind::samples() {
        for pattern in PATTERNS {
            let circuit = Circuit::single_gate(kind, pattern);
            let program = qasm3_program(&circuit, &EmitOptions::default()).expect("emits");
            let read = interpret_qasm3(&program);
            let (u, v) = (unitary(&circuit).expect("small"), unitary(&read).expect("small"));
            // Controlled definitions make global phases relative: they must match exactly.
            let exact = (0..u.dim())
                .flat_map(|c| (0..u.dim()).map(move |r| (r, c)))
                .map(|(r, c)| (u.entry(r, c) - v.entry(r, c)).norm())
                .fold(0.0, f64::max);
            assert!(exact < 1e-10, "{kind:?} {pattern:?}: distance {exact}\n{program}");
        }
    }
}

#[test]
fn the_header_maps_qubits_and_lists_post_selections() {
    let mut circuit = Circuit::new();
    let b1 = circuit.add_qubit(QubitRole::square(Square::B1));
    let a3 = circuit.add_qubit(QubitRole::square(Square::A3));
    let path = circuit.add_qubit(QubitRole::Path);
    let c3 = circuit.add_qubit(QubitRole::Square { square: Square::C3, generation: 1 });
    circuit.push_gate(Gate::x(b1));
    circuit.push_gate(Gate::iswap(b1, a3, 0.5).anti_controlled(path));
    circuit.push_gate(Gate::x(c3).controlled(b1).controlled(a3).anti_controlled(path));
    let bit = circuit.push_measure(a3);
    circuit.postselect.push(PostSelection { qubit: a3, clbit: bit, value: true });
    let options = EmitOptions { measure: vec![b1, c3] };
    let qasm2 = to_qasm2(&circuit, &options).expect("emits");
    let expected_header = "// qchess circuit: 4 qubits, 1 classical bits.\n\
        // Qubit i is bit i of every result: q[0] is the least significant bit, and so is the first bit of the first classical register.\n\
        // q[0]: b1 (square b1)\n\
        // q[1]: a3 (square a3)\n\
        // q[2]: anc2_path (ancilla: path-clear flag)\n\
        // q[3]: c3_1 (square c3, qubit 2 of it)\n\
        // Post-selection: keep only the runs in which every bit below reads the value shown.\n\
        //   c[0] = 1 (measured from q[1], a3)\n\
        // Final measurements: meas[0] = q[0], meas[1] = q[3].\n";
    assert!(qasm2.starts_with(&format!("OPENQASM 2.0;\ninclude \"qelib1.inc\";\n{expected_header}")), "{qasm2}");
    let body2 = "qreg q[4];\ncreg c[1];\ncreg meas[2];\nx q[0];\nx q[2];\nc1_sqrt_iswap q[2], q[0], q[1];\nx q[2];\nx q[2];\n\
                 c3_x q[0], q[1], q[2], q[3];\nx q[2];\nmeasure q[1] -> c[0];\nmeasure q[0] -> meas[0];\nmeasure q[3] -> meas[1];\n";
    assert!(qasm2.ends_with(body2), "{qasm2}");
    assert!(
        qasm2.contains(
            "// c1_sqrt_iswap: sqrt_iswap with 1 control(s), controls first\ngate c1_sqrt_iswap c0, a, b {\n"
        ),
        "{qasm2}"
    );

    let qasm3 = to_qasm3(&circuit, &options).expect("emits");
    assert!(qasm3.starts_with(&format!("OPENQASM 3.0;\ninclude \"stdgates.inc\";\n{expected_header}")), "{qasm3}");
    let body3 = "qubit[4] q;\nbit[1] c;\nbit[2] meas;\nx q[0];\nnegctrl @ sqrt_iswap q[2], q[0], q[1];\n\
                 ctrl(2) @ negctrl @ x q[0], q[1], q[2], q[3];\nc[0] = measure q[1];\nmeas[0] = measure q[0];\nmeas[1] = measure q[3];\n";
    assert!(qasm3.ends_with(body3), "{qasm3}");
    assert!(qasm3.contains("gate sqrt_iswap a, b {\n  rxx(-pi/4) a, b;\n  ryy(-pi/4) a, b;\n}\n"), "{qasm3}");
}

#[test]
fn registers_keep_their_names_and_fill_gaps() {
    let mut circuit = Circuit::new();
    let q = circuit.add_qubit(QubitRole::General);
    circuit.add_clbit();
    let flag = circuit.add_register("flag", 2);
    circuit.add_clbit();
    circuit.ops.push(Op::Measure { qubit: q, clbit: Clbit(0) });
    circuit.ops.push(Op::Gate { gate: Gate::x(q), condition: Some(Condition { register: flag, value: 3 }) });
    circuit.ops.push(Op::Measure { qubit: q, clbit: Clbit(3) });
    let text = to_qasm2(&circuit, &EmitOptions::default()).expect("emits");
    assert!(text.contains("creg c[1];\ncreg flag[2];\ncreg c1[1];\nmeasure q[0] -> c[0];\nif (flag == 3) x q[0];\nmeasure q[0] -> c1[0];\n"), "{text}");
    let read = parse_source(&text, "t.qasm").expect("reads back");
    assert_eq!(read.clbits, 4);
    assert_eq!(read.ops[2], Op::Measure { qubit: q, clbit: Clbit(3) });
    assert_eq!(read.ops[1], Op::Gate { gate: Gate::x(q), condition: Some(Condition { register: 1, value: 3 }) });
}

#[test]
fn emission_errors_say_what_is_wrong() {
    let mut circuit = Circuit::new();
    let q = circuit.add_qubit(QubitRole::General);
    circuit.add_register("x", 1);
    assert_eq!(
        to_qasm2(&circuit, &EmitOptions::default()).expect_err("reserved").to_string(),
        "classical register \"x\": not usable as a register name (an identifier starting with a lower-case letter, not a keyword or gate name, is needed)"
    );
    circuit.registers[0].name = "m".into();
    circuit.add_register("n", 1);
    circuit.registers[1].start = 0;
    assert!(to_qasm3(&circuit, &EmitOptions::default()).expect_err("overlap").to_string().contains("overlaps"));
    circuit.registers.pop();
    circuit.ops.push(Op::Gate { gate: Gate::x(q), condition: Some(Condition { register: 0, value: 2 }) });
    assert_eq!(
        to_qasm2(&circuit, &EmitOptions::default()).expect_err("value").to_string(),
        "operation 0: condition m == 2 cannot hold: the register has 1 bits"
    );
    circuit.ops.clear();
    assert_eq!(
        to_qasm3(&circuit, &EmitOptions { measure: vec![Qubit(3)] }).expect_err("qubit").to_string(),
        "cannot measure qubit 3 at the end: the circuit has 1 qubits"
    );
    circuit.push_gate(Gate::cx(q, q));
    assert_eq!(
        qchess_core::text::with_causes(&to_qasm3(&circuit, &EmitOptions::default()).expect_err("shape")),
        "operation 0: qubit 0 is used twice"
    );
    assert!(is_reserved_name("c2_x") && is_reserved_name("Q") && is_reserved_name("q") && !is_reserved_name("meas"));
}

#[test]
fn large_angles_are_reduced_not_printed_as_giant_integers() {
    let mut circuit = Circuit::new();
    let q = circuit.add_qubit(QubitRole::General);
    circuit.push_gate(Gate::one(GateKind::Rx(1e300), q));
    let text = to_qasm2(&circuit, &EmitOptions::default()).expect("emits");
    let read = parse_source(&text, "t.qasm").expect("reads back");
    assert!(distance(&circuit, &read) < 1e-9);
    assert!(text.lines().all(|line| line.len() < 200));
    // Expr::angle keeps exact multiples of pi readable.
    assert_eq!(crate::print::expr_to_string(&Expr::angle(-std::f64::consts::FRAC_PI_4)), "-pi/4");
}

/// Random circuits over every kind, with measurements, conditions and resets.
fn arbitrary_circuit() -> impl Strategy<Value = Circuit> {
    let kind = prop_oneof![
        Just(GateKind::X),
        Just(GateKind::Y),
        Just(GateKind::H),
        Just(GateKind::Sdg),
        Just(GateKind::Sx),
        Just(GateKind::Sxdg),
        (-4.0f64..4.0).prop_map(GateKind::Rx),
        (-4.0f64..4.0).prop_map(GateKind::Phase),
        (-4.0f64..4.0, -4.0f64..4.0, -4.0f64..4.0).prop_map(|(a, b, c)| GateKind::U(a, b, c)),
        Just(GateKind::Swap),
        prop_oneof![Just(1.0), Just(-1.0), Just(0.5), Just(-0.5), -2.0f64..2.0].prop_map(GateKind::ISwap),
        (-4.0f64..4.0).prop_map(GateKind::Ryy),
    ];
    let op = (kind, proptest::sample::subsequence(vec![0u32, 1, 2, 3], 4), any::<[bool; 2]>(), 0usize..3, 0u8..8);
    proptest::collection::vec(op, 1..12).prop_map(|ops| {
        let mut circuit = Circuit::new();
        for _ in 0..4 {
            circuit.add_qubit(QubitRole::General);
        }
        let register = circuit.add_register("c", 2);
        for (kind, mut order, polarity, controls, extra) in ops {
            order.reverse();
            let targets: Vec<Qubit> = order.iter().take(kind.arity()).map(|&q| Qubit(q)).collect();
            let control_list: Vec<Control> = order
                .iter()
                .skip(kind.arity())
                .take(controls)
                .zip(polarity.iter().cycle())
                .map(|(&q, &on)| Control { qubit: Qubit(q), on })
                .collect();
            let gate =
                Gate { kind, targets: targets.into_iter().collect(), controls: control_list.into_iter().collect() };
            match extra {
                0 => circuit.ops.push(Op::Measure { qubit: Qubit(order[0]), clbit: Clbit(order[0] % 2) }),
                1 => circuit
                    .ops
                    .push(Op::Gate { gate, condition: Some(Condition { register, value: u64::from(order[0] % 4) }) }),
                2 => circuit.ops.push(Op::Reset { qubit: Qubit(order[0]) }),
                _ => circuit.push_gate(gate),
            }
        }
        circuit
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn qasm2_round_trips_keep_the_exact_distribution(circuit in arbitrary_circuit()) {
        let text = to_qasm2(&circuit, &EmitOptions::default()).expect("emits");
        let read = parse_source(&text, "t.qasm").map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let sim = DenseSimulator::new();
        let (a, b) = (sim.probabilities(&circuit).expect("simulates"), sim.probabilities(&read).expect("simulates"));
        for (k, (x, y)) in a.probabilities.iter().zip(&b.probabilities).enumerate() {
            prop_assert!((x - y).abs() < 1e-10, "P({}) {} vs {}\n{}", k, x, y, text);
        }
    }
}
