//! `qchess compile --target`: the board's circuit routed onto a device as an ISA circuit (see
//! `qchess_route`), with its layout, two-qubit gate count and depth, and on a calibrated device
//! its estimated success probability (ESP), the calibration's date and the broken qubits and
//! couplers left out. `--target ibm:DEVICE` reads the device's configuration and properties
//! from IBM Quantum (the IBM flags as for `--backend ibm:DEVICE`, cached the same way).
//!
//! With `--per-move`, one router follows the game move by move: each move's circuit is the
//! previous one with only the new operations routed (and its own final measurements), and the
//! time is that of routing the move. The JSON figures say how to read results: `squares` maps each square to the physical qubit
//! holding it at the end, `measure` lists the physical qubit read into each bit of `meas`, and
//! `postselect` gives, for each deferred measurement, its classical bit, the physical qubit
//! holding the measured qubit at the end, and the recorded value.

use std::time::Instant;

use anyhow::{Context as _, Result, anyhow};
use qchess_circuit::ir::Op;
use qchess_qasm::export::{Export, Format};
use qchess_route::emit::{EmitInfo, QasmVersion, to_braket, to_qasm};
use qchess_route::program::from_circuit;
use qchess_route::verify::{Equivalence, check_equivalence};
use qchess_route::{CompileOptions, Compiled, Device, Incremental, IsaOp, RouteError, Target, compile_on};
use serde_json::{Value, json};

use super::Args;
use crate::exit::bad_input;
use crate::output::print;

/// Routes every export onto the target `spec` and prints or writes the results.
pub fn run(spec: &str, exports: Vec<(Option<(usize, String)>, Export)>, args: &Args, json: bool) -> Result<()> {
    let version = match args.format {
        Format::Qasm3 => QasmVersion::V3,
        Format::Qasm2 => QasmVersion::V2,
        Format::IonqJson => return Err(bad_input("--target writes qasm3 or qasm2, not ionq-json")),
    };
    let braket = spec.strip_prefix("braket:");
    if braket.is_some() && version != QasmVersion::V3 {
        return Err(bad_input("--target braket:DEVICE writes the OpenQASM 3 program Braket runs: add --format qasm3"));
    }
    let published = |name: &str| qchess_route::target::braket::device(name).is_some_and(|d| d.snapshot.is_some());
    let device = match (spec.strip_prefix("ibm:"), braket) {
        (Some(name), _) => crate::backend::ready_device(name, &args.ibm)?,
        (None, Some(name)) if !published(name) => crate::backend::ready_braket_device(name, &args.braket)?,
        _ => {
            let target = Target::resolve(spec).map_err(|e| bad_input(format!("--target: {e}")))?;
            Device::new(target).map_err(|e| bad_input(format!("--target: {e}")))?
        }
    };
    let target = device.target().clone();
    let mut results = Vec::new();
    // Per move, one router follows the game: each move's circuit extends the previous one, and
    // only the new operations are routed.
    let mut incremental: Option<(Incremental, Vec<Op>)> = None;
    for (last_move, export) in exports {
        let started = Instant::now();
        let measure: Vec<u32> = export.sidecar.measure.iter().map(|q| q.0).collect();
        let too_small = |e: RouteError| match e {
            RouteError::TooSmall { .. } | RouteError::NoPartFits { .. } => bad_input(format!("--target: {e}")),
            other => anyhow!(other).context(format!("compiling for {}", target.name)),
        };
        let mut millis = 0.0;
        let mut compiled = if braket.is_some() {
            // Braket measures at the end only: the circuit's measurements (deferred: no gate
            // touches a measured qubit afterwards) are read where their qubits end.
            let mut program =
                from_circuit(&export.circuit, 0, &export.sidecar.measure).context("lowering the circuit")?;
            let measurements = program.take_measurements();
            let options = CompileOptions { seed: args.seed, verify: false, ..CompileOptions::default() };
            let mut compiled = compile_on(&program, &device, &options).map_err(too_small)?;
            compiled.measure_at_end(&measurements, &target).map_err(too_small)?;
            compiled
        } else if args.per_move {
            let (router, done) = match incremental.take() {
                Some((router, done)) if export.circuit.ops.starts_with(&done) => (router, done),
                _ => (Incremental::new(target.clone(), args.seed), Vec::new()),
            };
            let mut router = router;
            let segment = from_circuit(&export.circuit, done.len(), &[]).context("lowering the circuit")?;
            router.extend(&segment).map_err(too_small)?;
            millis = started.elapsed().as_secs_f64() * 1e3;
            let compiled = router.compiled(args.seed, &measure, export.circuit.clbits).map_err(too_small)?;
            incremental = Some((router, export.circuit.ops.clone()));
            compiled
        } else {
            // Timed: lowering, layout, routing, translation and the structure check; the
            // simulation that re-verifies the result runs after the clock stops.
            let program = from_circuit(&export.circuit, 0, &export.sidecar.measure).context("lowering the circuit")?;
            let options = CompileOptions { seed: args.seed, verify: false, ..CompileOptions::default() };
            compile_on(&program, &device, &options).map_err(too_small)?
        };
        if !args.per_move || braket.is_some() {
            millis = started.elapsed().as_secs_f64() * 1e3;
            let program = from_circuit(&export.circuit, 0, &export.sidecar.measure).context("lowering the circuit")?;
            compiled.equivalence =
                check_equivalence(&program, &compiled.ops, &compiled.initial_layout, &compiled.final_layout, args.seed)
                    .map_err(|e| anyhow!("the compiled circuit failed verification: {e}"))?;
        }
        let info = EmitInfo {
            qubit_names: export.circuit.qubits.iter().map(|q| q.name().into_owned()).collect(),
            circuit_clbits: export.circuit.clbits,
        };
        let qasm = match braket {
            Some(_) => to_braket(&compiled, &target, &info, true)
                .map_err(|e| anyhow!(e).context(format!("writing the program for {}", target.name)))?,
            None => to_qasm(&compiled, &target, &info, version),
        };
        let figures = figures(&compiled, &target, &export, &info, millis, args.format);
        results.push((last_move, qasm, figures));
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating the output directory {}", dir.display()))?;
        let mut files = Vec::new();
        for (last_move, qasm, figures) in &results {
            let stem = match last_move {
                Some((ply, mv)) if args.per_move => format!("move-{ply:03}-{}", super::output::file_safe(mv)),
                _ => "game".to_owned(),
            };
            let circuit_path = dir.join(format!("{stem}.{}", args.format.extension()));
            let figures_path = dir.join(format!("{stem}.json"));
            std::fs::write(&circuit_path, qasm).with_context(|| format!("writing {}", circuit_path.display()))?;
            std::fs::write(&figures_path, format!("{figures:#}\n"))
                .with_context(|| format!("writing {}", figures_path.display()))?;
            files.push(
                json!({"circuit": circuit_path.display().to_string(), "figures": figures_path.display().to_string()}),
            );
        }
        let text = if json {
            format!("{}\n", json!({"out": dir.display().to_string(), "files": files}))
        } else {
            files
                .iter()
                .map(|f| {
                    format!(
                        "wrote {} and {}\n",
                        f["circuit"].as_str().unwrap_or(""),
                        f["figures"].as_str().unwrap_or("")
                    )
                })
                .collect()
        };
        return print(&text);
    }
    let text = if json {
        let documents: Vec<Value> = results
            .into_iter()
            .map(|(last_move, qasm, mut figures)| {
                figures["qasm"] = Value::String(qasm);
                if let (Some((ply, mv)), true) = (last_move, args.per_move) {
                    figures["ply"] = json!(ply);
                    figures["move"] = json!(mv);
                }
                figures
            })
            .collect();
        match (args.per_move, documents.as_slice()) {
            (false, [one]) => format!("{one}\n"),
            _ => format!("{}\n", Value::Array(documents)),
        }
    } else {
        let mut text = String::new();
        for (last_move, qasm, _) in &results {
            if let (Some((ply, mv)), true) = (last_move, args.per_move) {
                text.push_str(&format!("// move {ply}: {mv}\n"));
            }
            text.push_str(qasm);
        }
        text
    };
    print(&text)
}

/// The figures of one compiled circuit, as JSON.
fn figures(
    compiled: &Compiled,
    target: &Target,
    export: &Export,
    info: &EmitInfo,
    millis: f64,
    format: Format,
) -> Value {
    let final_of = |qubit: u32| compiled.final_layout.get(qubit as usize).copied();
    let measured_on = |clbit: u32| {
        compiled.ops.iter().find_map(|op| match *op {
            IsaOp::Measure { qubit, clbit: c } if c == clbit => Some(qubit),
            _ => None,
        })
    };
    let layout: Vec<Value> = compiled
        .final_layout
        .iter()
        .enumerate()
        .map(|(l, &end)| {
            json!({"logical": l, "name": info.qubit_names.get(l), "initial": compiled.initial_layout.get(l).copied().flatten(), "final": end})
        })
        .collect();
    let squares: serde_json::Map<String, Value> =
        export.sidecar.squares.iter().map(|(square, qubit)| (square.to_string(), json!(final_of(qubit.0)))).collect();
    let postselect: Vec<Value> = export
        .sidecar
        .postselect
        .iter()
        .map(|p| json!({"qubit": final_of(p.qubit.0), "clbit": p.clbit.0, "value": p.value}))
        .collect();
    let measure: Vec<Value> =
        (0..export.sidecar.measure.len() as u32).map(|j| json!(measured_on(info.circuit_clbits + j))).collect();
    json!({
        "target": target.name,
        "basis": target.basis.name(),
        "physical_qubits": target.num_qubits,
        "format": format.name(),
        "two_qubit_gates": compiled.two_qubit_count(),
        "depth": compiled.depth(),
        "swaps": compiled.swaps,
        "esp": compiled.esp,
        "calibration": target.calibration.date,
        "left_out": {
            "qubits": target.broken_qubits(),
            "couplers": target.broken_couplers(),
        },
        "compile_ms": millis,
        "verified": match compiled.equivalence {
            Equivalence::Equivalent => "equivalent",
            Equivalence::Skipped => "structure",
        },
        "layout": layout,
        "squares": squares,
        "classical": export.sidecar.classical.0,
        "postselect": postselect,
        "measure": measure,
    })
}
