//! Forced king captures on hand-built official positions that only a split or a merge wins:
//! the search must find the quantum move, no standard move may force the capture at the same
//! depth, and every answer to the quantum move must lose.

use qchess_core::{LegalMove, MoveSquares, Notation};
use qchess_engine::{Game, GameResult};
use qchess_search::branch::for_each_outcome;
use qchess_search::{SearchConfig, SearchControl, SearchInfo, SearchLimits, Searcher};

mod common;
use common::{game, search};

/// The search of `game` to `depth` among the root moves `keep` accepts only.
fn search_among(game: &Game, depth: u32, keep: impl Fn(&LegalMove) -> bool) -> SearchInfo {
    let roots: Vec<Notation> =
        game.legal_moves().into_iter().filter(|mv| keep(mv)).map(|mv| Notation::Move(mv.notation)).collect();
    assert!(!roots.is_empty());
    Searcher::new(SearchConfig::default())
        .search_with(game, &SearchLimits::depth(depth), &roots, &SearchControl::new(), &mut |_| {})
        .unwrap()
}

fn is_standard(mv: &LegalMove) -> bool {
    matches!(mv.typed.squares, MoveSquares::Standard { .. })
}

fn is_merge(mv: &LegalMove) -> bool {
    matches!(mv.typed.squares, MoveSquares::Merge { .. })
}

/// After `setup` then `quantum` on `fen`, plays every answer of the other side with each of its
/// measurement outcomes, and checks that the side that played `quantum` then captures the
/// king in one move.
fn every_answer_loses_at_once(fen: &str, setup: &[&str], quantum: &str) {
    let mut after = game(fen, &[setup, &[quantum]].concat());
    for answer in after.legal_moves() {
        let captures =
            for_each_outcome(&mut after, &answer, |line, p| (search(line, 1).plies_to_capture(), p)).unwrap();
        for (plies, p) in captures {
            assert_eq!(plies, Some(1), "after {quantum} {answer} (probability {p}) the king is not taken");
        }
    }
}

#[test]
fn a_king_split_opens_a_file_the_knight_cannot_punish() {
    // White: Kh2, Rh1, Pg2. Black: Kh8, Rg8, Pg7, Ne2. The white king blocks its rook's file
    // to the black king, which cannot leave the file (g8 and g7 are its own; h7 is on the file)
    // and has one empty neighbour only, too few to split. The king's only squares off the file
    // are g1 and g3 (g2 is its own pawn), both guarded by the knight: a standard king move
    // there opens the file, but the knight takes the king first. The split h2^g1g3 opens the
    // file too, and the knight can take only one half: White keeps a king (probability 1/2)
    // and the rook takes h8 next move.
    let fen = "6rk/6p1/8/8/8/8/4n1PK/7R w - - 0 1";
    let position = game(fen, &[]);
    let found = search(&position, 3);
    assert_eq!(found.best.to_string(), "h2^g1g3", "{found:?}");
    assert_eq!(found.plies_to_capture(), Some(3), "{found:?}");
    // No standard move forces the capture in two moves...
    let standard = search_among(&position, 3, is_standard);
    assert_eq!(standard.plies_to_capture(), None, "{standard:?}");
    // ...and a standard king move off the file loses the king at once.
    for step in ["h2g1", "h2g3"] {
        let answer = search(&game(fen, &[step]), 1);
        assert_eq!(answer.plies_to_capture(), Some(1), "after {step}: {answer:?}");
    }
    every_answer_loses_at_once(fen, &[], "h2^g1g3");
    // Taking a half leaves White's king on the other square with probability 1/2.
    let line = game(fen, &["h2^g1g3", "e2xg1"]);
    assert!((line.probability("g3".parse().unwrap()) - 0.5).abs() < 1e-12);
    assert!(!line.is_over());
}

#[test]
fn a_merge_brings_the_whole_knight_to_the_mating_square() {
    // White: Ka1, a knight split from e4 over d6 and g5 (1/2 each). Black: Kh8 walled in by
    // its own Rg8, Pg7, Ph7 with no empty neighbour, and a pawn on a6 to move. A knight on f7
    // takes h8 and nothing Black has reaches f7 or frees h8 in one move. Merging both halves
    // onto f7 puts the whole knight there; a half jumping to f7 (d6f7, g5f7) brings only 1/2
    // of it, so taking h8 from there next move measures and misses half the time.
    let (fen, setup) = ("6rk/p5pp/8/8/4N3/8/8/K7 w - - 0 1", ["e4^d6g5", "a7a6"]);
    let position = game(fen, &setup);
    let found = search(&position, 3);
    assert!(is_merge(&found.best), "{found:?}");
    assert_eq!(found.best.to_string(), "g5d6^f7", "{found:?}");
    assert_eq!(found.plies_to_capture(), Some(3), "{found:?}");
    let merged = game(fen, &[&setup[..], &["g5d6^f7"]].concat());
    assert!((merged.probability("f7".parse().unwrap()) - 1.0).abs() < 1e-12);
    // No other move, standard or split, forces the capture in two moves.
    let others = search_among(&position, 3, |mv| !is_merge(mv));
    assert_eq!(others.plies_to_capture(), None, "{others:?}");
    let half = game(fen, &[&setup[..], &["d6f7"]].concat());
    assert!((half.probability("f7".parse().unwrap()) - 0.5).abs() < 1e-12);
    every_answer_loses_at_once(fen, &setup, "g5d6^f7");
}

/// White: Ka1, Bb1, Rg1, Ra2. Black: Kh8 alone. After the rook lift a2h2 every standard king
/// move is taken next move (g7 and g8 by the g-file rook, h7 by the rook or the bishop), but a
/// king split (h8^g7h7, h8^g7g8, h8^h7g8) leaves the king on two squares and no White move
/// takes both halves: a classical capture takes one, and a slide through one half to the
/// other (g1xg8 through g7) measures and takes the king only if it was not in the way. So a2h2
/// forces no capture in two moves.
const ROOK_LIFT: &str = "7k/8/8/8/8/8/R7/KB4R1 w - - 0 1";

#[test]
fn a_king_split_survives_the_rook_lift() {
    for split in ["h8^g7h7", "h8^g7g8", "h8^h7g8"] {
        let mut after = game(ROOK_LIFT, &["a2h2", split]);
        for mv in after.legal_moves() {
            let wins = for_each_outcome(&mut after, &mv, |line, _| line.result() == GameResult::WhiteWins).unwrap();
            assert!(!wins.iter().all(|&won| won), "after a2h2 {split}, {mv} takes the king for certain");
        }
    }
}

#[test]
fn the_search_does_not_overlook_a_split_defence() {
    let found = search(&game(ROOK_LIFT, &[]), 3);
    assert_eq!(found.plies_to_capture(), None, "{found:?}");
}
