//! SWAP insertion with look-ahead (SABRE: Li, Ding and Xie, ASPLOS 2019).
//!
//! Gates run as soon as their qubits are free and, for two-qubit gates, adjacent. When every
//! waiting gate needs a SWAP, each SWAP on a coupling next to a waiting gate is scored by the mean
//! distance of the waiting gates plus half the mean distance of the next 20 two-qubit
//! gates, scaled by a decay that discourages moving the same qubits again; the best runs (ties
//! broken by the seeded generator). A qubit first touched here is placed on a free physical
//! qubit next to its partner, which is what makes routing move by move possible.

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

/// Routes `program` (over logical qubits) onto `target`, starting from `layout`.
pub fn route(
    program: &Program,
    target: &Target,
    mut layout: Layout,
    quality: &[f64],
    rng: &mut SplitMix,
    trial: usize,
) -> Result<Routed, RouteError> {
    layout.grow(program.num_qubits);
    let initial = layout.physical.clone();
    let n = program.instrs.len();
    let mut successors: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting = vec![0u32; n];
    let mut last: Vec<Option<usize>> = vec![None; program.num_qubits as usize];
    for (i, instr) in program.instrs.iter().enumerate() {
        let (a, b) = instr.qubits();
        for q in std::iter::once(a).chain(b) {
            if let Some(p) = last[q as usize].replace(i) {
                successors[p].push(i);
                waiting[i] += 1;
            }
        }
    }
    let mut front: Vec<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    let mut out = Vec::with_capacity(n + n / 2);
    let mut decay = vec![1.0f64; target.num_qubits as usize];
    let (mut stamp, mut epoch) = (vec![0u32; n], 0u32);
    let (mut swaps, mut since_progress) = (0usize, 0usize);
    let release = 8 * usize::from(
        (0..target.num_qubits).map(|q| target.distance(0, q)).filter(|&d| d < u16::MAX).max().unwrap_or(1),
    ) + 32;
    loop {
        let mut progressed = true;
        while progressed {
            progressed = false;
            let mut next = Vec::with_capacity(front.len());
            for &i in &front {
                let instr = program.instrs[i];
                if executable(&instr, target, &mut layout, quality, rng, trial)? {
                    out.push(instr.remapped(|q| layout.physical[q as usize].unwrap_or(u32::MAX)));
                    progressed = true;
                    for &s in &successors[i] {
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
                since_progress = 0;
                decay.iter_mut().for_each(|d| *d = 1.0);
            }
            front = next;
        }
        if front.is_empty() {
            break;
        }
        let physical_pair = |i: usize| -> (u32, u32) {
            let (a, b) = program.instrs[i].qubits();
            let p = |q: u32| layout.physical[q as usize].unwrap_or(u32::MAX);
            (p(a), p(b.unwrap_or(a)))
        };
        let front_pairs: Vec<(u32, u32)> = front.iter().map(|&i| physical_pair(i)).collect();
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
        epoch += 1;
        let extended = extended_set(&front, &successors, program, &layout, &mut stamp, epoch);
        let mut candidates: Vec<(u32, u32)> = front_pairs
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .flat_map(|q| target.neighbours(q).iter().map(move |&n| (q.min(n), q.max(n))))
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut best: Vec<(u32, u32)> = Vec::new();
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
            let total = |pairs: &[(u32, u32)]| -> f64 {
                if pairs.is_empty() {
                    return 0.0;
                }
                pairs.iter().map(|&(a, b)| f64::from(target.distance(moved(a), moved(b)))).sum::<f64>()
                    / pairs.len() as f64
            };
            let score =
                decay[x as usize].max(decay[y as usize]) * (total(&front_pairs) + LOOK_AHEAD_WEIGHT * total(&extended));
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

/// Whether `instr` can run now, placing its qubits first if they have no place yet.
fn executable(
    instr: &Instr,
    target: &Target,
    layout: &mut Layout,
    quality: &[f64],
    rng: &mut SplitMix,
    trial: usize,
) -> Result<bool, RouteError> {
    let (a, b) = instr.qubits();
    for (q, partner) in [(Some(a), b), (b, Some(a))] {
        let Some(q) = q else { continue };
        if layout.physical[q as usize].is_none() {
            let near = partner.and_then(|p| layout.physical[p as usize]);
            let p = choose_free(target, layout, quality, near, rng, trial).ok_or(RouteError::TooSmall {
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

/// Physical pairs of the next two-qubit gates after the front, breadth first, visiting at most
/// [`VISITS`] instructions; `stamp` marks visited ones with this call's `epoch`.
fn extended_set(
    front: &[usize],
    successors: &[Vec<usize>],
    program: &Program,
    layout: &Layout,
    stamp: &mut [u32],
    epoch: u32,
) -> Vec<(u32, u32)> {
    let mut pairs = Vec::with_capacity(EXTENDED);
    let mut queue: std::collections::VecDeque<usize> =
        front.iter().flat_map(|&i| successors[i].iter().copied()).collect();
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
            && let (Some(pa), Some(pb)) = (layout.physical[a as usize], layout.physical[b as usize])
        {
            pairs.push((pa, pb));
        }
        queue.extend(successors[i].iter().copied());
    }
    pairs
}
