//! Remote quantum providers over HTTP.
//!
//! * [`config`]: a validated provider connection ([`ProviderConfig`]): base URL, API key
//!   (never printed), backend, noise model, timeouts, retries, polling.
//! * [`client`]: [`IonqClient`], an asynchronous IonQ v0.4 client that submits
//!   `ionq.circuit.v1` jobs, polls them, fetches probabilities and cancels them.
//! * [`board`]: [`RemoteBoard`], a [`QuantumBoard`](qchess_core::QuantumBoard) whose
//!   accumulated circuit runs on the provider with deferred measurement and post-selection.
//! * [`settings`]: command-line flags to a validated [`RemoteBoardConfig`].
//! * [`probabilities`], [`wire`], [`retry`]: results, JSON shapes, and the retry loop and capped
//!   body reader both clients send through.
//! * [`ibm`]: [`IbmClient`](ibm::IbmClient), IBM Quantum's REST API: IAM token exchange and refresh,
//!   device configurations fetched and cached.
//! * [`sampler`]: [`IbmRunner`](sampler::IbmRunner), qchess circuits routed onto an IBM device and
//!   run as Sampler jobs, read back as the IonQ client's results.
//! * [`braket`]: [`BraketClient`](braket::BraketClient), Amazon Braket's REST API and the S3
//!   objects of its tasks, signed with SigV4 by the AWS credential chain, and
//!   [`BraketRunner`](braket::BraketRunner), qchess circuits routed onto a Braket device and run
//!   there as verbatim programs of its native gates.
//! * [`journal`]: [`JobJournal`](journal::JobJournal), where a board records its jobs so that a
//!   wait can stop (Ctrl-C, a time limit, a crash) and the same job be taken up later.
//! * [`error`]: [`RemoteError`], what went wrong, sorted by what the user can do about it.
//!
//! Depends on `qchess-core`, `qchess-circuit` and `qchess-qasm` (for the IonQ JSON lowering).
//!
//! ```
//! use qchess_remote::{ProviderConfig, RemoteBoardConfig};
//!
//! let provider = ProviderConfig::new(qchess_remote::config::DEFAULT_PROVIDER_URL)?;
//! let board = RemoteBoardConfig { shots: 2000, ..RemoteBoardConfig::new(provider) };
//! assert_eq!(board.provider.target().as_str(), "simulator");
//! # Ok::<(), qchess_remote::config::ConfigError>(())
//! ```

pub mod board;
pub mod braket;
pub mod client;
pub mod config;
pub mod error;
pub mod ibm;
mod interrupt;
pub mod journal;
pub mod probabilities;
mod progress;
pub mod retry;
pub mod sampler;
pub mod settings;
pub mod wire;

pub use board::{Mitigation, RemoteBoard, RemoteBoardConfig, RemoteBoardError};
pub use client::{IonqClient, JobResult};
pub use config::{ApiKey, ProviderConfig};
pub use error::RemoteError;
pub use settings::RemoteSettings;
