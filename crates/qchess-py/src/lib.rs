//! The Python extension module `qchess._qchess`: a thin layer over the qchess crates. The
//! Python package `qchess` (under `python/`) re-exports it and adds the pure-Python parts
//! (SVG rendering, Qiskit and Cirq conversion).
//!
//! It is used from Python, so its examples are Python ones, run as doctests by the package's
//! tests (`crates/qchess-py/tests/test_docs.py`); the typed stubs are `python/qchess/_qchess.pyi`:
//!
//! ```python
//! >>> import qchess
//! >>> game = qchess.Game()
//! >>> split = game.move("b1^a3c3")
//! >>> split.type, split.variant
//! ('SPLIT_JUMP', 'BASIC')
//! >>> round(game.probabilities()["a3"], 3)
//! 0.5
//! ```

mod backend;
mod board;
mod errors;
mod export;
mod game;
mod python;

use pyo3::prelude::*;

/// The compiled part of the `qchess` package.
#[pymodule]
fn _qchess(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<game::Game>()?;
    m.add_class::<game::Move>()?;
    m.add_class::<board::Board>()?;
    let py = m.py();
    m.add("QchessError", py.get_type::<errors::QchessError>())?;
    m.add("ParseError", py.get_type::<errors::ParseError>())?;
    m.add("IllegalMoveError", py.get_type::<errors::IllegalMoveError>())?;
    m.add("BackendError", py.get_type::<errors::BackendError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
