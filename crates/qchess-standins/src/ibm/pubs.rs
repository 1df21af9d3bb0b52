//! The inputs of Sampler V2 and Estimator V2 jobs, as IBM's REST guides write them (OpenQASM 3
//! text) and as `qiskit-ibm-runtime` sends them (QPY circuits, NumPy parameter values, Pauli
//! observables), checked against the device when the job is submitted.
//!
//! * Sampler pub: a circuit, or `[circuit, parameter values?, shots?]`.
//! * Estimator pub: `[circuit, observables, parameter values?, precision?]`, observables a
//!   Pauli string, a `{pauli: coefficient}` map or a (nested) list of those; qubit 0 is the
//!   last character.
//! * Parameter values: an array whose last axis holds one value per circuit parameter (in
//!   Qiskit's order); the pub's shape is the rest, broadcast with the observables' shape.
//!
//! Options implemented: `default_shots` (and each pub's shots), `default_precision` (and each
//! pub's precision), `simulator.seed_simulator`. Every other option set is accepted and listed
//! in the result's metadata as ignored.

use qchess_route::Target;
use serde_json::Value;

pub use super::bound::{
    Bindings, MAX_BINDINGS, MAX_CLBITS, MAX_JOB_SHOTS, MAX_SHOTS, PubCircuit, SamplerPub, broadcast, broadcast_index,
    check_first,
};
use super::isa;
use super::runtime::{self, Array};

/// Shots of a Sampler pub that gives none (Sampler V2's default).
pub const DEFAULT_SHOTS: u64 = 4096;

/// Precision of an Estimator pub that gives none (Estimator V2's default).
pub const DEFAULT_PRECISION: f64 = 0.015625;

/// A Pauli term over physical qubits: `(qubit, 'X' | 'Y' | 'Z')`, identities left out.
pub type Pauli = Vec<(u32, char)>;

/// Observables with their shape: each a list of (Pauli term, coefficient).
#[derive(Debug, Clone, PartialEq)]
pub struct Observables {
    /// The shape.
    pub shape: Vec<usize>,
    /// Each observable, in row-major order of `shape`.
    pub items: Vec<Vec<(Pauli, f64)>>,
}

/// An Estimator pub.
#[derive(Debug, Clone)]
pub struct EstimatorPub {
    /// The circuit.
    pub circuit: PubCircuit,
    /// The observables.
    pub observables: Observables,
    /// Its parameter values.
    pub bindings: Bindings,
    /// Target precision (standard error).
    pub precision: f64,
    /// Shots per measurement basis when estimated from shots.
    pub shots: u64,
}

/// The pubs of a job.
#[derive(Debug, Clone)]
pub enum Work {
    /// Sampler V2.
    Sampler(Vec<SamplerPub>),
    /// Estimator V2.
    Estimator(Vec<EstimatorPub>),
    /// An executor program.
    Executor(Box<super::executor::Program>),
}

/// A job as submitted, checked.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Its pubs.
    pub work: Work,
    /// Whether the client asked for Qiskit's typed result JSON (`support_qiskit`).
    pub typed: bool,
    /// Options set that the stand-in does not apply (dotted paths).
    pub ignored_options: Vec<String>,
    /// `simulator.seed_simulator`, when set.
    pub seed: Option<u64>,
}

/// Reads and checks a job request for `target`; the error is the message of a 400.
pub fn prepare(request: &Value, target: &Target) -> Result<Prepared, String> {
    let program = request.get("program_id").and_then(Value::as_str).unwrap_or("");
    if !matches!(program, "sampler" | "estimator" | "executor") {
        return Err(format!(
            "program_id must be `sampler`, `estimator` or `executor`, not `{}`",
            qchess_core::text::excerpt(program)
        ));
    }
    let params = request.get("params").ok_or("the job has no params")?;
    if program == "executor" {
        let program = super::executor::prepare(params, target)?;
        let ignored_options = program.ignored_options.clone();
        return Ok(Prepared { work: Work::Executor(Box::new(program)), typed: false, ignored_options, seed: None });
    }
    let options = params.get("options").cloned().unwrap_or(Value::Null);
    let typed = params.get("support_qiskit").and_then(Value::as_bool).unwrap_or(false);
    let pubs = params
        .get("pubs")
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty())
        .ok_or("params.pubs must be a non-empty list")?;
    let implemented: &[&str] = if program == "sampler" {
        &["default_shots", "simulator.seed_simulator"]
    } else {
        &["default_shots", "default_precision", "simulator.seed_simulator"]
    };
    let mut ignored_options = Vec::new();
    leaves(&options, "", &mut |path| {
        if !implemented.contains(&path.as_str()) {
            ignored_options.push(path);
        }
    });
    let seed = options.pointer("/simulator/seed_simulator").and_then(Value::as_u64);
    let default_shots = options.get("default_shots").and_then(Value::as_u64);
    let mut total_shots = 0u64;
    let work = if program == "sampler" {
        let mut out = Vec::new();
        for (index, pub_) in pubs.iter().enumerate() {
            let sampler_pub = sampler_pub(pub_, default_shots.unwrap_or(DEFAULT_SHOTS), target)
                .map_err(|e| format!("pub {index}: {e}"))?;
            total_shots =
                total_shots.saturating_add(sampler_pub.shots.saturating_mul(sampler_pub.bindings.rows.len() as u64));
            out.push(sampler_pub);
        }
        Work::Sampler(out)
    } else {
        let precision = options.get("default_precision").and_then(Value::as_f64).unwrap_or(DEFAULT_PRECISION);
        let mut out = Vec::new();
        for (index, pub_) in pubs.iter().enumerate() {
            let estimator_pub =
                estimator_pub(pub_, precision, default_shots, target).map_err(|e| format!("pub {index}: {e}"))?;
            total_shots = total_shots
                .saturating_add(estimator_pub.shots.saturating_mul(estimator_pub.bindings.rows.len() as u64));
            out.push(estimator_pub);
        }
        Work::Estimator(out)
    };
    if total_shots > MAX_JOB_SHOTS {
        return Err(format!(
            "the job asks for {total_shots} shots in all; this stand-in runs at most {MAX_JOB_SHOTS} per job"
        ));
    }
    Ok(Prepared { work, typed, ignored_options, seed })
}

/// Calls `found` with the dotted path of every non-null leaf of `value`.
fn leaves(value: &Value, prefix: &str, found: &mut dyn FnMut(String)) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                leaves(inner, &path, found);
            }
        }
        Value::Null => {}
        _ if !prefix.is_empty() => found(prefix.to_string()),
        _ => {}
    }
}

/// The parts of a pub: a lone circuit is a pub of one part.
fn parts(pub_: &Value) -> Vec<&Value> {
    match pub_ {
        Value::Array(parts) => parts.iter().collect(),
        single => vec![single],
    }
}

/// A pub's circuit, checked against `target` with `check_values` bound.
fn circuit(value: Option<&&Value>, target: &Target) -> Result<PubCircuit, String> {
    let value = value.ok_or("the pub has no circuit")?;
    match value {
        Value::String(text) => {
            let circuit =
                isa::read(text, target).map_err(|e| format!("not an ISA circuit for backend {}: {e}", target.name))?;
            Ok(PubCircuit::Qasm(circuit))
        }
        other => match runtime::typed(other) {
            Some(("QuantumCircuit", Value::String(text))) => {
                let bytes = runtime::decode_bytes(text, true).map_err(|e| format!("its QPY circuit is {e}"))?;
                let mut circuits = qchess_qasm::qpy::read(&bytes).map_err(|e| format!("its QPY circuit: {e}"))?;
                match circuits.len() {
                    1 => Ok(PubCircuit::Qpy(Box::new(circuits.remove(0)))),
                    n => Err(format!("its QPY payload holds {n} circuits, not one")),
                }
            }
            Some((kind, _)) => Err(format!("a `{kind}` is not a circuit")),
            None => Err("the circuit is neither OpenQASM 3 text nor a QPY QuantumCircuit".into()),
        },
    }
}

/// Parameter values for `parameters` parameters (`None`: no values, one empty binding).
fn bindings(value: Option<&&Value>, parameters: usize) -> Result<Bindings, String> {
    let array = match value {
        None | Some(Value::Null) => Array { shape: vec![0], data: Vec::new() },
        Some(value) => runtime::array(value).map_err(|e| format!("its parameter values: {e}"))?,
    };
    let array = if array.shape.is_empty() { Array { shape: vec![1], data: array.data } } else { array };
    let (last, shape) = array.shape.split_last().map_or((0, &[][..]), |(l, s)| (*l, s));
    if last != parameters && !(parameters == 0 && array.data.is_empty()) {
        return Err(format!(
            "its parameter values give {last} values per binding for a circuit of {parameters} parameters"
        ));
    }
    let count: usize = shape.iter().product();
    if count > MAX_BINDINGS {
        return Err(format!("it has {count} parameter bindings; this stand-in takes at most {MAX_BINDINGS}"));
    }
    if let Some(bad) = array.data.iter().find(|x| !x.is_finite()) {
        return Err(format!("a parameter value is {bad}, not a finite number"));
    }
    let rows = if parameters == 0 {
        vec![Vec::new(); count.max(1)]
    } else {
        array.data.chunks(parameters).map(<[f64]>::to_vec).collect()
    };
    let shape = if parameters == 0 && count == 0 { Vec::new() } else { shape.to_vec() };
    Ok(Bindings { shape, rows })
}

fn sampler_pub(pub_: &Value, default_shots: u64, target: &Target) -> Result<SamplerPub, String> {
    let parts = parts(pub_);
    let circuit = circuit(parts.first(), target)?;
    let bindings = bindings(parts.get(1), circuit.parameters())?;
    let shots = match parts.get(2) {
        None | Some(Value::Null) => default_shots,
        Some(value) => value.as_u64().ok_or("its shots are not a whole number")?,
    };
    if !(1..=MAX_SHOTS).contains(&shots) {
        return Err(format!("it asks for {shots} shots; 1 to {MAX_SHOTS} are allowed"));
    }
    check_first(&circuit, &bindings, target, MAX_CLBITS)?;
    Ok(SamplerPub { circuit, bindings, shots })
}

fn estimator_pub(
    pub_: &Value,
    default_precision: f64,
    default_shots: Option<u64>,
    target: &Target,
) -> Result<EstimatorPub, String> {
    let parts = parts(pub_);
    let circuit = circuit(parts.first(), target)?;
    let observables = observables(parts.get(1).ok_or("the pub has no observables")?, target.num_qubits)?;
    let bindings = bindings(parts.get(2), circuit.parameters())?;
    let precision = match parts.get(3) {
        None | Some(Value::Null) => default_precision,
        Some(value) => value.as_f64().ok_or("its precision is not a number")?,
    };
    if !(precision > 0.0 && precision <= 1.0) {
        return Err(format!("its precision {precision} is not in (0, 1]"));
    }
    // Shots give the precision for an observable of norm 1: 1/precision^2 of them.
    let shots = default_shots.unwrap_or_else(|| (1.0 / (precision * precision)).ceil() as u64);
    if !(1..=MAX_SHOTS).contains(&shots) {
        return Err(format!("precision {precision} needs {shots} shots; 1 to {MAX_SHOTS} are allowed"));
    }
    broadcast(&observables.shape, &bindings.shape).ok_or_else(|| {
        format!(
            "observables of shape {:?} and parameter values of shape {:?} do not broadcast",
            observables.shape, bindings.shape
        )
    })?;
    let isa = check_first(&circuit, &bindings, target, MAX_CLBITS)?;
    if isa.ops.iter().any(|op| matches!(op, qchess_route::IsaOp::Measure { .. } | qchess_route::IsaOp::Reset { .. })) {
        return Err("an Estimator circuit must not measure or reset (the observables are measured)".into());
    }
    Ok(EstimatorPub { circuit, observables, bindings, precision, shots })
}

/// Observables: a string, a map, or nested lists of them.
fn observables(value: &Value, num_qubits: u32) -> Result<Observables, String> {
    let value = match runtime::typed(value) {
        Some(("ObservablesArray", inner)) => inner,
        Some((kind, _)) => return Err(format!("a `{kind}` is not an observable")),
        None => value,
    };
    match value {
        Value::Array(items) => {
            let parts = items.iter().map(|item| observables(item, num_qubits)).collect::<Result<Vec<_>, _>>()?;
            let inner = parts.first().map_or_else(Vec::new, |p| p.shape.clone());
            if parts.iter().any(|p| p.shape != inner) {
                return Err("a ragged list of observables".into());
            }
            let mut shape = vec![parts.len()];
            shape.extend(inner);
            let items: Vec<_> = parts.into_iter().flat_map(|p| p.items).collect();
            if items.len() > MAX_BINDINGS {
                return Err(format!("{} observables; this stand-in takes at most {MAX_BINDINGS} per pub", items.len()));
            }
            Ok(Observables { shape, items })
        }
        Value::String(label) => {
            Ok(Observables { shape: Vec::new(), items: vec![vec![(pauli(label, num_qubits)?, 1.0)]] })
        }
        Value::Object(map) => {
            let terms = map
                .iter()
                .map(|(label, coefficient)| {
                    let c = runtime::real(coefficient).ok_or_else(|| {
                        format!("the coefficient of `{}` is not a real number", qchess_core::text::excerpt(label))
                    })?;
                    Ok((pauli(label, num_qubits)?, c))
                })
                .collect::<Result<Vec<_>, String>>()?;
            Ok(Observables { shape: Vec::new(), items: vec![terms] })
        }
        _ => Err("an observable must be a Pauli string or a {pauli: coefficient} map".into()),
    }
}

/// A Pauli label (qubit 0 last) as its non-identity factors.
fn pauli(label: &str, num_qubits: u32) -> Result<Pauli, String> {
    let chars: Vec<char> = label.chars().collect();
    if chars.len() > num_qubits as usize {
        return Err(format!(
            "the observable `{}` spans {} qubits; the device has {num_qubits}",
            qchess_core::text::excerpt(label),
            chars.len()
        ));
    }
    chars
        .iter()
        .rev()
        .enumerate()
        .filter(|(_, c)| **c != 'I')
        .map(|(q, &c)| match c {
            'X' | 'Y' | 'Z' => Ok((q as u32, c)),
            other => Err(format!(
                "`{}` in the observable `{}` is not a Pauli (I, X, Y or Z)",
                other.escape_debug(),
                qchess_core::text::excerpt(label)
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests;
