//! The one thing a comparison needs from a backend: boards for games, and runs of circuits.

use qchess_circuit::ir::Circuit;
use qchess_core::{Bitboard, BoardError, QuantumBoard};

use crate::observation::Observation;

/// A backend to compare: the exact local simulator, a provider, a `qchess serve`.
pub trait Backend {
    /// How reports name the backend (`local`, `http://127.0.0.1:8080 (qpu.aria-1)`).
    fn label(&self) -> String;

    /// A fresh occupancy board at `occupancy`; `seed` seeds the outcomes it draws.
    fn board(&self, occupancy: Bitboard, seed: u64) -> Result<Box<dyn QuantumBoard>, BoardError>;

    /// Runs a circuit whose measurements are all final and answers the distribution of its
    /// outcome keys (see [`circuits`](crate::circuits)): exact, or `shots` shot counts.
    fn run_circuit(&self, circuit: &Circuit, shots: u64, seed: u64) -> Result<Observation, String>;
}
