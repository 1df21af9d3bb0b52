//! `qchess play`: scripted games through a plain pipe and through a real pseudo-terminal,
//! against the computer, and in JSON.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// A game that ends on move 3: there is no check, so the queen simply takes the king.
const KING_CAPTURE: &str = "e2e3\nf7f6\nd1h5\na7a6\nh5xe8\n";

struct Session {
    code: Option<i32>,
    output: String,
}

/// Runs `qchess play` with `input` on a pipe.
fn play_piped(args: &[&str], input: &str) -> Session {
    let mut command = crate::common::command();
    command.arg("play").args(args);
    let (code, output) = crate::common::run_with_input(command, input);
    Session { code, output }
}

/// Runs `qchess play` on a pseudo-terminal (stdin, stdout and stderr all on the pty's slave
/// side) and types `input` into it.
fn play_on_pty(args: &[&str], input: &str) -> Session {
    use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).expect("open a pty");
    grantpt(&master).expect("grantpt");
    unlockpt(&master).expect("unlockpt");
    let name = ptsname(&master, Vec::new()).expect("ptsname");
    let slave = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(name.to_str().expect("utf-8 pty name"))
        .expect("open the pty's slave side");
    let mut child = {
        // The command holds the slave's descriptors; dropping it closes them here, so reading
        // the master ends when the child exits.
        let mut command = crate::common::command();
        command
            .arg("play")
            .args(args)
            .stdin(slave.try_clone().expect("dup"))
            .stdout(slave.try_clone().expect("dup"))
            .stderr(slave);
        command.spawn().expect("qchess runs")
    };
    let mut master = std::fs::File::from(master);
    let mut reader = master.try_clone().expect("dup master");
    let collector = std::thread::spawn(move || {
        let mut output = Vec::new();
        let mut buffer = [0u8; 4096];
        // Linux answers EIO once the slave side is closed: that is the end of output.
        while let Ok(n @ 1..) = reader.read(&mut buffer) {
            output.extend_from_slice(&buffer[..n]);
        }
        output
    });
    master.write_all(input.as_bytes()).expect("type the script");
    let deadline = Instant::now() + Duration::from_secs(120);
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("qchess play did not finish on the pty");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(master);
    let output = collector.join().expect("collector");
    Session { code, output: String::from_utf8_lossy(&output).replace('\r', "") }
}

#[test]
fn a_scripted_game_through_a_pipe_plays_to_the_end_without_prompts() {
    let session = play_piped(&["--black", "human", "--ascii"], KING_CAPTURE);
    assert_eq!(session.code, Some(0), "{}", session.output);
    assert!(session.output.contains("White: h5xe8"), "{}", session.output);
    assert!(session.output.contains("Result: 1-0 (king captured)"), "{}", session.output);
    assert!(!session.output.contains("white> ") && !session.output.contains("black> "), "{}", session.output);
    assert!(!session.output.contains("unfinished"), "{}", session.output);
}

#[test]
fn a_scripted_game_on_a_terminal_prompts_and_ends_cleanly_at_eof() {
    // Ctrl-D (0x04) at the start of a line is end of input on a terminal.
    let input = format!("{KING_CAPTURE}e1e2\n\x04");
    let session = play_on_pty(&["--black", "human"], &input);
    assert_eq!(session.code, Some(0), "{}", session.output);
    assert!(session.output.contains("Type `help` for the commands."), "{}", session.output);
    assert!(session.output.contains("white> ") && session.output.contains("black> "), "{}", session.output);
    assert!(session.output.contains('♚'), "Unicode pieces on a terminal:\n{}", session.output);
    assert!(session.output.contains("Result: 1-0 (king captured)"), "{}", session.output);
    assert!(session.output.contains("The game is over"), "{}", session.output);
    assert!(session.output.contains("error: the game is over"), "a move after the end:\n{}", session.output);
}

#[test]
fn against_the_computer_with_undo_save_and_analysis() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("game.pgn");
    let script = format!("g1^f3h3\nanalyse f3\nmoves\nundo\nb1^a3c3\nsave {}\nquit\n", path.display());
    let session = play_piped(&["--seed", "4", "--ascii"], &script);
    assert_eq!(session.code, Some(0), "{}", session.output);
    let out = &session.output;
    assert!(out.contains("Black (computer): "), "{out}");
    assert!(out.contains("f3: white knight, occupied with probability 50%"), "{out}");
    assert!(out.contains("Entangled with (log negativity): h3 (1.000)"), "{out}");
    assert!(out.contains("Bell correlations with h3: Psi+ 1.000"), "{out}");
    assert!(out.contains("legal moves:"), "{out}");
    assert!(out.contains("Took back "), "{out}");
    assert!(out.contains("Game left unfinished after 2 plies"), "{out}");
    let record = std::fs::read_to_string(&path).expect("saved");
    assert!(record.contains("[Black \"computer (random mover)\"]") && record.contains("1. b1^a3c3"), "{record}");
    // The saved game continues where it stopped.
    let resumed = play_piped(&["--record", path.to_str().expect("utf-8"), "--ascii"], "quit\n");
    assert!(resumed.output.contains("Game left unfinished after 2 plies"), "{}", resumed.output);
}

#[test]
fn the_computer_plays_both_sides_to_the_end() {
    let session = play_piped(&["--white", "ai", "--black", "ai", "--seed", "2", "--ascii"], "");
    assert_eq!(session.code, Some(0), "{}", session.output);
    assert!(session.output.contains("Result: "), "{}", session.output);
    let again = play_piped(&["--white", "ai", "--black", "ai", "--seed", "2", "--ascii"], "");
    assert_eq!(again.output, session.output, "seeded: the same game");
    let stopped = play_piped(&["--white", "ai", "--black", "ai", "--max-plies", "6"], "");
    assert!(stopped.output.contains("Stopped after 6 plies."), "{}", stopped.output);
}

#[test]
fn json_lines() {
    let session = play_piped(&["--json", "--black", "human"], "e2e4\nbogus\nundo\n");
    assert_eq!(session.code, Some(0), "{}", session.output);
    let events: Vec<serde_json::Value> = session
        .output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["event"].as_str()).collect();
    assert_eq!(kinds, ["position", "move", "position", "error", "undo", "position", "message"]);
    assert_eq!(events[1]["move"], "e2e4");
    assert!(events[3]["message"].as_str().is_some_and(|m| m.contains("bad move `bogus`")));
}

#[test]
fn bad_flags_exit_2() {
    let session = play_piped(&["--position", "fen nonsense"], "");
    assert_eq!(session.code, Some(2), "{}", session.output);
    assert!(session.output.contains("--position: FEN"), "{}", session.output);
    let no_time = play_piped(&["--white", "ai:1", "--movetime", "0"], "");
    assert_eq!(no_time.code, Some(2), "{}", no_time.output);
}

#[test]
fn without_a_move_time_each_level_thinks_its_own() {
    let help = crate::common::qchess(&["play", "--help"]);
    let own: Vec<String> = (1..=qchess_search::player::MAX_LEVEL)
        .map(|level| format!("ai:{level} {} ms", qchess_search::player::level_think_time(level).as_millis()))
        .collect();
    assert!(own.iter().all(|text| help.stdout.contains(text)), "{own:?} in\n{}", help.stdout);
    let session = play_piped(&["--white", "ai:2", "--black", "ai:1", "--max-plies", "4", "--ascii"], "");
    assert!(session.output.contains("Stopped after 4 plies."), "{}", session.output);
}

#[test]
fn resignation_clocks_and_rules_in_a_played_game() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("resigned.pgn");
    let script = format!("e2e4\ne7e5\nresign\nsave {}\n", path.display());
    let session = play_piped(&["--black", "human", "--rules", "checkmate", "--clock", "5+3", "--ascii"], &script);
    assert_eq!(session.code, Some(0), "{}", session.output);
    assert!(
        session.output.contains("Result: 1-0 (resignation)") || session.output.contains("0-1 (resignation)"),
        "{}",
        session.output
    );
    let record = std::fs::read_to_string(&path).expect("saved");
    for expected in
        ["[Rules \"checkmate\"]", "[Termination \"white resigned\"]", "[TimeControl \"300+3\"]", "[%clk 0:05:0", "0-1"]
    {
        assert!(record.contains(expected), "{expected} in {record}");
    }
    let timed = play_piped(&["--black", "human", "--clock", "0+0", "--ascii"], "e2e4\n");
    assert!(timed.output.contains("0-1 (time)"), "{}", timed.output);
    let bad = play_piped(&["--clock", "five"], "");
    assert_eq!(bad.code, Some(2), "{}", bad.output);
}

#[test]
fn quantum_mode_toggles_in_a_played_checkmate_game() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("toggled.pgn");
    let script = format!("mode:classical\nb1^a3c3\nmode:quantum\nb1^a3c3\nmode:x\nsave {}\n", path.display());
    let session = play_piped(&["--black", "human", "--rules", "checkmate", "--ascii"], &script);
    assert_eq!(session.code, Some(0), "{}", session.output);
    for expected in [
        "quantum mode is off",
        "b1^a3c3: quantum mode is off, so pieces cannot split",
        "quantum mode is on",
        "`mode:x` is not a mode change",
    ] {
        assert!(session.output.contains(expected), "{expected} in {}", session.output);
    }
    let record = std::fs::read_to_string(&path).expect("saved");
    assert!(record.contains("mode:classical mode:quantum 1. b1^a3c3"), "{record}");
}
