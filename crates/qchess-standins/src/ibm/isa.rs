//! The circuits of Sampler and Estimator jobs as ISA circuits of the device, refusing those
//! that are not, as the service does: besides the basis gates and the coupling map, no
//! operation may touch a qubit or coupler the device's calibration marks broken (not
//! operational, or an error of at least 0.5; see `qchess_route::target::calibration`), and
//! [`live_properties`] serves that calibration as the live service does, each qubit and gate
//! with its `operational` flag.
//!
//! A circuit arrives as OpenQASM 3 text (read by `qchess-qasm`'s one OpenQASM 3 reader) or as
//! QPY (read by its QPY reader); either way it is a [`Program`]. The device's basis gates
//! (`rz(angle)`, `sx`, `x`, `cz` or `ecr`, and `id`, a no-op here) over physical qubits `$n`
//! or one register over the device (`q[n]` is physical qubit `n`), measurements into bits,
//! resets, barriers, delays and `if`/`else` on bits make an ISA circuit; a gate is judged by
//! its name (definitions are not needed), and two-qubit gates must act on coupled pairs.

use qchess_qasm::program::{BitTest, Duration, Operation, Program};
use qchess_route::{IsaOp, NativeGate, Target};
use serde_json::{Value, json};

/// The device as the ISA check sees it: its configuration with its calibration (so that gates
/// on broken qubits and couplers are refused).
pub fn device_target(configuration: &str, properties: &str, name: &str) -> Result<Target, String> {
    let target = Target::from_json(configuration, name).map_err(|e| e.to_string())?;
    qchess_route::target::ibm::with_properties(target, properties, name).map_err(|e| e.to_string())
}

/// The published properties `properties` of the device `configuration` describes, with an
/// `operational` parameter (1 or 0) on every qubit and gate, as IBM's live properties carry it:
/// 0 exactly where the calibration marks the element broken.
pub fn live_properties(configuration: &str, properties: &str, name: &str) -> Result<Value, String> {
    let target = device_target(configuration, properties, name)?;
    let mut value: Value = serde_json::from_str(properties).map_err(|e| e.to_string())?;
    let date = value.get("last_update_date").cloned().unwrap_or(Value::Null);
    let flag = |works: bool| json!({ "date": date, "name": "operational", "unit": "", "value": u8::from(works) });
    let unflagged =
        |parameters: &Value| parameters.as_array().is_some_and(|list| !list.iter().any(|p| p["name"] == "operational"));
    if let Some(qubits) = value.get_mut("qubits").and_then(Value::as_array_mut) {
        for (q, parameters) in qubits.iter_mut().enumerate() {
            if unflagged(parameters) {
                let works = !target.is_qubit_broken(q as u32);
                parameters.as_array_mut().into_iter().for_each(|list| list.push(flag(works)));
            }
        }
    }
    let qubit_count = value.get("qubits").and_then(Value::as_array).map_or(0, Vec::len);
    if let Some(gates) = value.get_mut("gates").and_then(Value::as_array_mut) {
        // `rz` is a frame change: the service lists it on every qubit with no error and no
        // length, and the client's scheduling passes (dynamical decoupling) need that length.
        let has_rz: std::collections::BTreeSet<u64> =
            gates.iter().filter(|g| g["gate"] == "rz").filter_map(|g| g["qubits"][0].as_u64()).collect();
        let rz = |q: usize| {
            let parameter = |name: &str, unit: &str| json!({ "date": date, "name": name, "unit": unit, "value": 0 });
            json!({ "qubits": [q], "gate": "rz", "name": format!("rz{q}"),
                    "parameters": [parameter("gate_error", ""), parameter("gate_length", "ns")] })
        };
        gates.extend((0..qubit_count).filter(|q| !has_rz.contains(&(*q as u64))).map(rz));
        for gate in gates {
            let qubits: Vec<u32> =
                gate["qubits"].as_array().into_iter().flatten().filter_map(Value::as_u64).map(|q| q as u32).collect();
            let works = match qubits[..] {
                [q] => !target.is_qubit_broken(q),
                [a, b] => !target.is_pair_broken(a, b),
                _ => true,
            };
            if let Some(parameters) = gate.get_mut("parameters").filter(|p| unflagged(p)) {
                parameters.as_array_mut().into_iter().for_each(|list| list.push(flag(works)));
            }
        }
    }
    Ok(value)
}

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

/// A `delay`: the qubits that idle, for how long, and where among the operations.
#[derive(Debug, Clone, PartialEq)]
pub struct Wait {
    /// The index of the operation it comes before (`ops.len()` at the end).
    pub before: usize,
    /// The physical qubits that idle.
    pub qubits: Vec<u32>,
    /// How long.
    pub duration: Duration,
    /// The condition it runs under.
    pub condition: Option<BitTest>,
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
    /// The delays (barriers are dropped: they change nothing in a simulation).
    pub waits: Vec<Wait>,
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
    let mut circuit = IsaCircuit { ops: Vec::new(), conditions: Vec::new(), registers, waits: Vec::new() };
    for instruction in &program.body {
        let op = match &instruction.operation {
            Operation::Barrier { .. } => continue,
            Operation::Delay { qubits, duration } => {
                let before = circuit.ops.len();
                let (qubits, duration, condition) = (qubits.clone(), *duration, instruction.condition.clone());
                circuit.waits.push(Wait { before, qubits, duration, condition });
                continue;
            }
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

#[cfg(test)]
mod tests {
    use qchess_route::target::presets::{FEZ_CONF, FEZ_PROPS};

    use super::*;

    fn circuit(body: &str) -> String {
        format!("OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[156] q;\nbit[2] c;\n{body}")
    }

    #[test]
    fn gates_on_broken_couplers_and_qubits_are_refused() {
        let fez = device_target(FEZ_CONF, FEZ_PROPS, "ibm_fez").expect("published");
        assert!(read(&circuit("cz q[72], q[73];\nc[0] = measure q[72];"), &fez).is_ok());
        // Published with gate error 1: IBM's snapshot of a coupler that does not work.
        let error = read(&circuit("sx q[27];\ncz q[27], q[28];"), &fez).unwrap_err();
        assert!(error.contains("cz") && error.contains("(27, 28)") && error.contains("faulty"), "{error}");
        // A qubit marked not operational, as the live service marks it.
        let mut down = fez.clone();
        down.calibration.down_qubits.insert(5);
        let error = read(&circuit("x q[5];"), &down).unwrap_err();
        assert!(error.contains("qubit 5") && error.contains("faulty"), "{error}");
        assert!(read(&circuit("x q[6];"), &down).is_ok());
    }

    #[test]
    fn live_properties_flag_exactly_the_broken_elements() {
        let live = live_properties(FEZ_CONF, FEZ_PROPS, "ibm_fez").expect("published");
        let operational = |parameters: &Value| {
            parameters
                .as_array()
                .and_then(|list| list.iter().find(|p| p["name"] == "operational"))
                .map(|p| p["value"].clone())
        };
        assert!(live["qubits"].as_array().expect("qubits").iter().all(|q| operational(q) == Some(json!(1))));
        let flags: Vec<(Vec<u64>, Value)> = live["gates"]
            .as_array()
            .expect("gates")
            .iter()
            .filter(|g| g["gate"] == "cz")
            .map(|g| {
                let qubits = g["qubits"].as_array().expect("qubits").iter().filter_map(Value::as_u64).collect();
                (qubits, operational(&g["parameters"]).expect("flagged"))
            })
            .collect();
        let down: Vec<&Vec<u64>> = flags.iter().filter(|(_, v)| *v == json!(0)).map(|(q, _)| q).collect();
        assert_eq!(down.len(), 14, "seven couplers, both directions: {down:?}");
        assert!(down.contains(&&vec![27, 28]) && down.contains(&&vec![28, 27]));
        // Read back, the flags mark the same elements.
        let target = device_target(FEZ_CONF, &live.to_string(), "ibm_fez").expect("live shape");
        assert_eq!(target.calibration.down_pairs.len(), 14);
        assert_eq!(target.broken_couplers().len(), 7);
    }
}
