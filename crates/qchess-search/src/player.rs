//! Players by name: `human`, `random`, `greedy`, `ai`, `ai:K` and `uqci:COMMAND`.
//!
//! - `random` (= `ai:0`, and `ai` alone, which `qchess play` has always meant): a uniformly
//!   random legal move.
//! - `greedy`: one ply, the move with the best expected material after it (both outcomes of a
//!   measurement weighted by their exact probabilities), ties broken at random.
//! - `ai:K` for `K` in `1..=`[`MAX_LEVEL`]: the search to depth `K` (plus quiescence on
//!   captures, see [`level_config`]), within the time per move: its own think time
//!   ([`level_think_time`]) unless a move time is given. How each level fares against the one
//!   below is in the guide ("The computer player and UQCI", Strength). A UQCI `go` with a
//!   move time or a clock has no cap unless the engine is told to play as a level
//!   (`CapDepth`, `qchess uqci --level K`).
//! - `uqci:COMMAND`: an external engine speaking UQCI, started with `sh -c COMMAND`.
//! - `human`: a person; only interactive play has one.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use qchess_core::{BoardError, LegalMove};
use qchess_engine::ai::RandomMover;
use qchess_engine::{Game, GameError, PlayedMove};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::branch::for_each_outcome;
use crate::eval::{Weights, evaluate};
use crate::uqci::client::{ClientError, EngineClient};
use crate::{SearchConfig, SearchLimits, Searcher};

/// The strongest level.
pub const MAX_LEVEL: u32 = 6;
/// The level a UQCI `go` without limits searches to.
pub const DEFAULT_LEVEL: u32 = 3;

/// A player named on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlayerSpec {
    /// A person typing moves.
    Human,
    /// A random legal move (`random`, `ai:0`).
    Random,
    /// One ply of best expected material.
    Greedy,
    /// The search at a level from 1 to [`MAX_LEVEL`].
    Level(u32),
    /// An external UQCI engine, run with `sh -c`.
    Uqci(String),
}

/// The text does not name a player.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a player: use human, random (or ai), greedy, ai:0 to ai:{MAX_LEVEL}, or uqci:COMMAND")]
pub struct ParsePlayerError(pub String);

impl FromStr for PlayerSpec {
    type Err = ParsePlayerError;

    fn from_str(text: &str) -> Result<PlayerSpec, ParsePlayerError> {
        let error = || ParsePlayerError(text.to_owned());
        match text.trim() {
            "human" => Ok(PlayerSpec::Human),
            "greedy" => Ok(PlayerSpec::Greedy),
            "ai" | "random" => Ok(PlayerSpec::Random),
            other => {
                if let Some(level) = other.strip_prefix("ai:") {
                    match level.parse::<u32>().map_err(|_| error())? {
                        0 => Ok(PlayerSpec::Random),
                        level if level <= MAX_LEVEL => Ok(PlayerSpec::Level(level)),
                        _ => Err(error()),
                    }
                } else if let Some(command) = other.strip_prefix("uqci:").filter(|c| !c.trim().is_empty()) {
                    Ok(PlayerSpec::Uqci(command.to_owned()))
                } else {
                    Err(error())
                }
            }
        }
    }
}

impl PlayerSpec {
    /// How long this player thinks per move when no move time is given: a level's own think
    /// time ([`level_think_time`]), [`ENGINE_THINK_TIME`] for an external engine, nothing for
    /// the others (they do not search).
    pub fn think_time(&self) -> Duration {
        match self {
            PlayerSpec::Level(level) => level_think_time(*level),
            PlayerSpec::Uqci(_) => ENGINE_THINK_TIME,
            PlayerSpec::Human | PlayerSpec::Random | PlayerSpec::Greedy => Duration::ZERO,
        }
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::Human => f.write_str("human"),
            PlayerSpec::Random => f.write_str("random"),
            PlayerSpec::Greedy => f.write_str("greedy"),
            PlayerSpec::Level(level) => write!(f, "ai:{level}"),
            PlayerSpec::Uqci(command) => write!(f, "uqci:{command}"),
        }
    }
}

/// The search configuration and depth of a level.
pub fn level_config(level: u32) -> (SearchConfig, u32) {
    let level = level.clamp(1, MAX_LEVEL);
    let quiescence_plies = if level == 1 { 2 } else { 4 };
    (SearchConfig { quiescence_plies, ..SearchConfig::default() }, level)
}

/// Each level's think time per move in milliseconds, `ai:1` first (at least 100): the nodes its
/// depth took to finish in 9 of the 12 positions of `qchess bench --workload search-depth`
/// (the same on every machine), at the 530,000 nodes per second of one core of the 2-core
/// machine the guide's figures come from, rounded up ("The computer player and UQCI",
/// Levels). The search stops at its depth, so a level seldom uses all of it; given less, a
/// level plays as the one below it in the moves whose last ply does not finish.
pub const LEVEL_THINK_MS: [u64; MAX_LEVEL as usize] = [100, 100, 100, 300, 1500, 9000];

/// How long `ai:LEVEL` thinks per move when no move time is given ([`LEVEL_THINK_MS`]).
pub fn level_think_time(level: u32) -> Duration {
    let index = level.clamp(1, MAX_LEVEL) as usize - 1;
    Duration::from_millis(LEVEL_THINK_MS[index])
}

/// How long a UQCI engine is given per move when no move time is given.
pub const ENGINE_THINK_TIME: Duration = Duration::from_secs(1);

/// Why a player could not move.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// A person cannot be asked for a move here.
    #[error("a human player cannot play here")]
    Human,
    /// The game refused every move the player tried.
    #[error(transparent)]
    Game(#[from] GameError),
    /// The external engine failed.
    #[error(transparent)]
    Engine(#[from] ClientError),
    /// The search could not run.
    #[error(transparent)]
    Search(#[from] crate::SearchError),
}

/// A computer player: given the game, it plays its move on it.
pub enum Player {
    /// `random`.
    Random(RandomMover),
    /// `greedy`.
    Greedy(ChaCha8Rng),
    /// `ai:K`.
    Search {
        /// The searcher, kept between moves.
        searcher: Box<Searcher>,
        /// The deepest iteration.
        depth: u32,
    },
    /// `uqci:COMMAND`.
    Engine(Box<EngineClient>),
}

impl fmt::Debug for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Player::Random(_) => f.write_str("Player::Random"),
            Player::Greedy(_) => f.write_str("Player::Greedy"),
            Player::Search { depth, .. } => write!(f, "Player::Search(depth {depth})"),
            Player::Engine(_) => f.write_str("Player::Engine"),
        }
    }
}

impl Player {
    /// The player `spec` names, with its choices seeded by `seed`. Starts an external engine.
    pub fn new(spec: &PlayerSpec, seed: u64) -> Result<Player, PlayerError> {
        Ok(match spec {
            PlayerSpec::Human => return Err(PlayerError::Human),
            PlayerSpec::Random => Player::Random(RandomMover::new(seed)),
            PlayerSpec::Greedy => Player::Greedy(ChaCha8Rng::seed_from_u64(seed)),
            PlayerSpec::Level(level) => {
                let (config, depth) = level_config(*level);
                Player::Search { searcher: Box::new(Searcher::new(config)), depth }
            }
            PlayerSpec::Uqci(command) => Player::Engine(Box::new(EngineClient::start(command)?)),
        })
    }

    /// Forgets what it learnt in earlier games.
    pub fn new_game(&mut self) -> Result<(), PlayerError> {
        match self {
            Player::Search { searcher, .. } => searcher.clear(),
            Player::Engine(engine) => engine.new_game()?,
            Player::Random(_) | Player::Greedy(_) => {}
        }
        Ok(())
    }

    /// Plays this player's move on `game`, thinking at most about `movetime`.
    pub fn play(&mut self, game: &mut Game, movetime: Duration) -> Result<PlayedMove, PlayerError> {
        match self {
            Player::Random(mover) => Ok(mover.play(game)?),
            Player::Greedy(rng) => {
                let mut moves = game.legal_moves();
                moves.shuffle(rng);
                let ranked = rank_by_expected_score(game, &moves, &Weights::material_only());
                play_first_that_fits(game, ranked)
            }
            Player::Search { searcher, depth } => {
                let limits = SearchLimits { depth: Some(*depth), movetime: Some(movetime), ..SearchLimits::default() };
                let mut moves = game.legal_moves();
                match searcher.search(game, &limits) {
                    Ok(found) => {
                        if let Some(pair) = found.pair
                            && let Ok(played) = game.play_notation(&pair)
                        {
                            return Ok(played);
                        }
                        moves.retain(|mv| *mv != found.best);
                        moves.insert(0, found.best);
                    }
                    // A game whose record does not replay cannot be copied for the search:
                    // play on with the best move one ply sees rather than stop the game.
                    Err(crate::SearchError::Replay(_)) => {
                        moves = rank_by_expected_score(game, &moves, &Weights::default())
                    }
                    Err(error) => return Err(error.into()),
                }
                play_first_that_fits(game, moves)
            }
            Player::Engine(engine) => {
                let text = engine.best_move(game, movetime)?;
                Ok(game.play(&text)?)
            }
        }
    }
}

/// `moves` sorted by the expected score after them (both outcomes of a measurement weighed
/// exactly), best first; the sort is stable, so equal moves keep their order.
pub fn rank_by_expected_score(game: &Game, moves: &[LegalMove], weights: &Weights) -> Vec<LegalMove> {
    let Ok(mut copy) = crate::search::search_copy(game, 1 << 20) else { return moves.to_vec() };
    let mut scored: Vec<(f64, LegalMove)> = moves
        .iter()
        .map(|mv| {
            let values = for_each_outcome(&mut copy, mv, |after, p| p * -after_score(after, weights));
            (values.map_or(f64::NEG_INFINITY, |v| v.iter().sum()), *mv)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().map(|(_, mv)| mv).collect()
}

/// The score of a position after a move, for the side to move there.
fn after_score(game: &Game, weights: &Weights) -> f64 {
    match game.end().map(|end| end.result) {
        Some(result) if result == qchess_engine::GameResult::win_for(game.turn()) => crate::WIN,
        Some(result) if result == qchess_engine::GameResult::win_for(!game.turn()) => -crate::WIN,
        Some(_) => 0.0,
        None => evaluate(game.position(), weights),
    }
}

/// Plays the first of `moves` the board can hold (a move past the state cap is skipped).
fn play_first_that_fits(game: &mut Game, moves: Vec<LegalMove>) -> Result<PlayedMove, PlayerError> {
    let mut last = None;
    for mv in moves {
        match game.play_legal(&mv) {
            Ok(played) => return Ok(played),
            Err(error @ GameError::Board { source: BoardError::StateTooLarge { .. }, .. }) => last = Some(error),
            Err(error) => return Err(error.into()),
        }
    }
    Err(last.unwrap_or(GameError::NoLegalMove { side: game.turn() }).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_names_parse_and_print_back() {
        for name in ["human", "random", "greedy", "ai:1", "ai:4", "uqci:qchess uqci"] {
            assert_eq!(name.parse::<PlayerSpec>().unwrap().to_string(), name);
        }
        assert_eq!("ai".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random);
        assert_eq!("ai:0".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random);
        for bad in ["ai:7", "ai:x", "uqci:", "robot", ""] {
            assert!(bad.parse::<PlayerSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn each_level_thinks_its_own_time_and_deeper_levels_longer() {
        let times: Vec<Duration> = (1..=MAX_LEVEL).map(|level| PlayerSpec::Level(level).think_time()).collect();
        assert!(times.windows(2).all(|pair| pair[0] <= pair[1]), "{times:?}");
        assert_eq!(times[5], Duration::from_millis(LEVEL_THINK_MS[5]));
        assert_eq!(PlayerSpec::Uqci("qchess uqci".into()).think_time(), ENGINE_THINK_TIME);
        assert_eq!(PlayerSpec::Random.think_time(), Duration::ZERO);
    }

    #[test]
    fn greedy_takes_the_most_expected_material() {
        let fen = "4k3/8/8/3q4/8/3r4/8/3RK2N w - - 0 1".parse().unwrap();
        let mut game = Game::new(&fen, Default::default()).unwrap();
        let mut greedy = Player::new(&PlayerSpec::Greedy, 1).unwrap();
        let played = greedy.play(&mut game, Duration::from_millis(50)).unwrap();
        assert_eq!(played.notation.to_string(), "d1xd3");
    }
}
