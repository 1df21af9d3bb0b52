//! Entangled groups: the squares whose occupancy a measurement of one square bears on.

use std::collections::HashMap;

use qchess_core::{Bitboard, Square};

/// Probabilities closer than this are equal (the exact simulator's rounding is far smaller).
const TOLERANCE: f64 = 1e-9;

/// The entangled group of `square` in an occupancy distribution (boards and their
/// probabilities, as [`Game::distribution`](crate::Game::distribution) gives them): the
/// smallest set of uncertain squares, `square` among them, whose joint occupancy is
/// independent of every other square's. Measuring every square of the group leaves the rest of
/// the board's distribution as it was, and no square of the group uncertain.
///
/// Empty when `square` is certainly empty or certainly occupied.
///
/// The group grows from `square` by the squares whose occupancy is correlated with the group's
/// joint occupancy; when none is but the group is still not independent of the rest (a
/// dependence only among three or more squares), it takes the rest whole, which is still exact.
pub fn entangled_group(distribution: &[(Bitboard, f64)], square: Square) -> Bitboard {
    let total: f64 = distribution.iter().map(|(_, p)| p).sum();
    if total <= 0.0 {
        return Bitboard::EMPTY;
    }
    let uncertain = Bitboard(
        Bitboard::FULL
            .iter()
            .filter(|&sq| {
                let p = marginal(distribution, Bitboard::from_square(sq), Bitboard::from_square(sq)) / total;
                p > TOLERANCE && p < 1.0 - TOLERANCE
            })
            .fold(0, |mask, sq| mask | Bitboard::from_square(sq).0),
    );
    if !uncertain.contains(square) {
        return Bitboard::EMPTY;
    }
    let mut group = Bitboard::from_square(square);
    loop {
        let rest = Bitboard(uncertain.0 & !group.0);
        if rest.is_empty() || independent(distribution, total, group, rest) {
            return group;
        }
        let correlated = rest.iter().filter(|&sq| !independent(distribution, total, group, Bitboard::from_square(sq)));
        let grown = correlated.fold(0, |mask, sq| mask | Bitboard::from_square(sq).0);
        group = Bitboard(group.0 | if grown == 0 { rest.0 } else { grown });
    }
}

/// The probability (unnormalised) that the squares of `mask` hold exactly `pattern`.
fn marginal(distribution: &[(Bitboard, f64)], mask: Bitboard, pattern: Bitboard) -> f64 {
    distribution.iter().filter(|(board, _)| board.0 & mask.0 == pattern.0).map(|(_, p)| p).sum()
}

/// Whether the joint occupancy of `first` is independent of that of `second` (disjoint
/// squares): `P(a, b) = P(a) P(b)` for every pattern `a` of `first` and `b` of `second`.
fn independent(distribution: &[(Bitboard, f64)], total: f64, first: Bitboard, second: Bitboard) -> bool {
    let mut joint: HashMap<(u64, u64), f64> = HashMap::new();
    let mut left: HashMap<u64, f64> = HashMap::new();
    let mut right: HashMap<u64, f64> = HashMap::new();
    for &(board, p) in distribution {
        let (a, b) = (board.0 & first.0, board.0 & second.0);
        *joint.entry((a, b)).or_default() += p / total;
        *left.entry(a).or_default() += p / total;
        *right.entry(b).or_default() += p / total;
    }
    // Patterns missing from `joint` have probability 0 there, so every pair of seen marginal
    // patterns is checked.
    left.iter().all(|(a, pa)| {
        right.iter().all(|(b, pb)| (joint.get(&(*a, *b)).copied().unwrap_or(0.0) - pa * pb).abs() <= TOLERANCE)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(squares: &[&str]) -> Bitboard {
        squares.iter().fold(Bitboard::EMPTY, |b, s| b.with(s.parse().expect("square")))
    }

    fn sq(name: &str) -> Square {
        name.parse().expect("square")
    }

    #[test]
    fn a_split_piece_is_its_own_group_and_independent_pieces_stay_out() {
        // A knight on a3 or c3, independently a bishop on f6 or h6, e1 certain.
        let mut distribution = Vec::new();
        for knight in ["a3", "c3"] {
            for bishop in ["f6", "h6"] {
                distribution.push((board(&["e1", knight, bishop]), 0.25));
            }
        }
        assert_eq!(entangled_group(&distribution, sq("a3")), board(&["a3", "c3"]));
        assert_eq!(entangled_group(&distribution, sq("h6")), board(&["f6", "h6"]));
        assert_eq!(entangled_group(&distribution, sq("e1")), Bitboard::EMPTY);
        assert_eq!(entangled_group(&distribution, sq("e4")), Bitboard::EMPTY);
    }

    #[test]
    fn a_slide_through_a_split_piece_joins_both_pieces() {
        // The bishop went c1-h6 only where the knight was not on d2 (it was on b1 instead).
        let distribution = [(board(&["b1", "h6"]), 0.5), (board(&["d2", "c1"]), 0.5)];
        assert_eq!(entangled_group(&distribution, sq("h6")), board(&["b1", "d2", "c1", "h6"]));
    }

    #[test]
    fn a_dependence_among_three_squares_takes_them_all() {
        // a1 xor b1 = c1: every pair is independent, the three are not.
        let distribution = [
            (board(&[]), 0.25),
            (board(&["a1", "c1"]), 0.25),
            (board(&["b1", "c1"]), 0.25),
            (board(&["a1", "b1"]), 0.25),
        ];
        assert_eq!(entangled_group(&distribution, sq("a1")), board(&["a1", "b1", "c1"]));
    }
}
