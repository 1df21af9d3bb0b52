//! Samplexes as `qiskit-ibm-runtime`'s client-side Estimator and Sampler build them: graphs that
//! turn a template circuit's parameters into the gates of one measurement basis, with the
//! circuit's own one-qubit gates folded in, and with twirling gates sampled around its layers.
//!
//! A samplex is a graph of nodes over "virtual registers" (one gate per qubit). Read and run:
//! changing basis (`N0`), collecting template angles (`N1`, by the `RzSx` or `RzRx`
//! synthesizer), combining registers (`N3`), multiplying by fixed gates (`N6` left, `N7` right),
//! slicing (`N9`), multiplying by `rz`/`rx` of evaluated parameter expressions (`N11` left,
//! `N12` right), the parameter-expression table and the parameters passed straight through.
//!
//! Twirling is not applied: its sampling nodes (`N10`) draw the identity, so the nodes that
//! convert (`N4`) and propagate twirling gates past Clifford gates (`N8`, `N13`, `N15`) leave it
//! the identity, and the measurement flips collected (`N2`) are all 0. The template circuit then
//! equals the circuit without twirling, and [`Samplex::twirled`] says so, for the result's list
//! of what was ignored. Nodes that inject noise (`N5`, PEC and PEA) or sample other
//! distributions (`N14`) are refused at submission, naming the node: they change what the
//! client computes from the results.

mod nodes;

use std::collections::BTreeMap;

use qchess_qasm::program::Operation;
use qchess_qasm::qpy::QpyCircuit;
use serde_json::Value;

use self::nodes::{MAX_NODES, Node, nested, node};
use super::u2::{self, IDENTITY, U2};
use crate::ibm::runtime;

/// An input the samplex takes: its name and the shape of one element.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The name (`parameter_values`, `basis_changes.basis0`).
    pub name: String,
    /// The shape of one element (the trailing axes of the argument).
    pub intrinsic: Vec<usize>,
}

/// A samplex this stand-in runs.
#[derive(Debug, Clone)]
pub struct Samplex {
    /// Its inputs.
    pub inputs: Vec<Input>,
    /// The template circuit's parameter count.
    pub template_parameters: usize,
    /// The measurement-flip outputs and the shape of one randomization's (all 0: no twirl is
    /// drawn).
    pub flips: Vec<(String, Vec<usize>)>,
    /// Whether it twirls (the twirls drawn are identities).
    pub twirled: bool,
    expressions: Option<QpyCircuit>,
    passthrough: Vec<(usize, usize)>,
    nodes: Vec<Node>,
}

/// The nodes in an order where each comes after those linked into it.
fn ordered(nodes: Vec<(u64, Node)>, links: &[(u64, u64)]) -> Result<Vec<Node>, String> {
    let mut incoming: BTreeMap<u64, usize> = nodes.iter().map(|(id, _)| (*id, 0)).collect();
    for (_, target) in links {
        *incoming.get_mut(target).ok_or(format!("a link into node {target}, which is not there"))? += 1;
    }
    let mut by_id: BTreeMap<u64, Node> = nodes.into_iter().collect();
    let mut order = Vec::with_capacity(by_id.len());
    while let Some(&ready) = incoming.iter().find(|(_, n)| **n == 0).map(|(id, _)| id) {
        incoming.remove(&ready);
        for (source, target) in links {
            if *source == ready {
                incoming.entry(*target).and_modify(|n| *n -= 1);
            }
        }
        order.extend(by_id.remove(&ready));
    }
    if !incoming.is_empty() {
        return Err("its graph has a cycle".into());
    }
    Ok(order)
}

fn input_specs(spec: &Value) -> Result<Vec<Input>, String> {
    let map = spec.as_object().ok_or("its input specification is not an object")?;
    map.iter()
        .map(|(name, inner)| {
            let inner = nested(Some(inner), name)?;
            let shape = inner.get("shape").and_then(Value::as_array).ok_or(format!("input `{name}` has no shape"))?;
            let intrinsic = shape
                .iter()
                .map(|d| d.as_u64().map(|d| d as usize).ok_or(format!("input `{name}` has a shape of non-counts")))
                .collect::<Result<_, _>>()?;
            Ok(Input { name: name.clone(), intrinsic })
        })
        .collect()
}

/// Reads a samplex as the executor program carries it (`{"ssv", "samplex_json"}`).
pub fn read(value: &Value) -> Result<Samplex, String> {
    let graph = nested(value.get("samplex_json"), "samplex_json")?;
    let attrs = graph.get("attrs").ok_or("its graph has no attributes")?;
    let inputs = input_specs(&nested(attrs.get("input_specification"), "input_specification")?)?;
    let outputs = nested(attrs.get("output_specification"), "output_specification")?;
    let outputs = outputs.as_object().ok_or("its output specification is not an object")?;
    let mut flips = Vec::new();
    for (name, spec) in outputs {
        if name == "parameter_values" {
            continue;
        }
        if !name.starts_with("measurement_flips.") {
            return Err(format!(
                "it writes output `{}`, which this stand-in does not produce",
                qchess_core::text::excerpt(name)
            ));
        }
        let spec = nested(Some(spec), name)?;
        // The shape after the randomizations' axis: the flips of one randomization.
        let shape = spec.get("shape").and_then(Value::as_array).map(|s| s.iter().skip(1).map(Value::as_u64).collect());
        let shape: Vec<usize> = shape
            .and_then(|s: Option<Vec<u64>>| s)
            .ok_or(format!("output `{name}` has no shape of counts after its randomizations"))?
            .into_iter()
            .map(|d| d as usize)
            .collect();
        flips.push((name.clone(), shape));
    }
    let parameter_values = nested(outputs.get("parameter_values"), "parameter_values")?;
    let template_parameters = parameter_values
        .pointer("/shape/1")
        .and_then(Value::as_u64)
        .ok_or("its `parameter_values` output has no parameter count")? as usize;
    let table = nested(attrs.get("param_table"), "param_table")?;
    let expressions = match table.get("circuit_base64").and_then(Value::as_str) {
        None => None,
        Some(text) => {
            let bytes = runtime::decode_bytes(text, false).map_err(|e| format!("its parameter table is {e}"))?;
            let mut circuits = qchess_qasm::qpy::read(&bytes).map_err(|e| format!("its parameter table: {e}"))?;
            (circuits.len() == 1).then(|| circuits.remove(0))
        }
    };
    let passthrough: Option<(Vec<usize>, Vec<usize>)> = serde_json::from_str::<Option<_>>(
        attrs.get("passthrough_params").and_then(Value::as_str).unwrap_or("None").replace("None", "null").as_str(),
    )
    .map_err(|e| format!("its passthrough parameters are not two index lists ({e})"))?;
    let passthrough = passthrough.map_or(Vec::new(), |(to, from)| to.into_iter().zip(from).collect());
    let nodes = graph.get("nodes").and_then(Value::as_array).ok_or("its graph has no nodes")?;
    if nodes.len() > MAX_NODES {
        return Err(format!("its graph has {} nodes (at most {MAX_NODES})", nodes.len()));
    }
    let nodes = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let id = n.get("id").and_then(Value::as_u64).ok_or(format!("node {i} has no id"))?;
            let data = n.get("data").ok_or(format!("node {id} has no data"))?;
            node(data).map(|node| (id, node)).map_err(|e| format!("node {id}: {e}"))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let links = graph.get("links").and_then(Value::as_array).ok_or("its graph has no links")?;
    let links = links
        .iter()
        .map(|l| Some((l.get("source")?.as_u64()?, l.get("target")?.as_u64()?)))
        .collect::<Option<Vec<_>>>()
        .ok_or("a link lacks its source or target")?;
    let nodes = ordered(nodes, &links)?;
    let twirled = nodes.iter().any(|n| matches!(n, Node::Twirl { .. }));
    Ok(Samplex { inputs, template_parameters, flips, twirled, expressions, passthrough, nodes })
}

impl Samplex {
    /// The template's parameter values for one element of the inputs (each input's values for
    /// that element, by name).
    pub fn template_values(&self, inputs: &BTreeMap<&str, &[f64]>) -> Result<Vec<f64>, String> {
        let evaluated = self.evaluate_expressions(inputs.get("parameter_values").copied().unwrap_or(&[]))?;
        let expression =
            |i: usize| evaluated.get(i).copied().ok_or(format!("parameter expression {i} is not in its table"));
        let mut values = vec![f64::NAN; self.template_parameters];
        for &(to, from) in &self.passthrough {
            *values.get_mut(to).ok_or(format!("template parameter {to} is out of range"))? = expression(from)?;
        }
        let mut registers: BTreeMap<&str, Vec<U2>> = BTreeMap::new();
        let register = |registers: &BTreeMap<&str, Vec<U2>>, name: &str| {
            registers.get(name).cloned().ok_or_else(|| format!("register `{name}` is read before it is written"))
        };
        for node in &self.nodes {
            match node {
                Node::ChangeBasis { register: name, actions, basis, subsystems } => {
                    let symbols = inputs.get(basis.as_str()).ok_or(format!("input `{basis}` is missing"))?;
                    if symbols.len() != *subsystems {
                        return Err(format!("input `{basis}` gives {} qubits' bases, not {subsystems}", symbols.len()));
                    }
                    let gates = symbols
                        .iter()
                        .map(|s| {
                            actions
                                .get(&(*s as i64))
                                .copied()
                                .ok_or(format!("basis symbol {s} is not in `{basis}`'s alphabet"))
                        })
                        .collect::<Result<_, _>>()?;
                    registers.insert(name, gates);
                }
                Node::Slice { input, output, selection } => {
                    let source = register(&registers, input)?;
                    let gates = selection
                        .indices(source.len())
                        .into_iter()
                        .map(|i| source.get(i).copied().ok_or(format!("slice index {i} is past `{input}`")));
                    registers.insert(output, gates.collect::<Result<_, _>>()?);
                }
                Node::Multiply { register: name, operand, left } => {
                    let gates = registers
                        .get_mut(name.as_str())
                        .ok_or(format!("register `{name}` is multiplied before it is written"))?;
                    multiply(gates, operand, *left, name)?;
                }
                Node::Rotate { register: name, rotation, expressions, left } => {
                    let operand = expressions
                        .iter()
                        .map(|&e| expression(e).map(|t| rotation.gate(t)))
                        .collect::<Result<Vec<_>, _>>()?;
                    let gates = registers
                        .get_mut(name.as_str())
                        .ok_or(format!("register `{name}` is rotated before it is written"))?;
                    multiply(gates, &operand, *left, name)?;
                }
                Node::Combine { output, subsystems, operands } => {
                    let mut combined = vec![IDENTITY; *subsystems];
                    let mut written = vec![false; *subsystems];
                    for (name, from, to) in operands {
                        let source = register(&registers, name)?;
                        // An operand whose targets none before it wrote sets them; otherwise it multiplies.
                        let sets = to.iter().all(|&t| !written.get(t).copied().unwrap_or(false));
                        for (&f, &t) in from.iter().zip(to) {
                            let gate = source.get(f).ok_or(format!("index {f} is past `{name}`"))?;
                            let slot = combined.get_mut(t).ok_or(format!("index {t} is past the combined register"))?;
                            *slot = if sets { *gate } else { u2::product(slot, gate) };
                            written[t] = true;
                        }
                    }
                    registers.insert(output, combined);
                }
                Node::Twirl { registers: names, subsystems } => {
                    for name in names {
                        registers.insert(name, vec![IDENTITY; *subsystems]);
                    }
                }
                Node::Convert { from, to } => {
                    let source = register(&registers, from)?;
                    registers.insert(to, source);
                }
                Node::Identity => {}
                Node::Collect { register: name, subsystems, template, synth } => {
                    let source = register(&registers, name)?;
                    for (k, &s) in subsystems.iter().enumerate() {
                        let gate = source.get(s).ok_or(format!("qubit {s} is past `{name}`"))?;
                        // The samplex hands angles over in single precision.
                        for (j, angle) in synth.angles(gate).into_iter().enumerate() {
                            let slot = values.get_mut(template[3 * k + j]).ok_or("a template index is out of range")?;
                            *slot = f64::from(angle as f32);
                        }
                    }
                }
            }
        }
        match values.iter().position(|v| v.is_nan()) {
            Some(missing) => Err(format!("template parameter {missing} is given no value")),
            None => Ok(values),
        }
    }

    /// The parameter-expression table's values for `parameters`.
    fn evaluate_expressions(&self, parameters: &[f64]) -> Result<Vec<f64>, String> {
        let Some(table) = &self.expressions else { return Ok(Vec::new()) };
        let program = table.bind(parameters).map_err(|e| format!("its parameter table: {e}"))?;
        program
            .body
            .iter()
            .map(|instruction| match &instruction.operation {
                Operation::Gate(call) if call.params.len() == 1 => Ok(call.params[0]),
                _ => Err("its parameter table holds something other than one-angle gates".to_string()),
            })
            .collect()
    }
}

fn multiply(gates: &mut [U2], operand: &[U2], left: bool, name: &str) -> Result<(), String> {
    if operand.len() != gates.len() && operand.len() != 1 {
        return Err(format!("{} gates multiply register `{name}` of {} qubits", operand.len(), gates.len()));
    }
    // One gate multiplies every qubit, as NumPy broadcasts it.
    for (gate, factor) in gates.iter_mut().zip(operand.iter().cycle()) {
        *gate = if left { u2::product(factor, gate) } else { u2::product(gate, factor) };
    }
    Ok(())
}
