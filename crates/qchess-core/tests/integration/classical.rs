//! Classical chess: perft against the published counts, and the rules around them.

use qchess_core::classical::{ClassicalOutcome, ClassicalPosition, perft, perft_divide};
use qchess_core::{CastlingRights, CastlingSide, Color, Fen, Piece, Square};

/// Leaf counts up to this many are checked in every (debug) test run; the rest only by the
/// ignored deep test, best run with `cargo test --release -- --ignored`.
const QUICK_NODE_LIMIT: u64 = 1_000_000;

struct Entry {
    name: String,
    fen: Fen,
    counts: Vec<(u32, u64)>,
}

fn suite() -> Vec<Entry> {
    let text = include_str!("../data/perft.txt");
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let [name, fen, counts] = fields[..] else { panic!("perft.txt line {number}: expected name | FEN | counts") };
        let fen = fen.parse().unwrap_or_else(|e| panic!("perft.txt line {number}: {e}"));
        let counts = counts
            .split_whitespace()
            .map(|pair| {
                let (depth, nodes) = pair.split_once(':').unwrap_or_else(|| panic!("line {number}: `{pair}`"));
                (depth.parse().expect("depth"), nodes.parse().expect("node count"))
            })
            .collect();
        entries.push(Entry { name: name.to_owned(), fen, counts });
    }
    entries
}

fn position(fen: &Fen) -> ClassicalPosition {
    ClassicalPosition::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn parse(fen: &str) -> ClassicalPosition {
    position(&fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}")))
}

/// The same position with colours swapped and the board turned upside down.
fn mirrored(fen: &Fen) -> Fen {
    let mut board = [None; 64];
    for sq in Square::ALL {
        board[usize::from(sq.flip_vertical())] = fen.piece_at(sq).map(|p: Piece| Piece::new(!p.color, p.role));
    }
    let mut castling = CastlingRights::NONE;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            castling = castling.set(!color, side, fen.castling.has(color, side));
        }
    }
    Fen { board, turn: !fen.turn, castling, en_passant: fen.en_passant.map(Square::flip_vertical), ..fen.clone() }
}

#[test]
fn the_suite_holds_the_standard_positions() {
    let suite = suite();
    let names: Vec<&str> = suite.iter().map(|e| e.name.as_str()).collect();
    for name in ["startpos", "kiwipete", "position3", "position4", "position5", "position6"] {
        assert!(names.contains(&name), "{name} missing from perft.txt");
    }
    let start = suite.iter().find(|e| e.name == "startpos").expect("startpos");
    assert_eq!(start.fen, Fen::start());
    assert!(start.counts.contains(&(5, 4_865_609)) && start.counts.contains(&(6, 119_060_324)));
}

#[test]
fn perft_matches_published_counts_at_shallow_depths() {
    let mut checked = 0;
    for entry in suite() {
        let start = position(&entry.fen);
        for &(depth, nodes) in entry.counts.iter().filter(|(_, n)| *n <= QUICK_NODE_LIMIT) {
            assert_eq!(perft(&start, depth), nodes, "{} depth {depth}", entry.name);
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} counts were small enough to check");
}

#[test]
fn mirrored_positions_have_the_same_counts() {
    for entry in suite() {
        let mirror = position(&mirrored(&entry.fen));
        for &(depth, nodes) in entry.counts.iter().filter(|(_, n)| *n <= QUICK_NODE_LIMIT / 4) {
            assert_eq!(perft(&mirror, depth), nodes, "{} mirrored, depth {depth}", entry.name);
        }
    }
}

#[test]
#[ignore = "minutes in a debug build; run with --release -- --ignored"]
fn perft_matches_published_counts_at_full_depth() {
    for entry in suite() {
        let start = position(&entry.fen);
        for &(depth, nodes) in &entry.counts {
            let begun = std::time::Instant::now();
            assert_eq!(perft(&start, depth), nodes, "{} depth {depth}", entry.name);
            eprintln!("{} depth {depth}: {nodes} nodes in {:.2?}", entry.name, begun.elapsed());
        }
    }
}

#[test]
fn divide_splits_the_count_by_first_move() {
    let kiwipete = position(&suite().into_iter().find(|e| e.name == "kiwipete").expect("kiwipete").fen);
    let divided = perft_divide(&kiwipete, 2);
    assert_eq!(divided.len(), 48);
    assert_eq!(divided.iter().map(|(_, n)| n).sum::<u64>(), 2039);
    let castle = divided.iter().find(|(m, _)| m.to_string() == "e1g1").expect("white castles king side");
    assert_eq!(castle.1, 43);
    assert!(perft_divide(&kiwipete, 0).is_empty());
    assert_eq!(perft(&kiwipete, 0), 1);
}

#[test]
fn fen_survives_a_long_walk() {
    // Walk 200 plies, choosing moves by a fixed pattern, and check the FEN round trip at
    // every step.
    let mut current = ClassicalPosition::start();
    for ply in 0..200 {
        let fen = current.to_fen();
        let reparsed: Fen = fen.to_string().parse().expect("printed FENs parse");
        assert_eq!(reparsed, fen);
        assert_eq!(position(&reparsed), current, "ply {ply}: {fen}");
        let moves = current.legal_moves();
        if moves.is_empty() {
            break;
        }
        current.play(moves[(ply * 7 + 3) % moves.len()]);
    }
}

#[test]
fn moves_update_rights_clocks_and_en_passant() {
    let start = ClassicalPosition::start();
    let after = start.played(start.parse_move("g1f3").expect("legal"));
    assert_eq!(after.halfmove_clock(), 1);
    assert_eq!(after.en_passant(), None);
    let after = after.played(after.parse_move("e7e5").expect("legal"));
    assert_eq!(after.halfmove_clock(), 0);
    assert_eq!(after.en_passant(), Some(Square::E6));
    assert_eq!(after.fullmove_number(), 2);
    // Capturing a rook at home takes away the matching castling right.
    let corner = parse("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let taken = corner.played(corner.parse_move("a1a8").expect("legal"));
    assert_eq!(taken.castling().to_string(), "Kk");
    assert_eq!(taken.to_fen().to_string(), "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    let castled = corner.played(corner.parse_move("e1c1").expect("legal"));
    assert_eq!(castled.to_fen().to_string(), "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");
    let promoted = parse("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    let promoted = promoted.played(promoted.parse_move("a7a8n").expect("legal"));
    assert_eq!(promoted.to_fen().to_string(), "N3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    let en_passant = parse("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    let taken = en_passant.played(en_passant.parse_move("e5d6").expect("legal"));
    assert_eq!(taken.to_fen().to_string(), "4k3/8/3P4/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn checkmate_and_stalemate() {
    let fools_mate = parse("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert!(fools_mate.is_check());
    assert_eq!(fools_mate.outcome(), Some(ClassicalOutcome::Checkmate { winner: Color::Black }));
    let stalemate = parse("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert!(!stalemate.is_check());
    assert_eq!(stalemate.outcome(), Some(ClassicalOutcome::Stalemate));
    assert_eq!(ClassicalPosition::start().outcome(), None);
}

#[test]
fn check_restricts_the_moves() {
    // Pinned knight, king in check from a rook: only king moves and the block.
    let pinned = parse("4k3/8/8/8/4r3/8/4N3/4K3 w - - 0 1");
    let moves: Vec<String> = pinned.legal_moves().iter().map(ToString::to_string).collect();
    assert!(!moves.iter().any(|m| m.starts_with("e2")), "{moves:?}");
    let in_check = parse("4k3/8/8/8/4r3/8/3N4/4K3 w - - 0 1");
    let mut moves: Vec<String> = in_check.legal_moves().iter().map(ToString::to_string).collect();
    moves.sort();
    assert_eq!(moves, ["d2e4", "e1d1", "e1f1", "e1f2"]);
    // No castling through an attacked square.
    let through = parse("4k3/8/8/8/8/8/5r2/4K2R w K - 0 1");
    assert!(through.parse_move("e1g1").is_err());
}

#[test]
fn impossible_fens_are_refused_with_reasons() {
    let cases = [
        ("4k3/8/8/8/8/8/8/8 w - - 0 1", "white has 0 kings"),
        ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "white has 2 kings"),
        ("4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "a pawn on a1"),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling: white has the king-side right but no white rook on h1"),
        ("4k3/8/8/8/8/8/8/R2K4 w Q - 0 1", "castling: white has the queen-side right but no white king on e1"),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "en passant: e6 is not right behind a pawn"),
        ("4k3/4p3/8/4p3/8/8/8/4K3 w - e6 0 1", "en passant: e6 cannot follow a two-step"),
        ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "white is not to move but is in check"),
    ];
    for (fen, expected) in cases {
        let setup: Fen = fen.parse().expect("well-formed FEN");
        let err = ClassicalPosition::from_fen(&setup).expect_err(fen).to_string();
        assert!(err.contains(expected), "{fen}: {err}");
    }
}

#[test]
fn move_text_is_checked() {
    let start = ClassicalPosition::start();
    assert_eq!(start.parse_move("Pe2e4").map(|m| m.to_string()), Ok("e2e4".to_owned()));
    let cases = [
        ("e2e5", "e2e5 is not a legal move in this position"),
        ("Ne2e4", "Ne2e4 is not a legal move"),
        ("b1^a3c3", "splits, merges, x/w marks and outcomes exist only in Quantum Chess"),
        ("e2e4.m1", "exist only in Quantum Chess"),
        ("e2e9", "bad move `e2e9`"),
        ("0000", "0000 is the null move"),
    ];
    for (text, expected) in cases {
        let err = start.parse_move(text).expect_err(text).to_string();
        assert!(err.contains(expected), "{text}: {err}");
    }
    let promotion = parse("4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert!(promotion.parse_move("a7a8").is_err(), "a promotion needs its piece");
}
