//! IBM's backend description JSON, read as the service (and `qiskit-ibm-runtime`) has it.
//!
//! The configuration gives `backend_name`, `n_qubits`, `basis_gates` and `coupling_map` (directed
//! `[control, target]` pairs); every other field is ignored. The properties give
//! `last_update_date`, per qubit a list of `{name, value}` (we read `readout_error` and
//! `operational`) and, per gate, `{gate, qubits, parameters}` (we read `gate_error` and
//! `operational` of `sx`, `x` and the two-qubit gate). A value may be a number or a boolean
//! (`operational` is 0/1 or false/true); parameters we do not read may hold anything.

use std::collections::BTreeSet;

use serde::Deserialize;

use super::{Basis, Calibration, Target, TargetError};

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
    #[serde(default)]
    last_update_date: Option<String>,
    qubits: Vec<Vec<Parameter>>,
    gates: Vec<GateProperties>,
}

#[derive(Debug, Deserialize)]
struct Parameter {
    name: String,
    #[serde(default)]
    value: serde_json::Value,
}

impl Parameter {
    /// The value as a number: numbers as they are, booleans as 0 and 1.
    fn number(&self) -> Option<f64> {
        match &self.value {
            serde_json::Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
            value => value.as_f64(),
        }
    }
}

#[derive(Debug, Deserialize)]
struct GateProperties {
    gate: String,
    qubits: Vec<u32>,
    parameters: Vec<Parameter>,
}

/// The number of the parameter `name` among `parameters`.
fn find(parameters: &[Parameter], name: &str) -> Option<f64> {
    parameters.iter().find(|p| p.name == name).and_then(Parameter::number)
}

/// Whether `parameters` say the element is not operational.
fn down(parameters: &[Parameter]) -> bool {
    find(parameters, "operational").is_some_and(|v| v == 0.0)
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

/// `target` with the calibration of an IBM properties file for the same device: readout,
/// `sx`, `x` and two-qubit gate errors, elements marked not operational, and the date.
pub fn with_properties(mut target: Target, text: &str, source_name: &str) -> Result<Target, TargetError> {
    let props: Properties = serde_json::from_str(text).map_err(json_error(source_name))?;
    if props.backend_name != target.name {
        return Err(TargetError::PropertiesMismatch { configuration: target.name, properties: props.backend_name });
    }
    let n = target.num_qubits as usize;
    let parameters = |q: usize| props.qubits.get(q).map_or(&[][..], Vec::as_slice);
    target.qubit_error = Some((0..n).map(|q| find(parameters(q), "readout_error").unwrap_or(0.0)).collect());
    let down_qubits: BTreeSet<u32> = (0..n).filter(|&q| down(parameters(q))).map(|q| q as u32).collect();
    let two_qubit = target.basis.two_qubit_gate();
    let mut calibration = Calibration { date: props.last_update_date, down_qubits, ..Calibration::default() };
    let (mut sx, mut x) = (vec![0.0; n], vec![0.0; n]);
    for gate in &props.gates {
        let error = find(&gate.parameters, "gate_error");
        match (gate.gate.as_str(), gate.qubits.as_slice()) {
            ("sx" | "x", &[q]) if (q as usize) < n => {
                let errors = if gate.gate == "sx" { &mut sx } else { &mut x };
                errors[q as usize] = error.unwrap_or(0.0);
                if down(&gate.parameters) {
                    calibration.down_qubits.insert(q);
                }
            }
            (name, &[a, b]) if name == two_qubit => {
                if let Some(error) = error {
                    target.pair_error.insert((a, b), error);
                }
                if down(&gate.parameters) {
                    calibration.down_pairs.insert((a, b));
                }
            }
            _ => {}
        }
    }
    calibration.sx_error = Some(sx);
    calibration.x_error = Some(x);
    target.calibration = calibration;
    Ok(target)
}

/// Every ordered pair of distinct qubits below `n`.
pub(super) fn all_pairs(n: u32) -> Vec<(u32, u32)> {
    (0..n).flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b))).collect()
}
