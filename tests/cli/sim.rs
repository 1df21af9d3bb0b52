//! `qchess sim`.

use std::path::PathBuf;

use crate::common::qchess;

/// Writes `text` to a fresh file and keeps its directory alive.
fn qasm_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("circuit.qasm");
    std::fs::write(&path, text).expect("write");
    (dir, path)
}

const BELL: &str =
    "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0], q[1];\nmeasure q -> c;\n";

/// A `--json` answer without its `timings`, the one part that differs between identical runs.
fn without_timings(mut json: serde_json::Value) -> serde_json::Value {
    json.as_object_mut().expect("an object").remove("timings");
    json
}

fn probability(json: &serde_json::Value, key: &str) -> f64 {
    json["probabilities"][key].as_f64().unwrap_or(0.0)
}

#[test]
fn exact_json_lists_nonzero_probabilities_over_all_qubits() {
    let (_dir, path) = qasm_file(BELL);
    let run = qchess(&["sim", path.to_str().expect("utf-8"), "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    assert_eq!(json["qubits"], 2);
    let probabilities = json["probabilities"].as_object().expect("object");
    assert_eq!(probabilities.keys().collect::<Vec<_>>(), ["0", "3"]);
    assert!((probability(&json, "0") - 0.5).abs() < 1e-12);
    assert!((probability(&json, "3") - 0.5).abs() < 1e-12);
}

#[test]
fn exact_mode_branches_on_mid_circuit_measurement_and_conditions() {
    // q0 = Ry(theta)|0>, measured; the result is copied into q1 by a condition; q2 gets H.
    // P(q0 = 1) = sin^2(theta/2) with theta = 2 asin(sqrt(0.3)): P(011) = 0.15, P(111) = 0.15,
    // P(000) = P(100) = 0.35.
    let text = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[3];\ncreg c[1];\nry(1.1592794807274085) q[0];\n\
                measure q[0] -> c[0];\nif (c == 1) x q[1];\nh q[2];\n";
    let (_dir, path) = qasm_file(text);
    let json = qchess(&["sim", path.to_str().expect("utf-8"), "--exact", "--json"]).json();
    let expected = [("0", 0.35), ("3", 0.15), ("4", 0.35), ("7", 0.15)];
    assert_eq!(json["probabilities"].as_object().expect("object").len(), 4);
    for (key, p) in expected {
        assert!((probability(&json, key) - p).abs() < 1e-12, "P({key}) = {}", probability(&json, key));
    }
}

#[test]
fn shots_are_counted_over_classical_bits_and_reproducible_with_a_seed() {
    let (_dir, path) = qasm_file(BELL);
    let file = path.to_str().expect("utf-8");
    let first = qchess(&["sim", file, "--shots", "2000", "--seed", "11", "--json"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let json = first.json();
    assert_eq!(json["shots"], 2000);
    assert_eq!(json["seed"], 11);
    let counts = json["counts"].as_object().expect("object");
    assert!(counts.keys().all(|k| k == "0" || k == "3"), "{counts:?}");
    assert_eq!(counts.values().map(|v| v.as_u64().expect("count")).sum::<u64>(), 2000);
    // 2000 fair coin flips: 1000 +- 5 sigma.
    let zeros = counts["0"].as_u64().expect("count");
    assert!((1000i64 - zeros as i64).abs() < 112, "{zeros}");
    let again = qchess(&["sim", file, "--shots", "2000", "--seed", "11", "--json"]);
    assert_eq!(without_timings(again.json()), without_timings(json));
}

#[test]
fn a_program_without_measurements_is_sampled_on_every_qubit() {
    let text = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[3];\nx q[0];\nx q[2];\n";
    let (_dir, path) = qasm_file(text);
    let json = qchess(&["sim", path.to_str().expect("utf-8"), "--shots", "10", "--seed", "1", "--json"]).json();
    assert_eq!(json["counts"], serde_json::json!({"5": 10}));
}

#[test]
fn human_output_is_a_table() {
    let (_dir, path) = qasm_file(BELL);
    let file = path.to_str().expect("utf-8");
    let exact = qchess(&["sim", file]);
    assert_eq!(exact.code, Some(0));
    assert!(exact.stdout.contains("2 qubits, exact probabilities"), "{}", exact.stdout);
    assert!(exact.stdout.contains("           3  11      0.500000000000"), "{}", exact.stdout);
    let sampled = qchess(&["sim", file, "--shots", "100", "--seed", "5"]);
    assert!(sampled.stdout.contains("100 shots, seed 5, read on classical bits c1..c0"), "{}", sampled.stdout);
    let rows = sampled.stdout.lines().filter(|l| l.trim_start().starts_with(['0', '3'])).count();
    assert_eq!(rows, 2, "{}", sampled.stdout);
}

#[test]
fn bad_input_exits_2_with_file_line_column() {
    let (_dir, path) = qasm_file("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\nfoo q[0];\n");
    let file = path.to_str().expect("utf-8");
    let run = qchess(&["sim", file]);
    assert_eq!(run.code, Some(2));
    assert_eq!(run.stderr.trim(), format!("qchess: error: {file}:4:1: undefined gate `foo`"));
    assert_eq!(run.stderr.lines().count(), 1);

    let missing = qchess(&["sim", "/nonexistent/circuit.qasm"]);
    assert_eq!(missing.code, Some(2));
    assert!(missing.stderr.contains("/nonexistent/circuit.qasm: "), "{}", missing.stderr);

    let (_dir, path) = qasm_file(BELL);
    let file = path.to_str().expect("utf-8");
    assert_eq!(qchess(&["sim", file, "--shots", "0"]).code, Some(2));
    assert_eq!(qchess(&["sim", file, "--shots", "5", "--exact"]).code, Some(2));
    assert_eq!(qchess(&["sim", file, "--seed", "5"]).code, Some(2));
}

#[test]
fn a_state_past_the_qubit_limit_is_refused_before_allocation() {
    // A Bell pair fills half of its 4 basis states: dense, and over a 1-qubit limit.
    let (_dir, path) = qasm_file(BELL);
    let run = qchess(&["sim", path.to_str().expect("utf-8"), "--max-qubits", "1"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("2 qubits are more than the 1 a dense simulation may use"), "{}", run.stderr);

    // 40 qubits with 11 in superposition: 2048 basis states, over a sparse limit of 1024,
    // and 40 qubits are too many for a dense vector.
    let hadamards: String = (0..11).map(|i| format!("h q[{i}];\n")).collect();
    let (_dir, path) = qasm_file(&format!("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[40];\n{hadamards}"));
    let run = qchess(&["sim", path.to_str().expect("utf-8"), "--max-states", "1024"]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("40 qubits are more than the 30 a dense simulation may use"), "{}", run.stderr);
}

#[test]
fn a_wide_circuit_whose_state_stays_small_runs_sparse() {
    // GHZ over 40 qubits: far past a dense vector, two basis states for the sparse one.
    let chain: String = (0..39).map(|i| format!("cx q[{i}],q[{}];\n", i + 1)).collect();
    let (_dir, path) = qasm_file(&format!("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[40];\nh q[0];\n{chain}"));
    let run = qchess(&["sim", path.to_str().expect("utf-8"), "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out = run.json();
    assert_eq!(out["qubits"], 40);
    let probabilities = out["probabilities"].as_object().expect("an object");
    assert_eq!(probabilities.len(), 2);
    for key in ["0", &((1u64 << 40) - 1).to_string()] {
        let p = probabilities[key].as_f64().expect("a probability");
        assert!((p - 0.5).abs() < 1e-12, "{key}: {p}");
    }
}

/// `rounds` rounds of `h q[i]; measure q[i] -> c[i]` on `qubits` qubits.
fn measured_rounds(qubits: usize, rounds: usize) -> String {
    let mut text = format!("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[{qubits}];\ncreg c[{qubits}];\n");
    for _ in 0..rounds {
        for i in 0..qubits {
            text.push_str(&format!("h q[{i}];\nmeasure q[{i}] -> c[{i}];\n"));
        }
    }
    text
}

/// A dense circuit that keeps a simulator busy for many seconds: `layers` of H and Rz on
/// every one of 20 qubits.
fn slow_circuit(layers: usize) -> String {
    let mut text = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[20];\n".to_string();
    for layer in 0..layers {
        for i in 0..20 {
            text.push_str(&format!("h q[{i}];\nrz({}) q[{i}];\n", 0.1 + layer as f64 * 0.01));
        }
    }
    text
}

#[test]
fn repeated_mid_circuit_measurements_sample_fast_on_sparse_states() {
    let (_dir, path) = qasm_file(&measured_rounds(20, 50));
    let run = qchess(&["sim", path.to_str().expect("utf-8"), "--shots", "100", "--seed", "3", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let json = run.json();
    let total: u64 = json["counts"].as_object().expect("object").values().map(|v| v.as_u64().expect("count")).sum();
    assert_eq!(total, 100);
}

#[test]
fn exact_runs_past_the_branch_limit_stop_naming_the_limit_and_its_flag() {
    let (_dir, path) = qasm_file(&measured_rounds(20, 50));
    let file = path.to_str().expect("utf-8");
    let run = qchess(&["sim", file, "--exact"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("more than 262144 measurement branches"), "{}", run.stderr);
    assert!(run.stderr.contains("(raise it with --max-branches)"), "{}", run.stderr);
    // Merged branches keep 4 rounds on 10 qubits at 2^10 branches: a limit of 1024 answers.
    let (_dir, small) = qasm_file(&measured_rounds(10, 4));
    let small = small.to_str().expect("utf-8");
    let run = qchess(&["sim", small, "--exact", "--max-branches", "1024", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.json()["probabilities"].as_object().expect("object").len(), 1024);
    let run = qchess(&["sim", small, "--exact", "--max-branches", "1000"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
}

#[test]
fn the_time_limit_stops_a_long_simulation_with_a_clear_error() {
    let (_dir, path) = qasm_file(&slow_circuit(200));
    let file = path.to_str().expect("utf-8");
    for mode in [&["--exact"][..], &["--shots", "10"][..]] {
        let run = qchess(&[&["sim", file, "--time-limit", "0.2"], mode].concat());
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(
            run.stderr.contains("the time limit of 0.2 s was reached (raise it with --time-limit)"),
            "{}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{}", run.stdout);
    }
    for bad in ["0", "-3", "soon"] {
        let run = qchess(&["sim", file, "--time-limit", bad]);
        assert_eq!(run.code, Some(2), "{bad}: {}", run.stderr);
    }
}

#[test]
fn a_state_larger_than_available_memory_is_refused_clearly() {
    // 44 qubits of H are 2^44 basis states: past the sparse limit, and 256 TiB dense.
    let mut text = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[44];\n".to_string();
    for i in 0..44 {
        text.push_str(&format!("h q[{i}];\n"));
    }
    let (_dir, path) = qasm_file(&text);
    let run = qchess(&["sim", path.to_str().expect("utf-8"), "--max-qubits", "50", "--max-states", "1024"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    if std::path::Path::new("/proc/meminfo").exists() {
        assert!(run.stderr.contains("44 qubits need 256 TiB for a dense state vector, but only"), "{}", run.stderr);
        assert!(run.stderr.contains("of memory is available"), "{}", run.stderr);
    }
}

#[test]
fn compare_stops_at_its_time_limit_too() {
    // The same slow circuit compared on the local simulator against itself.
    let (_dir, path) = qasm_file(&slow_circuit(200));
    let file = path.to_str().expect("utf-8");
    let started = std::time::Instant::now();
    let run = qchess(&["compare", "--qasm", file, "--vs", "local", "--time-limit", "0.5"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(
        run.stderr.contains("compare: the time limit of 0.5 s was reached (raise it with --time-limit)"),
        "{}",
        run.stderr
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}

#[test]
fn single_precision_and_threads_agree_with_double() {
    let (_dir, path) = qasm_file(&slow_circuit(2));
    let file = path.to_str().expect("utf-8");
    let double = qchess(&["sim", file, "--json", "--threads", "1"]);
    assert_eq!(double.code, Some(0), "{}", double.stderr);
    let single = qchess(&["sim", file, "--json", "--precision", "single", "--threads", "2"]);
    assert_eq!(single.code, Some(0), "{}", single.stderr);
    let (double, single) = (double.json(), single.json());
    let double = double["probabilities"].as_object().expect("object");
    for (key, p) in double {
        let q = single["probabilities"][key].as_f64().unwrap_or(0.0);
        assert!((p.as_f64().expect("number") - q).abs() < 1e-5, "{key}: {p} vs {q}");
    }
    assert_eq!(qchess(&["sim", file, "--precision", "half"]).code, Some(2));
    assert_eq!(qchess(&["sim", file, "--threads", "0"]).code, Some(2));
}

/// `qchess compile ARGS --format FORMAT` into `dir/name`, returning the file's path.
fn compiled(dir: &std::path::Path, name: &str, args: &[&str], format: &str) -> PathBuf {
    let path = dir.join(name);
    let run = qchess(&[&["compile"], args, &["--format", format]].concat());
    assert_eq!(run.code, Some(0), "compile {args:?}: {}", run.stderr);
    std::fs::write(&path, &run.stdout).expect("write");
    path
}

#[test]
fn every_openqasm_3_file_qchess_writes_runs_as_its_openqasm_2_twin() {
    // Plain circuits, routed ISA circuits for both device presets (over 156 or 127 declared
    // qubits, run on those used), and a circuit with post-selected mid-game measurements.
    let dir = tempfile::tempdir().expect("temp dir");
    let game = "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4.m1";
    let cases: [(&str, Vec<&str>); 4] = [
        ("plain", vec!["--position", "startpos", "--moves", "b1^a3c3 e7e6 a3c3^b5"]),
        ("heron", vec!["--position", "startpos", "--moves", game, "--target", "ibm-heron"]),
        ("eagle", vec!["--position", "startpos", "--moves", "b1^a3c3 g8^f6h6 a3c3^b5", "--target", "ibm-eagle"]),
        ("typed", vec!["--init", "b1,f6", "--moves", "b1^a3c3:SPLIT_JUMP:BASIC f6^d5h5:SPLIT_JUMP:BASIC"]),
    ];
    for (name, args) in cases {
        let three = compiled(dir.path(), &format!("{name}.qasm3"), &args, "qasm3");
        let two = compiled(dir.path(), &format!("{name}.qasm"), &args, "qasm2");
        for mode in [vec!["--json"], vec!["--json", "--shots", "3000", "--seed", "5"]] {
            let run3 = qchess(&[&["sim", three.to_str().expect("utf-8")], &mode[..]].concat());
            let run2 = qchess(&[&["sim", two.to_str().expect("utf-8")], &mode[..]].concat());
            assert_eq!(run3.code, Some(0), "{name}: {}", run3.stderr);
            assert_eq!(run2.code, Some(0), "{name}: {}", run2.stderr);
            let (json3, json2) = (without_timings(run3.json()), without_timings(run2.json()));
            if mode.len() > 1 {
                assert_eq!(json3, json2, "{name}: the same counts from the same seed");
                continue;
            }
            assert_eq!(json3["qubits"], json2["qubits"], "{name}");
            let (p3, p2) =
                (json3["probabilities"].as_object().expect("map"), json2["probabilities"].as_object().expect("map"));
            assert_eq!(p3.keys().collect::<Vec<_>>(), p2.keys().collect::<Vec<_>>(), "{name}");
            for (key, value) in p3 {
                let (a, b) = (value.as_f64().expect("number"), p2[key].as_f64().expect("number"));
                assert!((a - b).abs() < 1e-12, "{name}: outcome {key}: {a} vs {b}");
            }
            if name == "heron" || name == "eagle" {
                assert!(run3.stderr.contains("declares") && run3.stderr.contains("qubits and uses"), "{}", run3.stderr);
            }
        }
    }
}

#[test]
fn openqasm_3_errors_name_the_place_and_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("pulse.qasm3");
    std::fs::write(&path, "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit q;\ndefcal x $0 { }\n").expect("write");
    let run = qchess(&["sim", path.to_str().expect("utf-8")]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let message = "pulse.qasm3:4:1: calibrations (`defcal`) are pulse programs, which are not supported";
    assert!(run.stderr.contains(message), "{}", run.stderr);
}

#[test]
fn json_reports_the_phases_and_the_passes_of_a_dense_run() {
    // H on all 12 qubits then CX and U gates: 4096 basis states, sure to outgrow the sparse
    // simulator, so the dense one runs and reports its passes.
    let mut text = String::from("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[12];\n");
    (0..12).for_each(|i| text.push_str(&format!("h q[{i}];\n")));
    (0..11).for_each(|i| text.push_str(&format!("cx q[{i}], q[{}];\nu3(0.3, 0.2, 0.1) q[{i}];\n", i + 1)));
    let (_dir, path) = qasm_file(&text);
    let file = path.to_str().expect("utf-8");
    for precision in ["single", "double"] {
        let run = qchess(&["sim", file, "--shots", "100", "--seed", "3", "--precision", precision, "--json"]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let json = run.json();
        assert_eq!(json["engine"], "dense", "{json}");
        let timings = &json["timings"];
        for phase in ["parse", "plan", "allocate", "simulate", "sample"] {
            assert!(timings[phase].as_f64().is_some_and(|s| s >= 0.0), "{phase}: {json}");
        }
        let dense = &json["dense"];
        assert_eq!(dense["precision"], precision);
        let passes = dense["passes"].as_u64().expect("passes");
        let blocks = dense["blocks"].as_u64().expect("blocks");
        assert!(passes >= 1 && passes <= blocks && blocks < 34, "{dense}");
        let widths: u64 = dense["block_widths"].as_array().expect("widths").iter().filter_map(|w| w.as_u64()).sum();
        assert_eq!(widths, blocks, "{dense}");
    }
    // A circuit that stays sparse reports no dense phases: a Bell pair among 30 qubits (a
    // circuit of a few qubits goes to the dense simulator, whose state is then as small).
    let wide = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[30];\nh q[0];\ncx q[0], q[29];\n";
    let (_dir, bell) = qasm_file(wide);
    let json = qchess(&["sim", bell.to_str().expect("utf-8"), "--json"]).json();
    assert_eq!(json["engine"], "sparse");
    assert!(json["dense"].is_null() && json["timings"]["plan"].is_null(), "{json}");
    assert!(json["timings"]["simulate"].as_f64().is_some(), "{json}");
}
