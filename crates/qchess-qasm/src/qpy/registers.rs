//! Registers as QPY stores them (`REGISTER`, version 4 and later), in circuits and in layouts.

use super::QpyError;
use super::bytes::Bytes;

/// The most qubits, and the most clbits, a circuit may have (devices have a few hundred).
pub(super) const MAX_BITS: u32 = 1 << 16;

/// The bit index that marks a bit outside the circuit from QPY 18 on (any negative one before).
const NOT_IN_CIRCUIT: u32 = u32::MAX;

/// A register: its name and the circuit bit of each of its bits (`None`: a bit outside the
/// circuit).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RawRegister {
    pub(super) name: String,
    pub(super) bits: Vec<Option<u32>>,
    /// A quantum (or ancilla) register rather than a classical one.
    pub(super) quantum: bool,
    /// Whether the circuit holds the register itself, not only some of its bits.
    pub(super) in_circuit: bool,
}

fn malformed(bytes: &Bytes, what: impl Into<String>) -> QpyError {
    QpyError::Malformed { at: format!("byte {}", bytes.offset()), what: what.into() }
}

/// One `REGISTER` of QPY `version`.
pub(super) fn register(bytes: &mut Bytes, version: u8) -> Result<RawRegister, QpyError> {
    let kind = bytes.u8("register type")?;
    let _standalone = bytes.bool("register standalone flag")?;
    let size = bytes.u32("register size")?;
    let name_size = bytes.u16("register name size")?;
    let in_circuit = bytes.bool("register in-circuit flag")?;
    // From QPY 18, 1 marks a register of consecutive circuit bits, stored as its first bit.
    let consecutive = version >= 18
        && match bytes.u8("register attachment")? {
            0 => false,
            1 => true,
            other => return Err(malformed(bytes, format!("unknown register attachment {other}"))),
        };
    let name = bytes.text(u64::from(name_size), "register name")?;
    let quantum = match kind {
        // Qiskit 2.6 writes ancilla registers as `a` at QPY 17 as well as at 18.
        b'q' | b'a' => true,
        b'c' => false,
        other => return Err(malformed(bytes, format!("unknown register type `{}`", char::from(other)))),
    };
    let bits = if consecutive {
        let start = bytes.u32("register start")?;
        if u64::from(start) + u64::from(size) > u64::from(MAX_BITS) {
            return Err(malformed(
                bytes,
                format!("register `{name}` of {size} bits from bit {start} runs past bit {MAX_BITS}"),
            ));
        }
        (start..start + size).map(Some).collect()
    } else if version >= 18 {
        let mut indices = bytes.sub(u64::from(size) * 4, "register bits")?;
        (0..size)
            .map(|_| Ok(Some(indices.u32("register bit")?).filter(|&bit| bit != NOT_IN_CIRCUIT)))
            .collect::<Result<Vec<_>, QpyError>>()?
    } else {
        let mut indices = bytes.sub(u64::from(size) * 8, "register bits")?;
        (0..size)
            .map(|_| match indices.i64("register bit")? {
                bit if bit < 0 => Ok(None),
                bit => u32::try_from(bit)
                    .map(Some)
                    .map_err(|_| malformed(&indices, format!("register bit {bit} is past any circuit"))),
            })
            .collect::<Result<Vec<_>, QpyError>>()?
    };
    Ok(RawRegister { name, bits, quantum, in_circuit })
}

/// Skips a `LAYOUT` (version 10 and later): the transpiler's layout does not change the run.
pub(super) fn skip_layout(bytes: &mut Bytes, version: u8) -> Result<(), QpyError> {
    let exists = bytes.bool("layout flag")?;
    let initial = bytes.i32("initial layout size")?;
    let input = bytes.i32("input mapping size")?;
    let last = bytes.i32("final layout size")?;
    let extra = bytes.u32("layout register count")?;
    let _input_qubits = bytes.i32("input qubit count")?;
    if !exists {
        return Ok(());
    }
    for _ in 0..extra {
        register(bytes, version)?;
    }
    for _ in 0..initial.max(0) {
        let index = bytes.i32("layout bit index")?;
        let register_size = bytes.i32("layout register size")?;
        if !(index == -1 && register_size == -1) {
            bytes.take(u64::try_from(register_size).unwrap_or(0), "layout register name")?;
        }
    }
    bytes.take(u64::try_from(input.max(0)).unwrap_or(0) * 4, "input mapping")?;
    bytes.take(u64::try_from(last.max(0)).unwrap_or(0) * 4, "final layout")?;
    Ok(())
}
