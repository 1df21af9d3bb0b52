//! `qchess uqci` over pipes, as a GUI drives it.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use qchess_engine::{Game, GameOptions};

use crate::common::{Served, all_examples, qchess_json};

/// A running `qchess uqci` with its lines read in a thread.
struct Gui {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Every line the engine wrote, in order.
    seen: Vec<String>,
}

impl Gui {
    fn start() -> Gui {
        Gui::start_with(&[])
    }

    /// `qchess uqci` with more flags.
    fn start_with(flags: &[&str]) -> Gui {
        let mut child = crate::common::command()
            .arg("uqci")
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("qchess uqci starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Gui { child, stdin, lines, seen: Vec::new() }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the engine reads");
        self.stdin.flush().expect("flush");
    }

    /// The next line starting with `prefix`, within `timeout`; panics with everything seen.
    fn expect(&mut self, prefix: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.starts_with(prefix) {
                        return line;
                    }
                }
                Err(_) => panic!("no `{prefix}` within {timeout:?}; seen:\n{}", self.seen.join("\n")),
            }
        }
    }

    /// Sends `isready` and collects every line up to `readyok`.
    fn sync(&mut self) -> Vec<String> {
        let start = self.seen.len();
        self.send("isready");
        self.expect("readyok", Duration::from_secs(10));
        self.seen[start..].to_vec()
    }

    fn count(&self, prefix: &str) -> usize {
        self.seen.iter().filter(|l| l.starts_with(prefix)).count()
    }
}

impl Drop for Gui {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_handshake_lists_the_official_options() {
    let mut gui = Gui::start();
    gui.send("uci");
    gui.expect("uciok", Duration::from_secs(10));
    for option in ["forceturn", "forcewin", "forcemeasure", "resturl", "Level", "ScoreScale", "Hash", "Rules"] {
        assert!(gui.seen.iter().any(|l| l.starts_with(&format!("option name {option} "))), "{option}: {:?}", gui.seen);
    }
    assert!(gui.seen[0].starts_with("id name qchess"));
    gui.sync();
    gui.send("quit");
    let status = gui.child.wait().expect("exits");
    assert!(status.success());
}

#[test]
fn a_full_game_against_itself_with_outcomes_sent_back() {
    let mut gui = Gui::start();
    gui.send("uci");
    gui.expect("uciok", Duration::from_secs(10));
    gui.send("ucinewgame");
    let mut game = Game::new(&qchess_core::Fen::start(), GameOptions::with_seed(11)).unwrap();
    let mut gos = 0;
    while !game.is_over() && game.ply() < 80 {
        let moves: Vec<String> = game.moves().iter().map(|m| m.notation.to_string()).collect();
        let position = if moves.is_empty() {
            "position startpos".to_owned()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        gui.send(&position);
        gui.send("go depth 2 movetime 300");
        gos += 1;
        let line = gui.expect("bestmove", Duration::from_secs(20));
        let mv = line.split_whitespace().nth(1).expect("a move");
        // The GUI's own game draws the outcome and tells the engine with .m0/.m1 next time.
        game.play(mv).unwrap_or_else(|e| panic!("illegal bestmove {mv} after {moves:?}: {e}"));
    }
    gui.sync();
    assert_eq!(gui.count("bestmove"), gos, "exactly one bestmove per go");
    assert!(gui.count("info depth") >= gos);
}

#[test]
fn isready_and_stop_are_answered_during_go_infinite() {
    let mut gui = Gui::start();
    gui.send("position startpos moves b1^a3c3 g8^f6h6");
    gui.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let during = gui.sync();
    assert!(!during.iter().any(|l| l.starts_with("bestmove")), "no answer before stop: {during:?}");
    let stopped = Instant::now();
    gui.send("stop");
    let best = gui.expect("bestmove", Duration::from_secs(5));
    assert!(stopped.elapsed() < Duration::from_secs(2), "stop took {:?}", stopped.elapsed());
    let mut check = Game::standard();
    check.play("b1^a3c3").unwrap();
    check.play("g8^f6h6").unwrap();
    check.play(best.split_whitespace().nth(1).unwrap()).expect("a legal move");
    gui.send("stop");
    gui.sync();
    assert_eq!(gui.count("bestmove"), 1, "a second stop answers nothing");
}

#[test]
fn ponder_answers_after_ponderhit() {
    let mut gui = Gui::start();
    gui.send("position startpos moves e2e4");
    gui.send("go ponder movetime 100");
    std::thread::sleep(Duration::from_millis(400));
    assert!(!gui.sync().iter().any(|l| l.starts_with("bestmove")));
    gui.send("ponderhit");
    gui.expect("bestmove", Duration::from_secs(5));
}

#[test]
fn a_clock_is_kept() {
    let mut gui = Gui::start();
    gui.send("position startpos moves g1^f3h3 b8^a6c6");
    let started = Instant::now();
    gui.send("go wtime 1000 btime 1000 winc 10 binc 10");
    gui.expect("bestmove", Duration::from_secs(5));
    // About 1000 / 30 + 7 ms of thinking; well inside the one second on the clock.
    assert!(started.elapsed() < Duration::from_millis(700), "took {:?}", started.elapsed());
    let started = Instant::now();
    gui.send("go btime 50 wtime 50 movestogo 1");
    gui.expect("bestmove", Duration::from_secs(5));
    assert!(started.elapsed() < Duration::from_millis(200), "took {:?}", started.elapsed());
}

#[test]
fn calcbell_gives_the_eight_expectations() {
    let mut gui = Gui::start();
    gui.send("position startpos moves b1^a3c3");
    gui.send("calcbell a3 c3");
    let line = gui.expect("bell ", Duration::from_secs(5));
    let values: Vec<f64> = line.split_whitespace().skip(3).map(|v| v.parse().unwrap()).collect();
    let expected = [1.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0];
    assert_eq!(values.len(), 8, "{line}");
    for (value, want) in values.iter().zip(expected) {
        assert!((value - want).abs() < 1e-9, "{line}");
    }
}

#[test]
fn malformed_input_is_reported_and_never_crashes() {
    let mut gui = Gui::start();
    for line in [
        "go depth x",
        "setoption name Level value 99",
        "setoption name NoSuchOption value 1",
        "calcbell z9 a1",
        "position startpos moves e2e5",
        "\u{1b}[A garbage \u{0}",
        "frobnicate",
    ] {
        gui.send(line);
    }
    let lines = gui.sync();
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string")).collect();
    assert_eq!(infos.len(), 5, "{lines:?}");
    assert!(infos[4].contains("e2e5"), "{infos:?}");
    // After a position that failed, `go` still answers exactly once.
    gui.send("go depth 1");
    assert_eq!(gui.expect("bestmove", Duration::from_secs(5)), "bestmove 0000");
    gui.send("position startpos");
    gui.send("go depth 1");
    assert_ne!(gui.expect("bestmove", Duration::from_secs(5)), "bestmove 0000");
}

#[test]
fn resturl_runs_the_moves_on_a_quantum_board_server() {
    let served = Served::start(&["--seed", "5"]);
    let mut gui = Gui::start();
    gui.send(&format!("setoption name resturl value {}", served.url));
    gui.send("position startpos moves b1^a3c3 e7e6");
    gui.send("go depth 1");
    let line = gui.expect("bestmove", Duration::from_secs(20));
    let mut check = Game::standard();
    check.play("b1^a3c3").unwrap();
    check.play("e7e6").unwrap();
    check.play(line.split_whitespace().nth(1).unwrap()).expect("a legal move");
    assert!(!gui.sync().iter().any(|l| l.starts_with("info string")), "{:?}", gui.seen);
    // A server that is not there is reported, not fatal.
    gui.send("setoption name resturl value http://127.0.0.1:9");
    gui.send("position startpos");
    let lines = gui.sync();
    assert!(lines.iter().any(|l| l.starts_with("info string") && l.contains("127.0.0.1:9")), "{lines:?}");
}

#[test]
fn a_go_during_a_search_stops_it_first_so_each_go_has_one_bestmove() {
    let mut gui = Gui::start();
    gui.send("position startpos");
    gui.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    gui.send("go depth 1");
    gui.expect("bestmove", Duration::from_secs(5));
    gui.expect("bestmove", Duration::from_secs(5));
    gui.sync();
    assert_eq!(gui.count("bestmove"), 2);
    assert_eq!(gui.count("info string go: a search was still running"), 1);
}

#[test]
fn a_bare_go_plays_at_the_level() {
    let mut gui = Gui::start();
    gui.send("uci");
    gui.expect("uciok", Duration::from_secs(10));
    gui.send("setoption name Level value 1");
    gui.send("position startpos");
    let start = gui.seen.len();
    gui.send("go");
    gui.expect("bestmove", Duration::from_secs(20));
    // Each iteration's depth once (the last is repeated with the final figures before bestmove).
    let depths = |lines: &[String]| -> Vec<u32> {
        let mut depths: Vec<u32> = lines
            .iter()
            .filter_map(|l| l.strip_prefix("info depth "))
            .filter_map(|rest| rest.split_whitespace().next()?.parse().ok())
            .collect();
        depths.dedup();
        depths
    };
    assert_eq!(depths(&gui.seen[start..]), [1], "level 1 searches one ply: {:?}", gui.seen);
    // Within the level's think time, on a position where four plies take a few milliseconds.
    gui.send("setoption name Level value 4");
    gui.send("position fen 4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1");
    let start = gui.seen.len();
    gui.send("go");
    gui.expect("bestmove", Duration::from_secs(60));
    assert_eq!(depths(&gui.seen[start..]), [1, 2, 3, 4], "level 4 searches four plies: {:?}", gui.seen);
    // Above the strongest level.
    gui.send("setoption name Level value 7");
    assert!(gui.expect("info string", Duration::from_secs(10)).contains("from 1 to 6"), "{:?}", gui.seen);
    gui.sync();
    assert_eq!(gui.count("bestmove"), 2);
}

#[test]
fn multipv_reports_every_root_move_with_its_exact_value_best_first() {
    let mut gui = Gui::start();
    gui.send("setoption name MultiPV value 3");
    // Black's rook takes the undefended queen: clearly the best of the three reported.
    gui.send("position fen 3r4/8/8/8/8/8/k7/3Q3K b - - 0 1");
    gui.send("go depth 2");
    gui.expect("bestmove", Duration::from_secs(20));
    let last: Vec<&String> =
        gui.seen.iter().filter(|l| l.starts_with("info depth 2 ") && l.contains(" multipv ")).collect();
    assert_eq!(last.len(), 3, "{:?}", gui.seen);
    assert!(last[0].contains(" multipv 1 ") && last[0].contains(" pv d8xd1"), "{}", last[0]);
    let scores: Vec<i64> = last
        .iter()
        .map(|l| l.split(" score cp ").nth(1).and_then(|r| r.split_whitespace().next()).unwrap().parse().unwrap())
        .collect();
    assert!(scores.windows(2).all(|pair| pair[0] >= pair[1]), "{scores:?}");
    assert!(scores[0] > 400, "{scores:?}");
}

#[test]
fn analyse_judges_the_last_move_before_searching() {
    let mut gui = Gui::start();
    gui.send("setoption name Analyse value true");
    // White's king steps away from the queen the rook attacks: a blunder.
    gui.send("position fen 3r4/8/8/8/8/8/k7/3QK3 w - - 0 1 moves e1f2");
    gui.send("go depth 2");
    let judgement = gui.expect("info string judgement", Duration::from_secs(20));
    assert!(judgement.contains(" ply 1 move e1f2 "), "{judgement}");
    assert!(judgement.contains(" best d1xd8 ") && judgement.ends_with(" judgement blunder"), "{judgement}");
    let best = gui.expect("bestmove", Duration::from_secs(20));
    assert_eq!(best.split_whitespace().nth(1), Some("d8xd1"));
    // Without moves there is nothing to judge.
    gui.send("position fen 3r4/8/8/8/8/8/k7/3QK3 w - - 0 1");
    gui.send("go depth 1");
    gui.expect("bestmove", Duration::from_secs(20));
    assert_eq!(gui.count("info string judgement"), 1);
}

#[test]
fn a_level_caps_the_depth_under_a_move_time() {
    let mut gui = Gui::start_with(&["--level", "2"]);
    gui.send("position startpos moves b1^a3c3");
    gui.send("go movetime 3000");
    gui.expect("bestmove", Duration::from_secs(10));
    // The search stopped after the level's two plies, though the move time left room for more.
    let depths: Vec<&String> = gui.seen.iter().filter(|l| l.starts_with("info depth")).collect();
    assert!(depths.iter().any(|l| l.starts_with("info depth 2 ")), "{depths:?}");
    assert!(depths.iter().all(|l| !l.starts_with("info depth 3")), "{depths:?}");
    gui.send("uci");
    gui.expect("uciok", Duration::from_secs(10));
    assert!(gui.seen.iter().any(|l| l.starts_with("option name CapDepth ")));
}

/// Every position of every record in `examples/`, given move by move: `Analyse` judges the
/// last move as the record writes it, and `go searchmoves` searches the next one as written.
#[test]
fn every_position_of_the_example_records_is_searched_and_judged() {
    let mut gui = Gui::start();
    gui.send("setoption name Analyse value true");
    for path in all_examples() {
        let text = std::fs::read_to_string(&path).expect("readable");
        let start = text
            .lines()
            .find_map(|line| line.strip_prefix("[FEN \"")?.strip_suffix("\"]"))
            .map_or_else(|| "startpos".to_owned(), |fen| format!("fen {fen}"));
        let replayed = qchess_json("game", &["--record", &path]);
        let moves: Vec<&str> =
            replayed["moves"].as_array().unwrap().iter().map(|m| m["move"].as_str().unwrap()).collect();
        for ply in 1..=moves.len() {
            gui.send(&format!("position {start} moves {}", moves[..ply].join(" ")));
            let next = moves.get(ply).map(|mv| mv.split('.').next().unwrap_or(mv));
            gui.send(&format!("go depth 1{}", next.map(|mv| format!(" searchmoves {mv}")).unwrap_or_default()));
            let judgement = gui.expect("info string judgement", Duration::from_secs(60));
            assert!(judgement.contains(&format!(" ply {ply} move {} ", moves[ply - 1])), "{path}: {judgement}");
            let best = gui.expect("bestmove", Duration::from_secs(60));
            if let Some(next) = next {
                assert_eq!(
                    best.split_whitespace().nth(1).map(|mv| mv.replace(['x', 'w'], "")),
                    Some(next.replace(['x', 'w'], "")),
                    "{path}: {:?}",
                    gui.seen
                );
            }
        }
    }
    let refused = |line: &&String| {
        ["info string position", "info string judgement:", "info string go:"].iter().any(|p| line.starts_with(p))
            && !line.ends_with("the game is over; there is no move to make")
    };
    assert_eq!(gui.seen.iter().find(refused), None);
}
