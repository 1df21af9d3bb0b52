//! Matches: games between two players with alternating colours, and their statistics.
//!
//! Game `i` (from 0) starts from the match's start position with seed `seed + i` for its
//! measurement outcomes; the player plays White in even games. A game that reaches
//! [`MatchConfig::max_plies`] without ending is adjudicated a draw. The score is
//! `(wins + draws / 2) / games` from the player's side, with a 95% interval from the normal
//! approximation of the per-game scores' mean, and the Elo difference
//! `-400 log10(1 / score - 1)` (`None` at a score of 0 or 1, where it is unbounded).

use std::time::Duration;

use qchess_core::{Color, Fen};
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{Game, GameOptions, GameResult, RuleSet};

use crate::player::{Player, PlayerError, PlayerSpec};

/// How a match is played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchConfig {
    /// Number of games.
    pub games: u32,
    /// Thinking time per move.
    pub movetime: Duration,
    /// Seed of game 0 (game `i` uses `seed + i`).
    pub seed: u64,
    /// Plies after which an unfinished game is a draw.
    pub max_plies: u32,
    /// Where every game starts.
    pub start: Fen,
    /// The rules every game is played by.
    pub rules: RuleSet,
}

impl Default for MatchConfig {
    fn default() -> MatchConfig {
        MatchConfig {
            games: 10,
            movetime: Duration::from_millis(100),
            seed: 0,
            max_plies: 300,
            start: Fen::start(),
            rules: RuleSet::Official,
        }
    }
}

/// One finished game of a match.
#[derive(Debug, Clone)]
pub struct MatchGame {
    /// Its index, from 0.
    pub index: u32,
    /// The colour the player had.
    pub player_color: Color,
    /// The result (`1/2-1/2` also for adjudicated games).
    pub result: GameResult,
    /// 1, 1/2 or 0 from the player's side.
    pub player_score: f64,
    /// Plies played.
    pub plies: u32,
    /// Why it ended: the game's end reason, or `move limit`.
    pub reason: String,
    /// The game record.
    pub record: GameRecord,
}

/// A match's totals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MatchStats {
    /// Games the player won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the player lost.
    pub losses: u32,
    /// The player's score, 0 to 1.
    pub score: f64,
    /// The 95% interval of the score.
    pub interval: (f64, f64),
    /// The Elo difference the score means (`None` at 0 or 1).
    pub elo: Option<f64>,
}

impl MatchStats {
    /// The totals of per-game scores (1, 1/2, 0).
    pub fn from_scores(scores: &[f64]) -> MatchStats {
        let wins = scores.iter().filter(|s| **s > 0.75).count() as u32;
        let losses = scores.iter().filter(|s| **s < 0.25).count() as u32;
        let draws = scores.len() as u32 - wins - losses;
        let n = scores.len() as f64;
        if scores.is_empty() {
            return MatchStats { wins, draws, losses, score: 0.5, interval: (0.0, 1.0), elo: Some(0.0) };
        }
        let score = scores.iter().sum::<f64>() / n;
        let variance = scores.iter().map(|s| (s - score).powi(2)).sum::<f64>() / n;
        let half = 1.96 * (variance / n).sqrt();
        let interval = ((score - half).max(0.0), (score + half).min(1.0));
        MatchStats { wins, draws, losses, score, interval, elo: elo(score) }
    }
}

/// The Elo difference of a score, `None` at 0 or 1.
pub fn elo(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| -400.0 * (1.0 / score - 1.0).log10())
}

/// Plays a match; `on_game` hears of every finished game. Players are made once and told of
/// each new game; external engines are started once.
pub fn play_match(
    player: &PlayerSpec,
    opponent: &PlayerSpec,
    config: &MatchConfig,
    mut on_game: impl FnMut(&MatchGame),
) -> Result<(Vec<MatchGame>, MatchStats), PlayerError> {
    let mut players = [Player::new(player, config.seed)?, Player::new(opponent, config.seed.wrapping_add(1))?];
    let mut games = Vec::with_capacity(config.games as usize);
    for index in 0..config.games {
        let player_color = if index % 2 == 0 { Color::White } else { Color::Black };
        let seed = config.seed.wrapping_add(u64::from(index));
        let names = [player.to_string(), opponent.to_string()];
        let (white, black) = if player_color == Color::White { (0, 1) } else { (1, 0) };
        let mut game = Game::new(&config.start, GameOptions { rules: config.rules, ..GameOptions::with_seed(seed) })?;
        for p in &mut players {
            p.new_game()?;
        }
        while !game.is_over() && game.ply() < config.max_plies {
            let mover = if game.turn() == Color::White { white } else { black };
            players[mover].play(&mut game, config.movetime)?;
        }
        let (result, reason) = match game.end() {
            Some(end) => (end.result, end.reason.to_string()),
            None => (GameResult::Draw, "move limit".to_owned()),
        };
        let player_score = match result {
            r if r == GameResult::win_for(player_color) => 1.0,
            r if r == GameResult::win_for(!player_color) => 0.0,
            _ => 0.5,
        };
        let info = RecordInfo {
            event: format!("qchess match, game {}", index + 1),
            white: names[white].clone(),
            black: names[black].clone(),
            ..RecordInfo::default().dated_today()
        };
        let mut record = GameRecord::from_game(&game, &info);
        // Not `Termination`, which names how a game ended for replays (a resignation, a
        // flag): an adjudicated game replays as unfinished, its result `*`.
        if game.end().is_none() {
            record.set_tag("Adjudicated", &format!("draw at the move limit of {} plies", config.max_plies));
        }
        let finished = MatchGame { index, player_color, result, player_score, plies: game.ply(), reason, record };
        on_game(&finished);
        games.push(finished);
    }
    let scores: Vec<f64> = games.iter().map(|g| g.player_score).collect();
    Ok((games, MatchStats::from_scores(&scores)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics_of_a_known_score() {
        let stats = MatchStats::from_scores(&[1.0, 1.0, 1.0, 0.5, 0.0]);
        assert_eq!((stats.wins, stats.draws, stats.losses), (3, 1, 1));
        assert!((stats.score - 0.7).abs() < 1e-12);
        // Per-game variance: (3 * 0.09 + 0.04 + 0.49) / 5 = 0.16; half-width 1.96 * sqrt(0.16 / 5).
        let half = 1.96 * (0.16f64 / 5.0).sqrt();
        assert!((stats.interval.0 - (0.7 - half)).abs() < 1e-12);
        assert!((stats.elo.unwrap() - (-400.0 * (1.0f64 / 0.7 - 1.0).log10())).abs() < 1e-9);
        assert!((elo(0.75).unwrap() - 190.848_501_887_864_9).abs() < 1e-6);
        assert_eq!(elo(1.0), None);
    }

    #[test]
    fn a_short_match_alternates_colours_and_keeps_records() {
        let config =
            MatchConfig { games: 2, max_plies: 6, movetime: Duration::from_millis(20), ..MatchConfig::default() };
        let mut seen = 0;
        let (games, stats) = play_match(&PlayerSpec::Greedy, &PlayerSpec::Random, &config, |_| seen += 1).unwrap();
        assert_eq!(seen, 2);
        assert_eq!(games[0].player_color, Color::White);
        assert_eq!(games[1].player_color, Color::Black);
        assert_eq!(games[0].record.tag("White"), Some("greedy"));
        assert_eq!(games[1].record.tag("White"), Some("random"));
        assert_eq!(stats.wins + stats.draws + stats.losses, 2);
        assert!(games.iter().all(|g| g.plies <= 6));
        // Games stopped at the move limit are marked so, and their records replay.
        for game in &games {
            if game.reason == "move limit" {
                assert_eq!(game.record.tag("Adjudicated"), Some("draw at the move limit of 6 plies"));
            }
            let replayed = game.record.replay().expect("the record replays");
            assert_eq!(replayed.moves().len(), game.plies as usize);
        }
    }
}
