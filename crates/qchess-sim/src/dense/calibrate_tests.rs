//! The measurements behind the planner's cost model (`schedule::costs`): the processor's rate of
//! vector multiply-adds (the kernels' arithmetic bound), a random block of each width on a state
//! in the second-level cache, and in-place, single-block and tiled passes over a 24-qubit state,
//! fastest of several runs. A slow check, run by hand:
//!
//! ```text
//! cargo test --release -p qchess-sim --lib cost_calibration -- --ignored --nocapture
//! ```
use super::block_kernel::Real;
use super::fusion::Block;
use super::planar;
use super::planar_tests;
use super::tiled::TiledPass;
use num_complex::Complex64;
use pulp::{Arch, Simd, WithSimd};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Instant;

/// A random unitary block: the rows of a random block made orthonormal (Gram-Schmidt).
/// Unitary, so that the 300 runs of a timing keep the amplitudes' size: a random matrix shrinks
/// or grows them run after run into subnormal numbers (a hundred times slower to multiply) or to
/// zero and infinity, and the timings then measure those.
fn random_block(qubits: Vec<usize>, rng: &mut ChaCha8Rng) -> Block {
    let mut block = planar_tests::random_block(qubits, rng);
    let dim = 1usize << block.qubits.len();
    for i in 0..dim {
        let (done, rest) = block.matrix.split_at_mut(i * dim);
        let row = &mut rest[..dim];
        for earlier in done.chunks_exact(dim) {
            let overlap: Complex64 = earlier.iter().zip(row.iter()).map(|(a, b)| a.conj() * b).sum();
            row.iter_mut().zip(earlier).for_each(|(b, a)| *b -= overlap * a);
        }
        let norm = row.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt();
        row.iter_mut().for_each(|z| *z /= norm);
    }
    block
}

fn min_time(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn kernel_costs<T: Real>(name: &str) {
    let n = 14;
    let mut planes = vec![T::from_f64(0.001); 2 << n];
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let amps = (1usize << n) as f64;
    for k in 1..=6usize {
        for (kind, qubits) in
            [("high", (3..3 + k).collect::<Vec<_>>()), ("low", (0..k).collect()), ("mix", (1..1 + k).collect())]
        {
            let block = random_block(qubits, &mut rng);
            let prepared = planar::Prepared::<T>::new(&block);
            let t = min_time(300, || planar::apply(&mut planes, &prepared, 1));
            let largest = planes.iter().map(|x| x.to_f64().abs()).fold(0.0, f64::max);
            println!("{name} k={k} {kind}: {:.3} ns/amp (largest amplitude part after: {largest:.1e})", t / amps * 1e9);
            // The state started at 1e-3 in every part; a timing on a drifted state measures the drift.
            assert!((1e-4..1e-1).contains(&largest), "the state drifted to {largest:e}: the timing is void");
        }
    }
    // diagonal & permutation 4-qubit high
    let mut diag = random_block((3..7).collect(), &mut rng);
    for r in 0..16 {
        for c in 0..16 {
            let entry = &mut diag.matrix[r * 16 + c];
            // Off the diagonal zero, on it a phase: unitary again.
            *entry = if r == c { *entry / entry.norm() } else { Complex64::new(0.0, 0.0) };
        }
    }
    let prepared = planar::Prepared::<T>::new(&diag);
    let t = min_time(300, || planar::apply(&mut planes, &prepared, 1));
    println!("{name} k=4 diag high: {:.3} ns/amp", t / amps * 1e9);
}

fn memory<T: Real>(name: &str, n: usize) {
    let mut planes = vec![T::from_f64(0.001); 2 << n];
    let amps = (1usize << n) as f64;
    let s = T::from_f64(1.0001);
    for threads in [1usize, 2] {
        let t = min_time(8, || {
            let len = planes.len();
            std::thread::scope(|sc| {
                for part in planes.chunks_mut(len / threads) {
                    sc.spawn(move || part.iter_mut().for_each(|x| *x = *x * s));
                }
            });
        });
        println!("{name} n={n} floor {threads}t: {:.2} ms ({:.3} ns/amp)", t * 1e3, t / amps * 1e9);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for k in [1usize, 2, 4] {
            let block = random_block((n - k..n).collect(), &mut rng);
            let prepared = planar::Prepared::<T>::new(&block);
            let t = min_time(5, || planar::apply(&mut planes, &prepared, threads));
            println!("{name} n={n} {threads}t single pass k={k} top: {:.2} ms", t * 1e3);
        }
        // tiled: 8 blocks of width 2 on low qubits in one pass vs 8 passes
        let tile_bits = if std::mem::size_of::<T>() == 4 { 17 } else { 16 };
        let blocks: Vec<Block> = (0..8).map(|i| random_block(vec![i % 5 + 3, i % 7 + 8], &mut rng)).collect();
        let tiled = TiledPass::<T>::new(&blocks, tile_bits);
        let t = min_time(5, || tiled.apply(Arch::new(), &mut planes, threads));
        println!("{name} n={n} {threads}t tiled 8 blocks k=2: {:.2} ms", t * 1e3);
        let singles: Vec<_> = blocks.iter().map(planar::Prepared::<T>::new).collect();
        let t = min_time(3, || {
            for p in &singles {
                planar::apply(&mut planes, p, threads)
            }
        });
        println!("{name} n={n} {threads}t 8 single passes k=2: {:.2} ms", t * 1e3);
    }
}

/// The processor's rate of vector multiply-adds on `N` lanes of `T` (one full vector: 16
/// floats or 8 doubles with AVX-512), with sixteen independent sums so that their latency hides:
/// the arithmetic bound of the kernels. A dense block of `k` qubits does `4 * 2^k` real
/// multiply-adds an amplitude. On `threads` threads at once (each round of each thread starts
/// together), whether the processors share their vector units.
fn madd_rate<T: Real, const N: usize>(name: &str, threads: usize) {
    struct Probe<T, const N: usize>(std::marker::PhantomData<T>);
    impl<T: Real, const N: usize> WithSimd for Probe<T, N> {
        type Output = f64;
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) -> f64 {
            // Opaque inputs, so that the sums are computed; inside the loop an opaque value
            // would force the sums out of the registers on every round.
            let (w, x) = std::hint::black_box(([T::from_f64(1.0); N], [T::from_f64(1e-9); N]));
            let mut sums = [[T::default(); N]; 16];
            let rounds = 1usize << 22;
            let started = Instant::now();
            for _ in 0..rounds {
                for sum in &mut sums {
                    T::madd_lanes(simd, sum, &w, &x);
                }
            }
            let seconds = started.elapsed().as_secs_f64();
            std::hint::black_box(&sums);
            seconds / (rounds * sums.len()) as f64
        }
    }
    let together = std::sync::Barrier::new(threads);
    let probe = || {
        (0..5)
            .map(|_| {
                together.wait();
                Arch::new().dispatch(Probe::<T, N>(std::marker::PhantomData))
            })
            .fold(f64::MAX, f64::min)
    };
    let per_thread: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(probe)).collect();
        handles.into_iter().map(|handle| handle.join().expect("probe thread")).collect()
    });
    if threads > 1 {
        let each: Vec<String> = per_thread.iter().map(|t| format!("{:.3}", t * 1e9)).collect();
        println!("{name} madd of {N} lanes on {threads} threads at once: {} ns each", each.join(", "));
        return;
    }
    let best = per_thread[0];
    let per_amplitude = |k: usize| (4usize << k) as f64 / N as f64 * best * 1e9;
    println!(
        "{name} madd of {N} lanes: {:.3} ns; bound of a dense block: k=2 {:.3}, k=3 {:.3}, k=4 {:.3} ns/amp",
        best * 1e9,
        per_amplitude(2),
        per_amplitude(3),
        per_amplitude(4)
    );
}

#[test]
#[ignore = "prints timings; run by hand with --release"]
fn cost_calibration() {
    madd_rate::<f32, 16>("single", 1);
    madd_rate::<f64, 8>("double", 1);
    madd_rate::<f64, 8>("double", 2);
    kernel_costs::<f32>("single");
    kernel_costs::<f64>("double");
    memory::<f32>("single", 24);
    memory::<f64>("double", 24);
}

#[test]
fn calibration_blocks_are_unitary() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for k in 1..=6usize {
        let block = random_block((0..k).collect(), &mut rng);
        let dim = 1usize << k;
        for (i, j) in (0..dim).flat_map(|i| (0..dim).map(move |j| (i, j))) {
            let row = |r: usize| &block.matrix[r * dim..(r + 1) * dim];
            let product: Complex64 = row(i).iter().zip(row(j)).map(|(a, b)| a * b.conj()).sum();
            let expected = if i == j { 1.0 } else { 0.0 };
            assert!((product - expected).norm() < 1e-12, "k={k} rows {i},{j}: {product}");
        }
    }
}
