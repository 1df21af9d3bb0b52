//! Attack tables, built at compile time, and slider attacks by ray scanning.
//!
//! Sliders use the classical ray approach: the ray in each direction is cut at its first
//! blocker, found with one bit scan (the lowest set bit on rays towards higher square indices,
//! the highest on the others).

use crate::{Bitboard, Color, Piece, Role, Square};

/// Directions as (file step, rank step): N, NE, E, SE, S, SW, W, NW. Direction `d` and
/// `(d + 4) % 8` are opposite.
const DIRECTIONS: [(i8, i8); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

/// Whether a direction runs towards higher square indices (N, NE, E, NW).
const TOWARDS_HIGHER: [bool; 8] = [true, true, true, false, false, false, false, true];

const ROOK_DIRECTIONS: [usize; 4] = [0, 2, 4, 6];
const BISHOP_DIRECTIONS: [usize; 4] = [1, 3, 5, 7];

const fn step(sq: usize, (df, dr): (i8, i8)) -> Option<usize> {
    let file = (sq % 8) as i8 + df;
    let rank = (sq / 8) as i8 + dr;
    if file >= 0 && file < 8 && rank >= 0 && rank < 8 { Some((rank * 8 + file) as usize) } else { None }
}

const fn build_rays() -> [[u64; 64]; 8] {
    let mut rays = [[0; 64]; 8];
    let mut dir = 0;
    while dir < 8 {
        let mut sq = 0;
        while sq < 64 {
            let mut current = step(sq, DIRECTIONS[dir]);
            while let Some(next) = current {
                rays[dir][sq] |= 1 << next;
                current = step(next, DIRECTIONS[dir]);
            }
            sq += 1;
        }
        dir += 1;
    }
    rays
}

const fn build_leaper(deltas: &[(i8, i8)]) -> [u64; 64] {
    let mut table = [0; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut i = 0;
        while i < deltas.len() {
            if let Some(target) = step(sq, deltas[i]) {
                table[sq] |= 1 << target;
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

const fn build_between_and_line() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let rays = build_rays();
    let mut between = [[0; 64]; 64];
    let mut line = [[0; 64]; 64];
    let mut from = 0;
    while from < 64 {
        let mut dir = 0;
        while dir < 8 {
            let full_line = rays[dir][from] | rays[(dir + 4) % 8][from] | 1 << from;
            let mut passed = 0u64;
            let mut current = step(from, DIRECTIONS[dir]);
            while let Some(to) = current {
                between[from][to] = passed;
                line[from][to] = full_line;
                passed |= 1 << to;
                current = step(to, DIRECTIONS[dir]);
            }
            dir += 1;
        }
        from += 1;
    }
    (between, line)
}

static RAYS: [[u64; 64]; 8] = build_rays();

/// Squares a knight on each square attacks.
pub(crate) static KNIGHT: [u64; 64] =
    build_leaper(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);

/// Squares a king on each square attacks.
pub(crate) static KING: [u64; 64] =
    build_leaper(&[(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)]);

/// Squares a pawn on each square attacks: `[white, black][square]`.
pub(crate) static PAWN: [[u64; 64]; 2] = [build_leaper(&[(-1, 1), (1, 1)]), build_leaper(&[(-1, -1), (1, -1)])];

static BETWEEN_AND_LINE: ([[u64; 64]; 64], [[u64; 64]; 64]) = build_between_and_line();

/// Squares strictly between two squares on one rank, file or diagonal; 0 otherwise.
pub(crate) fn between(a: usize, b: usize) -> u64 {
    BETWEEN_AND_LINE.0[a][b]
}

/// The whole rank, file or diagonal through two squares (both included); 0 when they share none.
pub(crate) fn line(a: usize, b: usize) -> u64 {
    BETWEEN_AND_LINE.1[a][b]
}

/// The ray from `sq` in direction `dir`, cut after its first occupied square. Without a
/// branch on whether the ray is blocked: a stand-in blocker on the board's last square in
/// the ray's direction (h8 going up, a1 going down), from which no ray goes on, cuts nothing.
#[inline]
fn ray_attacks(dir: usize, sq: usize, occupied: u64) -> u64 {
    let ray = RAYS[dir][sq];
    let blockers = ray & occupied;
    let first =
        if TOWARDS_HIGHER[dir] { (blockers | 1 << 63).trailing_zeros() } else { 63 - (blockers | 1).leading_zeros() };
    ray ^ RAYS[dir][first as usize]
}

/// Squares a rook on `sq` attacks, given the occupied squares.
#[inline]
pub(crate) fn rook(sq: usize, occupied: u64) -> u64 {
    ROOK_DIRECTIONS.iter().fold(0, |acc, &dir| acc | ray_attacks(dir, sq, occupied))
}

/// Squares a bishop on `sq` attacks, given the occupied squares.
#[inline]
pub(crate) fn bishop(sq: usize, occupied: u64) -> u64 {
    BISHOP_DIRECTIONS.iter().fold(0, |acc, &dir| acc | ray_attacks(dir, sq, occupied))
}

/// The squares `piece` standing on `from` attacks (could capture on), given the `occupied`
/// squares: slides stop at the first occupied square, which is included; pawns attack
/// diagonally forward. The same tables the move generator uses, for evaluations (inlined,
/// so a loop over one kind of piece gets that kind's code alone).
#[inline]
pub fn piece_attacks(piece: Piece, from: Square, occupied: Bitboard) -> Bitboard {
    let sq = usize::from(from);
    Bitboard(match piece.role {
        Role::Pawn => PAWN[usize::from(piece.color == Color::Black)][sq],
        Role::Knight => KNIGHT[sq],
        Role::King => KING[sq],
        Role::Bishop => bishop(sq, occupied.0),
        Role::Rook => rook(sq, occupied.0),
        Role::Queen => rook(sq, occupied.0) | bishop(sq, occupied.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Square;

    fn bits(squares: &[Square]) -> u64 {
        squares.iter().fold(0, |acc, sq| acc | 1 << sq.index())
    }

    fn idx(sq: Square) -> usize {
        usize::from(sq)
    }

    #[test]
    fn no_ray_goes_on_from_the_last_square_in_its_direction() {
        for dir in 0..8 {
            let last = if TOWARDS_HIGHER[dir] { 63 } else { 0 };
            assert_eq!(RAYS[dir][last], 0, "direction {dir}");
        }
    }

    #[test]
    fn leapers_stay_on_the_board() {
        assert_eq!(KNIGHT[idx(Square::A1)], bits(&[Square::B3, Square::C2]));
        assert_eq!(KNIGHT[idx(Square::E4)].count_ones(), 8);
        assert_eq!(KING[idx(Square::H8)], bits(&[Square::G8, Square::G7, Square::H7]));
        assert_eq!(PAWN[0][idx(Square::A2)], bits(&[Square::B3]));
        assert_eq!(PAWN[1][idx(Square::E7)], bits(&[Square::D6, Square::F6]));
    }

    #[test]
    fn sliders_stop_at_the_first_blocker_in_each_direction() {
        let occupied = bits(&[Square::D6, Square::D2, Square::B4, Square::G4]);
        let expected = bits(&[
            Square::D5,
            Square::D6,
            Square::D3,
            Square::D2,
            Square::C4,
            Square::B4,
            Square::E4,
            Square::F4,
            Square::G4,
        ]);
        assert_eq!(rook(idx(Square::D4), occupied), expected);
        assert_eq!(bishop(idx(Square::A1), bits(&[Square::C3])), bits(&[Square::B2, Square::C3]));
        assert_eq!(bishop(idx(Square::H1), 0).count_ones(), 7);
    }

    #[test]
    fn between_and_line_agree_with_square_geometry() {
        for a in Square::ALL {
            for b in Square::ALL {
                let expected = a.between(b).map_or(0, |bb| bb.0);
                assert_eq!(between(idx(a), idx(b)), expected, "{a} {b}");
                let on_line = a.direction_to(b).is_some();
                assert_eq!(line(idx(a), idx(b)) != 0, on_line, "{a} {b}");
                if on_line {
                    assert!(line(idx(a), idx(b)) & 1 << idx(a) != 0 && line(idx(a), idx(b)) & 1 << idx(b) != 0);
                }
            }
        }
    }
}
