//! Where each qubit lives in a basis-state key.
//!
//! A key is a `u128`. The low 64 positions are addressed explicitly (the local board puts each
//! square's occupancy at the square's index); ancillas go to the high 64 positions. When a qubit
//! is retired while still entangled, its bit stays in the key as a *branch label*: nothing ever
//! acts on it again, it only keeps apart branches that can no longer interfere.

use qchess_circuit::ir::Qubit;

use super::SimError;

const NOT_LIVE: u8 = u8::MAX;
/// The owner of a position no live qubit holds.
const NO_OWNER: u32 = u32::MAX;
const HIGH: u128 = !(u64::MAX as u128);

/// Positions of live qubits and branch labels.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Layout {
    /// Position of each qubit by index, `NOT_LIVE` if it is not in the state.
    position: Vec<u8>,
    /// The index of the qubit at each position, `NO_OWNER` where none is live: four bytes a
    /// position rather than an `Option`'s eight, as undo snapshots copy it with every state.
    owner: Vec<u32>,
    /// Positions held by live qubits.
    live: u128,
    /// Positions held by branch labels.
    labels: u128,
}

impl Clone for Layout {
    fn clone(&self) -> Layout {
        Layout { position: self.position.clone(), owner: self.owner.clone(), live: self.live, labels: self.labels }
    }

    /// Copies into the storage already held.
    fn clone_from(&mut self, source: &Layout) {
        self.position.clone_from(&source.position);
        self.owner.clone_from(&source.owner);
        self.live = source.live;
        self.labels = source.labels;
    }
}

impl Layout {
    pub(super) fn new() -> Layout {
        Layout { position: Vec::new(), owner: vec![NO_OWNER; 128], live: 0, labels: 0 }
    }

    /// The position of a live qubit.
    pub(super) fn position(&self, qubit: Qubit) -> Result<u8, SimError> {
        match self.position.get(qubit.index()) {
            Some(&p) if p != NOT_LIVE => Ok(p),
            _ => Err(SimError::UnknownQubit(qubit)),
        }
    }

    /// The live qubit at a position.
    pub(super) fn owner(&self, position: u8) -> Option<Qubit> {
        Some(self.owner[usize::from(position)]).filter(|&index| index != NO_OWNER).map(Qubit)
    }

    pub(super) fn live_mask(&self) -> u128 {
        self.live
    }

    pub(super) fn labels(&self) -> u128 {
        self.labels
    }

    /// Live qubits with their positions, in position order.
    pub(super) fn live(&self) -> impl Iterator<Item = (Qubit, u8)> + '_ {
        self.owner.iter().enumerate().filter(|&(_, &q)| q != NO_OWNER).map(|(p, &q)| (Qubit(q), p as u8))
    }

    pub(super) fn is_free(&self, position: u8) -> bool {
        (self.live | self.labels) & (1u128 << position) == 0
    }

    /// The lowest free high position, if any.
    pub(super) fn free_high(&self) -> Option<u8> {
        let free = !(self.live | self.labels) & HIGH;
        (free != 0).then(|| free.trailing_zeros() as u8)
    }

    pub(super) fn place(&mut self, qubit: Qubit, position: u8) -> Result<(), SimError> {
        // The last index stands for "no owner"; no circuit gets that far.
        if qubit.0 == NO_OWNER {
            return Err(SimError::UnknownQubit(qubit));
        }
        if self.position(qubit).is_ok() {
            return Err(SimError::QubitExists(qubit));
        }
        if !self.is_free(position) {
            return Err(SimError::PositionTaken { position });
        }
        if self.position.len() <= qubit.index() {
            self.position.resize(qubit.index() + 1, NOT_LIVE);
        }
        self.position[qubit.index()] = position;
        self.owner[usize::from(position)] = qubit.0;
        self.live |= 1u128 << position;
        Ok(())
    }

    /// Removes a live qubit; its position becomes free.
    pub(super) fn remove(&mut self, qubit: Qubit) -> Result<u8, SimError> {
        let position = self.position(qubit)?;
        self.position[qubit.index()] = NOT_LIVE;
        self.owner[usize::from(position)] = NO_OWNER;
        self.live &= !(1u128 << position);
        Ok(position)
    }

    pub(super) fn add_label(&mut self, position: u8) {
        self.labels |= 1u128 << position;
    }

    /// Replaces all label positions by `positions`.
    pub(super) fn set_labels(&mut self, positions: u128) {
        self.labels = positions;
    }
}
