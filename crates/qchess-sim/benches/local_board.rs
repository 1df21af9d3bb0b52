//! One move on the local board with the exact probabilities of all 64 squares afterwards.
//!
//! Each iteration clones a prepared board (the clone is measured separately), applies one move
//! and reads every square's probability.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use qchess_core::{Bitboard, QuantumBoard, TypedMove};
use qchess_sim::local_board::LocalBoard;

fn prepared(moves: &str) -> LocalBoard {
    let mut board = LocalBoard::new(Bitboard::START);
    for text in moves.split_whitespace() {
        let mv: TypedMove = text.parse().expect("valid typed move");
        board.apply(&mv).expect("move runs");
    }
    board
}

fn bench_move(c: &mut Criterion, name: &str, setup: &str, mv: &str) {
    let board = prepared(setup);
    let mv: TypedMove = mv.parse().expect("valid typed move");
    c.bench_function(name, |b| {
        b.iter_batched_ref(
            || board.clone(),
            |board| {
                board.apply(&mv).expect("move runs");
                black_box(board.square_probabilities().expect("probabilities"))
            },
            BatchSize::SmallInput,
        )
    });
}

fn moves(c: &mut Criterion) {
    bench_move(c, "classical_pawn_step", "", "e2e4:PAWN_TWO_STEP:BASIC");
    bench_move(c, "split_jump_from_start", "", "g1^f3h3:SPLIT_JUMP:BASIC");
    bench_move(
        c,
        "slide_through_superposition",
        "g1^f3h3:SPLIT_JUMP:BASIC b1^a3c3:SPLIT_JUMP:BASIC e2e4:PAWN_TWO_STEP:BASIC",
        "f1a6:SLIDE:BASIC",
    );
    bench_move(
        c,
        "merge_after_splits",
        "g1^f3h3:SPLIT_JUMP:BASIC b1^a3c3:SPLIT_JUMP:BASIC g8^f6h6:SPLIT_JUMP:BASIC",
        "f3h3^g1:MERGE_JUMP:BASIC",
    );
    c.bench_function("clone_only", |b| {
        let board = prepared("g1^f3h3:SPLIT_JUMP:BASIC b1^a3c3:SPLIT_JUMP:BASIC g8^f6h6:SPLIT_JUMP:BASIC");
        b.iter(|| black_box(board.clone()))
    });
}

criterion_group!(benches, moves);
criterion_main!(benches);
