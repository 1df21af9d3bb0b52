//! The whole pipeline: optimise the logical program, choose a layout (SABRE's forward and
//! backward passes over several seeded trials), route, translate, optimise again, synthesise,
//! and verify; plus [`Incremental`], which routes a growing circuit move by move.

use std::ops::Range;

use crate::error::RouteError;
use crate::layout::{Layout, choose_free, qubit_quality};
use crate::native::IsaOp;
use crate::optimize::optimize;
use crate::program::Program;
use crate::sabre::route;
use crate::target::Target;
use crate::translate::{cx_to_native, expand_swaps, lower_iswaps, synthesize};
use crate::verify::{Equivalence, SplitMix, check_equivalence, check_structure};

/// How hard to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileOptions {
    /// Seeded layout-and-routing trials; the best result is kept.
    pub trials: usize,
    /// Seed of the first trial.
    pub seed: u64,
    /// Check equivalence by simulation (when small enough) besides the structure.
    pub verify: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions { trials: 4, seed: 0, verify: true }
    }
}

/// A circuit compiled for a target.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The ISA operations over physical qubits.
    pub ops: Vec<IsaOp>,
    /// Physical qubits of the target.
    pub num_qubits: u32,
    /// Classical bits (as in the logical program).
    pub num_clbits: u32,
    /// Physical qubit of each logical qubit at the start (`None`: placed later, starting |0>).
    pub initial_layout: Vec<Option<u32>>,
    /// Physical qubit of each logical qubit at the end.
    pub final_layout: Vec<u32>,
    /// SWAPs inserted by routing.
    pub swaps: usize,
    /// What the equivalence check found.
    pub equivalence: Equivalence,
}

impl Compiled {
    /// Number of two-qubit gates.
    pub fn two_qubit_count(&self) -> usize {
        two_qubit_count(&self.ops)
    }

    /// Circuit depth: the longest chain of operations sharing qubits (measurements included).
    pub fn depth(&self) -> usize {
        depth(&self.ops, self.num_qubits)
    }
}

/// Number of two-qubit gates of `ops`.
pub fn two_qubit_count(ops: &[IsaOp]) -> usize {
    ops.iter().filter(|op| matches!(op, IsaOp::Two { .. })).count()
}

/// Depth of `ops` over `num_qubits` qubits.
pub fn depth(ops: &[IsaOp], num_qubits: u32) -> usize {
    let mut level = vec![0usize; num_qubits as usize];
    for op in ops {
        let next = op.qubits().map(|q| level[q as usize]).max().unwrap_or(0) + 1;
        op.qubits().for_each(|q| level[q as usize] = next);
    }
    level.into_iter().max().unwrap_or(0)
}

/// Compiles `logical` (CX and one-qubit gates over logical qubits) for `target`.
pub fn compile(logical: &Program, target: &Target, options: &CompileOptions) -> Result<Compiled, RouteError> {
    if logical.num_qubits > target.num_qubits {
        return Err(RouteError::TooSmall {
            needed: logical.num_qubits,
            available: target.num_qubits,
            target: target.name.clone(),
        });
    }
    let mut optimized = logical.clone();
    optimize(&mut optimized);
    let skeleton = Program {
        instrs: optimized.instrs.iter().filter(|i| i.is_two_qubit()).copied().collect(),
        ..optimized.clone()
    };
    let reversed = Program { instrs: skeleton.instrs.iter().rev().copied().collect(), ..skeleton.clone() };
    let quality = qubit_quality(target);
    let mut best: Option<Compiled> = None;
    for trial in 0..options.trials.max(1) {
        let mut rng = SplitMix(options.seed.wrapping_add(trial as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
        // SABRE layout: the layout a forward pass ends in starts a backward pass, whose end
        // starts the next forward pass, so early gates get the placement late gates want too.
        let empty = Layout::empty(logical.num_qubits, target.num_qubits);
        let mut layout = route(&skeleton, target, empty, &quality, &mut rng, trial)?.layout;
        for pass in 0..3 {
            let program = if pass % 2 == 0 { &reversed } else { &skeleton };
            layout = route(program, target, layout, &quality, &mut rng, trial)?.layout;
        }
        complete(&mut layout, target, &quality, &mut rng)?;
        let compiled = finish(&optimized, target, layout, &quality, &mut rng, trial)?;
        let better = best
            .as_ref()
            .is_none_or(|b| (compiled.two_qubit_count(), compiled.depth()) < (b.two_qubit_count(), b.depth()));
        if better {
            best = Some(compiled);
        }
    }
    let mut compiled = best.ok_or(RouteError::Internal("no trial ran"))?;
    check_structure(&compiled.ops, target).map_err(RouteError::Verification)?;
    if options.verify {
        compiled.equivalence =
            check_equivalence(logical, &compiled.ops, &compiled.initial_layout, &compiled.final_layout, options.seed)
                .map_err(RouteError::Verification)?;
    }
    Ok(compiled)
}

/// Places every logical qubit that has no place yet.
fn complete(layout: &mut Layout, target: &Target, quality: &[f64], rng: &mut SplitMix) -> Result<(), RouteError> {
    for l in 0..layout.physical.len() as u32 {
        if layout.physical[l as usize].is_none() {
            let p = choose_free(target, layout, quality, None, rng, 0).ok_or(RouteError::TooSmall {
                needed: layout.physical.len() as u32,
                available: target.num_qubits,
                target: target.name.clone(),
            })?;
            layout.place(l, p);
        }
    }
    Ok(())
}

/// Routes from `layout`, translates and optimises.
fn finish(
    logical: &Program,
    target: &Target,
    layout: Layout,
    quality: &[f64],
    rng: &mut SplitMix,
    trial: usize,
) -> Result<Compiled, RouteError> {
    let mut routed = route(logical, target, layout, quality, rng, trial)?;
    complete(&mut routed.layout, target, quality, rng)?;
    let ops = lower_routed(&mut routed.program, target)?;
    let final_layout = routed.layout.physical.iter().map(|p| p.unwrap_or(u32::MAX)).collect();
    Ok(Compiled {
        ops,
        num_qubits: target.num_qubits,
        num_clbits: logical.num_clbits,
        initial_layout: routed.initial,
        final_layout,
        swaps: routed.swaps,
        equivalence: Equivalence::Skipped,
    })
}

/// SWAPs into CX, CX into native gates, with the peephole passes between, then one-qubit
/// synthesis.
fn lower_routed(program: &mut Program, target: &Target) -> Result<Vec<IsaOp>, RouteError> {
    expand_swaps(program, target);
    lower_iswaps(program, target)?;
    optimize(program);
    cx_to_native(program, target)?;
    optimize(program);
    synthesize(program, target.basis)
}

/// Routes a circuit that grows move by move: each [`Incremental::extend`] routes only the new
/// instructions, from where the previous ones left the qubits, and appends their ISA operations;
/// what was compiled before never changes.
#[derive(Debug, Clone)]
pub struct Incremental {
    target: Target,
    quality: Vec<f64>,
    layout: Layout,
    logical: Program,
    ops: Vec<IsaOp>,
    swaps: usize,
    rng: SplitMix,
}

impl Incremental {
    /// Nothing routed yet.
    pub fn new(target: Target, seed: u64) -> Incremental {
        let quality = qubit_quality(&target);
        let layout = Layout::empty(0, target.num_qubits);
        Incremental {
            target,
            quality,
            layout,
            logical: Program::default(),
            ops: Vec::new(),
            swaps: 0,
            rng: SplitMix(seed),
        }
    }

    /// Routes `segment` (new logical instructions; its qubit count may have grown) and returns
    /// the range of the new operations in [`Incremental::ops`].
    pub fn extend(&mut self, segment: &Program) -> Result<Range<usize>, RouteError> {
        if segment.num_qubits > self.target.num_qubits {
            return Err(RouteError::TooSmall {
                needed: segment.num_qubits,
                available: self.target.num_qubits,
                target: self.target.name.clone(),
            });
        }
        let mut optimized = segment.clone();
        optimize(&mut optimized);
        let mut routed = route(&optimized, &self.target, self.layout.clone(), &self.quality, &mut self.rng, 0)?;
        let new_ops = lower_routed(&mut routed.program, &self.target)?;
        check_structure(&new_ops, &self.target).map_err(RouteError::Verification)?;
        self.layout = routed.layout;
        self.swaps += routed.swaps;
        self.logical.num_qubits = self.logical.num_qubits.max(segment.num_qubits);
        self.logical.num_clbits = self.logical.num_clbits.max(segment.num_clbits);
        self.logical.instrs.extend(segment.instrs.iter().copied());
        let start = self.ops.len();
        self.ops.extend(new_ops);
        Ok(start..self.ops.len())
    }

    /// Every operation routed so far.
    pub fn ops(&self) -> &[IsaOp] {
        &self.ops
    }

    /// The whole compiled circuit so far, its qubits all starting in |0>, with the logical qubits
    /// `measure` measured at the end into classical bits `first_clbit..`, checked by simulation
    /// against every segment given (when small enough).
    pub fn compiled(&self, seed: u64, measure: &[u32], first_clbit: u32) -> Result<Compiled, RouteError> {
        let initial_layout = vec![None; self.logical.num_qubits as usize];
        // Qubits never touched have no place: they are idle, so any free qubit will do.
        let mut layout = self.layout.clone();
        layout.grow(self.logical.num_qubits);
        let mut rng = SplitMix(seed);
        complete(&mut layout, &self.target, &self.quality, &mut rng)?;
        let final_layout: Vec<u32> = layout.physical.iter().map(|p| p.unwrap_or(u32::MAX)).collect();
        let mut ops = self.ops.clone();
        for (j, &l) in measure.iter().enumerate() {
            let qubit =
                *final_layout.get(l as usize).ok_or(RouteError::Internal("a measured qubit was never routed"))?;
            ops.push(IsaOp::Measure { qubit, clbit: first_clbit + j as u32 });
        }
        let equivalence = check_equivalence(&self.logical, &ops, &initial_layout, &final_layout, seed)
            .map_err(RouteError::Verification)?;
        Ok(Compiled {
            ops,
            num_qubits: self.target.num_qubits,
            num_clbits: self.logical.num_clbits.max(first_clbit + measure.len() as u32),
            initial_layout,
            final_layout,
            swaps: self.swaps,
            equivalence,
        })
    }
}
