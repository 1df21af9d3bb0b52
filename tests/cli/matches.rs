//! `qchess match`: players, statistics, JSON and saved records.

use crate::common::{qchess, qchess_json};

#[test]
fn a_seeded_match_reports_every_game_and_saves_records() {
    let dir = tempfile::tempdir().expect("temp dir");
    let save = dir.path().join("games");
    let args = ["--player", "greedy", "--opponent", "random", "--games", "3", "--movetime", "10", "--max-plies", "40"];
    let value = qchess_json("match", &[&args[..], &["--seed", "4", "--save", save.to_str().unwrap()]].concat());
    let (wins, draws, losses) =
        (value["wins"].as_u64().unwrap(), value["draws"].as_u64().unwrap(), value["losses"].as_u64().unwrap());
    assert_eq!(wins + draws + losses, 3, "{value}");
    let per_game = value["per_game"].as_array().unwrap();
    let colours: Vec<&str> = per_game.iter().map(|g| g["player_color"].as_str().unwrap()).collect();
    assert_eq!(colours, ["white", "black", "white"]);
    let score = value["score"].as_f64().unwrap();
    assert!((score - (wins as f64 + draws as f64 / 2.0) / 3.0).abs() < 1e-12);
    for game in 1..=3 {
        let record = std::fs::read_to_string(save.join(format!("game-00{game}.pgn"))).expect("saved");
        assert!(record.contains("[Event \"qchess match, game"), "{record}");
        // Every saved game replays.
        let replayed = qchess(&["game", "--record", save.join(format!("game-00{game}.pgn")).to_str().unwrap()]);
        assert_eq!(replayed.code, Some(0), "{}", replayed.stderr);
    }
    // The same seed plays the same games.
    let again = qchess_json("match", &[&args[..], &["--seed", "4"]].concat());
    assert_eq!(again["per_game"], value["per_game"]);
}

#[test]
fn an_external_engine_plays_through_uqci() {
    let engine = format!("uqci:{} uqci", env!("CARGO_BIN_EXE_qchess"));
    let value = qchess_json(
        "match",
        &["--player", &engine, "--opponent", "random", "--games", "2", "--movetime", "20", "--max-plies", "30"],
    );
    assert_eq!(value["per_game"].as_array().unwrap().len(), 2, "{value}");
    assert_eq!(value["player"], engine.as_str());
}

#[test]
fn every_rule_set_can_be_played() {
    for rules in ["official", "classical"] {
        let value = qchess_json(
            "match",
            &[
                "--player",
                "ai:1",
                "--opponent",
                "greedy",
                "--games",
                "1",
                "--movetime",
                "10",
                "--max-plies",
                "12",
                "--rules",
                rules,
            ],
        );
        assert_eq!(value["rules"], rules);
        assert_eq!(value["per_game"].as_array().unwrap().len(), 1, "{value}");
    }
}

#[test]
fn bad_players_are_usage_errors() {
    for args in [
        &["match", "--player", "ai:99", "--opponent", "random"][..],
        &["match", "--player", "human", "--opponent", "random"],
        &["match", "--player", "greedy", "--opponent", "random", "--rules", "chess960"],
        &["play", "--white", "robot"],
    ] {
        let run = qchess(args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
    }
    let missing = qchess(&["match", "--player", "uqci:/nonexistent/engine", "--opponent", "random", "--games", "1"]);
    assert_eq!(missing.code, Some(1), "{}", missing.stderr);
    assert!(missing.stderr.contains("/nonexistent/engine"), "{}", missing.stderr);
}
