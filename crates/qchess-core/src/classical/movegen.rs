//! Legal move generation: checkers and pins first, so every generated move is legal.

use super::position::{bit, bits, square};
use super::{ClassicalMove, ClassicalMoveKind, ClassicalPosition, MoveList, attacks};
use crate::{CastlingSide, Color, Role, Square};

/// Ranks 1 and 8, where pawns promote.
const PROMOTION_RANKS: u64 = 0xFF00_0000_0000_00FF;

impl ClassicalPosition {
    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::default();
        self.generate(&mut moves);
        moves
    }

    fn generate(&self, moves: &mut MoveList) {
        let us = self.turn;
        let them = !us;
        let ours = self.by_color[us as usize];
        let theirs = self.by_color[them as usize];
        let occupied = ours | theirs;
        let king = self.king_square(us);
        let checkers = self.attackers_to(king, occupied) & theirs;

        // The king may not step along a checking ray, so attacks are seen through it.
        let without_king = occupied ^ 1 << king;
        for to in bits(attacks::KING[king] & !ours) {
            if self.attackers_to(to as usize, without_king) & theirs == 0 {
                push(moves, king as u32, to, ClassicalMoveKind::Normal);
            }
        }
        if checkers.count_ones() > 1 {
            return;
        }
        // Outside check any square not ours; in check, capture the checker or block.
        let targets = match checkers {
            0 => !ours,
            _ => attacks::between(king, checkers.trailing_zeros() as usize) | checkers,
        };
        let pinned = self.pinned(king, us);
        let pin_ray = |from: usize| if pinned & 1 << from != 0 { attacks::line(king, from) } else { !0 };

        for from in bits(self.pieces(us, Role::Knight) & !pinned) {
            for to in bits(attacks::KNIGHT[from as usize] & targets) {
                push(moves, from, to, ClassicalMoveKind::Normal);
            }
        }
        let queens = self.pieces(us, Role::Queen);
        for from in bits(self.pieces(us, Role::Bishop) | queens) {
            let reach = attacks::bishop(from as usize, occupied) & targets & pin_ray(from as usize);
            for to in bits(reach) {
                push(moves, from, to, ClassicalMoveKind::Normal);
            }
        }
        for from in bits(self.pieces(us, Role::Rook) | queens) {
            let reach = attacks::rook(from as usize, occupied) & targets & pin_ray(from as usize);
            for to in bits(reach) {
                push(moves, from, to, ClassicalMoveKind::Normal);
            }
        }
        self.pawn_moves(moves, king, targets, &pin_ray);
        if checkers == 0 {
            self.castles(moves, king);
        }
    }

    /// Our pieces that alone stand between our king and an enemy slider aimed at it.
    fn pinned(&self, king: usize, us: Color) -> u64 {
        let them = !us;
        let occupied = self.occupied();
        let rook_like = self.pieces(them, Role::Rook) | self.pieces(them, Role::Queen);
        let bishop_like = self.pieces(them, Role::Bishop) | self.pieces(them, Role::Queen);
        let snipers = (attacks::rook(king, 0) & rook_like) | (attacks::bishop(king, 0) & bishop_like);
        let mut pinned = 0;
        for sniper in bits(snipers) {
            let blockers = attacks::between(king, sniper as usize) & occupied;
            if blockers.count_ones() == 1 {
                pinned |= blockers & self.by_color[us as usize];
            }
        }
        pinned
    }

    fn pawn_moves(&self, moves: &mut MoveList, king: usize, targets: u64, pin_ray: &dyn Fn(usize) -> u64) {
        let us = self.turn;
        let theirs = self.by_color[(!us) as usize];
        let occupied = self.occupied();
        let (step, start_rank): (i32, u8) = match us {
            Color::White => (8, 1),
            Color::Black => (-8, 6),
        };
        for from in bits(self.pieces(us, Role::Pawn)) {
            let allowed = targets & pin_ray(from as usize);
            let single = (from as i32 + step) as u32;
            if occupied & 1 << single == 0 {
                if allowed & 1 << single != 0 {
                    push_pawn(moves, from, single);
                }
                if square(from).rank() == start_rank {
                    let double = (single as i32 + step) as u32;
                    if occupied & 1 << double == 0 && allowed & 1 << double != 0 {
                        push(moves, from, double, ClassicalMoveKind::DoublePush);
                    }
                }
            }
            for to in bits(attacks::PAWN[us as usize][from as usize] & theirs & allowed) {
                push_pawn(moves, from, to);
            }
            let attacked_ep = self.en_passant.filter(|&ep| attacks::PAWN[us as usize][from as usize] & bit(ep) != 0);
            if let Some(ep) = attacked_ep.filter(|&ep| self.en_passant_is_legal(king, from, ep)) {
                push(moves, from, u32::from(ep.index()), ClassicalMoveKind::EnPassant);
            }
        }
    }

    /// En passant removes two pawns from one rank at once, which no pin test covers, so the
    /// move is tried on the occupancy and the king's attackers recomputed.
    fn en_passant_is_legal(&self, king: usize, from: u32, ep: Square) -> bool {
        let us = self.turn;
        let Some(victim) = ep.offset(0, -us.forward()) else { return false };
        let occupied = (self.occupied() ^ 1 << from ^ bit(victim)) | bit(ep);
        let theirs = self.by_color[(!us) as usize] & !bit(victim);
        self.attackers_to(king, occupied) & theirs == 0
    }

    fn castles(&self, moves: &mut MoveList, king: usize) {
        let us = self.turn;
        let theirs = self.by_color[(!us) as usize];
        let occupied = self.occupied();
        for side in CastlingSide::ALL {
            if !self.castling.has(us, side) {
                continue;
            }
            let rook_from = side.rook_from(us);
            let king_to = side.king_to(us);
            // Rights are validated against the pieces, but a rook may have been captured at home
            // in a position set up by hand; check again, cheaply.
            if self.pieces(us, Role::Rook) & bit(rook_from) == 0 {
                continue;
            }
            let must_be_empty = attacks::between(king, usize::from(rook_from));
            let king_path = attacks::between(king, usize::from(king_to)) | bit(king_to);
            let safe = bits(king_path).all(|sq| self.attackers_to(sq as usize, occupied) & theirs == 0);
            if occupied & must_be_empty == 0 && safe {
                push(moves, king as u32, u32::from(king_to.index()), ClassicalMoveKind::Castle(side));
            }
        }
    }
}

fn push(moves: &mut MoveList, from: u32, to: u32, kind: ClassicalMoveKind) {
    moves.push(ClassicalMove { from: square(from), to: square(to), kind });
}

fn push_pawn(moves: &mut MoveList, from: u32, to: u32) {
    if PROMOTION_RANKS & 1 << to != 0 {
        for role in Role::PROMOTIONS {
            push(moves, from, to, ClassicalMoveKind::Promotion(role));
        }
    } else {
        push(moves, from, to, ClassicalMoveKind::Normal);
    }
}
