//! Tests of OpenQASM 2.0 input.

use std::f64::consts::PI;

use proptest::prelude::*;
use qchess_circuit::ir::{Circuit, Clbit, Condition, Gate, GateKind, Op, Qubit, QubitRole};
use qchess_sim::dense::unitary;

use super::*;

const HEADER: &str = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n";

fn parse_ok(body: &str) -> Circuit {
    let text = format!("{HEADER}{body}");
    parse_source(&text, "test.qasm").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn error_of(text: &str) -> String {
    parse_source(text, "t.qasm").expect_err("invalid").to_string()
}

fn general(qubits: usize) -> Circuit {
    let mut circuit = Circuit::new();
    for _ in 0..qubits {
        circuit.add_qubit(QubitRole::General);
    }
    circuit
}

fn assert_same_unitary(a: &Circuit, b: &Circuit) {
    let distance = unitary(a).expect("small").distance_up_to_global_phase(&unitary(b).expect("small"));
    assert!(distance < 1e-12, "distance {distance}");
}

#[test]
fn registers_flatten_in_declaration_order() {
    let circuit =
        parse_ok("qreg a[2];\ncreg m[1];\nqreg b[1];\ncreg n[2];\nx b[0];\nmeasure a -> n;\nmeasure b[0] -> m[0];\n");
    let names: Vec<String> = circuit.qubits.iter().map(|q| q.name().into_owned()).collect();
    assert_eq!(names, ["a[0]", "a[1]", "b[0]"]);
    assert_eq!(circuit.clbits, 3);
    assert_eq!((circuit.registers[0].name.as_str(), circuit.registers[0].start), ("m", 0));
    assert_eq!((circuit.registers[1].name.as_str(), circuit.registers[1].start, circuit.registers[1].len), ("n", 1, 2));
    assert_eq!(
        circuit.ops,
        [
            Op::Gate { gate: Gate::x(Qubit(2)), condition: None },
            Op::Measure { qubit: Qubit(0), clbit: Clbit(1) },
            Op::Measure { qubit: Qubit(1), clbit: Clbit(2) },
            Op::Measure { qubit: Qubit(2), clbit: Clbit(0) },
        ]
    );
}

#[test]
fn conditions_reset_and_barrier() {
    let circuit = parse_ok("qreg q[2];\ncreg c[2];\nbarrier q;\nreset q[1];\nif (c == 2) cx q[0], q[1];\n");
    assert_eq!(
        circuit.ops,
        [
            Op::Reset { qubit: Qubit(1) },
            Op::Gate { gate: Gate::cx(Qubit(0), Qubit(1)), condition: Some(Condition { register: 0, value: 2 }) },
        ]
    );
}

#[test]
fn qelib1_gates_and_broadcasts_mean_what_qiskit_means() {
    let mut expected = general(3);
    for q in 0..3 {
        expected.push_gate(Gate::one(GateKind::H, Qubit(q)));
    }
    expected.push_gate(Gate::x(Qubit(2)).controlled(Qubit(0)).controlled(Qubit(1)));
    expected.push_gate(Gate::one(GateKind::U(0.1, 0.2, 0.3), Qubit(0)).controlled(Qubit(2)));
    expected.push_gate(Gate::one(GateKind::Phase(PI / 3.0), Qubit(1)).controlled(Qubit(0)));
    expected.push_gate(Gate::one(GateKind::U(PI / 2.0, 0.4, -0.5), Qubit(1)));
    expected.push_gate(Gate::one(GateKind::Rz(0.6), Qubit(2)).controlled(Qubit(1)));
    expected.push_gate(Gate::cx(Qubit(0), Qubit(1)));
    expected.push_gate(Gate::cx(Qubit(0), Qubit(2)));
    // `cx q[0], q` would touch q[0] twice in its first row.
    let error = error_of(&format!("{HEADER}qreg q[3];\ncx q[0], q;\n"));
    assert_eq!(error, "t.qasm:4:1: `cx` is applied to q[0] twice");
    let body = "qreg q[3];\nh q;\nccx q[0], q[1], q[2];\ncu3(0.1, 0.2, 0.3) q[2], q[0];\ncu1(pi/3) q[0], q[1];\nu2(0.4, -0.5) q[1];\n\
                crz(0.6) q[1], q[2];\ncx q[0], q[1];\ncx q[0], q[2];\n";
    let circuit = parse_ok(body);
    assert_eq!(circuit.ops, expected.ops);
    assert_same_unitary(&circuit, &expected);
}

#[test]
fn the_qelib1_bodies_agree_with_the_direct_mapping() {
    // Defining the same gates by hand (with other names) must give the same unitaries, up to
    // global phase; cu3 is the exception, mapped to the true controlled-U.
    let by_hand = "qreg q[3];\ngate myccx a,b,c { h c; cx b,c; tdg c; cx a,c; t c; cx b,c; tdg c; cx a,c; t b; t c; h c; cx a,b; t a; tdg b; cx a,b; }\n\
                   gate mych a,b { h b; sdg b; cx a,b; h b; t b; cx a,b; t b; h b; s b; x b; s a; }\n\
                   gate mycrz(l) a,b { u1(l/2) b; cx a,b; u1(-l/2) b; cx a,b; }\n\
                   myccx q[2], q[0], q[1];\nmych q[1], q[2];\nmycrz(0.7) q[0], q[2];\n";
    let builtin = "qreg q[3];\nccx q[2], q[0], q[1];\nch q[1], q[2];\ncrz(0.7) q[0], q[2];\n";
    assert_same_unitary(&parse_ok(by_hand), &parse_ok(builtin));
}

#[test]
fn literals_keep_full_precision_and_exponents() {
    let circuit = parse_ok(
        "qreg q[1];\nrx(0.12345678901234567) q[0];\nry(1.e-07) q[0];\nrz(.5) q[0];\nu1(2.) q[0];\nu1(-3E+2) q[0];\n",
    );
    let angles: Vec<f64> = circuit
        .ops
        .iter()
        .map(|op| match op {
            Op::Gate { gate, .. } => gate.kind.parameters()[0],
            _ => f64::NAN,
        })
        .collect();
    assert_eq!(angles, [0.12345678901234567, 1e-7, 0.5, 2.0, -300.0]);
}

#[test]
fn defined_gates_expand_with_their_parameters() {
    let circuit = parse_ok(
        "qreg q[2];\ngate twist(a, b) x, y { rz(a*b) x; cx x, y; ry(-a) y; }\ngate outer(t) p, r { twist(t, 2) r, p; }\nouter(0.25) q[0], q[1];\n",
    );
    let mut expected = general(2);
    expected.push_gate(Gate::one(GateKind::Rz(0.5), Qubit(1)));
    expected.push_gate(Gate::cx(Qubit(1), Qubit(0)));
    expected.push_gate(Gate::one(GateKind::Ry(-0.25), Qubit(0)));
    assert_eq!(circuit.ops, expected.ops);
}

#[test]
fn qiskit_extension_gates_are_understood_unless_defined() {
    let circuit = parse_ok(
        "qreg q[3];\nsx q[0];\np(0.3) q[1];\nrzz(0.2) q[0], q[1];\ncswap q[2], q[0], q[1];\ncu(0.1, 0.2, 0.3, 0.4) q[0], q[1];\n",
    );
    let mut expected = general(3);
    expected.push_gate(Gate::one(GateKind::Sx, Qubit(0)));
    expected.push_gate(Gate::one(GateKind::Phase(0.3), Qubit(1)));
    expected.push_gate(Gate::two(GateKind::Rzz(0.2), Qubit(0), Qubit(1)));
    expected.push_gate(Gate::two(GateKind::Swap, Qubit(0), Qubit(1)).controlled(Qubit(2)));
    expected.push_gate(Gate::one(GateKind::Phase(0.4), Qubit(0)));
    expected.push_gate(Gate::one(GateKind::U(0.1, 0.2, 0.3), Qubit(1)).controlled(Qubit(0)));
    assert_eq!(circuit.ops, expected.ops);
    // A program's own `sx` wins.
    let own = parse_ok("qreg q[1];\ngate sx a { x a; }\nsx q[0];\n");
    assert_eq!(own.ops, [Op::Gate { gate: Gate::x(Qubit(0)), condition: None }]);
}

#[test]
fn errors_name_file_line_column_and_reason() {
    let cases: &[(&str, &str)] = &[
        ("OPENQASM 2.0;\nqreg q[1];\nfoo q[0];\n", "t.qasm:3:1: undefined gate `foo`"),
        (
            "OPENQASM 2.0;\nqreg q[1];\nx q[0];\n",
            "t.qasm:3:1: undefined gate `x` (is `include \"qelib1.inc\";` missing?)",
        ),
        (
            "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\nh q[0]\ncx q[0], q[1];\n",
            "t.qasm:5:1: unexpected `cx`; expected `,`, `->`, `;`, `==`",
        ),
        (
            "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\nh q[2];\n",
            "t.qasm:4:3: index 2 is out of range for register `q` of size 2",
        ),
        ("OPENQASM 2.1;\nqreg q[1];\n", "t.qasm:1:1: OpenQASM 2.1 is not supported; this reads OpenQASM 2.0"),
        ("OPENQASM 4;\nqubit q;\n", "t.qasm:1:1: OpenQASM 4 is not supported; this reads OpenQASM 2.0 and 3"),
        (
            "OPENQASM 2.0;\ninclude \"other.inc\";\n",
            "t.qasm:2:9: cannot include \"other.inc\": only \"qelib1.inc\" can be included here",
        ),
        (
            "OPENQASM 2.0;\nqreg q[1];\nopaque magic a;\nmagic q[0];\n",
            "t.qasm:4:1: opaque gate `magic` has no definition to simulate",
        ),
        (
            "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\nrx(0/0) q[0];\n",
            "t.qasm:4:4: the parameter evaluates to NaN, not a finite number",
        ),
        (
            "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ncreg c[64];\nif (c == 1) x q[0];\n",
            "t.qasm:5:5: conditions on registers of 64 or more bits are not supported",
        ),
        (
            "OPENQASM 2.0;\ngate a q { b q; }\ngate b q { a q; }\nqreg r[1];\na r[0];\n",
            "t.qasm:3:12: recursive gate definition: a gate calls itself",
        ),
        ("OPENQASM 2.0;\nqreg q[1];\nqreg q[2];\n", "t.qasm:3:6: register `q` is already declared (line 2)"),
        (
            "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ncreg c[1];\nmeasure c[0] -> q[0];\n",
            "t.qasm:5:9: `c` is a classical register where a quantum one is needed",
        ),
        ("OPENQASM 2.0;\nqreg q[1];\nU(1, 2) q[0];\n", "t.qasm:3:7: unexpected `)`; expected `+`, `,`, `-`"),
        ("OPENQASM 2.0;\nqreg q[1];\nU(1, 2, 3) q[0]; $\n", "t.qasm:3:18: invalid token `$`"),
        (
            "OPENQASM 2.0;\nqreg q[1];\nU(1, 2, 3) q[0]",
            "t.qasm:3:16: unexpected end of file; expected `,`, `->`, `;`, `==`",
        ),
        (
            "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ngate g(t) a { rx(1/t) a; }\ng(0) q[0];\n",
            "t.qasm:5:1: in gate `g`: the parameter evaluates to inf, not a finite number",
        ),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter(|(text, expected)| error_of(text) != *expected)
        .map(|(text, expected)| format!("{text:?}\n  gave     {}\n  expected {expected}", error_of(text)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn limits_are_enforced_before_work() {
    let limits = Limits { max_qubits: 4, max_operations: 10, ..Limits::default() };
    let error =
        parse_source_with("OPENQASM 2.0;\nqreg q[3];\nqreg r[2];\n", "t.qasm", &limits).expect_err("too many qubits");
    assert_eq!(error.to_string(), "t.qasm:3:6: register `r` brings the qubit count past the limit of 4");
    let error = parse_source_with(&format!("{HEADER}qreg q[4];\nh q;\nh q;\nh q;\n"), "t.qasm", &limits)
        .expect_err("too many ops");
    assert_eq!(error.to_string(), "t.qasm:6:1: the circuit expands to more than 10 operations");
    // Exponential expansion is cut off, not run.
    let mut bomb = format!("{HEADER}qreg q[1];\ngate g0 a {{ x a; x a; x a; x a; }}\n");
    for level in 1..20 {
        bomb.push_str(&format!("gate g{level} a {{ g{p} a; g{p} a; g{p} a; g{p} a; }}\n", p = level - 1));
    }
    bomb.push_str("g19 q[0];\n");
    assert!(parse_source(&bomb, "t.qasm").expect_err("bomb").to_string().contains("more than 1000000 operations"));
}

#[test]
fn files_include_relative_to_their_directory() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("defs.inc"), "gate flip a { U(pi, 0, pi) a; }\n").expect("write");
    let main = dir.path().join("main.qasm");
    std::fs::write(&main, "OPENQASM 2.0;\ninclude \"defs.inc\";\nqreg q[1];\nflip q[0];\n").expect("write");
    let circuit = parse_file(&main).expect("parses");
    assert_eq!(circuit.ops.len(), 1);

    std::fs::write(dir.path().join("bad.inc"), "gate oops a { U(1.e5e, 0, 0) a; }\nOPENQASM 3.0;\n").expect("write");
    std::fs::write(&main, "OPENQASM 2.0;\ninclude \"bad.inc\";\n").expect("write");
    let error = parse_file(&main).expect_err("bad include").to_string();
    assert!(error.ends_with("bad.inc:1:15: invalid token `e`") || error.contains("bad.inc:"), "{error}");

    let missing = dir.path().join("missing.qasm");
    assert!(parse_file(&missing).expect_err("missing").to_string().starts_with(&format!("{}: ", missing.display())));
    assert_eq!(
        parse_file(dir.path()).expect_err("directory").to_string(),
        format!("{}: not a regular file", dir.path().display())
    );
    std::fs::write(&main, [0xff, 0xfe, b'x']).expect("write");
    assert!(parse_file(&main).expect_err("binary").to_string().contains("not UTF-8"));
}

/// A valid program exercising most of the grammar, for mutation.
const SEED_PROGRAM: &str = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n// seed\ngate g(t, u) a, b { rz(t*u) a; cx a, b; U(pi/2, -t, u^2) b; }\n\
qreg q[3];\ncreg c[3];\nh q;\ng(0.5, 1.e-3) q[0], q[2];\nccx q[0], q[1], q[2];\nbarrier q;\nmeasure q[0] -> c[0];\nif (c == 1) x q[1];\nreset q[2];\nmeasure q -> c;\n";

fn check_error_shape(text: &str, result: Result<Circuit, QasmError>) -> Result<(), TestCaseError> {
    if let Err(QasmError::Invalid { line, column, file, message }) = result {
        let lines = text.split('\n').count();
        prop_assert!(line >= 1 && line <= lines, "line {} of {} in {}: {}", line, lines, file, message);
        prop_assert!(column >= 1);
        prop_assert!(!message.is_empty());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        check_error_shape(&text, parse_source(&text, "t.qasm"))?;
    }

    #[test]
    fn token_soup_never_panics(tokens in proptest::collection::vec(prop_oneof![
        Just("OPENQASM 2.0;"), Just("include \"qelib1.inc\";"), Just("qreg"), Just("creg"), Just("q"), Just("c"),
        Just("["), Just("]"), Just("("), Just(")"), Just("{"), Just("}"), Just(";"), Just(","), Just("->"), Just("=="),
        Just("gate"), Just("opaque"), Just("measure"), Just("reset"), Just("barrier"), Just("if"), Just("U"), Just("CX"),
        Just("pi"), Just("+"), Just("-"), Just("*"), Just("/"), Just("^"), Just("sin"), Just("0"), Just("1"), Just("3"),
        Just("64"), Just("0.5"), Just("1e-3"), Just("h"), Just("cx"), Just("x"), Just("\n"), Just("// c\n"),
    ], 0..60)) {
        let text = tokens.join(" ");
        check_error_shape(&text, parse_source(&text, "t.qasm"))?;
    }

    #[test]
    fn mutated_programs_never_panic(
        edits in proptest::collection::vec((0usize..400, 0usize..6, "\\PC{0,3}"), 1..4)
    ) {
        let mut text = SEED_PROGRAM.to_string();
        for (position, length, insert) in edits {
            let mut at = position.min(text.len());
            while !text.is_char_boundary(at) { at -= 1; }
            let mut end = (at + length).min(text.len());
            while !text.is_char_boundary(end) { end -= 1; }
            text.replace_range(at..end.max(at), &insert);
        }
        check_error_shape(&text, parse_source(&text, "t.qasm"))?;
    }
}

/// Programs as a corrupt or hostile file gives them: random bytes (invalid UTF-8 replaced),
/// control characters in statements, and a very long line.
fn hostile_program() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        "[\\x00-\\x1f\\x7f\\u{9b}qrcegmasuxh\\[\\](){};,0-9 ]{0,120}".prop_map(|body| format!("{HEADER}{body}")),
        ("[a-z\\x1b@ ]{1,3}", 1000usize..45_000)
            .prop_map(|(unit, times)| format!("{HEADER}qreg q[1];\n{} q[0];\n", unit.repeat(times))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_program_parses_or_gives_a_readable_error(text in hostile_program()) {
        let result = parse_source(&text, "t.qasm");
        check_error_shape(&text, result.clone())?;
        if let Err(error) = result {
            let message = qchess_core::text::with_causes(&error);
            prop_assert!(!message.chars().any(char::is_control), "raw control characters in {:?}", message);
            prop_assert!(message.chars().count() <= 400, "{} characters: {}", message.chars().count(), message);
        }
    }
}

#[test]
fn the_seed_program_is_valid() {
    let circuit = parse_source(SEED_PROGRAM, "seed.qasm").expect("valid");
    assert_eq!(circuit.num_qubits(), 3);
}
