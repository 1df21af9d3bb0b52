//! Routing whole-game circuits onto IBM devices: our compiler's two-qubit gate count, depth and
//! compile time, and (when a Python interpreter with Qiskit is given) Qiskit's transpiler at
//! optimisation level 3 on the same circuits, side by side.
//!
//! The circuits are the example games of `examples/` that have a two-qubit gate (replayed with
//! their recorded outcomes; a game that measured the whole board ends with those measurements)
//! and seeded random games of the `random-split-heavy` mix, each as one whole-game circuit. Each is
//! compiled for every target (`ibm-heron`, `ibm-eagle`) `repeats` times; the time is the median
//! of lowering, layout, routing, translation and the structure check (the simulation that
//! re-verifies the result runs once afterwards, untimed, like `qchess compile --target`).
//!
//! With [`RoutingPlan::qiskit`], `scripts/bench-routing.py` (built into the binary) runs with
//! that interpreter: it reads the logical circuits (our OpenQASM 2 export), the targets' coupling
//! maps and basis gates, and our routed circuits as JSON on stdin, transpiles each logical
//! circuit with `transpile(optimization_level=3, seed_transpiler=0)` (timed once), counts both
//! results in Qiskit's terms (two-qubit gates and `depth()`), and answers JSON on stdout. Our
//! figures must equal Qiskit's count of our circuit, else the workload fails.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use qchess_circuit::ir::Op;
use qchess_core::text::with_causes;
use qchess_engine::Game;
use qchess_engine::record::GameRecord;
use qchess_qasm::export::{Export, Format};
use qchess_route::emit::{EmitInfo, QasmVersion, to_qasm};
use qchess_route::program::from_circuit;
use qchess_route::verify::{Equivalence, check_equivalence};
use qchess_route::{CompileOptions, Compiled, Target, compile};
use serde_json::{Value, json};

use crate::error::BenchError;
use crate::random::{MoveMix, play_game};
use crate::report::WorkloadReport;
use crate::stats::Timings;

/// The Qiskit side, run with the interpreter of [`RoutingPlan::qiskit`].
const QISKIT_SCRIPT: &str = include_str!("../../../scripts/bench-routing.py");

/// The example games, as `examples/` holds them.
pub(crate) const EXAMPLES: [(&str, &str); 10] = [
    ("capture-superposed-m0", include_str!("../../../examples/capture-superposed-m0.pgn")),
    ("capture-superposed-m1", include_str!("../../../examples/capture-superposed-m1.pgn")),
    ("castling", include_str!("../../../examples/castling.pgn")),
    ("en-passant", include_str!("../../../examples/en-passant.pgn")),
    ("excluded-pawn-step", include_str!("../../../examples/excluded-pawn-step.pgn")),
    ("fifty-move-rule", include_str!("../../../examples/fifty-move-rule.pgn")),
    ("king-capture", include_str!("../../../examples/king-capture.pgn")),
    ("official-kings", include_str!("../../../examples/official-kings.pgn")),
    ("official-split-merge", include_str!("../../../examples/official-split-merge.pgn")),
    ("promotion", include_str!("../../../examples/promotion.pgn")),
];

/// The random games' move mix: half the plies split, so that the circuits are wide.
const RANDOM_MIX: MoveMix = MoveMix::SPLIT_HEAVY;

/// What the routing workload compiles, and against what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutingPlan {
    /// Targets, as `qchess compile --target` names them.
    pub targets: Vec<String>,
    /// Seeded random games besides the examples.
    pub random_games: usize,
    /// Plies per random game at most.
    pub plies: usize,
    /// Compilations of each circuit per target; the median time is reported.
    pub repeats: usize,
    /// A Python interpreter with Qiskit: when given, Qiskit transpiles the same circuits.
    pub qiskit: Option<PathBuf>,
}

impl RoutingPlan {
    /// Heron and Eagle, 8 random games of 30 plies, 5 compilations each, no Qiskit.
    pub fn standard() -> RoutingPlan {
        RoutingPlan {
            targets: vec!["ibm-heron".to_owned(), "ibm-eagle".to_owned()],
            random_games: 8,
            plies: 30,
            repeats: 5,
            qiskit: None,
        }
    }

    /// Heron and Eagle, 2 random games of 12 plies, one compilation each.
    pub fn quick() -> RoutingPlan {
        RoutingPlan { random_games: 2, plies: 12, repeats: 1, ..RoutingPlan::standard() }
    }
}

/// One whole-game circuit.
struct GameCircuit {
    name: String,
    /// `example` or `random`.
    group: &'static str,
    export: Export,
}

/// Our figures for one circuit on one target.
struct Routed {
    target: String,
    name: String,
    group: &'static str,
    qubits: usize,
    two_qubit_gates: usize,
    depth: usize,
    millis: f64,
    /// Equivalence was checked by simulation (up to 20 qubits), not only the structure.
    verified: bool,
    qasm: String,
}

/// Qiskit's figures for one circuit on one target.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Theirs {
    two_qubit_gates: f64,
    depth: f64,
    millis: f64,
}

fn failed(what: impl Into<String>) -> BenchError {
    BenchError::Routing(what.into())
}

/// The game's whole circuit, with the full-board measurement it ended with, if any.
fn export_of(game: &Game, name: &str) -> Result<Export, BenchError> {
    let board = game.local_board().ok_or_else(|| failed(format!("{name}: the game is not on the local board")))?;
    let mut export = Export::from_register(board.register()).map_err(|e| failed(format!("{name}: {e}")))?;
    if let Some(measured) = game.measured_board() {
        export.measure_every_square(measured).map_err(|e| failed(format!("{name}: {e}")))?;
    }
    Ok(export)
}

/// Whether a circuit has a gate on two or more qubits (else there is nothing to route).
fn has_multi_qubit_gate(export: &Export) -> bool {
    export.circuit.ops.iter().any(|op| matches!(op, Op::Gate { gate, .. } if gate.qubits().count() >= 2))
}

/// The example games with a two-qubit gate, then the random games.
fn game_circuits(plan: &RoutingPlan) -> Result<Vec<GameCircuit>, BenchError> {
    let mut circuits = Vec::new();
    for (name, text) in EXAMPLES {
        let record: GameRecord = text.parse().map_err(|e| failed(format!("example {name}: {}", with_causes(&e))))?;
        let game = record.replay().map_err(|e| failed(format!("example {name}: {}", with_causes(&e))))?;
        let export = export_of(&game, name)?;
        if has_multi_qubit_gate(&export) {
            circuits.push(GameCircuit { name: name.to_owned(), group: "example", export });
        }
    }
    for index in 0..plan.random_games {
        let mut last: Option<Export> = None;
        let name = format!("random-{index}");
        let mut discard = Timings::default();
        play_game(RANDOM_MIX, index, plan.plies, &mut discard, |game, _| {
            last = Some(export_of(game, &name)?);
            Ok(())
        })?;
        if let Some(export) = last.filter(has_multi_qubit_gate) {
            circuits.push(GameCircuit { name, group: "random", export });
        }
    }
    Ok(circuits)
}

/// Compiles `circuit` for `target` `repeats` times; the median time, then one verification.
fn route(circuit: &GameCircuit, target: &Target, repeats: usize) -> Result<Routed, BenchError> {
    let what = |e: &dyn std::fmt::Display| failed(format!("{} on {}: {e}", circuit.name, target.name));
    let export = &circuit.export;
    let mut times = Vec::with_capacity(repeats.max(1));
    let mut compiled: Option<Compiled> = None;
    for _ in 0..repeats.max(1) {
        let started = Instant::now();
        let program = from_circuit(&export.circuit, 0, &export.sidecar.measure).map_err(|e| what(&e))?;
        let options = CompileOptions { seed: 0, verify: false, ..CompileOptions::default() };
        let result = compile(&program, target, &options).map_err(|e| what(&e))?;
        times.push(started.elapsed());
        compiled = Some(result);
    }
    let compiled = compiled.ok_or_else(|| what(&"nothing was compiled"))?;
    let program = from_circuit(&export.circuit, 0, &export.sidecar.measure).map_err(|e| what(&e))?;
    let equivalence = check_equivalence(&program, &compiled.ops, &compiled.initial_layout, &compiled.final_layout, 0)
        .map_err(|e| what(&format!("the routed circuit failed verification: {e}")))?;
    let info = EmitInfo {
        qubit_names: export.circuit.qubits.iter().map(|q| q.name.clone()).collect(),
        circuit_clbits: export.circuit.clbits,
    };
    times.sort_unstable();
    Ok(Routed {
        target: target.name.clone(),
        name: circuit.name.clone(),
        group: circuit.group,
        qubits: export.circuit.num_qubits(),
        two_qubit_gates: compiled.two_qubit_count(),
        depth: compiled.depth(),
        millis: median_duration(&times).as_secs_f64() * 1e3,
        verified: equivalence == Equivalence::Equivalent,
        qasm: to_qasm(&compiled, target, &info, QasmVersion::V3),
    })
}

/// The median of sorted durations.
fn median_duration(sorted: &[Duration]) -> Duration {
    match sorted.len() {
        0 => Duration::ZERO,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
    }
}

/// The median of `values` (0 when empty).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => 0.0,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// Runs the Qiskit side with `python` on the logical circuits and our routed ones; returns its
/// figures per (target, circuit) in the order of `routed`.
fn run_qiskit(
    python: &std::path::Path,
    circuits: &[GameCircuit],
    targets: &[(&String, &Target)],
    routed: &[Routed],
) -> Result<(String, Vec<Theirs>), BenchError> {
    let mut logical = Vec::new();
    for circuit in circuits {
        let text = circuit.export.render(Format::Qasm2).map_err(|e| failed(format!("{}: {e}", circuit.name)))?.text();
        let ours: serde_json::Map<String, Value> =
            routed.iter().filter(|r| r.name == circuit.name).map(|r| (r.target.clone(), json!(r.qasm))).collect();
        logical.push(json!({ "name": circuit.name, "qasm2": text, "routed": ours }));
    }
    let devices: serde_json::Map<String, Value> = targets
        .iter()
        .map(|(spec, t)| ((*spec).clone(), json!({ "coupling_map": t.coupling, "basis_gates": t.basis.gate_names() })))
        .collect();
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
    let version = answer["qiskit"].as_str().unwrap_or("unknown").to_owned();
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
        let counted = (number("/ours/two_qubit_gates")?, number("/ours/depth")?);
        if counted != (ours.two_qubit_gates as f64, ours.depth as f64) {
            return Err(failed(format!(
                "{} on {}: we count {} two-qubit gates and depth {}, Qiskit counts {counted:?} of the same circuit",
                ours.name, ours.target, ours.two_qubit_gates, ours.depth
            )));
        }
        theirs.push(Theirs {
            two_qubit_gates: number("/qiskit/two_qubit_gates")?,
            depth: number("/qiskit/depth")?,
            millis: number("/qiskit/ms")?,
        });
    }
    Ok((version, theirs))
}

/// Medians of one group of rows, ours and (when run) Qiskit's, as JSON and as a line of text.
fn summarise(rows: &[(&Routed, Option<Theirs>)]) -> (Value, String) {
    let ours = |f: fn(&Routed) -> f64| median(rows.iter().map(|(r, _)| f(r)).collect());
    let (two, depth, ms) = (ours(|r| r.two_qubit_gates as f64), ours(|r| r.depth as f64), ours(|r| r.millis));
    let mut figures = json!({
        "circuits": rows.len(),
        "qubits": [rows.iter().map(|(r, _)| r.qubits).min(), rows.iter().map(|(r, _)| r.qubits).max()],
        "median_two_qubit_gates": two,
        "median_depth": depth,
        "median_compile_ms": ms,
    });
    let theirs: Vec<(&Routed, Theirs)> = rows.iter().filter_map(|(r, t)| t.map(|t| (*r, t))).collect();
    if theirs.len() != rows.len() || rows.is_empty() {
        let line = format!("{} circuits: {two} two-qubit gates, depth {depth}, {ms:.2} ms (medians)", rows.len());
        return (figures, line);
    }
    let qiskit = |f: fn(&Theirs) -> f64| median(theirs.iter().map(|(_, t)| f(t)).collect());
    let ratio = |f: fn(&Routed) -> f64, g: fn(&Theirs) -> f64| {
        median(theirs.iter().map(|(r, t)| f(r) / g(t).max(f64::MIN_POSITIVE)).collect())
    };
    let (their_two, their_depth, their_ms) = (qiskit(|t| t.two_qubit_gates), qiskit(|t| t.depth), qiskit(|t| t.millis));
    let two_ratio = ratio(|r| r.two_qubit_gates as f64, |t| t.two_qubit_gates);
    let depth_ratio = ratio(|r| r.depth as f64, |t| t.depth);
    let speedups: Vec<f64> = theirs.iter().map(|(r, t)| t.millis / r.millis.max(1e-6)).collect();
    let min_speedup = speedups.iter().copied().fold(f64::INFINITY, f64::min);
    let speedup = median(speedups);
    figures["qiskit"] = json!({
        "median_two_qubit_gates": their_two,
        "median_depth": their_depth,
        "median_compile_ms": their_ms,
        "median_ratio_two_qubit_gates": two_ratio,
        "median_ratio_depth": depth_ratio,
        "median_speedup": speedup,
        "min_speedup": min_speedup,
    });
    let line = format!(
        "{} circuits, ours vs Qiskit O3 (medians): two-qubit gates {two} vs {their_two} (ratio {two_ratio:.3}), \
         depth {depth} vs {their_depth} (ratio {depth_ratio:.3}), {ms:.2} ms vs {their_ms:.0} ms \
         (speed-up {speedup:.0}x, least {min_speedup:.0}x)",
        rows.len()
    );
    (figures, line)
}

/// Checks, before anything is compiled, that `python` runs and has what the Qiskit side imports.
fn check_python(python: &std::path::Path) -> Result<(), BenchError> {
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

/// Runs the routing workload.
pub(crate) fn run(plan: &RoutingPlan) -> Result<WorkloadReport, BenchError> {
    if let Some(python) = &plan.qiskit {
        check_python(python)?;
    }
    let targets =
        plan.targets.iter().map(|spec| Target::resolve(spec).map_err(|e| failed(format!("target {spec}: {e}"))));
    let targets: Vec<Target> = targets.collect::<Result<_, _>>()?;
    let circuits = game_circuits(plan)?;
    let mut timings = Timings::with_capacity(circuits.len() * targets.len());
    let mut routed = Vec::with_capacity(circuits.len() * targets.len());
    for (spec, target) in plan.targets.iter().zip(&targets) {
        for circuit in &circuits {
            let mut result = route(circuit, target, plan.repeats)?;
            result.target.clone_from(spec);
            timings.push(Duration::from_secs_f64(result.millis / 1e3));
            routed.push(result);
        }
    }
    let named: Vec<(&String, &Target)> = plan.targets.iter().zip(&targets).collect();
    let (qiskit_version, theirs) = match &plan.qiskit {
        Some(python) => {
            let (version, theirs) = run_qiskit(python, &circuits, &named, &routed)?;
            (Some(version), theirs.into_iter().map(Some).collect())
        }
        None => (None, vec![None; routed.len()]),
    };
    let rows: Vec<(&Routed, Option<Theirs>)> = routed.iter().zip(theirs).collect();

    let mut report = WorkloadReport::named("routing").with_summary(timings.summary());
    let mut details = serde_json::Map::new();
    details.insert("qiskit".into(), json!(qiskit_version.unwrap_or_else(|| "not run (--qiskit PYTHON)".to_owned())));
    let mut medians = serde_json::Map::new();
    for spec in &plan.targets {
        let mine: Vec<(&Routed, Option<Theirs>)> = rows.iter().filter(|(r, _)| &r.target == spec).copied().collect();
        let mut per_group = serde_json::Map::new();
        for group in ["example", "random", "all"] {
            let chosen: Vec<(&Routed, Option<Theirs>)> =
                mine.iter().filter(|(r, _)| group == "all" || r.group == group).copied().collect();
            let (figures, line) = summarise(&chosen);
            details.insert(format!("{spec}, {group} games"), json!(line));
            per_group.insert(group.to_owned(), figures);
        }
        medians.insert(spec.clone(), Value::Object(per_group));
    }
    // Equivalence is simulated up to 20 qubits; every circuit's structure is checked.
    details.insert("simulated_equivalent".into(), json!(routed.iter().filter(|r| r.verified).count()));
    details.insert("medians".into(), Value::Object(medians));
    let circuits: Vec<Value> = rows
        .iter()
        .map(|(r, t)| {
            json!({
                "target": r.target, "game": r.name, "qubits": r.qubits,
                "verified": if r.verified { "equivalent" } else { "structure" },
                "ours": { "two_qubit_gates": r.two_qubit_gates, "depth": r.depth, "ms": r.millis },
                "qiskit": t.map(|t| json!({ "two_qubit_gates": t.two_qubit_gates, "depth": t.depth, "ms": t.millis })),
            })
        })
        .collect();
    details.insert("circuits".into(), Value::Array(circuits));
    report.details = Value::Object(details);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_examples_are_the_examples_directory() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("examples/")
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter_map(|name| name.strip_suffix(".pgn").map(str::to_owned))
            .collect();
        on_disk.sort();
        let built_in: Vec<String> = EXAMPLES.iter().map(|(name, _)| (*name).to_owned()).collect();
        assert_eq!(built_in, on_disk, "add new example games to EXAMPLES");
    }

    #[test]
    fn quick_run_routes_every_circuit_onto_both_devices() {
        let report = run(&RoutingPlan::quick()).expect("runs");
        let details = &report.details;
        let circuits = details["circuits"].as_array().expect("circuits");
        // Eight examples have two-qubit gates; two random games on two targets.
        let examples = circuits.iter().filter(|c| c["game"].as_str().is_some_and(|g| !g.starts_with("random"))).count();
        assert_eq!(examples, 2 * 8, "{details:#}");
        assert_eq!(circuits.len(), 2 * 10, "{details:#}");
        for circuit in circuits {
            let small = circuit["qubits"].as_u64().is_some_and(|q| q <= 20);
            assert!(
                !small || circuit["verified"] == "equivalent",
                "circuits of at most 20 qubits are simulated: {circuit}"
            );
            assert!(circuit["ours"]["two_qubit_gates"].as_u64().is_some_and(|n| n >= 1), "{circuit}");
            assert!(circuit["qiskit"].is_null());
        }
        assert_eq!(report.moves, Some(20));
        let heron = &details["medians"]["ibm-heron"]["all"];
        assert_eq!(heron["circuits"], 10);
        assert!(details["ibm-eagle, all games"].as_str().is_some_and(|l| l.starts_with("10 circuits")), "{details:#}");
    }
}
