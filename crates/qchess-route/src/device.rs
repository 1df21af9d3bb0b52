//! A target made ready for routing, once: broken elements removed and the largest working part
//! kept ([`crate::usable`]), and its cost tables ([`crate::cost`]). Making one takes longer than
//! routing a small circuit, so callers that compile many circuits for one target make it once
//! (as a transpiler is handed a backend whose target is already built).

use crate::cost::Costs;
use crate::error::RouteError;
use crate::target::Target;
use crate::usable::usable_part;

/// See the [module docs](self).
#[derive(Debug, Clone)]
pub struct Device {
    target: Target,
    usable: Target,
    costs: Costs,
    room: u32,
}

impl Device {
    /// `target` made ready; fails only when no qubit of it works.
    pub fn new(target: Target) -> Result<Device, RouteError> {
        let usable = usable_part(&target, 1)?;
        let costs = Costs::new(&usable);
        let room = (0..usable.num_qubits).filter(|&q| !usable.is_excluded(q)).count() as u32;
        Ok(Device { target, usable, costs, room })
    }

    /// The whole target, as described (broken elements included).
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The part routing uses: working couplers only, every other qubit excluded.
    pub fn usable(&self) -> &Target {
        &self.usable
    }

    /// The cost tables of the usable part.
    pub fn costs(&self) -> &Costs {
        &self.costs
    }

    /// Checks that a circuit of `needed` qubits fits the whole target and its usable part.
    pub fn check_room(&self, needed: u32) -> Result<(), RouteError> {
        if needed > self.target.num_qubits {
            return Err(RouteError::TooSmall {
                needed,
                available: self.target.num_qubits,
                target: self.target.name.clone(),
            });
        }
        if needed > self.room {
            // Fails, with the sizes.
            usable_part(&self.target, needed)?;
        }
        Ok(())
    }
}
