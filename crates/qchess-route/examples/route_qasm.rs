//! Routes exported board circuits onto a target and reports the figures, for
//! `scripts/bench-routing.py`.
//!
//! Usage: `route_qasm TARGET REPEATS FILE.qasm...`; each `FILE.qasm` (OpenQASM 2 from `qchess
//! compile --out`) comes with its sidecar `FILE.json`, whose `measure` qubits are measured at the
//! end. Writes `FILE.routed.qasm3` and prints one JSON line per file: qubits, two-qubit gates,
//! depth, swaps, and the median compile time (lowering included) over REPEATS runs.

use std::path::PathBuf;
use std::time::Instant;

use qchess_qasm::parse::parse_source;
use qchess_qasm::sidecar::Sidecar;
use qchess_route::emit::{EmitInfo, QasmVersion, to_qasm};
use qchess_route::program::from_circuit;
use qchess_route::{CompileOptions, Target, compile};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [spec, repeats, files @ ..] = args.as_slice() else {
        return Err("usage: route_qasm TARGET REPEATS FILE.qasm...".into());
    };
    let target = Target::resolve(spec)?;
    let repeats: usize = repeats.parse()?;
    for file in files {
        let path = PathBuf::from(file);
        let source = std::fs::read_to_string(&path)?;
        let sidecar: Sidecar = std::fs::read_to_string(path.with_extension("json"))?.parse()?;
        let circuit = parse_source(&source, file)?;
        // Verification is a test-time check; the timed compile is the product's.
        let options = CompileOptions { verify: false, ..CompileOptions::default() };
        let mut times = Vec::with_capacity(repeats);
        let mut last = None;
        for _ in 0..repeats.max(1) {
            let started = Instant::now();
            let program = from_circuit(&circuit, 0, &sidecar.measure)?;
            let compiled = compile(&program, &target, &options)?;
            times.push(started.elapsed().as_secs_f64() * 1e3);
            last = Some(compiled);
        }
        let compiled = last.ok_or("no run")?;
        times.sort_by(f64::total_cmp);
        let info = EmitInfo {
            qubit_names: circuit.qubits.iter().map(|q| q.name.clone()).collect(),
            circuit_clbits: circuit.clbits,
        };
        std::fs::write(path.with_extension("routed.qasm3"), to_qasm(&compiled, &target, &info, QasmVersion::V3))?;
        let line = serde_json::json!({
            "file": file,
            "qubits": circuit.num_qubits(),
            "two_qubit_gates": compiled.two_qubit_count(),
            "depth": compiled.depth(),
            "swaps": compiled.swaps,
            "compile_ms": times[times.len() / 2],
        });
        println!("{line}");
    }
    Ok(())
}
