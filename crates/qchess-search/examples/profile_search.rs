//! Fixed-depth searches of seeded random positions: a repeatable load to profile the search.
//!
//! `profile_search DEPTH QUIESCENCE_PLIES` searches five fixed positions; with a third
//! argument `bench` it searches the 30 positions of `qchess bench --workload search` (every
//! fourth ply of seeded random games, six per game) instead, to the given depth.
use qchess_engine::ai::RandomMover;
use qchess_engine::{Game, GameOptions};
use qchess_search::{SearchConfig, SearchLimits, Searcher};

/// The positions of `qchess bench --workload search`.
fn bench_positions() -> Vec<Game> {
    let mut found = Vec::new();
    let mut seed = 0;
    while found.len() < 30 {
        let mut mover = RandomMover::new(seed);
        let mut game = Game::new(&qchess_core::Fen::start(), GameOptions::with_seed(seed)).unwrap();
        let mut taken = 0;
        while found.len() < 30 && taken < 6 && !game.is_over() {
            for _ in 0..4 {
                if game.is_over() || mover.play(&mut game).is_err() {
                    break;
                }
            }
            if !game.is_over() {
                let record = qchess_engine::record::GameRecord::from_game(&game, &Default::default());
                found.push(record.replay().unwrap());
                taken += 1;
            }
        }
        seed += 1;
    }
    found
}

/// Five positions after 8 to 24 random plies.
fn fixed_positions() -> Vec<Game> {
    let mut found = Vec::new();
    for seed in 0..5u64 {
        let mut game = Game::new(&qchess_core::Fen::start(), GameOptions::with_seed(seed)).unwrap();
        let mut mover = RandomMover::new(seed);
        for _ in 0..(8 + 4 * seed) {
            if game.is_over() || mover.play(&mut game).is_err() {
                break;
            }
        }
        if !game.is_over() {
            found.push(game);
        }
    }
    found
}

fn main() {
    let depth: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2);
    let quiescence_plies: u32 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(4);
    let bench = std::env::args().nth(3).is_some_and(|a| a == "bench");
    let config = SearchConfig { quiescence_plies, ..SearchConfig::default() };
    let games = if bench { bench_positions() } else { fixed_positions() };
    let (mut nodes, started) = (0u64, std::time::Instant::now());
    for (index, game) in games.iter().enumerate() {
        let found = Searcher::new(config).search(game, &SearchLimits::depth(depth)).unwrap();
        nodes += found.nodes;
        if !bench {
            println!(
                "position {index}: {} score {:.1} nodes {} depth {}",
                found.best, found.score, found.nodes, found.depth
            );
        }
    }
    let s = started.elapsed().as_secs_f64();
    println!("total nodes {nodes} in {s:.2}s: {:.0} nodes/s", nodes as f64 / s);
}
