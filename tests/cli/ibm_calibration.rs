//! The IBM device's calibration, live from a real `qchess serve` on 127.0.0.1 (its IBM Quantum
//! stand-in): `qchess compile --target ibm:DEVICE` reads the configuration and properties (with
//! their `operational` flags), routes around the broken couplers and caches nothing under a
//! `--ibm-url`; `--vs ibm:DEVICE` names the calibration it routes with.

use std::process::Command;

use crate::common::{Run, Served};

const KEY: &str = "ibm-test-key";

fn run(served: &Served, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_qchess"))
        .args(args)
        .args(["--ibm-url", &served.url, "--ibm-api-key", KEY, "--ibm-crn", "crn:v1:qchess:test"])
        .env_remove("QISKIT_IBM_TOKEN")
        .env_remove("QISKIT_IBM_INSTANCE")
        .env_remove("QCHESS_IBM_URL")
        .output()
        .expect("qchess runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn compile_for_an_ibm_device_uses_its_live_calibration() {
    let served = Served::start(&["--api-key", KEY]);
    let moves = ["--position", "startpos", "--moves", "b1^a3c3 g8^f6h6 a3c3^b5"];
    let compiled =
        run(&served, &[&["compile"][..], &moves, &["--target", "ibm:ibm_fez", "--format", "qasm3", "--json"]].concat());
    assert_eq!(compiled.code, Some(0), "{}", compiled.stderr);
    let out: serde_json::Value = serde_json::from_str(&compiled.stdout).expect("JSON");
    assert_eq!(out["target"], "ibm_fez");
    assert_eq!(out["calibration"], "2025-02-26T15:16:25-05:00");
    assert_eq!(out["left_out"]["couplers"].as_array().map(Vec::len), Some(7));
    assert!(out["esp"].as_f64().is_some_and(|p| p > 0.5 && p < 1.0), "{}", out["esp"]);
    // The same as routing onto the published files.
    let published =
        crate::common::qchess_json("compile", &[&moves[..], &["--target", "ibm-fez", "--format", "qasm3"]].concat());
    assert_eq!(out["qasm"], published["qasm"]);

    let unknown = run(&served, &[&["compile"][..], &moves, &["--target", "ibm:ibm_nowhere"]].concat());
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(unknown.stderr.contains("IBM Quantum has no device `ibm_nowhere`"), "{}", unknown.stderr);
}

#[test]
fn compare_names_the_calibration_the_ibm_device_routes_with() {
    let served = Served::start(&["--api-key", KEY]);
    let args =
        ["compare", "--json", "--bootstrap", "100", "--shots", "400", "--backend", "local", "--vs", "ibm:ibm_fez"];
    let compared = run(&served, &[&args[..], &["--moves", "b1^a3c3 g8^f6h6"]].concat());
    assert_eq!(compared.code, Some(0), "{}", compared.stderr);
    let report: serde_json::Value = serde_json::from_str(&compared.stdout).expect("JSON");
    assert_eq!(report["verdict"], "agree", "{report:#}");
    assert_eq!(
        report["vs"],
        "ibm:ibm_fez (156 qubits, calibration of 2025-02-26T15:16:25-05:00, 0 broken qubits and 7 broken couplers left out)"
    );
}
