//! Tests of the QPY reader against payloads written by Qiskit (`tests/data/qpy`, made by
//! `make_fixtures.py` there), each with what Qiskit itself reads back from it.

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::Value as Json;

use super::*;

fn fixture(name: &str) -> (Vec<u8>, Json) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/qpy");
    let payload = std::fs::read(dir.join(format!("{name}.qpy"))).expect("fixture");
    let expected = serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).expect("fixture"))
        .expect("JSON");
    (payload, expected)
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
        let name = instruction["name"].as_str().expect("name").to_string();
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
            vec![instruction["duration"].as_f64().expect("duration")]
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
                Operation::Delay { qubits, duration } => {
                    let length = match duration {
                        Duration::Dt(x) | Duration::Seconds(x) => *x,
                    };
                    ("delay".into(), qubits.clone(), vec![], vec![length])
                }
            };
            (name, qubits, clbits, params, condition)
        })
        .collect()
}

fn assert_reads_as_qiskit(name: &str) -> Program {
    let (payload, expected) = fixture(name);
    let circuits = read(&payload).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(circuits.len(), 1);
    let circuit = &circuits[0];
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
    assert!((program.global_phase - expected["global_phase"].as_f64().expect("phase")).abs() < 1e-12, "{name}");
    for (register, json) in program.registers.iter().zip(expected["registers"].as_array().expect("registers")) {
        let bits: Vec<u32> = (register.start..register.start + register.len).collect();
        let json_bits: Vec<u32> =
            json["bits"].as_array().expect("bits").iter().map(|b| b.as_u64().expect("bit") as u32).collect();
        assert_eq!((register.name.as_str(), bits), (json["name"].as_str().expect("name"), json_bits), "{name}");
    }
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

#[test]
fn transpiled_circuits_read_as_qiskit_reads_them() {
    let bell = assert_reads_as_qiskit("bell_fez");
    assert_eq!(bell.qubits.len(), 156);
    assert_eq!(bell.registers[0].name, "meas");
    // Lowered and simulated: the Bell pair.
    let circuit = bell.compact().to_circuit(1000).expect("lowers");
    let exact = qchess_sim::auto::probabilities(&circuit, &qchess_sim::auto::AutoLimits::default()).expect("runs");
    let p: Vec<(u64, f64)> = exact.probabilities.iter().copied().filter(|&(_, p)| p > 1e-12).collect();
    assert_eq!(p.len(), 2, "{p:?}");
    assert!(p.iter().all(|&(_, x)| (x - 0.5).abs() < 1e-12), "{p:?}");
    assert_reads_as_qiskit("ghz_brisbane");
}

#[test]
fn parameters_bind_in_qiskits_order() {
    assert_reads_as_qiskit("parameters");
    assert_reads_as_qiskit("parameters_fez");
    let (payload, _) = fixture("parameters");
    let circuit = &read(&payload).expect("reads")[0];
    assert_eq!(
        circuit.bind(&[1.0]).expect_err("too few").to_string(),
        "1 parameter values for a circuit of 2 parameters"
    );
}

#[test]
fn conditions_resets_delays_and_every_standard_gate() {
    let dynamic = assert_reads_as_qiskit("dynamic");
    assert!(dynamic.body.iter().any(|i| i.condition.as_ref().is_some_and(|t| !t.equal)), "the else branch");
    let gates = assert_reads_as_qiskit("standard_gates");
    // Lowering knows every gate Qiskit named.
    gates.to_circuit(1000).expect("every standard gate lowers");
}

#[test]
fn unsupported_features_and_damage_are_named() {
    let (payload, _) = fixture("custom_gate");
    let error = read(&payload).and_then(|c| c[0].bind(&[])).expect_err("custom gates are refused").to_string();
    assert!(error.starts_with("instruction 0 (`mine"), "{error}");
    assert!(error.contains("the custom gate `mine"), "{error}");
    assert!(error.ends_with("(decompose it into standard gates first) is not supported"), "{error}");
    assert_eq!(
        read(b"not qpy").expect_err("not QPY").to_string(),
        "not a QPY payload (it does not start with `QISKIT`)"
    );
    let (mut bell, _) = fixture("bell_fez");
    bell[6] = 12;
    assert!(
        read(&bell)
            .expect_err("old version")
            .to_string()
            .starts_with("QPY version 12 is not read; this reads versions 13 to 17")
    );
    let (bell, _) = fixture("bell_fez");
    let error = read(&bell[..200]).expect_err("cut short").to_string();
    assert!(error.starts_with("the payload ends at byte"), "{error}");
}

#[test]
fn every_prefix_of_every_fixture_fails_cleanly() {
    for name in ["bell_fez", "dynamic", "parameters", "standard_gates"] {
        let (payload, _) = fixture(name);
        for end in 0..payload.len() {
            assert!(read(&payload[..end]).is_err(), "{name}: a prefix of {end} bytes read as a whole circuit");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn damaged_payloads_never_panic(
        which in 0usize..4,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let name = ["bell_fez", "dynamic", "parameters", "standard_gates"][which];
        let (mut payload, _) = fixture(name);
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
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut payload = b"QISKIT\x11\x02\x06\x02".to_vec();
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
