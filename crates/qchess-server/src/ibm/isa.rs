//! Reading the OpenQASM 3 ISA circuits of Sampler jobs, and refusing those that are not ISA
//! circuits of the device, as the service does: besides the basis gates and the coupling map, no
//! operation may touch a qubit or coupler the device's calibration marks broken (not operational,
//! or an error of at least 0.5; see `qchess_route::target::calibration`), and
//! [`live_properties`] serves that calibration as the live service does, each qubit and gate
//! with its `operational` flag.
//!
//! The subset read is what ISA circuits hold: `qubit[N] q;` (or physical `$n` qubits),
//! `bit[N] c;` registers, the device's basis gates (`rz(angle)`, `sx`, `x`, `cz`, `ecr`, `id`),
//! `c[i] = measure q[j];`, `reset`, `barrier` and `gate` definitions (skipped: a gate is judged
//! by its name). Angles are numbers or simple products of `pi`.

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
    if let Some(gates) = value.get_mut("gates").and_then(Value::as_array_mut) {
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

/// An ISA circuit as read.
#[derive(Debug, Clone, PartialEq)]
pub struct IsaCircuit {
    /// The operations over physical qubits.
    pub ops: Vec<IsaOp>,
    /// The classical registers.
    pub registers: Vec<Register>,
}

/// Reads `text` and checks it is an ISA circuit of `target`; the error says why not.
pub fn read(text: &str, target: &Target) -> Result<IsaCircuit, String> {
    let mut circuit = IsaCircuit { ops: Vec::new(), registers: Vec::new() };
    let mut quantum_register: Option<String> = None;
    for statement in statements(text)? {
        let statement = statement.trim();
        let head = statement.split(|c: char| c.is_whitespace() || c == '(' || c == '[').next().unwrap_or("");
        match head {
            "" | "OPENQASM" | "include" | "barrier" | "delay" => {}
            "qubit" => quantum_register = statement.rsplit(char::is_whitespace).next().map(str::to_owned),
            "bit" => {
                let (size, name) = declaration(statement).ok_or_else(|| format!("cannot read `{statement}`"))?;
                let start = circuit.registers.last().map_or(0, |r| r.start + r.len);
                circuit.registers.push(Register { name, start, len: size });
            }
            "reset" => {
                let qubit = operand(statement["reset".len()..].trim(), quantum_register.as_deref())?;
                circuit.ops.push(IsaOp::Reset { qubit });
            }
            _ if statement.contains("= measure") => {
                let (bit, qubit) = statement.split_once("= measure").unwrap_or_default();
                let clbit = clbit(bit.trim(), &circuit.registers)?;
                let qubit = operand(qubit.trim(), quantum_register.as_deref())?;
                circuit.ops.push(IsaOp::Measure { qubit, clbit });
            }
            _ => circuit.ops.extend(gate(statement, quantum_register.as_deref(), target)?),
        }
    }
    qchess_route::verify::check_structure(&circuit.ops, target)?;
    Ok(circuit)
}

/// The statements of `text` without comments and `gate` definitions.
fn statements(text: &str) -> Result<Vec<String>, String> {
    let uncommented: String =
        text.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut kept = String::new();
    let mut rest = uncommented.as_str();
    while let Some(at) = rest.find("gate ").filter(|&at| at == 0 || rest[..at].ends_with(['\n', ';', ' ', '}'])) {
        kept.push_str(&rest[..at]);
        let end = rest[at..].find('}').ok_or("a gate definition is not closed")?;
        rest = &rest[at + end + 1..];
    }
    kept.push_str(rest);
    Ok(kept.split(';').map(str::to_owned).collect())
}

/// `bit[N] name` as (N, name).
fn declaration(statement: &str) -> Option<(u32, String)> {
    let open = statement.find('[')?;
    let close = statement.find(']')?;
    let size = statement[open + 1..close].trim().parse().ok()?;
    Some((size, statement[close + 1..].trim().to_owned()))
}

/// A qubit operand: `$n` or `q[n]` of the declared register.
fn operand(text: &str, register: Option<&str>) -> Result<u32, String> {
    if let Some(index) = text.strip_prefix('$') {
        return index.parse().map_err(|_| format!("bad qubit `{text}`"));
    }
    let (name, index) = text.split_once('[').ok_or_else(|| format!("bad qubit `{text}`"))?;
    if Some(name.trim()) != register {
        return Err(format!("qubit `{text}` is not in the declared register"));
    }
    index.trim_end_matches(']').trim().parse().map_err(|_| format!("bad qubit `{text}`"))
}

/// A bit operand `c[i]` as an index among all the circuit's bits.
fn clbit(text: &str, registers: &[Register]) -> Result<u32, String> {
    let (name, index) = text.split_once('[').ok_or_else(|| format!("bad bit `{text}`"))?;
    let index: u32 = index.trim_end_matches(']').trim().parse().map_err(|_| format!("bad bit `{text}`"))?;
    let register =
        registers.iter().find(|r| r.name == name.trim()).ok_or_else(|| format!("no register `{}`", name.trim()))?;
    if index >= register.len {
        return Err(format!("bit `{text}` is outside its register"));
    }
    Ok(register.start + index)
}

/// A gate statement: the device's basis gates only.
fn gate(statement: &str, register: Option<&str>, target: &Target) -> Result<Vec<IsaOp>, String> {
    let (call, operands) = match statement.find(')') {
        Some(close) => statement.split_at(close + 1),
        None => statement.split_once(char::is_whitespace).ok_or_else(|| format!("cannot read `{statement}`"))?,
    };
    let (name, angle) = match call.split_once('(') {
        Some((name, angle)) => (name.trim(), Some(evaluate(angle.trim_end_matches(')'))?)),
        None => (call.trim(), None),
    };
    let qubits: Vec<u32> = operands.split(',').map(|q| operand(q.trim(), register)).collect::<Result<_, _>>()?;
    let basis = target.basis.gate_names();
    if !basis.contains(&name) && name != "id" {
        return Err(format!(
            "instruction {name} is not supported on {}: its basis gates are {}",
            target.name,
            basis.join(", ")
        ));
    }
    let native = match (name, angle) {
        ("id", None) => return Ok(Vec::new()),
        ("rz", Some(theta)) => NativeGate::Rz(theta),
        ("sx", None) => NativeGate::Sx,
        ("x", None) => NativeGate::X,
        ("cz", None) => NativeGate::Cz,
        ("ecr", None) => NativeGate::Ecr,
        _ => return Err(format!("cannot read `{statement}`")),
    };
    match qubits[..] {
        [qubit] if native.matrix2().is_some() => Ok(vec![IsaOp::One { gate: native, qubit }]),
        [a, b] if native.matrix4().is_some() => Ok(vec![IsaOp::Two { gate: native, a, b }]),
        _ => Err(format!("`{statement}` has the wrong number of qubits")),
    }
}

/// An angle: a number, or a product and quotient of numbers and `pi`.
fn evaluate(text: &str) -> Result<f64, String> {
    let text = text.trim();
    let (sign, body) = match text.strip_prefix('-') {
        Some(body) => (-1.0, body),
        None => (1.0, text),
    };
    let atom = |a: &str| match a.trim() {
        "pi" | "π" => Ok(std::f64::consts::PI),
        number => number.parse::<f64>().map_err(|_| format!("cannot read the angle `{text}`")),
    };
    let mut value = 1.0;
    let mut operator = '*';
    let mut start = 0;
    for (i, c) in body.char_indices().chain(std::iter::once((body.len(), '*'))) {
        if c == '*' || c == '/' {
            let operand = atom(&body[start..i])?;
            value = if operator == '*' { value * operand } else { value / operand };
            operator = c;
            start = i + c.len_utf8();
        }
    }
    Ok(sign * value)
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
