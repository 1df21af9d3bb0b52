//! `qchess match`: games between two players, with W/D/L, score, 95% interval and Elo.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, Result};
use qchess_core::PositionSpec;
use qchess_core::text::with_causes;
use qchess_search::matchplay::{MatchConfig, MatchGame, play_match};
use qchess_search::player::PlayerSpec;
use serde_json::json;

use crate::exit::{bad_input, bad_input_at};
use crate::output::print;

/// Flags of `qchess match`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The player whose results are counted: random (or ai), greedy, ai:0 .. ai:6, uqci:COMMAND.
    #[arg(long)]
    player: PlayerSpec,
    /// Its opponent (as --player).
    #[arg(long)]
    opponent: PlayerSpec,
    /// Number of games; colours alternate, the player starting with White.
    #[arg(long, default_value_t = 10)]
    games: u32,
    /// Thinking time per move, in milliseconds.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    movetime: u64,
    /// Seed of game 1's measurement outcomes (game i uses seed + i - 1) and of the players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Rule set: official, classical, ... (see `qchess moves --help`).
    #[arg(long, default_value = "official")]
    rules: qchess_engine::RuleSet,
    /// Plies after which an unfinished game is adjudicated a draw.
    #[arg(long, default_value_t = 300)]
    max_plies: u32,
    /// The start of every game: `startpos` or `fen <FEN>`.
    #[arg(long, default_value = "startpos")]
    position: String,
    /// Save every game's record in this directory (game-001.pgn, ...).
    #[arg(long, value_name = "DIR")]
    save: Option<PathBuf>,
}

/// Runs `qchess match`.
pub fn run(args: Args, json: bool) -> Result<()> {
    if args.player == PlayerSpec::Human || args.opponent == PlayerSpec::Human {
        return Err(bad_input("--player/--opponent: a match is between computer players, not human"));
    }
    if args.games == 0 {
        return Err(bad_input("--games: play at least one game"));
    }
    let spec: PositionSpec = args.position.parse().map_err(|e| bad_input_at("--position", e))?;
    if !spec.moves.is_empty() {
        return Err(bad_input("--position: a match start takes no moves"));
    }
    if let Some(dir) = &args.save {
        std::fs::create_dir_all(dir).with_context(|| format!("--save: creating {}", dir.display()))?;
    }
    let config = MatchConfig {
        games: args.games,
        movetime: Duration::from_millis(args.movetime),
        seed: args.seed,
        max_plies: args.max_plies,
        start: spec.start.to_fen(),
        rules: args.rules,
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(u64::from(args.games));
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} games {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar
    });
    let mut save_error = None;
    let mut score = 0.0;
    let (games, stats) = play_match(&args.player, &args.opponent, &config, |game: &MatchGame| {
        score += game.player_score;
        if let Some(dir) = &args.save
            && save_error.is_none()
        {
            let path = dir.join(format!("game-{:03}.pgn", game.index + 1));
            if let Err(error) = game.record.save(&path) {
                save_error = Some(format!("--save: {}", with_causes(&error)));
            }
        }
        if let Some(bar) = &bar {
            bar.set_message(format!("score {score}/{}", game.index + 1));
            bar.inc(1);
        }
    })
    .map_err(|e| anyhow::anyhow!(with_causes(&e)))?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if let Some(error) = save_error {
        anyhow::bail!(error);
    }
    if json {
        let per_game: Vec<_> = games
            .iter()
            .map(|g| {
                json!({
                    "game": g.index + 1,
                    "player_color": if g.player_color == qchess_core::Color::White { "white" } else { "black" },
                    "result": g.result.token(),
                    "score": g.player_score,
                    "plies": g.plies,
                    "reason": g.reason,
                })
            })
            .collect();
        let value = json!({
            "player": args.player.to_string(),
            "opponent": args.opponent.to_string(),
            "games": games.len(),
            "movetime_ms": args.movetime,
            "seed": args.seed,
            "rules": args.rules.name(),
            "wins": stats.wins,
            "draws": stats.draws,
            "losses": stats.losses,
            "score": stats.score,
            "score_interval": [stats.interval.0, stats.interval.1],
            "elo": stats.elo,
            "per_game": per_game,
        });
        return print(&format!("{value}\n"));
    }
    let elo = stats.elo.map_or_else(|| "unbounded".to_owned(), |e| format!("{e:+.0}"));
    print(&format!(
        "{} vs {}: {} games at {} ms per move\n+{} ={} -{}  score {:.1}% (95% interval {:.1}% .. {:.1}%)  Elo {elo}\n",
        args.player,
        args.opponent,
        games.len(),
        args.movetime,
        stats.wins,
        stats.draws,
        stats.losses,
        100.0 * stats.score,
        100.0 * stats.interval.0,
        100.0 * stats.interval.1,
    ))
}
