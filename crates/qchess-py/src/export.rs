//! A game's or board's accumulated circuit as OpenQASM 2.0 / 3.0 or IonQ JSON with its JSON
//! sidecar, as `qchess compile` writes them.

use pyo3::PyResult;
use qchess_engine::Game;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_qasm::export::{Export, Format};
use qchess_qasm::sidecar::Setup;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

use crate::errors::{backend_error, game_error, parse_error};

/// One exported circuit: its text in the asked format and its sidecar as JSON.
pub struct Exported {
    /// The program (or IonQ JSON) text.
    pub text: String,
    /// The sidecar JSON: how to read the circuit's results as a board.
    pub sidecar: String,
}

/// Parses `format=`.
pub fn parse_format(format: &str) -> PyResult<Format> {
    format.parse().map_err(|e| parse_error("format", e))
}

/// Renders `export` in `format`.
pub fn render(export: &Export, format: Format) -> PyResult<Exported> {
    let rendered = export.render(format).map_err(|e| backend_error(&e))?;
    Ok(Exported { text: rendered.text(), sidecar: export.sidecar.to_json() })
}

/// The export of a game on the local board as it stands.
fn local_export(game: &Game, seed: u64) -> PyResult<Export> {
    let board = game.local_board().ok_or_else(|| backend_error(&NotLocal))?;
    let mut export = Export::from_register(board.register()).map_err(|e| backend_error(&e))?;
    if let Some(measured) = game.measured_board() {
        export.measure_every_square(measured).map_err(|e| backend_error(&e))?;
    }
    let start = qchess_core::StartPosition::Fen(game.start_fen().clone());
    let setup = Setup::Game { start, moves: game.moves().iter().map(|m| m.notation).collect(), seed };
    Ok(export.with_setup(setup))
}

/// The game replayed on the local board with every outcome forced, so a game on any backend
/// has the circuit of the moves that happened.
fn local_replay(game: &Game) -> PyResult<Game> {
    let record = GameRecord::from_game(game, &RecordInfo::default());
    let seed = game.options().seed;
    let board =
        LocalBoard::with_options(qchess_core::Bitboard::EMPTY, LocalBoardOptions { seed, ..Default::default() });
    record.replay_on(board, game.options()).map_err(|e| match e {
        qchess_engine::record::ReplayError::Move { source, .. } => game_error(*source),
        other => backend_error(&other),
    })
}

/// The whole game's circuit.
pub fn game_circuit(game: &Game, format: Format) -> PyResult<Exported> {
    let seed = game.options().seed;
    match game.local_board() {
        Some(_) => render(&local_export(game, seed)?, format),
        None => render(&local_export(&local_replay(game)?, seed)?, format),
    }
}

/// One circuit per move: the accumulated circuit after each move, each standing alone.
pub fn move_circuits(game: &Game, format: Format) -> PyResult<Vec<Exported>> {
    let replayed = local_replay(game)?;
    let mut step = Game::new(replayed.start_fen(), game.options()).map_err(game_error)?;
    let mut circuits = Vec::with_capacity(replayed.moves().len());
    step.set_pending_measurement(replayed.measured_board());
    for played in replayed.moves() {
        step.play_notation(&played.notation.into()).map_err(game_error)?;
        circuits.push(render(&local_export(&step, game.options().seed)?, format)?);
    }
    Ok(circuits)
}

/// The game does not run on the local board (cannot happen after a replay).
#[derive(Debug)]
struct NotLocal;

impl std::fmt::Display for NotLocal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the game does not run on the local board")
    }
}

impl std::error::Error for NotLocal {}
