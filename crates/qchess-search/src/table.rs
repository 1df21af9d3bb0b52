//! The transposition table, keyed on the classical information plus a hash of the quantum state.
//!
//! A key is the position's Zobrist key ([`Position::zobrist`](qchess_core::Position::zobrist):
//! piece labels, side to move, castling rights and en-passant square, kept up to date by
//! each move) combined with a hash of the quantum state ([`quantum_hash`]): every populated
//! basis state, as the quantum squares it occupies (and the branch labels of retired
//! qubits), with its amplitude rounded to [`AMPLITUDE_GRID`]. A labelled square never
//! occupied in the quantum part is certainly full, so the two together fix the occupancy. The per-basis-state hashes are summed, so the order in which the simulator
//! stores them does not matter. The quantum hash depends on the state alone, so a search
//! hashes a state once and reuses the hash while moves leave the state untouched (its
//! version, [`LocalBoard::state_version`]). Equal states stored differently (other qubit
//! labels, a global phase, a certain square kept quantum) only miss; they are never confused
//! with different ones beyond the 64-bit collision odds. On a board that keeps no amplitudes
//! the occupancy distribution is hashed instead.

use std::hash::{Hash, Hasher};

use qchess_core::{LegalMove, TypedMove};
use qchess_engine::Game;
use qchess_sim::local_board::LocalBoard;
use rustc_hash::FxHasher;

/// Amplitudes are rounded to multiples of this before hashing.
pub const AMPLITUDE_GRID: f64 = 1e-9;

/// Bytes of one entry of the table (an `Option<Slot>`, checked below).
const ENTRY_BYTES: usize = 32;

/// The key of the game's current position. See the [module docs](self).
pub fn position_key(game: &Game) -> u64 {
    let quantum = match game.local_board() {
        Some(board) => quantum_hash(board),
        None => {
            let mut sum = 0u64;
            for (square, p) in game.position().probabilities().probabilities.iter().enumerate() {
                let mut entry = FxHasher::default();
                (square, grid(*p)).hash(&mut entry);
                sum = sum.wrapping_add(entry.finish());
            }
            sum
        }
    };
    combine(game, quantum)
}

/// The key of the game's position given the hash of its quantum state.
pub(crate) fn combine(game: &Game, quantum: u64) -> u64 {
    let measured = game.measured_board().map_or(0, |board| board.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    game.position().zobrist() ^ measured ^ quantum.rotate_left(17)
}

/// The hash of the board's quantum state. See the [module docs](self).
pub fn quantum_hash(board: &LocalBoard) -> u64 {
    let state = board.state();
    // The square of every state bit that holds a square's qubit. A square's current qubit
    // sits at the square's own key position, so the low word of a basis state is usually the
    // quantum squares it occupies as it is; otherwise each bit is mapped to its square.
    let mut square_of_bit = [0u8; 128];
    let (mut square_bits, mut in_place) = (0u128, true);
    for (square, qubit) in board.register().square_qubits() {
        if let Some(at) = state.position(qubit) {
            square_of_bit[usize::from(at)] = square.index();
            square_bits |= 1 << at;
            in_place &= at == square.index();
        }
    }
    let labels = state.label_mask();
    let mut sum = 0u64;
    for (key, amplitude) in state.amplitudes() {
        let occupied = if in_place {
            (key & square_bits) as u64
        } else {
            let (mut occupied, mut bits) = (0u64, key & square_bits);
            while bits != 0 {
                occupied |= 1 << square_of_bit[bits.trailing_zeros() as usize];
                bits &= bits - 1;
            }
            occupied
        };
        // Both parts of an amplitude on the grid fit in 32 bits (|x| <= 1 is at most 10^9
        // grid steps), so one word holds them apart and one mix hashes them.
        let packed = (grid(amplitude.re) as u64 & u64::from(u32::MAX)) | (grid(amplitude.im) as u64) << 32;
        let label = key & labels;
        let fold = (label as u64) ^ ((label >> 64) as u64).rotate_left(32);
        // Most states have no branch labels: a fold of 0 costs no mix.
        let rest = if fold == 0 { mix(packed) } else { mix(fold ^ mix(packed)) };
        sum = sum.wrapping_add(mix(occupied ^ rest));
    }
    sum
}

/// A 64-bit mixing function (the SplitMix64 finaliser), for hashing a basis state's parts.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `x` to the nearest multiple of [`AMPLITUDE_GRID`], as an integer. Multiplies by the grid's
/// inverse and rounds half away from zero by hand: a division and `f64::round` (a library
/// call on the baseline x86-64 target) cost more, and this runs for every basis state hashed.
fn grid(x: f64) -> i64 {
    let scaled = x * (1.0 / AMPLITUDE_GRID);
    (scaled + 0.5f64.copysign(scaled)) as i64
}

/// What a stored score says about the true value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// The score is the value.
    Exact,
    /// The value is at least the score (the search failed high).
    Lower,
    /// The value is at most the score (the search failed low).
    Upper,
}

impl Bound {
    /// What a fail-soft result `score` of a search in `(alpha, beta)` says.
    pub fn of(score: f64, alpha: f64, beta: f64) -> Bound {
        if score <= alpha {
            Bound::Upper
        } else if score >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        }
    }
}

/// One stored search result.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// The full key, to tell apart positions that share a slot.
    pub key: u64,
    /// The depth searched below the position.
    pub depth: i32,
    /// The score, from the side to move's view.
    pub score: f64,
    /// What the score says.
    pub bound: Bound,
    /// The best move found, tried first next time.
    pub best: Option<LegalMove>,
}

/// An entry as the table keeps it: 32 bytes, aligned to 32 so that a probe reads one cache
/// line (an [`Entry`] takes 40, and every other one would straddle two lines). The best move
/// is kept as its typed move, whose notation [`LegalMove::canonical`] gives back, and the
/// depth in 16 bits.
#[derive(Debug, Clone, Copy)]
#[repr(align(32))]
struct Slot {
    key: u64,
    score: f64,
    best: Option<TypedMove>,
    depth: i16,
    bound: Bound,
}

// Kept to one slot per half cache line (the table's whole point of packing).
const _: () = assert!(std::mem::size_of::<Option<Slot>>() == ENTRY_BYTES);

impl Slot {
    fn of(entry: Entry) -> Slot {
        let depth = entry.depth.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
        Slot { key: entry.key, score: entry.score, best: entry.best.map(|mv| mv.typed), depth, bound: entry.bound }
    }

    fn entry(self) -> Entry {
        Entry {
            key: self.key,
            depth: i32::from(self.depth),
            score: self.score,
            bound: self.bound,
            best: self.best.map(LegalMove::canonical),
        }
    }
}

/// A fixed-size, always-replace-when-deeper-or-different table.
#[derive(Debug, Clone)]
pub struct Table {
    slots: Vec<Option<Slot>>,
}

impl Table {
    /// A table of at most `megabytes` MB: the largest power of two of entries that fits (at
    /// least 1024 entries). 4 MB hold 131,072.
    pub fn with_megabytes(megabytes: usize) -> Table {
        let fitting = (megabytes.saturating_mul(1 << 20) / ENTRY_BYTES).max(1024);
        let entries = 1 << (usize::BITS - 1 - fitting.leading_zeros());
        Table { slots: vec![None; entries] }
    }

    /// Forgets every entry.
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
    }

    fn index(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    /// The entry of `key`, if stored. Its best move is in canonical notation, as the move
    /// generator writes every move.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[self.index(key)].filter(|slot| slot.key == key).map(Slot::entry)
    }

    /// Stores an entry, replacing a shallower one of the same position or one of another
    /// position, except that a quiescence entry (depth 0 or less) never evicts a main-search
    /// entry of another position: those are fewer and dearer.
    pub fn store(&mut self, entry: Entry) {
        let index = self.index(entry.key);
        let slot = &mut self.slots[index];
        let new = Slot::of(entry);
        let replaces = |old: Slot| {
            if old.key == new.key { old.depth <= new.depth } else { new.depth > 0 || old.depth <= 0 }
        };
        if slot.is_none_or(replaces) {
            *slot = Some(new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_merge_back_has_the_key_of_the_position_before_the_split_and_return() {
        // On the search's own board, whose certain squares go back to classical (on a plain
        // board the knight's square would stay quantum after the merge: a miss, never a
        // confusion).
        let mut game = crate::search::search_copy(&Game::standard(), 1 << 12).unwrap();
        let start = position_key(&game);
        game.play("g1^f3h3").unwrap();
        let split = position_key(&game);
        assert_ne!(start, split);
        game.play("g8f6").unwrap();
        game.play("f3h3^g1").unwrap();
        game.play("f6g8").unwrap();
        // Same pieces, same classical state, same (trivial) quantum state.
        assert_eq!(position_key(&game), start);
        game.undo().unwrap();
        game.undo().unwrap();
        assert_ne!(position_key(&game), start);
    }

    /// Every kind of move the generator writes (standard, capture, promotion, split, merge)
    /// comes back from the table as it went in, and so does the depth.
    #[test]
    fn a_stored_move_comes_back_as_generated() {
        let fen = "r3k2r/1P4P1/8/3q4/8/8/8/R3K1NR w KQkq - 0 1".parse().unwrap();
        let mut game = Game::new(&fen, Default::default()).unwrap();
        game.play("g1^f3h3").unwrap();
        game.play("e8d8").unwrap();
        let moves = game.legal_moves();
        for kind in ["capture", "promotion", "split", "merge"] {
            let found = moves.iter().find(|mv| match kind {
                "capture" => mv.typed.variant == qchess_core::MoveVariant::Capture,
                "promotion" => mv.typed.promotion.is_some(),
                "split" => matches!(mv.typed.squares, qchess_core::MoveSquares::Split { .. }),
                _ => matches!(mv.typed.squares, qchess_core::MoveSquares::Merge { .. }),
            });
            assert!(found.is_some(), "no {kind} among the moves");
        }
        let mut table = Table::with_megabytes(1);
        for (index, mv) in moves.iter().enumerate() {
            let depth = index as i32 - 20;
            let entry = Entry { key: index as u64, depth, score: 0.5, bound: Bound::Lower, best: Some(*mv) };
            table.store(entry);
            let back = table.probe(index as u64).expect("stored");
            assert_eq!((back.best, back.depth, back.bound), (Some(*mv), depth, Bound::Lower), "{mv}");
        }
    }

    #[test]
    fn the_table_takes_at_most_the_megabytes_asked_for() {
        for (megabytes, entries) in [(1, 32_768), (4, 131_072), (10, 262_144), (16, 524_288)] {
            let table = Table::with_megabytes(megabytes);
            assert_eq!(table.slots.len(), entries, "{megabytes} MB");
            assert!(table.slots.len() * std::mem::size_of::<Option<Slot>>() <= megabytes << 20);
        }
        assert_eq!(Table::with_megabytes(0).slots.len(), 1024);
    }

    #[test]
    fn the_table_keeps_the_deeper_entry() {
        let mut table = Table::with_megabytes(1);
        let entry = Entry { key: 5, depth: 3, score: 1.0, bound: Bound::Exact, best: None };
        table.store(entry);
        table.store(Entry { depth: 1, score: 2.0, ..entry });
        assert_eq!(table.probe(5).unwrap().score, 1.0);
        table.store(Entry { depth: 4, score: 3.0, ..entry });
        assert_eq!(table.probe(5).unwrap().score, 3.0);
        assert!(table.probe(6).is_none());
        let slots = table.slots.len() as u64;
        table.store(Entry { key: 5 + slots, depth: 0, ..entry });
        assert_eq!(table.probe(5).unwrap().score, 3.0, "a quiescence entry evicted a main one");
        table.store(Entry { key: 5 + slots, depth: 1, ..entry });
        assert!(table.probe(5).is_none());
        table.store(Entry { key: 5, depth: -1, ..entry });
        assert!(table.probe(5).is_none());
        table.clear();
        table.store(Entry { key: 5 + slots, depth: 0, ..entry });
        table.store(Entry { key: 5, depth: -1, ..entry });
        assert_eq!(table.probe(5).unwrap().depth, -1, "quiescence entries replace each other");
    }
}
