//! `qchess game`: the JSON contract, exact values, the end of the game, --save / --record round
//! trips, and exit codes.

use serde_json::Value;

use crate::common::{Run, Served, close, qchess, qchess_json};

fn game_json(args: &[&str]) -> Value {
    qchess_json("game", args)
}

fn assert_input_error(run: &Run, expected: &str) {
    assert_eq!(run.code, Some(2), "stdout: {}\nstderr: {}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "nothing printed on error: {}", run.stdout);
    assert_eq!(run.stderr.lines().count(), 1, "one line: {}", run.stderr);
    assert!(run.stderr.contains(expected), "{}", run.stderr);
}

#[test]
fn json_has_pieces_probabilities_moves_and_result() {
    let out = game_json(&["--moves", "b1^a3c3 e7e6"]);
    let probabilities = out["probabilities"].as_object().expect("object");
    assert_eq!(probabilities.len(), 64);
    assert!(close(&probabilities["a3"], 0.5) && close(&probabilities["c3"], 0.5) && close(&probabilities["b1"], 0.0));
    assert_eq!(out["pieces"]["a3"], "N");
    assert_eq!(out["pieces"]["e6"], "p");
    assert!(out["pieces"].get("b1").is_none(), "a certainly empty square has no piece");
    let moves = out["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[0]["move"], "b1^a3c3");
    assert_eq!(moves[0]["outcome"], Value::Null);
    assert_eq!(moves[0]["proceeded"], true);
    assert_eq!(moves[0]["type"], "SPLIT_JUMP");
    assert_eq!(out["result"], "*");
    assert!(out.get("reason").is_none());
    assert_eq!(out["ply"], 2);
    assert_eq!(out["side_to_move"], "white");
    assert_eq!(out["castling"], "KQkq");
    assert_eq!(out["fifty_move_counter"], 2);
}

#[test]
fn measured_moves_carry_their_outcome_and_replay() {
    let out = game_json(&["--moves", "g1^f3h3 a7a6 f2f3", "--seed", "5"]);
    let mv = &out["moves"][2];
    let text = mv["move"].as_str().expect("move").to_owned();
    let outcome = mv["outcome"].as_u64().expect("measured");
    assert_eq!(text, format!("f2wf3.m{outcome}"));
    assert!(close(&mv["outcome_probability"], 0.5));
    assert_eq!(mv["proceeded"], outcome == 1);
    // The echoed moves replay to the same position with any seed.
    let again = game_json(&["--moves", &format!("g1^f3h3 a7a6 {text}"), "--seed", "77"]);
    assert_eq!(again["probabilities"], out["probabilities"]);
    assert_eq!(again["pieces"], out["pieces"]);
}

#[test]
fn a_king_capture_ends_the_game() {
    let out = game_json(&["--moves", "e2e3 f7f6 d1h5 a7a6 h5xe8"]);
    assert_eq!(out["result"], "1-0");
    assert_eq!(out["reason"], "king captured");
    assert_eq!(out["code"], "WHITE_WIN");
    let run = qchess(&["game", "--moves", "e2e3 f7f6 d1h5 a7a6 h5xe8 e8e7"]);
    assert_input_error(&run, "--moves, move 6: the game is over (1-0, king captured)");
    let free = game_json(&["--no-win-check", "--moves", "e2e3 f7f6 d1h5 a7a6 h5xe8 b7b6"]);
    assert_eq!(free["result"], "*");
}

#[test]
fn the_fifty_move_rule_measures_and_draws() {
    let out = game_json(&["--position", "fen 4k3/8/8/8/8/8/8/4K3 w - - 99 60", "--moves", "e1e2"]);
    assert_eq!(out["result"], "1/2-1/2");
    assert_eq!(out["reason"], "fifty-move rule");
    assert_eq!(out["measured_board"], serde_json::json!(["e2", "e8"]));
}

#[test]
fn position_strings_with_moves_and_turn_order() {
    let out = game_json(&["--position", "startpos moves b1^a3c3 e7e6", "--moves", "a3c3^b5"]);
    assert!(close(&out["probabilities"]["b5"], 1.0));
    assert_eq!(out["moves"].as_array().map(Vec::len), Some(3));
    let out = game_json(&["--no-turn-order", "--moves", "e2e4 d2d4"]);
    assert_eq!(out["pieces"]["d4"], "P");
    assert_eq!(out["side_to_move"], "black");
}

#[test]
fn human_output_shows_the_board_and_status() {
    let run = qchess(&["game", "--moves", "g1^f3h3"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains('♘') && run.stdout.contains("50%"), "{}", run.stdout);
    assert!(run.stdout.contains("Moves: 1. g1^f3h3"), "{}", run.stdout);
    assert!(run.stdout.contains("Black to move; ply 1"), "{}", run.stdout);
    let ascii = qchess(&["game", "--ascii", "--moves", "g1^f3h3"]);
    assert!(ascii.stdout.contains(" N ") && !ascii.stdout.contains('♘'), "{}", ascii.stdout);
}

#[test]
fn bad_input_exits_2_with_the_reason() {
    assert_input_error(
        &qchess(&["game", "--moves", "e2e4 e7e5 e4e5"]),
        "--moves, move 3: e4e5: e5 certainly holds a black pawn",
    );
    assert_input_error(&qchess(&["game", "--moves", "e2e4 e7e9"]), "--moves, move 2: bad move `e7e9`");
    assert_input_error(
        &qchess(&["game", "--moves", "e2e4 d7d5 e4xd5.m0"]),
        "--moves, move 3: e4xd5.m0: outcome m0 has probability 0 here",
    );
    assert_input_error(&qchess(&["game", "--moves", "b1^a3c3.m1"]), "this move makes no measurement");
    assert_input_error(&qchess(&["game", "--position", "fen 8/8 w"]), "--position: FEN");
    assert_input_error(&qchess(&["game", "--position", "startpos moves e2e5"]), "--position, move 1: e2e5:");
    // IonQ's own service needs a key; none is set here.
    let no_key = qchess(&["game", "--backend", "ionq", "--api-key", ""]);
    assert_eq!(no_key.code, Some(2), "{}", no_key.stderr);
    let unknown = qchess(&["game", "--backend", "sim"]);
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(unknown.stderr.contains("`sim` is not a backend"), "{}", unknown.stderr);
    assert_input_error(&qchess(&["game", "--record", "/nonexistent/game.pgn"]), "/nonexistent/game.pgn");
}

#[test]
fn save_and_record_round_trip() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("game.pgn");
    let path_text = path.to_str().expect("utf-8 path");
    let saved = game_json(&["--moves", "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4", "--seed", "9", "--save", path_text]);
    let text = std::fs::read_to_string(&path).expect("saved record");
    assert!(text.contains("[Seed \"9\"]") && text.contains("[Result \"*\"]"), "{text}");
    let capture = saved["moves"][4]["move"].as_str().expect("move");
    assert!(text.contains(capture), "the outcome is recorded: {text}");
    // Replaying with another seed gives the same game; then more moves can follow.
    let replayed = game_json(&["--record", path_text, "--seed", "1234"]);
    assert_eq!(replayed["probabilities"], saved["probabilities"]);
    assert_eq!(replayed["moves"], saved["moves"]);
    let continued = game_json(&["--record", path_text, "--moves", "a6b4", "--save", path_text]);
    assert_eq!(continued["moves"].as_array().map(Vec::len), Some(6));
    let reloaded = game_json(&["--record", path_text]);
    assert_eq!(reloaded["moves"], continued["moves"]);

    // A record whose outcome cannot happen is refused, naming the move.
    std::fs::write(&path, "[Event \"x\"]\n\n1. e2e4 d7d5 2. e4xd5.m0 *\n").expect("write");
    assert_input_error(&qchess(&["game", "--record", path_text]), "move 2: e4xd5.m0: outcome m0 has probability 0");
    std::fs::write(&path, "1. e2e4 {unclosed\n").expect("write");
    assert_input_error(&qchess(&["game", "--record", path_text]), "line 1, column 9: the comment has no closing");
}

#[test]
fn every_example_replays_through_the_cli() {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for name in ["official-split-merge.pgn", "king-capture.pgn", "fifty-move-rule.pgn"] {
        let path = examples.join(name);
        let out = game_json(&["--record", path.to_str().expect("utf-8")]);
        assert!(out["moves"].as_array().is_some_and(|m| !m.is_empty()), "{name}");
    }
}

/// The same game through `--backend` on a `qchess serve`: the ideal simulator answers exact
/// probabilities, so every square agrees with the local board to 1e-9; a sampled hardware
/// stand-in plays the same pinned game to the same pieces.
#[test]
fn a_game_runs_on_a_served_backend() {
    let served = Served::start(&["--seed", "5"]);
    let moves = "b1^a3c3 g8^f6h6 e2e3 f6d5 a3c3^b5 h6g4 f1^d3c4 d5xe3.m1 g1f3 e7e6";
    let local = game_json(&["--moves", moves, "--seed", "3"]);
    let remote = game_json(&["--moves", moves, "--seed", "3", "--backend", &served.url]);
    for (l, r) in local["moves"].as_array().expect("moves").iter().zip(remote["moves"].as_array().expect("moves")) {
        assert_eq!((&l["move"], &l["outcome"], &l["proceeded"]), (&r["move"], &r["outcome"], &r["proceeded"]));
        match (l["outcome_probability"].as_f64(), r["outcome_probability"].as_f64()) {
            (Some(p), Some(q)) => assert!((p - q).abs() < 1e-9, "{l} vs {r}"),
            (p, q) => assert_eq!(p, q, "{l} vs {r}"),
        }
    }
    assert_eq!(remote["pieces"], local["pieces"]);
    let (local, remote) = (local["probabilities"].as_object().expect("object"), &remote["probabilities"]);
    for (square, p) in local {
        let q = remote[square].as_f64().expect("a probability");
        assert!((p.as_f64().expect("a probability") - q).abs() < 1e-9, "{square}: {p} vs {q}");
    }

    let sampled =
        game_json(&["--moves", "b1^a3c3 e7e6 a3c3^b5", "--backend", &format!("{},target=qpu.aria-1", served.url)]);
    assert!(close(&sampled["probabilities"]["b5"], 1.0), "the merge is certain on noiseless shots: {sampled}");
}

#[test]
fn provider_url_takes_the_bare_base_or_the_versioned_api() {
    let served = Served::start(&["--seed", "5"]);
    let moves = "b1^a3c3 e7e6";
    let direct = game_json(&["--moves", moves, "--backend", &served.url]);
    assert!(close(&direct["probabilities"]["a3"], 0.5), "{direct}");
    for url in [served.url.clone(), format!("{}/", served.url), format!("{}/v0.4", served.url)] {
        let through_ionq =
            game_json(&["--moves", moves, "--backend", "ionq", "--provider-url", &url, "--api-key", "k"]);
        assert_eq!(through_ionq["probabilities"], direct["probabilities"], "--provider-url {url}");
    }
}
