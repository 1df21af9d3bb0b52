//! Reading a task's OpenQASM 3 program as Braket reads it, and running it.
//!
//! * **Braket's gate names.** Braket's programs call its built-in gates without an include
//!   (`h`, `cnot`, `iswap`, `prx`, `gpi`, ...). A program without an `include` gets
//!   `stdgates.inc` and definitions of Braket's other names ([`BRAKET_GATES`]) on its version
//!   line, so every error keeps its line and column.
//! * **Verbatim boxes.** `#pragma braket verbatim` before a `box` says that the box runs as
//!   written. On a QPU every gate of such a program must be one of the device's native gates
//!   (`paradigm.nativeGateSet`), on physical qubits, each two-qubit gate on a pair of the
//!   connectivity graph that is not out of service ([`qchess_route::verify::check_structure`]);
//!   the refusal names the gate or the pair. Other pragmas are refused by name.
//! * **Measurements** come last (Braket measures at the end): a gate after a measurement of its
//!   qubit, a reset or a condition is refused. A program that measures nothing has every qubit
//!   measured.
//! * **Running.** Exactly ([`Noise::Ideal`], and every program that is not verbatim): the exact
//!   distribution over the program's qubits, sampled. With the device's noise
//!   ([`Noise::Calibrated`], verbatim programs on a QPU): the model Braket's own `LocalEmulator`
//!   builds from the same capabilities, shot by shot on the IBM stand-in's trajectories
//!   ([`crate::ibm::trajectories`]): after each one-qubit gate on qubit `q` a depolarizing
//!   channel of Braket's rate `3/2 (1 - F1(q))` (`F1`: the randomized-benchmarking fidelity),
//!   after each two-qubit gate a two-qubit one of rate `5/4 (1 - F2)` (`F2`: the pair's native
//!   gate fidelity), and each measured bit flipped with `1 - F_readout(q)`.

use std::fmt;
use std::str::FromStr;

use num_complex::Complex64;
use qchess_circuit::ir::Matrix4;
use qchess_qasm::program::{GateCall, Operation, Program};
use qchess_route::{IsaOp, NativeGate, Target};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::ibm::trajectories::{GateNoise, Schedule, Step};
use crate::ionq::JobLimits;
use crate::ionq::simulate::{ShotNoise, exact_distribution, for_each_noisy_shot};
use crate::stop::Stop;

/// The most qubits a program may use.
pub const MAX_QUBITS: usize = 64;

/// How the stand-in's QPUs run verbatim programs (`qchess serve --braket-noise`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Noise {
    /// Exactly: counts agree with the exact distribution within sampling error.
    #[default]
    Ideal,
    /// With the device's published fidelities (see the [module docs](self)).
    Calibrated,
}

impl FromStr for Noise {
    type Err = String;

    fn from_str(text: &str) -> Result<Noise, String> {
        match text {
            "ideal" => Ok(Noise::Ideal),
            "calibrated" => Ok(Noise::Calibrated),
            _ => Err(format!("Braket noise `{text}`: expected ideal or calibrated")),
        }
    }
}

impl fmt::Display for Noise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Noise::Ideal => "ideal",
            Noise::Calibrated => "calibrated",
        })
    }
}

/// Definitions of Braket's gate names that `stdgates.inc` does not have (names as Braket's
/// OpenQASM builtins; each exactly Braket's matrix, up to a global phase).
pub const BRAKET_GATES: [(&str, &str); 15] = [
    ("cnot", "gate cnot a, b { cx a, b; }"),
    ("ccnot", "gate ccnot a, b, c { ccx a, b, c; }"),
    ("si", "gate si a { sdg a; }"),
    ("ti", "gate ti a { tdg a; }"),
    ("v", "gate v a { sx a; }"),
    ("vi", "gate vi a { inv @ sx a; }"),
    ("i", "gate i a { id a; }"),
    ("phaseshift", "gate phaseshift(l) a { p(l) a; }"),
    ("cphaseshift", "gate cphaseshift(l) a, b { cp(l) a, b; }"),
    ("iswap", "gate iswap a, b { s a; s b; h a; cx a, b; cx b, a; h b; }"),
    ("xx", "gate xx(t) a, b { h a; h b; cx a, b; rz(t) b; cx a, b; h a; h b; }"),
    ("zz", "gate zz(t) a, b { cx a, b; rz(t) b; cx a, b; }"),
    ("prx", "gate prx(t, p) a { rz(-p) a; rx(t) a; rz(p) a; }"),
    ("gpi", "gate gpi(p) a { rz(-p) a; x a; rz(p) a; }"),
    ("gpi2", "gate gpi2(p) a { rz(-p) a; rx(pi / 2) a; rz(p) a; }"),
];

/// A task's program, read and checked.
#[derive(Debug, Clone)]
pub struct TaskProgram {
    /// The program.
    pub program: Program,
    /// Whether it has a verbatim box.
    pub verbatim: bool,
    /// The qubit each classical bit reads, in bit order (Braket's `measuredQubits`).
    pub measured: Vec<u32>,
}

/// Reads `source` (see the [module docs](self)); the error says where and why.
pub fn read(source: &str) -> Result<TaskProgram, String> {
    let (text, verbatim) = with_braket_names(source)?;
    let program = qchess_qasm::parse::v3::read_source(&text, "program").map_err(|e| e.to_string())?;
    let used = program.used_qubits().len();
    if used > MAX_QUBITS {
        return Err(format!("the program uses {used} qubits; this stand-in runs at most {MAX_QUBITS}"));
    }
    let mut measured: Vec<Option<u32>> = vec![None; program.clbits as usize];
    let mut done = vec![false; program.qubits.len()];
    for instruction in &program.body {
        if instruction.condition.is_some() {
            return Err(format!("{}: a condition on a measurement: Braket measures at the end", instruction.origin));
        }
        match &instruction.operation {
            Operation::Gate(call) => {
                if let Some(&q) = call.qubits.iter().find(|&&q| done[q as usize]) {
                    return Err(format!(
                        "{}: `{}` on {} after it was measured: Braket measures at the end",
                        instruction.origin, call.name, program.qubits[q as usize]
                    ));
                }
            }
            Operation::Measure { qubit, clbit } => {
                done[*qubit as usize] = true;
                if let Some(bit) = clbit {
                    measured[*bit as usize] = Some(*qubit);
                }
            }
            Operation::Reset { .. } => return Err(format!("{}: `reset` is not supported", instruction.origin)),
            Operation::Barrier { .. } | Operation::Delay { .. } => {}
        }
    }
    let measured: Vec<u32> = if measured.iter().all(Option::is_none) {
        (0..program.qubits.len() as u32).collect()
    } else {
        measured.into_iter().map(|q| q.unwrap_or(u32::MAX)).collect()
    };
    if measured.contains(&u32::MAX) {
        return Err("a classical bit that no measurement writes".to_owned());
    }
    Ok(TaskProgram { program, verbatim, measured })
}

/// `source` with Braket's pragmas taken out (noting a verbatim one) and its gate names defined.
fn with_braket_names(source: &str) -> Result<(String, bool), String> {
    let mut verbatim = false;
    let mut lines: Vec<String> = Vec::new();
    for (number, line) in source.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(pragma) = trimmed.strip_prefix("#pragma") {
            if pragma.split_whitespace().collect::<Vec<_>>() == ["braket", "verbatim"] {
                verbatim = true;
                lines.push(String::new());
                continue;
            }
            return Err(format!(
                "program:{}:1: pragma `{}` is not supported by this stand-in",
                number + 1,
                qchess_core::text::excerpt(trimmed)
            ));
        }
        lines.push(line.to_owned());
    }
    let includes = lines.iter().any(|l| l.trim_start().starts_with("include"));
    if !includes {
        let defined = |name: &str| {
            lines.iter().any(|l| {
                l.split_whitespace()
                    .collect::<Vec<_>>()
                    .windows(2)
                    .any(|w| w[0] == "gate" && w[1].split('(').next() == Some(name))
            })
        };
        let mut prelude = String::from("include \"stdgates.inc\";");
        for (name, definition) in BRAKET_GATES.iter() {
            if !defined(name) {
                prelude.push(' ');
                prelude.push_str(definition);
            }
        }
        match lines.iter().position(|l| l.trim_start().starts_with("OPENQASM")) {
            Some(at) => lines[at] = format!("{} {prelude}", lines[at]),
            None if lines.is_empty() => lines.push(prelude),
            None => lines[0] = format!("{prelude} {}", lines[0]),
        }
    }
    Ok((lines.join("\n"), verbatim))
}

/// The native operations of a verbatim program on `target`, whose native gates are `natives`;
/// refused naming the gate, or the pair the device does not couple.
pub fn native_ops(program: &TaskProgram, target: &Target, natives: &[String]) -> Result<Vec<(IsaOp, Matrix)>, String> {
    let mut ops = Vec::new();
    for instruction in &program.program.body {
        let Operation::Gate(call) = &instruction.operation else { continue };
        let physical = call.qubits.iter().all(|&q| program.program.qubits[q as usize].starts_with('$'));
        if !natives.iter().any(|n| n == &call.name) || !call.modifiers.is_empty() {
            return Err(format!(
                "{}: gate `{}` in a verbatim box is not a native gate of {} (its native gates: {})",
                instruction.origin,
                call.name,
                target.name,
                natives.join(", ")
            ));
        }
        if !physical {
            return Err(format!(
                "{}: a verbatim box acts on physical qubits ($n), not on `{}`",
                instruction.origin,
                call.qubits.iter().map(|&q| program.program.qubits[q as usize].clone()).collect::<Vec<_>>().join(", ")
            ));
        }
        let (op, matrix) = native(call).ok_or_else(|| {
            format!(
                "{}: `{}` with {} parameters on {} qubits is not a gate of {}",
                instruction.origin,
                call.name,
                call.params.len(),
                call.qubits.len(),
                target.name
            )
        })?;
        ops.push((op, matrix));
    }
    let only: Vec<IsaOp> = ops.iter().map(|(op, _)| *op).collect();
    qchess_route::verify::check_structure(&only, target)
        .map_err(|e| format!("verbatim box on {}: {e}", target.name))?;
    Ok(ops)
}

/// A gate's matrix: one or two qubits.
#[derive(Debug, Clone, Copy)]
pub enum Matrix {
    /// One qubit.
    One(qchess_circuit::ir::Matrix2),
    /// Two qubits (index bit 0 = the first operand).
    Two(Matrix4),
}

/// A native gate call as an operation of the route crate and its matrix. The qubits are the
/// program's, which are the physical ones for `$n`.
fn native(call: &GateCall) -> Option<(IsaOp, Matrix)> {
    let gate = match (call.name.as_str(), call.params.as_slice()) {
        ("prx", [theta, phi]) => NativeGate::Prx(*theta, *phi),
        ("rx", [theta]) => NativeGate::Rx(*theta),
        ("rz", [theta]) => NativeGate::Rz(*theta),
        ("gpi", [phi]) => NativeGate::Gpi(*phi),
        ("gpi2", [phi]) => NativeGate::Gpi2(*phi),
        ("cz", []) => NativeGate::Cz,
        ("iswap", []) => NativeGate::ISwap,
        ("zz", [theta]) => {
            let [a, b] = call.qubits[..] else { return None };
            let (minus, plus) = (Complex64::from_polar(1.0, -theta / 2.0), Complex64::from_polar(1.0, theta / 2.0));
            let zero = Complex64::new(0.0, 0.0);
            let matrix = [
                [minus, zero, zero, zero],
                [zero, plus, zero, zero],
                [zero, zero, plus, zero],
                [zero, zero, zero, minus],
            ];
            return Some((IsaOp::Two { gate: NativeGate::Zz, a, b }, Matrix::Two(matrix)));
        }
        _ => return None,
    };
    match call.qubits[..] {
        [qubit] => Some((IsaOp::One { gate, qubit }, Matrix::One(gate.matrix2()?))),
        [a, b] => Some((IsaOp::Two { gate, a, b }, Matrix::Two(gate.matrix4()?))),
        _ => None,
    }
}

/// The shots of `program`: each shot's classical bits (bit `i` = `program.measured[i]`).
/// `native` gives the native operations of a verbatim program on a QPU and the device, whose
/// noise applies when `noisy`; they run over the qubits they use. Other programs run exactly
/// over all their qubits.
pub fn run(
    program: &TaskProgram,
    native: Option<(&[(IsaOp, Matrix)], &Target)>,
    noisy: bool,
    shots: u64,
    seed: u64,
    stop: &Stop,
) -> Result<Vec<u128>, String> {
    match native {
        Some((ops, target)) => run_native(program, ops, (target, noisy), shots, seed, stop),
        None if program.program.qubits.len() > MAX_QUBITS => Err(format!(
            "the program has {} qubits; outside a verbatim box this stand-in runs at most {MAX_QUBITS}",
            program.program.qubits.len()
        )),
        None => run_exact(program, shots, seed, stop),
    }
}

fn run_exact(program: &TaskProgram, shots: u64, seed: u64, stop: &Stop) -> Result<Vec<u128>, String> {
    let mut gates_only = program.program.clone();
    gates_only.body.retain(|i| matches!(i.operation, Operation::Gate(_)));
    let circuit = gates_only.to_circuit(1_000_000).map_err(|e| e.to_string())?;
    let limits = JobLimits { max_qubits: MAX_QUBITS as u32, ..JobLimits::default() };
    let exact = exact_distribution(&circuit, &limits, stop).map_err(|f| f.message)?;
    let qubits = circuit.num_qubits() as u32;
    let mut out = Vec::with_capacity(shots as usize);
    let none = ShotNoise { depolarized: 0.0, readout: Vec::new() };
    for_each_noisy_shot(&exact, qubits, shots, &none, seed, stop, |outcome| {
        let bits =
            program.measured.iter().enumerate().fold(0u128, |bits, (i, &q)| bits | u128::from(outcome >> q & 1) << i);
        out.push(bits);
    })
    .map_err(|f| f.message)?;
    Ok(out)
}

fn run_native(
    program: &TaskProgram,
    ops: &[(IsaOp, Matrix)],
    (target, noisy): (&Target, bool),
    shots: u64,
    seed: u64,
    stop: &Stop,
) -> Result<Vec<u128>, String> {
    let mut used: Vec<u32> =
        ops.iter().flat_map(|(op, _)| op.qubits()).chain(program.measured.iter().copied()).collect();
    used.sort_unstable();
    used.dedup();
    let position = |q: u32| used.binary_search(&q).unwrap_or(0);
    let one_qubit_error = |q: u32| {
        let error = target.calibration.sx_error.as_ref().and_then(|e| e.get(q as usize)).copied().unwrap_or(0.0);
        if noisy { error } else { 0.0 }
    };
    let mut schedule = Schedule { qubits: used.len(), steps: Vec::with_capacity(ops.len() + program.measured.len()) };
    for (op, matrix) in ops {
        let step = match (*op, *matrix) {
            (IsaOp::One { qubit, .. }, Matrix::One(matrix)) => {
                let depolarizing = (2.0 * one_qubit_error(qubit)).clamp(0.0, 4.0 / 3.0);
                let noise = (depolarizing > 0.0).then(|| GateNoise {
                    qubits: vec![position(qubit)],
                    depolarizing,
                    relaxation: Vec::new(),
                });
                Step::One { qubit: position(qubit), matrix, noise }
            }
            (IsaOp::Two { a, b, .. }, Matrix::Two(matrix)) => {
                let error = if noisy { target.pair_error_of(a, b).unwrap_or(0.0) } else { 0.0 };
                let depolarizing = (4.0 / 3.0 * error).clamp(0.0, 16.0 / 15.0);
                let noise = (depolarizing > 0.0).then(|| GateNoise {
                    qubits: vec![position(a), position(b)],
                    depolarizing,
                    relaxation: Vec::new(),
                });
                Step::Two { a: position(a), b: position(b), matrix, noise }
            }
            _ => return Err("a gate with the wrong number of qubits".to_owned()),
        };
        schedule.steps.push((step, None));
    }
    for (clbit, &qubit) in program.measured.iter().enumerate() {
        let readout = if noisy { target.readout_error(qubit).clamp(0.0, 0.5) } else { 0.0 };
        schedule.steps.push((Step::Measure { qubit: position(qubit), clbit: clbit as u32, readout }, None));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    schedule.sample(shots, &mut rng, stop).map_err(|e| match e {
        crate::ibm::trajectories::SampleError::TooLarge(t) => format!("the state grew past {} basis states", t.states),
        crate::ibm::trajectories::SampleError::Stopped(reason) => reason,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    use proptest::prelude::*;
    use qchess_route::verify::State;

    use super::*;

    /// Braket's native gates with angles that make every relative phase show in the end.
    const NATIVE: &str = "OPENQASM 3.0;\nqubit[3] q;\ngpi2(0.3) q[0];\ngpi2(1.1) q[1];\niswap q[0], q[1];\n\
        zz(0.7) q[1], q[2];\nprx(0.4, 0.9) q[2];\ncz q[0], q[2];\ngpi(0.5) q[1];\ngpi2(2.0) q[0];\n\
        prx(1.3, 0.2) q[1];\nrx(0.6) q[2];\nrz(0.8) q[0];\niswap q[1], q[2];\ngpi2(0.7) q[2];\nprx(0.9, 1.7) q[0];\n";

    /// The definitions given to Braket's names run the same unitary (to a global phase) as the
    /// native gates' own matrices, which verbatim programs run.
    #[test]
    fn braket_names_are_defined_as_their_native_matrices() {
        let program = read(NATIVE).expect("reads");
        let mut state = State::from_amplitudes({
            let mut amps = vec![Complex64::new(0.0, 0.0); 8];
            amps[0] = Complex64::new(1.0, 0.0);
            amps
        });
        for instruction in &program.program.body {
            let Operation::Gate(call) = &instruction.operation else { continue };
            match native(call).unwrap_or_else(|| panic!("{} is native", call.name)) {
                (IsaOp::One { qubit, .. }, Matrix::One(m)) => state.apply1(qubit as usize, &m),
                (IsaOp::Two { a, b, .. }, Matrix::Two(m)) => state.apply2(a as usize, b as usize, &m),
                other => panic!("{other:?}"),
            }
        }
        let mut gates_only = program.program.clone();
        gates_only.body.retain(|i| matches!(i.operation, Operation::Gate(_)));
        let circuit = gates_only.to_circuit(1000).expect("lowers");
        let told = AtomicBool::new(false);
        let stop = Stop::new(Duration::from_secs(60), &told);
        let exact = exact_distribution(&circuit, &JobLimits::default(), &stop).expect("runs");
        for (index, amplitude) in state.amplitudes().iter().enumerate() {
            let p = exact.iter().find(|(k, _)| *k == index as u64).map_or(0.0, |(_, p)| *p);
            assert!((p - amplitude.norm_sqr()).abs() < 1e-12, "outcome {index}: {p} vs {}", amplitude.norm_sqr());
        }
    }

    #[test]
    fn measurements_name_their_qubits_and_come_last() {
        let measured =
            read("OPENQASM 3.0;\nqubit[3] q;\nbit[2] b;\nh q[0];\nb[1] = measure q[0];\nb[0] = measure q[2];\n");
        assert_eq!(measured.expect("reads").measured, vec![2, 0]);
        assert_eq!(read("qubit[2] q;\nx q[1];\n").expect("reads").measured, vec![0, 1], "all, when none is");
        let late = read("OPENQASM 3.0;\nqubit[1] q;\nbit b;\nb = measure q[0];\nx q[0];\n").expect_err("late");
        assert!(late.contains("program:5:1") && late.contains("after it was measured"), "{late}");
    }

    proptest! {
        /// Any text is read or refused with a message; never a panic.
        #[test]
        fn any_text_reads_or_is_refused(text in "(OPENQASM 3.0;\n)?(#pragma braket verbatim\n|qubit\\[[0-9]\\] q;\n|bit\\[[0-3]\\] b;\n|box \\{\n|\\}\n|(h|cnot|iswap|prx\\(1, 2\\)|gpi\\(0\\)|zz\\(1\\)|cz) (q\\[[0-9]\\]|\\$[0-9]{1,3})(, q\\[[0-9]\\])?;\n|b\\[[0-3]\\] = measure q\\[[0-9]\\];\n|[ -~]{0,12}\n){0,12}") {
            let _ = read(&text);
        }
    }
}
