//! `qchess.Board`: typed moves on an occupancy board, for users of Google's quantum chess
//! board (`b1^a3c3:SPLIT_JUMP:BASIC`, no rules, exact probabilities).

use pyo3::prelude::*;
use pyo3::types::PyDict;
use qchess_core::{Bitboard, BoardError, QuantumBoard as _, Square, TypedMove};
use qchess_qasm::export::Export;
use qchess_qasm::sidecar::Setup;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

use crate::errors::{IllegalMoveError, backend_error, message, parse_error};
use crate::export::{parse_format, render};
use crate::python::{json_loads, python_part};

/// An occupancy board that runs typed moves exactly.
#[pyclass(module = "qchess", unsendable)]
pub struct Board {
    board: LocalBoard,
    init: Bitboard,
    seed: u64,
}

/// A board error on a move: the move's own fault, or the board's.
fn move_error(error: BoardError) -> PyErr {
    match error {
        BoardError::InvalidMove { .. } | BoardError::NoMeasurement { .. } | BoardError::ImpossibleOutcome { .. } => {
            IllegalMoveError::new_err(message(&error))
        }
        other => backend_error(&other),
    }
}

#[pymethods]
impl Board {
    /// A board with pieces on the squares of `init`: a u64 bitboard (a1 = bit 0), square names
    /// separated by commas (`"b1,g1"`) or an iterable of names.
    #[new]
    #[pyo3(signature = (init, seed=None))]
    fn new(init: &Bound<'_, PyAny>, seed: Option<u64>) -> PyResult<Board> {
        let bits: u64 = python_part(init.py(), "_board")?.call_method1("occupancy", (init,))?.extract()?;
        let seed = seed.unwrap_or(0);
        let init = Bitboard(bits);
        let board = LocalBoard::with_options(init, LocalBoardOptions { seed, ..Default::default() });
        Ok(Board { board, init, seed })
    }

    /// Runs a typed move (`b1^a3c3:SPLIT_JUMP:BASIC`, `c3d5.m1:JUMP:CAPTURE`); returns its
    /// measurement outcome (1 when the move went ahead, also when it measured nothing).
    fn do_move(&mut self, text: &str) -> PyResult<u8> {
        let mv: TypedMove = text.trim().parse().map_err(|e| parse_error(&format!("move `{}`", text.trim()), e))?;
        let report = self.board.apply(&mv).map_err(move_error)?;
        Ok(u8::from(report.outcome.unwrap_or(report.proceeded)))
    }

    /// Takes back the last move.
    fn undo(&mut self) -> PyResult<()> {
        self.board.undo().map_err(move_error)
    }

    /// The typed moves played, each with the outcome it had.
    #[getter]
    fn history(&self) -> Vec<String> {
        self.board.history().iter().map(|m| m.mv.to_string()).collect()
    }

    /// The 64 occupancy probabilities, a1 = index 0.
    fn probability_list(&mut self) -> PyResult<Vec<f64>> {
        let probabilities = self.board.square_probabilities().map_err(|e| backend_error(&e))?;
        Ok(probabilities.probabilities.to_vec())
    }

    /// Every square's occupancy probability, by square name.
    fn probabilities<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let list = self.probability_list()?;
        let dict = PyDict::new(py);
        for (sq, p) in Square::ALL.iter().zip(list) {
            dict.set_item(sq.to_string(), p)?;
        }
        Ok(dict)
    }

    /// Every occupancy (u64 bitboard) with its probability, most likely first.
    fn distribution(&mut self) -> PyResult<Vec<(u64, f64)>> {
        let distribution = self.board.distribution().map_err(|e| backend_error(&e))?;
        Ok(distribution.into_iter().map(|(b, p)| (b.0, p)).collect())
    }

    /// `shots` occupancies (u64 bitboards) drawn from the state.
    fn sample(&mut self, shots: usize) -> PyResult<Vec<u64>> {
        let boards = self.board.sample(shots).map_err(|e| backend_error(&e))?;
        Ok(boards.into_iter().map(|b| b.0).collect())
    }

    /// The number of basis states.
    #[getter]
    fn state_size(&self) -> usize {
        self.board.state_size()
    }

    /// The board's accumulated circuit as text: `qasm3` (default), `qasm2` or `ionq-json`.
    #[pyo3(signature = (format="qasm3"))]
    fn circuit(&self, format: &str) -> PyResult<String> {
        Ok(render(&self.export()?, parse_format(format)?)?.text)
    }

    /// How to read the circuit's results as a board (see `Game.sidecar`).
    fn sidecar<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &self.export()?.sidecar.to_json())
    }

    /// The board as SVG with probability rings (Jupyter shows it).
    fn _repr_svg_<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let probabilities = self.probabilities(py)?;
        python_part(py, "_svg")?.call_method1("board_svg", (probabilities, PyDict::new(py)))
    }

    fn __repr__(&self) -> String {
        format!("Board(init=0x{:x}, moves={})", self.init.0, self.board.history().len())
    }
}

impl Board {
    /// The board's circuit with its sidecar and setup.
    fn export(&self) -> PyResult<Export> {
        let setup = Setup::Board {
            init: self.init,
            moves: self.board.history().iter().map(|m| m.mv).collect(),
            seed: self.seed,
        };
        Ok(Export::from_register(self.board.register()).map_err(|e| backend_error(&e))?.with_setup(setup))
    }
}
