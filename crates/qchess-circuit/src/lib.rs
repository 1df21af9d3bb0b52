//! Quantum circuits for Quantum Chess: the circuit IR every backend and exporter shares, and the
//! compiler from typed moves to circuit fragments, and the qubit recycling that fits a long game's
//! circuit on a device; and the seam ([`dynamic`]) between programs that read their own
//! measurements and the simulators that run them.
//!
//! ```
//! use qchess_circuit::compiler::{Register, Step};
//! use qchess_circuit::ir::{GateKind, Op};
//! use qchess_core::{Bitboard, Square, TypedMove};
//!
//! // A knight on b1 splits onto a3 and c3: b1 gets a qubit (prepared full), then a square root
//! // of iSWAP sends half of it to a3 and an iSWAP the rest to c3.
//! let mut register = Register::new(Bitboard::from_square(Square::B1));
//! let split: TypedMove = "b1^a3c3:SPLIT_JUMP:BASIC".parse()?;
//! let Step::Done(result) = register.begin(&split)? else { unreachable!("a split measures nothing") };
//! assert!(result.proceeded);
//! let kinds: Vec<GateKind> = register
//!     .circuit()
//!     .ops
//!     .iter()
//!     .filter_map(|op| match op {
//!         Op::Gate { gate, .. } => Some(gate.kind),
//!         _ => None,
//!     })
//!     .collect();
//! assert_eq!(kinds, [GateKind::X, GateKind::ISwap(0.5), GateKind::ISwap(1.0)]);
//! // b1 is certainly empty again, so only a3 and c3 stay quantum.
//! assert_eq!(register.quantum_squares().count(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Depends only on `qchess-core`.

pub mod compiler;
pub mod dynamic;
pub mod ir;
pub mod recycle;
