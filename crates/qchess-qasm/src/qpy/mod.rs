//! QPY, Qiskit's binary circuit format, as `qiskit-ibm-runtime` sends circuits: QPY versions
//! 13 to 17 from its server-side primitives, version 18 (Qiskit 2.6's newest) from its
//! client-side ones (the `executor` program). The format is published in the documentation of
//! `qiskit.qpy`.
//!
//! [`read`] gives each circuit of a payload as a [`QpyCircuit`]: its parameters in Qiskit's
//! order (`QuantumCircuit.parameters`: by name, a vector's elements by index after a
//! parameter of the same name) and, once [`bound`](QpyCircuit::bind) to values, a
//! [`Program`] over Qiskit's standard gates ([`GateLibrary::Qiskit`]), named as Qiskit names
//! them (`rz`, `sx`, `ecr`, ...).
//!
//! What is read: the file header and circuit table, circuit headers, registers, annotations
//! (skipped), standard gates with real parameters, `Parameter`s, `ParameterVector` elements and
//! `ParameterExpression`s (the replay format), `measure`, `reset`, `barrier`, `delay`, global
//! phases, layouts (skipped), and `if_else` on a bit or a register compared with a constant
//! (tuple conditions and simple expressions), with both branches. Everything else (custom
//! gates, loops, `switch`, classical variables, pulse calibrations, other QPY versions) is an
//! [`QpyError::Unsupported`] naming it and the instruction; damaged bytes are
//! [`QpyError::Truncated`] or [`QpyError::Malformed`] with the byte offset. Nothing panics.
//!
//! Version 18 differs from 17 where this reader reads it: no calibrations field; integer and
//! real instruction parameters big-endian (little-endian before); each circuit payload, and
//! each control-flow block in it, has a `PARAMETER_VECTOR_TABLE` after its annotation headers
//! whose vectors the elements refer to by index (an element's UUID is its vector's plus its
//! index); tagged `REGISTER` payloads (a tag byte, then a clbit's `u32` index or a register's
//! name) in conditions and `R` parameters; registers with a `register_attachment` byte and
//! `u32` bit indices (`u32::MAX`: not in the circuit; a register of consecutive bits stores
//! only its first), ancilla registers typed `a`, in circuits and layouts alike. Its other
//! change, `u8` bit terms of `SparseObservable`s, is inside `PauliEvolutionGate` definitions,
//! which are skipped whole as custom gates.

mod bytes;
mod circuit;
mod conditions;
mod registers;
mod values;

use qchess_circuit::ir::ClassicalRegister;

use self::bytes::Bytes;
use self::circuit::{RawCircuit, RawInstruction, read_circuit};
use self::conditions::{Condition, Target};
use self::values::{ParamExpr, Symbols, Value};
use crate::program::{BitTest, Duration, GateCall, GateLibrary, Instruction, Modifier, Operation, Origin, Program};

/// The QPY versions read.
pub const VERSIONS: std::ops::RangeInclusive<u8> = 13..=18;

/// Why a QPY payload was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QpyError {
    /// The bytes end before a field.
    #[error("the payload ends at byte {offset}, inside the {field} ({wanted} bytes wanted, {left} left)")]
    Truncated {
        /// Where the field starts.
        offset: usize,
        /// Which field.
        field: &'static str,
        /// Bytes the field needs.
        wanted: u64,
        /// Bytes that were left.
        left: u64,
    },
    /// Not a QPY payload, or one of a version not read.
    #[error("{0}")]
    Header(String),
    /// A value that breaks the format.
    #[error("{}{what}", prefix(at))]
    Malformed {
        /// Where (an instruction, a byte offset).
        at: String,
        /// What is wrong.
        what: String,
    },
    /// A feature of the format this reader does not support.
    #[error("{}{what} is not supported", prefix(at))]
    Unsupported {
        /// Where (an instruction).
        at: String,
        /// The feature.
        what: String,
    },
}

fn prefix(at: &str) -> String {
    if at.is_empty() { String::new() } else { format!("{at}: ") }
}

impl QpyError {
    /// The error placed inside `place` (`instruction 3`), outermost first.
    pub fn within(self, place: impl Into<String>) -> QpyError {
        let place = place.into();
        let join = |at: String| if at.is_empty() { place.clone() } else { format!("{place}, {at}") };
        match self {
            QpyError::Malformed { at, what } => QpyError::Malformed { at: join(at), what },
            QpyError::Unsupported { at, what } => QpyError::Unsupported { at: join(at), what },
            QpyError::Truncated { .. } | QpyError::Header(_) => self,
        }
    }
}

/// A circuit read from QPY, before its parameters are bound.
#[derive(Debug, Clone)]
pub struct QpyCircuit {
    /// The circuit's name.
    pub name: String,
    /// Its parameters' names, in Qiskit's order: values bind in this order.
    pub parameters: Vec<String>,
    raw: RawCircuit,
    /// Each parameter's index among the payload's symbols.
    order: Vec<usize>,
    symbol_count: usize,
}

/// Every circuit of a QPY payload.
pub fn read(payload: &[u8]) -> Result<Vec<QpyCircuit>, QpyError> {
    let mut bytes = Bytes::new(payload);
    if bytes.take(6, "QPY preface").ok() != Some(b"QISKIT".as_slice()) {
        return Err(QpyError::Header("not a QPY payload (it does not start with `QISKIT`)".into()));
    }
    let version = bytes.u8("QPY version")?;
    if !VERSIONS.contains(&version) {
        return Err(QpyError::Header(format!(
            "QPY version {version} is not read; this reads versions {} to {} (what qiskit-ibm-runtime sends with Qiskit 2.6)",
            VERSIONS.start(),
            VERSIONS.end()
        )));
    }
    bytes.take(3, "Qiskit version")?;
    let count = bytes.u64("circuit count")?;
    bytes.u8("symbolic encoding")?;
    match bytes.u8("program type")? {
        b'q' => {}
        other => {
            return Err(QpyError::Header(format!(
                "the payload holds programs of type `{}`, not circuits",
                char::from(other)
            )));
        }
    }
    if version >= 16 {
        bytes.take(count.saturating_mul(8), "circuit table")?;
    }
    let mut circuits = Vec::new();
    for index in 0..count {
        let mut symbols = Symbols::default();
        let raw =
            read_circuit(&mut bytes, version, &mut symbols, 0).map_err(|e| e.within(format!("circuit {index}")))?;
        let mut order: Vec<usize> = (0..symbols.list.len()).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (&symbols.list[a], &symbols.list[b]);
            a.name.cmp(&b.name).then(a.index.map_or(-1, |i| i as i128).cmp(&b.index.map_or(-1, |i| i as i128)))
        });
        let parameters = order.iter().map(|&i| symbols.list[i].display()).collect();
        circuits.push(QpyCircuit { name: raw.name.clone(), parameters, raw, order, symbol_count: symbols.list.len() });
    }
    Ok(circuits)
}

/// A gate's Qiskit class, the name programs use for it, and its parameter count.
const GATES: &[(&str, &str, usize)] = &[
    ("IGate", "id", 0),
    ("XGate", "x", 0),
    ("YGate", "y", 0),
    ("ZGate", "z", 0),
    ("HGate", "h", 0),
    ("SGate", "s", 0),
    ("SdgGate", "sdg", 0),
    ("TGate", "t", 0),
    ("TdgGate", "tdg", 0),
    ("SXGate", "sx", 0),
    ("SXdgGate", "sxdg", 0),
    ("RXGate", "rx", 1),
    ("RYGate", "ry", 1),
    ("RZGate", "rz", 1),
    ("PhaseGate", "p", 1),
    ("U1Gate", "u1", 1),
    ("U2Gate", "u2", 2),
    ("U3Gate", "u3", 3),
    ("UGate", "u", 3),
    ("RGate", "r", 2),
    ("CXGate", "cx", 0),
    ("CYGate", "cy", 0),
    ("CZGate", "cz", 0),
    ("CHGate", "ch", 0),
    ("CSGate", "cs", 0),
    ("CSdgGate", "csdg", 0),
    ("CSXGate", "csx", 0),
    ("CPhaseGate", "cp", 1),
    ("CU1Gate", "cu1", 1),
    ("CU3Gate", "cu3", 3),
    ("CUGate", "cu", 4),
    ("CRXGate", "crx", 1),
    ("CRYGate", "cry", 1),
    ("CRZGate", "crz", 1),
    ("SwapGate", "swap", 0),
    ("iSwapGate", "iswap", 0),
    ("DCXGate", "dcx", 0),
    ("ECRGate", "ecr", 0),
    ("RXXGate", "rxx", 1),
    ("RYYGate", "ryy", 1),
    ("RZZGate", "rzz", 1),
    ("RZXGate", "rzx", 1),
    ("CCXGate", "ccx", 0),
    ("CCZGate", "ccz", 0),
    ("CSwapGate", "cswap", 0),
    ("C3XGate", "c3x", 0),
    ("C4XGate", "c4x", 0),
    ("GlobalPhaseGate", "gphase", 1),
];

/// The gate a controlled class applies to its targets, for open controls (`ctrl_state`).
const CONTROLLED_BASES: &[(&str, &str)] = &[
    ("cx", "x"),
    ("cy", "y"),
    ("cz", "z"),
    ("ch", "h"),
    ("cs", "s"),
    ("csdg", "sdg"),
    ("csx", "sx"),
    ("cp", "p"),
    ("cu1", "p"),
    ("cu3", "u"),
    ("crx", "rx"),
    ("cry", "ry"),
    ("crz", "rz"),
    ("ccx", "x"),
    ("ccz", "z"),
    ("cswap", "swap"),
    ("c3x", "x"),
    ("c4x", "x"),
];

/// Where the instructions of a block go: the outer qubits and bits of its own, the outer
/// registers by name, and the condition it runs under.
struct Scope<'s> {
    qubits: &'s [u32],
    clbits: &'s [u32],
    registers: Vec<(String, Vec<u32>)>,
    condition: Option<BitTest>,
    place: String,
}

impl QpyCircuit {
    /// The program with parameter `i` (in [`parameters`](Self::parameters) order) set to
    /// `values[i]`.
    pub fn bind(&self, values: &[f64]) -> Result<Program, QpyError> {
        if values.len() != self.parameters.len() {
            return Err(QpyError::Malformed {
                at: String::new(),
                what: format!(
                    "{} parameter values for a circuit of {} parameters",
                    values.len(),
                    self.parameters.len()
                ),
            });
        }
        let mut by_symbol = vec![f64::NAN; self.symbol_count];
        for (position, &symbol) in self.order.iter().enumerate() {
            by_symbol[symbol] = values[position];
        }
        let raw = &self.raw;
        let mut program = Program { library: GateLibrary::Qiskit, clbits: raw.num_clbits, ..Program::default() };
        program.qubits = (0..raw.num_qubits).map(|q| format!("q{q}")).collect();
        for register in &raw.qregs {
            for (i, bit) in register.bits.iter().enumerate() {
                if let Some(name) = bit.and_then(|b| program.qubits.get_mut(b as usize)) {
                    *name = format!("{}[{i}]", register.name);
                }
            }
        }
        for register in &raw.cregs {
            let bits: Vec<u32> = register.bits.iter().map(|b| b.unwrap_or(u32::MAX)).collect();
            let start = bits.first().copied().unwrap_or(0);
            if bits.iter().enumerate().any(|(i, &b)| b != start.wrapping_add(i as u32) || b >= raw.num_clbits) {
                return Err(QpyError::Unsupported {
                    at: format!("register `{}`", register.name),
                    what: "a classical register that is not one run of the circuit's bits".into(),
                });
            }
            program.registers.push(ClassicalRegister { name: register.name.clone(), start, len: bits.len() as u32 });
        }
        program.global_phase = real(&raw.global_phase, &by_symbol, "the global phase")?;
        let qubits: Vec<u32> = (0..raw.num_qubits).collect();
        let clbits: Vec<u32> = (0..raw.num_clbits).collect();
        let registers = raw
            .cregs
            .iter()
            .map(|r| (r.name.clone(), r.bits.iter().map(|b| b.unwrap_or(u32::MAX)).collect()))
            .collect();
        let scope = Scope { qubits: &qubits, clbits: &clbits, registers, condition: None, place: String::new() };
        emit(raw, &scope, &by_symbol, &mut program.body)?;
        Ok(program)
    }
}

/// The value of a parameter, which must be finite.
fn real(expr: &ParamExpr, values: &[f64], what: &str) -> Result<f64, QpyError> {
    let value = expr.evaluate(values);
    if value.is_finite() {
        Ok(value)
    } else {
        Err(QpyError::Malformed {
            at: String::new(),
            what: format!("{what} evaluates to {value}, not a finite number"),
        })
    }
}

fn unsupported(what: impl Into<String>) -> QpyError {
    QpyError::Unsupported { at: String::new(), what: what.into() }
}

/// The instructions of `raw` into `out`, mapped through `scope`.
fn emit(raw: &RawCircuit, scope: &Scope, values: &[f64], out: &mut Vec<Instruction>) -> Result<(), QpyError> {
    for (index, instruction) in raw.instructions.iter().enumerate() {
        let place = if scope.place.is_empty() {
            format!("instruction {index}")
        } else {
            format!("{}, instruction {index}", scope.place)
        };
        let described = format!("{place} (`{}`)", instruction.class);
        // Errors from inside a block already carry their whole place, this one included.
        one(raw, instruction, scope, values, &described, out).map_err(|e| match &e {
            QpyError::Malformed { at, .. } | QpyError::Unsupported { at, .. } if at.starts_with(&described) => e,
            _ => e.within(described.clone()),
        })?;
    }
    Ok(())
}

fn one(
    raw: &RawCircuit,
    instruction: &RawInstruction,
    scope: &Scope,
    values: &[f64],
    place: &str,
    out: &mut Vec<Instruction>,
) -> Result<(), QpyError> {
    let qubits: Vec<u32> = instruction.qubits.iter().map(|&q| scope.qubits[q as usize]).collect();
    let clbits: Vec<u32> = instruction.clbits.iter().map(|&c| scope.clbits[c as usize]).collect();
    let origin = Origin::Item(place.to_string());
    let condition = match &instruction.condition {
        None => scope.condition.clone(),
        Some(_) if scope.condition.is_some() => return Err(unsupported("a condition inside a conditional block")),
        Some(condition) => Some(test(condition, scope)?),
    };
    let mut push = |operation: Operation| {
        out.push(Instruction { operation, condition: condition.clone(), origin: origin.clone() })
    };
    let class = instruction.class.as_str();
    match class {
        "Measure" => match (qubits.as_slice(), clbits.as_slice()) {
            ([qubit], [clbit]) => push(Operation::Measure { qubit: *qubit, clbit: Some(*clbit) }),
            _ => return Err(unsupported("a measurement that is not of one qubit into one bit")),
        },
        "Reset" => qubits.iter().for_each(|&qubit| push(Operation::Reset { qubit })),
        "Barrier" => push(Operation::Barrier { qubits }),
        "Delay" => {
            let duration = match instruction.params.first() {
                Some(Value::Real(expr)) => real(expr, values, "the delay")?,
                _ => return Err(unsupported("a delay without a numeric duration")),
            };
            let unit =
                instruction.params.get(1).and_then(|v| if let Value::Text(t) = v { Some(t.as_str()) } else { None });
            let duration = match unit.unwrap_or("dt") {
                "dt" => Duration::Dt(duration),
                "s" => Duration::Seconds(duration),
                "ms" => Duration::Seconds(duration / 1e3),
                "us" => Duration::Seconds(duration / 1e6),
                "ns" => Duration::Seconds(duration / 1e9),
                "ps" => Duration::Seconds(duration / 1e12),
                other => return Err(unsupported(format!("a delay in `{other}`"))),
            };
            push(Operation::Delay { qubits, duration });
        }
        "IfElseOp" => {
            if scope.condition.is_some() {
                return Err(unsupported("an `if_else` inside a conditional block"));
            }
            let Some(test) = condition else {
                return Err(QpyError::Malformed { at: String::new(), what: "an `if_else` without a condition".into() });
            };
            for (branch, block) in instruction.blocks.iter().enumerate() {
                let branch_test =
                    if branch == 0 { test.clone() } else { BitTest { equal: !test.equal, ..test.clone() } };
                let registers = scope.registers.clone();
                let inner = Scope {
                    qubits: &qubits,
                    clbits: &clbits,
                    registers,
                    condition: Some(branch_test),
                    place: format!("{place}, {} block", if branch == 0 { "true" } else { "false" }),
                };
                if block.num_qubits as usize != qubits.len() || block.num_clbits as usize != clbits.len() {
                    return Err(QpyError::Malformed {
                        at: String::new(),
                        what: "a block's qubits or bits do not match its instruction's".into(),
                    });
                }
                emit(block, &inner, values, out)?;
            }
        }
        "WhileLoopOp" | "ForLoopOp" | "SwitchCaseOp" | "BoxOp" | "BreakLoopOp" | "ContinueLoopOp" => {
            return Err(unsupported(format!("control flow `{class}`")));
        }
        _ => {
            let Some(&(_, name, params)) = GATES.iter().find(|(c, ..)| *c == class) else {
                if raw.custom.iter().any(|c| c == class) || matches!(class, "Gate" | "Instruction" | "ControlledGate") {
                    return Err(unsupported(format!(
                        "the custom gate `{class}` (decompose it into standard gates first)"
                    )));
                }
                return Err(unsupported(format!("the instruction `{class}`")));
            };
            let reals = instruction
                .params
                .iter()
                .map(|p| match p {
                    Value::Real(expr) => real(expr, values, "a gate parameter"),
                    _ => Err(unsupported("a gate parameter that is not a number")),
                })
                .collect::<Result<Vec<f64>, QpyError>>()?;
            if reals.len() != params {
                return Err(QpyError::Malformed {
                    at: String::new(),
                    what: format!("`{class}` with {} parameters", reals.len()),
                });
            }
            let controls = instruction.num_ctrl_qubits;
            if controls as usize >= qubits.len().max(1) || controls > 31 {
                return Err(QpyError::Malformed {
                    at: String::new(),
                    what: format!("`{class}` with {controls} controls on {} qubits", qubits.len()),
                });
            }
            let all_on = if controls >= 32 { u32::MAX } else { (1u32 << controls) - 1 };
            let call = if controls == 0 || instruction.ctrl_state == all_on {
                GateCall { name: name.to_string(), params: reals, qubits, modifiers: Vec::new() }
            } else {
                let Some(&(_, base)) = CONTROLLED_BASES.iter().find(|(c, _)| *c == name) else {
                    return Err(unsupported(format!("`{class}` with open controls")));
                };
                let modifiers = (0..controls)
                    .map(|i| Modifier::Ctrl { count: 1, on: instruction.ctrl_state >> i & 1 == 1 })
                    .collect();
                GateCall { name: base.to_string(), params: reals, qubits, modifiers }
            };
            push(Operation::Gate(call));
        }
    }
    Ok(())
}

/// The bit test of a stored condition, over the outer bits.
fn test(condition: &Condition, scope: &Scope) -> Result<BitTest, QpyError> {
    let bits = match &condition.target {
        Target::Clbit(c) => vec![*scope.clbits.get(*c as usize).ok_or_else(|| QpyError::Malformed {
            at: String::new(),
            what: format!("a condition on bit {c}, outside the circuit"),
        })?],
        Target::Register(name) => {
            scope.registers.iter().find(|(n, _)| n == name).map(|(_, bits)| bits.clone()).ok_or_else(|| {
                QpyError::Malformed { at: String::new(), what: format!("a condition on the unknown register `{name}`") }
            })?
        }
    };
    if bits.len() > 64 {
        return Err(unsupported("a condition on more than 64 bits"));
    }
    Ok(BitTest { bits, value: condition.value, equal: condition.equal })
}

#[cfg(test)]
mod tests;
