//! The circuits of Sampler and Estimator jobs as ISA circuits of the device, refusing those
//! that are not, as the service does.
//!
//! A circuit arrives as OpenQASM 3 text (read by `qchess-qasm`'s one OpenQASM 3 reader) or as
//! QPY (read by its QPY reader); either way it is a [`Program`]. The device's basis gates
//! (`rz(angle)`, `sx`, `x`, `cz` or `ecr`, and `id`, a no-op here) over physical qubits `$n`
//! or one register over the device (`q[n]` is physical qubit `n`), measurements into bits,
//! resets, barriers, delays and `if`/`else` on bits make an ISA circuit; a gate is judged by
//! its name (definitions are not needed), and two-qubit gates must act on coupled pairs.

use qchess_qasm::program::{BitTest, Operation, Program};
use qchess_route::{IsaOp, NativeGate, Target};

/// A classical register of a circuit: name and bit count, in declaration order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    /// Its name.
    pub name: String,
    /// Its first bit among all the circuit's bits.
    pub start: u32,
    /// Its number of bits.
    pub len: u32,
}

/// An ISA circuit as read.
#[derive(Debug, Clone, PartialEq)]
pub struct IsaCircuit {
    /// The operations over physical qubits.
    pub ops: Vec<IsaOp>,
    /// The condition each operation runs under (same length as `ops`).
    pub conditions: Vec<Option<BitTest>>,
    /// The classical registers.
    pub registers: Vec<Register>,
}

/// Reads OpenQASM 3 `text` and checks it is an ISA circuit of `target`; the error says why not.
pub fn read(text: &str, target: &Target) -> Result<IsaCircuit, String> {
    let program = qchess_qasm::parse::v3::read_source(text, "circuit").map_err(|e| e.to_string())?;
    from_program(&program, target)
}

/// Checks that `program` is an ISA circuit of `target`; the error says why not.
pub fn from_program(program: &Program, target: &Target) -> Result<IsaCircuit, String> {
    let physical = program.qubits.len() as u32;
    let registers =
        program.registers.iter().map(|r| Register { name: r.name.clone(), start: r.start, len: r.len }).collect();
    let mut circuit = IsaCircuit { ops: Vec::new(), conditions: Vec::new(), registers };
    for instruction in &program.body {
        let op = match &instruction.operation {
            Operation::Barrier { .. } | Operation::Delay { .. } => continue,
            Operation::Reset { qubit } => IsaOp::Reset { qubit: *qubit },
            Operation::Measure { qubit, clbit: Some(clbit) } => IsaOp::Measure { qubit: *qubit, clbit: *clbit },
            Operation::Measure { clbit: None, .. } => {
                return Err(format!("{}: a measurement must write a classical bit", instruction.origin));
            }
            Operation::Gate(call) => match gate(call, target)? {
                Some(op) => op,
                None => continue,
            },
        };
        circuit.ops.push(op);
        circuit.conditions.push(instruction.condition.clone());
    }
    if physical > target.num_qubits {
        return Err(format!("the circuit has {physical} qubits; {} has {}", target.name, target.num_qubits));
    }
    qchess_route::verify::check_structure(&circuit.ops, target)?;
    Ok(circuit)
}

/// A gate call as a native gate (`None` for a no-op: `id`, a global phase).
fn gate(call: &qchess_qasm::program::GateCall, target: &Target) -> Result<Option<IsaOp>, String> {
    let name = call.name.as_str();
    if name == "gphase" && call.modifiers.is_empty() {
        return Ok(None);
    }
    let basis = target.basis.gate_names();
    if !call.modifiers.is_empty() || (!basis.contains(&name) && name != "id") {
        let shown = if call.modifiers.is_empty() {
            name.to_string()
        } else {
            format!("{} modified by {:?}", name, call.modifiers)
        };
        return Err(format!(
            "instruction {shown} is not supported on {}: its basis gates are {}",
            target.name,
            basis.join(", ")
        ));
    }
    let native = match (name, call.params.as_slice()) {
        ("id", []) => return Ok(None),
        ("rz", [theta]) => NativeGate::Rz(*theta),
        ("sx", []) => NativeGate::Sx,
        ("x", []) => NativeGate::X,
        ("cz", []) => NativeGate::Cz,
        ("ecr", []) => NativeGate::Ecr,
        _ => return Err(format!("`{name}` with {} parameters is not a gate of {}", call.params.len(), target.name)),
    };
    match call.qubits[..] {
        [qubit] if native.matrix2().is_some() => Ok(Some(IsaOp::One { gate: native, qubit })),
        [a, b] if native.matrix4().is_some() => Ok(Some(IsaOp::Two { gate: native, a, b })),
        _ => Err(format!("`{name}` on {} qubits has the wrong number of qubits", call.qubits.len())),
    }
}
