//! A samplex's nodes as its JSON writes them (node types `N0` to `N15`, registers and arrays
//! nested as JSON text), read into [`Node`]s.

use std::collections::BTreeMap;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;

use super::super::tensor;
use super::super::u2::{Rotation, Synth, U2};

/// The most nodes a samplex may have.
pub(super) const MAX_NODES: usize = 100_000;

/// A node, read.
#[derive(Debug, Clone)]
pub(super) enum Node {
    ChangeBasis {
        register: String,
        actions: BTreeMap<i64, U2>,
        basis: String,
        subsystems: usize,
    },
    Collect {
        register: String,
        subsystems: Vec<usize>,
        template: Vec<usize>,
        synth: Synth,
    },
    Combine {
        output: String,
        subsystems: usize,
        operands: Vec<(String, Vec<usize>, Vec<usize>)>,
    },
    Multiply {
        register: String,
        operand: Vec<U2>,
        left: bool,
    },
    Slice {
        input: String,
        output: String,
        selection: Selection,
    },
    Rotate {
        register: String,
        rotation: Rotation,
        expressions: Vec<usize>,
        left: bool,
    },
    /// Twirling gates drawn as the identity, into both registers.
    Twirl {
        registers: [String; 2],
        subsystems: usize,
    },
    /// A register under another name (its type changed; the identity stays the identity).
    Convert {
        from: String,
        to: String,
    },
    /// Nothing to do: twirling gates propagated or flips collected, all identities.
    Identity,
}

/// The subsystems a slice takes: listed, or a Python slice resolved against the register.
#[derive(Debug, Clone)]
pub(super) enum Selection {
    Listed(Vec<usize>),
    Slice { start: Option<i64>, stop: Option<i64>, step: i64 },
}

impl Selection {
    /// The indices, as Python's `slice.indices(len)` gives them.
    pub(super) fn indices(&self, len: usize) -> Vec<usize> {
        let (start, stop, step) = match self {
            Selection::Listed(indices) => return indices.clone(),
            Selection::Slice { start, stop, step } => (*start, *stop, *step),
        };
        let len = len as i64;
        let (lower, upper) = if step > 0 { (0, len) } else { (-1, len - 1) };
        let clamp = |bound: Option<i64>, default: i64| {
            bound.map_or(default, |b| if b < 0 { (b + len).max(lower) } else { b.min(upper) })
        };
        let (mut at, stop) = if step > 0 {
            (clamp(start, lower), clamp(stop, upper))
        } else {
            (clamp(start, upper), clamp(stop, lower))
        };
        let mut out = Vec::new();
        while (step > 0 && at < stop) || (step < 0 && at > stop) {
            out.push(at as usize);
            at += step;
        }
        out
    }
}

/// What the nodes the stand-in does not run do, for the refusal.
fn unsupported(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "N5" => "injects noise (PEC or PEA)",
        "N14" => "samples from a noise distribution",
        _ => return None,
    })
}

/// JSON held as text inside JSON, as the samplex writer nests it.
pub(super) fn nested(value: Option<&Value>, what: &str) -> Result<Value, String> {
    let text = value.and_then(Value::as_str).ok_or_else(|| format!("it has no `{what}` text"))?;
    serde_json::from_str(text).map_err(|e| format!("its `{what}` is not JSON ({e})"))
}

fn text<'a>(data: &'a Value, key: &str) -> Result<&'a str, String> {
    data.get(key).and_then(Value::as_str).ok_or_else(|| format!("it has no `{key}`"))
}

fn count(data: &Value, key: &str) -> Result<usize, String> {
    text(data, key)?.parse().map_err(|_| format!("its `{key}` is not a count"))
}

fn indices(array: &Value) -> Result<Vec<usize>, String> {
    let tensor = tensor::integers(array, true)?;
    tensor.data.into_iter().map(|i| usize::try_from(i).map_err(|_| format!("index {i} is negative"))).collect()
}

/// A U2 register's gates (shape `[subsystems, 1, 2, 2]`, one sample).
fn gates(array: &Value) -> Result<Vec<U2>, String> {
    let tensor = tensor::complexes(array, true)?;
    if tensor.shape.len() != 4 || tensor.shape[1] != 1 || tensor.shape[2..] != [2, 2] {
        return Err(format!("a U2 register of shape {:?}, not [n, 1, 2, 2]", tensor.shape));
    }
    Ok(tensor.data.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]).collect())
}

/// The `u2` register of a serialized register (`{"type": "u2", "array"}` or `{"id": "V1", ...}`).
fn u2_register(value: &Value) -> Result<Vec<U2>, String> {
    let kind = value.get("type").or_else(|| value.get("id")).and_then(Value::as_str).unwrap_or("");
    if !matches!(kind, "u2" | "V1") {
        return Err(format!("a `{}` register where a U2 register is wanted", qchess_core::text::excerpt(kind)));
    }
    gates(&nested(value.get("array"), "array")?)
}

/// A JSON object's entries in the order written (the order of a combination's operands is the
/// order of multiplication).
struct Ordered(Vec<(String, Value)>);

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Ordered, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Ordered(entries))
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

pub(super) fn node(data: &Value) -> Result<Node, String> {
    let kind = text(data, "id")?;
    if let Some(what) = unsupported(kind) {
        return Err(format!(
            "its node {kind} {what}, which this stand-in does not run; turn twirling and noise-shaping \
             mitigation off (the Estimator's resilience_level 0, the Sampler's twirling options)"
        ));
    }
    let register = || text(data, "register_name").map(str::to_owned);
    Ok(match kind {
        "N0" => {
            let change = nested(data.get("basis_change"), "basis_change")?;
            let alphabet = change.get("alphabet").and_then(Value::as_array).ok_or("its basis has no alphabet")?;
            let action = u2_register(&nested(change.get("action"), "action")?)?;
            if alphabet.len() != action.len() {
                return Err(format!("its basis has {} symbols for {} gates", alphabet.len(), action.len()));
            }
            let symbols = alphabet.iter().map(|s| s.as_i64().ok_or("a basis symbol is not an integer"));
            let actions = symbols.zip(action).map(|(s, g)| s.map(|s| (s, g))).collect::<Result<_, _>>()?;
            Node::ChangeBasis {
                register: register()?,
                actions,
                basis: text(data, "basis_ref")?.to_owned(),
                subsystems: count(data, "num_subsystems")?,
            }
        }
        "N1" => {
            if text(data, "register_type")? != "u2" {
                return Err("it collects a register that is not U2".into());
            }
            let synth = match text(data, "synth")? {
                "RzSxSynth" => Synth::RzSx,
                "RzRxSynth" => Synth::RzRx,
                other => return Err(format!("synthesizer `{}` is not run", qchess_core::text::excerpt(other))),
            };
            if text(data, "template_param_names")? != "parameter_values" {
                return Err("it collects into an output other than `parameter_values`".into());
            }
            let subsystems = indices(&nested(data.get("subsystem_idxs"), "subsystem_idxs")?)?;
            let template = indices(&nested(data.get("template_idxs"), "template_idxs")?)?;
            if template.len() != 3 * subsystems.len() {
                return Err(format!("{} template angles for {} qubits", template.len(), subsystems.len()));
            }
            Node::Collect { register: register()?, subsystems, template, synth }
        }
        "N3" => {
            let Ordered(entries) = serde_json::from_str(text(data, "operands")?)
                .map_err(|e| format!("its operands are not a JSON object ({e})"))?;
            let mut operands = Vec::new();
            for (name, parts) in entries {
                let parts = parts.as_array().filter(|p| p.len() == 3).ok_or("an operand is not [from, to, type]")?;
                let array = |part: &Value| nested(part.get("array"), "array").and_then(|a| indices(&a));
                let (from, to) = (array(&parts[0])?, array(&parts[1])?);
                if from.len() != to.len() || parts[2].get("type").and_then(Value::as_str).is_none() {
                    return Err(format!("operand `{name}` is not a typed register of matching indices"));
                }
                operands.push((name, from, to));
            }
            Node::Combine {
                output: text(data, "output_register_name")?.to_owned(),
                subsystems: count(data, "num_output_subsystems")?,
                operands,
            }
        }
        "N6" | "N7" => Node::Multiply {
            register: register()?,
            operand: u2_register(&nested(data.get("operand"), "operand")?)?,
            left: kind == "N6",
        },
        "N9" => {
            let written = text(data, "slice_idxs")?;
            let selection = if text(data, "is_slice")? == "true" {
                let bounds: (Option<i64>, Option<i64>, Option<i64>) =
                    serde_json::from_str(written).map_err(|e| format!("its slice is not [start, stop, step] ({e})"))?;
                slice(bounds)?
            } else {
                Selection::Listed(indices(&nested(data.get("slice_idxs"), "slice_idxs")?)?)
            };
            Node::Slice {
                input: text(data, "input_register_name")?.to_owned(),
                output: text(data, "output_register_name")?.to_owned(),
                selection,
            }
        }
        "N11" | "N12" => Node::Rotate {
            register: register()?,
            rotation: match text(data, "operand")? {
                "rz" => Rotation::Z,
                "rx" => Rotation::X,
                other => return Err(format!("a fractional `{}` gate is not run", qchess_core::text::excerpt(other))),
            },
            expressions: serde_json::from_str(text(data, "param_indices")?)
                .map_err(|e| format!("its parameter indices are not a list ({e})"))?,
            left: kind == "N11",
        },
        "N10" => {
            let distribution = nested(data.get("distribution"), "distribution")?;
            let subsystems = distribution
                .get("num_subsystems")
                .and_then(Value::as_u64)
                .ok_or("its distribution has no subsystem count")? as usize;
            let name = |key: &str| text(data, key).map(str::to_owned);
            Node::Twirl { registers: [name("lhs_register_name")?, name("rhs_register_name")?], subsystems }
        }
        "N4" => Node::Convert { from: text(data, "existing_name")?.to_owned(), to: text(data, "new_name")?.to_owned() },
        "N2" | "N8" | "N13" | "N15" => Node::Identity,
        other => return Err(format!("node type `{}` is not known", qchess_core::text::excerpt(other))),
    })
}

/// A `slice(start, stop, step)` (a zero step is refused, as Python refuses it).
fn slice((start, stop, step): (Option<i64>, Option<i64>, Option<i64>)) -> Result<Selection, String> {
    let step = step.unwrap_or(1);
    if step == 0 || [start, stop].iter().flatten().any(|b| b.unsigned_abs() > MAX_NODES as u64) {
        return Err(format!("slice ({start:?}, {stop:?}, {step}) is not a run of subsystems"));
    }
    Ok(Selection::Slice { start, stop, step })
}
