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

use super::fusion::{self, Block, Open};

/// A pass over the state, of built blocks (or, while planning, of their shapes).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Pass<B = Block> {
    /// One block, streamed over the whole state.
    Single(B),
    /// Several blocks on tiles of `tile_bits` qubits and the high qubits they use.
    Tiled {
        /// Qubits of a tile.
        tile_bits: usize,
        /// The blocks, in order.
        blocks: Vec<B>,
    },
}

impl<B> Pass<B> {
    /// The blocks of the pass, in order.
    pub(crate) fn blocks(&self) -> &[B] {
        match self {
            Pass::Single(block) => std::slice::from_ref(block),
            Pass::Tiled { blocks, .. } => blocks,
        }
    }

    /// The same pass with each block mapped.
    fn map<C>(self, f: impl Fn(B) -> C) -> Pass<C> {
        match self {
            Pass::Single(block) => Pass::Single(f(block)),
            Pass::Tiled { tile_bits, blocks } => Pass::Tiled { tile_bits, blocks: blocks.into_iter().map(f).collect() },
        }
    }
}

/// What grouping needs to know of a block: its qubits, and whether it keeps controls (a gate
/// too wide to fuse), which only a pass of its own applies.
pub(crate) trait Shape: Clone {
    /// The qubits the block acts on (controls included), ascending.
    fn qubits(&self) -> &[usize];
    /// Whether the block keeps controls of its own.
    fn controlled(&self) -> bool;
}

impl Shape for Open {
    fn qubits(&self) -> &[usize] {
        &self.qubits
    }
    fn controlled(&self) -> bool {
        self.wide
    }
}

/// Built blocks, for the tests of tiled passes (controls are not among a block's qubits, so
/// only blocks without them).
#[cfg(test)]
impl Shape for Block {
    fn qubits(&self) -> &[usize] {
        &self.qubits
    }
    fn controlled(&self) -> bool {
        self.control_mask != 0
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

/// The costs of the planar kernels in precision `T` (bytes of one real part), in memory
/// floors. The same for any thread count, so that the plan, and with it every amplitude, does
/// not depend on it. Measured on the guide's 2-core machine (AVX-512, one thread, the
/// fastest of 300 runs of a block on a state in the second-level cache against the fastest of 8
/// in-place passes over a 24-qubit state): single precision 1.1 ns per amplitude per block and
/// 0.09 ns per nonzero coefficient of a row against a floor of 1.68 ns; double precision 1.3
/// and 0.1 ns against 3.64 ns.
pub(crate) fn costs<T>() -> Costs {
    let bytes = std::mem::size_of::<T>();
    let (per_block, per_term) = if bytes == 4 { (1.1 / 1.68, 0.09 / 1.68) } else { (1.3 / 3.64, 0.1 / 3.64) };
    Costs { per_term, per_block, cache_bits: (GROUP_BYTES / (2 * bytes)).trailing_zeros() as usize }
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
    let mut best: Option<(Vec<Pass<Open>>, f64)> = None;
    for width in 1..=max_width.clamp(1, fusion::MAX_FUSED_QUBITS) {
        let blocks = fusion::shapes(gates, width);
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
            if best.as_ref().is_none_or(|(_, b)| cost < *b) {
                best = Some((passes, cost));
            }
        }
    }
    let (passes, cost) = best.unwrap_or((Vec::new(), 0.0));
    Schedule { passes: passes.into_iter().map(|pass| pass.map(Open::build)).collect(), cost }
}

/// The estimated cost of `passes`, in memory floors.
fn cost(passes: &[Pass<Open>], costs: &Costs) -> f64 {
    passes.iter().map(|pass| 1.0 + pass.blocks().iter().map(|b| block_cost(b, costs)).sum::<f64>()).sum()
}

/// The arithmetic of one block, in memory floors: its nonzero coefficients per row (one for a
/// permutation, all of them otherwise).
fn block_cost(block: &Open, costs: &Costs) -> f64 {
    let per_row = if block.permutes() { 1 } else { 1usize << block.qubits.len() };
    costs.per_block + costs.per_term * per_row as f64
}

/// Groups `blocks` into passes: tiled passes on tiles of `tile_bits` qubits spanning at most
/// `max_high` qubits above them, and single passes for blocks with more.
pub(crate) fn group<B: Shape>(blocks: &[B], tile_bits: usize, max_high: usize) -> Vec<Pass<B>> {
    let mut remaining: Vec<B> = blocks.to_vec();
    let mut passes = Vec::new();
    while !remaining.is_empty() {
        let mut members: Vec<B> = Vec::new();
        let mut high: Vec<usize> = Vec::new();
        let mut waiting: Vec<B> = Vec::new();
        let mut blocked: Vec<usize> = Vec::new();
        for block in remaining {
            let movable = !block.qubits().iter().any(|q| blocked.contains(q));
            let mut joined = high.clone();
            joined.extend(block.qubits().iter().copied().filter(|&q| q >= tile_bits));
            joined.sort_unstable();
            joined.dedup();
            if movable && !block.controlled() && joined.len() <= max_high {
                high = joined;
                members.push(block);
            } else if movable && members.is_empty() {
                // Too many high qubits (or controls) for any tiled pass: it streams alone.
                passes.push(Pass::Single(block));
            } else {
                blocked.extend(block.qubits().iter().copied());
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
