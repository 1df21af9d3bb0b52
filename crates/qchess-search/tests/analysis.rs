//! Analysis: values of moves from the exact chance nodes, and judgements by expected score.

mod common;

use common::game;
use qchess_core::Notation;
use qchess_search::analysis::{
    AnalysisError, BLUNDER, INACCURACY, Judgement, MISTAKE, evaluate_position, expected_score, review_game, review_move,
};
use qchess_search::{SearchConfig, SearchControl, SearchLimits, WIN, Weights};

fn notation(text: &str) -> Notation {
    text.parse().unwrap()
}

#[test]
fn expected_scores_and_judgements_follow_the_thresholds() {
    assert_eq!(expected_score(0.0), 0.5);
    assert_eq!(expected_score(WIN - 3.0), 1.0);
    assert_eq!(expected_score(-WIN + 3.0), 0.0);
    assert!((expected_score(400.0) - 10.0 / 11.0).abs() < 1e-12);
    assert!((expected_score(150.0) + expected_score(-150.0) - 1.0).abs() < 1e-12);
    assert_eq!(Judgement::of(0.5, true), Judgement::Best);
    assert_eq!(Judgement::of(INACCURACY / 2.0, false), Judgement::Good);
    assert_eq!(Judgement::of(INACCURACY, false), Judgement::Inaccuracy);
    assert_eq!(Judgement::of(MISTAKE, false), Judgement::Mistake);
    assert_eq!(Judgement::of(BLUNDER, false), Judgement::Blunder);
    assert!(Judgement::Mistake.is_marked() && !Judgement::Good.is_marked());
}

/// White's queen faces Black's undefended rook on the d-file: taking it is best, and stepping
/// the king aside (leaving the queen to be taken) a blunder.
#[test]
fn taking_the_rook_is_best_and_leaving_the_queen_en_prise_a_blunder() {
    let position = game("3r4/8/8/8/8/8/k7/3QK3 w - - 0 1", &[]);
    let limits = SearchLimits::depth(2);
    let best =
        review_move(&position, &notation("d1xd8"), SearchConfig::default(), &limits, &SearchControl::new()).unwrap();
    assert_eq!(best.judgement, Judgement::Best, "{best:?}");
    assert_eq!(best.loss, 0.0);
    assert!(best.before > 400.0);
    let blunder =
        review_move(&position, &notation("e1f2"), SearchConfig::default(), &limits, &SearchControl::new()).unwrap();
    assert_eq!(blunder.judgement, Judgement::Blunder, "{blunder:?}");
    assert_eq!(blunder.best.map(|mv| mv.to_string()), Some("d1xd8".to_owned()));
    assert!(blunder.after < -400.0, "{blunder:?}");
    assert!((blunder.loss - (expected_score(blunder.before) - expected_score(blunder.after))).abs() < 1e-12);
}

/// A split that puts half the queen where the rook (defended by its king) takes it is scored
/// by that probability: between keeping the queen safe and putting all of it en prise.
#[test]
fn a_split_that_might_lose_the_queen_is_scored_by_its_probability() {
    let position = game("8/8/8/1k6/1r6/8/8/Q3K3 w - - 0 1", &[]);
    let limits = SearchLimits::depth(2);
    let value = |mv: &str| {
        review_move(&position, &notation(mv), SearchConfig::default(), &limits, &SearchControl::new()).unwrap().after
    };
    let (safe, half, hanging) = (value("a1a2"), value("a1^a2a4"), value("a1a4"));
    assert!(safe > half && half > hanging, "safe {safe}, half {half}, hanging {hanging}");
    // Half the queen is about half of what losing all of it costs.
    let fraction = (safe - half) / (safe - hanging);
    assert!((0.3..0.7).contains(&fraction), "fraction {fraction}: safe {safe}, half {half}, hanging {hanging}");
}

#[test]
fn a_position_evaluation_gives_every_move_and_white_expected_score() {
    let position = game("3r4/8/8/8/8/8/k7/3Q3K b - - 0 1", &[]);
    let evaluation =
        evaluate_position(&position, SearchConfig::default(), &SearchLimits::depth(2), &SearchControl::new()).unwrap();
    assert_eq!(evaluation.best.to_string(), "d8xd1");
    assert!(evaluation.white_expected < 0.5);
    assert_eq!(evaluation.moves.len(), position.legal_moves().len());
    assert!(evaluation.moves.windows(2).all(|pair| pair[0].1 >= pair[1].1));
}

/// A chance on the king is an expected score like any other: the knight, split over f7 and
/// d7, takes the king on h8 from f7 half the time, and leaves a knight against a pawn the
/// other half. White's expected score is exactly the mixture, `0.5 * 1 + 0.5 * E(210)`, not
/// the certain win a centipawn value of half a king capture would read as.
#[test]
fn a_chance_on_the_king_gives_the_mixture_of_expected_scores() {
    let position = game("7k/p7/8/4N3/8/8/8/K7 w - - 0 1", &["e5^f7d7", "a7a6"]);
    let weights = Weights { material: [100.0, 310.0, 330.0, 500.0, 900.0], ..Weights::material_only() };
    let config = SearchConfig { weights, quiescence_plies: 0, ..SearchConfig::default() };
    let evaluation = evaluate_position(&position, config, &SearchLimits::depth(1), &SearchControl::new()).unwrap();
    assert_eq!(evaluation.best.to_string(), "f7xh8");
    // The win one ply on is worth `WIN - 1`, a hair under an expected score of 1.
    let win = (1.0 + (WIN - 1.0) / WIN) / 2.0;
    let wanted = 0.5 * win + 0.5 * expected_score(210.0);
    assert!((evaluation.white_expected - wanted).abs() < 1e-9, "{} against {wanted}", evaluation.white_expected);
}

#[test]
fn a_game_review_judges_every_move_and_marks_the_blunder() {
    let played = game("3r4/8/8/8/8/8/k7/3QK3 w - - 0 1", &["e1f2", "d8xd1", "f2e3"]);
    let record = qchess_engine::record::GameRecord::from_game(&played, &Default::default());
    let mut heard = 0;
    let reviews =
        review_game(&record, SearchConfig::default(), &SearchLimits::depth(2), &SearchControl::new(), &mut |_| {
            heard += 1
        })
        .unwrap();
    assert_eq!((reviews.len(), heard), (3, 3));
    assert_eq!(reviews[0].judgement, Judgement::Blunder);
    assert_eq!(reviews[1].judgement, Judgement::Best);
    assert_eq!(reviews.iter().map(|r| r.ply).collect::<Vec<_>>(), vec![1, 2, 3]);
}

#[test]
fn a_stopped_analysis_says_so_instead_of_judging_on_unfinished_searches() {
    let played = game("3r4/8/8/8/8/8/k7/3QK3 w - - 0 1", &["e1f2", "d8xd1", "f2e3"]);
    let record = qchess_engine::record::GameRecord::from_game(&played, &Default::default());
    let control = SearchControl::new();
    control.stop();
    let limits = SearchLimits::depth(2);
    let stopped = evaluate_position(&played, SearchConfig::default(), &limits, &control);
    assert!(matches!(stopped, Err(AnalysisError::Stopped)), "{stopped:?}");
    let mut heard = 0;
    let review = review_game(&record, SearchConfig::default(), &limits, &control, &mut |_| heard += 1);
    assert!(matches!(review, Err(AnalysisError::Stopped)), "{review:?}");
    assert_eq!(heard, 0);
}
