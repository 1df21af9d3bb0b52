//! The king terms: how spread a king is, and the probability that it can be captured.

use qchess_core::classical::piece_attacks;
use qchess_core::{Color, Piece, Position, Role, Square};

/// `1 - max P(king square)` of `color`'s king (0 when it has none).
pub(super) fn king_spread(position: &Position, color: Color) -> f64 {
    let kings = position.squares_of(Piece::new(color, Role::King));
    let max_king = kings.into_iter().map(|k| position.probability(k)).fold(0.0_f64, f64::max);
    if max_king > 0.0 { 1.0 - max_king } else { 0.0 }
}

/// The best probability that one move of `color`'s opponent captures `color`'s king outright
/// (removes every bit of it): over every enemy piece that reaches a king square, `P(attacker
/// there) * P(path clear) * P(king there) * P(king there) / P(king anywhere)`, capturing one
/// square removing the king only if all of it stood there. See the [module docs](super).
///
/// The attackers of each king square are found from the square itself (a knight's, king's,
/// pawn's and slider's attacks run both ways), so only the pieces that reach a king are
/// looked at.
pub fn king_capture_probability(position: &Position, color: Color) -> f64 {
    let kings = position.squares_of(Piece::new(color, Role::King));
    let king_mass: f64 = kings.iter().map(|k| position.probability(k)).sum();
    if king_mass <= 0.0 {
        return 0.0;
    }
    let blockers = position.certainly_full();
    let enemy = |role: Role| position.squares_of(Piece::new(!color, role));
    let (queens, rooks, bishops) = (enemy(Role::Queen), enemy(Role::Rook), enemy(Role::Bishop));
    let mut best = 0.0_f64;
    for king in kings {
        // A piece of `color` on the king's square attacks exactly the squares an enemy piece
        // of the same kind attacks the king from (pawns: the squares in front, diagonally).
        let from_king = |role: Role| piece_attacks(Piece::new(color, role), king, blockers);
        let attackers = (from_king(Role::Knight) & enemy(Role::Knight))
            | (from_king(Role::King) & enemy(Role::King))
            | (from_king(Role::Pawn) & enemy(Role::Pawn))
            | (from_king(Role::Rook) & (rooks | queens))
            | (from_king(Role::Bishop) & (bishops | queens));
        for attacker in attackers {
            let slides = (rooks | queens | bishops).contains(attacker);
            best = best.max(capture_probability(position, attacker, slides, king, king_mass));
        }
    }
    best
}

/// The probability that the piece on `attacker` captures all of the king on `king`: it is
/// there, its path is clear (`slides`: through the superposed squares between), and the
/// whole king (`king_mass`) stands on that square.
fn capture_probability(position: &Position, attacker: Square, slides: bool, king: Square, king_mass: f64) -> f64 {
    let mut clear = 1.0;
    if slides && let Some(path) = attacker.between(king) {
        for square in path {
            clear *= 1.0 - position.probability(square);
        }
    }
    let whole = position.probability(king) / king_mass;
    position.probability(attacker) * clear * position.probability(king) * whole
}
