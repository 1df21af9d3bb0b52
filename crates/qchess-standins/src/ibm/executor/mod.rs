//! The executor program (`program_id: executor`): what `qiskit-ibm-runtime`'s client-side
//! primitives (`executor_sampler.Sampler`, `executor_estimator.Estimator`) and its `Executor`
//! submit, a quantum program in the schema `v2.0` of IBM's executor.
//!
//! A program has `shots` and items, one circuit each (all circuits in one zlib-compressed QPY
//! file). A `circuit` item carries parameter values (`circuit_arguments`, the last axis over the
//! circuit's parameters); a `samplex` item carries a template circuit and a samplex that turns
//! its arguments (parameter values, measurement bases) into the template's parameter values, one
//! set per element of the item's `shape`. Each bound circuit runs `shots` times as a Sampler pub
//! does ([`sampler::run`]: an ISA circuit of the device, with or without its
//! noise), and each classical register comes back as a boolean tensor of shape
//! `[*item shape, shots, bits]`, bit 0 first. The client does the rest (the Sampler's counts, the
//! Estimator's expectation values) from the program's `passthrough_data`, returned as sent.
//!
//! Not applied, and listed in the result's `metadata.stand_in.ignored_options`:
//! `init_qubits: false` (a simulated shot always starts in |0>), `rep_delay`, `scheduler_timing`,
//! `stretch_values` (no timing metadata is produced), `experimental` options, and twirling (the
//! samplex draws identity twirls). Refused with the reason: kerneled measurement levels,
//! items of another type, and samplexes that inject noise.

mod samplex;
mod tensor;
mod u2;

use std::collections::BTreeMap;

use qchess_qasm::qpy::QpyCircuit;
use qchess_route::Target;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::bound::{
    self, Bindings, MAX_BINDINGS, MAX_JOB_SHOTS, MAX_SHOTS, PubCircuit, SamplerPub, broadcast, broadcast_index,
};
use super::clock::{iso_time, now};
use super::noise::Calibration;
use super::sampler::{self, PubError};
use super::{isa, runtime};
use crate::stop::Stop;

/// The most classical bits a program's circuit may write (the Estimator's template measures every
/// qubit of the device); each of its independent parts may write at most 128.
pub const MAX_PROGRAM_CLBITS: u32 = 4096;

/// The schema version read.
pub const SCHEMA_VERSION: &str = "v2.0";

/// A checked program.
#[derive(Debug, Clone)]
pub struct Program {
    /// Each item as a Sampler pub of its bound circuits (the bindings' shape is the item's).
    items: Vec<SamplerPub>,
    /// Each item's measurement-flip outputs and the shape of one element's (all 0).
    flips: Vec<Vec<(String, Vec<usize>)>>,
    passthrough: Value,
    semantic_role: Value,
    /// Options set that the stand-in does not apply.
    pub ignored_options: Vec<String>,
}

/// The options the stand-in does not apply, when set to something other than their defaults.
fn ignored_options(options: Option<&Value>) -> Vec<String> {
    let Some(options) = options else { return Vec::new() };
    let mut ignored = Vec::new();
    let flag = |key: &str| options.get(key).and_then(Value::as_bool);
    if flag("init_qubits") == Some(false) {
        ignored.push("init_qubits".to_string());
    }
    for key in ["scheduler_timing", "stretch_values"] {
        if flag(key) == Some(true) {
            ignored.push(key.to_string());
        }
    }
    if options.get("rep_delay").is_some_and(|v| !v.is_null()) {
        ignored.push("rep_delay".to_string());
    }
    if let Some(experimental) = options.get("experimental").and_then(Value::as_object) {
        ignored.extend(experimental.keys().map(|k| format!("experimental.{k}")));
    }
    ignored
}

/// The program's circuits, from its compressed QPY file.
fn circuits(value: &Value) -> Result<Vec<QpyCircuit>, String> {
    let text = value
        .get("b64_data")
        .and_then(Value::as_str)
        .ok_or("quantum_program.circuits is not compressed QPY (`b64_data`); OpenQASM 3 circuits are not read here")?;
    let bytes = runtime::decode_bytes(text, true).map_err(|e| format!("quantum_program.circuits is {e}"))?;
    let circuits = qchess_qasm::qpy::read(&bytes).map_err(|e| format!("quantum_program.circuits: {e}"))?;
    match value.get("num_programs").and_then(Value::as_u64) {
        Some(n) if n as usize == circuits.len() => Ok(circuits),
        other => Err(format!("quantum_program.circuits says {other:?} programs but holds {}", circuits.len())),
    }
}

/// A `circuit` item's bindings: `circuit_arguments` with its last axis over the parameters.
fn circuit_bindings(item: &Value, parameters: usize) -> Result<Bindings, String> {
    let arguments = match item.get("circuit_arguments") {
        None | Some(Value::Null) => tensor::Tensor { shape: vec![0], data: Vec::new() },
        Some(value) => tensor::reals(value, false).map_err(|e| format!("its circuit_arguments: {e}"))?,
    };
    let (last, leading) = arguments.shape.split_last().map_or((0, &[][..]), |(l, s)| (*l, s));
    if last != parameters && !(parameters == 0 && arguments.data.is_empty()) {
        return Err(format!(
            "its circuit_arguments give {last} values per binding for a circuit of {parameters} parameters"
        ));
    }
    let shape = leading.to_vec();
    match item.get("shape").and_then(Value::as_array) {
        Some(extra)
            if !extra.is_empty() && extra.iter().map(Value::as_u64).ne(shape.iter().map(|&d| Some(d as u64))) =>
        {
            return Err(format!("its shape {extra:?} differs from its arguments' {shape:?}; replication is not run"));
        }
        _ => {}
    }
    let count: usize = shape.iter().product();
    let rows = if parameters == 0 {
        vec![Vec::new(); count]
    } else {
        arguments.data.chunks(parameters).map(<[f64]>::to_vec).collect()
    };
    check_bindings(count, &rows)?;
    Ok(Bindings { shape, rows })
}

fn check_bindings(count: usize, rows: &[Vec<f64>]) -> Result<(), String> {
    if count > MAX_BINDINGS {
        return Err(format!("it has {count} parameter bindings; this stand-in takes at most {MAX_BINDINGS}"));
    }
    match rows.iter().flatten().find(|x| !x.is_finite()) {
        Some(bad) => Err(format!("a parameter value is {bad}, not a finite number")),
        None => Ok(()),
    }
}

/// What a `samplex` item adds to its bindings: its flip outputs, and whether it twirls.
type SamplexExtras = (Vec<(String, Vec<usize>)>, bool);

/// A `samplex` item's bindings: the samplex run once per element of the item's shape.
fn samplex_bindings(item: &Value, template_parameters: usize) -> Result<(Bindings, SamplexExtras), String> {
    let samplex =
        samplex::read(item.get("samplex").ok_or("it has no samplex")?).map_err(|e| format!("its samplex: {e}"))?;
    if samplex.template_parameters != template_parameters {
        return Err(format!(
            "its samplex writes {} parameters for a template circuit of {template_parameters}",
            samplex.template_parameters
        ));
    }
    let shape: Vec<usize> = item
        .get("shape")
        .and_then(Value::as_array)
        .ok_or("it has no shape")?
        .iter()
        .map(|d| d.as_u64().map(|d| d as usize).ok_or("its shape holds a non-count"))
        .collect::<Result<_, _>>()?;
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).unwrap_or(usize::MAX);
    if count > MAX_BINDINGS {
        return Err(format!("its shape {shape:?} has more than {MAX_BINDINGS} elements"));
    }
    let given = item.get("samplex_arguments").and_then(Value::as_object).ok_or("it has no samplex_arguments")?;
    if let Some(unknown) = given.keys().find(|k| samplex.inputs.iter().all(|i| &i.name != *k)) {
        return Err(format!(
            "samplex argument `{}` is not one of its samplex's inputs",
            qchess_core::text::excerpt(unknown)
        ));
    }
    // Each input's elements (the argument's leading axes), and their shape.
    let mut arguments = Vec::new();
    let mut leading_shape: Vec<usize> = Vec::new();
    for input in &samplex.inputs {
        let value = given.get(&input.name).ok_or(format!("samplex argument `{}` is missing", input.name))?;
        if value.get("data").is_none() {
            return Err(format!("samplex argument `{}` is not a tensor (noise maps are not run)", input.name));
        }
        let tensor = tensor::reals(value, false).map_err(|e| format!("samplex argument `{}`: {e}", input.name))?;
        let split =
            tensor.shape.len().checked_sub(input.intrinsic.len()).filter(|&s| tensor.shape[s..] == input.intrinsic[..]);
        let split = split.ok_or(format!(
            "samplex argument `{}` has shape {:?}, not [..., {:?}]",
            input.name, tensor.shape, input.intrinsic
        ))?;
        let leading = tensor.shape[..split].to_vec();
        leading_shape = broadcast(&leading_shape, &leading)
            .ok_or(format!("samplex argument `{}` does not broadcast", input.name))?;
        arguments.push((input, leading, tensor));
    }
    if broadcast(&shape, &leading_shape).as_deref() != Some(&shape[..]) {
        return Err(format!("its shape {shape:?} does not extend its arguments' shape {leading_shape:?}"));
    }
    let mut rows = Vec::with_capacity(count);
    for flat in 0..count {
        let mut element: BTreeMap<&str, &[f64]> = BTreeMap::new();
        for (input, leading, tensor) in &arguments {
            let width: usize = input.intrinsic.iter().product();
            let position = broadcast_index(leading, &shape, flat);
            element.insert(input.name.as_str(), &tensor.data[position * width..(position + 1) * width]);
        }
        rows.push(samplex.template_values(&element)?);
    }
    check_bindings(count, &rows)?;
    Ok((Bindings { shape, rows }, (samplex.flips, samplex.twirled)))
}

/// Checks an executor job's `params` against the device.
pub fn prepare(params: &Value, target: &Target) -> Result<Program, String> {
    match params.get("schema_version").and_then(Value::as_str) {
        Some(SCHEMA_VERSION) => {}
        other => {
            return Err(format!(
                "params.schema_version {other:?} is not read; this stand-in reads the executor's {SCHEMA_VERSION}"
            ));
        }
    }
    let program = params.get("quantum_program").ok_or("params.quantum_program is missing")?;
    let shots = program.get("shots").and_then(Value::as_u64).ok_or("quantum_program.shots is not a whole number")?;
    if !(1..=MAX_SHOTS).contains(&shots) {
        return Err(format!("quantum_program.shots is {shots}; 1 to {MAX_SHOTS} are allowed"));
    }
    match program.get("meas_level").and_then(Value::as_str).unwrap_or("classified") {
        "classified" => {}
        other => {
            return Err(format!(
                "quantum_program.meas_level `{}` is not produced; this stand-in returns classified bits only",
                qchess_core::text::excerpt(other)
            ));
        }
    }
    let circuits = circuits(program.get("circuits").ok_or("quantum_program.circuits is missing")?)?;
    let items = program.get("items").and_then(Value::as_array).ok_or("quantum_program.items is not a list")?;
    if items.len() != circuits.len() {
        return Err(format!("quantum_program has {} items for {} circuits", items.len(), circuits.len()));
    }
    let mut pubs = Vec::with_capacity(items.len());
    let mut flips = Vec::with_capacity(items.len());
    let mut twirled = false;
    let mut total_shots = 0u64;
    for (index, (item, circuit)) in items.iter().zip(circuits).enumerate() {
        let parameters = circuit.parameters.len();
        let (bindings, (item_flips, item_twirled)) = match item.get("item_type").and_then(Value::as_str) {
            Some("circuit") => circuit_bindings(item, parameters).map(|b| (b, (Vec::new(), false))),
            Some("samplex") => samplex_bindings(item, parameters),
            other => Err(format!("item_type {other:?} is neither `circuit` nor `samplex`")),
        }
        .map_err(|e| format!("quantum_program.items[{index}]: {e}"))?;
        flips.push(item_flips);
        twirled |= item_twirled;
        let circuit = PubCircuit::Qpy(Box::new(circuit));
        bound::check_first(&circuit, &bindings, target, MAX_PROGRAM_CLBITS)
            .map_err(|e| format!("quantum_program.items[{index}]: {e}"))?;
        total_shots = total_shots.saturating_add(shots.saturating_mul(bindings.rows.len() as u64));
        pubs.push(SamplerPub { circuit, bindings, shots });
    }
    if total_shots > MAX_JOB_SHOTS {
        return Err(format!(
            "the program asks for {total_shots} shots in all; this stand-in runs at most {MAX_JOB_SHOTS} per job"
        ));
    }
    let mut ignored_options = ignored_options(params.get("options"));
    if twirled {
        ignored_options.push("twirling (identity twirls drawn)".to_string());
    }
    Ok(Program {
        items: pubs,
        flips,
        passthrough: program.get("passthrough_data").cloned().unwrap_or(Value::Null),
        semantic_role: program.get("semantic_role").cloned().unwrap_or(Value::Null),
        ignored_options,
    })
}

/// A register's bits in every shot of every binding, as a boolean tensor.
fn register_tensor(item: &SamplerPub, register: &isa::Register, shots: &[Vec<sampler::Words>]) -> Value {
    let bit = |words: &[u128], i: u32| words.get(i as usize / 128).is_some_and(|w| (w >> (i % 128)) & 1 == 1);
    let bits: Vec<bool> = shots
        .iter()
        .flatten()
        .flat_map(|words| (register.start..register.start + register.len).map(move |i| bit(words, i)))
        .collect();
    let mut shape = item.bindings.shape.clone();
    shape.extend([item.shots as usize, register.len as usize]);
    tensor::encode_bools(&shape, &bits)
}

/// Runs every item and writes the result body (`QuantumProgramResult`, schema v2.0).
pub fn run(
    program: &Program,
    target: &Target,
    calibration: Option<&Calibration>,
    rng: &mut ChaCha8Rng,
    stop: &Stop,
    stand_in: Value,
) -> Result<Value, PubError> {
    let mut data = Vec::with_capacity(program.items.len());
    let mut chunks = Vec::with_capacity(program.items.len());
    for (index, item) in program.items.iter().enumerate() {
        let started = now();
        let (registers, shots) = sampler::run_words(item, target, calibration, rng, stop).map_err(|e| match e {
            PubError::Invalid(reason) => PubError::Invalid(format!("quantum_program.items[{index}]: {reason}")),
            stopped => stopped,
        })?;
        let mut results: serde_json::Map<String, Value> =
            registers.iter().map(|r| (r.name.clone(), register_tensor(item, r, &shots))).collect();
        for (name, element_shape) in &program.flips[index] {
            let mut shape = item.bindings.shape.clone();
            shape.extend(element_shape);
            let count = shape.iter().product();
            results.insert(name.clone(), tensor::encode_bools(&shape, &vec![false; count]));
        }
        data.push(json!({ "results": results, "metadata": { "scheduler_timing": null, "stretch_values": null } }));
        let size = item.bindings.rows.len();
        chunks.push(json!({
            "start": iso_time(started),
            "stop": iso_time(now()),
            "parts": [{
                "idx_item": index,
                "size": size,
                "permutation": (0..item.bindings.shape.len()).collect::<Vec<_>>(),
                "element_range": [0, size, 1],
            }],
        }));
    }
    Ok(json!({
        "schema_version": SCHEMA_VERSION,
        "data": data,
        "metadata": { "chunk_timing": chunks, "stand_in": stand_in },
        "passthrough_data": program.passthrough,
        "semantic_role": program.semantic_role,
    }))
}

#[cfg(test)]
mod tests;
