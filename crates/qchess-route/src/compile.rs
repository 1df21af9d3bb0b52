//! The whole pipeline, pass by pass:
//!
//! 1. the logical program is optimised (one-qubit fusion, inverse pairs, two-qubit blocks
//!    resynthesised);
//! 2. broken qubits and couplers leave the target, and the circuit gets one connected part of
//!    what works ([`crate::usable`]);
//! 3. initial layouts: the cheapest placement of the circuit's interaction graph with every
//!    interacting pair on a coupler, when there is one ([`crate::vf2`]), else SABRE's forward and
//!    backward passes from seeded starting points, the trials on parallel threads;
//! 4. each layout is routed (SWAPs on the cheapest paths, [`crate::sabre`]), lowered to CX,
//!    two-qubit blocks resynthesised ([`crate::resynth`]), re-placed on cheaper qubits if the
//!    search finds some ([`crate::post_layout`]), translated to native gates;
//! 5. the trial with the highest estimated success probability (fewest two-qubit gates, then
//!    depth, on targets without a calibration) is kept, its structure checked against the whole
//!    target (no broken element used) and its equivalence simulated when small enough.
//!
//! [`Incremental`] routes a growing circuit move by move.

use crate::cost::Costs;
use crate::device::Device;
use crate::error::RouteError;
use crate::final_swaps::{RunCost, elide_final_swaps};
use crate::frames::merge_z_rotations;
use crate::iswap::rebuild_in_iswaps;
use crate::layout::{Layout, choose_free};
use crate::native::IsaOp;
use crate::optimize::optimize;
use crate::post_layout::{cheaper_placement, expected_cost, relabel};
use crate::program::{Instr, Program};
use crate::resynth::resynthesize;
use crate::sabre::route;
use crate::target::Target;
use crate::translate::{cx_to_native, expand_swaps, lower_iswaps, synthesize};
use crate::verify::{Equivalence, SplitMix, check_equivalence, check_structure};
use crate::vf2::{Pattern, place};

pub use crate::incremental::Incremental;

/// Search steps of the initial placement by interaction graph.
const LAYOUT_STEPS: usize = 20_000;

/// How many of the cheapest routings are re-placed, translated and scored exactly.
const FINISHED: usize = 3;

/// How hard to try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompileOptions {
    /// Seeded layout-and-routing trials; the best result is kept.
    pub trials: usize,
    /// Seed of the first trial.
    pub seed: u64,
    /// Check equivalence by simulation (when small enough) besides the structure.
    pub verify: bool,
    /// Threads the trials run on (0: one per core); the result does not depend on it.
    pub threads: usize,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions { trials: 6, seed: 0, verify: true, threads: 0 }
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
    /// The estimated success probability by the target's calibration (`None`: no calibration).
    pub esp: Option<f64>,
}

impl Compiled {
    /// Number of two-qubit gates.
    pub fn two_qubit_count(&self) -> usize {
        two_qubit_count(&self.ops)
    }

    /// Measures each logical qubit of `measurements` (`(qubit, clbit)`, as
    /// [`Program::take_measurements`] took them) where it ends, after every gate, and scores the
    /// result again by `target`'s calibration.
    pub fn measure_at_end(&mut self, measurements: &[(u32, u32)], target: &Target) -> Result<(), RouteError> {
        for &(qubit, clbit) in measurements {
            let physical = *self
                .final_layout
                .get(qubit as usize)
                .ok_or(RouteError::Internal("a measured qubit has no place in the final layout"))?;
            self.ops.push(IsaOp::Measure { qubit: physical, clbit });
            self.num_clbits = self.num_clbits.max(clbit + 1);
        }
        self.esp = target.estimated_success(&self.ops);
        Ok(())
    }

    /// Circuit depth: the longest chain of operations sharing qubits (measurements included).
    pub fn depth(&self) -> usize {
        depth(&self.ops, self.num_qubits)
    }

    /// Whether this result is better than `other`: a higher estimated success probability, else
    /// fewer two-qubit gates, then a smaller depth.
    fn better_than(&self, other: &Compiled) -> bool {
        let figures = |c: &Compiled| (c.two_qubit_count(), c.depth());
        match (self.esp, other.esp) {
            (Some(mine), Some(theirs)) if mine != theirs => mine > theirs,
            _ => figures(self) < figures(other),
        }
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

/// The interaction graph of a logical program: two-qubit gates per pair (in CX), one-qubit gates
/// and measurements per qubit.
fn interaction(program: &Program) -> Pattern {
    let mut pattern = Pattern::new(program.num_qubits);
    for instr in &program.instrs {
        match *instr {
            Instr::One { qubit, .. } => pattern.ones[qubit as usize] += 1.5,
            Instr::Measure { qubit, .. } => pattern.measures[qubit as usize] += 1.0,
            Instr::Cx { control: a, target: b } | Instr::Native { a, b, .. } => pattern.add_edge(a, b, 1.0),
            Instr::ISwap { a, b, .. } => pattern.add_edge(a, b, 2.0),
            Instr::Swap { a, b } => pattern.add_edge(a, b, 3.0),
            Instr::Reset { .. } => {}
        }
    }
    pattern
}

/// Compiles `logical` (CX and one-qubit gates over logical qubits) for `target` (made ready
/// here; see [`compile_on`] to make it ready once for many circuits).
pub fn compile(logical: &Program, target: &Target, options: &CompileOptions) -> Result<Compiled, RouteError> {
    if logical.num_qubits > target.num_qubits {
        return Err(RouteError::TooSmall {
            needed: logical.num_qubits,
            available: target.num_qubits,
            target: target.name.clone(),
        });
    }
    // A device with no working qubit at all is refused with the circuit's own size.
    let device = Device::new(target.clone())
        .map_err(|e| crate::usable::usable_part(target, logical.num_qubits).err().unwrap_or(e))?;
    compile_on(logical, &device, options)
}

/// Compiles `logical` for a target made ready: see the [module docs](self).
pub fn compile_on(logical: &Program, device: &Device, options: &CompileOptions) -> Result<Compiled, RouteError> {
    device.check_room(logical.num_qubits)?;
    let (target, costs) = (device.target(), device.costs());
    let device = device.usable();
    let mut optimized = logical.clone();
    optimize(&mut optimized);
    if resynthesize(&mut optimized) > 0 {
        optimize(&mut optimized);
    }
    let skeleton = Program {
        instrs: optimized.instrs.iter().filter(|i| i.is_two_qubit()).copied().collect(),
        ..optimized.clone()
    };
    let reversed = Program { instrs: skeleton.instrs.iter().rev().copied().collect(), ..skeleton.clone() };
    // Every interacting pair on a coupler: no SWAP at all, on the cheapest qubits found.
    let perfect = place(&interaction(&optimized), device, costs, f64::INFINITY, LAYOUT_STEPS).map(|(placement, _)| {
        let mut layout = Layout::empty(logical.num_qubits, device.num_qubits);
        placement.iter().enumerate().for_each(|(l, &p)| layout.place(l as u32, p));
        layout
    });
    // With one, SABRE's trials are skipped (as Qiskit skips SabreLayout when VF2Layout succeeds).
    let starts: Vec<(usize, Option<Layout>)> = match perfect {
        Some(layout) => vec![(0, Some(layout))],
        None => (0..options.trials.max(1)).map(|t| (t, None)).collect(),
    };
    let threads = if options.threads == 0 {
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    } else {
        options.threads
    };
    let mut candidates = parallel_map(starts, threads, |(trial, start)| {
        let mut rng = SplitMix(options.seed.wrapping_add(trial as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
        let layout = match start {
            Some(layout) => layout,
            None => {
                // SABRE layout: the layout a forward pass ends in starts a backward pass, whose
                // end starts the next forward pass, so early gates get the placement late gates
                // want too.
                let empty = Layout::empty(logical.num_qubits, device.num_qubits);
                let mut layout = route(&skeleton, device, empty, costs, &mut rng, trial)?.layout;
                for pass in 0..3 {
                    let program = if pass % 2 == 0 { &reversed } else { &skeleton };
                    layout = route(program, device, layout, costs, &mut rng, trial)?.layout;
                }
                complete(&mut layout, device, costs, &mut rng)?;
                layout
            }
        };
        route_trial(&optimized, device, costs, layout, &mut rng, trial)
    })
    .into_iter()
    .collect::<Result<Vec<Candidate>, RouteError>>()?;
    // The cheapest routings by the calibration (the fewest CX without one) are finished: placed
    // again on cheaper qubits when the search finds some, translated, and scored exactly.
    candidates.sort_by(|x, y| x.expected.total_cmp(&y.expected));
    candidates.truncate(FINISHED);
    let finished =
        parallel_map(candidates, threads, |candidate| finish(candidate, optimized.num_clbits, target, device, costs));
    let mut best: Option<Compiled> = None;
    for compiled in finished {
        let compiled = compiled?;
        if best.as_ref().is_none_or(|b| compiled.better_than(b)) {
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

/// `work` applied to every item, on up to `threads` threads, the results in the items' order.
fn parallel_map<T: Send, R: Send>(items: Vec<T>, threads: usize, work: impl Fn(T) -> R + Sync) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.into_iter().map(work).collect();
    }
    let mut shares: Vec<Vec<(usize, T)>> = (0..threads).map(|_| Vec::new()).collect();
    for (index, item) in items.into_iter().enumerate() {
        shares[index % threads].push((index, item));
    }
    let work = &work;
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|share| scope.spawn(move || share.into_iter().map(|(i, item)| (i, work(item))).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    });
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}

/// Places every logical qubit that has no place yet.
pub(crate) fn complete(
    layout: &mut Layout,
    device: &Target,
    costs: &Costs,
    rng: &mut SplitMix,
) -> Result<(), RouteError> {
    for l in 0..layout.physical.len() as u32 {
        if layout.physical[l as usize].is_none() {
            let p = choose_free(device, layout, costs, None, rng, 0).ok_or(RouteError::TooSmall {
                needed: layout.physical.len() as u32,
                available: device.num_qubits,
                target: device.name.clone(),
            })?;
            layout.place(l, p);
        }
    }
    Ok(())
}

/// One trial's routing, in CX form.
struct Candidate {
    program: Program,
    initial: Vec<Option<u32>>,
    final_layout: Vec<u32>,
    swaps: usize,
    /// The calibrated cost it is expected to have where it is (its CX count and depth, scaled
    /// down to break ties, without a calibration).
    expected: f64,
}

/// Routes from `layout` and lowers to CX with two-qubit blocks resynthesised.
fn route_trial(
    logical: &Program,
    device: &Target,
    costs: &Costs,
    layout: Layout,
    rng: &mut SplitMix,
    trial: usize,
) -> Result<Candidate, RouteError> {
    let mut routed = route(logical, device, layout, costs, rng, trial)?;
    complete(&mut routed.layout, device, costs, rng)?;
    lower_to_cx(&mut routed.program, device)?;
    let mut final_layout: Vec<u32> = routed.layout.physical.iter().map(|p| p.unwrap_or(u32::MAX)).collect();
    if elide_final_swaps(&mut routed.program, &mut final_layout, RunCost::of(device.basis)) > 0 {
        optimize(&mut routed.program);
    }
    let expected = if device.is_calibrated() {
        let holding: Vec<u32> = routed.initial.iter().flatten().chain(&final_layout).copied().collect();
        expected_cost(&routed.program, &holding, device, costs)
    } else {
        routed.program.two_qubit_count() as f64
    };
    Ok(Candidate { program: routed.program, initial: routed.initial, final_layout, swaps: routed.swaps, expected })
}

/// Re-places a routing on cheaper qubits when the search finds some, and translates it to native
/// gates; the estimated success probability is by `target`'s calibration.
fn finish(
    candidate: Candidate,
    num_clbits: u32,
    target: &Target,
    device: &Target,
    costs: &Costs,
) -> Result<Compiled, RouteError> {
    let Candidate { mut program, mut initial, mut final_layout, swaps, .. } = candidate;
    if target.is_calibrated() {
        // The search scores what the CX form will cost; only the cheaper placement is lowered.
        let holding: Vec<u32> = initial.iter().flatten().chain(&final_layout).copied().collect();
        if let Some(map) = cheaper_placement(&program, &holding, device, costs) {
            (program, initial, final_layout) = relabel(&program, &initial, &final_layout, &map);
        }
    }
    let ops = to_native(program, device)?;
    Ok(Compiled {
        esp: target.estimated_success(&ops),
        ops,
        num_qubits: target.num_qubits,
        num_clbits,
        initial_layout: initial,
        final_layout,
        swaps,
        equivalence: Equivalence::Skipped,
    })
}

/// SWAPs into CX, iSWAP powers lowered, with the peephole passes and two-qubit block
/// resynthesis.
pub(crate) fn lower_to_cx(program: &mut Program, device: &Target) -> Result<(), RouteError> {
    expand_swaps(program, device);
    lower_iswaps(program, device)?;
    optimize(program);
    if resynthesize(program) > 0 {
        optimize(program);
    }
    Ok(())
}

/// CX into native gates (on iSWAP targets, runs of CX on a pair rebuilt in iSWAPs first), the
/// peephole passes, then one-qubit synthesis (and, where Z rotations are frame changes, Z
/// rotations moved late and merged).
pub(crate) fn to_native(mut program: Program, device: &Target) -> Result<Vec<IsaOp>, RouteError> {
    if RunCost::of(device.basis) == RunCost::ISwap {
        rebuild_in_iswaps(&mut program);
    }
    cx_to_native(&mut program, device)?;
    optimize(&mut program);
    let ops = synthesize(&program, device.basis)?;
    Ok(if device.basis.virtual_z() { merge_z_rotations(&ops, device.num_qubits) } else { ops })
}
