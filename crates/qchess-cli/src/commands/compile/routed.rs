//! `qchess compile --target`: the board's circuit routed onto a device as an ISA circuit (see
//! `qchess_route`), with its layout, two-qubit gate count and depth.
//!
//! The JSON figures say how to read results: `squares` maps each square to the physical qubit
//! holding it at the end, `measure` lists the physical qubit read into each bit of `meas`, and
//! `postselect` gives, for each deferred measurement, its classical bit, the physical qubit
//! holding the measured qubit at the end, and the recorded value.

use std::time::Instant;

use anyhow::{Context as _, Result, anyhow};
use qchess_qasm::export::{Export, Format};
use qchess_route::emit::{EmitInfo, QasmVersion, to_qasm};
use qchess_route::program::from_circuit;
use qchess_route::verify::Equivalence;
use qchess_route::{CompileOptions, Compiled, IsaOp, RouteError, Target, compile};
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
    let target = Target::resolve(spec).map_err(|e| bad_input(format!("--target: {e}")))?;
    let mut results = Vec::new();
    for (last_move, export) in exports {
        let started = Instant::now();
        let program = from_circuit(&export.circuit, 0, &export.sidecar.measure).context("lowering the circuit")?;
        let compiled = compile(&program, &target, &CompileOptions { seed: args.seed, ..CompileOptions::default() })
            .map_err(|e| match e {
                RouteError::TooSmall { .. } => bad_input(format!("--target: {e}")),
                other => anyhow!(other).context(format!("compiling for {}", target.name)),
            })?;
        let millis = started.elapsed().as_secs_f64() * 1e3;
        let info = EmitInfo {
            qubit_names: export.circuit.qubits.iter().map(|q| q.name.clone()).collect(),
            circuit_clbits: export.circuit.clbits,
        };
        let qasm = to_qasm(&compiled, &target, &info, version);
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
