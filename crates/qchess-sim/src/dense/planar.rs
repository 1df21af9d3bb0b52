//! The planar layout of large dense states, and fused blocks applied to it on one thread or
//! several.
//!
//! Amplitudes are stored in chunks of eight: eight real parts, then eight imaginary parts
//! ([`planar_kernel`](super::planar_kernel)). A double-precision state is turned into this
//! layout in place for a run of fused blocks and back after it; single-precision states are
//! created in it.
//!
//! The kernels are compiled three times: for the baseline processor, with AVX2 and FMA, and
//! with AVX-512; the best the processor has is picked at run time (through `pulp`, which keeps
//! the dispatch safe). Every function a fast version calls is inlined into it so that its loops
//! are vectorised with those instructions. A chunk plane is one AVX-512 vector in double
//! precision; in single precision the kernel computes two output chunks per 16-lane vector.
//!
//! With several threads, the vector is divided on the highest chunk-index bits that the block
//! does not touch: each thread owns the chunks whose divided bits equal its number, so every
//! group of amplitudes the block mixes belongs to one thread. Each amplitude is computed by the
//! same operations whatever the division, so results do not depend on the thread count.

use pulp::{Arch, Simd, WithSimd};

use super::block_kernel::Real;
use super::fusion::Block;
use super::planar_kernel::{self, CHUNK, CHUNK_BITS, Lanes, PlanarBlock, Prefetch};
use super::workers;

/// States below this many amplitudes stay on one thread: spawning costs more than the pass.
const THREADED_FROM: usize = 1 << 16;

/// The part of a planar vector one thread works on: segments of `2^segment_bits` chunks, in
/// order; chunk `c` of the view is chunk `c mod 2^segment_bits` of segment `c >> segment_bits`.
pub(crate) struct View<'a, T> {
    segments: Vec<&'a mut [T]>,
    segment_bits: usize,
}

impl<'a, T> View<'a, T> {
    /// A view of `segments`, each of `2^segment_bits` chunks, in order.
    pub(crate) fn new(segments: Vec<&'a mut [T]>, segment_bits: usize) -> View<'a, T> {
        View { segments, segment_bits }
    }
}

impl<T: Real> View<'_, T> {
    /// Chunks in the view.
    #[inline(always)]
    pub(crate) fn chunks(&self) -> usize {
        self.segments.len() << self.segment_bits
    }

    /// The real and imaginary lanes of chunk `c`.
    #[inline(always)]
    pub(crate) fn chunk(&self, c: usize) -> (&Lanes<T>, &Lanes<T>) {
        let at = (c & ((1 << self.segment_bits) - 1)) * 2 * CHUNK;
        let segment = &self.segments[c >> self.segment_bits][at..at + 2 * CHUNK];
        let (re, im) = segment.split_at(CHUNK);
        (lanes(re), lanes(im))
    }

    /// Writes chunk `c`.
    #[inline(always)]
    pub(crate) fn write(&mut self, c: usize, re: &Lanes<T>, im: &Lanes<T>) {
        let at = (c & ((1 << self.segment_bits) - 1)) * 2 * CHUNK;
        let segment = &mut self.segments[c >> self.segment_bits][at..at + 2 * CHUNK];
        let (out_re, out_im) = segment.split_at_mut(CHUNK);
        out_re.copy_from_slice(re);
        out_im.copy_from_slice(im);
    }
}

#[inline(always)]
fn lanes<T>(slice: &[T]) -> &Lanes<T> {
    slice.try_into().unwrap_or_else(|_| unreachable!("a chunk plane has {CHUNK} lanes"))
}

/// Whether a state of `qubits` qubits uses the planar layout (at least two chunks).
pub(crate) fn is_planar(qubits: usize) -> bool {
    qubits > CHUNK_BITS
}

/// Applies `reorder` (one of [`to_planar`], [`to_interleaved`]) to `values` in contiguous
/// parts on up to `threads` threads.
pub(crate) fn reorder<T: Real>(values: &mut [T], threads: usize, reorder: fn(&mut [T])) {
    let parts = threads.clamp(1, (values.len() / 2 / THREADED_FROM).max(1));
    if parts == 1 {
        reorder(values);
        return;
    }
    let part = (values.len() / parts).div_ceil(2 * CHUNK) * 2 * CHUNK;
    workers::for_each(parts, values.chunks_mut(part).collect(), reorder);
}

/// Reorders interleaved amplitudes (`re, im, re, im, ...`) into planar chunks, in place.
pub(crate) fn to_planar<T: Real>(values: &mut [T]) {
    for chunk in values.chunks_exact_mut(2 * CHUNK) {
        let copy: [T; 2 * CHUNK] = std::array::from_fn(|i| chunk[i]);
        for j in 0..CHUNK {
            chunk[j] = copy[2 * j];
            chunk[CHUNK + j] = copy[2 * j + 1];
        }
    }
}

/// Reorders planar chunks back into interleaved amplitudes, in place.
pub(crate) fn to_interleaved<T: Real>(values: &mut [T]) {
    for chunk in values.chunks_exact_mut(2 * CHUNK) {
        let copy: [T; 2 * CHUNK] = std::array::from_fn(|i| chunk[i]);
        for j in 0..CHUNK {
            chunk[2 * j] = copy[j];
            chunk[2 * j + 1] = copy[CHUNK + j];
        }
    }
}

/// A block prepared for the planar kernel, or kept for the scalar one.
pub(crate) enum Prepared<T> {
    /// Through [`planar_kernel::apply_view`], two output chunks at a time.
    Pairs(PlanarBlock<T, { 2 * CHUNK }>),
    /// Through [`planar_kernel::apply_view`], four output chunks at a time (blocks with at
    /// least two qubits above the chunk's): each input read serves four outputs, and the 16
    /// accumulators of double precision still fit in the 32 AVX-512 registers (measured 2%
    /// faster than pairs at 24 qubits, double precision, one thread).
    Quads(PlanarBlock<T, { 4 * CHUNK }>),
    /// Too wide: through [`planar_kernel::apply_scalar`].
    Scalar(Block),
}

impl<T: Real> Prepared<T> {
    /// Prepares `block`.
    pub(crate) fn new(block: &Block) -> Prepared<T> {
        match planar_kernel::with_controls_expanded(block) {
            Some(plain)
                if plain.qubits.iter().filter(|&&q| q >= CHUNK_BITS).count()
                    >= planar_kernel::high_qubits_for::<{ 4 * CHUNK }>() =>
            {
                Prepared::Quads(PlanarBlock::new(&plain))
            }
            Some(plain) => Prepared::Pairs(PlanarBlock::new(&plain)),
            None => Prepared::Scalar(block.clone()),
        }
    }
}

/// Applies a prepared block to a planar vector with up to `threads` threads.
pub(crate) fn apply<T: Real>(planes: &mut [T], block: &Prepared<T>, threads: usize) {
    apply_with(Arch::new(), planes, block, threads);
}

/// [`apply`] with the instructions of `arch` (tests run every set the processor has).
pub(crate) fn apply_with<T: Real>(arch: Arch, planes: &mut [T], block: &Prepared<T>, threads: usize) {
    match block {
        Prepared::Pairs(block) => apply_block(arch, planes, block, threads),
        Prepared::Quads(block) => apply_block(arch, planes, block, threads),
        Prepared::Scalar(block) => planar_kernel::apply_scalar(planes, block),
    }
}

fn apply_block<T: Real, const N: usize>(arch: Arch, planes: &mut [T], block: &PlanarBlock<T, N>, threads: usize) {
    let chunk_bits = (planes.len() / (2 * CHUNK)).trailing_zeros() as usize;
    // Divide on the highest chunk bits the block leaves alone, one bit per doubling of threads.
    let mut wanted = 0;
    while (2usize << wanted) <= threads.max(1) && (planes.len() / 2) >> (wanted + 1) >= THREADED_FROM {
        wanted += 1;
    }
    let split_bits: Vec<usize> = (0..chunk_bits).rev().filter(|b| !block.high_bits.contains(b)).take(wanted).collect();
    // Chunk offsets of the high combinations with the divided bits taken out.
    let compressed: Vec<usize> =
        block.high_bits.iter().map(|&b| b - split_bits.iter().filter(|&&s| s < b).count()).collect();
    let offsets: Vec<usize> = (0..block.chunks_per_group())
        .map(|h| compressed.iter().enumerate().filter(|(i, _)| h >> i & 1 == 1).map(|(_, &b)| 1usize << b).sum())
        .collect();
    let mut views = vec![View { segments: vec![planes], segment_bits: chunk_bits }];
    for &bit in &split_bits {
        views = views.into_iter().flat_map(|view| divide(view, bit)).collect();
    }
    workers::for_each(threads, views, |view| run(arch, view, block, &offsets));
}

/// Splits a view in two on chunk bit `bit` (below its segment size): the chunks with the bit
/// clear and those with it set.
fn divide<T>(view: View<'_, T>, bit: usize) -> [View<'_, T>; 2] {
    let piece = (1usize << bit) * 2 * CHUNK;
    let (mut clear, mut set) = (Vec::new(), Vec::new());
    for segment in view.segments {
        for (index, part) in segment.chunks_mut(piece).enumerate() {
            if index % 2 == 0 { clear.push(part) } else { set.push(part) }
        }
    }
    [View { segments: clear, segment_bits: bit }, View { segments: set, segment_bits: bit }]
}

/// The kernel on one view, with the fastest instructions the processor has.
fn run<T: Real, const N: usize>(arch: Arch, mut view: View<'_, T>, block: &PlanarBlock<T, N>, offsets: &[usize]) {
    struct Pass<'a, 'b, T, const N: usize> {
        view: &'a mut View<'b, T>,
        block: &'a PlanarBlock<T, N>,
        offsets: &'a [usize],
    }
    impl<T: Real, const N: usize> WithSimd for Pass<'_, '_, T, N> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            planar_kernel::apply_view(simd, Prefetch::new(), self.view, self.block, self.offsets);
        }
    }
    arch.dispatch(Pass { view: &mut view, block, offsets });
}
