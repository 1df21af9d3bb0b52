//! Classical (FIDE) chess played through the game: results, refusals, records.

mod common;

use common::{game_under, play_all};
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{EndReason, GameError, GameResult, MoveCode, RuleSet, RuleViolation};

fn classical(fen: &str) -> qchess_engine::Game {
    game_under(RuleSet::Classical, fen, 0)
}

#[test]
fn fools_mate_and_scholars_mate_end_the_game() {
    let mut game = classical("startpos");
    play_all(&mut game, "f2f3 e7e5 g2g4 d8h4");
    let end = game.end().expect("mate");
    assert_eq!((end.result, end.code, end.reason), (GameResult::BlackWins, MoveCode::BlackWin, EndReason::Checkmate));
    assert!(matches!(game.play("a2a3"), Err(GameError::GameOver { .. })));

    let mut game = classical("startpos");
    play_all(&mut game, "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5xf7");
    assert_eq!(game.result(), GameResult::WhiteWins);
    assert_eq!(game.end().map(|e| e.reason), Some(EndReason::Checkmate));
    assert!(game.legal_moves().is_empty());
}

#[test]
fn a_back_rank_mate_with_a_capture() {
    let mut game = classical("6k1/p4ppp/8/8/8/8/8/R3r1K1 w - - 0 1");
    play_all(&mut game, "a1xe1");
    assert_eq!(game.result(), GameResult::Ongoing);
    play_all(&mut game, "a7a6 e1e8");
    assert_eq!((game.result(), game.end().map(|e| e.reason)), (GameResult::WhiteWins, Some(EndReason::Checkmate)));
}

#[test]
fn stalemate_is_a_draw() {
    // Black king h8, white queen to g6 leaves it no move and not in check.
    let mut game = classical("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1");
    play_all(&mut game, "g1g6");
    let end = game.end().expect("stalemate");
    assert_eq!((end.result, end.code, end.reason), (GameResult::Draw, MoveCode::Draw, EndReason::Stalemate));
}

#[test]
fn threefold_repetition_is_a_draw_on_the_third_occurrence() {
    let mut game = classical("startpos");
    play_all(&mut game, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
    assert_eq!(game.result(), GameResult::Ongoing, "the start position has occurred twice only");
    play_all(&mut game, "f6g8");
    let end = game.end().expect("third time");
    assert_eq!((end.result, end.reason), (GameResult::Draw, EndReason::ThreefoldRepetition));
}

#[test]
fn fifty_moves_without_pawn_move_or_capture_draw() {
    let mut game = classical("4k3/8/8/8/8/8/4P3/R3K3 w - - 98 60");
    play_all(&mut game, "a1a2");
    assert_eq!(game.fifty_move_counter(), 99);
    play_all(&mut game, "e8d8");
    assert_eq!(game.end().map(|e| e.reason), Some(EndReason::FiftyMoveRule));
    // A pawn move resets the counter, which the official counter (piece count) would not.
    let mut game = classical("4k3/8/8/8/8/8/4P3/R3K3 w - - 98 60");
    play_all(&mut game, "e2e3");
    assert_eq!(game.fifty_move_counter(), 0);
}

#[test]
fn insufficient_material_after_the_last_capture() {
    let mut game = classical("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1");
    play_all(&mut game, "e1xd2");
    let end = game.end().expect("bare kings");
    assert_eq!((end.result, end.reason), (GameResult::Draw, EndReason::InsufficientMaterial));
}

#[test]
fn quantum_moves_self_check_and_castling_through_check_are_refused() {
    let mut game = classical("startpos");
    let rule = |error: GameError| match error {
        GameError::Rule { mv, rule } => (mv, rule),
        other => panic!("expected a rule violation, got {other:?}"),
    };
    assert_eq!(
        rule(game.play("b1^a3c3").expect_err("split")),
        ("b1^a3c3".to_owned(), RuleViolation::QuantumMove(RuleSet::Classical))
    );
    let merge = game.play("a3c3^b5").expect_err("merge");
    assert!(matches!(merge, GameError::Rule { rule: RuleViolation::QuantumMove(_), .. }), "{merge:?}");
    assert_eq!(rule(game.play("e2e4.m1").expect_err("outcome")).1, RuleViolation::NoMeasurement(RuleSet::Classical));
    assert_eq!(game.moves().len(), 0, "refused moves change nothing");

    let mut pinned = classical("4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1");
    let error = pinned.play("e2d3").expect_err("pinned bishop");
    assert_eq!(error.to_string(), "e2d3: it leaves the white king in check");
    assert!(error.is_input_error());

    let mut castle = classical("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1");
    assert_eq!(
        rule(castle.play("e1g1").expect_err("through f1? f2 rook attacks f1")).1,
        RuleViolation::CastleThroughCheck
    );
    play_all(&mut castle, "e1c1");
}

#[test]
fn legal_moves_are_the_classical_ones_with_their_typed_moves() {
    let game = classical("startpos");
    let moves = game.legal_moves();
    assert_eq!(moves.len(), 20);
    assert!(moves.iter().all(|m| m.typed.squares.shape() == qchess_core::Shape::Standard));
    // In check only the evasions are listed.
    let check = classical("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1");
    let mut evasions: Vec<String> = check.legal_moves().iter().map(ToString::to_string).collect();
    evasions.sort();
    assert_eq!(evasions, ["e1d1", "e1f1", "e1xe2"]);
}

#[test]
fn records_carry_the_rules_and_replay_under_them() {
    let mut game = classical("startpos");
    play_all(&mut game, "f2f3 e7e5 g2g4 d8h4");
    let record = GameRecord::from_game(&game, &RecordInfo::default());
    assert_eq!(record.tag("Rules"), Some("classical"));
    let text = record.to_string();
    let parsed: GameRecord = text.parse().expect("parses back");
    let replayed = parsed.replay().expect("replays");
    assert_eq!((replayed.rules(), replayed.result()), (RuleSet::Classical, GameResult::BlackWins));

    // Without the tag the record is official: no mate, the game goes on, and a record whose
    // result says otherwise does not replay.
    let mut untagged = parsed.clone();
    untagged.tags.retain(|t| t.name != "Rules");
    assert!(untagged.replay().is_err(), "official rules give no result for fool's mate");
    untagged.result = GameResult::Ongoing;
    let official = untagged.replay().expect("official replay");
    assert_eq!((official.rules(), official.result()), (RuleSet::Official, GameResult::Ongoing));

    let mut bad = parsed;
    bad.set_tag("Rules", "chess960");
    assert!(bad.replay().expect_err("unknown rules").to_string().contains("tag Rules \"chess960\""));
}

#[test]
fn undo_restores_the_position_before_mate() {
    let mut game = classical("startpos");
    play_all(&mut game, "f2f3 e7e5 g2g4 d8h4");
    game.undo().expect("undo");
    assert_eq!(game.result(), GameResult::Ongoing);
    play_all(&mut game, "d8g5");
    assert_eq!(game.result(), GameResult::Ongoing);
    assert_eq!(game.state_size(), 1, "classical chess never uses a qubit");
}
