//! Compiling qchess circuits for real devices, as a chain of passes that each do one job and are
//! each checked for equivalence, the device described apart from them:
//!
//! * [`target`]: the device (qubits, coupling map, native gates) and its calibration (error rates,
//!   broken elements, date), from IBM's backend JSON, our own JSON format, or a preset;
//! * [`program`]: the circuit lowered to CX and one-qubit matrices (the form the passes share);
//! * [`optimize`]: one-qubit runs fused, adjacent inverse pairs cancelled;
//! * [`usable`] and [`device`]: broken qubits and couplers removed, the circuit kept in one
//!   connected working part; a target made ready once for many circuits;
//! * [`cost`]: what a gate costs on each part of the device (`-ln(1 - e)`), and error-weighted
//!   distances;
//! * [`vf2`], [`layout`] and [`sabre`]: the initial layout (a subgraph search for the cheapest
//!   placement with no SWAP, else SABRE's forward-backward passes) and SWAP insertion with
//!   look-ahead on error-weighted paths;
//! * [`kak`] and [`resynth`]: two-qubit blocks rebuilt with the fewest CX; [`iswap`]: with the
//!   fewest iSWAPs, on iSWAP targets; [`final_swaps`]: a last block's SWAP taken into the
//!   final layout where that is cheaper;
//! * [`post_layout`]: a routed circuit placed again on cheaper qubits;
//! * [`translate`] and [`frames`]: SWAP and CX into the target's two-qubit gate, one-qubit
//!   matrices into its Euler form, Z rotations merged;
//! * [`compile`](mod@compile): the pipeline over several seeded trials, kept by estimated success
//!   probability, and [`compile::Incremental`], which routes a game move by move without touching
//!   what came before;
//! * [`emit`]: OpenQASM 3 or 2 over the device's physical qubits;
//! * [`verify`]: only basis gates, only coupled pairs, no broken element, and equivalence up to
//!   the layouts by our own state-vector simulation.
//!
//! ```
//! use qchess_circuit::compiler::{Register, Step};
//! use qchess_core::{Bitboard, Square, TypedMove};
//! use qchess_route::program::from_circuit;
//! use qchess_route::target::presets::preset;
//! use qchess_route::{CompileOptions, compile};
//!
//! // A knight's split and merge, routed onto IBM's Heron device `ibm_fez` with its calibration.
//! let mut register = Register::new(Bitboard::from_square(Square::B1));
//! for mv in ["b1^a3c3:SPLIT_JUMP:BASIC", "a3c3^b5:MERGE_JUMP:BASIC"] {
//!     assert!(matches!(register.begin(&mv.parse::<TypedMove>()?)?, Step::Done(_)));
//! }
//! let fez = preset("ibm-fez").expect("a preset")?;
//! let program = from_circuit(register.circuit(), 0, &[])?;
//! let routed = compile(&program, &fez, &CompileOptions::default())?;
//! // Native gates on coupled, working pairs only, and the estimated success probability.
//! assert!(routed.two_qubit_count() > 0);
//! let esp = routed.esp.expect("the preset has a calibration");
//! assert!(esp > 0.5 && esp < 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Depends on `qchess-core`, `qchess-circuit` and `qchess-qasm`.

pub mod compile;
pub mod cost;
pub mod device;
pub mod emit;
pub mod error;
pub mod final_swaps;
pub mod frames;
mod incremental;
pub mod iswap;
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
