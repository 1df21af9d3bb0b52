//! Pawn captures and en passant. Both follow the reference implementation: the pawn capture is a
//! CNOT and basic en passant flips three squares under a recorded condition, so neither adds an
//! `i` phase; capture en passant uses iSWAPs into two fresh ancillas.

use qchess_core::{MoveVariant, Square};

use super::{After, Flow, Register};
use crate::ir::{Control, Gate, QubitRole};

impl Register {
    /// PAWN_CAPTURE (every variant alike): measure the source, m1 = occupied.
    pub(super) fn pawn_capture(&mut self, from: Square, to: Square) -> Flow {
        let probe = self.probe_square(from, true);
        self.branch(probe, After::PawnCapture { from, to })
    }

    /// After the source was found occupied: `CNOT(t -> s)`. The pawn leaves the source exactly
    /// where the target is occupied, and the target's qubit now stands for the pawn.
    pub(super) fn finish_pawn_capture(&mut self, from: Square, to: Square) {
        match self.classical_value(to) {
            Some(true) => self.set_classical(from, false),
            // No victim anywhere: the CNOT never fires.
            Some(false) => {}
            None => {
                let source = self.qubit(from);
                let target = self.qubit(to);
                self.emit(Gate::cx(target, source));
            }
        }
    }

    /// PAWN_EP. The captured pawn stands on the target's file and the source's rank. With the
    /// source and the victim classically full and the target classically empty the capture is
    /// classical whatever the variant (a measuring variant then counts as a certain m1).
    pub(super) fn en_passant(&mut self, from: Square, to: Square, variant: MoveVariant) -> Flow {
        let victim = en_passant_victim(from, to);
        if self.is_classical_full(from) && self.is_classical_empty(to) && self.is_classical_full(victim) {
            self.set_classical(from, false);
            self.set_classical(victim, false);
            self.set_classical(to, true);
            return Flow::classical(variant);
        }
        match variant {
            MoveVariant::Basic => {
                self.basic_en_passant(from, to, victim);
                Flow::Unmeasured
            }
            MoveVariant::Excluded => {
                let probe = self.probe_square(to, false);
                self.branch(probe, After::EnPassant { from, to, victim })
            }
            MoveVariant::Capture => {
                let probe = self.probe_square(from, true);
                self.branch(probe, After::EnPassantCapture { from, to, victim })
            }
        }
    }

    /// Basic en passant: a fresh record ancilla is set where the source and the victim are
    /// occupied and the target empty (only non-classical squares are controls), then it flips
    /// the source, the target and the victim. The record stays entangled.
    pub(super) fn basic_en_passant(&mut self, from: Square, to: Square, victim: Square) {
        if self.is_classical_empty(from) || self.is_classical_empty(victim) || self.is_classical_full(to) {
            // The condition can never hold: nothing happens.
            return;
        }
        let (source_known, target_known, victim_known) =
            (self.is_classical_full(from), self.is_classical_empty(to), self.is_classical_full(victim));
        if source_known && target_known && victim_known {
            self.set_classical(from, false);
            self.set_classical(victim, false);
            self.set_classical(to, true);
            return;
        }
        let (source, target, captured) = (self.qubit(from), self.qubit(to), self.qubit(victim));
        let mut controls = smallvec::SmallVec::<[Control; 3]>::new();
        if !source_known {
            controls.push(Control { qubit: source, on: true });
        }
        if !victim_known {
            controls.push(Control { qubit: captured, on: true });
        }
        if !target_known {
            controls.push(Control { qubit: target, on: false });
        }
        let record = self.ancilla(QubitRole::EnPassant);
        self.emit(Gate::x(record).with_controls(controls));
        self.emit(Gate::cx(record, source));
        self.emit(Gate::cx(record, target));
        self.emit(Gate::cx(record, captured));
    }

    /// After a capture en passant found its source occupied: the pawn takes the piece on the
    /// target if there is one, else the en passant victim if there is one:
    /// `X̄t-iSW(ep, a_ep); iSW(a_t, t); C_{a_t}-iSW(t, s); C_{a_ep}-iSW(t, s)`.
    pub(super) fn capture_en_passant(&mut self, from: Square, to: Square, victim: Square) {
        if let (Some(target_full), Some(victim_full)) = (self.classical_value(to), self.classical_value(victim)) {
            if target_full {
                self.set_classical(from, false);
            } else if victim_full {
                self.set_classical(from, false);
                self.set_classical(victim, false);
                self.set_classical(to, true);
            }
            return;
        }
        let (source, target, captured) = (self.qubit(from), self.qubit(to), self.qubit(victim));
        let victim_record = self.ancilla(QubitRole::Captured);
        let target_record = self.ancilla(QubitRole::Captured);
        self.iswap(captured, victim_record, 1.0, &[Control { qubit: target, on: false }]);
        self.iswap(target_record, target, 1.0, &[]);
        self.iswap(target, source, 1.0, &[Control { qubit: target_record, on: true }]);
        self.iswap(target, source, 1.0, &[Control { qubit: victim_record, on: true }]);
    }
}

/// The square of the pawn captured en passant: the target's file on the source's rank.
fn en_passant_victim(from: Square, to: Square) -> Square {
    Square::from_coords(to.file(), from.rank()).unwrap_or(to)
}
