//! Tests of the QPY reader against payloads written by Qiskit (`tests/data/qpy`, made by
//! `make_fixtures.py` there), each with what Qiskit itself reads back from it: `NAME` is a
//! payload of QPY version 17, `NAME.v18` the same circuits at version 18.

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::Value as Json;

use super::*;

/// Every fixture, at both versions (the executor's only at 18).
const FIXTURES: &[&str] = &[
    "bell_fez",
    "ghz_brisbane",
    "parameters",
    "parameters_fez",
    "dynamic",
    "standard_gates",
    "custom_gate",
    "vectors",
    "numbers",
    "conditions",
    "registers",
    "two_circuits",
];

fn every_fixture() -> Vec<String> {
    let mut names: Vec<String> = FIXTURES.iter().flat_map(|name| [name.to_string(), format!("{name}.v18")]).collect();
    names.push("executor.v18".into());
    names
}

/// A payload and what Qiskit reads from it (`NAME.v18.json`, or the version-17 payload's
/// `NAME.json` when Qiskit reads both the same).
fn fixture(name: &str) -> (Vec<u8>, Json) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/qpy");
    let payload = std::fs::read(dir.join(format!("{name}.qpy"))).expect("fixture");
    let own = dir.join(format!("{name}.json"));
    let json = if own.exists() { own } else { dir.join(format!("{}.json", name.trim_end_matches(".v18"))) };
    let expected = serde_json::from_str(&std::fs::read_to_string(json).expect("fixture")).expect("JSON");
    (payload, expected)
}

/// `name` at QPY 17 and at 18.
fn both(name: &str) -> [String; 2] {
    [name.to_string(), format!("{name}.v18")]
}

/// Qiskit's instruction list, with `if_else` blocks flattened onto the outer qubits and bits
/// as the reader flattens them: (name, qubits, clbits, params, condition).
type Flat = (String, Vec<u32>, Vec<u32>, Vec<f64>, Option<(Vec<u32>, u64, bool)>);

fn flatten(
    instructions: &Json,
    qubits: &[u32],
    clbits: &[u32],
    condition: Option<(Vec<u32>, u64, bool)>,
    out: &mut Vec<Flat>,
) {
    for instruction in instructions.as_array().expect("list") {
        let map = |key: &str, outer: &[u32]| -> Vec<u32> {
            instruction[key]
                .as_array()
                .expect("indices")
                .iter()
                .map(|i| outer[i.as_u64().expect("index") as usize])
                .collect()
        };
        let (q, c) = (map("qubits", qubits), map("clbits", clbits));
        let mut name = instruction["name"].as_str().expect("name").to_string();
        if name == "if_else" {
            let bits: Vec<u32> = instruction["condition"]["bits"]
                .as_array()
                .expect("bits")
                .iter()
                .map(|b| clbits[b.as_u64().expect("bit") as usize])
                .collect();
            let value = instruction["condition"]["value"].as_u64().expect("value");
            for (branch, block) in instruction["blocks"].as_array().expect("blocks").iter().enumerate() {
                if !block.is_null() {
                    flatten(block, &q, &c, Some((bits.clone(), value, branch == 0)), out);
                }
            }
            continue;
        }
        let params = if name == "delay" {
            let duration = instruction["duration"].as_f64().expect("duration");
            let unit = instruction["unit"].as_str().expect("unit");
            let Some(&(_, scale)) = [("dt", 1.0), ("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("ps", 1e-12)]
                .iter()
                .find(|(u, _)| *u == unit)
            else {
                panic!("a delay in {unit}");
            };
            if unit != "dt" {
                name = "delay in seconds".into();
            }
            vec![duration * scale]
        } else {
            instruction["params"].as_array().expect("params").iter().map(|p| p.as_f64().unwrap_or(f64::NAN)).collect()
        };
        out.push((name, q, c, params, condition.clone()));
    }
}

/// The reader's program in the same shape.
fn flat_program(program: &Program) -> Vec<Flat> {
    program
        .body
        .iter()
        .map(|instruction| {
            let condition = instruction.condition.as_ref().map(|t| (t.bits.clone(), t.value, t.equal));
            let (name, qubits, clbits, params) = match &instruction.operation {
                Operation::Gate(call) => {
                    assert!(call.modifiers.is_empty(), "{call:?}");
                    (call.name.clone(), call.qubits.clone(), vec![], call.params.clone())
                }
                Operation::Measure { qubit, clbit } => {
                    ("measure".into(), vec![*qubit], clbit.iter().copied().collect(), vec![])
                }
                Operation::Reset { qubit } => ("reset".into(), vec![*qubit], vec![], vec![]),
                Operation::Barrier { qubits } => ("barrier".into(), qubits.clone(), vec![], vec![]),
                Operation::Delay { qubits, duration } => match duration {
                    Duration::Dt(x) => ("delay".into(), qubits.clone(), vec![], vec![*x]),
                    Duration::Seconds(x) => ("delay in seconds".into(), qubits.clone(), vec![], vec![*x]),
                },
            };
            (name, qubits, clbits, params, condition)
        })
        .collect()
}

/// The one circuit of fixture `name`, checked against what Qiskit reads from it.
fn assert_reads_as_qiskit(name: &str) -> Program {
    let mut programs = assert_each_reads_as_qiskit(name);
    assert_eq!(programs.len(), 1, "{name}");
    programs.remove(0)
}

/// Every circuit of fixture `name`, each checked against what Qiskit reads from it.
fn assert_each_reads_as_qiskit(name: &str) -> Vec<Program> {
    let (payload, expected) = fixture(name);
    let circuits = read(&payload).unwrap_or_else(|e| panic!("{name}: {e}"));
    let expected: Vec<&Json> = expected.as_array().map_or_else(|| vec![&expected], |list| list.iter().collect());
    assert_eq!(circuits.len(), expected.len(), "{name}");
    circuits.iter().zip(expected).map(|(circuit, expected)| assert_circuit_reads_as(name, circuit, expected)).collect()
}

fn assert_circuit_reads_as(name: &str, circuit: &QpyCircuit, expected: &Json) -> Program {
    let values: Vec<f64> = expected["parameter_values"]
        .as_array()
        .map_or_else(Vec::new, |v| v.iter().map(|x| x.as_f64().expect("value")).collect());
    let names: Vec<String> = expected["parameter_names"]
        .as_array()
        .map_or_else(Vec::new, |v| v.iter().map(|x| x.as_str().expect("name").to_string()).collect());
    assert_eq!(circuit.parameters, names, "{name}");
    let program = circuit.bind(&values).unwrap_or_else(|e| panic!("{name}: {e}"));
    let qubits = expected["num_qubits"].as_u64().expect("qubits") as u32;
    let clbits = expected["num_clbits"].as_u64().expect("clbits") as u32;
    assert_eq!((program.qubits.len() as u32, program.clbits), (qubits, clbits), "{name}");
    let phase = expected.get("bound_global_phase").unwrap_or(&expected["global_phase"]);
    assert!((program.global_phase - phase.as_f64().expect("phase")).abs() < 1e-12, "{name}");
    let listed = |registers: &Json| -> Vec<(String, Vec<u32>)> {
        registers
            .as_array()
            .expect("registers")
            .iter()
            .map(|r| {
                let bits = r["bits"].as_array().expect("bits").iter().map(|b| b.as_u64().expect("bit") as u32);
                (r["name"].as_str().expect("name").to_string(), bits.collect())
            })
            .collect()
    };
    let cregs: Vec<(String, Vec<u32>)> =
        program.registers.iter().map(|r| (r.name.clone(), (r.start..r.start + r.len).collect())).collect();
    assert_eq!(cregs, listed(&expected["registers"]), "{name}");
    let qregs: Vec<(String, Vec<u32>)> = circuit
        .raw
        .qregs
        .iter()
        .filter(|r| r.in_circuit)
        .map(|r| (r.name.clone(), r.bits.iter().map(|b| b.expect("a bit of the circuit")).collect()))
        .collect();
    assert_eq!(qregs, listed(&expected["quantum_registers"]), "{name}");
    let instructions = if values.is_empty() { &expected["instructions"] } else { &expected["bound"] };
    let mut want = Vec::new();
    let all_qubits: Vec<u32> = (0..qubits).collect();
    let all_clbits: Vec<u32> = (0..clbits).collect();
    flatten(instructions, &all_qubits, &all_clbits, None, &mut want);
    let got = flat_program(&program);
    assert_eq!(got.len(), want.len(), "{name}: {got:?}\n{want:?}");
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((&g.0, &g.1, &g.2, &g.4), (&w.0, &w.1, &w.2, &w.4), "{name}");
        assert_eq!(g.3.len(), w.3.len(), "{name}: {g:?} vs {w:?}");
        for (a, b) in g.3.iter().zip(&w.3) {
            assert!((a - b).abs() < 1e-12, "{name}: {g:?} vs {w:?}");
        }
    }
    program
}

/// Lowered and simulated, a Bell pair on whichever two qubits.
fn assert_bell_pair(program: &Program) {
    let circuit = program.compact().to_circuit(1000).expect("lowers");
    let exact = qchess_sim::auto::probabilities(&circuit, &qchess_sim::auto::AutoLimits::default()).expect("runs");
    let p: Vec<(u64, f64)> = exact.probabilities.iter().copied().filter(|&(_, p)| p > 1e-12).collect();
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p.iter().all(|&(_, x)| (x - 0.5).abs() < 1e-12), "{p:?}");
}

#[test]
fn transpiled_circuits_read_as_qiskit_reads_them() {
    for name in both("bell_fez") {
        let bell = assert_reads_as_qiskit(&name);
        assert_eq!(bell.qubits.len(), 156);
        assert_eq!(bell.registers[0].name, "meas");
        assert_bell_pair(&bell);
    }
    both("ghz_brisbane").iter().for_each(|name| drop(assert_reads_as_qiskit(name)));
}

#[test]
fn parameters_bind_in_qiskits_order() {
    for name in [both("parameters"), both("parameters_fez")].concat() {
        assert_reads_as_qiskit(&name);
        let (payload, _) = fixture(&name);
        let circuit = &read(&payload).expect("reads")[0];
        if name.starts_with("parameters.") || name == "parameters" {
            assert_eq!(
                circuit.bind(&[1.0]).expect_err("too few").to_string(),
                "1 parameter values for a circuit of 2 parameters"
            );
        }
    }
}

#[test]
fn conditions_resets_delays_and_every_standard_gate() {
    for name in both("dynamic") {
        let dynamic = assert_reads_as_qiskit(&name);
        assert!(dynamic.body.iter().any(|i| i.condition.as_ref().is_some_and(|t| !t.equal)), "the else branch");
    }
    for name in both("standard_gates") {
        let gates = assert_reads_as_qiskit(&name);
        // Lowering knows every gate Qiskit named.
        gates.to_circuit(1000).expect("every standard gate lowers");
    }
}

#[test]
fn parameter_vectors_in_circuits_blocks_and_global_phases() {
    for name in both("vectors") {
        let (payload, _) = fixture(&name);
        let circuit = &read(&payload).expect("reads")[0];
        assert_eq!(circuit.parameters, ["x", "x[0]", "x[1]", "x[2]", "y[0]", "y[1]"], "{name}");
        let program = assert_reads_as_qiskit(&name);
        // The global phase is y[1], bound to the sixth value.
        assert_eq!(program.global_phase, 0.3 + 0.25 * 5.0, "{name}");
    }
}

#[test]
fn integer_and_real_instruction_parameters() {
    for name in both("numbers") {
        let program = assert_reads_as_qiskit(&name);
        let first = |wanted: &str| {
            program.body.iter().find_map(|i| match &i.operation {
                Operation::Gate(call) if call.name == wanted => Some(call.params.clone()),
                _ => None,
            })
        };
        // As written: rz(0.125), u(0.1, -2.5, 1e-7), cp(7), the global phase 3, 32 dt and 250 ns,
        // which Qiskit 2.6 stores without its unit and reads back as 250 dt.
        assert_eq!(first("rz"), Some(vec![0.125]), "{name}");
        assert_eq!(first("u"), Some(vec![0.1, -2.5, 1e-7]), "{name}");
        assert_eq!(first("cp"), Some(vec![7.0]), "{name}");
        assert_eq!(program.global_phase, 3.0, "{name}");
        let delays: Vec<&Duration> = program
            .body
            .iter()
            .filter_map(|i| if let Operation::Delay { duration, .. } = &i.operation { Some(duration) } else { None })
            .collect();
        assert_eq!(delays, [&Duration::Dt(32.0), &Duration::Dt(250.0)], "{name}");
    }
}

#[test]
fn conditions_on_loose_bits_register_bits_and_registers_as_tuples_and_expressions() {
    for name in both("conditions") {
        let program = assert_reads_as_qiskit(&name);
        let tests: Vec<(Vec<u32>, u64, bool)> = program
            .body
            .iter()
            .filter_map(|i| i.condition.as_ref())
            .map(|t| (t.bits.clone(), t.value, t.equal))
            .collect();
        // The loose bit is bit 0, register `c` bits 1 and 2; the last two are expressions.
        let want = [
            (vec![0], 1, true),
            (vec![0], 1, false),
            (vec![2], 0, true),
            (vec![1, 2], 2, true),
            (vec![1, 2], 2, true),
            (vec![0], 0, true),
        ];
        assert_eq!(tests, want, "{name}");
    }
}

#[test]
fn registers_ancillas_and_bits_outside_them() {
    let [v17, v18] = both("registers").map(|name| assert_reads_as_qiskit(&name));
    assert_eq!(v17.qubits, v18.qubits);
    // Qubits 4 and 5 are bits 0 and 2 of `part`, a register not in the circuit; 6 is in none.
    assert_eq!(v18.qubits[2], "anc[0]");
    assert_eq!(v18.qubits[4..], ["part[0]", "part[2]", "q6"]);
    let (payload, _) = fixture("registers.v18");
    let part = read(&payload).expect("reads")[0].raw.qregs.iter().find(|r| r.name == "part").cloned().expect("part");
    assert_eq!((part.bits, part.in_circuit), (vec![Some(4), None, Some(5)], false));
}

#[test]
fn payloads_of_several_circuits_as_the_executor_sends_them() {
    for name in both("two_circuits") {
        let programs = assert_each_reads_as_qiskit(&name);
        assert_eq!(programs.len(), 2, "{name}");
        assert_bell_pair(&programs[0]);
    }
    let programs = assert_each_reads_as_qiskit("executor.v18");
    assert_eq!(programs.len(), 2);
    assert_bell_pair(&programs[0]);
}

#[test]
fn unsupported_features_and_damage_are_named() {
    for name in both("custom_gate") {
        let (payload, _) = fixture(&name);
        let error = read(&payload).and_then(|c| c[0].bind(&[])).expect_err("custom gates are refused").to_string();
        assert!(error.starts_with("instruction 0 (`mine"), "{error}");
        assert!(error.contains("the custom gate `mine"), "{error}");
        assert!(error.ends_with("(decompose it into standard gates first) is not supported"), "{error}");
    }
    assert_eq!(
        read(b"not qpy").expect_err("not QPY").to_string(),
        "not a QPY payload (it does not start with `QISKIT`)"
    );
    let (mut bell, _) = fixture("bell_fez");
    for version in [12, 19] {
        bell[6] = version;
        assert_eq!(
            read(&bell).expect_err("a version not read").to_string(),
            format!(
                "QPY version {version} is not read; this reads versions 13 to 18 (what qiskit-ibm-runtime sends with Qiskit 2.6)"
            )
        );
    }
    let (bell, _) = fixture("bell_fez");
    let error = read(&bell[..200]).expect_err("cut short").to_string();
    assert!(error.starts_with("the payload ends at byte"), "{error}");
}

#[test]
fn damaged_version_18_fields_are_named() {
    use super::conditions::register_target;
    use super::registers::register;
    use super::values::{Format, instruction_param};
    let at = Bytes::new(&[]);
    assert_eq!(register_target(&[0, 0, 0, 0, 7], &at, 18), Ok(Target::Clbit(7)));
    assert_eq!(register_target(b"\x01c", &at, 18), Ok(Target::Register("c".into())));
    assert_eq!(register_target(b"\x000", &at, 17), Ok(Target::Clbit(0)));
    let error = |result: Result<Target, QpyError>| result.expect_err("damaged").to_string();
    assert_eq!(error(register_target(&[0, 0, 7], &at, 18)), "byte 0: a condition bit of 2 bytes, not 4");
    assert_eq!(error(register_target(&[2, b'c'], &at, 18)), "byte 0: unknown register payload tag 2");
    assert_eq!(error(register_target(&[], &at, 18)), "byte 0: an empty register payload");
    // An element of vector 5 in an empty table, and element 3 of a vector of 3.
    let mut element = vec![b'v', 0, 0, 0, 0, 0, 0, 0, 10, 0, 5];
    element.extend(3u64.to_be_bytes());
    let format = Format { version: 18, vectors: &[] };
    let read = instruction_param(&mut Bytes::new(&element), &mut Symbols::default(), format);
    assert_eq!(
        read.expect_err("no such vector").to_string(),
        "byte 19: an element of vector 5, in a table of 0 vectors"
    );
    let mut table = vec![0, 1, 0, 1];
    table.extend(3u64.to_be_bytes());
    table.extend([7; 16]);
    table.push(b'x');
    let vectors = values::vector_table(&mut Bytes::new(&table)).expect("a table");
    element[10] = 0;
    let format = Format { version: 18, vectors: &vectors };
    let read = instruction_param(&mut Bytes::new(&element), &mut Symbols::default(), format);
    assert_eq!(read.expect_err("past the end").to_string(), "byte 19: element 3 of the vector `x` of 3 elements");
    // A register of consecutive bits stores its first; it may not run past the largest circuit.
    let mut consecutive = vec![b'a', 1, 0, 0, 0, 4, 0, 1, 1, 1, b'r'];
    consecutive.extend(2u32.to_be_bytes());
    let anc = register(&mut Bytes::new(&consecutive), 18).expect("a register");
    assert_eq!((anc.bits, anc.quantum, anc.in_circuit), (vec![Some(2), Some(3), Some(4), Some(5)], true, true));
    consecutive[11..15].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(
        register(&mut Bytes::new(&consecutive), 18).expect_err("too far").to_string(),
        "byte 15: register `r` of 4 bits from bit 4294967295 runs past bit 65536"
    );
    consecutive[9] = 2;
    assert_eq!(
        register(&mut Bytes::new(&consecutive), 18).expect_err("unknown").to_string(),
        "byte 10: unknown register attachment 2"
    );
}

#[test]
fn every_prefix_of_every_fixture_fails_cleanly() {
    for name in every_fixture() {
        let (payload, _) = fixture(&name);
        for end in 0..payload.len() {
            assert!(read(&payload[..end]).is_err(), "{name}: a prefix of {end} bytes read as a whole circuit");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn damaged_payloads_never_panic(
        which in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let names = every_fixture();
        let (mut payload, _) = fixture(&names[which.index(names.len())]);
        for (at, byte) in edits {
            let at = at.index(payload.len());
            payload[at] = byte;
        }
        if let Ok(circuits) = read(&payload) {
            for circuit in circuits {
                let values = vec![0.5; circuit.parameters.len()];
                if let Ok(program) = circuit.bind(&values) {
                    let _ = program.to_circuit(10_000);
                }
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(version in 13u8..=18, bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut payload = b"QISKIT".to_vec();
        payload.extend([version, 2, 6, 2]);
        payload.extend(bytes);
        let _ = read(&payload);
    }
}

#[test]
fn errors_inside_blocks_name_the_whole_path() {
    let (payload, _) = fixture("dynamic");
    let circuit = &read(&payload).expect("reads")[0];
    let mut raw = circuit.raw.clone();
    // Make the true block's gate unknown.
    raw.instructions[2].blocks[0].instructions[0].class = "MysteryGate".into();
    let broken = QpyCircuit { raw, ..circuit.clone() };
    assert_eq!(
        broken.bind(&[]).expect_err("unknown gate").to_string(),
        "instruction 2 (`IfElseOp`), true block, instruction 0 (`MysteryGate`): the instruction `MysteryGate` is not supported"
    );
}
