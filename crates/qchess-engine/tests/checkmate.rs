//! The checkmate rules (seeds 003 and 004): declared moves that fail, measurements, check and
//! checkmate with superposed kings.

mod common;

use common::{assert_probability, game_under, play_all, sq};
use qchess_core::Color;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{EndReason, Game, GameError, GameOptions, GameResult, RuleSet, RuleViolation};

fn checkmate(fen: &str) -> Game {
    game_under(RuleSet::Checkmate, fen, 0)
}

fn violation(error: GameError) -> RuleViolation {
    match error {
        GameError::Rule { rule, .. } => rule,
        other => panic!("expected a rule violation, got {other:?}"),
    }
}

#[test]
fn a_non_capture_onto_a_square_that_may_hold_a_piece_fails_when_it_does() {
    // Seed 004, section 3: c3 may hold the white knight. .m1: it does, the pawn stays.
    let mut failed = checkmate("startpos");
    play_all(&mut failed, "b1^a3c3 e7e6 c2c3.m1");
    let played = failed.moves().last().expect("played");
    assert!(!played.report.proceeded, "the move failed");
    assert_eq!(played.declared.to_string(), "c2c3.m1");
    assert_eq!(played.collapse.and_then(|c| c.outcome_probability), Some(0.5));
    assert_probability(&failed, "c2", 1.0);
    assert_probability(&failed, "c3", 1.0);
    assert_probability(&failed, "a3", 0.0);
    assert_eq!(failed.piece_at(sq("c3")).map(|p| p.char()), Some('N'));
    assert_eq!(failed.turn(), Color::Black, "a failed move ends the turn");

    let mut moved = checkmate("startpos");
    play_all(&mut moved, "b1^a3c3 e7e6 c2c3.m0");
    assert!(moved.moves().last().is_some_and(|m| m.report.proceeded));
    assert_eq!(moved.piece_at(sq("c3")).map(|p| p.char()), Some('P'));
    assert_probability(&moved, "a3", 1.0);
    assert_probability(&moved, "c2", 0.0);
}

#[test]
fn a_capture_of_a_superposed_piece_fails_when_the_square_is_empty() {
    // Seed 004, section 4: the black knight is on f6 or h6; the bishop declares c1xh6.
    let mut failed = checkmate("startpos");
    play_all(&mut failed, "d2d3 g8^f6h6 c1xh6.m0");
    assert!(!failed.moves().last().expect("played").report.proceeded);
    assert_eq!(failed.piece_at(sq("c1")).map(|p| p.char()), Some('B'), "the attacker stays");
    assert_probability(&failed, "f6", 1.0);
    assert_probability(&failed, "h6", 0.0);

    let mut captured = checkmate("startpos");
    play_all(&mut captured, "d2d3 g8^f6h6 c1xh6.m1");
    assert_eq!(captured.piece_at(sq("h6")).map(|p| p.char()), Some('B'));
    assert_probability(&captured, "f6", 0.0);
    assert_probability(&captured, "c1", 0.0);
}

#[test]
fn a_superposed_attacker_is_measured_first() {
    let mut there = checkmate("startpos");
    play_all(&mut there, "b1^a3c3 d7d5 c3xd5.m1");
    assert_eq!(there.piece_at(sq("d5")).map(|p| p.char()), Some('N'));
    assert_probability(&there, "a3", 0.0);
    let mut elsewhere = checkmate("startpos");
    play_all(&mut elsewhere, "b1^a3c3 d7d5 c3xd5.m0");
    assert_eq!(elsewhere.piece_at(sq("d5")).map(|p| p.char()), Some('p'), "the capture failed");
    assert_probability(&elsewhere, "a3", 1.0);
}

#[test]
fn a_superposed_king_is_in_check_when_either_square_is_attacked() {
    // Seed 003, section 8. The rook on a1 covers f1: a split there leaves the king in check.
    let mut game = checkmate("4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
    assert_eq!(violation(game.play("e1^e2f1").expect_err("f1 is attacked")), RuleViolation::SelfCheck(Color::White));
    play_all(&mut game, "e1^e2f2");
    assert_probability(&game, "e2", 0.5);
    assert_probability(&game, "f2", 0.5);
}

#[test]
fn checkmate_of_a_superposed_king() {
    // The white king splits onto f1 and h1; the rook on a1 attacks both (through nothing that
    // certainly blocks), and no move gets both halves out of check.
    let mut game = checkmate("6k1/8/8/8/8/8/r7/6K1 w - - 0 1");
    play_all(&mut game, "g1^f1h1 a2a1");
    let end = game.end().expect("mate");
    assert_eq!((end.result, end.reason), (GameResult::BlackWins, EndReason::Checkmate));
}

#[test]
fn checkmate_by_a_half_and_stalemate() {
    let mut game = checkmate("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    play_all(&mut game, "a1^a8b1");
    assert_eq!(game.end().map(|e| (e.result, e.reason)), Some((GameResult::WhiteWins, EndReason::Checkmate)));
    let mut stalemate = checkmate("k7/8/2K5/8/8/8/8/7R w - - 0 1");
    play_all(&mut stalemate, "h1^h7b1");
    assert_eq!(stalemate.end().map(|e| (e.result, e.reason)), Some((GameResult::Draw, EndReason::Stalemate)));
}

#[test]
fn measuring_ends_the_turn_and_declarations_are_locked() {
    let mut game = checkmate("startpos");
    play_all(&mut game, "b1^a3c3 e7e6 ?a3.m1");
    assert_eq!(game.moves().last().map(|m| m.declared.to_string()), Some("?a3.m1".to_owned()));
    assert_probability(&game, "a3", 1.0);
    assert_probability(&game, "c3", 0.0);
    assert_eq!(game.turn(), Color::Black);
    assert_eq!(violation(game.play("?e7").expect_err("classical square")), RuleViolation::NotSuperposed(sq("e7")));
    play_all(&mut game, "d8g5");
    assert_eq!(
        violation(game.play("d2d3.m1").expect_err("no measurement")),
        RuleViolation::NoMeasurement(RuleSet::Checkmate)
    );
    let mut merge = checkmate("startpos");
    play_all(&mut merge, "b1^a3c3 e7e6");
    let error = merge.play("a3c3^b5").expect_err("merge");
    assert_eq!(error.to_string(), "a3c3^b5: merges are not allowed under the checkmate rules");
    // A superposed half moves as the official rules move it: no measurement.
    play_all(&mut merge, "a3b5");
    assert_probability(&merge, "b5", 0.5);
    assert_probability(&merge, "c3", 0.5);
}

#[test]
fn quantum_mode_off_refuses_splits() {
    let options = GameOptions { rules: RuleSet::Checkmate, quantum_mode: false, ..GameOptions::default() };
    let mut game = Game::new(&qchess_core::Fen::start(), options).expect("game");
    assert_eq!(violation(game.play("b1^a3c3").expect_err("classical mode")), RuleViolation::QuantumModeOff);
    assert!(game.legal_moves().iter().all(|m| m.typed.squares.shape() == qchess_core::Shape::Standard));
}

#[test]
fn records_replay_failed_moves_and_measurements() {
    let mut game = checkmate("startpos");
    play_all(&mut game, "b1^a3c3 e7e6 c2c3 g8^f6h6 ?f6");
    let record = GameRecord::from_game(&game, &RecordInfo::default());
    assert_eq!(record.tag("Rules"), Some("checkmate"));
    let replayed = record.to_string().parse::<GameRecord>().expect("parses").replay().expect("replays");
    assert_eq!(replayed.probabilities(), game.probabilities());
    for _ in 0..5 {
        game.undo().expect("undo");
    }
    assert_eq!(game.state_size(), 1);
}

#[test]
fn resignation_and_time_end_the_game_and_replay_from_records() {
    let mut game = checkmate("startpos");
    play_all(&mut game, "e2e4 e7e5");
    let end = game.concede(Color::White, EndReason::Resignation).expect("resigns");
    assert_eq!((end.result, end.reason), (GameResult::BlackWins, EndReason::Resignation));
    assert!(matches!(game.play("g1f3"), Err(GameError::GameOver { .. })));
    assert!(game.concede(Color::Black, EndReason::Time).is_err(), "the game is already over");
    let record = GameRecord::from_game(&game, &RecordInfo::default());
    assert_eq!((record.tag("Termination"), record.result), (Some("white resigned"), GameResult::BlackWins));
    let replayed = record.to_string().parse::<GameRecord>().expect("parses").replay().expect("replays");
    assert_eq!(replayed.end().map(|e| e.reason), Some(EndReason::Resignation));

    let mut timed = checkmate("startpos");
    play_all(&mut timed, "e2e4");
    timed.concede(Color::Black, EndReason::Time).expect("flag falls");
    let mut record = GameRecord::from_game(&timed, &RecordInfo::default());
    assert_eq!(record.tag("Termination"), Some("black lost on time"));
    assert_eq!(record.replay().expect("replays").result(), GameResult::WhiteWins);
    record.set_tag("Termination", "abandoned");
    assert!(record.replay().expect_err("unknown").to_string().contains("Termination"));
}
