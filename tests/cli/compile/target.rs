//! `qchess compile --target`: routed ISA circuits with their layout and figures, and the exit
//! codes of bad targets.

use crate::common::{qchess, qchess_json};

const SPLIT_MERGE: [&str; 4] = ["--position", "startpos", "--moves", "b1^a3c3 e7e6 a3c3^b5"];

fn routed(target: &str, format: &str) -> serde_json::Value {
    qchess_json("compile", &[&SPLIT_MERGE[..], &["--target", target, "--format", format]].concat())
}

#[test]
fn heron_circuit_is_verified_and_its_figures_match_its_text() {
    let out = routed("ibm-heron", "qasm3");
    assert_eq!(out["target"], "ibm_fez");
    assert_eq!(out["verified"], "equivalent");
    let qasm = out["qasm"].as_str().expect("qasm text");
    assert!(qasm.contains("OPENQASM 3.0;") && qasm.contains("qubit[156] q;"));
    let two = qasm.lines().filter(|l| l.starts_with("cz ")).count();
    assert_eq!(out["two_qubit_gates"], two);
    assert!(two > 0);
    let gates: std::collections::BTreeSet<&str> = qasm
        .lines()
        .filter(|l| !l.starts_with("//") && l.ends_with(';'))
        .filter_map(|l| l.split([' ', '(']).next())
        .collect();
    for gate in &gates {
        assert!(
            ["cz", "rz", "sx", "x", "meas[0]", "meas[1]", "meas[2]", "qubit[156]", "bit[3]", "include", "OPENQASM"]
                .contains(gate),
            "{gate} in\n{qasm}"
        );
    }
    assert_eq!(out["layout"].as_array().expect("layout").len(), 4);
    let b5 = out["squares"]["b5"].as_u64().expect("b5 has a qubit");
    assert!(out["measure"].as_array().expect("measure").contains(&b5.into()));
}

#[test]
fn eagle_text_output_names_target_layout_and_figures() {
    let run = qchess(&[&["compile"][..], &SPLIT_MERGE[..], &["--target", "ibm-eagle", "--format", "qasm2"]].concat());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.starts_with("// Compiled for ibm_brisbane (127 qubits, ecr basis).\n// two-qubit gates: "));
    assert!(
        run.stdout.contains("//   b5: q[") && run.stdout.contains("OPENQASM 2.0;") && run.stdout.contains("ecr q[")
    );
}

#[test]
fn a_target_file_in_our_format_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("square.json");
    std::fs::write(
        &path,
        r#"{"name": "square", "qubits": 4, "basis": "ecr", "coupling": [[0, 1], [1, 2], [2, 3], [3, 0]]}"#,
    )
    .expect("write");
    let out = routed(path.to_str().expect("utf-8"), "qasm3");
    assert_eq!((out["target"].as_str(), out["basis"].as_str()), (Some("square"), Some("ecr")));
    assert_eq!(out["verified"], "equivalent");
}

#[test]
fn bad_targets_exit_2_naming_the_problem() {
    let cases = [
        (vec!["--target", "line:2"], "the circuit needs 4 qubits but target `line:2` has 2"),
        (vec!["--target", "ring:5"], "unknown target `ring:5`"),
        (vec!["--target", "line:9@cx"], "unknown basis `cx`"),
        (vec!["--target", "line:9", "--format", "ionq-json"], "--target writes qasm3 or qasm2"),
    ];
    for (extra, message) in cases {
        let run = qchess(&[&["compile"][..], &SPLIT_MERGE[..], &extra[..]].concat());
        assert_eq!(run.code, Some(2), "{extra:?}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{extra:?}: {}", run.stderr);
    }
}

#[test]
fn per_move_routing_only_appends_to_what_came_before() {
    let moves = ["--position", "startpos", "--moves", "b1^a3c3 e7e6 a3c3^b5 g8^f6h6"];
    let out =
        qchess_json("compile", &[&moves[..], &["--target", "ibm-eagle", "--format", "qasm3", "--per-move"]].concat());
    let gate_lines = |entry: &serde_json::Value| -> Vec<String> {
        let qasm = entry["qasm"].as_str().expect("qasm text");
        qasm.lines()
            .filter(|l| !l.starts_with("//") && l.contains("q[") && !l.contains("measure") && !l.starts_with("qubit"))
            .map(str::to_owned)
            .collect()
    };
    let entries = out.as_array().expect("one entry per move");
    assert_eq!(entries.len(), 4);
    for pair in entries.windows(2) {
        let (before, after) = (gate_lines(&pair[0]), gate_lines(&pair[1]));
        assert_eq!(
            &after[..before.len()],
            &before[..],
            "move {} keeps move {}'s gates",
            pair[1]["ply"],
            pair[0]["ply"]
        );
        assert_eq!(pair[1]["verified"], "equivalent");
    }
    assert!(gate_lines(&entries[3]).len() > gate_lines(&entries[1]).len());
}

/// The operations of an OpenQASM text on physical qubits: (gate, qubits).
fn operations(qasm: &str) -> Vec<(String, Vec<u32>)> {
    qasm.lines()
        .filter(|l| !l.starts_with("//") && l.contains("q["))
        .map(|line| {
            let gate = line.split([' ', '(']).next().unwrap_or("").to_owned();
            let qubits =
                line.match_indices("q[").filter_map(|(at, _)| line[at + 2..].split(']').next()?.parse().ok()).collect();
            let gate = if line.contains("measure") { "measure".to_owned() } else { gate };
            (gate, qubits)
        })
        .filter(|(gate, _)| gate != "qubit")
        .collect()
}

#[test]
fn a_calibrated_device_gives_the_estimated_success_and_leaves_broken_elements_out() {
    let moves = ["--position", "startpos", "--moves", "b1^a3c3 g8^f6h6 a3c3^b5 f6h6^g4 g1^f3h3 e7e6"];
    let out = qchess_json("compile", &[&moves[..], &["--target", "ibm-torino", "--format", "qasm3"]].concat());
    assert_eq!(out["target"], "ibm_torino");
    assert_eq!(out["calibration"], "2025-02-26T15:26:08-05:00");
    assert_eq!(out["left_out"]["qubits"], serde_json::json!([86]));
    let couplers: Vec<(u32, u32)> = serde_json::from_value(out["left_out"]["couplers"].clone()).expect("pairs");
    assert_eq!(couplers.len(), 11);
    assert!(couplers.contains(&(58, 59)) && couplers.contains(&(21, 34)));
    let esp = out["esp"].as_f64().expect("an estimated success probability");
    assert!(esp > 0.5 && esp < 1.0, "{esp}");
    let qasm = out["qasm"].as_str().expect("qasm");
    assert!(
        qasm.contains(&format!(
            "// estimated success probability: {esp:.6} (calibration of 2025-02-26T15:26:08-05:00)"
        ))
    );
    assert!(qasm.contains("// left out as broken: 1 qubits, 11 couplers"));
    for (gate, qubits) in operations(qasm) {
        assert!(!qubits.contains(&86), "{gate} on {qubits:?} touches the broken qubit 86");
        if let [a, b] = qubits[..] {
            assert!(!couplers.contains(&(a.min(b), a.max(b))), "{gate} on a broken coupler ({a}, {b})");
        }
    }
    assert_eq!(out["verified"], "equivalent");
}

#[test]
fn the_official_split_merge_takes_six_two_qubit_gates_on_eagle() {
    // Its four qubits interact in a cycle the heavy-hex lattice lacks: the SWAPs are absorbed by
    // two-qubit block resynthesis and by exchanging places at each whole iSWAP.
    let out = routed("ibm-eagle", "qasm3");
    assert!(out["two_qubit_gates"].as_u64().is_some_and(|n| n <= 6), "{}", out["two_qubit_gates"]);
    assert_eq!(out["verified"], "equivalent");
}

#[test]
fn a_device_whose_working_part_is_too_small_exits_2_with_the_sizes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("split.json");
    // Two halves of three joined by a dead coupler: no part holds the circuit's four qubits.
    std::fs::write(
        &path,
        r#"{"name": "split", "qubits": 6, "basis": "cz", "coupling": [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]],
            "pair_errors": [[2, 3, 1.0]]}"#,
    )
    .expect("write");
    let run = qchess(&[&["compile"][..], &SPLIT_MERGE[..], &["--target", path.to_str().expect("utf-8")]].concat());
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("needs 4 qubits but the largest connected part of working qubits has 3")
            && run.stderr.contains("1 couplers broken"),
        "{}",
        run.stderr
    );
}
