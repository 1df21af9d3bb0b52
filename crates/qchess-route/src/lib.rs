//! Compiling qchess circuits for real devices, as a chain of passes that each do one job and are
//! each checked for equivalence:
//!
//! * [`target`]: the device (qubits, coupling map, native gates, error rates), from IBM's backend
//!   JSON, our own JSON format, or a preset;
//! * [`program`]: the circuit lowered to CX and one-qubit matrices (the form the passes share);
//! * [`optimize`]: one-qubit runs fused, adjacent inverse pairs cancelled;
//! * [`translate`]: SWAP and CX into the target's two-qubit gate, one-qubit matrices into its
//!   Euler form;
//! * [`verify`]: only basis gates, only coupled pairs, and equivalence up to the layouts by our
//!   own state-vector simulation.
//!
//! Depends on `qchess-core`, `qchess-circuit` and `qchess-qasm`.

pub mod error;
pub mod linalg;
pub mod native;
pub mod optimize;
pub mod program;
pub mod target;
pub mod translate;
pub mod verify;

pub use error::RouteError;
pub use native::{IsaOp, NativeGate};
pub use target::{Basis, Target, TargetError};
