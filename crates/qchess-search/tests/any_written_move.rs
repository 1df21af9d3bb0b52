//! Every move the game accepts, as any record may write it, can be analysed: 50 seeded random
//! games under every rule set, their moves written in the other forms the game takes (split
//! targets and merge sources in either order, observer-rules pairs with their halves swapped,
//! piece letters, bare moves without their `x` / `w`), with measurements, captures and
//! promotions. Each game's record is printed and read back, then every position of it is
//! judged ([`review_game`]: the coach's review and UQCI's `Analyse` judge a move the same
//! way), the last one evaluated, and the UQCI engine searches each move as written (`go
//! searchmoves`).

use std::io::Write;
use std::sync::{Arc, Mutex};

use qchess_core::{Fen, MoveSquares, MoveVariant, Notation, Square};
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{Game, GameOptions, RuleSet};
use qchess_search::analysis::{evaluate_position, review_game};
use qchess_search::uqci::{Engine, Output};
use qchess_search::{SearchConfig, SearchControl, SearchLimits};
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const GAMES: u64 = 50;
const PLIES: usize = 30;
/// Pawns one step from promoting on both sides, rooks and kings that may still castle.
const PROMOTION_START: &str = "r3k3/1P4P1/8/8/8/8/1p4p1/R3K3 w Qq - 0 1";
/// Splits are left out while the state is larger than this, to keep the searches small.
const SPLIT_STATES: usize = 64;

/// What the games played, counted to show that the test saw every kind of move it is about.
#[derive(Debug, Default)]
struct Seen {
    reordered: usize,
    swapped_pairs: usize,
    lettered: usize,
    measurements: usize,
    captures: usize,
    promotions: usize,
    mode_changes: usize,
    /// Games without mode changes, whose positions the UQCI engine was given too.
    over_uqci: usize,
}

/// One random game: its record, every move as written.
fn random_game(seed: u64, seen: &mut Seen) -> GameRecord {
    let rules = RuleSet::ALL[(seed % 4) as usize];
    let start: Fen = if seed % 5 == 4 { PROMOTION_START.parse().unwrap() } else { Fen::start() };
    let mut game = Game::new(&start, GameOptions { rules, ..GameOptions::with_seed(seed) }).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut written = Vec::new();
    while written.len() < PLIES && !game.is_over() {
        if rules == RuleSet::Checkmate && rng.random_bool(0.02) {
            let quantum = game.quantum_mode();
            seen.mode_changes += usize::from(game.set_quantum_mode(!quantum).is_ok());
            continue;
        }
        if rules == RuleSet::Checkmate
            && rng.random_bool(0.2)
            && let Some(square) = superposed_square(&game, &mut rng)
            && let Ok(played) = game.play_notation(&Notation::Measure(square, None))
        {
            seen.measurements += 1;
            written.push(played.declared);
            continue;
        }
        let Some(chosen) = choose(&game, &mut rng) else { break };
        let text = rewrite(&game, chosen, &mut rng);
        let (text, played) = match game.play_notation(&text) {
            Ok(played) => (text, played),
            Err(_) => match game.play_notation(&chosen) {
                Ok(played) => (chosen, played),
                Err(e) => panic!(
                    "seed {seed}: the legal {chosen} is refused: {e:?}\n{}",
                    GameRecord::from_game(&game, &RecordInfo::default())
                ),
            },
        };
        count(seen, &chosen, &text, &played);
        written.push(with_outcome(text, played.declared.outcome()));
    }
    let mut record = GameRecord::from_game(&game, &RecordInfo::default());
    assert_eq!(record.moves.len(), written.len());
    for (recorded, text) in record.moves.iter_mut().zip(written) {
        recorded.notation = text;
    }
    record
}

/// A square that may or may not hold its piece.
fn superposed_square(game: &Game, rng: &mut ChaCha8Rng) -> Option<Square> {
    let squares: Vec<Square> = Square::ALL
        .into_iter()
        .filter(|&sq| game.piece_at(sq).is_some() && (1e-9..1.0 - 1e-9).contains(&game.probability(sq)))
        .collect();
    squares.choose(rng).copied()
}

/// A random legal move; mostly standard moves, splits only while the state is small.
fn choose(game: &Game, rng: &mut ChaCha8Rng) -> Option<Notation> {
    let all = game.legal_notations();
    let is_split = |n: &Notation| matches!(n, Notation::Move(mv) if matches!(mv.squares, MoveSquares::Split { .. }));
    let splits: Vec<Notation> = all.iter().copied().filter(is_split).collect();
    let others: Vec<Notation> = all.iter().copied().filter(|n| !is_split(n)).collect();
    let pool = if game.state_size() <= SPLIT_STATES && rng.random_bool(0.3) { &splits } else { &others };
    pool.choose(rng).or_else(|| all.choose(rng)).copied()
}

/// `chosen` written another way the notation allows, at random: split targets, merge sources
/// or a pair's halves swapped, a piece letter added, a variant mark dropped.
fn rewrite(game: &Game, chosen: Notation, rng: &mut ChaCha8Rng) -> Notation {
    match chosen {
        Notation::Move(mut mv) => {
            mv.squares = match mv.squares {
                MoveSquares::Split { from, to1, to2 } if rng.random_bool(0.5) => {
                    MoveSquares::Split { from, to1: to2, to2: to1 }
                }
                MoveSquares::Merge { from1, from2, to } if rng.random_bool(0.5) => {
                    MoveSquares::Merge { from1: from2, from2: from1, to }
                }
                squares => squares,
            };
            if rng.random_bool(0.25) {
                mv.piece = game.piece_at(mv.squares.sources()[0]).map(|piece| piece.role);
            }
            if rng.random_bool(0.5) {
                mv.marker = None;
            }
            Notation::Move(mv)
        }
        Notation::Pair(first, second) if rng.random_bool(0.5) => Notation::Pair(second, first),
        other => other,
    }
}

/// `text` with the outcome the game recorded for it.
fn with_outcome(text: Notation, outcome: Option<bool>) -> Notation {
    match text {
        Notation::Move(mv) => Notation::Move(mv.with_outcome(outcome)),
        Notation::Pair(first, second) => Notation::Pair(first, second.with_outcome(outcome)),
        other => other,
    }
}

fn count(seen: &mut Seen, chosen: &Notation, text: &Notation, played: &qchess_engine::PlayedMove) {
    match (chosen, text) {
        (Notation::Move(a), Notation::Move(b)) => {
            seen.reordered += usize::from(a.squares != b.squares);
            seen.lettered += usize::from(b.piece.is_some());
        }
        (Notation::Pair(..), Notation::Pair(..)) => seen.swapped_pairs += usize::from(chosen != text),
        _ => {}
    }
    seen.captures += usize::from(played.typed.variant == MoveVariant::Capture);
    seen.promotions += usize::from(played.typed.promotion.is_some());
    seen.measurements += usize::from(played.report.outcome_probability.is_some());
}

/// A judged move: a move or a pair (the checkmate rules' measurements are not judged).
fn is_judged(notation: &Notation) -> bool {
    matches!(notation, Notation::Move(_) | Notation::Pair(..))
}

/// The squares of a move as written, outcomes, letters and marks aside.
fn squares(notation: &Notation) -> Vec<MoveSquares> {
    match notation {
        Notation::Move(mv) => vec![mv.squares],
        Notation::Pair(first, second) => vec![first.squares, second.squares],
        _ => Vec::new(),
    }
}

/// Replies of an in-process UQCI engine.
#[derive(Clone, Default)]
struct Replies(Arc<Mutex<Vec<u8>>>);

impl Write for Replies {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Replies {
    fn take(&self) -> String {
        String::from_utf8(std::mem::take(&mut *self.0.lock().unwrap())).unwrap()
    }
}

/// The UQCI engine on each position of `record` (no mode changes: `position` has none): `go
/// depth 1 searchmoves M` with `M` the next move as written must answer `M`.
fn every_position_over_uqci(record: &GameRecord, rules: RuleSet) {
    let replies = Replies::default();
    let mut engine = Engine::new(Output::new(replies.clone()));
    engine.handle(&format!("setoption name Rules value {}", rules.name()));
    let start = record.tag("FEN").map_or_else(|| "startpos".to_owned(), |fen| format!("fen {fen}"));
    let moves: Vec<String> = record.moves.iter().map(|m| m.notation.to_string()).collect();
    for (ply, next) in record.moves.iter().enumerate().filter(|(_, m)| is_judged(&m.notation)) {
        engine.handle(&format!("position {start} moves {}", moves[..ply].join(" ")));
        engine.handle(&format!("go depth 1 searchmoves {}", with_outcome(next.notation, None)));
        engine.end_of_input();
        let out = replies.take();
        let context =
            || format!("position {start} moves {} / go searchmoves {}:\n{out}", moves[..ply].join(" "), next.notation);
        assert!(!out.contains("info string go:") && !out.contains("info string position"), "{}", context());
        let best = out.lines().find_map(|line| line.strip_prefix("bestmove ")).expect("a bestmove");
        let best: Notation = best.split_whitespace().next().unwrap().parse().unwrap();
        assert_eq!(squares(&best), squares(&next.notation), "{}", context());
    }
}

/// The games of `rules` among the 50 (every fourth seed): every position analysed; what they
/// played.
fn analyse_every_position(rules: RuleSet) -> Seen {
    let limits = SearchLimits::depth(1);
    let control = SearchControl::new();
    let mut seen = Seen::default();
    let index = RuleSet::ALL.iter().position(|r| *r == rules).unwrap() as u64;
    for seed in (0..GAMES).filter(|seed| seed % 4 == index) {
        let record = random_game(seed, &mut seen);
        let text = record.to_string();
        let read: GameRecord = text.parse().unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let reviews = review_game(&read, SearchConfig::default(), &limits, &control, &mut |_| {})
            .unwrap_or_else(|e| panic!("seed {seed}: {}\n{text}", qchess_core::text::with_causes(&e)));
        let judged: Vec<&Notation> = read.moves.iter().map(|m| &m.notation).filter(|n| is_judged(n)).collect();
        assert_eq!(reviews.len(), judged.len(), "seed {seed}\n{text}");
        for (review, written) in reviews.iter().zip(judged) {
            assert_eq!(squares(&review.played), squares(written), "seed {seed}\n{text}");
        }
        let end = read.replay().unwrap();
        if !end.is_over() {
            evaluate_position(&end, SearchConfig::default(), &limits, &control)
                .unwrap_or_else(|e| panic!("seed {seed}, the last position: {e}\n{text}"));
        }
        if read.mode_changes.is_empty() {
            seen.over_uqci += 1;
            every_position_over_uqci(&read, rules);
        }
    }
    eprintln!("{rules}: {seen:?}");
    seen
}

// Each rule set's games are a test of their own, so they run side by side.

#[test]
fn every_position_of_official_games_can_be_analysed() {
    let seen = analyse_every_position(RuleSet::Official);
    assert!(seen.reordered >= 10 && seen.measurements >= 5 && seen.captures >= 5, "{seen:?}");
    assert!(seen.promotions >= 1 && seen.lettered >= 20 && seen.over_uqci == 13, "{seen:?}");
}

#[test]
fn every_position_of_classical_games_can_be_analysed() {
    let seen = analyse_every_position(RuleSet::Classical);
    assert!(seen.captures >= 5 && seen.promotions >= 1 && seen.lettered >= 20, "{seen:?}");
}

#[test]
fn every_position_of_observer_games_can_be_analysed() {
    let seen = analyse_every_position(RuleSet::Observer);
    assert!(seen.reordered >= 5 && seen.swapped_pairs >= 5 && seen.captures >= 5, "{seen:?}");
    assert!(seen.promotions >= 1 && seen.lettered >= 20, "{seen:?}");
}

#[test]
fn every_position_of_checkmate_games_can_be_analysed() {
    let seen = analyse_every_position(RuleSet::Checkmate);
    assert!(seen.reordered >= 5 && seen.measurements >= 5 && seen.captures >= 5, "{seen:?}");
    assert!(seen.promotions >= 1 && seen.mode_changes >= 1 && seen.over_uqci >= 3, "{seen:?}");
}
