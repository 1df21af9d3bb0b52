//! Fixed-depth searches of seeded random positions: a repeatable load to profile the search.
use qchess_engine::ai::RandomMover;
use qchess_engine::{Game, GameOptions};
use qchess_search::{SearchConfig, SearchLimits, Searcher};

fn main() {
    let depth: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2);
    let quiescence_plies: u32 = std::env::args().nth(2).and_then(|a| a.parse().ok()).unwrap_or(4);
    let config = SearchConfig { quiescence_plies, ..SearchConfig::default() };
    let (mut nodes, started) = (0u64, std::time::Instant::now());
    for seed in 0..5u64 {
        let mut game = Game::new(&qchess_core::Fen::start(), GameOptions::with_seed(seed)).unwrap();
        let mut mover = RandomMover::new(seed);
        for _ in 0..(8 + 4 * seed) {
            if game.is_over() || mover.play(&mut game).is_err() {
                break;
            }
        }
        if game.is_over() {
            continue;
        }
        let found = Searcher::new(config).search(&game, &SearchLimits::depth(depth)).unwrap();
        nodes += found.nodes;
        println!("seed {seed}: {} score {:.1} nodes {} depth {}", found.best, found.score, found.nodes, found.depth);
    }
    let s = started.elapsed().as_secs_f64();
    println!("total nodes {nodes} in {s:.2}s: {:.0} nodes/s", nodes as f64 / s);
}
