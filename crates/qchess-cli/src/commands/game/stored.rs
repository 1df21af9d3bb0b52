//! `qchess game --store`: the game is made in the store, then each move of `--position` and
//! `--moves` is played and stored (on a remote backend, claimed and its job recorded before
//! any wait), so the game can be listed, resumed and exported later.

use anyhow::Result;
use qchess_core::{Bitboard, PositionSpec};
use qchess_engine::diagram::Diagram;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{Game, GameOptions};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use serde_json::json;

use super::super::stored::{NewStored, PlayError, StoredPlay, waiting_message};
use super::{Args, game_error, options, output, read_record, replay_error};
use crate::exit::{Verdict, bad_input_at};
use crate::output::print;
use crate::store::Keeper;

/// The game as it starts on the exact local board, its names, and the moves to play after.
fn setup(args: &Args) -> Result<(Game, RecordInfo, Vec<String>, usize)> {
    let mut inputs = Vec::new();
    let (game, info) = match &args.record {
        Some(path) => {
            let record: GameRecord = read_record(path)?;
            let base = record.options().map_err(|e| bad_input_at(path.display().to_string(), e))?;
            let options = options(args, base);
            let local = LocalBoardOptions { seed: options.seed, ..LocalBoardOptions::default() };
            let game = record
                .replay_on(LocalBoard::with_options(Bitboard::EMPTY, local), options)
                .map_err(|e| replay_error(path, e))?;
            let tag = |name: &str, default: &str| record.tag(name).unwrap_or(default).to_owned();
            let info = RecordInfo {
                event: tag("Event", "?"),
                date: tag("Date", "????.??.??"),
                white: tag("White", "?"),
                black: tag("Black", "?"),
                ..RecordInfo::default()
            };
            (game, info)
        }
        None => {
            let spec: PositionSpec = args.position.parse().map_err(|e| bad_input_at("--position", e))?;
            let options = options(args, GameOptions::default());
            let game = Game::new(&spec.start.to_fen(), options).map_err(|e| game_error(e, "--position".to_owned()))?;
            inputs.extend(spec.moves.iter().map(ToString::to_string));
            (game, RecordInfo { event: "qchess game".to_owned(), ..RecordInfo::default() }.dated_today())
        }
    };
    let from_position = inputs.len();
    inputs.extend(args.moves.split_whitespace().map(str::to_owned));
    if args.ignore_outcomes {
        // Outcomes written with the moves are drawn instead; stored so, they are drawn again
        // the same way.
        inputs = inputs
            .into_iter()
            .map(|text| match text.parse::<qchess_core::Notation>() {
                Ok(mut notation) => {
                    if let qchess_core::Notation::Move(mv) = &mut notation {
                        mv.outcome = None;
                    }
                    notation.to_string()
                }
                Err(_) => text,
            })
            .collect();
    }
    Ok((game, info, inputs, from_position))
}

/// Runs `qchess game --store`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let (start, info, inputs, from_position) = setup(&args)?;
    let keeper = Keeper::open(&args.db)?;
    let new = NewStored {
        origin: "game",
        white: info.white.clone(),
        black: info.black.clone(),
        backend: &args.backend,
        info,
        options: json!({}),
    };
    let (mut stored, mut game) = StoredPlay::create(keeper, new, &start)?;
    for (index, input) in inputs.iter().enumerate() {
        let place = if index < from_position {
            format!("--position, move {}", index + 1)
        } else {
            format!("--moves, move {}", index + 1 - from_position)
        };
        match stored.play(&mut game, input, None) {
            Ok(_) => {}
            Err(PlayError::Game(error)) => return Err(game_error(error, place)),
            Err(PlayError::Waiting(why)) => {
                let message = waiting_message(&stored.id, &why);
                if json {
                    print(&format!("{}\n", json!({ "game_id": stored.id, "waiting": true, "message": message })))?;
                } else {
                    print(&format!("{message}\n"))?;
                }
                return Err(anyhow::Error::new(Verdict(message)));
            }
            Err(PlayError::Store(error)) => return Err(error),
        }
    }
    if let Some(path) = &args.save {
        let kept = stored.keeper.block(stored.keeper.store().game(&stored.id))?;
        qchess_store::replay::export(&kept).save(path).map_err(super::save_error)?;
    }
    let text = if json {
        let mut value = output::game_json(&game);
        value["game_id"] = json!(stored.id);
        format!("{value}\n")
    } else {
        let board = output::human(&game, if args.ascii { Diagram::ascii() } else { Diagram::unicode() });
        format!("{board}Kept as game {}.\n", stored.id)
    };
    print(&text)
}
