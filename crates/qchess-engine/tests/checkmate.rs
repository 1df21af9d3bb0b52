//! The checkmate rules (seeds 003 and 004): declared moves that fail, measurements, check and
//! checkmate with superposed kings.

mod common;

use common::{assert_probability, game_under, play_all, sq, two_sided_binomial};
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
fn a_measurement_that_undoes_a_two_step_takes_its_en_passant_square_with_it() {
    // The pawn's two-step passed a3, where half the bishop may stand. b4a3.m1 finds the bishop
    // on a3 (the move onto a square it may hold fails), so the pawn never left a2: a4 is
    // empty and no pawn can be taken en passant.
    let mut game = checkmate("startpos");
    play_all(&mut game, "e2e3 e7e6 c2c4 f8^b4a3 a2a4");
    assert_eq!(game.en_passant(), Some(sq("a3")));
    play_all(&mut game, "b4a3.m1");
    assert_probability(&game, "a4", 0.0);
    assert_probability(&game, "a2", 1.0);
    assert_eq!(game.en_passant(), None);
    // The other outcome keeps the pawn on a4; the move is over, so the square goes anyway.
    let mut moved = checkmate("startpos");
    play_all(&mut moved, "e2e3 e7e6 c2c4 f8^b4a3 a2a4 b4a3.m0");
    assert_probability(&moved, "a4", 1.0);
    assert_eq!(moved.en_passant(), None);
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

    let mut agreed = checkmate("startpos");
    play_all(&mut agreed, "d2d4 d7d5");
    let end = agreed.agree_draw().expect("both agree");
    assert_eq!((end.result, end.reason), (GameResult::Draw, EndReason::Agreement));
    assert!(agreed.agree_draw().is_err() && agreed.concede(Color::White, EndReason::Resignation).is_err());
    let record = GameRecord::from_game(&agreed, &RecordInfo::default());
    assert_eq!((record.tag("Termination"), record.result), (Some("draw agreed"), GameResult::Draw));
    let replayed = record.to_string().parse::<GameRecord>().expect("parses").replay().expect("replays");
    assert_eq!(replayed.end().map(|e| e.reason), Some(EndReason::Agreement));
}

#[test]
fn quantum_mode_toggles_between_plies_without_using_the_turn() {
    let mut game = checkmate("startpos");
    play_all(&mut game, "e2e4");
    let off = game.set_quantum_mode(false).expect("mode:classical");
    assert_eq!((off.quantum, off.before_ply, game.turn()), (false, 1, Color::Black), "the turn stays");
    assert_eq!(
        violation(game.play("b8^a6c6").expect_err("split with quantum mode off")),
        RuleViolation::QuantumModeOff
    );
    assert_eq!(
        violation(game.set_quantum_mode(false).expect_err("already off")),
        RuleViolation::ModeAlreadySet { quantum: false }
    );
    play_all(&mut game, "e7e5");
    game.set_quantum_mode(true).expect("mode:quantum");
    play_all(&mut game, "b1^a3c3");
    assert_probability(&game, "a3", 0.5);

    // The record writes both changes where they happened and replays them.
    let record = GameRecord::from_game(&game, &RecordInfo::default());
    let text = record.to_string();
    assert!(text.contains("1. e2e4 mode:classical 1... e7e5 mode:quantum 2. b1^a3c3"), "{text}");
    let parsed = text.parse::<GameRecord>().expect("parses");
    assert_eq!(parsed, record);
    let replayed = parsed.replay().expect("replays");
    assert_eq!(replayed.mode_changes(), game.mode_changes());
    assert_eq!(replayed.probabilities(), game.probabilities());
    assert!(replayed.quantum_mode());

    // Undoing a ply takes back the changes made after it, not those before it.
    game.undo().expect("undo b1^a3c3");
    assert_eq!(game.mode_changes().len(), 2);
    game.undo().expect("undo e7e5");
    assert!(!game.quantum_mode(), "the change before e7e5 stays");
    game.undo().expect("undo e2e4");
    assert!(game.quantum_mode() && game.mode_changes().is_empty());
}

#[test]
fn mode_changes_belong_to_the_checkmate_rules_only() {
    let mut official = Game::standard();
    assert_eq!(
        violation(official.set_quantum_mode(false).expect_err("official")),
        RuleViolation::NoModeToggle(RuleSet::Official)
    );
    let bad = "1. e2e4 mode:both *".parse::<GameRecord>().expect_err("bad token");
    assert_eq!((bad.line, bad.column), (1, 9));
    assert!(bad.to_string().contains("`mode:both` is not a mode change"), "{bad}");
    let replay = "[Rules \"classical\"]\n\n1. e2e4 mode:classical *".parse::<GameRecord>().expect("parses").replay();
    let error = qchess_core::text::with_causes(&replay.expect_err("classical has no quantum mode"));
    assert!(error.starts_with("move 1... mode:classical"), "{error}");
    assert!(error.contains("only the checkmate rules have a quantum mode"), "{error}");
}

/// Two split knights (a3/c3 and c4/e4) and a rook that slid c1-c5 through both: it moved only
/// in the branch where c3 and c4 are both empty. Four branches of 1/4, all six squares one group.
const TWO_KNIGHTS_AND_A_ROOK: &str = "4k3/8/8/8/7r/8/3N4/1NR1K3 w - - 0 1";
const ENTANGLING: &str = "b1^a3c3 e8d8 d2^c4e4 d8e8 c1c5";
const GROUP: [&str; 6] = ["a3", "c3", "c4", "e4", "c1", "c5"];

fn assert_group_collapsed(game: &Game) {
    for square in GROUP {
        let p = game.probability(sq(square));
        assert!(p == 0.0 || p == 1.0, "{square} is still uncertain ({p}) after the group collapsed");
    }
    assert_eq!(game.probability(sq("a3")) + game.probability(sq("c3")), 1.0, "one knight on a3 or c3");
    assert_probability(game, "e1", 1.0);
}

#[test]
fn a_measurement_collapses_the_whole_entangled_group() {
    let mut game = checkmate(TWO_KNIGHTS_AND_A_ROOK);
    play_all(&mut game, ENTANGLING);
    assert_probability(&game, "c5", 0.25);
    assert_probability(&game, "a3", 0.5);
    let group = qchess_engine::analysis::entangled_group(&game.distribution().expect("distribution"), sq("c5"));
    let expected = GROUP.iter().fold(qchess_core::Bitboard::EMPTY, |b, s| b.with(sq(s)));
    assert_eq!(group, expected);
    // The rook is not on c5 (3/4). Measuring c5 alone would leave a3 at 1/3 and c4 at 2/3;
    // the whole group collapses instead, and the declared square keeps its .m0.
    play_all(&mut game, "h4h5 ?c5.m0");
    assert_eq!(game.moves().last().map(|m| m.declared.to_string()), Some("?c5.m0".to_owned()));
    assert_probability(&game, "c5", 0.0);
    assert_probability(&game, "c1", 1.0);
    assert_group_collapsed(&game);
    assert_eq!(game.probability(sq("c4")) + game.probability(sq("e4")), 1.0, "one knight on c4 or e4");
    assert_eq!(game.state_size(), 1);
    assert_probability(&game, "h5", 1.0);

    // The record replays the group's draws from its seed.
    let record = GameRecord::from_game(&game, &RecordInfo::default());
    let replayed = record.to_string().parse::<GameRecord>().expect("parses").replay().expect("replays");
    assert_eq!(replayed.probabilities(), game.probabilities());
    game.undo().expect("undo");
    assert_probability(&game, "a3", 0.5);
    assert_probability(&game, "c5", 0.25);
}

#[test]
fn a_declared_move_collapses_the_group_before_it_is_validated() {
    // The black rook's non-capture onto e4 measures e4: .m0, the knight is on c4, so the white
    // rook is on c1; the first knight, in the same group, collapses too, 50/50.
    const GAMES: u64 = 200;
    let mut on_a3 = 0;
    for seed in 0..GAMES {
        let mut game = game_under(RuleSet::Checkmate, TWO_KNIGHTS_AND_A_ROOK, seed);
        play_all(&mut game, &format!("{ENTANGLING} h4e4.m0"));
        let played = game.moves().last().expect("played");
        assert!(played.report.proceeded, "e4 was empty, the rook moved");
        assert_eq!(played.declared.to_string(), "h4e4.m0");
        assert_probability(&game, "e4", 1.0);
        assert_eq!(game.piece_at(sq("e4")).map(|p| p.char()), Some('r'));
        assert_probability(&game, "c4", 1.0);
        assert_probability(&game, "c1", 1.0);
        assert_group_collapsed(&game);
        on_a3 += u64::from(game.probability(sq("a3")) == 1.0);
    }
    let p = two_sided_binomial(GAMES, on_a3);
    assert!(p > 1e-6, "the knight was on a3 in {on_a3} of {GAMES} collapses, p = {p}");

    // .m1: the knight is on e4, the move fails, the rook stays; the group still collapses.
    let mut failed = checkmate(TWO_KNIGHTS_AND_A_ROOK);
    play_all(&mut failed, &format!("{ENTANGLING} h4e4.m1"));
    assert!(!failed.moves().last().expect("played").report.proceeded);
    assert_probability(&failed, "h4", 1.0);
    assert_eq!(failed.piece_at(sq("e4")).map(|p| p.char()), Some('N'));
    assert_group_collapsed(&failed);
}

#[test]
fn a_capture_whose_board_measurement_is_certain_is_recorded_without_an_outcome() {
    // The queen splits to d6 and d8; the knight's move onto d6 finds it empty (`.m0`), so the
    // queen is certainly on d8. Its square is still a qubit of the board's circuit, and taking
    // the knight measures that qubit, with probability 1. The rules see no measurement there
    // (neither square is superposed), so the record must write none: a `d8xd6.m1` does not
    // replay ("this move makes no measurement").
    let mut game = checkmate("startpos");
    play_all(&mut game, "c2c4 c7c6 g1f3 d8c7 f3^d4h4 b7b6 h2h4.m1 c7^d6d8 h4f5 d7d5 f5d6.m0");
    assert!(game.position().superposed().is_empty());
    let capture = game.play("d8xd6").expect("plays");
    assert_eq!(capture.report.outcome_probability, Some(1.0), "the board measured a certain qubit");
    assert_eq!(capture.declared.to_string(), "d8xd6");
    let record = GameRecord::from_game(&game, &RecordInfo::default());
    let replayed = record.to_string().parse::<GameRecord>().expect("parses").replay().expect("replays");
    assert_eq!(replayed.probabilities(), game.probabilities());
    assert_eq!(replayed.piece_at(sq("d6")).map(|p| p.char()), Some('q'));
}
