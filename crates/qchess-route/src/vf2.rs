//! Placing a graph of interacting qubits onto the device so that every interacting pair is
//! coupled, at the least calibrated cost (the idea of Qiskit's VF2Layout and VF2PostLayout: a
//! subgraph monomorphism search, each match scored by error rates).
//!
//! The pattern is a graph over circuit qubits: an edge per interacting pair weighted by its
//! two-qubit gate count, and per qubit its one-qubit gate and measurement counts. A match maps
//! each pattern qubit to its own working device qubit with every edge on a coupler; its cost is
//! `sum(count * -ln(1 - e))` over the gates and measurements it places ([`crate::cost`]), so
//! the cheapest match has the highest estimated success probability. The search places the
//! qubits of each connected part of the pattern breadth first, each next to an already placed
//! neighbour, tries the cheapest candidates first, and cuts every branch whose cost so far plus
//! a lower bound on the rest reaches the best found; it stops after a fixed number of steps, so
//! its answer is the best match found, not always the best there is. Qubits without edges go to
//! the cheapest free qubits last.

use crate::cost::Costs;
use crate::target::Target;

/// What is to be placed: see the [module docs](self).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pattern {
    /// Interacting pairs of pattern qubits and their two-qubit gate counts.
    pub edges: Vec<(u32, u32, f64)>,
    /// One-qubit gate count of each pattern qubit.
    pub ones: Vec<f64>,
    /// Measurement count of each pattern qubit.
    pub measures: Vec<f64>,
}

impl Pattern {
    /// An empty pattern over `n` qubits.
    pub fn new(n: u32) -> Pattern {
        Pattern { edges: Vec::new(), ones: vec![0.0; n as usize], measures: vec![0.0; n as usize] }
    }

    /// Adds `count` two-qubit gates on `a` and `b`.
    pub fn add_edge(&mut self, a: u32, b: u32, count: f64) {
        let (a, b) = (a.min(b), a.max(b));
        match self.edges.iter_mut().find(|e| (e.0, e.1) == (a, b)) {
            Some(edge) => edge.2 += count,
            None => self.edges.push((a, b, count)),
        }
    }

    /// The cost of placing pattern qubit `p` on `t`, its edges aside.
    fn node_cost(&self, costs: &Costs, p: usize, t: u32) -> f64 {
        self.ones[p] * costs.one_qubit[t as usize] + self.measures[p] * costs.readout[t as usize]
    }

    /// The cost of a whole placement (`placement[p]` is pattern qubit `p`'s device qubit);
    /// infinite when an edge is not on a coupler.
    pub fn cost(&self, costs: &Costs, placement: &[u32]) -> f64 {
        let nodes: f64 = (0..self.ones.len()).map(|p| self.node_cost(costs, p, placement[p])).sum();
        let edges: f64 =
            self.edges.iter().map(|&(a, b, w)| w * costs.gate(placement[a as usize], placement[b as usize])).sum();
        nodes + edges
    }
}

/// The search state of one connected part.
struct Search<'a> {
    pattern: &'a Pattern,
    target: &'a Target,
    costs: &'a Costs,
    /// Pattern qubits in the order they are placed.
    order: Vec<u32>,
    /// For each position in `order`, the earlier-placed neighbours and their edge weights.
    earlier: Vec<Vec<(u32, f64)>>,
    /// Pattern degrees.
    degree: Vec<usize>,
    /// A lower bound on the cost of the qubits from each position of `order` on.
    rest: Vec<f64>,
    placed: Vec<Option<u32>>,
    used: Vec<bool>,
    best: Option<(Vec<u32>, f64)>,
    /// Candidate lists, one per depth, kept between calls.
    buffers: Vec<Vec<(f64, u32)>>,
    bound: f64,
    steps: usize,
    limit: usize,
}

impl Search<'_> {
    fn run(&mut self, depth: usize, so_far: f64) {
        if self.steps >= self.limit {
            return;
        }
        self.steps += 1;
        if depth == self.order.len() {
            if so_far < self.bound {
                self.bound = so_far;
                let found = self.order.iter().map(|&p| self.placed[p as usize].unwrap_or(u32::MAX)).collect();
                self.best = Some((found, so_far));
            }
            return;
        }
        let p = self.order[depth];
        let mut scored = std::mem::take(&mut self.buffers[depth]);
        scored.clear();
        let parent = self.earlier[depth].first().and_then(|&(w, _)| self.placed[w as usize]);
        let all: Vec<u32>;
        let candidates: &[u32] = match parent {
            Some(t) => self.target.neighbours(t),
            None => {
                all = (0..self.target.num_qubits).collect();
                &all
            }
        };
        'candidates: for &t in candidates {
            if self.used[t as usize]
                || self.target.is_excluded(t)
                || self.target.neighbours(t).len() < self.degree[p as usize]
            {
                continue;
            }
            let mut cost = self.pattern.node_cost(self.costs, p as usize, t);
            for &(w, weight) in &self.earlier[depth] {
                let gate = self.placed[w as usize].map_or(f64::INFINITY, |u| self.costs.gate(t, u));
                if !gate.is_finite() {
                    continue 'candidates;
                }
                cost += weight * gate;
            }
            scored.push((cost, t));
        }
        scored.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        for &(cost, t) in &scored {
            if so_far + cost + self.rest[depth + 1] >= self.bound || self.steps >= self.limit {
                break;
            }
            self.placed[p as usize] = Some(t);
            self.used[t as usize] = true;
            self.run(depth + 1, so_far + cost);
            self.placed[p as usize] = None;
            self.used[t as usize] = false;
        }
        self.buffers[depth] = scored;
    }
}

/// The cheapest placement of `pattern` found within `limit` search steps (see the
/// [module docs](self)) whose cost is below `bound`, with its cost; `None` when none is found.
pub fn place(pattern: &Pattern, target: &Target, costs: &Costs, bound: f64, limit: usize) -> Option<(Vec<u32>, f64)> {
    let n = pattern.ones.len();
    let mut adjacency: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
    for &(a, b, w) in &pattern.edges {
        adjacency[a as usize].push((b, w));
        adjacency[b as usize].push((a, w));
    }
    let degree: Vec<usize> = adjacency.iter().map(Vec::len).collect();
    // The cheapest a gate, a one-qubit gate and a measurement can be anywhere: the lower bound.
    let usable: Vec<u32> = (0..target.num_qubits).filter(|&t| !target.is_excluded(t)).collect();
    let cheapest_gate = usable
        .iter()
        .flat_map(|&t| target.neighbours(t).iter().map(move |&u| (t, u)))
        .map(|(t, u)| costs.gate(t, u))
        .fold(f64::INFINITY, f64::min);
    let cheapest_one = usable.iter().map(|&t| costs.one_qubit[t as usize]).fold(f64::INFINITY, f64::min);
    let cheapest_read = usable.iter().map(|&t| costs.readout[t as usize]).fold(f64::INFINITY, f64::min);
    let floor = |p: usize, edges_after: f64| {
        pattern.ones[p] * cheapest_one.min(1e9) + pattern.measures[p] * cheapest_read.min(1e9) + edges_after
    };
    let mut placed_all: Vec<Option<u32>> = vec![None; n];
    let mut used = vec![false; target.num_qubits as usize];
    let mut total = 0.0;
    // Connected parts with edges, largest first.
    let mut seen = vec![false; n];
    let mut parts: Vec<Vec<u32>> = Vec::new();
    for start in 0..n {
        if seen[start] || degree[start] == 0 {
            continue;
        }
        seen[start] = true;
        let mut part = vec![start as u32];
        let mut i = 0;
        while i < part.len() {
            for &(next, _) in &adjacency[part[i] as usize] {
                if !seen[next as usize] {
                    seen[next as usize] = true;
                    part.push(next);
                }
            }
            i += 1;
        }
        parts.push(part);
    }
    parts.sort_by_key(|part| std::cmp::Reverse(part.len()));
    for part in parts {
        // Breadth first from the busiest qubit.
        let root = *part.iter().max_by(|&&x, &&y| {
            degree[x as usize]
                .cmp(&degree[y as usize])
                .then(pattern.ones[y as usize].total_cmp(&pattern.ones[x as usize]))
        })?;
        let mut order = vec![root];
        let mut in_order = vec![false; n];
        in_order[root as usize] = true;
        let mut i = 0;
        while i < order.len() {
            let mut next: Vec<(u32, f64)> =
                adjacency[order[i] as usize].iter().copied().filter(|&(q, _)| !in_order[q as usize]).collect();
            next.sort_by(|x, y| degree[y.0 as usize].cmp(&degree[x.0 as usize]).then(x.0.cmp(&y.0)));
            for (q, _) in next {
                if !in_order[q as usize] {
                    in_order[q as usize] = true;
                    order.push(q);
                }
            }
            i += 1;
        }
        let position: Vec<Option<usize>> = {
            let mut position = vec![None; n];
            order.iter().enumerate().for_each(|(k, &p)| position[p as usize] = Some(k));
            position
        };
        let earlier: Vec<Vec<(u32, f64)>> = order
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                adjacency[p as usize]
                    .iter()
                    .copied()
                    .filter(|&(q, _)| position[q as usize].is_some_and(|j| j < k))
                    .collect()
            })
            .collect();
        let mut rest = vec![0.0; order.len() + 1];
        for k in (0..order.len()).rev() {
            let edges: f64 = earlier[k].iter().map(|&(_, w)| w).sum::<f64>() * cheapest_gate.min(1e9);
            rest[k] = rest[k + 1] + floor(order[k] as usize, edges);
        }
        let mut search = Search {
            pattern,
            target,
            costs,
            order,
            earlier,
            degree: degree.clone(),
            rest,
            placed: placed_all.clone(),
            used: used.clone(),
            best: None,
            buffers: vec![Vec::new(); part.len()],
            bound: bound - total,
            steps: 0,
            limit,
        };
        search.run(0, 0.0);
        let (found, cost) = search.best?;
        for (&p, &t) in search.order.iter().zip(&found) {
            placed_all[p as usize] = Some(t);
            used[t as usize] = true;
        }
        total += cost;
    }
    // Qubits without edges: the cheapest free qubits, the busiest pattern qubits first.
    let mut lonely: Vec<usize> = (0..n).filter(|&p| degree[p] == 0).collect();
    lonely.sort_by(|&x, &y| {
        let weight = |p: usize| pattern.ones[p] + 10.0 * pattern.measures[p];
        weight(y).total_cmp(&weight(x)).then(x.cmp(&y))
    });
    for p in lonely {
        let t = usable.iter().copied().filter(|&t| !used[t as usize]).min_by(|&x, &y| {
            pattern.node_cost(costs, p, x).total_cmp(&pattern.node_cost(costs, p, y)).then(x.cmp(&y))
        })?;
        used[t as usize] = true;
        placed_all[p] = Some(t);
        total += pattern.node_cost(costs, p, t);
    }
    if total >= bound {
        return None;
    }
    placed_all.into_iter().collect::<Option<Vec<u32>>>().map(|placement| (placement, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_goes_on_the_best_couplers_and_a_triangle_does_not_fit_a_grid() {
        // A line of 5 whose couplers get better towards the end.
        let text = r#"{"name": "graded", "qubits": 5, "basis": "cz", "coupling": [[0, 1], [1, 2], [2, 3], [3, 4]],
                       "pair_errors": [[0, 1, 0.05], [1, 2, 0.02], [2, 3, 0.01], [3, 4, 0.001]]}"#;
        let graded = Target::from_json(text, "graded").expect("valid");
        let costs = Costs::new(&graded);
        let mut pair = Pattern::new(3);
        pair.add_edge(0, 1, 10.0);
        let (placement, cost) = place(&pair, &graded, &costs, f64::INFINITY, 10_000).expect("fits");
        assert!([[3, 4], [4, 3]].contains(&[placement[0], placement[1]]), "{placement:?}");
        assert!((cost - 10.0 * -(0.999f64).ln()).abs() < 1e-12);
        assert!(!placement[..2].contains(&placement[2]), "the lonely qubit gets its own");
        assert!(place(&pair, &graded, &costs, cost, 10_000).is_none(), "nothing is cheaper than the best");
        let mut triangle = Pattern::new(3);
        for (a, b) in [(0, 1), (1, 2), (2, 0)] {
            triangle.add_edge(a, b, 1.0);
        }
        let grid = Target::resolve("grid:3x3").expect("preset");
        assert!(place(&triangle, &grid, &Costs::new(&grid), f64::INFINITY, 100_000).is_none());
    }
}
