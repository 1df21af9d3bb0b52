//! OpenQASM and IonQ JSON for qchess circuits.
//!
//! * [`ast`] and [`print`](mod@print): an OpenQASM 2.0 / 3.0 AST and its printer;
//! * [`emit`]: IR circuits to OpenQASM 2.0 and 3.0, with a header mapping qubits to squares;
//! * [`lower`]: lowering passes to hardware gate sets (CX, sqrt-iSWAP, IonQ QIS), each
//!   proven by unitary-equivalence tests;
//! * [`ionq`]: IonQ's `ionq.circuit.v1` QIS JSON, both ways;
//! * [`parse`]: OpenQASM 2.0 and 3 input into the IR, with file, line and column in every
//!   error; [`program`]: circuits as read, instruction by instruction (from OpenQASM 3 or
//!   [`qpy`]), and their lowering to the IR;
//! * [`classical`]: OpenQASM 3's classical types, values, casts, operators and built-in
//!   functions; [`machine`]: OpenQASM 3 programs checked, unrolled into circuits when nothing
//!   depends on a measurement outcome, and otherwise run step by step on a simulator;
//! * [`qpy`]: Qiskit's binary QPY circuits (what `qiskit-ibm-runtime` sends) into programs;
//! * [`export`] and [`sidecar`]: a board's accumulated circuit in any of these formats, with
//!   the JSON sidecar that reads its results as a board (what `qchess compile` writes).
//!
//! ```
//! use qchess_circuit::compiler::{Register, Step};
//! use qchess_core::{Bitboard, Square, TypedMove};
//! use qchess_qasm::export::{Export, Format};
//! use qchess_qasm::parse::parse_source;
//!
//! // A knight's split written as OpenQASM 3, as `qchess compile --format qasm3` writes it...
//! let mut register = Register::new(Bitboard::from_square(Square::B1));
//! let split: TypedMove = "b1^a3c3:SPLIT_JUMP:BASIC".parse()?;
//! assert!(matches!(register.begin(&split)?, Step::Done(_)));
//! let qasm = Export::from_register(&register)?.render(Format::Qasm3)?.text();
//! assert!(qasm.starts_with("OPENQASM 3.0;"));
//! // ...and read back by this crate's OpenQASM 3 reader into the same number of qubits.
//! let read = parse_source(&qasm, "split.qasm3")?;
//! assert_eq!(read.num_qubits(), register.circuit().num_qubits());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Depends on `qchess-core` and `qchess-circuit`.

pub mod ast;
pub mod classical;
pub mod emit;
pub mod export;
pub mod ionq;
pub mod lower;
pub mod machine;
pub mod parse;
pub mod print;
pub mod program;
pub mod qpy;
pub mod sidecar;
