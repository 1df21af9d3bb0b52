//! `qchess.Game`: a game in official notation on any backend.

use std::time::Duration;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use qchess_core::{PositionSpec, Square};
use qchess_engine::analysis::BELL_STATE_NAMES;
use qchess_engine::game::{is_mode_token, parse_mode_token};
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{Game as EngineGame, GameOptions, PlayedMove, RuleSet};
use qchess_search::player::{MAX_LEVEL, level_config};
use qchess_search::{SearchError, SearchLimits, Searcher};

use crate::backend::{Backend, RemoteOptions};
use crate::errors::{BackendError, IllegalMoveError, game_error, message, parse_error};
use crate::export::{self, Exported};
use crate::python::{json_loads, python_part};

/// A played move: what it was, what it measured and with which probability.
#[pyclass(module = "qchess", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct Move {
    /// The move in official notation with the outcome that happened (`b1wc3.m0`).
    pub notation: String,
    /// The typed move the board ran, as Google's board writes moves
    /// (`b1^a3c3:SPLIT_JUMP:BASIC`, with `.m0`/`.m1` when it measured).
    pub typed: String,
    /// How the move travels: `JUMP`, `SLIDE`, `SPLIT_JUMP`, ... (the typed move's type).
    pub type_: String,
    /// What its targets hold: `BASIC`, `EXCLUDED`, `CAPTURE`.
    pub variant: String,
    /// The measurement outcome (0 or 1), or `None` when the move measured nothing uncertain.
    pub outcome: Option<u8>,
    /// The probability the outcome had before it happened (`None` when it was certain).
    pub probability: Option<f64>,
    /// Whether the move went ahead.
    pub proceeded: bool,
    /// The official result code: `SUCCESS`, `WHITE_WIN`, `BLACK_WIN`, `DRAW`, ...
    pub code: String,
}

#[pymethods]
impl Move {
    /// The move type (also readable as `type_`).
    #[getter(r#type)]
    fn move_type(&self) -> String {
        self.type_.clone()
    }

    fn __repr__(&self) -> String {
        let outcome = match (self.outcome, self.probability) {
            (Some(o), Some(p)) => format!(", outcome={o}, probability={p:.6}"),
            _ => String::new(),
        };
        format!("Move('{}', type='{}', variant='{}'{outcome})", self.notation, self.type_, self.variant)
    }

    fn __str__(&self) -> String {
        self.notation.clone()
    }
}

impl From<&PlayedMove> for Move {
    fn from(played: &PlayedMove) -> Move {
        Move {
            notation: played.notation.to_string(),
            typed: played.typed.to_string(),
            type_: played.typed.move_type.name().to_owned(),
            variant: played.typed.variant.name().to_owned(),
            outcome: played.report.outcome.map(u8::from),
            probability: played.report.outcome_probability,
            proceeded: played.report.proceeded,
            code: played.code.name().to_owned(),
        }
    }
}

/// A game of Quantum Chess: official notation in, exact probabilities out.
#[pyclass(module = "qchess", unsendable)]
pub struct Game {
    game: EngineGame,
    backend: Backend,
}

/// Parses a square name.
pub fn square(name: &str) -> PyResult<Square> {
    name.trim().parse().map_err(|e| parse_error(&format!("square `{name}`"), e))
}

/// Parses `position=`: `startpos`, `fen <FEN>` or a bare FEN, optionally with `moves ...`.
fn position(text: &str) -> PyResult<PositionSpec> {
    let trimmed = text.trim();
    let spelled = match trimmed.split_ascii_whitespace().next() {
        Some("startpos" | "fen" | "position") | None => trimmed.to_owned(),
        Some(_) => format!("fen {trimmed}"),
    };
    spelled.parse().map_err(|e| parse_error("position", e))
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (rules="official", position="startpos", seed=None, backend=None, *, api_key=None,
        target=None, noise_model=None, shots=None, timeout=None, mitigation=false, force_turn=true,
        force_win=true, force_measure=true, ibm_api_key=None, ibm_crn=None, ibm_url=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        rules: &str,
        position: &str,
        seed: Option<u64>,
        backend: Option<&str>,
        api_key: Option<String>,
        target: Option<String>,
        noise_model: Option<String>,
        shots: Option<u64>,
        timeout: Option<f64>,
        mitigation: bool,
        force_turn: bool,
        force_win: bool,
        force_measure: bool,
        ibm_api_key: Option<String>,
        ibm_crn: Option<String>,
        ibm_url: Option<String>,
    ) -> PyResult<Game> {
        let rules: RuleSet = rules.trim().parse().map_err(|e| parse_error("rules", e))?;
        let spec = self::position(position)?;
        let options = GameOptions {
            seed: seed.unwrap_or(0),
            enforce_turn_order: force_turn,
            enforce_win_conditions: force_win,
            force_outcomes: force_measure,
            rules,
            ..GameOptions::default()
        };
        let remote =
            RemoteOptions { api_key, target, noise_model, shots, timeout, mitigation, ibm_api_key, ibm_crn, ibm_url };
        let backend = Backend::resolve(backend, remote)?;
        let start = spec.start.to_fen();
        let mut game = match backend.remote_board(start.occupancy(), options.seed)? {
            None => EngineGame::new(&start, options),
            Some(board) => EngineGame::with_board(&start, options, board),
        }
        .map_err(game_error)?;
        for mv in &spec.moves {
            game.play_notation(mv).map_err(game_error)?;
        }
        Ok(Game { game, backend })
    }

    /// Replays a game record (text), forcing every recorded outcome.
    #[staticmethod]
    fn from_record(text: &str) -> PyResult<Game> {
        let record: GameRecord = text.parse().map_err(|e| parse_error("record", e))?;
        let game = record.replay().map_err(|e| match e {
            qchess_engine::record::ReplayError::Move { source, .. } => game_error(*source),
            other => parse_error("record", other),
        })?;
        Ok(Game { game, backend: Backend::Local })
    }

    /// Plays a move in official notation (`.m0` / `.m1` force its measurement outcome).
    fn r#move(&mut self, notation: &str) -> PyResult<Move> {
        let played = self.game.play(notation).map_err(game_error)?;
        Ok(Move::from(&played))
    }

    /// Plays several moves separated by spaces; returns them as played. Under the checkmate
    /// rules, `mode:classical` / `mode:quantum` between moves switch quantum mode.
    fn play(&mut self, moves: &str) -> PyResult<Vec<Move>> {
        let mut played = Vec::new();
        for text in moves.split_whitespace() {
            if is_mode_token(text) {
                let quantum = parse_mode_token(text).map_err(|e| parse_error("mode", e))?;
                self.set_quantum_mode(quantum)?;
            } else {
                played.push(self.r#move(text)?);
            }
        }
        Ok(played)
    }

    /// Switches quantum mode (checkmate rules: whether pieces may split) without using the
    /// turn; the change is recorded.
    fn set_quantum_mode(&mut self, quantum: bool) -> PyResult<()> {
        self.game.set_quantum_mode(quantum).map(drop).map_err(game_error)
    }

    /// Whether quantum mode is on (splits allowed under the checkmate rules).
    #[getter]
    fn quantum_mode(&self) -> bool {
        self.game.quantum_mode()
    }

    /// Takes back the last move and returns it.
    fn undo(&mut self) -> PyResult<Move> {
        let played = self.game.undo().map_err(game_error)?;
        Ok(Move::from(&played))
    }

    /// Every legal move in official notation.
    fn moves(&self) -> Vec<String> {
        self.game.legal_moves().iter().map(|m| m.notation.to_string()).collect()
    }

    /// The moves played so far.
    #[getter]
    fn history(&self) -> Vec<Move> {
        self.game.moves().iter().map(Move::from).collect()
    }

    /// Every square's occupancy probability, by square name (`a1` ... `h8`).
    fn probabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for sq in Square::ALL {
            dict.set_item(sq.to_string(), self.game.probability(sq))?;
        }
        Ok(dict)
    }

    /// The 64 probabilities as a list, a1 = index 0 ... h8 = index 63.
    fn probability_list(&self) -> Vec<f64> {
        Square::ALL.iter().map(|&sq| self.game.probability(sq)).collect()
    }

    /// The piece that may stand on each square (`"P"`, `"n"`, ...), by square name.
    fn pieces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for sq in Square::ALL {
            if let Some(piece) = self.game.piece_at(sq) {
                dict.set_item(sq.to_string(), piece.char().to_string())?;
            }
        }
        Ok(dict)
    }

    /// `"1-0"`, `"0-1"`, `"1/2-1/2"` or `"*"` while the game goes on.
    #[getter]
    fn result(&self) -> String {
        self.game.result().token().to_owned()
    }

    /// Why the game ended (`None` while it goes on).
    #[getter]
    fn reason(&self) -> Option<String> {
        self.game.end().map(|end| end.reason.text().to_owned())
    }

    /// The classical position (pieces that may be on a square, counters) as FEN.
    #[getter]
    fn fen(&self) -> String {
        self.game.position().to_fen().to_string()
    }

    /// `"white"` or `"black"`.
    #[getter]
    fn turn(&self) -> &'static str {
        match self.game.turn() {
            qchess_core::Color::White => "white",
            qchess_core::Color::Black => "black",
        }
    }

    /// The number of basis states of the quantum state.
    #[getter]
    fn state_size(&self) -> usize {
        self.game.state_size()
    }

    /// The rule set.
    #[getter]
    fn rules(&self) -> &'static str {
        self.game.rules().name()
    }

    /// Where the moves run (`local`, `ionq`, a URL).
    #[getter]
    fn backend(&self) -> String {
        self.backend.label().to_owned()
    }

    /// The game record (tags, moves with every outcome, result) as text.
    #[pyo3(signature = (event="qchess", white="?", black="?"))]
    fn record(&self, event: &str, white: &str, black: &str) -> String {
        let info = RecordInfo {
            event: event.to_owned(),
            white: white.to_owned(),
            black: black.to_owned(),
            backend: self.backend.label().to_owned(),
            ..RecordInfo::default()
        }
        .dated_today();
        GameRecord::from_game(&self.game, &info).to_string()
    }

    /// The search's choice of move here, in official notation, without playing it: `level`
    /// 1 to 6 (the search depth of `qchess play --white ai:LEVEL`), thinking at most
    /// `movetime` seconds, or exactly `depth` plies when given.
    #[pyo3(signature = (level=3, movetime=0.1, depth=None))]
    fn best_move(&self, level: u32, movetime: f64, depth: Option<u32>) -> PyResult<String> {
        if !(1..=MAX_LEVEL).contains(&level) {
            return Err(parse_error("level", format!("{level} is not a level; use 1 to {MAX_LEVEL}")));
        }
        if !(movetime.is_finite() && movetime > 0.0 && movetime <= 86_400.0) {
            return Err(parse_error("movetime", format!("{movetime} is not a number of seconds in (0, 86400]")));
        }
        let (config, level_depth) = level_config(level);
        let limits = SearchLimits {
            depth: Some(depth.unwrap_or(level_depth)),
            movetime: Some(Duration::from_secs_f64(movetime)),
            ..SearchLimits::default()
        };
        let found = Searcher::new(config).search(&self.game, &limits).map_err(|e| match e {
            SearchError::NoLegalMove => IllegalMoveError::new_err(message(&e)),
            other => BackendError::new_err(message(&other)),
        })?;
        // Under the observer rules the best may be a pair (`e5e8|c2c7`), written as played.
        Ok(found.to_play().to_string())
    }

    /// Entanglement of `square` with every other square (log negativity, 0 = none) and, with
    /// `other`, the eight Bell-operator expectations of the pair.
    #[pyo3(signature = (square, other=None))]
    fn analyse<'py>(&mut self, py: Python<'py>, square: &str, other: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
        let first = self::square(square)?;
        let result = PyDict::new(py);
        let entanglement = PyDict::new(py);
        for (sq, value) in Square::ALL.iter().zip(self.game.entanglement(first).map_err(game_error)?) {
            if *sq != first && value > 1e-12 {
                entanglement.set_item(sq.to_string(), value)?;
            }
        }
        result.set_item("square", first.to_string())?;
        result.set_item("probability", self.game.probability(first))?;
        result.set_item("entanglement", entanglement)?;
        if let Some(other) = other {
            let second = self::square(other)?;
            let bell = self.game.bell_correlations(first, second).map_err(game_error)?;
            let values = PyDict::new(py);
            for (name, value) in BELL_STATE_NAMES.iter().zip(bell.values) {
                values.set_item(*name, value)?;
            }
            result.set_item("other", second.to_string())?;
            result.set_item("bell", values)?;
        }
        Ok(result)
    }

    /// The whole game's circuit as text: `qasm3` (default), `qasm2` or `ionq-json`. Every
    /// mid-game measurement is kept as a deferred one; see `sidecar()` for how to read results.
    #[pyo3(signature = (format="qasm3"))]
    fn circuit(&self, format: &str) -> PyResult<String> {
        Ok(export::game_circuit(&self.game, export::parse_format(format)?)?.text)
    }

    /// How to read the circuit's results as a board: the qubit of each square (`squares`), the
    /// occupancy of squares without one (`classical`), the deferred measurements' outcomes to
    /// post-select on (`postselect`) and the measured qubits (`measure`).
    fn sidecar<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let exported = export::game_circuit(&self.game, qchess_qasm::export::Format::Qasm3)?;
        json_loads(py, &exported.sidecar)
    }

    /// One circuit per move: the accumulated circuit after it, each standing alone, with its
    /// sidecar, as `(text, sidecar)` pairs.
    #[pyo3(signature = (format="qasm3"))]
    fn move_circuits<'py>(&self, py: Python<'py>, format: &str) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
        let circuits = export::move_circuits(&self.game, export::parse_format(format)?)?;
        circuits.into_iter().map(|Exported { text, sidecar }| Ok((text, json_loads(py, &sidecar)?))).collect()
    }

    /// The game's circuit as a `qiskit.QuantumCircuit` (needs qiskit), its sidecar in
    /// `metadata["qchess"]`; without `measurements` every measurement is left out, ready for a
    /// statevector simulation.
    #[pyo3(signature = (measurements=true))]
    fn to_qiskit<'py>(&self, py: Python<'py>, measurements: bool) -> PyResult<Bound<'py, PyAny>> {
        let exported = export::game_circuit(&self.game, qchess_qasm::export::Format::Qasm2)?;
        python_part(py, "_interop")?
            .call_method1("to_qiskit", (exported.text, json_loads(py, &exported.sidecar)?, measurements))
    }

    /// The game's circuit as a `cirq.Circuit` (needs cirq) over `cirq.LineQubit`s numbered as
    /// the sidecar numbers qubits; without `measurements` every measurement is left out.
    #[pyo3(signature = (measurements=true))]
    fn to_cirq<'py>(&self, py: Python<'py>, measurements: bool) -> PyResult<Bound<'py, PyAny>> {
        let exported = export::game_circuit(&self.game, qchess_qasm::export::Format::Qasm2)?;
        python_part(py, "_interop")?.call_method1("to_cirq", (exported.text, measurements))
    }

    /// The board as SVG, each piece with a ring whose arc is its square's probability
    /// (Jupyter shows it).
    fn _repr_svg_<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        python_part(py, "_svg")?.call_method1("board_svg", (self.probabilities(py)?, self.pieces(py)?))
    }

    fn __repr__(&self) -> String {
        format!("Game(fen='{}', result='{}', moves={})", self.fen(), self.result(), self.game.moves().len())
    }
}
