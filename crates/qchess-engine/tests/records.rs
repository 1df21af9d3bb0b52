//! Records: save, reload and replay exactly; undo; errors that name the move; the examples.

mod common;

use std::path::PathBuf;

use common::{game_from, play_all};
use qchess_core::text::with_causes;
use qchess_core::{Bitboard, Fen};
use qchess_engine::ai::RandomMover;
use qchess_engine::record::{GameRecord, RecordInfo, ReplayError};
use qchess_engine::{Game, GameOptions, GameResult};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

/// A position and its exact distribution over boards.
type State = (qchess_core::Position, Vec<(Bitboard, f64)>);

/// 40 seeded random plies from the start (fewer if the game ends first), with the state
/// before the first ply and after each.
fn random_game(seed: u64) -> (Game, Vec<State>) {
    let mut game = Game::new(&Fen::start(), GameOptions::with_seed(seed)).expect("game");
    let mut ai = RandomMover::new(seed);
    let mut states = vec![(game.position().clone(), game.distribution().expect("exact"))];
    for _ in 0..40 {
        if game.is_over() {
            break;
        }
        ai.play(&mut game).expect("random move");
        states.push((game.position().clone(), game.distribution().expect("exact")));
    }
    (game, states)
}

#[test]
fn a_record_of_40_random_plies_reloads_and_replays_exactly() {
    let dir = tempfile::tempdir().expect("temp dir");
    for seed in [1, 2, 3] {
        let (game, states) = random_game(seed);
        let info = RecordInfo { event: format!("random {seed}"), ..RecordInfo::default() };
        let record = GameRecord::from_game(&game, &info);
        let path = dir.path().join(format!("random-{seed}.pgn"));
        record.save(&path).expect("save");
        let loaded = GameRecord::load(&path).expect("load");
        assert_eq!(loaded, record);
        // Every move that measured a qubit carries its outcome.
        for (played, recorded) in game.moves().iter().zip(&loaded.moves) {
            assert_eq!(played.notation.outcome, played.report.outcome_probability.and(played.report.outcome));
            assert_eq!(recorded.notation.to_string(), played.notation.to_string());
        }
        let replayed = loaded.replay().expect("replay");
        assert_eq!(replayed.position(), game.position(), "seed {seed}");
        assert_eq!(replayed.probabilities().probabilities, game.probabilities().probabilities, "seed {seed}");
        // A board seeded differently replays the same game: the outcomes are forced.
        let other = LocalBoard::with_options(Bitboard::EMPTY, LocalBoardOptions { seed: 999, ..Default::default() });
        let mut on_other = loaded.replay_on(other, GameOptions::with_seed(999)).expect("replay on another seed");
        assert_eq!(on_other.position(), game.position());
        assert_eq!(on_other.distribution().expect("exact"), states.last().expect("states").1);
    }
}

#[test]
fn undo_after_each_random_ply_restores_the_exact_earlier_state() {
    let (mut game, mut states) = random_game(5);
    assert!(game.moves().len() >= 20, "a long enough game");
    while !game.moves().is_empty() {
        game.undo().expect("undo");
        states.pop();
        let (position, distribution) = states.last().expect("earlier state");
        assert_eq!(game.position(), position);
        assert_eq!(&game.distribution().expect("exact"), distribution);
    }
    assert_eq!(states.len(), 1);
}

#[test]
fn replaying_an_impossible_outcome_names_the_move() {
    let record: GameRecord = "1. e2e4 d7d5 2. e4xd5.m0 *".parse().expect("record");
    let error = record.replay().expect_err("impossible");
    assert!(matches!(error, ReplayError::Move { .. }));
    assert_eq!(with_causes(&error), "move 2: e4xd5.m0: outcome m0 has probability 0 here");
    let record: GameRecord = "1. g1^f3h3 e7e5 2. f2f3.m1 e5e4 3. h3g5 e4xf3.m0 *".parse().expect("record");
    let error = record.replay().expect_err("pawn capture of a classical pawn is certain");
    assert!(with_causes(&error).starts_with("move 3...: e4xf3.m0:"), "{error}");
    let illegal: GameRecord = "1. e2e4 e7e5 2. e4e5 *".parse().expect("record");
    let error = illegal.replay().expect_err("illegal");
    assert!(with_causes(&error).starts_with("move 2: e4e5: "), "{error}");
}

#[test]
fn tags_set_the_start_seed_and_options() {
    let text = "[FEN \"4k3/8/8/8/8/8/8/4K3 b - - 0 9\"]\n[Seed \"4\"]\n[TurnOrder \"free\"]\n\n9... e8e7 10. e7e8 *";
    let record: GameRecord = text.parse().expect("record");
    let game = record.replay().expect("replay");
    assert_eq!(game.options().seed, 4);
    assert!(!game.options().enforce_turn_order);
    assert_eq!(game.moves().len(), 2);
    let bad: GameRecord = "[Seed \"x\"]\n*".parse().expect("record");
    assert_eq!(bad.replay().expect_err("seed").to_string(), "tag Seed \"x\": expected a number 0 to 2^64-1");
    let bad: GameRecord = "[FEN \"8/8 w\"]\n*".parse().expect("record");
    assert!(bad.replay().expect_err("fen").to_string().starts_with("tag FEN \"8/8 w\": "));
    let bad: GameRecord = "[Result \"1-0\"]\n1. e2e4 1-0".parse().expect("record");
    assert_eq!(
        bad.replay().expect_err("result").to_string(),
        "the record's result is 1-0, but replaying its moves gives *"
    );
}

#[test]
fn a_fifty_move_claim_records_and_replays_its_measured_board() {
    let mut game = game_from("4k3/8/8/8/8/8/8/4K3 w - - 98 60", 11);
    play_all(&mut game, "e1^d1f1 e8^d8f8");
    let measured = game.measured_board().expect("measured");
    let record = GameRecord::from_game(&game, &RecordInfo::default());
    assert_eq!(record.result, GameResult::Draw);
    let text = record.to_string();
    assert!(text.contains("[MeasuredBoard \""), "{text}");
    // Replayed with other seeds, the recorded board is used.
    let mut reparsed: GameRecord = text.parse().expect("record");
    for seed in 0..4 {
        reparsed.set_tag("Seed", &seed.to_string());
        let replayed = reparsed.replay().expect("replay");
        assert_eq!(replayed.measured_board(), Some(measured));
    }
    // A board that cannot come out is refused.
    reparsed.set_tag("MeasuredBoard", "d1 f1 d8");
    let error = reparsed.replay().expect_err("impossible board");
    assert!(with_causes(&error).ends_with("the measured board d1 f1 d8 has probability 0 here"), "{error}");
    reparsed.set_tag("MeasuredBoard", "z9");
    assert!(reparsed.replay().expect_err("bad square").to_string().contains("`z9` is not a square"));
    let mut unused: GameRecord = "1. e2e4 *".parse().expect("record");
    unused.set_tag("MeasuredBoard", "e1 e8");
    assert!(matches!(unused.replay(), Err(ReplayError::UnusedMeasurement)));
}

/// `examples/` at the top of the workspace.
fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

#[test]
fn every_example_record_replays_to_its_result() {
    let mut count = 0;
    for entry in std::fs::read_dir(examples_dir()).expect("examples/") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("pgn") {
            continue;
        }
        let record = GameRecord::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let game = record.replay().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(game.result(), record.result, "{}", path.display());
        // Printing the replayed game gives back the same moves.
        let again = GameRecord::from_game(&game, &RecordInfo::default());
        let moves = |r: &GameRecord| r.moves.iter().map(|m| m.notation.to_string()).collect::<Vec<_>>();
        assert_eq!(moves(&again), moves(&record), "{}: every outcome is recorded", path.display());
        count += 1;
    }
    assert!(count >= 7, "only {count} example records");
}

#[test]
fn a_bad_start_position_is_named_once() {
    let record: GameRecord = "[FEN \"4k3/8/8/8/8/8/8/4K2P w - - 0 1\"]\n*".parse().expect("record");
    let error = record.replay().expect_err("pawn on the first rank");
    assert_eq!(with_causes(&error), "start position: a white pawn on h1: pawns never stand on the first or last rank");
}
