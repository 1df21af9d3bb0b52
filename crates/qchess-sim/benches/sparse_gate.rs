//! One split on a large sparse state: 16 pieces each split once (2^16 basis states), then a
//! 17th piece splits (a square root of iSWAP doubling the state) and all 64 square
//! probabilities are read, as the local board does after a split.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use qchess_circuit::ir::{Gate, Qubit};
use qchess_sim::sparse::SparseState;

fn split_state(pieces: u32) -> SparseState {
    let mut state = SparseState::new();
    for index in 0..2 * pieces + 2 {
        state.add_qubit_at(Qubit(index), index as u8).expect("free position");
    }
    for piece in 0..pieces {
        let (source, target) = (Qubit(2 * piece), Qubit(2 * piece + 1));
        state.apply_gate(&Gate::x(source)).expect("fits");
        state.apply_gate(&Gate::iswap(source, target, 0.5)).expect("fits");
    }
    state
}

fn sparse_split(c: &mut Criterion) {
    let mut group = c.benchmark_group("sparse_split");
    group.sample_size(20);
    let pieces = 16;
    let state = split_state(pieces);
    let (source, target) = (Qubit(2 * pieces), Qubit(2 * pieces + 1));
    group.bench_function(format!("split_and_probabilities_at_{}_states", state.len()), |b| {
        b.iter_batched_ref(
            || state.clone(),
            |state| {
                state.apply_gate(&Gate::x(source)).expect("fits");
                state.apply_gate(&Gate::iswap(source, target, 0.5)).expect("fits");
                black_box(state.low_word_probabilities())
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, sparse_split);
criterion_main!(benches);
