//! `qchess game`: applies moves in official notation to a position (or to a replayed record)
//! and prints pieces, probabilities, counters and the result.
//!
//! Malformed or illegal moves, impossible forced outcomes, bad positions and unreadable
//! records are input errors (exit code 2); nothing is printed or saved then. A failure of the
//! quantum board (a state too large) exits with code 1.

pub mod output;
mod stored;

use std::path::{Path, PathBuf};

use anyhow::Result;
use qchess_core::{Bitboard, Fen, PositionSpec};
use qchess_engine::diagram::Diagram;
use qchess_engine::game::{is_mode_token, parse_mode_token};
use qchess_engine::record::{FileError, GameRecord, RecordInfo, ReplayError};
use qchess_engine::{Game, GameError, GameOptions, RuleSet};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

use crate::backend::BackendArgs;
use crate::exit::{bad_input, bad_input_at};
use crate::output::print;

/// Flags of `qchess game`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The start: `startpos` or `fen <FEN>`, optionally followed by `moves ...`.
    #[arg(long, default_value = "startpos", value_name = "POSITION", conflicts_with = "record")]
    position: String,
    /// Moves in official notation, separated by spaces (`b1^a3c3 e7e6 a3c3^b5`); `.m0` / `.m1`
    /// force a measurement outcome. Under `--rules checkmate`, `mode:classical` and
    /// `mode:quantum` switch quantum mode between moves without using a turn.
    #[arg(long, default_value = "")]
    moves: String,
    /// Seed of the measurement outcomes not forced (default 0, or the record's).
    #[arg(long)]
    seed: Option<u64>,
    /// Replay a saved game record first (its outcomes are forced), then apply --moves.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,
    /// Save the game record here after the moves (written atomically).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Let either side move at any time.
    #[arg(long)]
    no_turn_order: bool,
    /// Never end the game (no king capture, fifty-move or repetition ending).
    #[arg(long)]
    no_win_check: bool,
    /// The rules (official, classical, observer, checkmate); a record's `Rules` tag otherwise.
    #[arg(long, value_name = "RULES", conflicts_with = "record")]
    rules: Option<RuleSet>,
    /// Ignore `.m0` / `.m1` suffixes and draw every outcome (the official engine's forcemeasure off).
    #[arg(long, conflicts_with = "record")]
    ignore_outcomes: bool,
    /// The checkmate rules' mode: `quantum` (splits allowed, the default) or `classical`.
    #[arg(long, value_name = "MODE", value_parser = ["quantum", "classical"], conflicts_with = "record")]
    mode: Option<String>,
    /// Where the moves run: `--backend local|ionq|URL` and the remote flags.
    #[command(flatten)]
    backend: BackendArgs,
    /// Draw the board with letters instead of Unicode chess symbols.
    #[arg(long)]
    ascii: bool,
    /// Keep the game in the game store (`--db`), move by move; on a remote backend a move whose
    /// job is still waiting at Ctrl-C or `--timeout` stays there for `qchess games resume`.
    #[arg(long)]
    store: bool,
    /// Where a stored game is kept.
    #[command(flatten)]
    db: crate::store::DbArgs,
}

/// Runs `qchess game`.
pub fn run(args: Args, json: bool) -> Result<()> {
    if args.store {
        return stored::run(args, json);
    }
    let (mut game, info) = match &args.record {
        Some(path) => load_record(path, &args)?,
        None => (start_game(&args)?, RecordInfo { event: "qchess game".to_owned(), ..RecordInfo::default() }),
    };
    for (index, text) in args.moves.split_whitespace().enumerate() {
        let place = || format!("--moves, move {}", index + 1);
        if is_mode_token(text) {
            let quantum = parse_mode_token(text).map_err(|e| bad_input_at(place(), e))?;
            game.set_quantum_mode(quantum).map_err(|e| game_error(e, place()))?;
            continue;
        }
        game.play(text).map_err(|e| game_error(e, place()))?;
    }
    if let Some(path) = &args.save {
        let info = RecordInfo { backend: args.backend.backend.to_string(), ..info };
        GameRecord::from_game(&game, &info).save(path).map_err(save_error)?;
    }
    let text = if json {
        format!("{}\n", output::game_json(&game))
    } else {
        output::human(&game, if args.ascii { Diagram::ascii() } else { Diagram::unicode() })
    };
    print(&text)
}

/// The options the flags ask for, over `base`.
pub(crate) fn options(args: &Args, base: GameOptions) -> GameOptions {
    GameOptions {
        seed: args.seed.unwrap_or(base.seed),
        enforce_turn_order: base.enforce_turn_order && !args.no_turn_order,
        enforce_win_conditions: base.enforce_win_conditions && !args.no_win_check,
        force_outcomes: !args.ignore_outcomes,
        rules: args.rules.unwrap_or(base.rules),
        quantum_mode: args.mode.as_deref().map_or(base.quantum_mode, |mode| mode == "quantum"),
    }
}

/// A new game from `--position`, with the position's moves played.
fn start_game(args: &Args) -> Result<Game> {
    let spec: PositionSpec = args.position.parse().map_err(|e| bad_input_at("--position", e))?;
    new_game(&spec, options(args, GameOptions::default()), &args.backend)
}

/// A game on the chosen backend from a position string, with its moves played. On the local
/// backend the game owns a concrete [`LocalBoard`], so its circuit can be exported.
pub fn new_game(spec: &PositionSpec, options: GameOptions, backend: &BackendArgs) -> Result<Game> {
    let start: Fen = spec.start.to_fen();
    let game = if backend.is_local() {
        Game::new(&start, options)
    } else {
        Game::with_board(&start, options, backend.board(start.occupancy(), options.seed)?)
    };
    let mut game = game.map_err(|e| game_error(e, "--position".to_owned()))?;
    for (index, mv) in spec.moves.iter().enumerate() {
        game.play_notation(mv).map_err(|e| game_error(e, format!("--position, move {}", index + 1)))?;
    }
    Ok(game)
}

/// Replays a record, keeping its names for a later save.
fn load_record(path: &Path, args: &Args) -> Result<(Game, RecordInfo)> {
    let record = read_record(path)?;
    let options = options(args, record.options().map_err(|e| bad_input_at(path.display().to_string(), e))?);
    let game = replay(&record, options, &args.backend)?.map_err(|e| replay_error(path, e))?;
    let tag = |name: &str, default: &str| record.tag(name).unwrap_or(default).to_owned();
    let standard = ["Event", "Date", "White", "Black", "Result", "Variant", "Backend", "Seed", "FEN"];
    let extra = record
        .tags
        .iter()
        .filter(|t| {
            !standard.contains(&t.name.as_str())
                && !["TurnOrder", "WinConditions", "MeasuredBoard", "Rules", "Mode"].contains(&t.name.as_str())
        })
        .cloned()
        .collect();
    let info = RecordInfo {
        event: tag("Event", "?"),
        date: tag("Date", "????.??.??"),
        white: tag("White", "?"),
        black: tag("Black", "?"),
        backend: tag("Backend", "local"),
        extra,
    };
    Ok((game, info))
}

/// A record that could not be saved: a path that names no file (a directory, a socket) is bad
/// input; a failing disk is a runtime failure.
pub fn save_error(error: FileError) -> anyhow::Error {
    // The file error names the path.
    let place = "saving the game record";
    match &error {
        FileError::Io { source, .. }
            if matches!(source.kind(), std::io::ErrorKind::IsADirectory | std::io::ErrorKind::InvalidInput) =>
        {
            bad_input_at(place, error)
        }
        _ => anyhow::Error::new(error).context(place),
    }
}

/// Reads a record file; a missing or malformed file is bad input.
pub fn read_record(path: &Path) -> Result<GameRecord> {
    GameRecord::load(path).map_err(|e| match e {
        FileError::Io { .. } | FileError::Parse { .. } => bad_input(e),
    })
}

/// Replays a record on the chosen backend. The outer error is a backend that cannot be set
/// up; the inner one a record that does not replay.
pub fn replay(record: &GameRecord, options: GameOptions, backend: &BackendArgs) -> Result<Result<Game, ReplayError>> {
    Ok(if backend.is_local() {
        let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
        record.replay_on(LocalBoard::with_options(Bitboard::EMPTY, local), options)
    } else {
        record.replay_on(backend.board(Bitboard::EMPTY, options.seed)?, options)
    })
}

/// A replay error: bad input unless the board itself failed.
pub fn replay_error(path: &Path, error: ReplayError) -> anyhow::Error {
    let runtime = matches!(&error, ReplayError::Move { source, .. } if !source.is_input_error());
    let place = path.display().to_string();
    if runtime { anyhow::Error::new(error).context(place) } else { bad_input_at(place, error) }
}

/// A game error with where it happened: bad input, or a runtime failure of the board.
pub fn game_error(error: GameError, place: String) -> anyhow::Error {
    if error.is_input_error() { bad_input_at(place, error) } else { anyhow::Error::new(error).context(place) }
}
