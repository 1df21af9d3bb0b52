//! Legal-move generation: the start position, a pawnless board where every piece can split,
//! and a middle game with pieces in superposition.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use qchess_core::{Fen, Position, Square, SquareProbabilities};

fn position(fen: &str, superposed: &[(Square, f64)]) -> Position {
    let fen: Fen = fen.parse().expect("valid FEN");
    let mut probabilities = SquareProbabilities::classical(fen.occupancy());
    for &(square, p) in superposed {
        probabilities.probabilities[usize::from(square)] = p;
    }
    Position::new(fen, probabilities).expect("valid position")
}

fn legal_moves(c: &mut Criterion) {
    let cases = [
        ("start", position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", &[])),
        ("pawnless", position("rnbqkbnr/8/8/8/8/8/8/RNBQKBNR w - - 0 1", &[])),
        (
            "middle_game_superposed",
            position(
                "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N1N/PPPP1PPP/R1BQK2R w KQkq - 0 5",
                &[(Square::C6, 0.5), (Square::F3, 0.5), (Square::H3, 0.5), (Square::C5, 0.75)],
            ),
        ),
    ];
    for (name, position) in cases {
        c.bench_function(&format!("legal_moves_{name}"), |b| b.iter(|| black_box(position.legal_moves())));
    }
}

criterion_group!(benches, legal_moves);
criterion_main!(benches);
