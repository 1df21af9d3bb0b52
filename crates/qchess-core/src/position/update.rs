//! The position's Zobrist key, and building a position from the one before it.
//!
//! The key XORs one fixed random number per (square, piece label), one per castling-rights
//! value, one per en-passant square and one for Black to move: a move changes it by the
//! numbers of the squares whose label changed, so it is kept up to date square by square.
//! Probabilities are not part of it (a quantum board hashes its state apart).
//!
//! [`Position::new_after`] gives exactly the position [`Position::new`] gives, but sorts into
//! masks (and checks) only the squares whose label or probability differ from a previous
//! position's; the others keep what the previous position found for the same inputs.

use super::{BACK_RANKS, Position, PositionError, color_index, kind_index};
use crate::quantum_board::CERTAINTY_TOLERANCE;
use crate::{Bitboard, CastlingRights, Color, Fen, Piece, Role, Square, SquareProbabilities};

/// The random numbers of the key.
struct Keys {
    pieces: [[u64; 64]; 12],
    castling: [u64; 16],
    en_passant: [u64; 64],
    black_to_move: u64,
}

/// SplitMix64: a fixed stream of well-mixed numbers, computed at compile time.
const fn split_mix(state: u64) -> (u64, u64) {
    let next = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = next;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (next, z ^ (z >> 31))
}

const fn build_keys() -> Keys {
    let mut keys = Keys { pieces: [[0; 64]; 12], castling: [0; 16], en_passant: [0; 64], black_to_move: 0 };
    let mut state = 0x5143_4845_5353_2024; // any fixed seed
    let mut kind = 0;
    while kind < 12 {
        let mut square = 0;
        while square < 64 {
            let (next, value) = split_mix(state);
            state = next;
            keys.pieces[kind][square] = value;
            square += 1;
        }
        kind += 1;
    }
    let mut rights = 1; // no rights hashes to 0
    while rights < 16 {
        let (next, value) = split_mix(state);
        state = next;
        keys.castling[rights] = value;
        rights += 1;
    }
    let mut square = 0;
    while square < 64 {
        let (next, value) = split_mix(state);
        state = next;
        keys.en_passant[square] = value;
        square += 1;
    }
    keys.black_to_move = split_mix(state).1;
    keys
}

static KEYS: Keys = build_keys();

/// The key of `piece` labelling `square`.
fn piece_key(piece: Piece, square: usize) -> u64 {
    KEYS.pieces[kind_index(piece)][square]
}

/// The key of the side to move, the castling rights and the en-passant square.
pub(super) fn side_key(turn: Color, castling: CastlingRights, en_passant: Option<Square>) -> u64 {
    let turn_key = if turn == Color::Black { KEYS.black_to_move } else { 0 };
    let passant_key = en_passant.map_or(0, |square| KEYS.en_passant[usize::from(square)]);
    turn_key ^ KEYS.castling[usize::from(castling.bits() & 0xF)] ^ passant_key
}

/// The key of every label on `board`.
pub(super) fn board_key(board: &[Option<Piece>; 64]) -> u64 {
    board.iter().enumerate().filter_map(|(square, piece)| piece.map(|p| piece_key(p, square))).fold(0, |a, k| a ^ k)
}

/// The squares whose probability differs between two inputs (a NaN always differs): one
/// comparison per square and no branch, which the compiler turns into vector compares.
fn differing_probabilities(probabilities: &[f64; 64], other: &[f64; 64]) -> u64 {
    let mut changed = 0u64;
    for (index, (a, b)) in probabilities.iter().zip(other).enumerate() {
        changed |= u64::from(a != b) << index;
    }
    changed
}

/// The squares whose label differs between two positions: where some kind's mask differs.
fn differing_labels(kinds: &[Bitboard; 12], other: &[Bitboard; 12]) -> u64 {
    kinds.iter().zip(other).fold(0, |changed, (a, b)| changed | (a.0 ^ b.0))
}

impl Position {
    /// The Zobrist key of the piece labels, side to move, castling rights and en-passant
    /// square: one fixed random number per (square, piece label), per castling-rights value,
    /// per en-passant square and for Black to move, XORed, so a move changes it by the
    /// numbers of the squares whose label changed. Equal positions have equal keys; the
    /// probabilities are not part of it.
    pub fn zobrist(&self) -> u64 {
        self.key
    }

    /// The squares whose piece label or occupancy probability differ from `other`'s.
    pub fn changed_squares(&self, other: &Position) -> Bitboard {
        Bitboard(
            differing_labels(&self.kinds, &other.kinds)
                | differing_probabilities(&self.probabilities.probabilities, &other.probabilities.probabilities),
        )
    }

    /// The position [`Position::new`] builds from `setup` and `probabilities` (the same
    /// result, or the same error), where `setup`'s labels count only on the `relabelled`
    /// squares and `previous`'s labels stand everywhere else. See [`Position::update`].
    pub fn new_after(
        previous: &Position,
        setup: &Fen,
        probabilities: &SquareProbabilities,
        relabelled: Bitboard,
    ) -> Result<Position, PositionError> {
        let mut next = previous.clone();
        next.update(setup, probabilities, relabelled)?;
        Ok(next)
    }

    /// Makes this position the one [`Position::new`] builds from `setup` and `probabilities`,
    /// where `setup`'s labels count only on the `relabelled` squares and this position's labels
    /// stand everywhere else: only the relabelled squares and those whose probability changed
    /// are sorted and checked again, and the key is updated by those squares. For the position
    /// after a move, which relabels its targets and changes few probabilities. Returns the
    /// squares whose label or probability changed. On error (the same error `Position::new`
    /// gives) the position is unchanged.
    pub fn update(
        &mut self,
        setup: &Fen,
        probabilities: &SquareProbabilities,
        relabelled: Bitboard,
    ) -> Result<Bitboard, PositionError> {
        let values = &probabilities.probabilities;
        let mut changed = differing_probabilities(values, &self.probabilities.probabilities);
        for square in relabelled {
            let index = usize::from(square);
            changed |= u64::from(self.board[index] != setup.board[index]) << index;
        }
        // The label each square ends with (empty squares drop theirs).
        let label = |board: &[Option<Piece>; 64], index: usize| {
            let value = values[index];
            if value == 0.0 || (-CERTAINTY_TOLERANCE..=CERTAINTY_TOLERANCE).contains(&value) {
                None
            } else if relabelled.0 >> index & 1 == 1 {
                setup.board[index]
            } else {
                board[index]
            }
        };
        // Checks first, so that an error leaves the position as it was. The same sorting as
        // `Position::new`, square by square.
        let (mut out_of_range, mut unlabelled, mut back_rank_pawn) = (None, None, None);
        let mut remaining = changed;
        while remaining != 0 {
            let index = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            let square = Square::ALL[index];
            let value = values[index];
            if value == 0.0 || value == 1.0 {
                // Certain: nothing to check but a pawn on a back rank.
            } else if !(-CERTAINTY_TOLERANCE..=1.0 + CERTAINTY_TOLERANCE).contains(&value) {
                out_of_range.get_or_insert(square);
                continue;
            }
            match label(&self.board, index) {
                None if value != 0.0 && value > CERTAINTY_TOLERANCE => {
                    unlabelled.get_or_insert(square);
                }
                Some(piece) if piece.role == Role::Pawn && BACK_RANKS.contains(square) => {
                    back_rank_pawn.get_or_insert(square);
                }
                _ => {}
            }
        }
        if let Some(&square) = [out_of_range, unlabelled, back_rank_pawn].iter().flatten().min() {
            let value = values[usize::from(square)];
            return Err(if out_of_range == Some(square) {
                PositionError::ProbabilityOutOfRange { square, value }
            } else if unlabelled == Some(square) {
                PositionError::Unlabelled { square, probability: value.clamp(0.0, 1.0) }
            } else {
                let piece = label(&self.board, usize::from(square)).unwrap_or(Piece::new(setup.turn, Role::Pawn));
                PositionError::PawnOnBackRank { square, piece }
            });
        }
        en_passant_error(setup.turn, setup.en_passant, |square| label(&self.board, usize::from(square)))?;
        // A relabelled square whose label ends as it was (its piece did not come) is not a
        // change after all.
        let mut remaining = changed;
        while remaining != 0 {
            let index = remaining.trailing_zeros() as usize;
            remaining &= remaining - 1;
            let bit = 1u64 << index;
            let value = values[index];
            let next_label = label(&self.board, index);
            if next_label == self.board[index] && value.clamp(0.0, 1.0) == self.probabilities.probabilities[index] {
                changed &= !bit;
                continue;
            }
            if let Some(old) = self.board[index] {
                self.key ^= piece_key(old, index);
                self.colors[color_index(old.color)].0 &= !bit;
                self.kinds[kind_index(old)].0 &= !bit;
            }
            if let Some(piece) = next_label {
                self.key ^= piece_key(piece, index);
                self.colors[color_index(piece.color)].0 |= bit;
                self.kinds[kind_index(piece)].0 |= bit;
            }
            self.board[index] = next_label;
            let full = value >= 1.0 - CERTAINTY_TOLERANCE;
            let empty = value <= CERTAINTY_TOLERANCE;
            self.full.0 = (self.full.0 & !bit) | if full { bit } else { 0 };
            self.empty.0 = (self.empty.0 & !bit) | if empty { bit } else { 0 };
            self.probabilities.probabilities[index] = value.clamp(0.0, 1.0);
        }
        // Exact boards have no errors: then there is no table to copy.
        if self.probabilities.standard_errors.is_some() || probabilities.standard_errors.is_some() {
            self.probabilities.standard_errors.clone_from(&probabilities.standard_errors);
        }
        self.key ^= side_key(self.turn, self.castling, self.en_passant)
            ^ side_key(setup.turn, setup.castling, setup.en_passant);
        self.turn = setup.turn;
        self.castling = setup.castling;
        self.en_passant = setup.en_passant;
        self.halfmove_clock = setup.halfmove_clock;
        self.fullmove_number = setup.fullmove_number.max(1);
        Ok(Bitboard(changed))
    }
}

/// The error [`Position::new`] gives for the en-passant square, given the side to move and
/// each square's label.
pub(super) fn en_passant_error(
    turn: Color,
    en_passant: Option<Square>,
    label: impl Fn(Square) -> Option<Piece>,
) -> Result<(), PositionError> {
    let Some(square) = en_passant else { return Ok(()) };
    let them = !turn;
    // The skipped square is on the opponent's third rank; their pawn stands one further.
    let (skipped_rank, pawn_rank) = match them {
        Color::White => (2, 3),
        Color::Black => (5, 4),
    };
    let invalid = |reason: String| Err(PositionError::InvalidEnPassant { square, reason });
    if square.rank() != skipped_rank {
        return invalid(format!("it is not on rank {}, where {them} pawns pass on a two-step", skipped_rank + 1));
    }
    let pawn_square = Square::from_coords(square.file(), pawn_rank).unwrap_or(square);
    if label(pawn_square) != Some(Piece::new(them, Role::Pawn)) {
        return invalid(format!("no {them} pawn stands on {pawn_square} to be captured"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A position's inputs: a FEN's labels and probabilities with a few squares changed.
    fn changed_inputs(seed: &[(u8, u8, u8)]) -> (Fen, SquareProbabilities) {
        let mut fen = Fen::start();
        let mut probabilities = SquareProbabilities::classical(Bitboard::START);
        // Mostly valid values, then rounding noise, then invalid ones.
        let values = [0.0, 1.0, 0.5, 0.25, 0.0, 1.0, 0.75, 1e-13, 1.0 + 1e-13, -1e-13, 1.5, f64::NAN];
        let pieces = [None, Some(Piece::new(Color::White, Role::Pawn)), Some(Piece::new(Color::Black, Role::Knight))];
        for &(square, value, piece) in seed {
            let index = usize::from(square % 64);
            probabilities.probabilities[index] = values[usize::from(value) % values.len()];
            if piece % 4 != 3 {
                fen.board[index] = pieces[usize::from(piece % 4).min(2)];
            }
        }
        (fen, probabilities)
    }

    proptest! {
        /// From any valid position to any inputs, `new_after` is `new`: the same position (key
        /// included) or the same error, and an update that fails changes nothing.
        #[test]
        fn new_after_is_new(first in prop::collection::vec((0u8..64, 0u8..12, 0u8..4), 0..6),
                            second in prop::collection::vec((0u8..64, 0u8..12, 0u8..4), 0..6),
                            black in any::<bool>(), rights in 0u8..16, relabel_skip in 0u8..64) {
            let (fen, probabilities) = changed_inputs(&first);
            let Ok(previous) = Position::new(fen.clone(), probabilities.clone()) else { return Ok(()) };
            let (mut next_fen, mut next_probabilities) = changed_inputs(&second);
            for (index, piece) in fen.board.iter().enumerate() {
                if !second.iter().any(|&(sq, _, _)| usize::from(sq % 64) == index) {
                    next_fen.board[index] = *piece;
                    next_probabilities.probabilities[index] = probabilities.probabilities[index];
                }
            }
            next_fen.turn = if black { Color::Black } else { Color::White };
            next_fen.castling = CastlingRights::ALL;
            for (bit, (color, side)) in [(Color::White, crate::CastlingSide::KingSide), (Color::White, crate::CastlingSide::QueenSide),
                (Color::Black, crate::CastlingSide::KingSide), (Color::Black, crate::CastlingSide::QueenSide)].into_iter().enumerate() {
                next_fen.castling = next_fen.castling.set(color, side, rights & (1 << bit) != 0);
            }
            // Labels count on the relabelled squares only: elsewhere they are the previous ones.
            let relabelled = Bitboard(second.iter().fold(0u64, |mask, &(sq, _, _)| mask | 1 << (sq % 64)) & !(1 << relabel_skip));
            let mut expected_fen = next_fen.clone();
            for square in !relabelled {
                expected_fen.board[usize::from(square)] = previous.board()[usize::from(square)];
            }
            next_fen.board[usize::from(relabel_skip)] = Some(Piece::new(Color::White, Role::Queen));
            let built = Position::new(expected_fen, next_probabilities.clone());
            let after = Position::new_after(&previous, &next_fen, &next_probabilities, relabelled);
            // A refused update leaves the position as it was.
            let mut updated = previous.clone();
            if updated.update(&next_fen, &next_probabilities, relabelled).is_err() {
                prop_assert_eq!(&updated, &previous);
            }
            match (built, after) {
                (Ok(built), Ok(after)) => {
                    prop_assert_eq!(&built, &after);
                    prop_assert_eq!(built.zobrist(), board_key(built.board()) ^ side_key(built.turn, built.castling, built.en_passant));
                }
                (Err(built), Err(after)) => prop_assert_eq!(built.to_string(), after.to_string()),
                (built, after) => prop_assert!(false, "new {built:?} but new_after {after:?}"),
            }
        }
    }

    #[test]
    fn the_key_follows_labels_turn_rights_and_en_passant() {
        let start = Position::start();
        let mut fen = Fen::start();
        assert_eq!(start.zobrist(), board_key(&fen.board) ^ side_key(Color::White, CastlingRights::ALL, None));
        fen.turn = Color::Black;
        let black = Position::from_fen(&fen).unwrap();
        assert_ne!(black.zobrist(), start.zobrist());
        fen.castling = CastlingRights::NONE;
        assert_ne!(Position::from_fen(&fen).unwrap().zobrist(), black.zobrist());
        // The same labels with other probabilities keep the key.
        let mut probabilities = SquareProbabilities::classical(Bitboard::START);
        probabilities.probabilities[usize::from(Square::G1)] = 0.5;
        assert_eq!(Position::new(Fen::start(), probabilities).unwrap().zobrist(), start.zobrist());
        assert!(start.changed_squares(&black).is_empty());
    }
}
