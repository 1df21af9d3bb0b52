//! Compiling qchess circuits for real devices, as a chain of passes that each do one job and are
//! each checked for equivalence:
//!
//! * [`target`]: the device (qubits, coupling map, native gates, error rates), from IBM's backend
//!   JSON, our own JSON format, or a preset;
//! * [`program`]: the circuit lowered to CX and one-qubit matrices (the form the passes share);
//! * [`optimize`]: one-qubit runs fused, adjacent inverse pairs cancelled;
//! * [`translate`]: SWAP and CX into the target's two-qubit gate, one-qubit matrices into its
//!   Euler form;
//! * [`layout`] and [`sabre`]: the initial layout (well-connected, low-error qubits; SABRE's
//!   forward-backward passes) and SWAP insertion with look-ahead;
//! * [`compile`](mod@compile): the pipeline over several seeded trials, and [`compile::Incremental`], which
//!   routes a game move by move without touching what came before;
//! * [`emit`]: OpenQASM 3 or 2 over the device's physical qubits;
//! * [`verify`]: only basis gates, only coupled pairs, and equivalence up to the layouts by our
//!   own state-vector simulation.
//!
//! Depends on `qchess-core`, `qchess-circuit` and `qchess-qasm`.

pub mod compile;
pub mod cost;
pub mod device;
pub mod emit;
pub mod error;
pub mod frames;
mod incremental;
pub mod kak;
pub mod layout;
pub mod linalg;
pub mod native;
pub mod optimize;
pub mod post_layout;
pub mod program;
pub mod resynth;
pub mod sabre;
pub mod target;
pub mod translate;
pub mod usable;
pub mod verify;
pub mod vf2;

pub use compile::{CompileOptions, Compiled, Incremental, compile, compile_on};
pub use device::Device;
pub use error::RouteError;
pub use native::{IsaOp, NativeGate};
pub use target::{Basis, Target, TargetError};
