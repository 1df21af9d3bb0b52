//! SWAP insertion with look-ahead (SABRE: Li, Ding and Xie, ASPLOS 2019).
//!
//! Gates run as soon as their qubits are free and, for two-qubit gates, adjacent. When every
//! waiting gate needs a SWAP, each SWAP on a coupling next to a waiting gate is scored by the mean
//! distance of the waiting gates plus half the mean distance of the next 20 two-qubit
//! gates, scaled by a decay that discourages moving the same qubits again, plus a share of the
//! SWAP's own cost; the best runs (ties broken by the seeded generator). Distances are the
//! calibrated path costs of [`Costs::distance`] (hop counts without a calibration), so SWAPs
//! take the low-error couplers. A qubit first touched here is placed on a free physical
//! qubit next to its partner, which is what makes routing move by move possible.

use crate::cost::Costs;
use crate::error::RouteError;
use crate::layout::{Layout, choose_free};
use crate::program::{Instr, Program};
use crate::target::Target;
use crate::verify::SplitMix;

/// How many upcoming two-qubit gates the score looks ahead to.
const EXTENDED: usize = 20;
/// Weight of the look-ahead term.
const LOOK_AHEAD_WEIGHT: f64 = 0.5;
/// Most instructions the look-ahead walks through (one-qubit gates included).
const VISITS: usize = 400;
/// Decay added to a qubit each time it is swapped.
const DECAY: f64 = 0.001;
/// Weight of a SWAP's own cost (in median couplers, over the front's size) in its score.
const SWAP_COST_WEIGHT: f64 = 1.0;

/// A routed program over physical qubits.
#[derive(Debug, Clone)]
pub struct Routed {
    /// The instructions, SWAPs included, over physical qubits.
    pub program: Program,
    /// Where each logical qubit was before the first instruction (`None`: placed later).
    pub initial: Vec<Option<u32>>,
    /// The layout after the last instruction.
    pub layout: Layout,
    /// SWAPs inserted.
    pub swaps: usize,
}

/// The instructions after one: the next on each of its qubits (`NONE` where there is none).
type Successors = [usize; 2];

/// No successor.
const NONE: usize = usize::MAX;

/// The successors that exist.
fn next_of(successors: &Successors) -> impl Iterator<Item = usize> + '_ {
    successors.iter().copied().filter(|&s| s != NONE)
}

/// Routes `program` (over logical qubits) onto `target`, starting from `layout`.
pub fn route(
    program: &Program,
    target: &Target,
    mut layout: Layout,
    costs: &Costs,
    rng: &mut SplitMix,
    trial: usize,
) -> Result<Routed, RouteError> {
    layout.grow(program.num_qubits);
    let initial = layout.physical.clone();
    let n = program.instrs.len();
    // Each instruction has at most two successors: the next one on each of its qubits.
    let mut successors: Vec<Successors> = vec![[NONE; 2]; n];
    let mut waiting = vec![0u32; n];
    let mut last: Vec<Option<usize>> = vec![None; program.num_qubits as usize];
    for (i, instr) in program.instrs.iter().enumerate() {
        let (a, b) = instr.qubits();
        for q in std::iter::once(a).chain(b) {
            if let Some(p) = last[q as usize].replace(i) {
                let slot = if successors[p][0] == NONE { 0 } else { 1 };
                successors[p][slot] = i;
                waiting[i] += 1;
            }
        }
    }
    let mut front: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut next: Vec<usize> = Vec::with_capacity(front.len());
    let mut out = Vec::with_capacity(n + n / 2);
    let mut decay = vec![1.0f64; target.num_qubits as usize];
    let (mut stamp, mut epoch) = (vec![0u32; n], 0u32);
    let (mut swaps, mut since_progress) = (0usize, 0usize);
    let (mut front_pairs, mut extended, mut candidates, mut best) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut front_logical, mut ahead) = (Vec::new(), Vec::new());
    let mut queue = std::collections::VecDeque::new();
    // Logical pairs scored and which of them each logical qubit is in: they change only when
    // gates run, not when SWAPs move qubits.
    let mut touches = Touches::new(program.num_qubits);
    let mut stale = true;
    let release = 8 * usize::from(
        (0..target.num_qubits).map(|q| target.distance(0, q)).filter(|&d| d < u16::MAX).max().unwrap_or(1),
    ) + 32;
    loop {
        let mut progressed = true;
        while progressed {
            progressed = false;
            next.clear();
            for &i in &front {
                let instr = program.instrs[i];
                if executable(&instr, target, &mut layout, costs, rng, trial)? {
                    let physical = instr.remapped(|q| layout.physical[q as usize].unwrap_or(u32::MAX));
                    match physical {
                        Instr::ISwap { power, a, b, swapped: false } if power.abs() == 1.0 => {
                            epoch += 1;
                            extended_set(
                                &[i],
                                &successors,
                                program,
                                &layout,
                                &mut stamp,
                                epoch,
                                &mut queue,
                                &mut ahead,
                            );
                            if relabel_pays(&ahead, &layout, a, b, costs) {
                                out.push(Instr::ISwap { power, a, b, swapped: true });
                                layout.swap(a, b);
                            } else {
                                out.push(physical);
                            }
                        }
                        _ => out.push(physical),
                    }
                    progressed = true;
                    for s in next_of(&successors[i]) {
                        waiting[s] -= 1;
                        if waiting[s] == 0 {
                            next.push(s);
                        }
                    }
                } else {
                    next.push(i);
                }
            }
            if progressed {
                stale = true;
                since_progress = 0;
                decay.iter_mut().for_each(|d| *d = 1.0);
            }
            std::mem::swap(&mut front, &mut next);
        }
        if front.is_empty() {
            break;
        }
        let physical_pair = |i: usize| -> (u32, u32) {
            let (a, b) = program.instrs[i].qubits();
            let p = |q: u32| layout.physical[q as usize].unwrap_or(u32::MAX);
            (p(a), p(b.unwrap_or(a)))
        };
        front_pairs.clear();
        front_pairs.extend(front.iter().map(|&i| physical_pair(i)));
        if let Some(&(a, b)) = front_pairs.iter().find(|&&(a, b)| target.distance(a, b) == u16::MAX) {
            return Err(RouteError::Disconnected { target: target.name.clone(), a, b });
        }
        if since_progress > release {
            // Stuck in a cycle: walk the closest waiting pair together along a shortest path.
            let &(mut a, b) = front_pairs
                .iter()
                .min_by_key(|&&(a, b)| target.distance(a, b))
                .ok_or(RouteError::Internal("empty front"))?;
            while target.distance(a, b) > 1 {
                let step = *target
                    .neighbours(a)
                    .iter()
                    .min_by_key(|&&n| target.distance(n, b))
                    .ok_or(RouteError::Internal("isolated qubit"))?;
                out.push(Instr::Swap { a, b: step });
                layout.swap(a, step);
                swaps += 1;
                a = step;
            }
            since_progress = 0;
            continue;
        }
        if stale {
            epoch += 1;
            extended_set(&front, &successors, program, &layout, &mut stamp, epoch, &mut queue, &mut extended);
            front_logical.clear();
            front_logical.extend(front.iter().map(|&i| {
                let (a, b) = program.instrs[i].qubits();
                (a, b.unwrap_or(a))
            }));
            touches.clear();
            for (index, &(a, b)) in front_logical.iter().chain(&extended).enumerate() {
                touches.add(a, index);
                touches.add(b, index);
            }
            stale = false;
        }
        candidates.clear();
        for &(a, b) in &front_pairs {
            for q in [a, b] {
                candidates.extend(target.neighbours(q).iter().map(|&n| (q.min(n), q.max(n))));
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        let physical = |q: u32| layout.physical[q as usize].unwrap_or(u32::MAX);
        let pair_at = |index: usize| {
            let (a, b) =
                if index < front_logical.len() { front_logical[index] } else { extended[index - front_logical.len()] };
            (physical(a), physical(b))
        };
        let front_total: f64 = front_pairs.iter().map(|&(a, b)| costs.distance(a, b)).sum();
        let extended_total: f64 = extended.iter().map(|&(a, b)| costs.distance(physical(a), physical(b))).sum();
        best.clear();
        let mut best_score = f64::INFINITY;
        for &(x, y) in &candidates {
            let moved = |p: u32| {
                if p == x {
                    y
                } else if p == y {
                    x
                } else {
                    p
                }
            };
            // Only the pairs of the qubits on x or y change (a pair of both is seen once).
            let (lx, ly) = (layout.logical[x as usize], layout.logical[y as usize]);
            let (mut front_change, mut extended_change) = (0.0, 0.0);
            for (q, other) in [(lx, None), (ly, lx)] {
                let Some(q) = q else { continue };
                for index in touches.of(q) {
                    let (a, b) = pair_at(index);
                    if other.is_some() && (a == x || b == x) {
                        continue;
                    }
                    let change = costs.distance(moved(a), moved(b)) - costs.distance(a, b);
                    if index < front_logical.len() {
                        front_change += change;
                    } else {
                        extended_change += change;
                    }
                }
            }
            let front_mean = (front_total + front_change) / front_pairs.len() as f64;
            let extended_mean =
                if extended.is_empty() { 0.0 } else { (extended_total + extended_change) / extended.len() as f64 };
            let score = decay[x as usize].max(decay[y as usize]) * (front_mean + LOOK_AHEAD_WEIGHT * extended_mean)
                + SWAP_COST_WEIGHT * costs.hop(x, y) / front_pairs.len() as f64;
            if score < best_score - 1e-12 {
                best_score = score;
                best.clear();
                best.push((x, y));
            } else if (score - best_score).abs() <= 1e-12 {
                best.push((x, y));
            }
        }
        let &(x, y) = best
            .get(if best.len() > 1 { rng.below(best.len()) } else { 0 })
            .ok_or(RouteError::Internal("no SWAP candidate"))?;
        out.push(Instr::Swap { a: x, b: y });
        layout.swap(x, y);
        decay[x as usize] += DECAY;
        decay[y as usize] += DECAY;
        swaps += 1;
        since_progress += 1;
        if since_progress % 5 == 0 {
            decay.iter_mut().for_each(|d| *d = 1.0);
        }
    }
    let program = Program { num_qubits: target.num_qubits, num_clbits: program.num_clbits, instrs: out };
    Ok(Routed { program, initial, layout, swaps })
}

/// Whether a whole iSWAP on the physical pair `a`, `b` should also exchange the two qubits'
/// places: `SWAP . iSWAP` takes one CX where the iSWAP alone takes two, so the exchange is free
/// and pays unless it moves the upcoming gates `ahead` (logical pairs, placed by `layout`)
/// further apart.
fn relabel_pays(ahead: &[(u32, u32)], layout: &Layout, a: u32, b: u32, costs: &Costs) -> bool {
    let moved = |p: u32| {
        if p == a {
            b
        } else if p == b {
            a
        } else {
            p
        }
    };
    let (mut kept, mut exchanged) = (0.0, 0.0);
    for &(x, y) in ahead {
        let (x, y) = (layout.physical[x as usize].unwrap_or(u32::MAX), layout.physical[y as usize].unwrap_or(u32::MAX));
        kept += costs.distance(x, y);
        exchanged += costs.distance(moved(x), moved(y));
    }
    exchanged <= kept
}

/// Whether `instr` can run now, placing its qubits first if they have no place yet.
fn executable(
    instr: &Instr,
    target: &Target,
    layout: &mut Layout,
    costs: &Costs,
    rng: &mut SplitMix,
    trial: usize,
) -> Result<bool, RouteError> {
    let (a, b) = instr.qubits();
    for (q, partner) in [(Some(a), b), (b, Some(a))] {
        let Some(q) = q else { continue };
        if layout.physical[q as usize].is_none() {
            let near = partner.and_then(|p| layout.physical[p as usize]);
            let p = choose_free(target, layout, costs, near, rng, trial).ok_or(RouteError::TooSmall {
                needed: layout.physical.len() as u32,
                available: target.num_qubits,
                target: target.name.clone(),
            })?;
            layout.place(q, p);
        }
    }
    Ok(match b {
        None => true,
        Some(b) => {
            let (pa, pb) = (layout.physical[a as usize], layout.physical[b as usize]);
            matches!((pa, pb), (Some(pa), Some(pb)) if target.is_coupled(pa, pb))
        }
    })
}

/// Logical pairs of the next two-qubit gates after the front whose qubits are placed, breadth
/// first, visiting at most [`VISITS`] instructions, into `pairs`; `stamp` marks visited ones
/// with this call's `epoch`.
#[allow(clippy::too_many_arguments)]
fn extended_set(
    front: &[usize],
    successors: &[Successors],
    program: &Program,
    layout: &Layout,
    stamp: &mut [u32],
    epoch: u32,
    queue: &mut std::collections::VecDeque<usize>,
    pairs: &mut Vec<(u32, u32)>,
) {
    pairs.clear();
    queue.clear();
    queue.extend(front.iter().flat_map(|&i| next_of(&successors[i])));
    let mut visits = 0;
    while let Some(i) = queue.pop_front() {
        if pairs.len() >= EXTENDED || visits >= VISITS {
            break;
        }
        if stamp[i] == epoch {
            continue;
        }
        stamp[i] = epoch;
        visits += 1;
        if let (a, Some(b)) = program.instrs[i].qubits()
            && layout.physical[a as usize].is_some()
            && layout.physical[b as usize].is_some()
        {
            pairs.push((a, b));
        }
        queue.extend(next_of(&successors[i]));
    }
}

/// For each logical qubit, the indices of the scored pairs on it (linked lists in flat vectors,
/// cleared when gates run).
struct Touches {
    head: Vec<usize>,
    next: Vec<usize>,
    index: Vec<usize>,
    touched: Vec<u32>,
}

impl Touches {
    const NONE: usize = usize::MAX;

    fn new(qubits: u32) -> Touches {
        Touches { head: vec![Touches::NONE; qubits as usize], next: Vec::new(), index: Vec::new(), touched: Vec::new() }
    }

    fn clear(&mut self) {
        for q in self.touched.drain(..) {
            self.head[q as usize] = Touches::NONE;
        }
        self.next.clear();
        self.index.clear();
    }

    fn add(&mut self, qubit: u32, index: usize) {
        if self.head[qubit as usize] == Touches::NONE {
            self.touched.push(qubit);
        }
        self.next.push(self.head[qubit as usize]);
        self.index.push(index);
        self.head[qubit as usize] = self.index.len() - 1;
    }

    fn of(&self, qubit: u32) -> impl Iterator<Item = usize> + '_ {
        let mut at = self.head[qubit as usize];
        std::iter::from_fn(move || {
            (at != Touches::NONE).then(|| {
                let index = self.index[at];
                at = self.next[at];
                index
            })
        })
    }
}
