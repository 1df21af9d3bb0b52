//! Game-level rules against hand-derived positions and probabilities.

mod common;

use common::{EXACT, assert_probability, game_from, king, piece, play_all, sq};
use qchess_core::text::with_causes;
use qchess_core::{Bitboard, Color, Fen, MoveType, MoveVariant};
use qchess_engine::{EndReason, Game, GameError, GameOptions, GameResult, MoveCode};

const KINGS: &str = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";

#[test]
fn a_knight_split_and_merged_back_is_fully_home() {
    let mut game = Game::standard();
    play_all(&mut game, "b1^a3c3");
    assert_probability(&game, "a3", 0.5);
    assert_probability(&game, "c3", 0.5);
    assert_eq!(game.piece_at(sq("b1")), None, "the source is certainly empty and loses its label");
    play_all(&mut game, "g8h6 a3c3^b1");
    assert_probability(&game, "b1", 1.0);
    assert_probability(&game, "a3", 0.0);
    assert_probability(&game, "c3", 0.0);
    assert_eq!(game.piece_at(sq("b1")), Some(piece('N')));
    assert_eq!((game.piece_at(sq("a3")), game.piece_at(sq("c3"))), (None, None));
    assert_eq!(game.state_size(), 1, "fully classical again");
}

#[test]
fn the_official_split_and_merge_to_b5() {
    let mut game = Game::standard();
    play_all(&mut game, "b1^a3c3 e7e6 a3c3^b5");
    assert_probability(&game, "b5", 1.0);
    assert_eq!(game.piece_at(sq("b5")), Some(piece('N')));
}

#[test]
fn a_half_that_jumps_away_and_back_sends_the_merge_to_the_other_square() {
    // After the split the state is (i/sqrt2)(|a3> + |c3>). Two iSWAPs (c3 -> e4 -> c3) give
    // the c3 branch i^2 = -1: (i/sqrt2)(|a3> - |c3>). The merge iSWAP^-1(a3,b1) then
    // sqrt-iSWAP^-1(c3,b1) maps that to -i|c3>: the knight is fully on c3, none on b1.
    let mut game = Game::standard();
    play_all(&mut game, "b1^a3c3 g8h6 c3e4 h6g8 e4c3 g8h6 a3c3^b1");
    assert_probability(&game, "c3", 1.0);
    assert_probability(&game, "b1", 0.0);
    assert_probability(&game, "a3", 0.0);
    assert_eq!(game.piece_at(sq("c3")), Some(piece('N')));
    assert_eq!(game.piece_at(sq("b1")), None);
}

#[test]
fn the_official_king_example() {
    let mut game = game_from(KINGS, 0);
    play_all(&mut game, "e1^e2d1 e8^d8f8");
    for square in ["e2", "d1", "d8", "f8"] {
        assert_probability(&game, square, 0.5);
    }
    assert!(game.has_king(Color::White) && game.has_king(Color::Black));
    assert_eq!(game.codes(), vec![MoveCode::Success, MoveCode::Success]);
    assert_eq!(game.distribution().expect("exact").len(), 4);
}

#[test]
fn a_rook_capturing_a_superposed_king_leaves_the_game_running() {
    let mut game = game_from("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", 0);
    play_all(&mut game, "a1^a7a8 e8^d8f8");
    // The capture measures "is the rook on a8?" (probability 1/2); m1: it takes the d8 half.
    let capture = game.play("a8xd8.m1").expect("capture");
    assert_eq!((capture.typed.move_type, capture.typed.variant), (MoveType::Slide, MoveVariant::Capture));
    assert_eq!(capture.report.outcome, Some(true));
    assert!((capture.report.outcome_probability.expect("measured") - 0.5).abs() < EXACT);
    assert_eq!(capture.code, MoveCode::Success);
    assert_eq!(capture.notation.to_string(), "a8xd8.m1");
    assert_probability(&game, "d8", 1.0);
    assert_probability(&game, "a7", 0.0);
    assert_probability(&game, "f8", 0.5);
    assert_eq!(game.piece_at(sq("d8")), Some(piece('R')));
    assert_eq!(game.piece_at(sq("f8")), Some(king(Color::Black)));
    assert_eq!(game.result(), GameResult::Ongoing);
    assert!(game.has_king(Color::Black));
    // Black's king is half there; taking the f8 half (d8 -> f8 passes the empty e8) ends it.
    play_all(&mut game, "f8g8");
    assert_probability(&game, "g8", 0.5);
    let last = game.play("d8xg8").expect("capture");
    assert_eq!(last.report.outcome, Some(true));
    assert!(last.report.outcome_probability.is_none_or(|p| (p - 1.0).abs() < EXACT), "the path is certainly clear");
    assert_eq!(last.code, MoveCode::WhiteWin);
    let end = game.end().expect("ended");
    assert_eq!((end.result, end.reason), (GameResult::WhiteWins, EndReason::KingCaptured));
    assert!(!game.has_king(Color::Black));
    let after = game.play("e1e2").expect_err("over");
    assert!(matches!(after, GameError::GameOver { .. }), "{after}");
    assert_eq!(after.to_string(), "the game is over (1-0, king captured); no more moves");
}

#[test]
fn a_full_king_capture_ends_the_game_for_black_too() {
    let mut game = game_from("4k3/8/8/8/8/8/8/r3K3 b - - 0 1", 0);
    let capture = game.play("a1xe1").expect("capture");
    assert_eq!(capture.code, MoveCode::BlackWin);
    assert_eq!(game.result(), GameResult::BlackWins);
    assert_eq!(game.end().map(|e| e.reason), Some(EndReason::KingCaptured));
}

#[test]
fn the_fifty_move_rule_draws_when_both_kings_remain() {
    let mut game = game_from("4k3/8/8/8/8/8/8/4K3 w - - 99 60", 0);
    let mv = game.play("e1e2").expect("move");
    assert_eq!(game.fifty_move_counter(), 100);
    assert_eq!(mv.code, MoveCode::Draw);
    let end = game.end().expect("ended");
    assert_eq!((end.result, end.code, end.reason), (GameResult::Draw, MoveCode::Draw, EndReason::FiftyMoveRule));
    assert_eq!(game.measured_board(), Some(Bitboard::from_square(sq("e2")).with(sq("e8"))));
    // Superposed kings are measured: each lands on one of its squares, and both remain.
    for seed in 0..8 {
        let mut game = game_from("4k3/8/8/8/8/8/8/4K3 w - - 98 60", seed);
        play_all(&mut game, "e1^d1f1");
        assert_eq!(game.fifty_move_counter(), 99);
        let mv = game.play("e8^d8f8").expect("split");
        assert_eq!(mv.code, MoveCode::Draw);
        let measured = game.measured_board().expect("measured");
        assert_eq!(measured.count(), 2);
        assert!(measured.contains(sq("d1")) ^ measured.contains(sq("f1")));
        assert!(measured.contains(sq("d8")) ^ measured.contains(sq("f8")));
        assert!(game.position().superposed().is_empty());
        assert_eq!(game.distribution().expect("measured"), vec![(measured, 1.0)]);
    }
}

#[test]
fn the_fifty_move_counter_resets_when_the_piece_count_changes_by_one() {
    // A capture of a whole piece resets the counter; a split does not.
    let mut game = game_from("4k3/8/8/8/8/8/p7/R3K3 w - - 40 30", 0);
    play_all(&mut game, "e1^e2d1");
    assert_eq!(game.fifty_move_counter(), 41);
    play_all(&mut game, "e8e7 a1xa2");
    assert_eq!(game.fifty_move_counter(), 0);
    // Half a piece captured twice: the count drops by 1/2, then by 1 in total.
    let mut game = game_from("3nk3/8/8/8/8/8/8/3RK3 b - - 10 30", 0);
    play_all(&mut game, "d8^c6e6 e1e2");
    assert_eq!(game.fifty_move_counter(), 12);
    play_all(&mut game, "e8f8 d1d6 f8e8 d6xe6");
    assert!((game.probabilities().expected_piece_count() - 3.5).abs() < EXACT);
    assert_eq!(game.fifty_move_counter(), 16, "only half a piece gone");
    play_all(&mut game, "e8f8 e6xc6.m1");
    assert!((game.probabilities().expected_piece_count() - 3.0).abs() < EXACT);
    assert_eq!(game.fifty_move_counter(), 0);
}

#[test]
fn threefold_repetition_of_a_classical_position_draws() {
    let mut game = game_from(KINGS, 0);
    play_all(&mut game, "e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1");
    assert_eq!(game.result(), GameResult::Ongoing);
    let mv = game.play("e7e8").expect("move");
    assert_eq!(mv.code, MoveCode::Draw);
    assert_eq!(game.end().map(|e| e.reason), Some(EndReason::ThreefoldRepetition));
    // A split and merge back is a classical repetition too (the start, then after ply 4).
    let mut game = game_from(KINGS, 0);
    play_all(&mut game, "e1^e2d2 e8e7 e2d2^e1 e7e8");
    assert_eq!(game.result(), GameResult::Ongoing, "two occurrences so far");
    play_all(&mut game, "e1^e2d2 e8e7 e2d2^e1");
    assert_eq!(game.play("e7e8").expect("move").code, MoveCode::Draw);
    // Superposed positions are never compared: Black shuffles while White's king is split.
    let free = GameOptions { enforce_turn_order: false, ..GameOptions::default() };
    let mut game = Game::new(&KINGS.parse::<Fen>().expect("fen"), free).expect("game");
    play_all(&mut game, "e1^e2d2 e8e7 e7e8 e8e7 e7e8 e8e7 e7e8");
    assert_eq!(game.result(), GameResult::Ongoing, "the same superposed position three times");
}

#[test]
fn a_pawn_stepping_onto_a_superposed_knight_has_two_exact_outcomes() {
    for (outcome, pawn_on_f3) in [(".m1", true), (".m0", false)] {
        let mut game = Game::standard();
        play_all(&mut game, "g1^f3h3 a7a6");
        let step = game.play(&format!("f2f3{outcome}")).expect("step");
        assert_eq!((step.typed.move_type, step.typed.variant), (MoveType::PawnStep, MoveVariant::Excluded));
        assert!((step.report.outcome_probability.expect("measured") - 0.5).abs() < EXACT);
        assert_eq!(step.report.proceeded, pawn_on_f3);
        if pawn_on_f3 {
            // f3 was empty: the knight is all on h3 and the pawn steps.
            assert_probability(&game, "f3", 1.0);
            assert_probability(&game, "h3", 1.0);
            assert_probability(&game, "f2", 0.0);
            assert_eq!(game.piece_at(sq("f3")), Some(piece('P')));
            assert_eq!(game.piece_at(sq("h3")), Some(piece('N')));
        } else {
            // f3 held the knight: it is all there, h3 is empty and the pawn stays.
            assert_probability(&game, "f3", 1.0);
            assert_probability(&game, "h3", 0.0);
            assert_probability(&game, "f2", 1.0);
            assert_eq!(game.piece_at(sq("f3")), Some(piece('N')));
            assert_eq!(game.piece_at(sq("h3")), None);
        }
        assert_eq!(game.turn(), Color::Black, "m0 still uses the turn");
    }
}

#[test]
fn castling_rights_follow_the_king_and_rooks() {
    let mut game = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 0);
    play_all(&mut game, "h1h2");
    assert_eq!(game.castling().to_string(), "Qkq");
    play_all(&mut game, "e8c8");
    assert_eq!(game.piece_at(sq("c8")), Some(king(Color::Black)));
    assert_eq!(game.piece_at(sq("d8")), Some(piece('r')));
    assert_eq!(game.piece_at(sq("a8")), None);
    assert_eq!(game.castling().to_string(), "Q");
    // A capture on a rook's square removes that right.
    let mut game = game_from("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", 0);
    play_all(&mut game, "h8xh1");
    assert_eq!(game.castling().to_string(), "Qq");
    // A king that splits loses both rights, even if it merges back.
    let mut game = game_from("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", 0);
    play_all(&mut game, "e1^e2d2 a8b8 e2d2^e1");
    assert_eq!(game.castling().to_string(), "k");
    assert!(game.play("b8a8").is_ok());
    let err = game.play("e1g1").expect_err("no right");
    assert_eq!(err.to_string(), "e1g1: White no longer has the right to castle king side");
}

#[test]
fn en_passant_and_promotion() {
    let mut game = game_from("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1", 0);
    play_all(&mut game, "d7d5");
    assert_eq!(game.en_passant(), Some(sq("d6")));
    let ep = game.play("e5d6").expect("en passant");
    assert_eq!(ep.typed.move_type, MoveType::PawnEp);
    assert_probability(&game, "d6", 1.0);
    assert_probability(&game, "d5", 0.0);
    assert_eq!(game.piece_at(sq("d6")), Some(piece('P')));
    assert_eq!(game.piece_at(sq("d5")), None);
    assert_eq!(game.en_passant(), None);

    let mut game = game_from("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", 0);
    play_all(&mut game, "b7b8q");
    assert_eq!(game.piece_at(sq("b8")), Some(piece('Q')));
    assert_eq!(game.piece_at(sq("b7")), None);
    assert_eq!(game.position().to_fen().to_string(), "1Q2k3/8/8/8/8/8/8/4K3 b - - 1 1");
}

#[test]
fn refused_moves_leave_the_game_untouched() {
    let mut game = Game::standard();
    play_all(&mut game, "g1^f3h3 d7d5 e2e4 e7e6");
    let before = (game.position().clone(), game.distribution().expect("exact"), game.moves().to_vec());
    let cases = [
        ("d2d5", "d2d5: a pawn moves one square forward, or two from its starting rank"),
        ("e2e9", "bad move `e2e9`: expected a square (a1-h8) at `e9`"),
        ("d5d4", "d5d4: d5 holds a black pawn, but it is White's turn"),
        ("b1^a3c3.m1", "an outcome was given but this move makes no measurement"),
        ("e4xd5.m0", "outcome m0 has probability 0 here"),
        ("e4wd5", "but here this move is CAPTURE"),
        ("0000", "the null move 0000 is not allowed"),
        ("", "the move is empty"),
    ];
    for (text, expected) in cases {
        let error = game.play(text).expect_err(text);
        assert!(with_causes(&error).contains(expected), "{text}: {error}");
        assert!(error.is_input_error(), "{text}: {error}");
        assert_eq!(game.position(), &before.0, "{text}");
        assert_eq!(game.distribution().expect("exact"), before.1, "{text}");
        assert_eq!(game.moves(), &before.2[..], "{text}");
    }
    // The certain outcome may be written out.
    assert_eq!(game.play("e4xd5.m1").expect("capture").report.outcome_probability, None);
}

#[test]
fn options_turn_order_and_win_conditions() {
    let free = GameOptions { enforce_turn_order: false, enforce_win_conditions: false, ..GameOptions::default() };
    let mut game = Game::new(&"4k3/8/8/8/8/8/8/r3K3 w - - 0 1".parse::<Fen>().expect("fen"), free).expect("game");
    play_all(&mut game, "e1d1");
    assert_eq!(game.turn(), Color::Black);
    play_all(&mut game, "d1e1");
    assert_eq!(game.turn(), Color::Black, "the opponent of the piece that moved is to move");
    let capture = game.play("a1xe1").expect("capture");
    assert_eq!(capture.code, MoveCode::Success, "win conditions are off");
    assert_eq!(game.result(), GameResult::Ongoing);
    assert!(!game.has_king(Color::White));
    assert!(game.play("e8e7").is_ok());

    // Without forced outcomes, suffixes are ignored and outcomes drawn.
    let unforced = GameOptions { force_outcomes: false, ..GameOptions::with_seed(3) };
    let mut game = Game::new(&Fen::start(), unforced).expect("game");
    play_all(&mut game, "b1^a3c3.m1 e7e6");
    assert!(game.moves()[0].notation.outcome.is_none());
}

#[test]
fn undo_restores_everything() {
    let mut game = game_from("4k3/8/8/8/8/8/8/4K3 w - - 99 60", 0);
    let start = game.position().clone();
    play_all(&mut game, "e1e2");
    assert!(game.is_over());
    let undone = game.undo().expect("undo");
    assert_eq!(undone.notation.to_string(), "e1e2");
    assert_eq!(game.position(), &start);
    assert!(!game.is_over());
    assert_eq!(game.measured_board(), None);
    assert!(matches!(game.undo(), Err(GameError::NothingToUndo)));
}

#[test]
fn both_kings_measured_away_is_a_mutual_win() {
    // Free turn order: White's king splits and Black's rook takes its e2 half; Black's king
    // splits twice (e7 1/2, c8 1/4, c7 1/4) and White's rook takes the c8 quarter. The piece
    // count fell by 3/4 only, so the counter reaches 100 and every square is measured. The
    // board with neither king (probability 1/2 * 1/4) is forced here, as a replay would.
    let free = GameOptions { enforce_turn_order: false, ..GameOptions::default() };
    let fen: Fen = "R3k3/8/8/8/8/8/7r/4K3 w - - 95 60".parse().expect("fen");
    let mut game = Game::new(&fen, free).expect("game");
    game.set_pending_measurement(Some(Bitboard::from_square(sq("e2")).with(sq("c8"))));
    play_all(&mut game, "e1^e2d2 h2xe2 e8^e7d8 d8^c8c7");
    assert!((game.probabilities().expected_piece_count() - 3.5).abs() < EXACT);
    let last = game.play("a8xc8").expect("capture");
    assert_eq!(last.code, MoveCode::MutualWin);
    let end = game.end().expect("ended");
    assert_eq!((end.result, end.reason), (GameResult::Draw, EndReason::FiftyMoveRule));
    assert!(!game.has_king(Color::White) && !game.has_king(Color::Black));
}
