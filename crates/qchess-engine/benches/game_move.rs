//! One ply end to end, as a game plays it: legal-move generation, the move on the exact local
//! board (compile, simulate), the tracker and the probabilities of all 64 squares.
//!
//! Each iteration starts from a freshly replayed game (not timed) and plays one chosen move.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use qchess_engine::Game;

fn prepared(moves: &str) -> Game {
    let mut game = Game::standard();
    for text in moves.split_whitespace() {
        game.play(text).expect("legal move");
    }
    game
}

fn bench_ply(c: &mut Criterion, name: &str, setup: &'static str, mv: &'static str) {
    c.bench_function(name, |b| {
        b.iter_batched_ref(
            || prepared(setup),
            |game| {
                let moves = game.legal_moves();
                let chosen = moves.iter().find(|m| m.to_string() == mv).expect("the move is legal");
                game.play_legal(chosen).expect("plays");
                black_box(game.probabilities().probabilities[0])
            },
            BatchSize::SmallInput,
        )
    });
}

fn plies(c: &mut Criterion) {
    bench_ply(c, "ply_classical_pawn_step", "", "e2e4");
    bench_ply(c, "ply_split", "e2e4 e7e5", "g1^f3h3");
    bench_ply(c, "ply_merge", "g1^f3h3 b8^a6c6", "f3h3^g1");
    bench_ply(c, "ply_measured_capture", "g1^f3h3 e7e5", "f3xe5");
}

criterion_group!(benches, plies);
criterion_main!(benches);
