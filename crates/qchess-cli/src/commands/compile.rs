//! `qchess compile`: writes a board's accumulated circuit (or one circuit per move) as OpenQASM
//! 2.0, OpenQASM 3.0 or IonQ JSON, each with its JSON sidecar.
//!
//! The moves run on the exact local board, as in `qchess board` (`--init` and typed moves) or
//! `qchess game` (`--position` and official notation, with legality); outcomes not pinned with
//! `.m0` / `.m1` are drawn with `--seed`, the same draws those commands make. The sidecar
//! (see `qchess_qasm::sidecar`) records the outcomes that happened, so that simulating the
//! circuit, keeping the runs that satisfy `postselect` and reading each square's qubit (or its
//! `classical` bit) gives the board's occupancy probabilities. Its `setup` replays the board.
//!
//! Malformed or illegal moves, impossible outcomes and a bad `--init` / `--position` exit with
//! code 2; a board that grows too large or an output directory that cannot be written, 1.

mod output;
mod routed;

use std::path::PathBuf;

use anyhow::{Context as _, Result, anyhow};
use qchess_core::text::excerpt;
use qchess_core::{Notation, PositionSpec, QuantumBoard as _, TypedMove};
use qchess_engine::game::{is_mode_token, parse_mode_token};
use qchess_engine::{Game, GameOptions, RuleSet};
use qchess_qasm::export::{Export, Format};
use qchess_qasm::sidecar::Setup;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

use super::board::{move_error, parse_init};
use super::game::{game_error, new_game};
use crate::backend::BackendArgs;
use crate::exit::{bad_input, bad_input_at};

/// Flags of `qchess compile`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("start").required(true).args(["init", "position"])))]
pub struct Args {
    /// Start an occupancy board here and read --moves as typed moves: a u64 bitboard with a1 as
    /// bit 0 (decimal or 0x hex), or comma-separated squares such as `b1,g1,e2`.
    #[arg(long)]
    init: Option<String>,
    /// Start a game here and read --moves in official notation: `startpos` or `fen <FEN>`,
    /// optionally followed by `moves ...`.
    #[arg(long, value_name = "POSITION")]
    position: Option<String>,
    /// Moves separated by spaces: typed (`b1^a3c3:SPLIT_JUMP:BASIC c3d5.m1:JUMP:CAPTURE`) with
    /// --init, official notation (`b1^a3c3 e7e6 a3c3^b5`) with --position (and, under
    /// `--rules checkmate`, the mode changes `mode:classical` / `mode:quantum`).
    #[arg(long, default_value = "")]
    moves: String,
    /// One circuit per move: the accumulated circuit after each move, each standing alone.
    #[arg(long)]
    per_move: bool,
    /// Output format: qasm2, qasm3 or ionq-json.
    #[arg(long, default_value = "qasm2", value_name = "FORMAT")]
    format: Format,
    /// Write `game.<ext>` and `game.json` (or `move-NNN-<move>.<ext>` and `.json` per move) here.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Seed of the measurement outcomes not pinned with .m0 / .m1.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Route onto a device: ibm-torino, ibm-fez (ibm-heron), ibm-brisbane (ibm-eagle), sycamore,
    /// line:N, grid:RxC, all:N (each optionally @cz, @ecr, @sqrt-iswap, @ionq, @ionq-zz, @prx,
    /// @rigetti-cz or @rigetti-iswap), a target JSON file (IBM's backend configuration, with its
    /// props_*.json beside it, Braket's device capabilities, or our own format), ibm:DEVICE (its
    /// configuration and calibration read from IBM Quantum, with the IBM flags), or braket:DEVICE
    /// (iqm-garnet, iqm-emerald, rigetti-ankaa-3, rigetti-cepheus-1-108q, ionq-forte-enterprise-1
    /// from their published capabilities; another device or an ARN from Braket's GetDevice);
    /// writes its ISA circuit (qasm3 or qasm2; for braket:DEVICE the verbatim program Braket
    /// runs, qasm3).
    #[arg(long, value_name = "NAME|FILE|ibm:DEVICE|braket:DEVICE")]
    target: Option<String>,
    /// With --target ibm:DEVICE: how to reach IBM Quantum.
    #[command(flatten)]
    ibm: crate::backend::IbmArgs,
    /// With --target braket:DEVICE of a device without a published snapshot: how to reach
    /// Amazon Braket.
    #[command(flatten)]
    braket: crate::backend::BraketArgs,
    /// The rules of the game with --position: official, classical, observer or checkmate.
    #[arg(long, default_value = "official", value_name = "RULES", conflicts_with = "init")]
    rules: RuleSet,
}

/// One circuit to write: the board after some moves.
struct Snapshot {
    /// The number of moves played, and the last one as recorded (with its outcome).
    last_move: Option<(usize, String)>,
    export: Export,
}

/// Runs `qchess compile`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let snapshots = match (&args.init, &args.position) {
        (Some(init), None) => board_snapshots(init, &args)?,
        (None, Some(position)) => game_snapshots(position, &args)?,
        _ => return Err(bad_input("give exactly one of --init (typed moves) and --position (official notation)")),
    };
    if snapshots.is_empty() {
        return Err(bad_input("--per-move: no moves were given, so there is no circuit to write"));
    }
    if let Some(spec) = &args.target {
        let exports = snapshots.into_iter().map(|s| (s.last_move, s.export)).collect();
        return routed::run(spec, exports, &args, json);
    }
    let circuits = snapshots
        .into_iter()
        .map(|snapshot| output::Circuit::render(snapshot.last_move, snapshot.export, args.format))
        .collect::<Result<Vec<_>>>()?;
    match &args.out {
        Some(dir) => output::write_files(dir, &circuits, args.per_move, json),
        None if json => output::print_json(&circuits, args.per_move),
        None => output::print_text(&circuits, args.per_move),
    }
}

/// Typed moves on the local occupancy board, as `qchess board` runs them.
fn board_snapshots(init: &str, args: &Args) -> Result<Vec<Snapshot>> {
    let occupancy = parse_init(init).map_err(|e| bad_input(format!("bad --init `{}`: {e}", excerpt(init))))?;
    let moves = args
        .moves
        .split_whitespace()
        .enumerate()
        .map(|(index, text)| text.parse::<TypedMove>().map_err(|e| bad_input(format!("move {}: {e}", index + 1))))
        .collect::<Result<Vec<_>>>()?;
    let options = LocalBoardOptions { seed: args.seed, ..LocalBoardOptions::default() };
    let mut board = LocalBoard::with_options(occupancy, options);
    let snapshot = |board: &LocalBoard| -> Result<Snapshot> {
        let history = board.history();
        let setup = Setup::Board { init: occupancy, moves: history.iter().map(|m| m.mv).collect(), seed: args.seed };
        let export = Export::from_register(board.register()).context("exporting the board's circuit")?;
        Ok(Snapshot {
            last_move: history.last().map(|m| (history.len(), m.mv.to_string())),
            export: export.with_setup(setup),
        })
    };
    let mut snapshots = Vec::new();
    for (index, mv) in moves.iter().enumerate() {
        board.apply(mv).map_err(|e| move_error(index + 1, &mv.to_string(), e))?;
        if args.per_move {
            snapshots.push(snapshot(&board)?);
        }
    }
    if !args.per_move {
        snapshots.push(snapshot(&board)?);
    }
    Ok(snapshots)
}

/// Official moves in a game on the local board, as `qchess game` plays them.
fn game_snapshots(position: &str, args: &Args) -> Result<Vec<Snapshot>> {
    let spec: PositionSpec = position.parse().map_err(|e| bad_input_at("--position", e))?;
    let start = PositionSpec { start: spec.start.clone(), moves: Vec::new() };
    let mut game = new_game(
        &start,
        GameOptions { rules: args.rules, ..GameOptions::with_seed(args.seed) },
        &BackendArgs::local(),
    )?;
    // A move, or a change of the checkmate rules' quantum mode (`mode:classical`), which
    // compiles to nothing but decides whether later splits are allowed.
    let mut moves: Vec<(String, Result<Notation, bool>)> =
        spec.moves.iter().enumerate().map(|(i, mv)| (format!("--position, move {}", i + 1), Ok(*mv))).collect();
    for (index, text) in args.moves.split_whitespace().enumerate() {
        let place = format!("--moves, move {}", index + 1);
        let action = if is_mode_token(text) {
            Err(parse_mode_token(text).map_err(|e| bad_input(format!("{place}: {e}")))?)
        } else {
            Ok(text.parse().map_err(|e| bad_input(format!("{place}: {e}")))?)
        };
        moves.push((place, action));
    }
    let snapshot = |game: &Game| -> Result<Snapshot> {
        let board = game.local_board().ok_or_else(|| anyhow!("the game does not run on the local board"))?;
        let mut export = Export::from_register(board.register()).context("exporting the game's circuit")?;
        if let Some(measured) = game.measured_board() {
            export.measure_every_square(measured).context("recording the measurement of every square")?;
        }
        let played = game.moves();
        let setup = Setup::Game {
            start: spec.start.clone(),
            moves: played.iter().map(|m| m.notation).collect(),
            seed: args.seed,
        };
        Ok(Snapshot {
            last_move: played.last().map(|m| (played.len(), m.notation.to_string())),
            export: export.with_setup(setup),
        })
    };
    let mut snapshots = Vec::new();
    for (place, action) in &moves {
        match action {
            Ok(notation) => game.play_notation(notation).map(drop),
            Err(quantum) => game.set_quantum_mode(*quantum).map(drop),
        }
        .map_err(|e| game_error(e, place.clone()))?;
        if args.per_move && action.is_ok() {
            snapshots.push(snapshot(&game)?);
        }
    }
    if !args.per_move {
        snapshots.push(snapshot(&game)?);
    }
    Ok(snapshots)
}
