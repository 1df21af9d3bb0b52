//! Reading the OpenQASM 3 ISA circuits of Sampler jobs, and refusing those that are not ISA
//! circuits of the device, as the service does.
//!
//! The subset read is what ISA circuits hold: `qubit[N] q;` (or physical `$n` qubits),
//! `bit[N] c;` registers, the device's basis gates (`rz(angle)`, `sx`, `x`, `cz`, `ecr`, `id`),
//! `c[i] = measure q[j];`, `reset`, `barrier` and `gate` definitions (skipped: a gate is judged
//! by its name). Angles are numbers or simple products of `pi`.

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
