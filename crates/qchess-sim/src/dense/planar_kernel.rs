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
//! one term per output chunk instead of `2^k`.

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

/// One term of an output chunk pair: the permuted input it reads and the coefficients of the
/// two output chunks (real and imaginary parts of each).
#[derive(Debug, Clone)]
pub(crate) struct Term<T> {
    source: usize,
    weights: [Lanes<T>; 4],
}

/// Output chunks computed together: their positions in the group and their terms.
#[derive(Debug, Clone)]
pub(crate) struct Rows<T> {
    outputs: [usize; 2],
    paired: bool,
    terms: Vec<Term<T>>,
}

/// A block ready for the planar kernel.
#[derive(Debug, Clone)]
pub(crate) struct PlanarBlock<T> {
    /// Chunk-index bits of the high qubits, ascending.
    pub(crate) high_bits: Vec<usize>,
    /// Lane masks of the low patterns, `d` = index.
    low_masks: Vec<usize>,
    rows: Vec<Rows<T>>,
}

impl<T: Real> PlanarBlock<T> {
    /// Prepares a block without controls of at most [`MAX_PLANAR_QUBITS`] qubits (see
    /// [`with_controls_expanded`]); `pair_rows` computes two output chunks per pass over the
    /// terms (more independent multiply-adds for narrow types).
    pub(crate) fn new(block: &Block, pair_rows: bool) -> PlanarBlock<T> {
        let low: Vec<usize> = block.qubits.iter().copied().filter(|&q| q < CHUNK_BITS).collect();
        let high_bits: Vec<usize> = block.qubits.iter().filter(|&&q| q >= CHUNK_BITS).map(|q| q - CHUNK_BITS).collect();
        let (kl, kh) = (low.len(), high_bits.len());
        let (nd, nh) = (1usize << kl, 1usize << kh);
        let dim = 1usize << block.qubits.len();
        // Lane mask of low pattern `d`, and the low local bits of lane `j`.
        let deposit = |d: usize| low.iter().enumerate().filter(|(i, _)| d >> i & 1 == 1).map(|(_, &q)| 1 << q).sum();
        let low_masks: Vec<usize> = (0..nd).map(deposit).collect();
        let lane_bits =
            |j: usize| low.iter().enumerate().filter(|&(_, &q)| j >> q & 1 == 1).map(|(i, _)| 1 << i).sum::<usize>();
        let zero = T::default();
        // coefficient(r, source) as lane arrays (real, imaginary).
        let coefficient = |r: usize, source: usize| -> (Lanes<T>, Lanes<T>) {
            let (c, d) = (source / nd, source % nd);
            let (mut re, mut im) = ([zero; CHUNK], [zero; CHUNK]);
            for j in 0..CHUNK {
                let row = lane_bits(j) | (r << kl);
                let column = (lane_bits(j) ^ d) | (c << kl);
                let value: Complex64 = block.matrix[row * dim + column];
                re[j] = T::from_f64(value.re);
                im[j] = T::from_f64(value.im);
            }
            (re, im)
        };
        let nonzero = |lanes: &Lanes<T>| lanes.iter().any(|&x| x != zero);
        let step = if pair_rows && nh >= 2 { 2 } else { 1 };
        let mut rows = Vec::new();
        for first in (0..nh).step_by(step) {
            let second = first + step - 1;
            let mut terms = Vec::new();
            for source in 0..nh * nd {
                let (r0, i0) = coefficient(first, source);
                let (r1, i1) = if step == 2 { coefficient(second, source) } else { ([zero; CHUNK], [zero; CHUNK]) };
                if nonzero(&r0) || nonzero(&i0) || nonzero(&r1) || nonzero(&i1) {
                    terms.push(Term { source, weights: [r0, i0, r1, i1] });
                }
            }
            rows.push(Rows { outputs: [first, second], paired: step == 2, terms });
        }
        PlanarBlock { high_bits, low_masks, rows }
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
#[inline(always)]
pub(crate) fn apply_view<T: Real, S: Simd>(simd: S, view: &mut View<'_, T>, block: &PlanarBlock<T>, offsets: &[usize]) {
    let zero = T::default();
    let per_group = block.chunks_per_group();
    let nd = block.low_masks.len();
    let mask: usize = offsets.iter().fold(0, |acc, &o| acc | o);
    let groups = view.chunks() / per_group;
    let mut input_re = [[zero; CHUNK]; 1 << MAX_PLANAR_QUBITS];
    let mut input_im = [[zero; CHUNK]; 1 << MAX_PLANAR_QUBITS];
    let mut base = 0usize;
    for _ in 0..groups {
        if nd == 1 {
            for ((&offset, re), im) in offsets.iter().zip(&mut input_re).zip(&mut input_im) {
                let (chunk_re, chunk_im) = view.chunk(base + offset);
                *re = *chunk_re;
                *im = *chunk_im;
            }
        } else {
            for (h, &offset) in offsets.iter().enumerate() {
                let (re, im) = view.chunk(base + offset);
                let (re, im) = (*re, *im);
                for (d, &lane_mask) in block.low_masks.iter().enumerate() {
                    input_re[h * nd + d] = permuted(&re, lane_mask);
                    input_im[h * nd + d] = permuted(&im, lane_mask);
                }
            }
        }
        for rows in &block.rows {
            if rows.paired {
                let (mut rr0, mut ii0, mut ri0, mut ir0) = ([zero; CHUNK], [zero; CHUNK], [zero; CHUNK], [zero; CHUNK]);
                let (mut rr1, mut ii1, mut ri1, mut ir1) = ([zero; CHUNK], [zero; CHUNK], [zero; CHUNK], [zero; CHUNK]);
                for term in &rows.terms {
                    let (xr, xi) = (&input_re[term.source], &input_im[term.source]);
                    let [wr0, wi0, wr1, wi1] = &term.weights;
                    T::madd_lanes(simd, &mut rr0, wr0, xr);
                    T::madd_lanes(simd, &mut ii0, wi0, xi);
                    T::madd_lanes(simd, &mut ri0, wr0, xi);
                    T::madd_lanes(simd, &mut ir0, wi0, xr);
                    T::madd_lanes(simd, &mut rr1, wr1, xr);
                    T::madd_lanes(simd, &mut ii1, wi1, xi);
                    T::madd_lanes(simd, &mut ri1, wr1, xi);
                    T::madd_lanes(simd, &mut ir1, wi1, xr);
                }
                view.store(simd, base + offsets[rows.outputs[0]], &rr0, &ii0, &ri0, &ir0);
                view.store(simd, base + offsets[rows.outputs[1]], &rr1, &ii1, &ri1, &ir1);
            } else {
                let (mut rr, mut ii, mut ri, mut ir) = ([zero; CHUNK], [zero; CHUNK], [zero; CHUNK], [zero; CHUNK]);
                for term in &rows.terms {
                    let (xr, xi) = (&input_re[term.source], &input_im[term.source]);
                    let [wr, wi, _, _] = &term.weights;
                    T::madd_lanes(simd, &mut rr, wr, xr);
                    T::madd_lanes(simd, &mut ii, wi, xi);
                    T::madd_lanes(simd, &mut ri, wr, xi);
                    T::madd_lanes(simd, &mut ir, wi, xr);
                }
                view.store(simd, base + offsets[rows.outputs[0]], &rr, &ii, &ri, &ir);
            }
        }
        base = ((base | mask) + 1) & !mask;
    }
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
