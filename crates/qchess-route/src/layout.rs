//! Where logical qubits sit on the device, and how good each physical qubit is.

use crate::cost::Costs;
use crate::target::Target;
use crate::verify::SplitMix;

/// A partial map between logical and physical qubits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Physical qubit of each logical qubit, once placed.
    pub physical: Vec<Option<u32>>,
    /// Logical qubit on each physical qubit, if any.
    pub logical: Vec<Option<u32>>,
}

impl Layout {
    /// Nothing placed, `logical` logical and `physical` physical qubits.
    pub fn empty(logical: u32, physical: u32) -> Layout {
        Layout { physical: vec![None; logical as usize], logical: vec![None; physical as usize] }
    }

    /// Makes room for `logical` logical qubits.
    pub fn grow(&mut self, logical: u32) {
        if self.physical.len() < logical as usize {
            self.physical.resize(logical as usize, None);
        }
    }

    /// Puts logical `l` on the free physical `p`.
    pub fn place(&mut self, l: u32, p: u32) {
        self.physical[l as usize] = Some(p);
        self.logical[p as usize] = Some(l);
    }

    /// Exchanges whatever sits on physical `a` and `b`.
    pub fn swap(&mut self, a: u32, b: u32) {
        let (la, lb) = (self.logical[a as usize], self.logical[b as usize]);
        self.logical[a as usize] = lb;
        self.logical[b as usize] = la;
        if let Some(l) = la {
            self.physical[l as usize] = Some(b);
        }
        if let Some(l) = lb {
            self.physical[l as usize] = Some(a);
        }
    }

    /// Whether physical `p` holds no logical qubit.
    pub fn is_free(&self, p: u32) -> bool {
        self.logical[p as usize].is_none()
    }
}

/// A free physical qubit for a new logical qubit (never an excluded one): the best one nearest
/// `near` if given, else the one nearest the qubits already placed, else the best neighbourhood
/// on the device (one of the eight best, drawn, for seeded trials beyond the first). Nearness
/// is the cheapest path of [`Costs::distance`]; quality is [`Costs::quality`].
pub fn choose_free(
    target: &Target,
    layout: &Layout,
    costs: &Costs,
    near: Option<u32>,
    rng: &mut SplitMix,
    trial: usize,
) -> Option<u32> {
    let quality = costs.quality();
    let free = (0..target.num_qubits).filter(|&p| layout.is_free(p) && !target.is_excluded(p));
    let distance = |a: u32, b: u32| costs.distance(a, b).min(4096.0);
    if let Some(near) = near {
        return free.min_by(|&a, &b| {
            (distance(near, a) - quality[a as usize] * 1e-3)
                .total_cmp(&(distance(near, b) - quality[b as usize] * 1e-3))
        });
    }
    let placed: Vec<u32> = layout.physical.iter().flatten().copied().collect();
    if !placed.is_empty() {
        let cost = |p: u32| {
            placed.iter().map(|&q| distance(p, q)).sum::<f64>() / placed.len() as f64 - quality[p as usize] * 1e-3
        };
        return free.min_by(|&a, &b| cost(a).total_cmp(&cost(b)));
    }
    let region = |p: u32| quality[p as usize] + target.neighbours(p).iter().map(|&n| quality[n as usize]).sum::<f64>();
    let mut ranked: Vec<u32> = free.collect();
    ranked.sort_by(|&a, &b| region(b).total_cmp(&region(a)).then(a.cmp(&b)));
    let pick = if trial == 0 || ranked.is_empty() { 0 } else { rng.below(ranked.len().min(8)) };
    ranked.get(pick).copied()
}
