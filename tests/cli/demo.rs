//! `qchess demo`: narrated, deterministic, and machine-readable with --json.

use crate::common::qchess;

#[test]
fn the_demo_narrates_split_merge_capture_and_measurement() {
    let run = qchess(&["demo"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for expected in ["splits the knight", "merges the two halves", "captures on h6", "measured m", "Final position"] {
        assert!(run.stdout.contains(expected), "missing {expected:?}:\n{}", run.stdout);
    }
    assert!(run.stdout.lines().all(|line| line.chars().count() <= 80), "fits 80 columns");
    let again = qchess(&["demo"]);
    assert_eq!(again.stdout, run.stdout, "deterministic");
}

#[test]
fn the_demo_in_json() {
    let run = qchess(&["demo", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out = run.json();
    let steps = out["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 9);
    assert_eq!(steps[0]["move"]["move"], "b1^a3c3");
    let measured: Vec<_> = steps.iter().filter(|s| !s["move"]["outcome_probability"].is_null()).collect();
    assert_eq!(measured.len(), 1, "one measurement");
    assert!((measured[0]["move"]["outcome_probability"].as_f64().unwrap_or(0.0) - 0.5).abs() < 1e-12);
    assert_eq!(out["game"]["result"], "*");
    assert_eq!(out["game"]["probabilities"].as_object().map(|m| m.len()), Some(64));
}

#[test]
fn the_classical_demo_narrates_a_checkmate() {
    let run = qchess(&["demo", "--rules", "classical", "--ascii"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for expected in ["Classical chess demo", "h5xf7", "checkmate", "Result: 1-0 (checkmate)", "one configuration"] {
        assert!(run.stdout.contains(expected), "missing {expected:?}:\n{}", run.stdout);
    }
    assert!(run.stdout.lines().all(|line| line.chars().count() <= 80), "fits 80 columns");
    let out = qchess(&["demo", "--rules", "classical", "--json"]).json();
    assert_eq!(out["steps"].as_array().map(Vec::len), Some(7));
    assert_eq!((&out["game"]["result"], &out["game"]["reason"]), (&"1-0".into(), &"checkmate".into()));
    assert_eq!(out["game"]["pieces"]["f7"], "Q");
    let refused = qchess(&["demo", "--rules", "observer"]);
    assert_eq!(refused.code, Some(2));
    assert_eq!(refused.stderr.lines().count(), 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("--rules: the demo narrates the official, classical and checkmate rules"),
        "{}",
        refused.stderr
    );
}

#[test]
fn the_checkmate_demo_toggles_quantum_mode_and_measures() {
    let run = qchess(&["demo", "--rules", "checkmate", "--ascii"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for expected in ["mode:classical (no turn used)", "mode:quantum (no turn used)", "c2c3", "?f6", "one configuration"]
    {
        assert!(run.stdout.contains(expected), "missing {expected:?}:\n{}", run.stdout);
    }
    assert!(run.stdout.lines().all(|line| line.chars().count() <= 80), "fits 80 columns");
    assert_eq!(qchess(&["demo", "--rules", "checkmate", "--ascii"]).stdout, run.stdout, "deterministic");
    // Across seeds, the narration follows what the measurements found.
    for seed in ["1", "2", "3", "4"] {
        let out = qchess(&["demo", "--rules", "checkmate", "--json", "--seed", seed]).json();
        let steps = out["steps"].as_array().expect("steps");
        assert_eq!(steps.len(), 7);
        assert_eq!(steps[1]["mode_change"], "mode:classical");
        let pawn_moved = out["game"]["pieces"]["c3"] == "P";
        let said = steps[3]["aftermath"].as_str().expect("aftermath");
        assert_eq!(said.contains("the pawn moved"), pawn_moved, "seed {seed}: {said}");
        let knight_on_f6 = out["game"]["pieces"]["f6"] == "n";
        assert_eq!(steps[6]["aftermath"].as_str().expect("aftermath").contains("was on f6"), knight_on_f6);
        let probabilities = out["game"]["probabilities"].as_object().expect("probabilities");
        assert!(probabilities.values().all(|p| p == 0.0 || p == 1.0), "seed {seed}: everything collapsed");
    }
}
