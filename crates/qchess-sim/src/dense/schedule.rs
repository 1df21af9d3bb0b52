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
    fn map<C>(self, mut f: impl FnMut(B) -> C) -> Pass<C> {
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

/// A width's cheapest plan: its blocks, its passes as indices into them, and its cost.
type Candidate = (Vec<Open>, Vec<Pass<usize>>, f64);

/// The cheapest schedule of `gates` (checked) on a state of `qubits` qubits, with blocks of at
/// most `max_width` qubits.
pub(crate) fn plan(gates: &[Gate], qubits: usize, max_width: usize, costs: &Costs) -> Schedule {
    let mut best: Option<Candidate> = None;
    for width in 1..=max_width.clamp(1, fusion::MAX_FUSED_QUBITS) {
        let candidate = cheapest_for(gates, qubits, width, costs);
        if best.as_ref().is_none_or(|(_, _, cost)| candidate.2 < *cost) {
            best = Some(candidate);
        }
    }
    let Some((blocks, passes, cost)) = best else { return Schedule { passes: Vec::new(), cost: 0.0 } };
    // Only the chosen plan's matrices are built.
    let mut built: Vec<Option<Block>> = blocks.into_iter().map(|b| Some(b.build())).collect();
    let passes = passes
        .into_iter()
        .map(|pass| pass.map(|b| built[b].take().unwrap_or_else(|| unreachable!("each block once"))))
        .collect();
    Schedule { passes, cost }
}

/// The cheapest plan with blocks of at most `width` qubits: one pass per block, or tiled passes
/// spanning 0 to 3 high qubits.
fn cheapest_for(gates: &[Gate], qubits: usize, width: usize, costs: &Costs) -> Candidate {
    let blocks = fusion::shapes(gates, width);
    let block_costs: Vec<f64> = blocks.iter().map(|b| block_cost(b, costs)).collect();
    // Tiling pays only when the state is larger than a group.
    let spans: Vec<Option<usize>> = if qubits > costs.cache_bits + 1 {
        std::iter::once(None).chain((0..=3).map(Some)).collect()
    } else {
        vec![None]
    };
    let mut cheapest: Option<(Vec<Pass<usize>>, f64)> = None;
    for span in spans {
        let passes = match span {
            None => (0..blocks.len()).map(Pass::Single).collect(),
            Some(high) => group_indices(&blocks, costs.cache_bits - high, high),
        };
        let cost = passes.iter().map(|pass| 1.0 + pass.blocks().iter().map(|&b| block_costs[b]).sum::<f64>()).sum();
        if cheapest.as_ref().is_none_or(|(_, c)| cost < *c) {
            cheapest = Some((passes, cost));
        }
    }
    let (passes, cost) = cheapest.unwrap_or_default();
    (blocks, passes, cost)
}

/// The arithmetic of one block, in memory floors: its nonzero coefficients per row (one for a
/// permutation, all of them otherwise).
fn block_cost(block: &Open, costs: &Costs) -> f64 {
    let per_row = if block.permutes() { 1 } else { 1usize << block.qubits.len() };
    costs.per_block + costs.per_term * per_row as f64
}

/// Groups `blocks` into passes: tiled passes on tiles of `tile_bits` qubits spanning at most
/// `max_high` qubits above them, and single passes for blocks with more.
#[cfg(test)]
pub(crate) fn group<B: Shape>(blocks: &[B], tile_bits: usize, max_high: usize) -> Vec<Pass<B>> {
    group_indices(blocks, tile_bits, max_high).into_iter().map(|pass| pass.map(|b| blocks[b].clone())).collect()
}

/// [`group`] as indices into `blocks` (planning prices many groupings and builds one).
fn group_indices<B: Shape>(blocks: &[B], tile_bits: usize, max_high: usize) -> Vec<Pass<usize>> {
    let mut remaining: Vec<usize> = (0..blocks.len()).collect();
    let mut passes = Vec::new();
    let (mut members, mut high, mut waiting, mut blocked) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    while !remaining.is_empty() {
        members.clear();
        high.clear();
        waiting.clear();
        blocked.clear();
        for &index in &remaining {
            let block = &blocks[index];
            let qubits = block.qubits();
            let movable = !qubits.iter().any(|q| blocked.contains(q));
            let new_high = qubits.iter().filter(|&&q| q >= tile_bits && !high.contains(&q)).count();
            if movable && !block.controlled() && high.len() + new_high <= max_high {
                for &q in qubits {
                    if q >= tile_bits && !high.contains(&q) {
                        high.push(q);
                    }
                }
                members.push(index);
            } else if movable && members.is_empty() {
                // Too many high qubits (or controls) for any tiled pass: it streams alone.
                passes.push(Pass::Single(index));
            } else {
                blocked.extend(qubits.iter().copied());
                waiting.push(index);
            }
        }
        match members.len() {
            0 => {}
            1 => passes.push(Pass::Single(members[0])),
            _ => passes.push(Pass::Tiled { tile_bits, blocks: members.clone() }),
        }
        std::mem::swap(&mut remaining, &mut waiting);
    }
    passes
}
