//! `qchess compile`: JSON shape, files in `--out`, `--per-move`, every `--format` read back and
//! simulated against `qchess board`, games in official notation, exit codes, and the golden
//! circuits in `circuits/`.

mod golden;
mod reading;
mod target;

use serde_json::{Value, json};

use crate::common::{qchess, qchess_json};
use reading::{board_probabilities, ionq_probabilities, qasm2_probabilities};

const CAPTURE: &str = "b1^a3c3:SPLIT_JUMP:BASIC f6^d5h5:SPLIT_JUMP:BASIC c3d5.m1:JUMP:CAPTURE";
const SPLIT_SLIDE_MERGE: &str = "a1^a5e1:SPLIT_SLIDE:BASIC b5^a3d6:SPLIT_JUMP:BASIC a5e1^a1:MERGE_SLIDE:BASIC";

fn compile_json(args: &[&str]) -> Value {
    qchess_json("compile", args)
}

fn bit(square: u32) -> u64 {
    1 << square
}

#[test]
fn json_holds_the_program_and_its_sidecar_in_order() {
    let run = qchess(&["compile", "--init", "b1,f6", "--moves", CAPTURE, "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Keys keep the documented order.
    let order =
        ["\"format\"", "\"qasm\"", "\"sidecar\"", "\"squares\"", "\"classical\"", "\"postselect\"", "\"measure\""];
    let positions: Vec<usize> = order.iter().map(|key| run.stdout.find(key).expect(key)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{}", run.stdout);
    let out = run.json();
    assert_eq!(out.as_object().expect("object").len(), 3);
    assert_eq!(out["format"], "qasm2");
    assert!(out["qasm"].as_str().expect("text").starts_with("OPENQASM 2.0;\n"));
    // b1 = 0, a3 = 1, c3 = 2 (measured: 1), f6 = 3, d5 = 4 (the victim's qubit), h5 = 5.
    let sidecar = &out["sidecar"];
    assert_eq!(sidecar["squares"], json!({"a3": 1, "h5": 5}));
    assert_eq!(sidecar["classical"], bit(35), "only d5 is classically occupied: the attacker");
    assert_eq!(sidecar["postselect"], json!([{"qubit": 2, "clbit": 0, "value": 1}]));
    assert_eq!(sidecar["measure"], json!([1, 5]));
    assert_eq!(sidecar["setup"], json!({"init": bit(1) | bit(45), "moves": CAPTURE, "seed": 0}));
}

#[test]
fn every_format_reads_back_to_the_boards_probabilities() {
    for (init, moves) in [("b1,f6", CAPTURE), ("a1,b5", SPLIT_SLIDE_MERGE)] {
        let expected = board_probabilities(init, moves);
        let qasm = compile_json(&["--init", init, "--moves", moves]);
        let ours = qasm2_probabilities(qasm["qasm"].as_str().expect("text"), &qasm["sidecar"]);
        let ionq = compile_json(&["--init", init, "--moves", moves, "--format", "ionq-json"]);
        assert_eq!(ionq["format"], "ionq-json");
        assert_eq!(ionq["sidecar"], qasm["sidecar"], "the sidecar does not depend on the format");
        let theirs = ionq_probabilities(&ionq["ionq"], &ionq["sidecar"]);
        for square in 0..64 {
            assert!((ours[square] - expected[square]).abs() < 1e-12, "{moves}: OpenQASM 2, square {square}");
            assert!((theirs[square] - expected[square]).abs() < 1e-12, "{moves}: IonQ JSON, square {square}");
        }
    }
}

#[test]
fn without_out_or_json_the_program_goes_to_stdout() {
    let args = ["compile", "--init", "b1", "--moves", "b1^a3c3:SPLIT_JUMP:BASIC"];
    let qasm2 = qchess(&args);
    assert_eq!(qasm2.code, Some(0), "{}", qasm2.stderr);
    assert!(qasm2.stdout.starts_with("OPENQASM 2.0;\ninclude \"qelib1.inc\";\n"));
    assert!(qasm2.stdout.ends_with("measure q[1] -> meas[0];\nmeasure q[2] -> meas[1];\n"), "{}", qasm2.stdout);
    let qasm3 = qchess(&[&args[..], &["--format", "qasm3"]].concat());
    assert!(qasm3.stdout.starts_with("OPENQASM 3.0;\ninclude \"stdgates.inc\";\n"));
    assert!(qasm3.stdout.contains("sqrt_iswap q[0], q[1];"));
    assert!(qasm3.stdout.ends_with("meas[0] = measure q[1];\nmeas[1] = measure q[2];\n"), "{}", qasm3.stdout);
    let ionq = qchess(&[&args[..], &["--format", "ionq-json"]].concat());
    let circuit: Value = serde_json::from_str(&ionq.stdout).expect("IonQ JSON");
    assert_eq!(circuit["gateset"], "qis");
    assert_eq!(circuit["qubits"], 3);
    assert_eq!(circuit["circuit"][0], json!({"gate": "x", "targets": [0]}));
}

#[test]
fn out_writes_each_format_with_its_sidecar() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (format, file) in [("qasm2", "game.qasm"), ("qasm3", "game.qasm3"), ("ionq-json", "game.ionq.json")] {
        // A directory that does not exist yet is created.
        let out = dir.path().join(format).join("nested");
        let out_text = out.to_str().expect("UTF-8");
        let run = qchess(&["compile", "--init", "b1,f6", "--moves", CAPTURE, "--format", format, "--out", out_text]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let circuit = out.join(file);
        let sidecar = out.join("game.json");
        assert_eq!(run.stdout, format!("wrote {} and {}\n", circuit.display(), sidecar.display()));
        let text = std::fs::read_to_string(&circuit).expect("circuit file");
        assert!(!text.is_empty());
        let sidecar_text = std::fs::read_to_string(&sidecar).expect("sidecar file");
        let parsed: qchess_qasm::sidecar::Sidecar = sidecar_text.parse().expect("a valid sidecar");
        assert_eq!(parsed.measure.len(), 2);
        let printed = compile_json(&["--init", "b1,f6", "--moves", CAPTURE, "--format", format]);
        assert_eq!(serde_json::from_str::<Value>(&sidecar_text).expect("JSON"), printed["sidecar"]);
    }
    let listed = compile_json(&["--init", "b1", "--out", dir.path().to_str().expect("UTF-8")]);
    let game = dir.path().join("game");
    assert_eq!(listed["files"][0]["circuit"], format!("{}.qasm", game.display()));
    assert_eq!(listed["files"][0]["sidecar"], format!("{}.json", game.display()));
}

#[test]
fn per_move_circuits_each_stand_alone() {
    let moves = "b1^a3c3:SPLIT_JUMP:BASIC c3e4:JUMP:BASIC a3e4^c5:MERGE_JUMP:BASIC";
    let list = compile_json(&["--init", "b1", "--moves", moves, "--per-move"]);
    let list = list.as_array().expect("a list per move");
    assert_eq!(list.len(), 3);
    let typed: Vec<&str> = moves.split(' ').collect();
    for (index, entry) in list.iter().enumerate() {
        assert_eq!(entry["ply"], index + 1);
        assert_eq!(entry["move"], typed[index]);
        let prefix = typed[..=index].join(" ");
        let whole = compile_json(&["--init", "b1", "--moves", &prefix]);
        assert_eq!(entry["qasm"], whole["qasm"], "move {}", index + 1);
        assert_eq!(entry["sidecar"], whole["sidecar"], "move {}", index + 1);
        let expected = board_probabilities("b1", &prefix);
        let ours = qasm2_probabilities(entry["qasm"].as_str().expect("text"), &entry["sidecar"]);
        assert!((0..64).all(|sq| (ours[sq] - expected[sq]).abs() < 1e-12), "move {}", index + 1);
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().to_str().expect("UTF-8");
    let run = qchess(&["compile", "--init", "b1", "--moves", moves, "--per-move", "--out", out, "--format", "qasm3"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().into_string().expect("name"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "move-001-b1-a3c3-split_jump-basic.json",
            "move-001-b1-a3c3-split_jump-basic.qasm3",
            "move-002-c3e4-jump-basic.json",
            "move-002-c3e4-jump-basic.qasm3",
            "move-003-a3e4-c5-merge_jump-basic.json",
            "move-003-a3e4-c5-merge_jump-basic.qasm3",
        ]
    );
    let stdout = qchess(&["compile", "--init", "b1", "--moves", moves, "--per-move"]).stdout;
    assert!(stdout.starts_with("// move 1: b1^a3c3:SPLIT_JUMP:BASIC\nOPENQASM 2.0;\n"));
    assert_eq!(stdout.matches("OPENQASM 2.0;").count(), 3);
}

#[test]
fn games_compile_from_official_notation_with_the_outcomes_that_happened() {
    let out = compile_json(&["--position", "startpos", "--moves", "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4", "--seed", "3"]);
    let game = qchess(&[
        "game",
        "--position",
        "startpos",
        "--moves",
        "g1^f3h3 b8^c6a6 e2e3 c6d4 f3xd4",
        "--seed",
        "3",
        "--json",
    ])
    .json();
    let recorded: Vec<&str> =
        game["moves"].as_array().expect("moves").iter().map(|m| m["move"].as_str().expect("text")).collect();
    assert!(recorded[4].starts_with("f3xd4.m"), "the capture's outcome is recorded: {recorded:?}");
    assert_eq!(out["sidecar"]["setup"], json!({"position": "startpos", "moves": recorded.join(" "), "seed": 3}));
    let ours = qasm2_probabilities(out["qasm"].as_str().expect("text"), &out["sidecar"]);
    for (square, name) in ["d4", "f3", "h3", "a6", "e3"].iter().map(|n| (square_index(n), *n)) {
        let expected = game["probabilities"][name].as_f64().expect("probability");
        assert!((ours[square] - expected).abs() < 1e-12, "{name}: {} vs {expected}", ours[square]);
    }
    // Moves inside --position count as plies too.
    let split = compile_json(&["--position", "startpos moves b1^a3c3 e7e6", "--moves", "a3c3^b5", "--per-move"]);
    let moves: Vec<&Value> = split.as_array().expect("list").iter().map(|e| &e["move"]).collect();
    assert_eq!(moves, [&json!("b1^a3c3"), &json!("e7e6"), &json!("a3c3^b5")]);
}

#[test]
fn measuring_every_square_becomes_post_selections() {
    let args = ["--position", "fen 4k3/8/8/8/8/8/8/4K3 w - - 98 60", "--moves", "e1^d1f1 e8^d8f8", "--seed", "4"];
    let out = compile_json(&args);
    let game = qchess(&[&["game", "--json"][..], &args[..]].concat()).json();
    let measured: u64 = game["measured_board"]
        .as_array()
        .expect("a measured board")
        .iter()
        .map(|sq| bit(square_index(sq.as_str().expect("name")) as u32))
        .sum();
    let sidecar = &out["sidecar"];
    assert_eq!(sidecar["squares"], json!({}));
    assert_eq!(sidecar["measure"], json!([]));
    assert_eq!(sidecar["classical"], measured);
    assert_eq!(sidecar["postselect"].as_array().expect("list").len(), 4, "d1, f1, d8 and f8 were measured");
    let ours = qasm2_probabilities(out["qasm"].as_str().expect("text"), sidecar);
    assert!((0..64).all(|sq| ours[sq] == f64::from(u8::from(measured >> sq & 1 == 1))));
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_problem() {
    let cases: [(&[&str], &str); 10] = [
        (&["--init", "b9"], "--init"),
        (&["--init", "b1", "--moves", "b1^a3c3:SPLIT_JUMP"], "move 1"),
        (&["--init", "b1", "--moves", "b1a3:JUMP:BASIC a3a4.m1:JUMP:BASIC"], "move 2"),
        (&["--init", "b1", "--moves", "b1a3.m0:JUMP:EXCLUDED"], "move 1"),
        (&["--position", "startpos", "--moves", "b1b3"], "--moves, move 1"),
        (&["--position", "fen 8/8 w"], "--position"),
        (&["--init", "b1", "--per-move"], "--per-move"),
        (&["--init", "b1", "--format", "qasm4"], "qasm4"),
        (&["--init", "b1", "--position", "startpos"], "--position"),
        (&["--moves", "b1^a3c3:SPLIT_JUMP:BASIC"], "--init"),
    ];
    let mut ours = 0;
    for (args, needle) in cases {
        let run = qchess(&[&["compile"][..], args].concat());
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(needle), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        // Our own errors are one line; flag errors are clap's, with its usage hint.
        if run.stderr.starts_with("qchess: error: ") {
            assert_eq!(run.stderr.trim_end().lines().count(), 1, "{args:?}: {}", run.stderr);
            ours += 1;
        }
    }
    assert_eq!(ours, 7, "every error past flag parsing is one of ours");
}

#[test]
fn an_unwritable_out_dir_exits_1() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").expect("write");
    let run = qchess(&["compile", "--init", "b1", "--out", file.to_str().expect("UTF-8")]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("creating the output directory"), "{}", run.stderr);
}

fn square_index(name: &str) -> usize {
    let bytes = name.as_bytes();
    usize::from(bytes[0] - b'a') + 8 * usize::from(bytes[1] - b'1')
}
