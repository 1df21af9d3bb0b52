//! Tests of OpenQASM 3 input.

use std::f64::consts::PI;

use proptest::prelude::*;
use qchess_circuit::ir::{Circuit, Clbit, Condition, Gate, GateKind, Op, Qubit, QubitRole};
use qchess_sim::dense::unitary;

use super::*;
use crate::program::{BitTest, Duration, GateCall, Modifier, Operation};

const HEADER: &str = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\n";

fn program(body: &str) -> Program {
    let text = format!("{HEADER}{body}");
    read_source(&text, "t.qasm3").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn circuit(body: &str) -> Circuit {
    program(body).to_circuit(100_000).unwrap_or_else(|e| panic!("{e}\n{body}"))
}

fn error_of(text: &str) -> String {
    match read_source(text, "t.qasm3") {
        Err(e) => e.to_string(),
        Ok(program) => program.to_circuit(100_000).expect_err("invalid").to_string(),
    }
}

fn general(qubits: usize) -> Circuit {
    let mut circuit = Circuit::new();
    for _ in 0..qubits {
        circuit.add_qubit(QubitRole::General);
    }
    circuit
}

fn distance(a: &Circuit, b: &Circuit) -> f64 {
    unitary(a).expect("small").distance_up_to_global_phase(&unitary(b).expect("small"))
}

/// `body` with `ctrl @` in front of its single gate call against `expected` controlled by
/// qubit 0: the exact phase of a gate shows once it is controlled.
fn controlled_matches(call: &str, qubits: usize, expected: &[Gate]) {
    let mut reference = general(qubits + 1);
    reference.ops = expected.iter().map(|g| Op::Gate { gate: g.clone(), condition: None }).collect();
    let text = format!("qubit[{}] q;\nctrl @ {call};\n", qubits + 1);
    let read = circuit(&text);
    let d = distance(&read, &reference);
    assert!(d < 1e-12, "{call}: distance {d}");
}

#[test]
fn declarations_registers_and_both_measure_forms() {
    let program = program(
        "qubit[2] q;\nqreg r[1];\nbit[2] c;\ncreg d[1];\nbit b;\nx r[0];\nc = measure q;\nmeasure r[0] -> d[0];\nb = measure q[1];\nmeasure q[0];\n",
    );
    assert_eq!(program.qubits, ["q[0]", "q[1]", "r[0]"]);
    let registers: Vec<(&str, u32, u32)> =
        program.registers.iter().map(|r| (r.name.as_str(), r.start, r.len)).collect();
    assert_eq!(registers, [("c", 0, 2), ("d", 2, 1), ("b", 3, 1)]);
    let operations: Vec<&Operation> = program.body.iter().map(|i| &i.operation).collect();
    assert_eq!(
        operations[1..4],
        [
            &Operation::Measure { qubit: 0, clbit: Some(0) },
            &Operation::Measure { qubit: 1, clbit: Some(1) },
            &Operation::Measure { qubit: 2, clbit: Some(2) },
        ]
    );
    assert_eq!(operations[5], &Operation::Measure { qubit: 0, clbit: None });
    assert_eq!(program.body[1].origin.to_string(), "t.qasm3:9:1");
}

#[test]
fn stdgates_mean_what_their_definitions_say() {
    // Uncontrolled: the IR gates they map to.
    let read = circuit(
        "qubit[3] q;\nh q[0];\ncx q[0], q[1];\nccx q[0], q[1], q[2];\nrz(pi/2) q[2];\nsx q[1];\ncp(0.3) q[2], q[0];\n",
    );
    let mut expected = general(3);
    expected.push_gate(Gate::one(GateKind::H, Qubit(0)));
    expected.push_gate(Gate::cx(Qubit(0), Qubit(1)));
    expected.push_gate(Gate::x(Qubit(2)).controlled(Qubit(0)).controlled(Qubit(1)));
    expected.push_gate(Gate::one(GateKind::Rz(PI / 2.0), Qubit(2)));
    expected.push_gate(Gate::one(GateKind::Sx, Qubit(1)));
    expected.push_gate(Gate::one(GateKind::Phase(0.3), Qubit(0)).controlled(Qubit(2)));
    assert_eq!(read.ops, expected.ops);
    // Controlled: u3 and u2 carry stdgates.inc's global phases, rz is exp(-i theta Z / 2).
    let (t, p, l) = (0.4, 0.9, -0.3);
    let u = GateKind::U(t, p, l);
    controlled_matches(
        &format!("u3({t}, {p}, {l}) q[0], q[1]"),
        1,
        &[Gate::one(GateKind::Phase(-(p + l) / 2.0), Qubit(0)), Gate::one(u, Qubit(1)).controlled(Qubit(0))],
    );
    controlled_matches(
        &format!("u2({p}, {l}) q[0], q[1]"),
        1,
        &[
            Gate::one(GateKind::Phase(-(p + l + PI / 2.0) / 2.0), Qubit(0)),
            Gate::one(GateKind::U(PI / 2.0, p, l), Qubit(1)).controlled(Qubit(0)),
        ],
    );
    controlled_matches("rz(0.7) q[0], q[1]", 1, &[Gate::one(GateKind::Rz(0.7), Qubit(1)).controlled(Qubit(0))]);
    controlled_matches("gphase(0.5) q[0]", 0, &[Gate::one(GateKind::Phase(0.5), Qubit(0))]);
}

#[test]
fn modifiers_compose_from_the_inside_out() {
    // ctrl @ inv @ s == controlled sdg; negctrl acts on |0>; pow(2) @ t == s; pow(-1) @ t == tdg.
    let read = circuit(
        "qubit[3] q;\nctrl @ inv @ s q[0], q[1];\nnegctrl @ x q[1], q[2];\npow(2) @ t q[0];\npow(-1) @ t q[1];\nctrl(2) @ x q[0], q[1], q[2];\n",
    );
    let mut expected = general(3);
    expected.push_gate(Gate::one(GateKind::Sdg, Qubit(1)).controlled(Qubit(0)));
    expected.push_gate(Gate::x(Qubit(2)).anti_controlled(Qubit(1)));
    expected.push_gate(Gate::one(GateKind::T, Qubit(0)));
    expected.push_gate(Gate::one(GateKind::T, Qubit(0)));
    expected.push_gate(Gate::one(GateKind::Tdg, Qubit(1)));
    expected.push_gate(Gate::x(Qubit(2)).controlled(Qubit(0)).controlled(Qubit(1)));
    assert_eq!(read.ops, expected.ops);
    // A controlled defined gate whose body has a global phase: the phase lands on the control.
    let defined = circuit("qubit[2] q;\ngate g(a) r { gphase(a); x r; }\nnegctrl @ g(0.25) q[0], q[1];\n");
    let mut reference = general(2);
    reference.push_gate(Gate::x(Qubit(0)));
    reference.push_gate(Gate::one(GateKind::Phase(0.25), Qubit(0)));
    reference.push_gate(Gate::x(Qubit(0)));
    reference.push_gate(Gate::x(Qubit(1)).anti_controlled(Qubit(0)));
    assert!(distance(&defined, &reference) < 1e-12);
}

#[test]
fn definitions_constants_and_expressions() {
    let read = circuit(
        "const int n = 2;\nconst float theta = pi / n;\nqubit[n] q;\n\
         gate rot(a, b) x, y { rz(a * 2) x; cx x, y; ry(-b + theta) y; }\nrot(0.1, 2.0 ** -1) q[0], q[1];\n",
    );
    let mut expected = general(2);
    expected.push_gate(Gate::one(GateKind::Rz(0.2), Qubit(0)));
    expected.push_gate(Gate::cx(Qubit(0), Qubit(1)));
    expected.push_gate(Gate::one(GateKind::Ry(-0.5 + PI / 2.0), Qubit(1)));
    assert_eq!(read.ops, expected.ops);
    // Qiskit's way of writing gates outside stdgates.inc.
    let ecr = circuit(
        "gate rzx(_gate_p_0) _gate_q_0, _gate_q_1 { h _gate_q_1; cx _gate_q_0, _gate_q_1; rz(_gate_p_0) _gate_q_1; cx _gate_q_0, _gate_q_1; h _gate_q_1; }\n\
         gate ecr _gate_q_0, _gate_q_1 { rzx(pi/4) _gate_q_0, _gate_q_1; x _gate_q_0; rzx(-pi/4) _gate_q_0, _gate_q_1; }\n\
         qubit[2] q;\necr q[0], q[1];\n",
    );
    let library = {
        let mut p = crate::program::Program {
            qubits: vec!["a".into(), "b".into()],
            library: crate::program::GateLibrary::Qiskit,
            ..Default::default()
        };
        p.body.push(crate::program::Instruction {
            operation: Operation::Gate(GateCall {
                name: "ecr".into(),
                params: vec![],
                qubits: vec![0, 1],
                modifiers: vec![],
            }),
            condition: None,
            origin: crate::program::Origin::Item("instruction 0".into()),
        });
        p.to_circuit(100).expect("ecr is a Qiskit gate")
    };
    assert!(distance(&ecr, &library) < 1e-12, "{}", distance(&ecr, &library));
}

#[test]
fn physical_qubits_broadcasts_ranges_and_sets() {
    let program = program(
        "bit[2] c;\nrz(pi/2) $87;\nsx $88;\ncz $87, $88;\nbarrier $87, $88;\nc[0] = measure $87;\nc[1] = measure $88;\ndelay[100ns] $87;\n",
    );
    assert_eq!(program.qubits.len(), 89);
    assert_eq!(program.qubits[88], "$88");
    let compact = program.compact();
    assert_eq!(compact.qubits, ["$87", "$88"]);
    assert_eq!(compact.body[4].operation, Operation::Measure { qubit: 0, clbit: Some(0) });
    assert_eq!(program.body[6].operation, Operation::Delay { qubits: vec![87], duration: Duration::Seconds(100e-9) });
    let read = circuit("qubit[4] q;\nqubit[2] r;\nh q;\ncx q[0:1], r;\nx q[{0, 3}];\nz q[-1];\ny q[0:2:3];\n");
    let ops: Vec<String> = read.ops.iter().map(|op| format!("{op:?}")).collect();
    assert_eq!(ops.len(), 4 + 2 + 2 + 1 + 2);
    assert_eq!(read.ops[4], Op::Gate { gate: Gate::cx(Qubit(0), Qubit(4)), condition: None });
    assert_eq!(read.ops[5], Op::Gate { gate: Gate::cx(Qubit(1), Qubit(5)), condition: None });
    assert_eq!(read.ops[8], Op::Gate { gate: Gate::one(GateKind::Z, Qubit(3)), condition: None });
    assert_eq!(read.ops[10], Op::Gate { gate: Gate::one(GateKind::Y, Qubit(2)), condition: None });
}

#[test]
fn conditions_on_bits_and_registers() {
    let program = program(
        "qubit[2] q;\nbit[2] c;\nc[0] = measure q[0];\nif (c[0]) x q[1];\nif (!c[1]) { z q[0]; } else { y q[0]; }\nif (c == 2) h q[1];\nif (c[1] == false) s q[0];\n",
    );
    let tests: Vec<Option<BitTest>> = program.body.iter().map(|i| i.condition.clone()).collect();
    let test = |bits: Vec<u32>, value, equal| Some(BitTest { bits, value, equal });
    assert_eq!(
        tests[1..],
        [
            test(vec![0], 1, true),
            test(vec![1], 0, true),
            test(vec![1], 0, false),
            test(vec![0, 1], 2, true),
            test(vec![1], 0, true),
        ]
    );
    let read = program.to_circuit(100).expect("lowers");
    // One-bit conditions get registers of their own; the whole register is register 0.
    assert_eq!(read.ops[1], Op::Gate { gate: Gate::x(Qubit(1)), condition: Some(Condition { register: 1, value: 1 }) });
    assert_eq!(
        read.ops[3],
        Op::Gate { gate: Gate::one(GateKind::Y, Qubit(0)), condition: Some(Condition { register: 2, value: 1 }) }
    );
    assert_eq!(
        read.ops[4],
        Op::Gate { gate: Gate::one(GateKind::H, Qubit(1)), condition: Some(Condition { register: 0, value: 2 }) }
    );
    assert_eq!(read.ops[0], Op::Measure { qubit: Qubit(0), clbit: Clbit(0) });
    assert!(BitTest { bits: vec![3, 5], value: 2, equal: true }.holds(|b| b == 5));
}

#[test]
fn errors_name_file_line_column_and_construct() {
    let cases: &[(&str, &str)] = &[
        (
            "OPENQASM 3;\nqubit q;\ndefcal x $0 { }\n",
            "t.qasm3:3:1: calibrations (`defcal`) are pulse programs, which are not supported",
        ),
        (
            "OPENQASM 3;\nextern f(int) -> int;\n",
            "t.qasm3:2:1: `extern` function `f` has no binding: give a file with a `def f(...)` (`--extern FILE`)",
        ),
        (
            "OPENQASM 3;\ninput float theta;\ninput int n;\n",
            "t.qasm3: the program's `input` variables need values (`--input name=value`): `theta`, `n`",
        ),
        ("OPENQASM 3;\nlet a = 3;\n", "t.qasm3:2:1: `let` names qubits, or a bit variable or constant bits of one"),
        ("OPENQASM 3;\nint[65] i = 3;\n", "t.qasm3:2:5: `int[65]` is wider than the 64 bits supported"),
        (
            "OPENQASM 3;\nqubit q;\nbox [-2ns] { }\n",
            "t.qasm3:3:6: a duration cannot be negative, and this one is -2e-9 s",
        ),
        ("OPENQASM 3;\nbreak;\n", "t.qasm3:2:1: `break` outside a loop"),
        ("OPENQASM 3;\n#pragma foo\n", "t.qasm3:2:1: pragmas are not supported"),
        ("OPENQASM 4.0;\n", "t.qasm3:1:1: OpenQASM 4.0 is not supported; this reads OpenQASM 2.0 and 3"),
        ("OPENQASM 3;\nqubit q;\nh q;\n", "t.qasm3:3:1: undefined gate `h` (is `include \"stdgates.inc\";` missing?)"),
        (
            &format!("{HEADER}qubit[2] q;\necr q[0], q[1];\n"),
            "t.qasm3:4:1: undefined gate `ecr` (it is not in stdgates.inc: define it with `gate`)",
        ),
        (&format!("{HEADER}qubit q;\nx r;\n"), "t.qasm3:4:3: `r` is not declared"),
        (&format!("{HEADER}qubit[2] q;\nx q[2];\n"), "t.qasm3:4:5: index 2 is out of range for `q` of size 2"),
        (&format!("{HEADER}qubit[2] q;\ncx q[0], q[0];\n"), "t.qasm3:4:1: `cx` is applied to qubit q[0] twice"),
        (&format!("{HEADER}qubit q;\nrx q;\n"), "t.qasm3:4:1: `rx` takes 1 parameters and 1 qubits, not 0 and 1"),
        (&format!("{HEADER}qubit q;\nx q\n"), "t.qasm3:5:1: expected `;`, found the end of the file"),
        (&format!("{HEADER}qubit q;\nrz(1/0) q;\n"), "t.qasm3:4:4: division by zero"),
        (
            &format!("{HEADER}qubit q;\npow(0.5) @ x q;\n"),
            "t.qasm3:4:1: `pow(0.5)` is not supported: only integer powers are",
        ),
        (
            &format!("{HEADER}qubit q;\nbit[2] c;\nif (q) x q;\n"),
            "t.qasm3:5:5: a condition must be true or false, not a `qubit`",
        ),
        (
            &format!("{HEADER}qubit q;\nbit[2] c;\nc[0] = measure q;\nif (c == 1) {{ if (c == 2) x q; }}\n"),
            "t.qasm3:6:1: this reads a measurement result while the program runs: the program is dynamic, which only `qchess sim` runs",
        ),
        (&format!("{HEADER}qubit q;\ngate h a {{ x a; }}\n"), "t.qasm3:4:1: `h` is already defined by stdgates.inc"),
        (
            &format!("{HEADER}qubit q;\nbit c;\nc = q;\n"),
            "t.qasm3:5:5: a value of type `qubit` cannot be used as `bit`",
        ),
        (
            &format!("{HEADER}qubit q;\nx $0;\n"),
            "t.qasm3:4:3: a program that declares qubits cannot also name physical qubits (`$n`)",
        ),
        (
            &format!("{HEADER}include \"other.inc\";\n"),
            "t.qasm3:3:1: cannot include \"other.inc\": only \"stdgates.inc\" can be included here",
        ),
        (&format!("{HEADER}qubit q;\nx q; /* open\n"), "t.qasm3:4:6: a `/*` comment is never closed"),
        (
            &format!(
                "{HEADER}qubit[2] q;\nbit c;\nc = measure q[1];\nif (c) {{ c = measure q[0]; }} else {{ x q[1]; }}\n"
            ),
            "t.qasm3:6:10: a measurement or reset under a condition cannot be simulated here",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(&error_of(text), expected, "{text}");
    }
}

#[test]
fn limits_are_enforced() {
    let limits = Limits { max_qubits: 4, max_clbits: 2, max_operations: 3, max_source_bytes: 1 << 10, max_steps: 1000 };
    let read = |text: &str| read_with(text, "t", None, &limits).expect_err("over a limit").to_string();
    assert!(read("qubit[5] q;").contains("past the limit of 4"), "{}", read("qubit[5] q;"));
    assert!(read("bit[3] c;").contains("past the limit of 2"));
    assert!(read("U(0,0,0) $9;").contains("past the limit of 4 qubits"));
    assert!(read("qubit q; U(0,0,0) q; U(0,0,0) q; U(0,0,0) q; U(0,0,0) q;").contains("more than 3 operations"));
    assert!(read(&"x".repeat(2000)).contains("larger than the limit"));
    let deep = format!("{HEADER}qubit q;\nrz({}1{}) q;\n", "(".repeat(500), ")".repeat(500));
    assert!(error_of(&deep).contains("nested more than"), "{}", error_of(&deep));
    let pow = format!("{HEADER}qubit q;\npow(1000000000) @ x q;\n");
    assert!(error_of(&pow).contains("more than 100000 operations"), "{}", error_of(&pow));
}

#[test]
fn files_include_relative_to_their_directory() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("defs.inc"), "gate flip a { x a; }\n").expect("write");
    std::fs::write(dir.path().join("bad.inc"), "gate broken a { y }\n").expect("write");
    let main = dir.path().join("main.qasm3");
    std::fs::write(&main, format!("{HEADER}include \"defs.inc\";\nqubit q;\nflip q;\n")).expect("write");
    let read = read_file(&main).expect("reads");
    assert_eq!(read.to_circuit(10).expect("lowers").ops, [Op::Gate { gate: Gate::x(Qubit(0)), condition: None }]);
    std::fs::write(&main, format!("{HEADER}include \"bad.inc\";\n")).expect("write");
    let error = read_file(&main).expect_err("bad include").to_string();
    assert!(error.ends_with("bad.inc:1:19: expected a qubit or bit, found `}`"), "{error}");
    // Through the version dispatch of parse_file.
    std::fs::write(&main, format!("{HEADER}include \"defs.inc\";\nqubit q;\nflip q;\n")).expect("write");
    assert_eq!(crate::parse::parse_file(&main).expect("reads").ops.len(), 1);
}

#[test]
fn gate_calls_keep_names_for_consumers_that_judge_by_name() {
    let program = program("qubit[2] q;\nctrl @ ecr q[0], q[1];\n");
    let Operation::Gate(call) = &program.body[0].operation else { panic!("a gate") };
    assert_eq!(call.name, "ecr");
    assert_eq!(call.modifiers, [Modifier::Ctrl { count: 1, on: true }]);
}

/// Small bounds, so that a random program runs (or is refused) quickly.
const FUZZ_LIMITS: Limits =
    Limits { max_qubits: 64, max_clbits: 256, max_operations: 10_000, max_source_bytes: 1 << 16, max_steps: 20_000 };

/// Reads `text` as a static program; a dynamic one also runs step by step for a while, each
/// measurement answered in turn 0 and 1, and must not panic either.
fn fuzz_read(text: &str) -> Result<Program, QasmError> {
    use qchess_circuit::dynamic::{Dynamic, Next};
    let loaded = crate::machine::load(text, "fuzz.qasm3", None, &FUZZ_LIMITS, &crate::machine::Bindings::default())?;
    let mut machine = loaded.machine;
    let mut outcome = None;
    for step in 0..2_000 {
        match machine.next(outcome.take()) {
            Ok(Next::Done) | Err(_) => break,
            Ok(Next::Measure(_)) => outcome = Some(step % 2 == 0),
            Ok(Next::Gate(_) | Next::Reset(_)) => {}
        }
    }
    let _ = machine.result(0);
    loaded.program.map_err(|d| QasmError::Unreadable { file: "fuzz.qasm3".into(), reason: d.reason })
}

fn check_error_shape(text: &str, result: Result<Program, QasmError>) -> Result<(), TestCaseError> {
    match result {
        Ok(program) => {
            // Lowering never panics either; its errors are placed too.
            if let Err(error) = program.to_circuit(10_000) {
                prop_assert!(!error.message.is_empty());
            }
        }
        Err(QasmError::Invalid { line, column, file, message }) => {
            prop_assert_eq!(file, "fuzz.qasm3");
            prop_assert!(line >= 1 && line <= text.lines().count().max(1) + 1, "line {} of {:?}", line, text);
            prop_assert!(column >= 1);
            prop_assert!(!message.is_empty());
        }
        Err(QasmError::Unreadable { .. }) => {}
    }
    Ok(())
}

/// A valid program exercising most of the grammar, to mutate.
const SEED: &str = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nconst int n = 3;\nqubit[n] q;\nbit[n] c;\n\
gate g(a) x, y { ctrl @ rz(a / 2) x, y; gphase(-a); }\nh q;\ng(pi/4) q[0], q[1];\ninv @ pow(2) @ s q[2];\n\
negctrl(2) @ x q[0], q[1], q[2];\nbarrier q;\nc[0] = measure q[0];\nif (c[0]) { x q[1]; } else { z q[1]; }\n\
if (c == 5) reset q[2];\ndelay[20ns] q[1];\nmeasure q[1:2] -> c[1:2];\n";

/// A valid program exercising the classical and control layer, to mutate.
const DYNAMIC_SEED: &str = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\ninput uint[4] k;\nconst int n = 3;\n\
qubit[n] q;\nbit[n] c;\noutput uint[8] total;\narray[int[8], 2, 2] grid = {{1, -2}, {3, 4}};\n\
def f(int[8] a, qubit r) -> bit { if (a > 0) { x r; } return measure r; }\nlet pair = q[0:1] ++ q[{2}];\n\
for uint i in [0:n - 1] { h q[i]; c[i] = measure q[i]; total += uint[8](c[i]) << i; }\n\
while (total > 3) { total -= 2; if (total == 4) { break; } }\nswitch (int(c)) { case 0, 1 { x pair[2]; } default { } }\n\
angle[8] a = pi / 4;\nfloat[32] t = sin(a) ** 2 + 1.5e-3;\ncomplex z = 1.0 + 2.0im;\nduration d = 2 * 40dt;\n\
stretch s;\nbox [1us] { delay[d + s] q[0]; rz(t * real(z)) q[1]; }\nbit b = f(grid[1, 0], q[2]);\n\
if (b && popcount(c) != 2) { ctrl @ pow(k) @ rx(a) q[0], q[1]; } else { end; }\n";

/// `seed` with each `(at, remove, insert)` edit applied (on character boundaries).
fn mutate(seed: &str, edits: &[(usize, usize, String)]) -> String {
    let mut text = seed.to_string();
    for (at, remove, insert) in edits {
        let mut at = (*at).min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let mut end = (at + remove).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.replace_range(at..end, insert);
    }
    text
}

#[test]
fn the_seed_program_reads_and_lowers() {
    let program = read_source(SEED, "seed.qasm3").expect("valid");
    assert_eq!(program.body.len(), 3 + 1 + 1 + 1 + 1 + 1 + 2 + 1 + 1 + 2);
    let error = program.to_circuit(1000).expect_err("a conditional reset");
    assert_eq!(
        error.to_string(),
        "seed.qasm3:14:13: a measurement or reset under a condition cannot be simulated here"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        check_error_shape(&text, fuzz_read(&text))?;
    }

    #[test]
    fn token_soup_never_panics(tokens in proptest::collection::vec(prop_oneof![
        Just("OPENQASM 3;"), Just("qubit[2] q;"), Just("bit[2] c;"), Just("h"), Just("cx"), Just("q[0]"), Just("q"),
        Just("$3"), Just(","), Just(";"), Just("("), Just(")"), Just("{"), Just("}"), Just("["), Just("]"),
        Just("pi"), Just("-"), Just("**"), Just("1.5e-3"), Just("ctrl"), Just("@"), Just("inv"), Just("pow(2)"),
        Just("gate"), Just("if"), Just("else"), Just("measure"), Just("->"), Just("="), Just("=="), Just("c"),
        Just("reset"), Just("barrier"), Just("delay[10ns]"), Just("gphase"), Just("U"), Just("const"), Just("int"),
        Just("include \"stdgates.inc\";"), Just("0:1"), Just("{0,1}"), Just("!"), Just("\n"),
        Just("for"), Just("in"), Just("[0:3]"), Just("while"), Just("break;"), Just("continue;"), Just("switch"),
        Just("case"), Just("default"), Just("def"), Just("return"), Just("->"), Just("extern"), Just("let"),
        Just("++"), Just("array[int[8], 2]"), Just("uint[4]"), Just("angle[8]"), Just("float[32]"), Just("bool"),
        Just("bit[2]"), Just("complex"), Just("duration"), Just("stretch"), Just("box"), Just("input"),
        Just("output"), Just("end;"), Just("sizeof"), Just("durationof"), Just("\"01\""), Just("2im"),
        Just("+="), Just("<<="), Just("int[4](c)"), Just("true"), Just("&&"), Just("%"), Just("#dim = 1"),
        Just("mutable"), Just("readonly"), Just("x"), Just("i"),
    ], 0..60)) {
        let text = tokens.join(" ");
        check_error_shape(&text, fuzz_read(&text))?;
    }

    #[test]
    fn mutated_programs_never_panic(
        edits in proptest::collection::vec((0usize..600, 0usize..6, "\\PC{0,3}"), 1..4)
    ) {
        let text = mutate(SEED, &edits);
        check_error_shape(&text, read_source(&text, "fuzz.qasm3"))?;
    }

    #[test]
    fn mutated_dynamic_programs_never_panic_or_hang(
        edits in proptest::collection::vec((0usize..1200, 0usize..6, "\\PC{0,3}"), 1..4)
    ) {
        let text = mutate(DYNAMIC_SEED, &edits);
        check_error_shape(&text, fuzz_read(&text))?;
    }
}

#[test]
fn the_dynamic_seed_program_runs() {
    let mut bindings = crate::machine::Bindings::default();
    bindings.inputs.push(("k".into(), "2".into()));
    let loaded = crate::machine::load(DYNAMIC_SEED, "seed.qasm3", None, &Limits::default(), &bindings)
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(loaded.program.is_err(), "it reads measurements");
}
