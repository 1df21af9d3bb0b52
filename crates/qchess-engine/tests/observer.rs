//! The observer rules (seed 001): its examples, constructed positions, and the 50/50 collapse.

mod common;

use common::{assert_probability, game_under, play_all, sq};
use qchess_core::Notation;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{EndReason, Game, GameError, GameResult, RuleSet, RuleViolation};

/// Seed 001's pieces: a white queen on e4 and a black rook on e3 (kings out of the way).
const QUEEN_AND_ROOK: &str = "6k1/8/8/8/4Q3/4r3/8/K7 w - - 0 1";

fn observer(fen: &str, seed: u64) -> Game {
    game_under(RuleSet::Observer, fen, seed)
}

fn violation(error: GameError) -> RuleViolation {
    match error {
        GameError::Rule { rule, .. } => rule,
        other => panic!("expected a rule violation, got {other:?}"),
    }
}

#[test]
fn a_split_puts_the_queen_on_two_squares_and_blocks_on_both() {
    let mut game = observer(QUEEN_AND_ROOK, 0);
    play_all(&mut game, "e4^e5c2");
    assert_probability(&game, "e5", 0.5);
    assert_probability(&game, "c2", 0.5);
    // The black rook cannot slide through e5 to e6.. nor along rank 3 past... it can go e4:
    let moves: Vec<String> = game.legal_notations().iter().map(ToString::to_string).collect();
    assert!(moves.contains(&"e3e4".to_owned()));
    assert!(moves.contains(&"e3xe5".to_owned()), "the attack on the superposed queen: {moves:?}");
    assert!(!moves.iter().any(|m| m == "e3e6"), "a superposed piece blocks the slide");
}

#[test]
fn defensive_superposition_captures_only_when_the_queen_is_there() {
    let mut found = observer(QUEEN_AND_ROOK, 0);
    play_all(&mut found, "e4^e5c2 e3xe5.m1");
    let played = found.moves().last().expect("played");
    assert_eq!(played.declared.to_string(), "e3xe5.m1");
    let collapse = played.collapse.expect("a collapse");
    assert_eq!((collapse.outcome, collapse.outcome_probability), (Some(true), Some(0.5)));
    assert_probability(&found, "e5", 1.0);
    assert_probability(&found, "c2", 0.0);
    assert_eq!(found.piece_at(sq("e5")).map(|p| p.char()), Some('r'));
    assert_eq!(found.piece_at(sq("c2")), None);

    let mut missed = observer(QUEEN_AND_ROOK, 0);
    play_all(&mut missed, "e4^e5c2 e3e5.m0");
    assert_eq!(missed.moves().last().map(|m| m.declared.to_string()), Some("e3e5.m0".to_owned()));
    assert_probability(&missed, "e5", 1.0);
    assert_probability(&missed, "c2", 1.0);
    assert_eq!(missed.piece_at(sq("e5")).map(|p| p.char()), Some('r'));
    assert_eq!(missed.piece_at(sq("c2")).map(|p| p.char()), Some('Q'));
    assert_eq!(missed.state_size(), 1, "the collapse made the board classical again");
}

#[test]
fn offensive_superposition_plays_the_half_that_survives() {
    for (outcome, queen, empty) in [("m1", "e8", "c7"), ("m0", "c7", "e8")] {
        let mut game = observer(QUEEN_AND_ROOK, 0);
        play_all(&mut game, &format!("e4^e5c2 g8f8 e5e8|c2c7.{outcome}"));
        assert_probability(&game, queen, 1.0);
        assert_probability(&game, empty, 0.0);
        assert_probability(&game, "e5", 0.0);
        assert_probability(&game, "c2", 0.0);
        assert_eq!(game.moves().last().map(|m| m.declared.to_string()), Some(format!("e5e8|c2c7.{outcome}")));
    }
    // A half that captures: from c2 the queen takes nothing, from e5 it takes the rook on e3.
    let mut game = observer(QUEEN_AND_ROOK, 0);
    play_all(&mut game, "e4^e5c2 g8f8 e5xe3|c2c3.m1");
    assert_eq!(game.piece_at(sq("e3")).map(|p| p.char()), Some('Q'));
    assert_eq!(game.moves().last().map(|m| m.declared.to_string()), Some("e5xe3|c2c3.m1".to_owned()));
}

#[test]
fn quantum_check_comes_from_either_half_without_collapse() {
    // The rook half on a8 checks the king on g8; the king may not step into its line.
    let mut game = observer("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 0);
    play_all(&mut game, "a1^a8b1");
    assert_eq!(game.end().map(|e| (e.result, e.reason)), Some((GameResult::WhiteWins, EndReason::Checkmate)));
    assert_probability(&game, "a8", 0.5);

    let mut escape = observer("6k1/5pp1/8/8/8/8/8/R5K1 w - - 0 1", 0);
    play_all(&mut escape, "a1^a8b1");
    assert_eq!(escape.result(), GameResult::Ongoing, "h7 is free");
    assert_eq!(
        violation(escape.play("g8f8").expect_err("into the half's line")),
        RuleViolation::SelfCheck(qchess_core::Color::Black)
    );
    play_all(&mut escape, "g8h7");
}

#[test]
fn quantum_stalemate_is_a_draw() {
    // The black king on a8 is not attacked, but a7 and b7 are covered by the h7 half (and the
    // king on c6), b8 by the b1 half.
    let mut game = observer("k7/8/2K5/8/8/8/8/7R w - - 0 1", 0);
    play_all(&mut game, "h1^h7b1");
    assert_eq!(game.end().map(|e| (e.result, e.reason)), Some((GameResult::Draw, EndReason::Stalemate)));
}

#[test]
fn bad_moves_name_the_rule_they_break() {
    let mut game = observer(QUEEN_AND_ROOK, 0);
    play_all(&mut game, "e4^e5c2 g8f8");
    assert_eq!(violation(game.play("e5^e6e7").expect_err("split again")), RuleViolation::SplitSuperposed(sq("e5")));
    assert_eq!(
        violation(game.play("e5e8").expect_err("a lone half")),
        RuleViolation::HalfNeedsPair { square: sq("e5"), other: sq("c2") }
    );
    assert_eq!(violation(game.play("e5e8|a1a2").expect_err("not the pair")), RuleViolation::UndefinedPair);
    assert_eq!(
        violation(game.play("e5e8|c2d4").expect_err("no such half move")),
        RuleViolation::UndefinedHalf { from: sq("c2"), to: sq("d4") }
    );
    assert_eq!(violation(game.play("c2e5^e4").expect_err("merge")), RuleViolation::NoMerge(RuleSet::Observer));
    let error = game.play("e5e8").expect_err("a lone half");
    assert!(error.is_input_error());
    assert!(error.to_string().starts_with("e5e8: e5 holds half of a superposed"), "{error}");
    assert_eq!(game.moves().len(), 2, "refused moves change nothing");
}

#[test]
fn records_replay_pairs_and_collapses() {
    let mut game = observer(QUEEN_AND_ROOK, 3);
    play_all(&mut game, "e4^e5c2 g8f8 e5e8|c2c7");
    let record = GameRecord::from_game(&game, &RecordInfo::default());
    assert_eq!(record.tag("Rules"), Some("observer"));
    let last = record.moves.last().expect("moves").notation;
    assert!(matches!(last, Notation::Pair(..)) && last.outcome().is_some(), "{last}");
    let replayed: Game = record.to_string().parse::<GameRecord>().expect("parses").replay().expect("replays");
    assert_eq!(replayed.probabilities(), game.probabilities());
    game.undo().expect("undo");
    assert_probability(&game, "e5", 0.5);
    assert_eq!(game.state_size(), 2);
}

/// The probability, under a fair coin, of a count at least as far from n/2 as `k`.
fn two_sided_binomial(n: u64, k: u64) -> f64 {
    let ln_choose = |i: u64| -> f64 { (1..=i).map(|j| ((n - i + j) as f64 / j as f64).ln()).sum() };
    let distance = (2 * k).abs_diff(n);
    (0..=n).filter(|&i| (2 * i).abs_diff(n) >= distance).map(|i| (ln_choose(i) - n as f64 * 2f64.ln()).exp()).sum()
}

#[test]
fn collapses_are_fifty_fifty() {
    const GAMES: u64 = 400;
    let mut defended = 0;
    let mut offended = 0;
    for seed in 0..GAMES {
        let mut game = observer(QUEEN_AND_ROOK, seed);
        play_all(&mut game, "e4^e5c2 e3e5");
        defended += u64::from(game.piece_at(sq("c2")).is_none());
        let mut game = observer(QUEEN_AND_ROOK, seed);
        play_all(&mut game, "e4^e5c2 g8f8 e5e8|c2c7");
        offended += u64::from(game.probability(sq("e8")) > 0.5);
    }
    for (name, count) in [("defensive", defended), ("offensive", offended)] {
        let p = two_sided_binomial(GAMES, count);
        assert!(p > 1e-6, "{name}: {count} of {GAMES} found the queen on the measured square, p = {p}");
    }
    assert!((two_sided_binomial(10, 5) - 1.0).abs() < 1e-12 && two_sided_binomial(100, 0) < 1e-29);
}
