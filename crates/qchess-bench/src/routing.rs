//! Routing whole-game circuits onto IBM devices and Amazon Braket's devices with their published
//! calibrations: our compiler's estimated success probability (ESP), two-qubit gate count, depth
//! and compile time, and (when a Python interpreter with Qiskit is given) Qiskit's transpiler at
//! optimisation level 3 with the device's whole target, side by side. On Braket's devices the
//! circuits are compiled as Braket runs them: measurements deferred to the end (Braket measures
//! at the end only), and Qiskit gets a target built from the same capabilities JSON (coupling
//! map, native gates, fidelities).
//!
//! The circuits are the example games of `examples/` that have a two-qubit gate (replayed with
//! their recorded outcomes; a game that measured the whole board ends with those measurements),
//! seeded random games of the `random-split-heavy` mix, and seeded computer-against-computer
//! games (`qchess play --white ai:0 --black ai:0 --seed N`, its first plies), each as one
//! whole-game circuit. Each is compiled for every target (`ibm-torino`, `ibm-fez`,
//! `ibm-brisbane`) `repeats` times; the time is the median of lowering, layout, routing,
//! translation and the structure check (the simulation that re-verifies the result runs once
//! afterwards, untimed, like `qchess compile --target`). Each device is made ready for routing
//! once (broken elements out, cost tables; [`qchess_route::Device`]), untimed per circuit as
//! Qiskit's backend target is built before `transpile` is timed; that time is reported apart
//! (`device_ready_ms`).
//!
//! With [`RoutingPlan::qiskit`], `scripts/bench-routing.py` (built into the binary) runs with
//! that interpreter (see [`qiskit`] for the exchange): Qiskit transpiles each logical circuit
//! with the backend's target (`qiskit-ibm-runtime`'s fake backend, built from the same files),
//! and both results are counted, scored and checked for broken elements in Qiskit's terms, from
//! the same calibration. Our figures must equal Qiskit's count of our circuit, else the workload
//! fails.

mod qiskit;
mod summary;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use qchess_circuit::ir::Op;
use qchess_core::text::with_causes;
use qchess_core::{Color, Fen};
use qchess_engine::record::GameRecord;
use qchess_engine::{Game, GameOptions};
use qchess_qasm::export::Export;
use qchess_route::emit::{EmitInfo, QasmVersion, to_qasm};
use qchess_route::program::from_circuit;
use qchess_route::verify::{Equivalence, check_equivalence};
use qchess_route::{CompileOptions, Compiled, Device, Target, compile_on};
use qchess_search::player::{Player, PlayerSpec};
use serde_json::{Value, json};

use crate::error::BenchError;
use crate::random::{MoveMix, play_game};
use crate::report::WorkloadReport;
use crate::stats::Timings;

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

/// The groups of circuits, as the summaries name them.
const GROUPS: [&str; 3] = ["example", "random", "play"];

/// What the routing workload compiles, and against what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutingPlan {
    /// Targets: IBM presets with a published calibration (`ibm-torino`, `ibm-fez`,
    /// `ibm-brisbane`, or the aliases `ibm-heron`, `ibm-eagle`) and Braket devices with a
    /// published snapshot (`braket:iqm-garnet`, ...).
    pub targets: Vec<String>,
    /// Seeded random games besides the examples.
    pub random_games: usize,
    /// Plies per random game at most.
    pub plies: usize,
    /// Seeded computer-against-computer games (seeds 1, 2, ...), as `qchess play --white ai:0
    /// --black ai:0 --seed N` plays them.
    pub play_games: usize,
    /// Plies of each of those games at most.
    pub play_plies: usize,
    /// Compilations of each circuit per target; the median time is reported.
    pub repeats: usize,
    /// A Python interpreter with Qiskit (and, for the backends' own targets,
    /// `qiskit-ibm-runtime`): when given, Qiskit transpiles the same circuits.
    pub qiskit: Option<PathBuf>,
}

impl RoutingPlan {
    /// Torino, Fez and Brisbane, IQM Garnet and Emerald, Rigetti Ankaa-3 and Cepheus-1-108Q;
    /// 8 random games of 30 plies, 8 played games of 40 plies; 5 compilations each; no Qiskit.
    pub fn standard() -> RoutingPlan {
        RoutingPlan {
            targets: [
                "ibm-torino",
                "ibm-fez",
                "ibm-brisbane",
                "braket:iqm-garnet",
                "braket:iqm-emerald",
                "braket:rigetti-ankaa-3",
                "braket:rigetti-cepheus-1-108q",
            ]
            .map(str::to_owned)
            .to_vec(),
            random_games: 8,
            plies: 30,
            play_games: 8,
            play_plies: 40,
            repeats: 5,
            qiskit: None,
        }
    }

    /// Torino, Fez, Brisbane and Garnet; 2 random games of 12 plies, one played game of 12
    /// plies; one compilation each.
    pub fn quick() -> RoutingPlan {
        RoutingPlan {
            targets: ["ibm-torino", "ibm-fez", "ibm-brisbane", "braket:iqm-garnet"].map(str::to_owned).to_vec(),
            random_games: 2,
            plies: 12,
            play_games: 1,
            play_plies: 12,
            repeats: 1,
            ..RoutingPlan::standard()
        }
    }
}

/// The published description a target was read from, handed to Qiskit's side.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Published {
    /// IBM's configuration and properties.
    Ibm(&'static str, &'static str),
    /// Braket's device capabilities.
    Braket(&'static str),
}

impl Published {
    /// The description of a target spec, if it has a published one.
    fn of(spec: &str) -> Option<Published> {
        if let Some((conf, props)) = qchess_route::target::presets::published(spec) {
            return Some(Published::Ibm(conf, props));
        }
        let name = spec.strip_prefix("braket:")?;
        qchess_route::target::braket::device(name)?.snapshot.map(Published::Braket)
    }
}

/// Whether a circuit of `qubits` qubits fits the working part of `device` (IQM Garnet's 20
/// qubits hold the example games, not the longer random and played ones).
fn fits(device: &Device, qubits: usize) -> bool {
    device.check_room(qubits as u32).is_ok()
}

/// Compiles `circuit` for `device`: as Braket runs it (measurements at the end) when `braket`.
fn compile_export(export: &Export, device: &Device, braket: bool) -> Result<Compiled, qchess_route::RouteError> {
    let mut program = from_circuit(&export.circuit, 0, &export.sidecar.measure)?;
    let measurements = if braket { program.take_measurements() } else { Vec::new() };
    let options = CompileOptions { seed: 0, verify: false, ..CompileOptions::default() };
    let mut compiled = compile_on(&program, device, &options)?;
    if braket {
        compiled.measure_at_end(&measurements, device.target())?;
    }
    Ok(compiled)
}

/// One whole-game circuit.
struct GameCircuit {
    name: String,
    /// `example`, `random` or `play`.
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
    esp: f64,
    /// Operations on a broken qubit or coupler (by the target's calibration).
    broken: usize,
    millis: f64,
    /// Equivalence was checked by simulation (up to 20 qubits), not only the structure.
    verified: bool,
    qasm: String,
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

/// The first `plies` plies of `qchess play --white ai:0 --black ai:0 --seed SEED`, with
/// `observe` called after each ply.
fn played_game(
    seed: u64,
    plies: usize,
    mut observe: impl FnMut(&Game, usize) -> Result<(), BenchError>,
) -> Result<Game, BenchError> {
    let what = |e: &dyn std::fmt::Display| failed(format!("played game {seed}: {e}"));
    let mut game = Game::new(&Fen::start(), GameOptions::with_seed(seed)).map_err(|e| what(&with_causes(&e)))?;
    let mut players = [
        Player::new(&PlayerSpec::Random, seed).map_err(|e| what(&e))?,
        Player::new(&PlayerSpec::Random, seed).map_err(|e| what(&e))?,
    ];
    for ply in 1..=plies {
        if game.is_over() {
            break;
        }
        let side = usize::from(game.turn() == Color::Black);
        players[side].play(&mut game, Duration::from_millis(100)).map_err(|e| what(&with_causes(&e)))?;
        observe(&game, ply)?;
    }
    Ok(game)
}

/// The example games with a two-qubit gate, then the random games, then the played games.
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
    for seed in 1..=plan.play_games as u64 {
        let name = format!("play-{seed}");
        let export = export_of(&played_game(seed, plan.play_plies, |_, _| Ok(()))?, &name)?;
        if has_multi_qubit_gate(&export) {
            circuits.push(GameCircuit { name, group: "play", export });
        }
    }
    Ok(circuits)
}

/// Compiles `circuit` for `device` `repeats` times; the median time, then one verification.
fn route(circuit: &GameCircuit, device: &Device, braket: bool, repeats: usize) -> Result<Routed, BenchError> {
    let target = device.target();
    let what = |e: &dyn std::fmt::Display| failed(format!("{} on {}: {e}", circuit.name, target.name));
    let export = &circuit.export;
    let mut times = Vec::with_capacity(repeats.max(1));
    let mut compiled: Option<Compiled> = None;
    for _ in 0..repeats.max(1) {
        let started = Instant::now();
        let result = compile_export(export, device, braket).map_err(|e| what(&e))?;
        times.push(started.elapsed());
        compiled = Some(result);
    }
    let compiled = compiled.ok_or_else(|| what(&"nothing was compiled"))?;
    let program = from_circuit(&export.circuit, 0, &export.sidecar.measure).map_err(|e| what(&e))?;
    let equivalence = check_equivalence(&program, &compiled.ops, &compiled.initial_layout, &compiled.final_layout, 0)
        .map_err(|e| what(&format!("the routed circuit failed verification: {e}")))?;
    let info = EmitInfo {
        qubit_names: export.circuit.qubits.iter().map(|q| q.name().into_owned()).collect(),
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
        esp: compiled.esp.ok_or_else(|| what(&"the target has no calibration"))?,
        broken: target.broken_uses(&compiled.ops),
        millis: summary::median_duration(&times).as_secs_f64() * 1e3,
        verified: equivalence == Equivalence::Equivalent,
        qasm: to_qasm(&compiled, target, &info, QasmVersion::V3),
    })
}

/// How the estimated success probability falls with the length of a game: the played games
/// cut after every tenth ply, each compiled for `device`; per length, the median ESP, two-qubit
/// gate count and qubit count over the games.
fn esp_by_length(plan: &RoutingPlan, device: &Device, braket: bool) -> Result<Value, BenchError> {
    /// The figures of the games cut at one length.
    struct Cut {
        plies: usize,
        esp: Vec<f64>,
        two_qubit_gates: Vec<f64>,
        qubits: Vec<f64>,
    }
    let mut cuts: Vec<Cut> = (1..=plan.play_plies / 10)
        .map(|k| Cut { plies: 10 * k, esp: Vec::new(), two_qubit_gates: Vec::new(), qubits: Vec::new() })
        .collect();
    for seed in 1..=plan.play_games as u64 {
        let name = format!("play-{seed}");
        played_game(seed, plan.play_plies, |game, ply| {
            let Some(cut) = cuts.iter_mut().find(|c| c.plies == ply) else { return Ok(()) };
            let export = export_of(game, &name)?;
            if !fits(device, export.circuit.num_qubits()) {
                return Ok(());
            }
            let what = |e: &dyn std::fmt::Display| failed(format!("{name} after {ply} plies: {e}"));
            let compiled = compile_export(&export, device, braket).map_err(|e| what(&e))?;
            cut.esp.push(compiled.esp.unwrap_or(f64::NAN));
            cut.two_qubit_gates.push(compiled.two_qubit_count() as f64);
            cut.qubits.push(export.circuit.num_qubits() as f64);
            Ok(())
        })?;
    }
    let rows: Vec<Value> = cuts
        .into_iter()
        .filter(|cut| !cut.esp.is_empty())
        .map(|cut| {
            json!({ "plies": cut.plies, "games": cut.esp.len(), "median_esp": summary::median(cut.esp),
                    "median_two_qubit_gates": summary::median(cut.two_qubit_gates),
                    "median_qubits": summary::median(cut.qubits) })
        })
        .collect();
    Ok(Value::Array(rows))
}

/// Runs the routing workload.
pub(crate) fn run(plan: &RoutingPlan) -> Result<WorkloadReport, BenchError> {
    if let Some(python) = &plan.qiskit {
        qiskit::check_python(python)?;
    }
    let mut targets = Vec::with_capacity(plan.targets.len());
    let mut devices = Vec::with_capacity(plan.targets.len());
    let mut preparing = serde_json::Map::new();
    for spec in &plan.targets {
        let files = Published::of(spec).ok_or_else(|| {
            failed(format!("target {spec}: not an IBM preset or a Braket device with a published calibration"))
        })?;
        let target = Target::resolve(spec).map_err(|e| failed(format!("target {spec}: {e}")))?;
        // Made ready once per device, as Qiskit is handed a backend whose target is built.
        let started = Instant::now();
        let device = Device::new(target.clone()).map_err(|e| failed(format!("target {spec}: {e}")))?;
        preparing.insert(spec.clone(), json!(started.elapsed().as_secs_f64() * 1e3));
        devices.push(device);
        targets.push((spec.clone(), target, files));
    }
    let circuits = game_circuits(plan)?;
    let mut timings = Timings::with_capacity(circuits.len() * targets.len());
    let mut routed = Vec::with_capacity(circuits.len() * targets.len());
    let mut too_wide = serde_json::Map::new();
    for ((spec, _, files), device) in targets.iter().zip(&devices) {
        let fits = |circuit: &&GameCircuit| fits(device, circuit.export.circuit.num_qubits());
        too_wide.insert(spec.clone(), json!(circuits.len() - circuits.iter().filter(fits).count()));
        for circuit in circuits.iter().filter(fits) {
            let mut result = route(circuit, device, matches!(files, Published::Braket(_)), plan.repeats)?;
            result.target.clone_from(spec);
            timings.push(Duration::from_secs_f64(result.millis / 1e3));
            routed.push(result);
        }
    }
    let (qiskit_version, theirs) = match &plan.qiskit {
        Some(python) => {
            let (version, theirs) = qiskit::run(python, &circuits, &targets, &routed)?;
            (Some(version), theirs.into_iter().map(Some).collect())
        }
        None => (None, vec![None; routed.len()]),
    };
    let rows: Vec<(&Routed, Option<qiskit::Theirs>)> = routed.iter().zip(theirs).collect();

    let mut report = WorkloadReport::named("routing").with_summary(timings.summary());
    let mut details = serde_json::Map::new();
    details.insert("qiskit".into(), json!(qiskit_version.unwrap_or_else(|| "not run (--qiskit PYTHON)".to_owned())));
    let mut medians = serde_json::Map::new();
    for (spec, _, _) in &targets {
        let mine: Vec<_> = rows.iter().filter(|(r, _)| &r.target == spec).cloned().collect();
        let mut per_group = serde_json::Map::new();
        for group in GROUPS.into_iter().chain(["all"]) {
            let chosen: Vec<_> = mine.iter().filter(|(r, _)| group == "all" || r.group == group).cloned().collect();
            let (figures, line) = summary::summarise(&chosen);
            details.insert(format!("{spec}, {group} games"), json!(line));
            per_group.insert(group.to_owned(), figures);
        }
        medians.insert(spec.clone(), Value::Object(per_group));
    }
    // Equivalence is simulated up to 20 qubits; every circuit's structure is checked.
    details.insert("simulated_equivalent".into(), json!(routed.iter().filter(|r| r.verified).count()));
    details.insert("broken_uses".into(), json!(routed.iter().map(|r| r.broken).sum::<usize>()));
    details.insert("medians".into(), Value::Object(medians));
    details.insert("device_ready_ms".into(), Value::Object(preparing));
    details.insert("circuits_wider_than_the_device".into(), Value::Object(too_wide));
    let mut by_length = serde_json::Map::new();
    for ((spec, _, files), device) in targets.iter().zip(&devices) {
        by_length.insert(spec.clone(), esp_by_length(plan, device, matches!(files, Published::Braket(_)))?);
    }
    details.insert("esp_by_plies".into(), Value::Object(by_length));
    let circuits: Vec<Value> = rows
        .iter()
        .map(|(r, t)| {
            json!({
                "target": r.target, "game": r.name, "group": r.group, "qubits": r.qubits,
                "verified": if r.verified { "equivalent" } else { "structure" },
                "ours": { "two_qubit_gates": r.two_qubit_gates, "depth": r.depth, "ms": r.millis, "esp": r.esp, "broken": r.broken },
                "qiskit": t.map(|t| json!({ "two_qubit_gates": t.two_qubit_gates, "depth": t.depth, "ms": t.millis, "esp": t.esp, "broken": t.broken })),
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
    fn quick_run_routes_every_circuit_onto_every_device_without_a_broken_element() {
        let report = run(&RoutingPlan::quick()).expect("runs");
        let details = &report.details;
        let circuits = details["circuits"].as_array().expect("circuits");
        // Eight examples have two-qubit gates; two random games and one played game; four targets.
        let examples = circuits.iter().filter(|c| c["group"] == "example").count();
        assert_eq!(examples, 4 * 8, "{details:#}");
        assert_eq!(circuits.len(), 4 * 11, "{details:#}");
        for circuit in circuits {
            let small = circuit["qubits"].as_u64().is_some_and(|q| q <= 20);
            assert!(
                !small || circuit["verified"] == "equivalent",
                "circuits of at most 20 qubits are simulated: {circuit}"
            );
            assert!(circuit["ours"]["two_qubit_gates"].as_u64().is_some_and(|n| n >= 1), "{circuit}");
            assert_eq!(circuit["ours"]["broken"], 0, "{circuit}");
            assert!(circuit["ours"]["esp"].as_f64().is_some_and(|p| p > 0.0 && p < 1.0), "{circuit}");
            assert!(circuit["qiskit"].is_null());
        }
        assert_eq!(details["broken_uses"], 0);
        assert_eq!(report.moves, Some(44));
        let by_length = &details["esp_by_plies"]["ibm-torino"][0];
        assert_eq!((by_length["plies"].as_u64(), by_length["games"].as_u64()), (Some(10), Some(1)), "{details:#}");
        assert!(by_length["median_esp"].as_f64().is_some_and(|p| p > 0.0 && p < 1.0), "{details:#}");
        assert_eq!(details["medians"]["ibm-torino"]["all"]["circuits"], 11);
        assert!(
            details["ibm-brisbane, all games"].as_str().is_some_and(|l| l.starts_with("11 circuits")),
            "{details:#}"
        );
    }
}
