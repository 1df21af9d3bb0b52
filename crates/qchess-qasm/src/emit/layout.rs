//! Register layout of an emitted program: one quantum register, the classical registers in
//! bit order, and the register of the final measurements.

use std::collections::HashSet;

use qchess_circuit::ir::{Circuit, Condition, Qubit};

use super::EmitError;
use crate::ast::{Operand, Statement};

/// The quantum register every emitted program declares.
pub(crate) const QUBIT_REGISTER: &str = "q";

/// Words of OpenQASM 2 and 3 and gate names the emitters may use, which no register may take.
const RESERVED: &[&str] = &[
    // OpenQASM 2 and 3 keywords and built-ins.
    "OPENQASM",
    "include",
    "qreg",
    "creg",
    "gate",
    "opaque",
    "measure",
    "reset",
    "barrier",
    "if",
    "else",
    "pi",
    "U",
    "CX",
    "sin",
    "cos",
    "tan",
    "exp",
    "ln",
    "sqrt",
    "qubit",
    "bit",
    "int",
    "uint",
    "float",
    "angle",
    "bool",
    "complex",
    "duration",
    "stretch",
    "const",
    "input",
    "output",
    "let",
    "def",
    "defcal",
    "defcalgrammar",
    "cal",
    "extern",
    "return",
    "for",
    "while",
    "in",
    "break",
    "continue",
    "end",
    "box",
    "delay",
    "ctrl",
    "negctrl",
    "inv",
    "pow",
    "gphase",
    "true",
    "false",
    "array",
    "mutable",
    "readonly",
    "switch",
    "case",
    "default",
    "euler",
    "tau",
    "arcsin",
    "arccos",
    "arctan",
    "ceiling",
    "floor",
    "log",
    "mod",
    "popcount",
    "rotl",
    "rotr",
    "sizeof",
    "real",
    "imag",
    "durationof",
    // Standard and library gates.
    "u3",
    "u2",
    "u1",
    "u",
    "p",
    "phase",
    "cphase",
    "cx",
    "id",
    "u0",
    "x",
    "y",
    "z",
    "h",
    "s",
    "sdg",
    "t",
    "tdg",
    "sx",
    "sxdg",
    "rx",
    "ry",
    "rz",
    "cz",
    "cy",
    "ch",
    "ccx",
    "crx",
    "cry",
    "crz",
    "cp",
    "cu",
    "cu1",
    "cu3",
    "swap",
    "cswap",
    "rxx",
    "ryy",
    "rzz",
    "iswap",
    "iswap_dg",
    "sqrt_iswap",
    "sqrt_iswap_dg",
    "iswap_pow",
];

/// Whether `name` can name a register in emitted OpenQASM: an identifier starting with a
/// lower-case letter (OpenQASM 2's rule), not a keyword, not a gate name, and not of the form
/// `c<digits>_...` that the controlled-gate definitions use.
pub fn is_reserved_name(name: &str) -> bool {
    let mut chars = name.chars();
    let valid =
        chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    let controlled_gate = name
        .strip_prefix('c')
        .and_then(|rest| rest.split_once('_'))
        .is_some_and(|(digits, _)| !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()));
    !valid || RESERVED.contains(&name) || controlled_gate || name == QUBIT_REGISTER
}

/// Where every classical bit of the circuit lives in the emitted program.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// Classical registers in declaration (= bit) order: name, first bit, length.
    pub(crate) registers: Vec<(String, u32, u32)>,
    /// The register and index of each circuit bit.
    bits: Vec<Operand>,
    /// Name of the register of the final measurements, with the qubits it reads.
    pub(crate) final_register: Option<(String, Vec<Qubit>)>,
    /// Number of qubits declared.
    pub(crate) qubits: u32,
}

fn invalid_register(name: &str, reason: impl Into<String>) -> EmitError {
    EmitError::InvalidRegister { name: name.to_string(), reason: reason.into() }
}

/// The first of `base`, `base1`, `base2`, ... that no register uses and is not reserved.
fn fresh_name(base: &str, taken: &HashSet<String>) -> String {
    (0..)
        .map(|n| if n == 0 { base.to_string() } else { format!("{base}{n}") })
        .find(|name| !taken.contains(name) && !is_reserved_name(name))
        .unwrap_or_else(|| base.to_string())
}

impl Layout {
    /// Checks the circuit's registers and final measurements and lays the bits out.
    pub(crate) fn new(circuit: &Circuit, options: &super::EmitOptions) -> Result<Layout, EmitError> {
        let clbits = circuit.clbits;
        let mut declared: Vec<(String, u32, u32)> = Vec::new();
        let mut taken = HashSet::new();
        for register in &circuit.registers {
            let name = register.name.as_str();
            if is_reserved_name(name) {
                return Err(invalid_register(
                    name,
                    "not usable as a register name (an identifier starting with a lower-case letter, not a keyword or gate name, is needed)",
                ));
            }
            if register.len == 0 {
                return Err(invalid_register(name, "has no bits"));
            }
            if u64::from(register.start) + u64::from(register.len) > u64::from(clbits) {
                return Err(invalid_register(name, format!("ends past the circuit's {clbits} classical bits")));
            }
            if !taken.insert(register.name.clone()) {
                return Err(invalid_register(name, "is declared twice"));
            }
            declared.push((register.name.clone(), register.start, register.len));
        }
        declared.sort_by_key(|(_, start, _)| *start);
        for pair in declared.windows(2) {
            if pair[1].1 < pair[0].1 + pair[0].2 {
                return Err(invalid_register(&pair[1].0, format!("overlaps register {:?}", pair[0].0)));
            }
        }

        // Fill the gaps between registers with registers of their own.
        let mut registers = Vec::new();
        let mut next = 0u32;
        for (name, start, len) in declared.into_iter().chain(std::iter::once((String::new(), clbits, 0))) {
            if start > next {
                let gap = fresh_name("c", &taken);
                taken.insert(gap.clone());
                registers.push((gap, next, start - next));
            }
            if len > 0 {
                registers.push((name, start, len));
            }
            next = start + len;
        }
        let mut bits = vec![Operand::name(""); clbits as usize];
        for (name, start, len) in &registers {
            for offset in 0..*len {
                bits[(start + offset) as usize] = Operand::indexed(name.clone(), offset);
            }
        }

        let qubits = circuit.num_qubits();
        if let Some(bad) = options.measure.iter().find(|q| q.index() >= qubits) {
            return Err(EmitError::InvalidFinalMeasurement { qubit: bad.0, qubits });
        }
        let final_register =
            (!options.measure.is_empty()).then(|| (fresh_name("meas", &taken), options.measure.clone()));
        Ok(Layout { registers, bits, final_register, qubits: qubits as u32 })
    }

    /// The operand of circuit bit `bit`.
    pub(crate) fn bit(&self, bit: usize) -> Option<Operand> {
        self.bits.get(bit).cloned()
    }

    /// The register name and value of a condition, checked.
    pub(crate) fn condition(
        &self,
        circuit: &Circuit,
        op: usize,
        condition: &Condition,
    ) -> Result<(String, u64), EmitError> {
        let register = circuit.registers.get(condition.register).ok_or_else(|| EmitError::InvalidCondition {
            op,
            reason: format!("condition on register {}, which does not exist", condition.register),
        })?;
        if register.len < 64 && condition.value >> register.len != 0 {
            return Err(EmitError::InvalidCondition {
                op,
                reason: format!(
                    "condition {} == {} cannot hold: the register has {} bits",
                    register.name, condition.value, register.len
                ),
            });
        }
        Ok((register.name.clone(), condition.value))
    }

    /// Register declarations, in order.
    pub(crate) fn declarations(&self) -> Vec<Statement> {
        let mut statements = Vec::new();
        if self.qubits > 0 {
            statements.push(Statement::QubitRegister { name: QUBIT_REGISTER.into(), size: self.qubits });
        }
        for (name, _, len) in &self.registers {
            statements.push(Statement::BitRegister { name: name.clone(), size: *len });
        }
        if let Some((name, qubits)) = &self.final_register {
            statements.push(Statement::BitRegister { name: name.clone(), size: qubits.len() as u32 });
        }
        statements
    }
}
