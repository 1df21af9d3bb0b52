//! Grouping fused blocks into passes over the state, and choosing the fusion width and the
//! tiling of a circuit by a cost model.
//!
//! A pass reads and writes every amplitude once. A block on high qubits streams the whole state
//! by itself; blocks whose qubits lie below the tile bits, plus a few high qubits shared by the
//! whole pass, run together on cache-sized groups of tiles ([`tiled`](super::tiled)), one
//! memory pass for all of them. Blocks are taken in circuit order; a block that does not fit
//! the pass being built waits, and a later block moves ahead of it only when it shares no qubit
//! with any block left waiting (blocks on disjoint qubits commute).
//!
//! Each candidate plan (fusion width, how many high qubits a tiled pass may span) is priced by
//! [`Costs`]: a memory floor per pass, plus the arithmetic of every block, and the cheapest is
//! run. Narrow blocks cost less arithmetic per gate but, without tiling, more passes; tiling
//! makes extra blocks on low qubits cost only their arithmetic.

use qchess_circuit::ir::Gate;

use super::fusion::{self, Block};

/// A pass over the state.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pass {
    /// One block, streamed over the whole state.
    Single(Block),
    /// Several blocks on tiles of `tile_bits` qubits and the high qubits they use.
    Tiled {
        /// Qubits of a tile.
        tile_bits: usize,
        /// The blocks, in order.
        blocks: Vec<Block>,
    },
}

impl Pass {
    /// The blocks of the pass, in order.
    pub(crate) fn blocks(&self) -> &[Block] {
        match self {
            Pass::Single(block) => std::slice::from_ref(block),
            Pass::Tiled { blocks, .. } => blocks,
        }
    }
}

/// Relative costs of a pass and of a block's arithmetic, per amplitude, in units of the
/// memory floor (one in-place pass that reads and writes every amplitude).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Costs {
    /// What a block costs per nonzero coefficient of one row (a complex multiply-add on every
    /// amplitude), on top of the pass that carries it.
    pub(crate) per_term: f64,
    /// What a block costs besides its terms (loading, permuting and storing a group).
    pub(crate) per_block: f64,
    /// Qubits of a group of tiles that fits the cache with room to spare.
    pub(crate) cache_bits: usize,
}

/// Bytes of a group of tiles: half the second-level cache of a core, so that the group and the
/// blocks' coefficients stay in it while every block of the pass runs on the group.
const GROUP_BYTES: usize = 1 << 20;

/// The costs of the planar kernels in precision `T` (bytes of one real part) on `threads`
/// threads. Measured on the 2-core machine of the guide's tables (AVX-512), one and two
/// threads, single and double precision: see the performance chapter.
pub(crate) fn costs<T>(threads: usize) -> Costs {
    let bytes = std::mem::size_of::<T>();
    let _ = threads;
    Costs { per_term: 0.1, per_block: 0.2, cache_bits: (GROUP_BYTES / (2 * bytes)).trailing_zeros() as usize }
}

/// The passes chosen for a circuit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Schedule {
    /// The passes, in order.
    pub(crate) passes: Vec<Pass>,
    /// The estimated cost, in memory floors.
    pub(crate) cost: f64,
}

/// The cheapest schedule of `gates` (checked) on a state of `qubits` qubits, with blocks of at
/// most `max_width` qubits.
pub(crate) fn plan(gates: &[Gate], qubits: usize, max_width: usize, costs: &Costs) -> Schedule {
    let mut best: Option<Schedule> = None;
    for width in 1..=max_width.clamp(1, fusion::MAX_FUSED_QUBITS) {
        let blocks = fusion::fuse(gates, width);
        // Tiling pays only when the state is larger than a group.
        let spans: Vec<Option<usize>> = if qubits > costs.cache_bits + 1 {
            std::iter::once(None).chain((0..=3).map(Some)).collect()
        } else {
            vec![None]
        };
        for span in spans {
            let passes = match span {
                None => blocks.iter().cloned().map(Pass::Single).collect(),
                Some(high) => group(&blocks, costs.cache_bits - high, high),
            };
            let cost = cost(&passes, costs);
            if best.as_ref().is_none_or(|b| cost < b.cost) {
                best = Some(Schedule { passes, cost });
            }
        }
    }
    best.unwrap_or(Schedule { passes: Vec::new(), cost: 0.0 })
}

/// The estimated cost of `passes`, in memory floors.
fn cost(passes: &[Pass], costs: &Costs) -> f64 {
    passes.iter().map(|pass| 1.0 + pass.blocks().iter().map(|b| block_cost(b, costs)).sum::<f64>()).sum()
}

/// The arithmetic of one block, in memory floors: its nonzero coefficients per row.
fn block_cost(block: &Block, costs: &Costs) -> f64 {
    let dim = 1usize << block.qubits.len();
    let nonzero = block.matrix.iter().filter(|z| z.norm_sqr() > 0.0).count();
    costs.per_block + costs.per_term * nonzero as f64 / dim as f64
}

/// Groups `blocks` into passes: tiled passes on tiles of `tile_bits` qubits spanning at most
/// `max_high` qubits above them, and single passes for blocks with more.
pub(crate) fn group(blocks: &[Block], tile_bits: usize, max_high: usize) -> Vec<Pass> {
    let high_of = |block: &Block| -> Vec<usize> { block.qubits.iter().copied().filter(|&q| q >= tile_bits).collect() };
    let mut remaining: Vec<Block> = blocks.to_vec();
    let mut passes = Vec::new();
    while !remaining.is_empty() {
        let mut members: Vec<Block> = Vec::new();
        let mut high: Vec<usize> = Vec::new();
        let mut waiting: Vec<Block> = Vec::new();
        let mut blocked: Vec<usize> = Vec::new();
        for block in remaining {
            let movable = !block.qubits.iter().any(|q| blocked.contains(q));
            let joined: Vec<usize> = {
                let mut all = high.clone();
                all.extend(high_of(&block));
                all.sort_unstable();
                all.dedup();
                all
            };
            let fits = block.control_mask == 0 && joined.len() <= max_high;
            if movable && fits {
                high = joined;
                members.push(block);
            } else if movable && members.is_empty() {
                // Too many high qubits (or controls) for any tiled pass: it streams alone.
                passes.push(Pass::Single(block));
            } else {
                blocked.extend(block.qubits.iter().copied());
                blocked.extend((0..usize::BITS as usize).filter(|q| block.control_mask >> q & 1 == 1));
                waiting.push(block);
            }
        }
        match members.len() {
            0 => {}
            1 => passes.extend(members.into_iter().map(Pass::Single)),
            _ => passes.push(Pass::Tiled { tile_bits, blocks: members }),
        }
        remaining = waiting;
    }
    passes
}
