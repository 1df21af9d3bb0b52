//! The planar kernels against the interleaved block kernel: every width, qubits at every
//! position (inside a chunk, at its edge, at the top), controls, thread counts, precisions.

use num_complex::{Complex, Complex64};
use pulp::Arch;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::block_kernel::{self, Real};
use super::fusion::Block;
use super::planar;

/// A random (not unitary: every entry counts) block on `qubits`.
pub(super) fn random_block(qubits: Vec<usize>, rng: &mut ChaCha8Rng) -> Block {
    let dim = 1usize << qubits.len();
    let matrix = (0..dim * dim).map(|_| Complex64::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)).collect();
    Block { qubits, matrix, control_mask: 0, control_value: 0, gates: 1 }
}

fn random_state(qubits: usize, rng: &mut ChaCha8Rng) -> Vec<Complex64> {
    (0..1usize << qubits).map(|_| Complex64::new(rng.random::<f64>() - 0.5, rng.random::<f64>() - 0.5)).collect()
}

/// `block` applied through the planar layout with `threads` threads, in precision `T`.
fn planar_apply<T: Real>(state: &[Complex64], block: &Block, threads: usize) -> Vec<Complex64> {
    planar_apply_with::<T>(Arch::new(), state, block, threads)
}

/// [`planar_apply`] with the instructions of `arch`.
fn planar_apply_with<T: Real>(arch: Arch, state: &[Complex64], block: &Block, threads: usize) -> Vec<Complex64> {
    let mut values: Vec<Complex<T>> =
        state.iter().map(|a| Complex::new(T::from_f64(a.re), T::from_f64(a.im))).collect();
    let planes: &mut [T] = bytemuck::cast_slice_mut(&mut values);
    planar::reorder(planes, threads, planar::to_planar);
    planar::apply_with(arch, planes, &planar::Prepared::new(block), threads);
    planar::reorder(planes, threads, planar::to_interleaved);
    values.iter().map(|a| Complex64::new(a.re.to_f64(), a.im.to_f64())).collect()
}

/// `block` applied by the interleaved double-precision kernel.
fn reference_apply(state: &[Complex64], block: &Block) -> Vec<Complex64> {
    let mut values = state.to_vec();
    block_kernel::apply(&mut values, &block_kernel::Prepared::<f64>::new(block), 1);
    values
}

fn max_difference(a: &[Complex64], b: &[Complex64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).norm()).fold(0.0, f64::max)
}

#[test]
fn layout_round_trips() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let state = random_state(6, &mut rng);
    let mut values = state.clone();
    let planes: &mut [f64] = bytemuck::cast_slice_mut(&mut values);
    planar::to_planar(planes);
    // Amplitude 9 is lane 1 of chunk 1: real part at 16 + 1, imaginary at 16 + 8 + 1.
    assert_eq!((planes[17], planes[25]), (state[9].re, state[9].im));
    planar::to_interleaved(planes);
    assert_eq!(values, state);
}

#[test]
fn every_width_at_every_position_matches_the_block_kernel() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let n = 8;
    let state = random_state(n, &mut rng);
    for width in 1..=6 {
        // Windows of consecutive qubits at every start, then scattered sets.
        let mut sets: Vec<Vec<usize>> = (0..=n - width).map(|start| (start..start + width).collect()).collect();
        for _ in 0..6 {
            let mut set: Vec<usize> = Vec::new();
            while set.len() < width {
                let q = rng.random_range(0..n);
                if !set.contains(&q) {
                    set.push(q);
                }
            }
            set.sort_unstable();
            sets.push(set);
        }
        for qubits in sets {
            let block = random_block(qubits.clone(), &mut rng);
            let expected = reference_apply(&state, &block);
            let double = planar_apply::<f64>(&state, &block, 1);
            assert!(max_difference(&expected, &double) < 1e-12, "double, qubits {qubits:?}");
            let single = planar_apply::<f32>(&state, &block, 1);
            let scale = expected.iter().map(|a| a.norm()).fold(1.0, f64::max);
            assert!(max_difference(&expected, &single) < 1e-5 * scale, "single, qubits {qubits:?}");
        }
    }
}

#[test]
fn sparse_blocks_and_controls_match_the_block_kernel() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let state = random_state(7, &mut rng);
    let zero = Complex64::new(0.0, 0.0);
    // A diagonal block and a permutation with phases: most terms are dropped.
    let mut diagonal = random_block(vec![1, 4, 6], &mut rng);
    let mut permutation = random_block(vec![0, 2, 5], &mut rng);
    for row in 0..8 {
        for column in 0..8 {
            if row != column {
                diagonal.matrix[row * 8 + column] = zero;
            }
            if column != (row ^ 5) {
                permutation.matrix[row * 8 + column] = zero;
            }
        }
    }
    // Controls inside a chunk and above it, of both polarities; and one too wide to expand.
    let mut controlled = random_block(vec![3, 5], &mut rng);
    (controlled.control_mask, controlled.control_value) = (0b100_0101, 0b000_0100);
    let mut wide = random_block(vec![2, 4, 6], &mut rng);
    (wide.control_mask, wide.control_value) = (0b010_1011, 0b000_1001);
    for block in [diagonal, permutation, controlled, wide] {
        let expected = reference_apply(&state, &block);
        let double = planar_apply::<f64>(&state, &block, 1);
        assert!(max_difference(&expected, &double) < 1e-12, "qubits {:?}", block.qubits);
    }
}

#[test]
fn thread_counts_give_identical_planes() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    // 2^18 amplitudes: enough for four parts of at least 2^16.
    let n = 18;
    let state = random_state(n, &mut rng);
    for qubits in [vec![0, 1, 2], vec![2, 9, 17], vec![14, 15, 16, 17], vec![3, 5]] {
        let block = random_block(qubits.clone(), &mut rng);
        let one = planar_apply::<f64>(&state, &block, 1);
        let expected = reference_apply(&state, &block);
        assert!(max_difference(&expected, &one) < 1e-12, "qubits {qubits:?}");
        for threads in [2, 3, 4] {
            assert!(planar_apply::<f64>(&state, &block, threads) == one, "{threads} threads, qubits {qubits:?}");
            assert!(
                planar_apply::<f32>(&state, &block, threads) == planar_apply::<f32>(&state, &block, 1),
                "single, {threads} threads, qubits {qubits:?}"
            );
        }
    }
}

/// Every instruction set this processor has (the baseline always; AVX2 and AVX-512 where
/// present), so that each compiled version of the kernel is checked, not only the fastest.
fn instruction_sets() -> Vec<(&'static str, Arch)> {
    let mut sets = vec![("baseline", Arch::Scalar)];
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(v3) = pulp::x86::V3::try_new() {
            sets.push(("avx2", Arch::V3(v3)));
        }
        if let Some(v4) = pulp::x86::V4::try_new() {
            sets.push(("avx512", Arch::V4(v4)));
        }
    }
    sets
}

#[test]
fn every_instruction_set_matches_the_block_kernel() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let n = 9;
    let state = random_state(n, &mut rng);
    // Lane-only blocks (paired with an identity chunk), mixed, high-only, and an odd term count.
    for qubits in
        [vec![1], vec![0, 2], vec![0, 1, 2], vec![1, 5], vec![0, 3, 4, 8], vec![4, 6, 7, 8], vec![2, 3, 5, 6, 8]]
    {
        let block = random_block(qubits.clone(), &mut rng);
        let expected = reference_apply(&state, &block);
        let scale = expected.iter().map(|a| a.norm()).fold(1.0, f64::max);
        for (name, arch) in instruction_sets() {
            let double = planar_apply_with::<f64>(arch, &state, &block, 1);
            assert!(max_difference(&expected, &double) < 1e-12, "{name} double, qubits {qubits:?}");
            let single = planar_apply_with::<f32>(arch, &state, &block, 1);
            assert!(max_difference(&expected, &single) < 1e-5 * scale, "{name} single, qubits {qubits:?}");
        }
    }
}

#[test]
fn blocks_above_the_chunk_take_broadcast_weights_in_double_precision_only() {
    use super::planar_kernel::PlanarBlock;
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    let high = random_block(vec![3, 5, 6, 8], &mut rng);
    let mixed = random_block(vec![0, 3, 5, 6], &mut rng);
    assert!(PlanarBlock::<f64, 32>::new(&high).is_uniform());
    assert!(PlanarBlock::<f64, 16>::new(&random_block(vec![4], &mut rng)).is_uniform());
    assert!(!PlanarBlock::<f64, 32>::new(&mixed).is_uniform());
    assert!(!PlanarBlock::<f32, 32>::new(&high).is_uniform());
    // Both paths agree with the block kernel on a state large enough for prefetching to run
    // ahead of many groups, on every instruction set.
    let state = random_state(12, &mut rng);
    for block in [high, mixed] {
        let expected = reference_apply(&state, &block);
        for (name, arch) in instruction_sets() {
            let double = planar_apply_with::<f64>(arch, &state, &block, 1);
            assert!(max_difference(&expected, &double) < 1e-12, "{name}, qubits {:?}", block.qubits);
        }
    }
}

/// Blocks grouped into tiled passes (tiles of `tile_bits` qubits, at most `max_high` above)
/// and run pass by pass give what running them one by one gives.
#[test]
fn tiled_passes_match_the_blocks_one_by_one() {
    use super::schedule::{Pass, group};
    use super::tiled::TiledPass;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let n = 11;
    let state = random_state(n, &mut rng);
    let blocks: Vec<Block> = (0..40)
        .map(|_| {
            let width = rng.random_range(1..=4);
            let mut qubits: Vec<usize> = Vec::new();
            while qubits.len() < width {
                let q = rng.random_range(0..n);
                if !qubits.contains(&q) {
                    qubits.push(q);
                }
            }
            qubits.sort_unstable();
            random_block(qubits, &mut rng)
        })
        .collect();
    let mut expected = state.clone();
    for block in &blocks {
        expected = reference_apply(&expected, block);
    }
    let scale = expected.iter().map(|a| a.norm()).fold(1.0, f64::max);
    for (tile_bits, max_high) in [(4, 0), (5, 1), (6, 2), (5, 3), (7, 4)] {
        let passes = group(&blocks, tile_bits, max_high);
        assert!(passes.iter().any(|p| matches!(p, Pass::Tiled { .. })), "tiles of {tile_bits}, {max_high} high");
        let applied: usize = passes.iter().map(|p| p.blocks().len()).sum();
        assert_eq!(applied, blocks.len());
        let run = |threads: usize| -> Vec<Complex64> {
            let mut values: Vec<Complex<f64>> = state.clone();
            let planes: &mut [f64] = bytemuck::cast_slice_mut(&mut values);
            planar::to_planar(planes);
            for pass in &passes {
                match pass {
                    Pass::Single(block) => planar::apply(planes, &planar::Prepared::new(block), threads),
                    Pass::Tiled { tile_bits, blocks } => {
                        TiledPass::<f64>::new(blocks, *tile_bits).apply(Arch::new(), planes, threads)
                    }
                }
            }
            planar::to_interleaved(planes);
            values
        };
        let one = run(1);
        assert!(max_difference(&expected, &one) < 1e-9 * scale, "tiles of {tile_bits}, {max_high} high");
        for threads in [2, 3] {
            assert!(run(threads) == one, "{threads} threads, tiles of {tile_bits}");
        }
    }
}
