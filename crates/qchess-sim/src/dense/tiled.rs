//! Passes of several blocks over a planar state, one cache-sized group of tiles at a time.
//!
//! A tiled pass has tile bits `t` and a few high qubits `H` (each `>= t`); every block of the
//! pass acts on qubits below `t` or in `H`. The amplitudes that share their other bits form a
//! *group*: `2^|H|` tiles of `2^t` consecutive amplitudes, small enough to stay in the
//! second-level cache. Each group gets every block of the pass in turn before the next group is
//! read, so the pass reads and writes the state once however many blocks it holds.
//!
//! In a group's view the tile's bits keep their places and high qubit `H[i]` becomes bit
//! `t + i`, so each block is prepared once for the view (its qubits renumbered) and the planar
//! kernel runs on the view unchanged. Threads take contiguous ranges of groups; every amplitude
//! goes through the same operations whatever the thread count.

use pulp::{Arch, Simd, WithSimd};

use super::block_kernel::Real;
use super::fusion::Block;
use super::planar::{Prepared, View};
use super::planar_kernel::{self, CHUNK, CHUNK_BITS, PlanarBlock, Prefetch};
use super::workers;

/// A tiled pass ready to run.
pub(crate) struct TiledPass<T> {
    /// Qubits of a tile (at least [`CHUNK_BITS`] + 1).
    tile_bits: usize,
    /// The high qubits, ascending.
    high: Vec<usize>,
    /// The blocks in order, prepared for a group's view, with the view's chunk offsets of their
    /// high combinations.
    blocks: Vec<(Prepared<T>, Vec<usize>)>,
}

impl<T: Real> TiledPass<T> {
    /// Prepares `blocks` (none with controls wider than the planar kernel takes) for tiles of
    /// `tile_bits` qubits and the high qubits they use above them.
    pub(crate) fn new(blocks: &[Block], tile_bits: usize) -> TiledPass<T> {
        let mut high: Vec<usize> =
            blocks.iter().flat_map(|b| b.qubits.iter().copied()).filter(|&q| q >= tile_bits).collect();
        high.sort_unstable();
        high.dedup();
        let view_qubit =
            |q: usize| if q < tile_bits { q } else { tile_bits + high.iter().position(|&h| h == q).unwrap_or(0) };
        let prepared = blocks
            .iter()
            .map(|block| {
                let renumbered =
                    Block { qubits: block.qubits.iter().map(|&q| view_qubit(q)).collect(), ..block.clone() };
                let prepared = Prepared::new(&renumbered);
                let offsets = match &prepared {
                    Prepared::Pairs(b) => offsets_of(&b.high_bits),
                    Prepared::Quads(b) => offsets_of(&b.high_bits),
                    Prepared::Scalar(_) => Vec::new(),
                };
                (prepared, offsets)
            })
            .collect();
        TiledPass { tile_bits, high, blocks: prepared }
    }

    /// Runs the pass on `planes` (a planar state of more than `tile_bits` qubits plus its high
    /// qubits) with up to `threads` threads.
    pub(crate) fn apply(&self, arch: Arch, planes: &mut [T], threads: usize) {
        let run_values = 2 << self.tile_bits;
        let runs = planes.len() / run_values;
        let run_bits = runs.trailing_zeros() as usize;
        let high_bits: Vec<usize> = self.high.iter().map(|&q| q - self.tile_bits).collect();
        let free_bits: Vec<usize> = (0..run_bits).filter(|b| !high_bits.contains(b)).collect();
        let per_group = 1usize << high_bits.len();
        let groups = runs / per_group;
        let mut slots: Vec<Option<&mut [T]>> = planes.chunks_mut(run_values).map(Some).collect();
        let mut views = Vec::with_capacity(groups);
        for g in 0..groups {
            let base = deposit(g, &free_bits);
            let segments = (0..per_group)
                .map(|h| slots[base | deposit(h, &high_bits)].take().unwrap_or_else(|| unreachable!("each run once")))
                .collect();
            views.push(View::new(segments, self.tile_bits - CHUNK_BITS));
        }
        let per_thread = groups.div_ceil(threads.clamp(1, groups.max(1)));
        let mut parts: Vec<Vec<View<'_, T>>> = Vec::new();
        let mut views = views.into_iter();
        loop {
            let part: Vec<View<'_, T>> = views.by_ref().take(per_thread).collect();
            if part.is_empty() {
                break;
            }
            parts.push(part);
        }
        workers::for_each(threads, parts, |part| arch.dispatch(Groups { views: part, pass: self }));
    }
}

/// Every block of a pass on each view in turn.
struct Groups<'a, 'b, T> {
    views: Vec<View<'b, T>>,
    pass: &'a TiledPass<T>,
}

impl<T: Real> WithSimd for Groups<'_, '_, T> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let prefetch = Prefetch::new();
        for mut view in self.views {
            for (block, offsets) in &self.pass.blocks {
                match block {
                    Prepared::Pairs(block) => apply::<T, S, { 2 * CHUNK }>(simd, prefetch, &mut view, block, offsets),
                    Prepared::Quads(block) => apply::<T, S, { 4 * CHUNK }>(simd, prefetch, &mut view, block, offsets),
                    Prepared::Scalar(_) => unreachable!("wide controlled blocks run alone"),
                }
            }
        }
    }
}

#[inline(always)]
fn apply<T: Real, S: Simd, const N: usize>(
    simd: S,
    prefetch: Prefetch,
    view: &mut View<'_, T>,
    block: &PlanarBlock<T, N>,
    offsets: &[usize],
) {
    planar_kernel::apply_view(simd, prefetch, view, block, offsets);
}

/// The chunk offsets of every combination of a block's high bits (in the view).
pub(crate) fn offsets_of(high_bits: &[usize]) -> Vec<usize> {
    (0..1usize << high_bits.len()).map(|h| deposit(h, high_bits)).collect()
}

/// The bits of `value` placed on `positions` (bit `i` of `value` on bit `positions[i]`).
fn deposit(value: usize, positions: &[usize]) -> usize {
    positions.iter().enumerate().filter(|(i, _)| value >> i & 1 == 1).map(|(_, &p)| 1usize << p).sum()
}
