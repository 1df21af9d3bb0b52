//! Positions sampled from seeded games, for the search workloads: every few plies of each game,
//! a few per game, each a fresh replay of the game so far.

use qchess_engine::{Game, GameOptions};

use crate::error::BenchError;

/// Which plies of which games are taken.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sampling {
    /// The seed of the first game (of its board and of its player); the next games count up.
    pub first_seed: u64,
    /// Plies between two positions of one game (the first is this many plies in).
    pub plies_apart: usize,
    /// Positions taken from each game.
    pub per_game: usize,
}

/// Seeds tried before giving up on finding enough positions (games may end early).
const MAX_GAMES: u64 = 1000;

/// `count` positions of games seeded from `sampling.first_seed` on, each played by the player
/// `player_for(seed)` makes: `play` plays one ply and says whether it did (a ply not played
/// ends that stretch of plies early; the position is taken all the same).
pub(crate) fn positions<P>(
    count: usize,
    sampling: Sampling,
    mut player_for: impl FnMut(u64) -> P,
    mut play: impl FnMut(&mut P, &mut Game) -> Result<bool, BenchError>,
) -> Result<Vec<Game>, BenchError> {
    let mut found = Vec::with_capacity(count);
    for seed in sampling.first_seed..sampling.first_seed + MAX_GAMES {
        if found.len() == count {
            break;
        }
        let mut player = player_for(seed);
        let mut game =
            Game::new(&qchess_core::Fen::start(), GameOptions::with_seed(seed)).map_err(|e| BenchError::search(&e))?;
        let mut taken = 0;
        while found.len() < count && taken < sampling.per_game && !game.is_over() {
            for _ in 0..sampling.plies_apart {
                if game.is_over() || !play(&mut player, &mut game)? {
                    break;
                }
            }
            if !game.is_over() {
                let record = qchess_engine::record::GameRecord::from_game(&game, &Default::default());
                found.push(record.replay().map_err(|e| BenchError::search(&e))?);
                taken += 1;
            }
        }
    }
    if found.len() < count {
        return Err(BenchError::Search(format!("{MAX_GAMES} games gave fewer than {count} positions")));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_come_every_few_plies_and_a_few_per_game() {
        let sampling = Sampling { first_seed: 5, plies_apart: 3, per_game: 2 };
        let mut seeds = Vec::new();
        let games = positions(
            5,
            sampling,
            |seed| {
                seeds.push(seed);
                qchess_engine::ai::RandomMover::new(seed)
            },
            |mover, game| Ok(mover.play(game).is_ok()),
        )
        .expect("found");
        let plies: Vec<usize> = games.iter().map(|game| game.moves().len()).collect();
        assert_eq!(plies, [3, 6, 3, 6, 3]);
        assert_eq!(seeds, [5, 6, 7]);
    }

    #[test]
    fn too_few_positions_is_an_error_not_a_hang() {
        let sampling = Sampling { first_seed: 0, plies_apart: 1, per_game: 0 };
        let error = positions(1, sampling, |_| (), |_, _| Ok(true)).expect_err("no game gives a position");
        assert_eq!(error.to_string(), "search workload: 1000 games gave fewer than 1 positions");
    }
}
