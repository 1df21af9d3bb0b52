//! Integration tests of qchess-core, grouped by purpose:
//!
//! - `quantum_moves`: the legal moves of the official game in constructed superposed positions.
//! - `classical`: classical chess, with perft counts read from `tests/data/perft.txt`.
//! - `properties`: property tests of every parser (FEN, notation, position strings, typed
//!   moves) and of move generation against move validation.

mod common;

mod classical;
mod properties;
mod quantum_moves;
