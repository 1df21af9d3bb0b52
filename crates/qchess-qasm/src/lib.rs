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
//! * [`qpy`]: Qiskit's binary QPY circuits (what `qiskit-ibm-runtime` sends) into programs;
//! * [`export`] and [`sidecar`]: a board's accumulated circuit in any of these formats, with
//!   the JSON sidecar that reads its results as a board (what `qchess compile` writes).
//!
//! Depends on `qchess-core` and `qchess-circuit`.

pub mod ast;
pub mod emit;
pub mod export;
pub mod ionq;
pub mod lower;
pub mod parse;
pub mod print;
pub mod program;
pub mod qpy;
pub mod sidecar;
