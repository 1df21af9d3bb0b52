//! A fused block prepared for the planar layout, and the kernel that applies it to one part of
//! the vector.
//!
//! The planar layout stores amplitudes in chunks of [`CHUNK`]: the real parts of amplitudes
//! `8c..8c+8`, then their imaginary parts. A block's qubits split into *low* ones (bits 0-2, a
//! lane inside a chunk) and *high* ones (a bit of the chunk index). The amplitudes a block mixes
//! lie in `2^high` chunks, and output lane `j` of chunk `r` is
//!
//! ```text
//! out[r][j] = sum over chunks c and low patterns d of W[r][c][d][j] * in[c][j ^ d]
//! ```
//!
//! with `W[r][c][d][j]` the matrix entry linking the two amplitudes. So a whole block is a sum
//! of lane-wise products of 8-wide arrays with lane-permuted inputs, which the compiler turns
//! into vector multiply-adds and shuffles. Terms whose coefficients are zero in every lane are
//! dropped when the block is prepared, so diagonal and permutation blocks (CZ, T, CX, SWAP) cost
//! one term per output chunk instead of `2^k`. When no qubit of the block is inside a chunk,
//! `W[r][c][0][j]` is the same for every lane `j` and double-precision blocks keep one weight
//! per output chunk, broadcast.
//!
//! The chunks a group reads lie far apart (one stream per high combination), more streams than
//! the hardware prefetcher follows, so the kernel prefetches a group a few KiB ahead itself.

use std::borrow::Borrow;

use num_complex::Complex64;
use pulp::Simd;

use super::block_kernel::Real;
use super::fusion::Block;
use super::planar::View;

/// Bits of the amplitude index inside a chunk.
pub(crate) const CHUNK_BITS: usize = 3;

/// Amplitudes per chunk: 8 real parts, then 8 imaginary parts.
pub(crate) const CHUNK: usize = 1 << CHUNK_BITS;

/// The widest block the kernel applies; wider ones go through [`apply_scalar`].
pub(crate) const MAX_PLANAR_QUBITS: usize = 6;

/// Eight lanes of one plane.
pub(crate) type Lanes<T> = [T; CHUNK];

/// One term of a set of output chunks computed together (`N / CHUNK` of them, side by side in
/// `N` lanes): the permuted input it reads and the coefficients of each output chunk (real and
/// imaginary parts). Aligned on a cache line so that no vector load of its weights straddles
/// two.
#[derive(Debug, Clone)]
#[repr(C, align(64))]
pub(crate) struct Term<T, const N: usize> {
    re: [T; N],
    im: [T; N],
    source: usize,
}

/// Output chunks computed together per pass over a block's terms, at most.
const MAX_STEP: usize = 4;

/// A [`Term`] of a block with no qubit inside a chunk, whose weights are then the same in
/// every lane of an output chunk: one weight per output chunk, broadcast to its lanes. This
/// keeps a 4-qubit block's weights at 4 KiB instead of 36 KiB (in double precision), which
/// leaves the first-level cache to the amplitudes.
#[derive(Debug, Clone)]
pub(crate) struct UniformTerm<T> {
    re: [T; MAX_STEP],
    im: [T; MAX_STEP],
    source: usize,
}

/// The inputs of one group, aligned like [`Term`].
#[repr(C, align(64))]
struct Inputs<T>([Lanes<T>; 1 << MAX_PLANAR_QUBITS]);

/// Output chunks computed together: their positions in the group and their terms.
#[derive(Debug, Clone)]
pub(crate) struct Rows<T, const N: usize> {
    outputs: Vec<usize>,
    /// The terms, unless the block has uniform weights.
    terms: Vec<Term<T, N>>,
    /// The same terms with one weight per output chunk, when the block has uniform weights.
    uniform: Vec<UniformTerm<T>>,
}

/// A block ready for the planar kernel, computing `N / CHUNK` output chunks per pass over its
/// terms: each multiply-add then spans `N` lanes (two AVX-512 vectors of `f32` for `N = 32`,
/// two of `f64` for `N = 16`), and each input read serves that many outputs.
#[derive(Debug, Clone)]
pub(crate) struct PlanarBlock<T, const N: usize> {
    /// Chunk-index bits of the high qubits, ascending.
    pub(crate) high_bits: Vec<usize>,
    /// The lane bits of the block's qubits inside a chunk (bit `q` for qubit `q < 3`).
    low_lanes: usize,
    /// Whether the kernel reads [`Rows::uniform`]: the block has no qubit inside a chunk and
    /// a chunk plane fills whole vectors (double precision), so that a weight broadcast to a
    /// chunk's lanes is a plain broadcast load.
    uniform: bool,
    rows: Vec<Rows<T, N>>,
}

/// How many high qubits a block needs for the kernel to compute `N / CHUNK` output chunks
/// together.
pub(crate) const fn high_qubits_for<const N: usize>() -> usize {
    (N / CHUNK).trailing_zeros() as usize
}

impl<T: Real, const N: usize> PlanarBlock<T, N> {
    /// Prepares a block without controls of at most [`MAX_PLANAR_QUBITS`] qubits (see
    /// [`with_controls_expanded`]). A block with fewer than [`high_qubits_for`] qubits above
    /// the chunk's is extended with the lowest chunk bits it leaves alone, as the identity.
    pub(crate) fn new(block: &Block) -> PlanarBlock<T, N> {
        let step = N / CHUNK;
        let high = block.qubits.iter().filter(|&&q| q >= CHUNK_BITS).count();
        if high < high_qubits_for::<N>() {
            let free = (CHUNK_BITS..).find(|q| !block.qubits.contains(q)).unwrap_or(CHUNK_BITS);
            return PlanarBlock::new(&with_identity_on(block, free));
        }
        let low: Vec<usize> = block.qubits.iter().copied().filter(|&q| q < CHUNK_BITS).collect();
        let high_bits: Vec<usize> = block.qubits.iter().filter(|&&q| q >= CHUNK_BITS).map(|q| q - CHUNK_BITS).collect();
        let (kl, kh) = (low.len(), high_bits.len());
        let (nd, nh) = (1usize << kl, 1usize << kh);
        let dim = 1usize << block.qubits.len();
        // Lane mask of low pattern `d`, and the low local bits of lane `j`.
        let deposit = |d: usize| low.iter().enumerate().filter(|(i, _)| d >> i & 1 == 1).map(|(_, &q)| 1 << q).sum();
        let low_lanes = deposit(nd - 1);
        let lane_bits =
            |j: usize| low.iter().enumerate().filter(|&(_, &q)| j >> q & 1 == 1).map(|(i, _)| 1 << i).sum::<usize>();
        let zero = T::default();
        // The coefficient of lane `j` of output chunk `r` on input `source` (real, imaginary).
        let coefficient = |r: usize, source: usize, j: usize| -> (T, T) {
            let (c, d) = (source / nd, source % nd);
            let row = lane_bits(j) | (r << kl);
            let column = (lane_bits(j) ^ d) | (c << kl);
            let value: Complex64 = block.matrix[row * dim + column];
            (T::from_f64(value.re), T::from_f64(value.im))
        };
        let uniform = kl == 0 && CHUNK * std::mem::size_of::<T>() >= 64 && step <= MAX_STEP;
        let mut rows = Vec::new();
        for first in (0..nh).step_by(step) {
            let outputs: Vec<usize> = (first..first + step).collect();
            let mut terms = Vec::new();
            for source in 0..nh * nd {
                let (mut re, mut im) = ([zero; N], [zero; N]);
                for lane in 0..N {
                    (re[lane], im[lane]) = coefficient(outputs[lane / CHUNK], source, lane % CHUNK);
                }
                if re.iter().chain(&im).any(|&x| x != zero) {
                    terms.push(Term { re, im, source });
                }
            }
            // A uniform block keeps only its broadcast weights: the kernel never reads both.
            let (terms, uniform_terms) = if uniform {
                let weights = |lanes: &[T; N]| std::array::from_fn(|o| if o < step { lanes[o * CHUNK] } else { zero });
                let broadcast =
                    terms.iter().map(|t| UniformTerm { re: weights(&t.re), im: weights(&t.im), source: t.source });
                (Vec::new(), broadcast.collect())
            } else {
                (terms, Vec::new())
            };
            rows.push(Rows { outputs, terms, uniform: uniform_terms });
        }
        PlanarBlock { high_bits, low_lanes, uniform, rows }
    }

    /// Whether the kernel broadcasts one weight per output chunk ([`UniformTerm`]).
    #[cfg(test)]
    pub(crate) fn is_uniform(&self) -> bool {
        self.uniform
    }

    /// How many chunks one group spans.
    pub(crate) fn chunks_per_group(&self) -> usize {
        1 << self.high_bits.len()
    }
}

/// A block with controls as a plain block on its targets and controls: identity where the
/// controls fail. `None` when that is wider than [`MAX_PLANAR_QUBITS`].
pub(crate) fn with_controls_expanded(block: &Block) -> Option<Block> {
    if block.control_mask == 0 {
        return (block.qubits.len() <= MAX_PLANAR_QUBITS).then(|| block.clone());
    }
    let controls: Vec<usize> = (0..usize::BITS as usize).filter(|&q| block.control_mask >> q & 1 == 1).collect();
    let mut qubits: Vec<usize> = block.qubits.iter().chain(&controls).copied().collect();
    qubits.sort_unstable();
    if qubits.len() > MAX_PLANAR_QUBITS {
        return None;
    }
    let (dim, inner_dim) = (1usize << qubits.len(), 1usize << block.qubits.len());
    // Global bit of local bit `i` in the expanded and the original numbering.
    let to_global = |local: usize| -> usize {
        qubits.iter().enumerate().filter(|(i, _)| local >> i & 1 == 1).map(|(_, &q)| 1usize << q).sum()
    };
    let to_inner = |global: usize| -> usize {
        block.qubits.iter().enumerate().filter(|&(_, &q)| global >> q & 1 == 1).map(|(i, _)| 1usize << i).sum()
    };
    let target_mask: usize = block.qubits.iter().map(|&q| 1usize << q).sum();
    let mut matrix = vec![Complex64::new(0.0, 0.0); dim * dim];
    for column in 0..dim {
        let global = to_global(column);
        if global & block.control_mask != block.control_value {
            matrix[column * dim + column] = Complex64::new(1.0, 0.0);
            continue;
        }
        for row in 0..dim {
            let row_global = to_global(row);
            if row_global & !target_mask == global & !target_mask {
                matrix[row * dim + column] = block.matrix[to_inner(row_global) * inner_dim + to_inner(global)];
            }
        }
    }
    Some(Block { qubits, matrix, control_mask: 0, control_value: 0, gates: block.gates })
}

/// `block` extended to `qubit` (not one of its own), on which it acts as the identity.
fn with_identity_on(block: &Block, qubit: usize) -> Block {
    let mut qubits = block.qubits.clone();
    qubits.push(qubit);
    qubits.sort_unstable();
    let at = qubits.iter().position(|&q| q == qubit).unwrap_or(0);
    let (dim, wide) = (1usize << block.qubits.len(), 2usize << block.qubits.len());
    // A local index of the extended block without its bit `at`, and that bit.
    let strip = |index: usize| (index & ((1 << at) - 1)) | ((index >> (at + 1)) << at);
    let bit = |index: usize| index >> at & 1;
    let mut matrix = vec![Complex64::new(0.0, 0.0); wide * wide];
    for row in 0..wide {
        for column in (0..wide).filter(|&column| bit(column) == bit(row)) {
            matrix[row * wide + column] = block.matrix[strip(row) * dim + strip(column)];
        }
    }
    Block { qubits, matrix, ..block.clone() }
}

/// How far ahead of the group it computes [`apply_groups`] prefetches: measured at 24 qubits on
/// one thread, 4 to 8 KiB ahead is fastest (the pass 12 to 17% faster than without; 2 or
/// 32 KiB ahead a few percent slower than 8).
const PREFETCH_BYTES: usize = 8192;

/// How many groups ahead [`apply_groups`] prefetches: about [`PREFETCH_BYTES`], at least one.
fn prefetch_distance<T>(per_group: usize) -> usize {
    let group_bytes = per_group * 2 * CHUNK * std::mem::size_of::<T>();
    (PREFETCH_BYTES / group_bytes).max(1)
}

/// Software prefetch of chunks (the hardware prefetcher follows few of the many strided
/// streams a wide block reads).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prefetch {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    sse: Option<pulp::core_arch::x86::Sse>,
}

impl Prefetch {
    /// Prefetching with the processor's instruction, where it has one.
    pub(crate) fn new() -> Prefetch {
        Prefetch {
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            sse: pulp::core_arch::x86::Sse::try_new(),
        }
    }

    /// Starts fetching the cache lines of the chunk whose real lanes are `re` (the imaginary
    /// ones follow them).
    #[inline(always)]
    fn chunk<T>(self, re: &Lanes<T>) {
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        if let Some(sse) = self.sse {
            #[cfg(target_arch = "x86")]
            use std::arch::x86::_MM_HINT_T0;
            #[cfg(target_arch = "x86_64")]
            use std::arch::x86_64::_MM_HINT_T0;
            let start = re.as_ptr().cast::<i8>();
            let bytes = 2 * CHUNK * std::mem::size_of::<T>();
            for line in (0..bytes).step_by(64) {
                sse._mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(line));
            }
        }
        #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
        let _ = re;
    }
}

/// `x` with lane `j` read from lane `j ^ mask` (a constant in every arm: one shuffle).
#[inline(always)]
fn permuted<T: Copy>(x: &Lanes<T>, mask: usize) -> Lanes<T> {
    #[inline(always)]
    fn by<T: Copy, const M: usize>(x: &Lanes<T>) -> Lanes<T> {
        std::array::from_fn(|j| x[j ^ M])
    }
    match mask {
        0 => *x,
        1 => by::<T, 1>(x),
        2 => by::<T, 2>(x),
        3 => by::<T, 3>(x),
        4 => by::<T, 4>(x),
        5 => by::<T, 5>(x),
        6 => by::<T, 6>(x),
        _ => by::<T, 7>(x),
    }
}

/// Applies `block` to every group of `view` (whose chunk indices are `offsets`-compressed:
/// `offsets[h]` is the view's chunk offset of high combination `h`).
///
/// Output chunks are computed `N / CHUNK` at a time on `N` lanes: each input plane is repeated
/// across the lanes, so one multiply-add covers every output of the set. Inputs are copied once
/// per group (lane-permuted for the block's qubits inside a chunk) and read by every output.
#[inline(always)]
pub(crate) fn apply_view<T: Real, S: Simd, const N: usize>(
    simd: S,
    prefetch: Prefetch,
    view: &mut View<'_, T>,
    block: &PlanarBlock<T, N>,
    offsets: &[usize],
) {
    // One version per set of lanes, so that only the permutations the block needs are made,
    // each a single shuffle.
    match block.low_lanes {
        0 if block.uniform => apply_groups::<T, S, N, 0, true>(simd, prefetch, view, block, offsets),
        0 => apply_groups::<T, S, N, 0, false>(simd, prefetch, view, block, offsets),
        1 => apply_groups::<T, S, N, 1, false>(simd, prefetch, view, block, offsets),
        2 => apply_groups::<T, S, N, 2, false>(simd, prefetch, view, block, offsets),
        3 => apply_groups::<T, S, N, 3, false>(simd, prefetch, view, block, offsets),
        4 => apply_groups::<T, S, N, 4, false>(simd, prefetch, view, block, offsets),
        5 => apply_groups::<T, S, N, 5, false>(simd, prefetch, view, block, offsets),
        6 => apply_groups::<T, S, N, 6, false>(simd, prefetch, view, block, offsets),
        _ => apply_groups::<T, S, N, 7, false>(simd, prefetch, view, block, offsets),
    }
}

/// The lane mask of low pattern `d` of a block whose lanes are `LOW`: the bits of `d`
/// deposited on the set bits of `LOW`.
#[inline(always)]
const fn lane_mask<const LOW: usize>(d: usize) -> usize {
    let (mut mask, mut bit, mut lane) = (0, 0, 0);
    while lane < CHUNK_BITS {
        if LOW >> lane & 1 == 1 {
            if d >> bit & 1 == 1 {
                mask |= 1 << lane;
            }
            bit += 1;
        }
        lane += 1;
    }
    mask
}

/// [`apply_view`] for a block whose qubits inside a chunk are the lanes `LOW`.
#[inline(always)]
fn apply_groups<T: Real, S: Simd, const N: usize, const LOW: usize, const UNIFORM: bool>(
    simd: S,
    prefetch: Prefetch,
    view: &mut View<'_, T>,
    block: &PlanarBlock<T, N>,
    offsets: &[usize],
) {
    let zero = T::default();
    let per_group = block.chunks_per_group();
    let nd = 1usize << LOW.count_ones();
    let mask: usize = offsets.iter().fold(0, |acc, &o| acc | o);
    let groups = view.chunks() / per_group;
    let (mut inputs_re, mut inputs_im) =
        (Inputs([[zero; CHUNK]; 1 << MAX_PLANAR_QUBITS]), Inputs([[zero; CHUNK]; 1 << MAX_PLANAR_QUBITS]));
    let (input_re, input_im) = (&mut inputs_re.0, &mut inputs_im.0);
    let mut base = 0usize;
    // A group some way ahead, whose chunks are fetched into the cache while this one is
    // computed.
    let ahead_by = prefetch_distance::<T>(per_group);
    let mut ahead = 0usize;
    for _ in 0..ahead_by.min(groups) {
        ahead = ((ahead | mask) + 1) & !mask;
    }
    let chunks = view.chunks();
    for _ in 0..groups {
        if ahead < chunks {
            for &offset in offsets {
                prefetch.chunk(view.chunk(ahead + offset).0);
            }
        }
        for (h, &offset) in offsets.iter().enumerate() {
            let (re, im) = view.chunk(base + offset);
            let (re, im) = (*re, *im);
            for d in 0..nd {
                input_re[h * nd + d] = permuted(&re, lane_mask::<LOW>(d));
                input_im[h * nd + d] = permuted(&im, lane_mask::<LOW>(d));
            }
        }
        for rows in &block.rows {
            let (out_re, out_im) = if UNIFORM {
                accumulate(simd, &rows.uniform, |term| {
                    let (xr, xi) = (&input_re[term.source], &input_im[term.source]);
                    (
                        std::array::from_fn(|j| term.re[j / CHUNK]),
                        std::array::from_fn(|j| term.im[j / CHUNK]),
                        std::array::from_fn(|j| xr[j % CHUNK]),
                        std::array::from_fn(|j| xi[j % CHUNK]),
                    )
                })
            } else {
                accumulate(simd, &rows.terms, |term| {
                    let (xr, xi) = (&input_re[term.source], &input_im[term.source]);
                    (&term.re, &term.im, std::array::from_fn(|j| xr[j % CHUNK]), std::array::from_fn(|j| xi[j % CHUNK]))
                })
            };
            for ((&output, re), im) in
                rows.outputs.iter().zip(out_re.chunks_exact(CHUNK)).zip(out_im.chunks_exact(CHUNK))
            {
                view.write(base + offsets[output], lanes(re), lanes(im));
            }
        }
        base = ((base | mask) + 1) & !mask;
        ahead = ((ahead | mask) + 1) & !mask;
    }
}

/// `sum over terms of w * x` (complex, on `N` lanes) for the weights and inputs `parts` gives
/// for each term. At least eight independent chains of multiply-adds keep both vector units
/// busy despite their latency: when `N` lanes fill two 64-byte vectors the four sums give
/// them; otherwise even and odd terms go to separate accumulators, summed at the end.
#[inline(always)]
fn accumulate<'a, T: Real, Item: 'a, W: Borrow<[T; N]>, S: Simd, const N: usize>(
    simd: S,
    terms: &'a [Item],
    parts: impl Fn(&'a Item) -> (W, W, [T; N], [T; N]),
) -> ([T; N], [T; N]) {
    let zero = T::default();
    let (mut rr, mut ii, mut ri, mut ir) = ([zero; N], [zero; N], [zero; N], [zero; N]);
    let (mut rr1, mut ii1, mut ri1, mut ir1) = ([zero; N], [zero; N], [zero; N], [zero; N]);
    if N * std::mem::size_of::<T>() >= 128 {
        for term in terms {
            let (wr, wi, xr, xi) = parts(term);
            let (wr, wi) = (wr.borrow(), wi.borrow());
            T::madd_lanes(simd, &mut rr, wr, &xr);
            T::madd_lanes(simd, &mut ii, wi, &xi);
            T::madd_lanes(simd, &mut ri, wr, &xi);
            T::madd_lanes(simd, &mut ir, wi, &xr);
        }
        let (mut real, mut imaginary) = ([zero; N], [zero; N]);
        T::sub_lanes(simd, &mut real, &rr, &ii);
        T::add_lanes(simd, &mut imaginary, &ri, &ir);
        return (real, imaginary);
    }
    let mut pairs = terms.chunks_exact(2);
    for pair in &mut pairs {
        let (wr, wi, xr, xi) = parts(&pair[0]);
        let (wr, wi) = (wr.borrow(), wi.borrow());
        T::madd_lanes(simd, &mut rr, wr, &xr);
        T::madd_lanes(simd, &mut ii, wi, &xi);
        T::madd_lanes(simd, &mut ri, wr, &xi);
        T::madd_lanes(simd, &mut ir, wi, &xr);
        let (wr, wi, xr, xi) = parts(&pair[1]);
        let (wr, wi) = (wr.borrow(), wi.borrow());
        T::madd_lanes(simd, &mut rr1, wr, &xr);
        T::madd_lanes(simd, &mut ii1, wi, &xi);
        T::madd_lanes(simd, &mut ri1, wr, &xi);
        T::madd_lanes(simd, &mut ir1, wi, &xr);
    }
    if let [last] = pairs.remainder() {
        let (wr, wi, xr, xi) = parts(last);
        let (wr, wi) = (wr.borrow(), wi.borrow());
        T::madd_lanes(simd, &mut rr, wr, &xr);
        T::madd_lanes(simd, &mut ii, wi, &xi);
        T::madd_lanes(simd, &mut ri, wr, &xi);
        T::madd_lanes(simd, &mut ir, wi, &xr);
    }
    // (rr + rr1) - (ii + ii1) and (ri + ri1) + (ir + ir1).
    let (mut sum_rr, mut sum_ii, mut sum_ri, mut sum_ir) = ([zero; N], [zero; N], [zero; N], [zero; N]);
    T::add_lanes(simd, &mut sum_rr, &rr, &rr1);
    T::add_lanes(simd, &mut sum_ii, &ii, &ii1);
    T::add_lanes(simd, &mut sum_ri, &ri, &ri1);
    T::add_lanes(simd, &mut sum_ir, &ir, &ir1);
    let (mut real, mut imaginary) = ([zero; N], [zero; N]);
    T::sub_lanes(simd, &mut real, &sum_rr, &sum_ii);
    T::add_lanes(simd, &mut imaginary, &sum_ri, &sum_ir);
    (real, imaginary)
}

#[inline(always)]
fn lanes<T>(slice: &[T]) -> &Lanes<T> {
    slice.try_into().unwrap_or_else(|_| unreachable!("a chunk plane has {CHUNK} lanes"))
}

/// Applies a block of any width, with its controls, one amplitude group at a time on the whole
/// planar vector (for the rare gates too wide for [`apply_view`]).
pub(crate) fn apply_scalar<T: Real>(planes: &mut [T], block: &Block) {
    let dim = 1usize << block.qubits.len();
    let offsets: Vec<usize> = (0..dim)
        .map(|s| block.qubits.iter().enumerate().filter(|(i, _)| s >> i & 1 == 1).map(|(_, &q)| 1 << q).sum())
        .collect();
    let mask: usize = block.qubits.iter().map(|&q| 1usize << q).sum();
    let len = planes.len() / 2;
    let slot = |index: usize| (index / CHUNK) * 2 * CHUNK + index % CHUNK;
    let matrix: Vec<(T, T)> = block.matrix.iter().map(|z| (T::from_f64(z.re), T::from_f64(z.im))).collect();
    let mut x = vec![(T::default(), T::default()); dim];
    let mut base = 0usize;
    for _ in 0..len / dim {
        if base & block.control_mask == block.control_value {
            for (value, &offset) in x.iter_mut().zip(&offsets) {
                let at = slot(base + offset);
                *value = (planes[at], planes[at + CHUNK]);
            }
            for (r, &offset) in offsets.iter().enumerate() {
                let (mut yr, mut yi) = (T::default(), T::default());
                for (&(mr, mi), &(xr, xi)) in matrix[r * dim..(r + 1) * dim].iter().zip(&x) {
                    yr = yr + mr * xr - mi * xi;
                    yi = yi + mr * xi + mi * xr;
                }
                let at = slot(base + offset);
                planes[at] = yr;
                planes[at + CHUNK] = yi;
            }
        }
        base = ((base | mask) + 1) & !mask;
    }
}
