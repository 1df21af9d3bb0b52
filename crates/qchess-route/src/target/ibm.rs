//! IBM's backend description JSON, read as the service (and `qiskit-ibm-runtime`) has it.
//!
//! The configuration gives `backend_name`, `n_qubits`, `basis_gates` and `coupling_map` (directed
//! `[control, target]` pairs); every other field is ignored. The properties give, per qubit, a list
//! of `{name, value}` (we read `readout_error`) and, per gate, `{gate, qubits, parameters}` (we read
//! the `gate_error` of the two-qubit gate).

use serde::Deserialize;

use super::{Basis, Target, TargetError};

#[derive(Debug, Deserialize)]
struct Configuration {
    backend_name: String,
    n_qubits: u64,
    basis_gates: Vec<String>,
    #[serde(default)]
    coupling_map: Option<Vec<(u32, u32)>>,
}

#[derive(Debug, Deserialize)]
struct Properties {
    backend_name: String,
    qubits: Vec<Vec<Parameter>>,
    gates: Vec<GateProperties>,
}

#[derive(Debug, Deserialize)]
struct Parameter {
    name: String,
    value: f64,
}

#[derive(Debug, Deserialize)]
struct GateProperties {
    gate: String,
    qubits: Vec<u32>,
    parameters: Vec<Parameter>,
}

fn json_error(source_name: &str) -> impl Fn(serde_json::Error) -> TargetError + '_ {
    move |e| TargetError::Json { source_name: source_name.to_owned(), message: e.to_string() }
}

/// A target from a parsed IBM backend configuration.
pub(super) fn configuration(value: serde_json::Value, source_name: &str) -> Result<Target, TargetError> {
    let conf: Configuration = serde_json::from_value(value).map_err(json_error(source_name))?;
    let has = |name: &str| conf.basis_gates.iter().any(|g| g == name);
    let basis = if has("cz") {
        Basis::Cz
    } else if has("ecr") {
        Basis::Ecr
    } else if has("sqrt_iswap") {
        Basis::SqrtIswap
    } else if has("ms") {
        Basis::IonqNative
    } else {
        return Err(TargetError::NoTwoQubitGate { source_name: source_name.to_owned(), gates: conf.basis_gates });
    };
    let coupling = match conf.coupling_map {
        Some(map) => map,
        // No coupling map means every pair is coupled (simulators, trapped ions).
        None => all_pairs(conf.n_qubits.min(u64::from(super::MAX_QUBITS)) as u32),
    };
    Target::new(conf.backend_name, conf.n_qubits, basis, coupling)
}

/// `target` with the error rates of an IBM properties file for the same device.
pub fn with_properties(mut target: Target, text: &str, source_name: &str) -> Result<Target, TargetError> {
    let props: Properties = serde_json::from_str(text).map_err(json_error(source_name))?;
    if props.backend_name != target.name {
        return Err(TargetError::PropertiesMismatch { configuration: target.name, properties: props.backend_name });
    }
    let readout: Vec<f64> = (0..target.num_qubits as usize)
        .map(|q| {
            props
                .qubits
                .get(q)
                .and_then(|params| params.iter().find(|p| p.name == "readout_error"))
                .map_or(0.0, |p| p.value)
        })
        .collect();
    target.qubit_error = Some(readout);
    let two_qubit = match target.basis {
        Basis::Cz => "cz",
        Basis::Ecr => "ecr",
        Basis::SqrtIswap => "sqrt_iswap",
        Basis::IonqNative => "ms",
    };
    for gate in props.gates.iter().filter(|g| g.gate == two_qubit) {
        if let (&[a, b], Some(error)) =
            (gate.qubits.as_slice(), gate.parameters.iter().find(|p| p.name == "gate_error"))
        {
            target.pair_error.insert((a, b), error.value);
        }
    }
    Ok(target)
}

/// Every ordered pair of distinct qubits below `n`.
pub(super) fn all_pairs(n: u32) -> Vec<(u32, u32)> {
    (0..n).flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b))).collect()
}
