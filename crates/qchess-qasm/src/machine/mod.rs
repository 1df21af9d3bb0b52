//! OpenQASM 3 programs with their classical layer: checked (types, scopes, subroutines, gate
//! definitions), then either recorded as a static [`Program`] when nothing the program does
//! depends on a measurement outcome (loops unrolled, subroutines inlined, `if` on measured bits
//! kept as conditions), or run step by step on a simulator as a [`Machine`], a
//! [`Dynamic`](qchess_circuit::dynamic::Dynamic) program.
//!
//! A [`Machine`] resolves measurements lazily: a measurement's outcome is asked of the
//! simulator only when the program reads the bit it wrote, or uses its qubit again. Until
//! then it is pending, and at the end of a run a pending measurement's bit is read from the
//! final basis state, as a circuit's final measurements are.
//!
//! `input` variables take values from [`Bindings::inputs`]; an `extern` function runs the
//! `def` of the same name and signature that a file of [`Bindings::externs`] gives. Calibrations
//! (`defcal`, `cal`) are refused.
//!
//! ```
//! use qchess_circuit::dynamic::{Dynamic, Next};
//! use qchess_qasm::machine::{Bindings, load};
//! use qchess_qasm::parse::Limits;
//!
//! // Repeat until success: measure a |+> qubit until it reads 1.
//! let text = "include \"stdgates.inc\";\nqubit q;\nbit b;\nwhile (!b) { reset q; h q; b = measure q; }\n";
//! let loaded = load(text, "rus.qasm3", None, &Limits::default(), &Bindings::default())?;
//! assert!(loaded.program.is_err(), "the loop reads a measurement: the program is dynamic");
//! let mut machine = loaded.machine;
//! assert_eq!(machine.next(None)?, Next::Reset(qchess_circuit::ir::Qubit(0)));
//! assert!(matches!(machine.next(None)?, Next::Gate(_)));
//! assert_eq!(machine.next(None)?, Next::Measure(qchess_circuit::ir::Qubit(0)));
//! assert_eq!(machine.next(Some(true))?, Next::Done);
//! assert_eq!(machine.result(0), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod code;
mod compile;
mod memory;
mod reads;
mod unroll;
mod vm;

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use qchess_circuit::dynamic::{Dynamic as DynamicProgram, Next, ProgramError};
use qchess_circuit::ir::{Gate, Qubit};

pub use self::unroll::Dynamic;
use self::vm::{Effect, Vm};
use qchess_circuit::ir::Circuit;

use crate::parse::{Limits, QasmError, Version, parse, read_limited, version_of};
use crate::program::Program;

pub(crate) use code::Code;
pub(crate) use compile::{Compiler, Fail};

/// What a program takes from outside: `input` values and `extern` bindings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bindings {
    /// Each `input` variable's value, as an OpenQASM constant expression (`("theta", "pi/4")`).
    pub inputs: Vec<(String, String)>,
    /// Files of `def`s that implement `extern` functions: each file's name (for messages) and
    /// text.
    pub externs: Vec<(String, String)>,
}

/// A program read and checked: the machine that runs it, and the static program it records
/// when it has one.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The program, ready to run step by step.
    pub machine: Machine,
    /// The program as a static circuit, or why it is dynamic.
    pub program: Result<Program, Dynamic>,
}

/// An OpenQASM 3 program running step by step. See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Machine {
    vm: Vm,
    /// Gates of the current call still to give.
    gates: VecDeque<Gate>,
    /// The qubit whose measurement outcome the next step receives.
    awaiting: Option<u32>,
    max_operations: usize,
}

impl PartialEq for Machine {
    fn eq(&self, other: &Machine) -> bool {
        self.vm == other.vm && self.gates == other.gates && self.awaiting == other.awaiting
    }
}

impl Eq for Machine {}

impl std::hash::Hash for Machine {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.vm.hash(state);
        self.gates.len().hash(state);
        self.awaiting.hash(state);
    }
}

/// Reads, checks and records an OpenQASM 3 program named `name` (in errors). `include`s other
/// than `stdgates.inc` are read under `include_dir` (none when `None`).
pub fn load(
    text: &str,
    name: &str,
    include_dir: Option<&Path>,
    limits: &Limits,
    bindings: &Bindings,
) -> Result<Loaded, QasmError> {
    let code = Arc::new(crate::parse::v3::check(text, name, include_dir, limits, bindings)?);
    let program = unroll::unroll(&code, limits)?;
    let machine = Machine {
        vm: Vm::new(code, limits.max_steps),
        gates: VecDeque::new(),
        awaiting: None,
        max_operations: limits.max_operations,
    };
    Ok(Loaded { machine, program })
}

/// A file ready to simulate: a circuit, or a program that reads its own measurement results.
#[derive(Debug, Clone)]
pub enum Runnable {
    /// An OpenQASM 2.0 file, or an OpenQASM 3 program whose classical layer is settled before
    /// it runs.
    Circuit(Circuit),
    /// An OpenQASM 3 program that needs a run step by step.
    Program(Machine),
}

/// Reads an OpenQASM 2.0 or 3 file (the version line decides) as something to simulate;
/// `bindings` give an OpenQASM 3 program's `input` values and `extern` functions.
pub fn runnable_file(path: &Path, limits: &Limits, bindings: &Bindings) -> Result<Runnable, QasmError> {
    let display = path.display().to_string();
    let text = read_limited(path, limits).map_err(|reason| QasmError::Unreadable { file: display.clone(), reason })?;
    let directory = path.parent().map(Path::to_path_buf).unwrap_or_default();
    if version_of(&text) == Version::Two {
        if *bindings != Bindings::default() {
            let reason = "`input` values and `extern` bindings apply to OpenQASM 3 programs".to_string();
            return Err(QasmError::Unreadable { file: display, reason });
        }
        return parse(&text, &display, Some(directory), limits).map(Runnable::Circuit);
    }
    let loaded = load(&text, &display, Some(&directory), limits, bindings)?;
    let Ok(program) = loaded.program else { return Ok(Runnable::Program(loaded.machine)) };
    match program.to_circuit(limits.max_operations) {
        Ok(circuit) => Ok(Runnable::Circuit(circuit)),
        Err(error) if error.dynamic => Ok(Runnable::Program(loaded.machine)),
        Err(error) => Err(crate::parse::placed(error)),
    }
}

impl Machine {
    /// The qubits' names (`q[0]`, `$3`), qubit `i` at index `i`.
    pub fn qubit_names(&self) -> &[String] {
        &self.vm.code.shell.qubits
    }

    fn error(&self, failure: vm::Failure) -> ProgramError {
        let origin = self.vm.code.origin(failure.pc, failure.offset);
        let message = format!("{origin}: {}", failure.message);
        if failure.limit { ProgramError::Limit(message) } else { ProgramError::Invalid(message) }
    }
}

impl DynamicProgram for Machine {
    fn num_qubits(&self) -> usize {
        self.vm.code.shell.qubits.len()
    }

    fn result_width(&self) -> usize {
        self.vm.code.outputs.iter().map(|&(_, w)| w as usize).sum()
    }

    fn next(&mut self, outcome: Option<bool>) -> Result<Next, ProgramError> {
        if let (Some(qubit), Some(outcome)) = (self.awaiting.take(), outcome) {
            self.vm.resolve(qubit, outcome);
        }
        loop {
            if let Some(gate) = self.gates.pop_front() {
                return Ok(Next::Gate(gate));
            }
            let pc = self.vm.pc;
            match self.vm.step().map_err(|f| self.error(f))? {
                Effect::Gate(call) => {
                    let origin = self.vm.code.origin(pc, None);
                    let gates = self.vm.code.shell.expand(&call, &origin, self.max_operations).map_err(|e| {
                        let message = format!("{}: {}", e.origin, e.message);
                        if e.message.contains("more than") {
                            ProgramError::Limit(message)
                        } else {
                            ProgramError::Invalid(message)
                        }
                    })?;
                    self.gates.extend(gates);
                }
                Effect::Force(qubit) => {
                    self.awaiting = Some(qubit);
                    return Ok(Next::Measure(Qubit(qubit)));
                }
                Effect::Reset(qubit) => return Ok(Next::Reset(Qubit(qubit))),
                Effect::Done => return Ok(Next::Done),
                Effect::Continue | Effect::Measured { .. } | Effect::Barrier(_) | Effect::Delay(..) => {}
            }
        }
    }

    fn result(&self, basis: u128) -> u64 {
        self.vm.result(&|qubit| qubit < 128 && basis >> qubit & 1 == 1)
    }
}
