//! Stand-ins for quantum providers' HTTP APIs, run on the workspace's exact simulators, so that
//! the provider clients (ours, and the providers' own unmodified SDKs) run in tests and demos
//! without the services. `qchess serve` mounts them beside its own APIs.
//!
//! Each provider is one module with its own [`axum::Router`], its own typed options (the flags
//! it reads) and its own errors, answered in the provider's wire shape:
//!
//! * [`ionq`]: IonQ's v0.4 API ([`ionq::IonqStandIn`], [`ionq::IonqOptions`],
//!   [`ionq::IonqError`]): jobs simulated exactly, or sampled with noise on the `qpu.*`
//!   backends, within limits of qubits, shots, gates, stored jobs and time.
//! * [`ibm`]: IBM Quantum's IAM token exchange and Qiskit Runtime REST API
//!   ([`ibm::service`], [`ibm::IbmOptions`], [`ibm::IbmError`]): Sampler V2 and Estimator V2
//!   jobs on ISA circuits of two published devices, ideal or with their calibrated noise;
//!   sessions and batches; job lists.
//! * [`braket`]: Amazon Braket's REST API and the S3 bucket of its results
//!   ([`braket::service`], [`braket::BraketOptions`], [`braket::BraketError`]): SigV4-signed
//!   tasks on the published QPUs and the managed simulators, verbatim boxes checked against the
//!   devices, ideal or with their published fidelities.
//!
//! What they share: the key a server accepts ([`ServerKey`]), how jobs run ([`RunOptions`]) and
//! when a running one stops ([`stop`]), and reading a request body within the server's limits
//! ([`body`]). A new
//! provider is a new module beside these. This crate stands on the simulator, QASM, routing and
//! remote-client floors, never on the game store or the game service.
//!
//! ```
//! use std::time::Duration;
//!
//! use qchess_standins::ServerKey;
//! use qchess_standins::ibm::{self, IbmOptions};
//!
//! let key = ServerKey::new("a-key")?;
//! let options = IbmOptions::new(Some(key), Duration::from_secs(ibm::DEFAULT_TOKEN_SECONDS));
//! let _routes: axum::Router = ibm::service(options);
//! # Ok::<(), qchess_standins::KeyError>(())
//! ```

pub mod body;
pub mod braket;
pub mod ibm;
pub mod ionq;
mod key;
mod run;
pub mod stop;

pub use key::{KeyError, ServerKey};
pub use run::RunOptions;
