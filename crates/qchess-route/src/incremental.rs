//! Routing a circuit that grows move by move: each [`Incremental::extend`] routes only the new
//! instructions, from where the previous ones left the qubits, and appends their ISA operations;
//! what was compiled before never changes.

use std::ops::Range;

use crate::compile::{Compiled, complete, lower_to_cx, to_native};
use crate::device::Device;
use crate::error::RouteError;
use crate::layout::Layout;
use crate::native::IsaOp;
use crate::optimize::optimize;
use crate::program::Program;
use crate::sabre::route;
use crate::target::Target;
use crate::verify::{SplitMix, check_equivalence, check_structure};

/// Routes a circuit that grows move by move: each [`Incremental::extend`] routes only the new
/// instructions, from where the previous ones left the qubits, and appends their ISA operations;
/// what was compiled before never changes. Broken qubits and couplers are left out, and the
/// circuit stays in the largest connected part of what works (its final size is not known in
/// advance).
#[derive(Debug, Clone)]
pub struct Incremental {
    target: Target,
    device: Result<Device, RouteError>,
    layout: Layout,
    logical: Program,
    ops: Vec<IsaOp>,
    swaps: usize,
    rng: SplitMix,
}

impl Incremental {
    /// Nothing routed yet.
    pub fn new(target: Target, seed: u64) -> Incremental {
        let device = Device::new(target.clone());
        let layout = Layout::empty(0, target.num_qubits);
        Incremental {
            target,
            device,
            layout,
            logical: Program::default(),
            ops: Vec::new(),
            swaps: 0,
            rng: SplitMix(seed),
        }
    }

    /// The target made ready, if `needed` qubits fit its working part.
    fn device(&self, needed: u32) -> Result<&Device, RouteError> {
        let device = self.device.as_ref().map_err(Clone::clone)?;
        device.check_room(needed)?;
        Ok(device)
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
        let device = self.device(segment.num_qubits)?;
        let mut optimized = segment.clone();
        optimize(&mut optimized);
        let mut rng = self.rng.clone();
        let mut routed = route(&optimized, device.usable(), self.layout.clone(), device.costs(), &mut rng, 0)?;
        lower_to_cx(&mut routed.program, device.usable())?;
        let new_ops = to_native(routed.program, device.usable())?;
        self.rng = rng;
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
        let device = self.device(self.logical.num_qubits)?;
        let initial_layout = vec![None; self.logical.num_qubits as usize];
        // Qubits never touched have no place: they are idle, so any free qubit will do.
        let mut layout = self.layout.clone();
        layout.grow(self.logical.num_qubits);
        let mut rng = SplitMix(seed);
        complete(&mut layout, device.usable(), device.costs(), &mut rng)?;
        let final_layout: Vec<u32> = layout.physical.iter().map(|p| p.unwrap_or(u32::MAX)).collect();
        let mut ops = self.ops.clone();
        for (j, &l) in measure.iter().enumerate() {
            let qubit =
                *final_layout.get(l as usize).ok_or(RouteError::Internal("a measured qubit was never routed"))?;
            ops.push(IsaOp::Measure { qubit, clbit: first_clbit + j as u32 });
        }
        check_structure(&ops, &self.target).map_err(RouteError::Verification)?;
        let equivalence = check_equivalence(&self.logical, &ops, &initial_layout, &final_layout, seed)
            .map_err(RouteError::Verification)?;
        Ok(Compiled {
            esp: self.target.estimated_success(&ops),
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
