//! Castling, as the reference implementation does it: the king moves classically; the rook moves
//! classically onto a classically empty square and by an iSWAP onto a quantum one; a queen-side
//! castle with a piece possibly on the b-file is controlled on that square being empty.

use qchess_core::{MoveType, MoveVariant, Square, TypedMove};

use super::{After, Flow, Probe, Register};
use crate::ir::{Control, QubitRole};

/// The squares of one castle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Castle {
    king_from: Square,
    king_to: Square,
    rook_from: Square,
    rook_to: Square,
    /// The queen-side b-file square when it is not classically empty: the castle is then
    /// controlled on it.
    blocker: Option<Square>,
}

impl Register {
    /// KS_CASTLE / QS_CASTLE. Errors name what is wrong with the geometry or variant.
    pub(super) fn castle(&mut self, mv: &TypedMove, from: Square, to: Square) -> Result<Flow, String> {
        let rank = from.rank();
        let on_rank = |file| Square::from_coords(file, rank).ok_or_else(|| "square off the board".to_owned());
        let (king_file, rook_from, rook_to, b_square) = match mv.move_type {
            MoveType::KsCastle => (6, on_rank(7)?, on_rank(5)?, None),
            _ => (2, on_rank(0)?, on_rank(3)?, Some(on_rank(1)?)),
        };
        if from.file() != 4 || to.file() != king_file || to.rank() != rank || !matches!(rank, 0 | 7) {
            return Err(
                "the king castles from the e-file to the g-file (king side) or c-file (queen side) of its back rank"
                    .to_owned(),
            );
        }
        let castle = Castle {
            king_from: from,
            king_to: to,
            rook_from,
            rook_to,
            blocker: b_square.filter(|&b| !self.is_classical_empty(b)),
        };
        match mv.variant {
            MoveVariant::Basic => {
                self.basic_castle(castle);
                Ok(Flow::Unmeasured)
            }
            MoveVariant::Excluded => Ok(self.excluded_castle(castle)),
            MoveVariant::Capture => Err("castling has no CAPTURE variant".to_owned()),
        }
    }

    fn basic_castle(&mut self, castle: Castle) {
        match castle.blocker {
            None if self.is_classical_empty(castle.rook_to) => self.classical_castle(castle),
            None => {
                // The rook target holds a rook in superposition: the king moves classically and
                // the iSWAP exchanges the rooks.
                self.unhook(castle.king_from, false);
                self.unhook(castle.king_to, true);
                self.jump_core(castle.rook_from, castle.rook_to, 1.0);
            }
            Some(blocker) => self.controlled_queen_side(castle, blocker),
        }
    }

    /// Excluded: the king's and rook's targets must be empty. A classically full one makes the
    /// castle fail with certainty; two quantum ones are measured together through a flag.
    fn excluded_castle(&mut self, castle: Castle) -> Flow {
        let (king_to, rook_to) = (castle.king_to, castle.rook_to);
        let probe = match (self.classical_value(king_to), self.classical_value(rook_to)) {
            (Some(true), _) | (_, Some(true)) => Probe::Certain(false),
            (None, None) => {
                let flag = self.compute_clear_flag(&[rook_to, king_to], QubitRole::Condition);
                self.probe_flag(flag)
            }
            (None, Some(false)) => self.probe_square(king_to, false),
            (Some(false), None) => self.probe_square(rook_to, false),
            (Some(false), Some(false)) => Probe::Certain(true),
        };
        self.branch(probe, After::Castle(castle))
    }

    /// After an excluded castle found both targets empty.
    pub(super) fn finish_castle(&mut self, castle: Castle) {
        match castle.blocker {
            None => self.classical_castle(castle),
            Some(blocker) => {
                self.unhook(castle.king_to, false);
                self.unhook(castle.rook_to, false);
                self.controlled_queen_side(castle, blocker);
            }
        }
    }

    fn classical_castle(&mut self, castle: Castle) {
        self.unhook(castle.king_from, false);
        self.unhook(castle.king_to, true);
        self.unhook(castle.rook_from, false);
        self.unhook(castle.rook_to, true);
    }

    /// `X̄b-iSW(a, d); X̄b-iSW(e, c)`: the castle happens where the b-file square is empty. With
    /// a classically full b-file square it never does.
    fn controlled_queen_side(&mut self, castle: Castle, blocker: Square) {
        if self.is_classical_full(blocker) {
            return;
        }
        let king_from = self.qubit(castle.king_from);
        let king_to = self.qubit(castle.king_to);
        let rook_from = self.qubit(castle.rook_from);
        let rook_to = self.qubit(castle.rook_to);
        let empty_b = Control { qubit: self.qubit(blocker), on: false };
        self.iswap(rook_from, rook_to, 1.0, &[empty_b]);
        self.iswap(king_from, king_to, 1.0, &[empty_b]);
    }
}
