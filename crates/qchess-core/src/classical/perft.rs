//! Counting the leaf nodes of the legal move tree.

use super::{ClassicalMove, ClassicalPosition};

/// The number of move sequences of exactly `depth` plies from `position` (1 for depth 0).
///
/// The last ply is counted from the length of the move list rather than by playing each
/// move ("bulk counting"); the count is the same.
pub fn perft(position: &ClassicalPosition, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => position.legal_moves().len() as u64,
        _ => position.legal_moves().iter().map(|&mv| perft(&position.played(mv), depth - 1)).sum(),
    }
}

/// [`perft`] split by first move: each legal move with the leaf count below it, in move
/// generation order. Empty for depth 0.
pub fn perft_divide(position: &ClassicalPosition, depth: u32) -> Vec<(ClassicalMove, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    position.legal_moves().iter().map(|&mv| (mv, perft(&position.played(mv), depth - 1))).collect()
}
