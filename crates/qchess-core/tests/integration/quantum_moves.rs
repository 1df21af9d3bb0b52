//! Legal moves of the official game in constructed positions, superposed ones above all.
//!
//! Each expectation is derived by hand from the rules in seed 000 and DESIGN.md section 3.

use std::collections::BTreeSet;

use qchess_core::{LegalMove, MoveType, MoveVariant, Position};

use crate::common::{classical, quantum};

use MoveType::*;
use MoveVariant::*;

fn listed(position: &Position) -> Vec<String> {
    position.legal_moves().iter().map(LegalMove::to_string).collect()
}

/// `canonical` is legal with this type and variant, is listed, and its bare form (no `x`/`w`)
/// is accepted as the same move.
#[track_caller]
fn assert_legal(position: &Position, canonical: &str, move_type: MoveType, variant: MoveVariant) {
    let legal = position.parse_move(canonical).unwrap_or_else(|e| panic!("{canonical}: {e}"));
    assert_eq!((legal.move_type(), legal.variant()), (move_type, variant), "{canonical}");
    assert_eq!(legal.to_string(), canonical);
    let bare = canonical.replacen('x', "", 1).replacen('w', "", 1);
    assert_eq!(position.parse_move(&bare).map(|m| m.typed), Ok(legal.typed), "bare form {bare}");
    let all = position.legal_moves();
    assert!(all.contains(&legal), "{canonical} is legal but not listed in {:?}", listed(position));
}

/// `text` is refused with a message that names it and contains `reason`.
#[track_caller]
fn assert_refused(position: &Position, text: &str, reason: &str) {
    let err = position.parse_move(text).expect_err(text).to_string();
    assert!(err.starts_with(&format!("{text}: ")), "{err}");
    assert!(err.contains(reason), "{text}: expected `{reason}` in `{err}`");
}

/// `text` is refused with a message containing `reason`, and nothing with its squares is listed.
#[track_caller]
fn assert_illegal(position: &Position, text: &str, reason: &str) {
    assert_refused(position, text, reason);
    let squares = text.trim_start_matches(|c: char| c.is_ascii_uppercase()).replacen(['x', 'w'], "", 1);
    assert!(!listed(position).iter().any(|m| m.replacen(['x', 'w'], "", 1) == squares), "{text} is refused but listed");
}

#[test]
fn the_start_position_has_twenty_standard_moves_and_two_knight_splits() {
    let start = Position::start();
    let moves = start.legal_moves();
    let names: BTreeSet<String> = moves.iter().map(LegalMove::to_string).collect();
    let mut expected: BTreeSet<String> = BTreeSet::new();
    for file in "abcdefgh".chars() {
        expected.insert(format!("{file}2{file}3"));
        expected.insert(format!("{file}2{file}4"));
    }
    for knight in ["b1a3", "b1c3", "g1f3", "g1h3", "b1^a3c3", "g1^f3h3"] {
        expected.insert(knight.to_owned());
    }
    assert_eq!(names, expected);
    assert_eq!(moves.len(), 22, "no duplicates");
    for mv in &moves {
        let expected_type = match mv.to_string().as_str() {
            "b1^a3c3" | "g1^f3h3" => SplitJump,
            "b1a3" | "b1c3" | "g1f3" | "g1h3" => Jump,
            text if text.ends_with('3') => PawnStep,
            _ => PawnTwoStep,
        };
        assert_eq!((mv.move_type(), mv.variant()), (expected_type, Basic), "{mv}");
    }
}

#[test]
fn black_to_move_mirrors_the_start() {
    let position = classical("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    let names = listed(&position);
    assert_eq!(names.len(), 22);
    assert!(names.contains(&"b8^a6c6".to_owned()) && names.contains(&"g8^f6h6".to_owned()));
    assert!(names.contains(&"e7e5".to_owned()));
}

#[test]
fn after_a_knight_split_the_halves_merge_and_pawns_meet_them_in_superposition() {
    let position = quantum("rnbqkbnr/pppppppp/8/8/8/N1N5/PPPPPPPP/R1BQKBNR w KQkq - 0 1", &[("a3", 0.5), ("c3", 0.5)]);
    // Merges onto the squares both halves reach: b1 and b5.
    assert_legal(&position, "a3c3^b1", MergeJump, Basic);
    assert_legal(&position, "a3c3^b5", MergeJump, Basic);
    let merges: Vec<String> = listed(&position).into_iter().filter(|m| m.find('^') == Some(4)).collect();
    assert_eq!(merges, ["a3c3^b1", "a3c3^b5"]);
    // A pawn stepping onto a superposed piece of its own side is excluded; a two-step passes it.
    assert_legal(&position, "a2wa3", PawnStep, Excluded);
    assert_legal(&position, "c2wc3", PawnStep, Excluded);
    assert_legal(&position, "a2a4", PawnTwoStep, Basic);
    assert_legal(&position, "c2c4", PawnTwoStep, Basic);
    // The rook may now slide to the emptied b1.
    assert_legal(&position, "a1b1", Slide, Basic);
    // Each half splits again onto free squares; certainly full own pieces are no targets.
    assert_legal(&position, "c3^b1e4", SplitJump, Basic);
    assert_legal(&position, "a3^b1c4", SplitJump, Basic);
    assert_illegal(&position, "c3e2", "e2 certainly holds a white pawn");
    assert_illegal(&position, "c3^b1e2", "split target e2 holds a white pawn");
    let c3_splits = listed(&position).into_iter().filter(|m| m.starts_with("c3^")).count();
    assert_eq!(c3_splits, 10, "pairs of b1, a4, e4, b5, d5");
    let a3_splits = listed(&position).into_iter().filter(|m| m.starts_with("a3^")).count();
    assert_eq!(a3_splits, 3, "pairs of b1, c4, b5");
}

#[test]
fn slides_pass_superposed_squares_and_stop_at_certain_ones() {
    let position = quantum("4k3/p7/8/n7/8/8/8/R3K3 w - - 0 1", &[("a5", 0.5)]);
    assert_legal(&position, "a1xa5", Slide, Capture);
    assert_legal(&position, "a1a6", Slide, Basic);
    assert_legal(&position, "a1xa7", Slide, Capture);
    assert_illegal(&position, "a1a8", "the path from a1 to a8 passes a7, which certainly holds a black pawn");
    assert_refused(&position, "a1wa5", "`w` marks a EXCLUDED move, but here this move is CAPTURE");
}

#[test]
fn own_superposed_pieces_are_excluded_targets_and_certain_ones_are_not_targets() {
    let superposed = quantum("4k3/8/8/8/B7/8/8/R3K3 w - - 0 1", &[("a4", 0.5)]);
    assert_legal(&superposed, "a1wa4", Slide, Excluded);
    assert_legal(&superposed, "a1a8", Slide, Basic);
    assert_refused(&superposed, "a1xa4", "`x` marks a CAPTURE move, but here this move is EXCLUDED");
    let certain = classical("4k3/8/8/8/B7/8/8/R3K3 w - - 0 1");
    assert_illegal(&certain, "a1a4", "a4 certainly holds a white bishop");
    assert_illegal(&certain, "a1a5", "passes a4, which certainly holds a white bishop");
    // Same kind: basic whatever its probability.
    let rooks = quantum("4k3/8/8/8/R7/8/8/R3K3 w - - 0 1", &[("a4", 0.3)]);
    assert_legal(&rooks, "a1a4", Slide, Basic);
}

#[test]
fn jumps_take_the_variant_of_their_target() {
    let position = quantum("4k3/8/8/8/8/2b1n3/3P4/1N2K3 w - - 0 1", &[("c3", 0.5), ("d2", 0.5)]);
    assert_legal(&position, "b1xc3", Jump, Capture);
    assert_legal(&position, "b1wd2", Jump, Excluded);
    assert_legal(&position, "b1a3", Jump, Basic);
    // Kings may step next to, or capture, anything: there is no check.
    assert_legal(&position, "e1wd2", Jump, Excluded);
    assert_legal(&position, "e1f2", Jump, Basic);
    let certain = classical("4k3/8/8/8/8/2b1n3/3P4/1N2K3 w - - 0 1");
    assert_illegal(&certain, "b1d2", "d2 certainly holds a white pawn");
    assert_legal(&certain, "e1f1", Jump, Basic);
}

#[test]
fn kings_may_walk_into_attack_and_be_captured() {
    let position = classical("4k3/8/8/8/8/8/3q4/4K3 w - - 0 1");
    assert_legal(&position, "e1xd2", Jump, Capture);
    assert_legal(&position, "e1d1", Jump, Basic);
    assert_legal(&position, "e1f2", Jump, Basic);
    let black = classical("4k3/3Q4/8/8/8/8/8/4K3 b - - 0 1");
    assert_legal(&black, "e8xd7", Jump, Capture);
}

#[test]
fn pawn_steps_by_what_the_target_holds() {
    let superposed = quantum("4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1", &[("e3", 0.5)]);
    assert_legal(&superposed, "e2we3", PawnStep, Excluded);
    assert_legal(&superposed, "e2e4", PawnTwoStep, Basic);
    let certain = classical("4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1");
    assert_illegal(&certain, "e2e3", "e3 certainly holds a black knight; a pawn steps only onto");
    assert_illegal(&certain, "e2e4", "the path from e2 to e4 passes e3, which certainly holds a black knight");
    let own_pawn = quantum("4k3/8/8/8/8/4P3/4P3/4K3 w - - 0 1", &[("e3", 0.5)]);
    assert_legal(&own_pawn, "e2e3", PawnStep, Basic);
    let two_step_excluded = quantum("4k3/8/8/8/4N3/8/4P3/4K3 w - - 0 1", &[("e4", 0.25)]);
    assert_legal(&two_step_excluded, "e2we4", PawnTwoStep, Excluded);
    let not_home = classical("4k3/8/8/8/8/4P3/8/4K3 w - - 0 1");
    assert_illegal(&not_home, "e3e5", "a pawn moves one square forward, or two from its starting rank");
    assert_illegal(&not_home, "e3e2", "a pawn moves one square forward, or two from its starting rank");
    assert_illegal(&not_home, "e3c4", "and captures one square diagonally forward");
}

#[test]
fn pawns_capture_diagonally_only_opponents() {
    let position = quantum("4k3/8/8/8/8/3n1B2/4P3/4K3 w - - 0 1", &[("d3", 0.5), ("f3", 0.5)]);
    assert_legal(&position, "e2xd3", PawnCapture, Capture);
    assert_illegal(&position, "e2f3", "a pawn captures only the opponent's pieces, and f3 holds a white bishop");
    let empty = classical("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_illegal(&empty, "e2d3", "a pawn moves diagonally only to capture, and d3 is empty");
    let black = classical("4k3/4p3/3N4/8/8/8/8/4K3 b - - 0 1");
    assert_legal(&black, "e7xd6", PawnCapture, Capture);
}

#[test]
fn en_passant_variants() {
    let fen = "4k3/8/3B4/3pP3/8/8/8/4K3 w - d6 0 1";
    let empty = classical("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    assert_legal(&empty, "e5d6", PawnEp, Basic);
    let own_superposed = quantum(fen, &[("d6", 0.5)]);
    assert_legal(&own_superposed, "e5wd6", PawnEp, Excluded);
    let own_certain = classical(fen);
    assert_illegal(&own_certain, "e5d6", "d6 certainly holds a white bishop");
    let opponent = quantum("4k3/8/3n4/3pP3/8/8/8/4K3 w - d6 0 1", &[("d6", 0.5)]);
    assert_legal(&opponent, "e5xd6", PawnEp, Capture);
    let own_pawn = quantum("4k3/8/3P4/3pP3/8/8/8/4K3 w - d6 0 1", &[("d6", 0.5)]);
    assert_legal(&own_pawn, "e5d6", PawnEp, Basic);
    // Without the en-passant square the diagonal needs something to capture.
    let stale = classical("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1");
    assert_illegal(&stale, "e5d6", "d6 is empty");
    let black = classical("4k3/8/8/8/3Pp3/8/8/4K3 b - d3 0 1");
    assert_legal(&black, "e4d3", PawnEp, Basic);
}

#[test]
fn promotions_need_a_piece_letter() {
    let position = classical("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    for letter in ["q", "r", "b", "n"] {
        assert_legal(&position, &format!("a7a8{letter}"), PawnStep, Basic);
        assert_legal(&position, &format!("a7xb8{letter}"), PawnCapture, Capture);
    }
    assert_illegal(&position, "a7a8", "a pawn reaching the last rank must promote");
    assert_illegal(&position, "e1e2q", "only a pawn reaching the last rank promotes");
    let promotion = position.parse_move("a7a8n").expect("legal");
    assert_eq!(promotion.typed.to_string(), "a7a8N:PAWN_STEP:BASIC");
    let black = classical("4k3/8/8/8/8/8/p7/4K3 b - - 0 1");
    let promotion = black.parse_move("a2a1q.m1").expect("legal");
    assert_eq!(promotion.typed.to_string(), "a2a1q.m1:PAWN_STEP:BASIC");
    assert_eq!(listed(&black).iter().filter(|m| m.starts_with("a2a1")).count(), 4);
}

#[test]
fn castling_variants_king_side() {
    let fen = "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    assert_legal(&classical(fen), "e1g1", KsCastle, Basic);
    assert_legal(&classical(fen), "e1c1", QsCastle, Basic);
    // A superposed rook of the castling side on f1 (the h-rook split) keeps the castle basic.
    let split_rook = quantum("4k3/8/8/8/8/8/8/R3KR1R w KQ - 0 1", &[("f1", 0.5), ("h1", 0.5)]);
    assert_legal(&split_rook, "e1g1", KsCastle, Basic);
    let bishop_on_f = quantum("4k3/8/8/8/8/8/8/R3KB1R w KQ - 0 1", &[("f1", 0.5)]);
    assert_legal(&bishop_on_f, "e1wg1", KsCastle, Excluded);
    let knight_on_g = quantum("4k3/8/8/8/8/8/8/R3K1NR w KQ - 0 1", &[("g1", 0.5)]);
    assert_legal(&knight_on_g, "e1wg1", KsCastle, Excluded);
    let rook_on_g = quantum("4k3/8/8/8/8/8/8/R3K1RR w KQ - 0 1", &[("g1", 0.5), ("h1", 0.5)]);
    assert_legal(&rook_on_g, "e1wg1", KsCastle, Excluded);
    let opponent_on_f = quantum("4k3/8/8/8/8/8/8/R3Kb1R w KQ - 0 1", &[("f1", 0.5)]);
    assert_legal(&opponent_on_f, "e1wg1", KsCastle, Excluded);
    let full_g = classical("4k3/8/8/8/8/8/8/R3K1NR w KQ - 0 1");
    assert_illegal(&full_g, "e1g1", "castling needs g1 not certainly occupied, but it certainly holds a white knight");
    let full_rook_on_f = quantum("4k3/8/8/8/8/8/8/R3KR1R w KQ - 0 1", &[("h1", 0.5)]);
    assert_illegal(&full_rook_on_f, "e1g1", "castling needs f1 not certainly occupied");
    let no_right = classical("4k3/8/8/8/8/8/8/R3K2R w Q - 0 1");
    assert_illegal(&no_right, "e1g1", "White no longer has the right to castle king side");
    let no_rook = classical("4k3/8/8/8/8/8/8/R3K3 w KQ - 0 1");
    assert_illegal(&no_rook, "e1g1", "castling needs White's rook on h1");
    let superposed_rook = quantum("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", &[("h1", 0.5)]);
    assert_legal(&superposed_rook, "e1g1", KsCastle, Basic);
    let black = classical("r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1");
    assert_legal(&black, "e8g8", KsCastle, Basic);
    assert_legal(&black, "e8c8", QsCastle, Basic);
}

#[test]
fn castling_variants_queen_side() {
    let knight_on_b = quantum("4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1", &[("b1", 0.5)]);
    assert_legal(&knight_on_b, "e1c1", QsCastle, Basic);
    let full_b = classical("4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1");
    assert_illegal(&full_b, "e1c1", "castling needs b1 not certainly occupied, but it certainly holds a white knight");
    let queen_on_d = quantum("4k3/8/8/8/8/8/8/R2QK3 w Q - 0 1", &[("d1", 0.5)]);
    assert_legal(&queen_on_d, "e1wc1", QsCastle, Excluded);
    let bishop_on_c = quantum("4k3/8/8/8/8/8/8/R1B1K3 w Q - 0 1", &[("c1", 0.5)]);
    assert_legal(&bishop_on_c, "e1wc1", QsCastle, Excluded);
    let rook_on_d = quantum("4k3/8/8/8/8/8/8/R2RK3 w Q - 0 1", &[("a1", 0.5), ("d1", 0.5)]);
    assert_legal(&rook_on_d, "e1c1", QsCastle, Basic);
}

#[test]
fn castling_is_never_a_split() {
    let position = classical("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert_illegal(&position, "e1^f1g1", "a king cannot move from e1 to g1");
    assert_legal(&position, "e1^d1f1", SplitJump, Basic);
}

#[test]
fn splits_by_piece_kind() {
    let start = Position::start();
    assert_legal(&start, "g1^f3h3", SplitJump, Basic);
    let err = start.parse_move("b1^c3d2").expect_err("d2 is a pawn").to_string();
    assert_eq!(
        err,
        "b1^c3d2: split target d2 holds a white pawn; split targets must be empty or hold the same kind of piece"
    );
    assert_illegal(&start, "e2^e3e4", "pawns cannot split");
    // Either target order is accepted and kept; the list gives the lower square first.
    let reversed = start.parse_move("b1^c3a3").expect("legal");
    assert_eq!(reversed.to_string(), "b1^c3a3");
    assert_eq!(reversed.move_type(), SplitJump);
    let bishop = classical("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1");
    assert_legal(&bishop, "c1^a3h6", SplitSlide, Basic);
    assert_illegal(&bishop, "c1^a3c2", "a bishop cannot move from c1 to c2");
    let opponent = classical("4k3/8/8/8/8/n7/8/2B1K3 w - - 0 1");
    assert_illegal(&opponent, "c1^a3h6", "split target a3 holds a black knight");
}

#[test]
fn a_split_arm_may_pass_the_other_target() {
    // The rook on a3 is of the same kind, so it is a legal target even though it is certain,
    // and the arm to a5 may pass it.
    let position = classical("4k3/8/8/8/8/R7/8/R3K3 w - - 0 1");
    assert_legal(&position, "a1^a3a5", SplitSlide, Basic);
    assert_illegal(&position, "a1^a4a5", "the path from a1 to a4 passes a3, which certainly holds a white rook");
    // Superposed path squares count as empty.
    let through = quantum("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1", &[("a2", 0.5)]);
    assert_legal(&through, "a1^a3a8", SplitSlide, Basic);
    assert_legal(&through, "a1^b1d1", SplitSlide, Basic);
}

#[test]
fn merges_need_two_halves_of_one_kind() {
    let rooks = quantum("4k3/8/8/8/8/R7/8/R3K3 w - - 0 1", &[("a1", 0.5), ("a3", 0.5)]);
    // a1's arm to a5 passes the other source a3.
    assert_legal(&rooks, "a1a3^a5", MergeSlide, Basic);
    assert_legal(&rooks, "a1a3^a2", MergeSlide, Basic);
    let reversed = rooks.parse_move("a3a1^a2").expect("either source order");
    assert_eq!((reversed.to_string().as_str(), reversed.move_type()), ("a3a1^a2", MergeSlide));
    assert!(!listed(&rooks).contains(&"a3a1^a2".to_owned()), "the list gives the lower source first");
    let mixed = quantum("4k3/8/8/8/8/B7/8/R3K3 w - - 0 1", &[("a1", 0.5), ("a3", 0.5)]);
    assert_illegal(
        &mixed,
        "a1a3^a5",
        "merge sources must hold the same kind of piece, but a1 holds a white rook and a3 a white bishop",
    );
    let knights = quantum("4k3/8/8/8/8/N1N5/3P4/4K3 w - - 0 1", &[("a3", 0.5), ("c3", 0.5), ("d2", 0.5)]);
    assert_legal(&knights, "a3c3^b1", MergeJump, Basic);
    assert_illegal(&knights, "a3c3^d5", "a knight cannot move from a3 to d5");
    let blocked = quantum("4k3/8/8/8/8/N1N5/8/1B2K3 w - - 0 1", &[("a3", 0.5), ("c3", 0.5), ("b1", 0.5)]);
    assert_illegal(&blocked, "a3c3^b1", "merge target b1 holds a white bishop");
    let pawns = classical("4k3/8/8/8/8/8/P1P5/4K3 w - - 0 1");
    assert_illegal(&pawns, "a2c2^b3", "pawns cannot merge");
}

#[test]
fn sources_and_piece_letters_are_checked() {
    let start = Position::start();
    assert_illegal(&start, "e3e4", "e3 is empty");
    assert_illegal(&start, "e7e5", "e7 holds a black pawn, but it is White's turn");
    assert_refused(&start, "Bb1c3", "the move names a bishop, but b1 holds a white knight");
    let with_letter = start.parse_move("Nb1c3").expect("the letter matches");
    assert_eq!(with_letter.to_string(), "b1c3");
    assert_refused(&start, "b1xc3", "`x` marks a CAPTURE move, but here this move is BASIC");
    assert_illegal(&start, "b1b3", "a knight cannot move from b1 to b3");
    let null = start.parse_move("0000").expect_err("null").to_string();
    assert_eq!(null, "0000: the null move 0000 is not allowed in Quantum Chess: every turn moves a piece");
}

#[test]
fn outcomes_are_carried_to_the_typed_move() {
    let position = quantum("4k3/8/8/8/8/2n5/8/1N2K3 w - - 0 1", &[("c3", 0.5)]);
    let legal = position.parse_move("b1xc3.m0").expect("legal");
    assert_eq!(legal.typed.to_string(), "b1c3.m0:JUMP:CAPTURE");
    assert_eq!(legal.to_string(), "b1xc3.m0");
}

#[test]
fn squares_with_probability_zero_hold_nothing() {
    let position = quantum("4k3/8/8/8/8/2n5/8/1N2K3 w - - 0 1", &[("c3", 0.0)]);
    assert_eq!(position.piece_at("c3".parse().expect("square")), None);
    assert_legal(&position, "b1c3", Jump, Basic);
    let ghost_source = quantum("4k3/8/8/8/8/8/8/1N2K3 w - - 0 1", &[("b1", 0.0)]);
    assert_illegal(&ghost_source, "b1c3", "b1 is empty");
}

#[test]
fn legal_moves_serialise_as_the_command_line_prints_them() {
    let start = Position::start();
    let split = start.parse_move("b1^a3c3").expect("legal");
    let json = serde_json::to_string(&split).expect("serialises");
    assert_eq!(json, r#"{"move":"b1^a3c3","type":"SPLIT_JUMP","variant":"BASIC"}"#);
}
