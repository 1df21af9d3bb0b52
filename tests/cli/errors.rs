//! Errors a person reads: each cause said once, user text escaped and cut short, a compare
//! disagreement reported as a verdict, and `--save` writing through what it is given.

use std::path::Path;

use crate::common::{Run, Served, qchess};

/// A local port nothing listens on: bound, then released.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("bound").port()
}

/// Exit code 2, an error line on stderr (ours: one line; clap's usage errors: a few), nothing
/// that acts on a terminal, and short.
fn assert_safe_input_error(run: &Run, what: &str) {
    let shown: String = run.stderr.chars().take(600).collect();
    assert_eq!(run.code, Some(2), "{what}: {shown}");
    assert!(run.stderr.starts_with("qchess: error: ") || run.stderr.starts_with("error: "), "{what}: {shown}");
    if run.stderr.starts_with("qchess: error: ") {
        assert_eq!(run.stderr.trim_end().lines().count(), 1, "{what}: one line: {shown}");
    }
    assert!(!run.stderr.chars().any(|c| c.is_control() && c != '\n'), "{what}: raw control characters: {shown:?}");
    assert!(run.stderr.len() < 500, "{what}: {} bytes of error: {shown}", run.stderr.len());
}

#[test]
fn an_unreachable_provider_names_its_cause_once() {
    let url = format!("http://127.0.0.1:{}", closed_port());
    for backend in [vec!["--backend", url.as_str()], vec!["--backend", "ionq", "--provider-url", url.as_str()]] {
        let mut args = vec!["game", "--moves", "b1^a3c3", "--timeout", "2", "--api-key", "k"];
        args.extend(backend);
        let run = qchess(&args);
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        let line = run.stderr.trim_end();
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(line.starts_with("qchess: error: --moves, move 1: "), "{line}");
        for phrase in ["cannot reach the provider", "Connection refused", "backend failed", "tcp connect error"] {
            assert_eq!(line.matches(phrase).count(), 1, "`{phrase}` once in: {line}");
        }
        // No part of the chain repeats.
        let parts: Vec<&str> = line.split(": ").collect();
        let mut unique = parts.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), parts.len(), "{line}");
    }
}

#[test]
fn terminal_escapes_in_input_come_back_escaped() {
    let escape = "\u{1b}[31mRED\u{7}";
    let run = qchess(&["game", "--moves", escape]);
    assert_safe_input_error(&run, "--moves");
    assert!(run.stderr.contains("bad move `\\u{1b}[31mRED\\u{7}`"), "{}", run.stderr);
    let run = qchess(&["game", "--position", &format!("fen {escape} w - - 0 1")]);
    assert_safe_input_error(&run, "--position");
    assert!(run.stderr.contains("\\u{1b}"), "{}", run.stderr);
    let run = qchess(&["perft", "--depth", "1", "--fen", &format!("8/8/8/8/8/8/8/8 {escape} - - 0 1")]);
    assert_safe_input_error(&run, "--fen");

    let dir = tempfile::tempdir().expect("temp dir");
    let record = dir.path().join("game.pgn");
    std::fs::write(&record, format!("[Event \"x\"]\n\n1. e2e4 {escape} *\n")).expect("written");
    assert_safe_input_error(&qchess(&["game", "--record", &record.display().to_string()]), "record");
    let qasm = dir.path().join("bad.qasm");
    std::fs::write(&qasm, format!("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\n{escape} q[0];\n"))
        .expect("written");
    let run = qchess(&["sim", &qasm.display().to_string()]);
    assert_safe_input_error(&run, "qasm");
    assert!(run.stderr.contains("\\u{1b}"), "{}", run.stderr);
}

#[test]
fn huge_input_comes_back_as_a_short_excerpt() {
    let huge = "x".repeat(100_000);
    let run = qchess(&["game", "--moves", &huge]);
    assert_safe_input_error(&run, "--moves");
    assert!(run.stderr.contains(&format!("`{}...`", "x".repeat(60))), "{}", run.stderr);
    assert_safe_input_error(&qchess(&["game", "--position", &format!("fen {huge}")]), "--position");
    assert_safe_input_error(&qchess(&["game", "--position", &format!("startpos moves e2e4 {huge}")]), "moves");
    assert_safe_input_error(&qchess(&["perft", "--depth", "1", "--fen", &huge]), "--fen");
    assert_safe_input_error(&qchess(&["board", "--init", &huge]), "--init");
    assert_safe_input_error(&qchess(&["game", "--backend", &huge]), "--backend");
    assert_safe_input_error(&qchess(&["game", "--seed", &huge]), "--seed");

    let dir = tempfile::tempdir().expect("temp dir");
    let record = dir.path().join("game.pgn");
    std::fs::write(&record, format!("[Event \"x\"]\n\n1. e2e4 {huge} *\n")).expect("written");
    assert_safe_input_error(&qchess(&["game", "--record", &record.display().to_string()]), "record move");
    std::fs::write(&record, format!("[Event \"x\"]\n[Result \"{huge}\"]\n\n1. e2e4 *\n")).expect("written");
    assert_safe_input_error(&qchess(&["game", "--record", &record.display().to_string()]), "record tag");
    let qasm = dir.path().join("long.qasm");
    let line = "h".repeat(131_000);
    std::fs::write(&qasm, format!("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\n{line} q[0];\n"))
        .expect("written");
    assert_safe_input_error(&qchess(&["sim", &qasm.display().to_string()]), "qasm");
}

#[test]
fn a_disagreement_is_a_verdict_that_names_what_differs() {
    // Qubit 1 of the split's job is one of its targets: flipping it 3% of the time keeps each
    // square's own probability at 1/2 but makes "both" and "neither" possible.
    let served = Served::start(&["--seed", "3", "--defect", "bit-flip:1:0.03"]);
    let run = qchess(&["compare", "--moves", "g1^f3h3", "--vs", &served.url, "--bootstrap", "0"]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.is_empty(), "a verdict, not an error: {}", run.stderr);
    assert!(run.stdout.contains("**Verdict: the backends DISAGREE.**"), "{}", run.stdout);
    let differ = run.stdout.split("### Where they differ").nth(1).expect("a disagreement section");
    assert!(!differ.contains("0.500 vs 0.500"), "equal squares are not what differs: {differ}");
    assert!(differ.contains("every square (bit) agrees on its own, but together"), "{differ}");
    assert!(
        differ.contains("f3 h3 occupied 0.000 vs 0.015") && differ.contains("f3 h3 empty 0.000 vs 0.015"),
        "{differ}"
    );
}

#[test]
fn save_writes_through_a_link_and_refuses_a_directory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("game.pgn");
    std::fs::write(&target, "").expect("written");
    let link = dir.path().join("latest.pgn");
    std::os::unix::fs::symlink("game.pgn", &link).expect("link");
    let run = qchess(&["game", "--moves", "e2e4", "--save", &link.display().to_string()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(std::fs::symlink_metadata(&link).expect("exists").file_type().is_symlink());
    assert!(std::fs::read_to_string(&target).expect("read").contains("1. e2e4"));

    let run = qchess(&["game", "--moves", "e2e4", "--save", &dir.path().display().to_string()]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("is a directory; give a file name to save to"), "{}", run.stderr);
    let names: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").filter_map(Result::ok).collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
    assert!(Path::new(&target).exists());
}

#[test]
fn serve_quotes_what_a_request_said_escaped_and_short() {
    let served = Served::start(&[]);
    let http = reqwest::blocking::Client::new();
    let url = |path: &str| format!("{}{path}", served.url);
    let hostile = format!("\u{1b}[31m{}", "x".repeat(100_000));
    let circuit = serde_json::json!({"qubits": 1, "circuit": []});
    let requests = [
        (url("/v0.4/jobs"), serde_json::json!({"backend": hostile, "input": circuit})),
        (url("/v0.4/jobs"), serde_json::json!({"type": hostile, "input": circuit})),
        (url("/v0.4/jobs"), serde_json::json!({"noise": {"model": hostile}, "input": circuit})),
        (url("/v0.4/jobs"), serde_json::json!({"shots": hostile, "input": circuit})),
        (url("/quantumboard/init"), serde_json::json!({"bitboard": hostile})),
        (url("/quantumboard/do_move"), serde_json::json!({"square1": hostile})),
    ];
    let mut answers: Vec<(u16, serde_json::Value)> = requests
        .iter()
        .map(|(to, body)| {
            let response = http.post(to).json(body).send().expect("answers");
            (response.status().as_u16(), response.json().expect("a JSON error"))
        })
        .collect();
    let path = format!("/v0.4/jobs/%1B%5B31m{}", "y".repeat(5000));
    let response = http.get(url(&path)).send().expect("answers");
    answers.push((response.status().as_u16(), response.json().expect("a JSON error")));
    let response = http.get(url(&format!("/v0.4/backends/%07{}", "z".repeat(5000)))).send().expect("answers");
    answers.push((response.status().as_u16(), response.json().expect("a JSON error")));
    for (status, body) in answers {
        assert!((400..500).contains(&status), "{status}: {body}");
        let message = body["message"].as_str().expect("a message");
        assert!(!message.chars().any(char::is_control), "raw control characters: {message:?}");
        assert!(message.len() < 400, "{} bytes: {}", message.len(), &message[..400]);
    }
}
