//! One circuit payload of a QPY file, read as it is stored: header, registers, instructions
//! (with their blocks, read recursively), and the trailing sections skipped.

use super::QpyError;
use super::bytes::Bytes;
use super::conditions::{self, Condition, register_target};
use super::registers::{MAX_BITS, RawRegister, register, skip_layout};
use super::values::{self, Format, ParamExpr, Symbols, Value};

/// How deep control-flow blocks may nest.
const MAX_BLOCK_DEPTH: usize = 16;

/// An instruction as stored.
#[derive(Debug, Clone)]
pub(super) struct RawInstruction {
    /// The class name (`RZGate`, `Measure`, `IfElseOp`) or a custom operation's name.
    pub(super) class: String,
    pub(super) qubits: Vec<u32>,
    pub(super) clbits: Vec<u32>,
    pub(super) params: Vec<Value>,
    pub(super) condition: Option<Condition>,
    pub(super) num_ctrl_qubits: u32,
    pub(super) ctrl_state: u32,
    /// The blocks of a control-flow operation, read from its circuit parameters.
    pub(super) blocks: Vec<RawCircuit>,
}

/// A circuit as stored.
#[derive(Debug, Clone)]
pub(super) struct RawCircuit {
    pub(super) name: String,
    pub(super) num_qubits: u32,
    pub(super) num_clbits: u32,
    /// Quantum registers, in the circuit or not, for names.
    pub(super) qregs: Vec<RawRegister>,
    /// The classical registers in the circuit.
    pub(super) cregs: Vec<RawRegister>,
    pub(super) global_phase: ParamExpr,
    pub(super) instructions: Vec<RawInstruction>,
    /// Names of the custom operations the payload defines.
    pub(super) custom: Vec<String>,
}

fn malformed(bytes: &Bytes, what: impl Into<String>) -> QpyError {
    QpyError::Malformed { at: format!("byte {}", bytes.offset()), what: what.into() }
}

/// Reads one circuit payload of QPY `version`.
pub(super) fn read_circuit(
    bytes: &mut Bytes,
    version: u8,
    symbols: &mut Symbols,
    depth: usize,
) -> Result<RawCircuit, QpyError> {
    if depth > MAX_BLOCK_DEPTH {
        return Err(malformed(bytes, format!("control-flow blocks nest more than {MAX_BLOCK_DEPTH} deep")));
    }
    let name_size = bytes.u16("circuit name size")?;
    let phase_type = bytes.u8("global phase type")?;
    let phase_size = bytes.u16("global phase size")?;
    let num_qubits = bytes.u32("qubit count")?;
    let num_clbits = bytes.u32("clbit count")?;
    let metadata_size = bytes.u64("metadata size")?;
    let num_registers = bytes.u32("register count")?;
    let num_instructions = bytes.u64("instruction count")?;
    let num_vars = bytes.u32("variable count")?;
    if num_qubits > MAX_BITS || num_clbits > MAX_BITS {
        return Err(QpyError::Unsupported {
            at: String::new(),
            what: format!("a circuit of {num_qubits} qubits and {num_clbits} clbits (at most {MAX_BITS} of each)"),
        });
    }
    let name = bytes.text(u64::from(name_size), "circuit name")?;
    // Read once the vector table is: from QPY 18 the phase can be an element of a vector in it.
    let mut phase = bytes.sub(u64::from(phase_size), "global phase")?;
    bytes.take(metadata_size, "metadata")?;
    let (mut qregs, mut cregs) = (Vec::new(), Vec::new());
    for _ in 0..num_registers {
        let register = register(bytes, version)?;
        if register.quantum {
            qregs.push(register);
        } else if register.in_circuit {
            cregs.push(register);
        }
    }
    if num_vars > 0 {
        return Err(QpyError::Unsupported {
            at: String::new(),
            what: "classical variables (`expr.Var`, stretches)".into(),
        });
    }
    if version >= 15 {
        let namespaces = bytes.u32("annotation namespace count")?;
        for _ in 0..namespaces {
            let namespace_size = bytes.u32("annotation namespace size")?;
            let state_size = bytes.u64("annotation state size")?;
            bytes.take(u64::from(namespace_size), "annotation namespace")?;
            bytes.take(state_size, "annotation state")?;
        }
    }
    let vectors = if version >= 18 { values::vector_table(bytes)? } else { Vec::new() };
    let format = Format { version, vectors: &vectors };
    let global_phase = values::global_phase(phase_type, &mut phase, symbols, format)?;
    let mut custom = Vec::new();
    let custom_count = bytes.u64("custom definition count")?;
    for _ in 0..custom_count {
        let name_size = bytes.u16("custom gate name size")?;
        let _kind = bytes.u8("custom gate type")?;
        bytes.u32("custom gate qubits")?;
        bytes.u32("custom gate clbits")?;
        let has_definition = bytes.bool("custom definition flag")?;
        let size = bytes.u64("custom definition size")?;
        bytes.u32("custom gate control count")?;
        bytes.u32("custom gate control state")?;
        let base_size = bytes.u64("custom base gate size")?;
        custom.push(bytes.text(u64::from(name_size), "custom gate name")?);
        if has_definition {
            bytes.take(size, "custom definition")?;
        }
        bytes.take(base_size, "custom base gate")?;
    }
    let mut instructions = Vec::new();
    for index in 0..num_instructions {
        let instruction = instruction(bytes, format, symbols, depth, num_qubits, num_clbits)
            .map_err(|e| e.within(format!("instruction {index}")))?;
        instructions.push(instruction);
    }
    if version < 18 {
        let calibrations = bytes.u16("calibration count")?;
        if calibrations > 0 {
            return Err(QpyError::Unsupported { at: String::new(), what: "pulse calibrations".into() });
        }
    }
    if version >= 10 {
        skip_layout(bytes, version)?;
    }
    Ok(RawCircuit { name, num_qubits, num_clbits, qregs, cregs, global_phase, instructions, custom })
}

fn instruction(
    bytes: &mut Bytes,
    format: Format,
    symbols: &mut Symbols,
    depth: usize,
    num_qubits: u32,
    num_clbits: u32,
) -> Result<RawInstruction, QpyError> {
    let name_size = bytes.u16("instruction name size")?;
    let label_size = bytes.u16("label size")?;
    let num_parameters = bytes.u16("parameter count")?;
    let num_qargs = bytes.u32("qubit argument count")?;
    let num_cargs = bytes.u32("clbit argument count")?;
    let extras = bytes.u8("instruction extras")?;
    let condition_register_size = bytes.u16("condition register size")?;
    let condition_value = bytes.i64("condition value")?;
    let num_ctrl_qubits = bytes.u32("control count")?;
    let ctrl_state = bytes.u32("control state")?;
    let class = bytes.text(u64::from(name_size), "instruction name")?;
    bytes.take(u64::from(label_size), "label")?;
    let register = bytes.take(u64::from(condition_register_size), "condition register")?;
    let condition = match extras & 0b11 {
        0 => None,
        1 => Some(Condition {
            target: register_target(register, bytes, format.version)?,
            value: u64::try_from(condition_value).map_err(|_| malformed(bytes, "a negative condition value"))?,
            equal: true,
        }),
        2 => {
            let (key, mut data) = values::typed(bytes)?;
            if key != b'x' {
                return Err(malformed(bytes, "an expression condition that is not an expression"));
            }
            Some(conditions::expression(&mut data, 0)?)
        }
        _ => return Err(malformed(bytes, "an unknown condition kind")),
    };
    let argument = |bytes: &mut Bytes, kind: u8, limit: u32, what: &'static str| -> Result<u32, QpyError> {
        let found = bytes.u8("argument type")?;
        let index = bytes.u32("argument index")?;
        if found != kind {
            return Err(malformed(bytes, format!("a {what} argument of the wrong type `{}`", char::from(found))));
        }
        if index >= limit {
            return Err(malformed(bytes, format!("{what} {index} is outside the circuit's {limit}")));
        }
        Ok(index)
    };
    let qubits = (0..num_qargs).map(|_| argument(bytes, b'q', num_qubits, "qubit")).collect::<Result<Vec<_>, _>>()?;
    let clbits = (0..num_cargs).map(|_| argument(bytes, b'c', num_clbits, "clbit")).collect::<Result<Vec<_>, _>>()?;
    let mut params = Vec::new();
    let mut blocks = Vec::new();
    for index in 0..num_parameters {
        let value =
            values::instruction_param(bytes, symbols, format).map_err(|e| e.within(format!("parameter {index}")))?;
        if let Value::Circuit(data, offset) = &value {
            let mut block = Bytes::with_base(data, *offset);
            blocks.push(
                read_circuit(&mut block, format.version, symbols, depth + 1)
                    .map_err(|e| e.within(format!("block {}", blocks.len())))?,
            );
        }
        params.push(value);
    }
    if extras & 0x80 != 0 {
        let count = bytes.u32("annotation count")?;
        for _ in 0..count {
            bytes.u32("annotation namespace")?;
            let size = bytes.u64("annotation size")?;
            bytes.take(size, "annotation")?;
        }
    }
    Ok(RawInstruction { class, qubits, clbits, params, condition, num_ctrl_qubits, ctrl_state, blocks })
}
