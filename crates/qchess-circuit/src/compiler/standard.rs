//! Jumps, slides, pawn steps and pawn two-steps, in their basic, excluded and capture variants.

use qchess_core::{MoveVariant, Square};

use super::register::Path;
use super::{After, Flow, Probe, Register};
use crate::ir::{Control, Gate, QubitRole};

impl Register {
    /// JUMP / PAWN_STEP. A classically full source and classically empty target move classically
    /// whatever the variant (a measuring variant then counts as a certain m1).
    pub(super) fn jump(&mut self, from: Square, to: Square, variant: MoveVariant) -> Flow {
        if self.is_classical_full(from) && self.is_classical_empty(to) {
            self.set_classical(from, false);
            self.set_classical(to, true);
            return Flow::classical(variant);
        }
        match variant {
            MoveVariant::Basic => {
                self.basic_jump(from, to);
                Flow::Unmeasured
            }
            MoveVariant::Excluded => {
                let probe = self.probe_square(to, false);
                self.branch(probe, After::Jump { from, to })
            }
            MoveVariant::Capture => {
                let probe = self.probe_square(from, true);
                self.branch(probe, After::CaptureJump { from, to })
            }
        }
    }

    /// `iSW(s, t)`. The source is certainly empty afterwards exactly when the target was
    /// classically empty, and is then unhooked. Onto a classically full target the iSWAP changes
    /// nothing where the source is occupied and moves the target's occupant back where it is not.
    pub(super) fn basic_jump(&mut self, from: Square, to: Square) {
        let target_was_empty = self.is_classical_empty(to);
        self.jump_core(from, to, 1.0);
        if target_was_empty {
            self.vacate(from);
        }
    }

    /// After a capture jump's measurement said the (now classical) source is occupied: the
    /// victim's qubit stays behind as the record of the captured piece and the attacker lands.
    pub(super) fn capture_jump(&mut self, from: Square, to: Square) {
        self.unhook(to, false);
        self.jump_core(from, to, 1.0);
        self.unhook(from, false);
    }

    /// SLIDE / PAWN_TWO_STEP. A clear path makes it a jump. A classically blocked path makes the
    /// basic variant a no-op and the measuring variants a certain m0: the move cannot happen, so
    /// nothing is measured.
    pub(super) fn slide(&mut self, from: Square, to: Square, variant: MoveVariant) -> Flow {
        let path = match self.path(from, to, None) {
            Path::Clear => return self.jump(from, to, variant),
            Path::Blocked if variant == MoveVariant::Basic => return Flow::Unmeasured,
            Path::Blocked => return Flow::Decided(false),
            Path::Quantum(path) => path.into_vec(),
        };
        match variant {
            MoveVariant::Basic => {
                self.controlled_slide(from, to, &path, 1.0);
                Flow::Unmeasured
            }
            MoveVariant::Excluded => {
                let probe = self.probe_square(to, false);
                self.branch(probe, After::Slide { from, to, path })
            }
            MoveVariant::Capture => self.begin_capture_slide(from, to, path),
        }
    }

    /// `iSWAP^power(s, t)` controlled on the quantum path squares being empty: an anti-control
    /// for one square, a computed and uncomputed path flag for more.
    pub(super) fn controlled_slide(&mut self, from: Square, to: Square, path: &[Square], power: f64) {
        let (source, target) = (self.qubit(from), self.qubit(to));
        if let [_] = path {
            let controls = self.clear_controls(path);
            self.iswap(source, target, power, &controls);
        } else {
            let flag = self.compute_clear_flag(path, QubitRole::Path);
            self.iswap(source, target, power, &[Control { qubit: flag, on: true }]);
            self.uncompute_clear_flag(path, flag);
        }
    }

    /// The capture slide's measurement: "source occupied and path clear". With a classically
    /// full source and one path square that square is measured (m1 = empty); otherwise the
    /// condition is computed into a fresh ancilla and measured.
    fn begin_capture_slide(&mut self, from: Square, to: Square, path: Vec<Square>) -> Flow {
        let probe = match (self.classical_value(from), path.as_slice()) {
            (Some(false), _) => Probe::Certain(false),
            (Some(true), &[only]) => self.probe_square(only, false),
            (source_value, _) => {
                let mut controls = smallvec::SmallVec::<[Control; 3]>::new();
                if source_value.is_none() {
                    controls.push(Control { qubit: self.qubit(from), on: true });
                }
                controls.extend(self.clear_controls(&path));
                let condition = self.ancilla(QubitRole::Condition);
                self.emit(Gate::x(condition).with_controls(controls));
                self.probe_flag(condition)
            }
        };
        self.branch(probe, After::CaptureSlide { from, to, path })
    }

    /// After a capture slide's measurement said m1: the source is occupied and the path empty.
    pub(super) fn capture_slide(&mut self, from: Square, to: Square, path: &[Square]) {
        self.unhook(to, false);
        self.jump_core(from, to, 1.0);
        self.vacate(from);
        // The measured condition said the path is empty: |0> wherever the outcome holds.
        for &square in path {
            self.vacate(square);
        }
    }
}
