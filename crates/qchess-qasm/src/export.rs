//! A board's accumulated circuit with its [`Sidecar`], written as OpenQASM 2.0, OpenQASM 3.0 or
//! IonQ JSON: what `qchess compile` writes.
//!
//! [`Export::from_register`] takes the register of a board (its accumulated circuit, its
//! square-to-qubit map and its classical occupancy). The circuit keeps every mid-game
//! measurement as a deferred one, and the emitters measure every square qubit at the end
//! (`measure` of the sidecar). [`Export::measure_every_square`] adds a measurement of the whole
//! board that happened outside the circuit (the fifty-move and repetition rules) as more
//! deferred measurements with their outcomes, so the circuit still matches the board.
//!
//! ```
//! use qchess_circuit::compiler::{Register, Step};
//! use qchess_core::{Bitboard, Square, TypedMove};
//! use qchess_qasm::export::{Export, Format};
//!
//! let mut register = Register::new(Bitboard::from_square(Square::B1));
//! let split: TypedMove = "b1^a3c3:SPLIT_JUMP:BASIC".parse()?;
//! assert!(matches!(register.begin(&split)?, Step::Done(_)));
//! let export = Export::from_register(&register)?;
//! let text = export.render(Format::Qasm3)?.text();
//! assert!(text.contains("sqrt_iswap q[0], q[1];"));
//! assert!(text.ends_with("meas[0] = measure q[1];\nmeas[1] = measure q[2];\n"));
//! assert_eq!(export.sidecar.measure.len(), 2);
//! assert_eq!("ionq-json".parse::<Format>()?.extension(), "ionq.json");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt;
use std::str::FromStr;

use qchess_circuit::compiler::Register;
use qchess_circuit::ir::{Circuit, PostSelection};
use qchess_core::{Bitboard, Square};

use crate::emit::{EmitError, EmitOptions, to_qasm2, to_qasm3};
use crate::ionq::{IonqCircuit, IonqError, to_ionq};
use crate::sidecar::{Setup, Sidecar};

/// A format an export can be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// OpenQASM 2.0 with `qelib1.inc`.
    Qasm2,
    /// OpenQASM 3.0 with `stdgates.inc`.
    Qasm3,
    /// IonQ's `ionq.circuit.v1` JSON in the `qis` gate set.
    IonqJson,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 3] = [Format::Qasm2, Format::Qasm3, Format::IonqJson];

    /// The name on the command line: `qasm2`, `qasm3`, `ionq-json`.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Qasm2 => "qasm2",
            Format::Qasm3 => "qasm3",
            Format::IonqJson => "ionq-json",
        }
    }

    /// The file-name extension, without the dot: `qasm`, `qasm3`, `ionq.json`.
    pub const fn extension(self) -> &'static str {
        match self {
            Format::Qasm2 => "qasm",
            Format::Qasm3 => "qasm3",
            Format::IonqJson => "ionq.json",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format name that is none of [`Format::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format `{0}`: expected qasm2, qasm3 or ionq-json")]
pub struct ParseFormatError(pub String);

impl FromStr for Format {
    type Err = ParseFormatError;

    fn from_str(text: &str) -> Result<Format, ParseFormatError> {
        Format::ALL.into_iter().find(|f| f.name() == text).ok_or_else(|| ParseFormatError(text.to_owned()))
    }
}

/// Why a board's circuit cannot be exported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExportError {
    /// A move waits for its measurement's outcome: the circuit ends in the middle of it.
    #[error("a move waits for its measurement outcome; finish or abort it before exporting")]
    MovePending,
    /// A measured board disagrees with a square the register knows classically.
    #[error("the measured board has {square} {}, but the board knows it is {}", word(*.measured), word(!*.measured))]
    MeasuredBoardMismatch {
        /// The square.
        square: Square,
        /// What the measured board says (`true` = occupied).
        measured: bool,
    },
    /// The OpenQASM emitter refused the circuit.
    #[error("writing OpenQASM")]
    Emit(#[from] EmitError),
    /// The IonQ writer refused the circuit.
    #[error("writing IonQ JSON")]
    Ionq(#[from] IonqError),
}

fn word(occupied: bool) -> &'static str {
    if occupied { "occupied" } else { "empty" }
}

/// A circuit ready to be written, with its sidecar.
#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    /// The accumulated circuit, mid-game measurements included.
    pub circuit: Circuit,
    /// How to read its results as a board.
    pub sidecar: Sidecar,
}

/// An export written out.
#[derive(Debug, Clone, PartialEq)]
pub enum Rendered {
    /// OpenQASM program text.
    Qasm(String),
    /// An IonQ JSON circuit.
    Ionq(IonqCircuit),
}

impl Rendered {
    /// The file contents: the program, or the IonQ circuit as JSON with one gate per line.
    pub fn text(&self) -> String {
        match self {
            Rendered::Qasm(text) => text.clone(),
            Rendered::Ionq(circuit) => {
                let gates: Vec<String> =
                    circuit.circuit.iter().map(|gate| serde_json::to_string(gate).unwrap_or_default()).collect();
                let body = if gates.is_empty() { String::new() } else { format!("\n  {}\n", gates.join(",\n  ")) };
                let gateset = serde_json::to_string(&circuit.gateset).unwrap_or_default();
                format!("{{\"gateset\": {gateset}, \"qubits\": {}, \"circuit\": [{body}]}}\n", circuit.qubits)
            }
        }
    }
}

impl Export {
    /// The register's accumulated circuit and its sidecar (without a setup).
    pub fn from_register(register: &Register) -> Result<Export, ExportError> {
        if register.pending().is_some() {
            return Err(ExportError::MovePending);
        }
        Ok(Export { circuit: register.circuit().clone(), sidecar: Sidecar::from_register(register) })
    }

    /// This export with the setup that made it.
    #[must_use]
    pub fn with_setup(self, setup: Setup) -> Export {
        Export { sidecar: self.sidecar.with_setup(setup), ..self }
    }

    /// Records that every square was measured and `board` came out: each square qubit is
    /// measured (deferred, post-selected on its square's bit of `board`) and its square becomes
    /// classical. A classical square that disagrees with `board` is an error.
    pub fn measure_every_square(&mut self, board: Bitboard) -> Result<(), ExportError> {
        let quantum: Bitboard = self.sidecar.squares.iter().map(|&(sq, _)| sq).collect();
        if let Some(square) = ((board ^ self.sidecar.classical) & !quantum).first() {
            return Err(ExportError::MeasuredBoardMismatch { square, measured: board.contains(square) });
        }
        for &(square, qubit) in &self.sidecar.squares {
            let clbit = self.circuit.push_measure(qubit);
            let selection = PostSelection { qubit, clbit, value: board.contains(square) };
            self.circuit.postselect.push(selection);
            self.sidecar.postselect.push(selection);
        }
        self.sidecar.classical = board;
        self.sidecar.squares.clear();
        self.sidecar.measure.clear();
        Ok(())
    }

    /// Writes the circuit in `format`, measuring the sidecar's `measure` qubits at the end
    /// (IonQ JSON measures every qubit at the end by itself).
    pub fn render(&self, format: Format) -> Result<Rendered, ExportError> {
        let options = EmitOptions { measure: self.sidecar.measure.clone() };
        Ok(match format {
            Format::Qasm2 => Rendered::Qasm(to_qasm2(&self.circuit, &options)?),
            Format::Qasm3 => Rendered::Qasm(to_qasm3(&self.circuit, &options)?),
            Format::IonqJson => Rendered::Ionq(to_ionq(&self.circuit)?),
        })
    }
}
