//! The Qiskit side of the routing workload: `scripts/bench-routing.py --transpile`, run with the
//! interpreter of [`super::RoutingPlan::qiskit`].
//!
//! It reads JSON on stdin: `{"targets": {SPEC: {"backend", "configuration", "properties"}},
//! "circuits": [{"name", "qasm2", "routed": {SPEC: QASM3}}], "seed"}`, where the configuration
//! and properties are the published files our target was read from. For each target it takes
//! `qiskit-ibm-runtime`'s fake backend of that device (built from the same files; without that
//! package, a Qiskit `Target` built from the files given), transpiles each logical circuit with
//! `transpile(circuit, backend=..., optimization_level=3, seed_transpiler=seed)` (timed once),
//! and counts both results the same way: two-qubit gates, `depth()`, the estimated success
//! probability by the properties given (the product of `1 - error` over every gate and
//! measurement, an element with an error of at least 0.5 or marked not operational counting as
//! error 1) and the operations on such broken elements. Our figures must be what it counts of
//! our circuit; the workload fails otherwise.

use std::io::Write;
use std::process::{Command, Stdio};

use qchess_qasm::export::Format;
use qchess_route::Target;
use serde_json::{Value, json};

use super::{GameCircuit, Published, Routed, failed};
use crate::error::BenchError;

/// The Qiskit side's script.
const QISKIT_SCRIPT: &str = include_str!("../../../../scripts/bench-routing.py");

/// Qiskit's figures for one circuit on one target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Theirs {
    pub two_qubit_gates: f64,
    pub depth: f64,
    pub millis: f64,
    pub esp: f64,
    pub broken: f64,
}

/// Checks, before anything is compiled, that `python` runs and has what the Qiskit side imports.
pub(super) fn check_python(python: &std::path::Path) -> Result<(), BenchError> {
    let output = Command::new(python)
        .args(["-c", "import qiskit, qiskit.qasm2, qiskit.qasm3, qiskit_qasm3_import"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| failed(format!("--qiskit: cannot start {}: {e}", python.display())))?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("no message");
    Err(failed(format!("--qiskit: {} cannot import qiskit and qiskit_qasm3_import: {last}", python.display())))
}

/// Runs the Qiskit side with `python` on the logical circuits and our routed ones; returns its
/// version line and its figures per (target, circuit) in the order of `routed`.
pub(super) fn run(
    python: &std::path::Path,
    circuits: &[GameCircuit],
    targets: &[(String, Target, Published)],
    routed: &[Routed],
) -> Result<(String, Vec<Theirs>), BenchError> {
    let mut logical = Vec::new();
    for circuit in circuits {
        let text = circuit.export.render(Format::Qasm2).map_err(|e| failed(format!("{}: {e}", circuit.name)))?.text();
        let ours: serde_json::Map<String, Value> =
            routed.iter().filter(|r| r.name == circuit.name).map(|r| (r.target.clone(), json!(r.qasm))).collect();
        logical.push(json!({ "name": circuit.name, "qasm2": text, "routed": ours }));
    }
    let mut devices = serde_json::Map::new();
    for (spec, target, files) in targets {
        let parse = |text: &str| serde_json::from_str::<Value>(text).map_err(|e| failed(format!("{spec}: {e}")));
        let description = match files {
            Published::Ibm(conf, props) => {
                json!({ "backend": target.name, "configuration": parse(conf)?, "properties": parse(props)? })
            }
            Published::Braket(capabilities) => json!({ "backend": target.name, "capabilities": parse(capabilities)? }),
        };
        devices.insert(spec.clone(), description);
    }
    let request = json!({ "targets": devices, "circuits": logical, "seed": 0 });

    let mut child = Command::new(python)
        .args(["-c", QISKIT_SCRIPT, "--transpile"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| failed(format!("cannot start {}: {e}", python.display())))?;
    let mut stdin = child.stdin.take().ok_or_else(|| failed("no stdin for the Qiskit side"))?;
    let body = request.to_string();
    // Written from a thread so that a child that answers early cannot block on a full pipe.
    let writer = std::thread::spawn(move || stdin.write_all(body.as_bytes()));
    let output = child.wait_with_output().map_err(|e| failed(format!("the Qiskit side: {e}")))?;
    writer
        .join()
        .map_err(|_| failed("writing to the Qiskit side panicked"))?
        .map_err(|e| failed(format!("writing to the Qiskit side: {e}")))?;
    if !output.status.success() {
        return Err(failed(format!("the Qiskit side ({}) exited with {}", python.display(), output.status)));
    }
    let answer: Value =
        serde_json::from_slice(&output.stdout).map_err(|e| failed(format!("the Qiskit side answered no JSON: {e}")))?;
    let version = format!(
        "{} (backends: {})",
        answer["qiskit"].as_str().unwrap_or("unknown"),
        answer["backends"].as_str().unwrap_or("unknown")
    );
    let rows = answer["rows"].as_array().ok_or_else(|| failed("the Qiskit side answered no rows"))?;
    let mut theirs = Vec::with_capacity(routed.len());
    for ours in routed {
        let row = rows
            .iter()
            .find(|row| row["target"] == ours.target.as_str() && row["name"] == ours.name.as_str())
            .ok_or_else(|| failed(format!("Qiskit gave no figures for {} on {}", ours.name, ours.target)))?;
        let number = |key: &str| {
            row.pointer(key)
                .and_then(Value::as_f64)
                .ok_or_else(|| failed(format!("Qiskit's row for {} has no {key}", ours.name)))
        };
        // Both circuits are counted the same way: our figures must be Qiskit's count of ours.
        let counted = (number("/ours/two_qubit_gates")?, number("/ours/depth")?, number("/ours/broken")?);
        if counted != (ours.two_qubit_gates as f64, ours.depth as f64, ours.broken as f64) {
            return Err(failed(format!(
                "{} on {}: we count {} two-qubit gates, depth {} and {} operations on broken elements, Qiskit \
                 counts {counted:?} of the same circuit",
                ours.name, ours.target, ours.two_qubit_gates, ours.depth, ours.broken
            )));
        }
        let esp = number("/ours/esp")?;
        if (esp - ours.esp).abs() > 1e-9 * ours.esp.max(1e-300) && (esp - ours.esp).abs() > 1e-300 {
            return Err(failed(format!(
                "{} on {}: our estimated success probability is {}, the Qiskit side computes {esp} from the same \
                 calibration",
                ours.name, ours.target, ours.esp
            )));
        }
        theirs.push(Theirs {
            two_qubit_gates: number("/qiskit/two_qubit_gates")?,
            depth: number("/qiskit/depth")?,
            millis: number("/qiskit/ms")?,
            esp: number("/qiskit/esp")?,
            broken: number("/qiskit/broken")?,
        });
    }
    Ok((version, theirs))
}
