//! From a job's results to the boards that survive: post-selection, error mitigation, the shot
//! budget, and the statistics the board reports.

use std::collections::BTreeSet;

use qchess_circuit::compiler::Register;
use qchess_circuit::recycle::Recycled;
use qchess_core::{Bitboard, MoveType, MoveVariant, Square, TypedMove};

use crate::probabilities::Probabilities;

/// Surviving weight below this (of an exact distribution) is rounding, not an outcome.
pub(crate) const NEGLIGIBLE: f64 = 1e-12;

/// The shots to ask for: `base`, times `2^(k+1)` once there are `k >= 2` post-selections (most
/// shots of a long deferred-measurement circuit are thrown away), doubled under error
/// mitigation, at least 100 and at most `max`. This is the reference implementation's
/// `suggest_num_reps`.
pub fn suggest_shots(base: u64, postselections: usize, mitigation: bool, max: u64) -> u64 {
    let mut shots = base.max(1);
    if postselections >= 2 {
        let exponent = (postselections as u32 + 1).min(40);
        shots = shots.saturating_mul(1u64 << exponent);
    }
    if mitigation {
        shots = shots.saturating_mul(2);
    }
    shots.max(100).min(max.max(1))
}

/// The piece counts a board may have: the initial count, and for every move that may capture
/// (a CAPTURE variant, a pawn capture, en passant), one less than any count possible before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedPieces(BTreeSet<u32>);

impl AllowedPieces {
    /// The counts possible at a classical start.
    pub fn new(initial: Bitboard) -> AllowedPieces {
        AllowedPieces(BTreeSet::from([initial.count()]))
    }

    /// Takes a move into account.
    pub fn after(&mut self, mv: &TypedMove) {
        let captures =
            mv.variant == MoveVariant::Capture || matches!(mv.move_type, MoveType::PawnCapture | MoveType::PawnEp);
        if captures {
            let fewer: Vec<u32> = self.0.iter().filter_map(|n| n.checked_sub(1)).collect();
            self.0.extend(fewer);
        }
    }

    /// Whether a board with this many pieces is possible.
    pub fn allows(&self, pieces: u32) -> bool {
        self.0.contains(&pieces)
    }
}

/// The outcomes of the current circuit that agree with every recorded outcome (and, under
/// mitigation, have a possible piece count), with their weights normalised to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Survivors {
    /// Surviving outcomes (qubit `i` = bit `i`) and their normalised weights.
    pub outcomes: Vec<(u64, f64)>,
    /// How many shots survived, for sampled results; `None` for exact probabilities.
    pub shots: Option<f64>,
    /// The board of each surviving outcome, in the same order.
    pub boards: Vec<Bitboard>,
}

/// Why no outcome survived.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoSurvivors {
    /// Weight kept by the post-selections alone.
    pub postselected: f64,
}

/// Where a job's results hold the board: the bit of every quantum square and every
/// post-selected qubit in the submitted (recycled) circuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Readout {
    /// Occupancy of the squares without a qubit.
    pub classical: Bitboard,
    /// Each quantum square and its result bit.
    pub squares: Vec<(Square, u32)>,
    /// Each post-selection's result bit and recorded value.
    pub postselect: Vec<(u32, bool)>,
}

impl Readout {
    /// The readout of `register`'s circuit as it was submitted after `recycled`.
    pub fn new(register: &Register, recycled: &Recycled) -> Readout {
        let bit = |qubit| recycled.physical(qubit).unwrap_or(qubit).0;
        let postselect = recycled.circuit.postselect.iter().enumerate();
        Readout {
            classical: register.classical_occupancy(),
            squares: register.square_qubits().map(|(square, qubit)| (square, bit(qubit))).collect(),
            postselect: postselect
                .filter_map(|(index, p)| Some((recycled.postselection_bit(index)?, p.value)))
                .collect(),
        }
    }

    /// The board an outcome stands for: the classical squares plus the quantum squares read 1.
    pub fn board(&self, outcome: u64) -> Bitboard {
        self.squares.iter().fold(self.classical, |board, &(square, bit)| {
            if bit < 64 && outcome >> bit & 1 == 1 { board.with(square) } else { board }
        })
    }

    /// Whether an outcome agrees with every recorded measurement.
    fn keeps(&self, outcome: u64) -> bool {
        self.postselect.iter().all(|&(bit, value)| bit < 64 && (outcome >> bit & 1 == 1) == value)
    }
}

/// Filters `results` (of a circuit read out by `readout`, run with `shots` shots, or exact) by
/// the circuit's post-selections and, when given, by the allowed piece counts.
pub fn survivors(
    results: &Probabilities,
    readout: &Readout,
    allowed: Option<&AllowedPieces>,
    shots: Option<u64>,
) -> Result<Survivors, NoSurvivors> {
    let mut postselected = 0.0;
    let mut outcomes = Vec::new();
    let mut boards = Vec::new();
    for &(outcome, weight) in results.outcomes() {
        if !readout.keeps(outcome) {
            continue;
        }
        postselected += weight;
        let board = readout.board(outcome);
        if allowed.is_some_and(|a| !a.allows(board.count())) {
            continue;
        }
        outcomes.push((outcome, weight));
        boards.push(board);
    }
    let total: f64 = outcomes.iter().map(|o| o.1).sum();
    let survived_shots = shots.map(|n| (total * n as f64).round());
    let empty = match survived_shots {
        Some(n) => n < 1.0,
        None => total <= NEGLIGIBLE,
    };
    if empty {
        return Err(NoSurvivors { postselected });
    }
    outcomes.iter_mut().for_each(|o| o.1 /= total);
    Ok(Survivors { outcomes, shots: survived_shots, boards })
}

impl Survivors {
    /// Probability that `qubit` reads `value` among the survivors.
    pub fn qubit_probability(&self, qubit: usize, value: bool) -> f64 {
        self.outcomes.iter().filter(|(o, _)| qubit < 64 && (o >> qubit & 1 == 1) == value).map(|o| o.1).sum()
    }

    /// Draws one surviving outcome for `u` uniform in `[0, 1)`.
    pub fn draw(&self, u: f64) -> u64 {
        let mut cumulative = 0.0;
        for &(outcome, weight) in &self.outcomes {
            cumulative += weight;
            if u < cumulative {
                return outcome;
            }
        }
        self.outcomes.last().map_or(0, |o| o.0)
    }

    /// Occupancy probability of every square, with standard errors for sampled results.
    pub fn square_probabilities(&self) -> ([f64; 64], Option<[f64; 64]>) {
        let mut probabilities = [0.0; 64];
        for (board, (_, weight)) in self.boards.iter().zip(&self.outcomes) {
            for square in *board {
                probabilities[usize::from(square)] += weight;
            }
        }
        for p in &mut probabilities {
            *p = p.clamp(0.0, 1.0);
        }
        let errors = self.shots.map(|n| probabilities.map(|p| (p * (1.0 - p) / n.max(1.0)).sqrt()));
        (probabilities, errors)
    }

    /// Each distinct board with its probability, most likely first (ties by bitboard).
    pub fn distribution(&self) -> Vec<(Bitboard, f64)> {
        let mut boards: Vec<(Bitboard, f64)> = Vec::new();
        let mut sorted: Vec<(Bitboard, f64)> = self.boards.iter().zip(&self.outcomes).map(|(b, o)| (*b, o.1)).collect();
        sorted.sort_by_key(|&(board, _)| board.0);
        for (board, weight) in sorted {
            match boards.last_mut() {
                Some((last, total)) if *last == board => *total += weight,
                _ => boards.push((board, weight)),
            }
        }
        boards.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.0.cmp(&b.0.0)));
        boards
    }

    /// The board every survivor agrees on, if the position is classical again. Exact outcomes
    /// of negligible weight do not count.
    pub fn classical_board(&self) -> Option<Bitboard> {
        let mut seen = None;
        for (board, (_, weight)) in self.boards.iter().zip(&self.outcomes) {
            if self.shots.is_none() && *weight <= NEGLIGIBLE {
                continue;
            }
            match seen {
                None => seen = Some(*board),
                Some(first) if first != *board => return None,
                Some(_) => {}
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use qchess_circuit::recycle::{Recycling, recycle};
    use qchess_core::{Square, TypedMove};

    use super::*;

    #[test]
    fn the_shot_budget_grows_with_post_selections() {
        assert_eq!(suggest_shots(10, 0, false, 1_000_000), 100);
        assert_eq!(suggest_shots(1000, 1, false, 1_000_000), 1000);
        assert_eq!(suggest_shots(1000, 2, false, 1_000_000), 8000);
        assert_eq!(suggest_shots(1000, 3, true, 1_000_000), 32_000);
        assert_eq!(suggest_shots(1000, 60, true, 1_000_000), 1_000_000);
    }

    #[test]
    fn capturing_moves_allow_one_piece_fewer() {
        let mut allowed = AllowedPieces::new(Bitboard(0b111));
        allowed.after(&"b1a3:JUMP:BASIC".parse::<TypedMove>().expect("valid"));
        assert!(allowed.allows(3) && !allowed.allows(2));
        allowed.after(&"b1a3:JUMP:CAPTURE".parse::<TypedMove>().expect("valid"));
        allowed.after(&"e4d5:PAWN_CAPTURE:CAPTURE".parse::<TypedMove>().expect("valid"));
        assert!(allowed.allows(3) && allowed.allows(2) && allowed.allows(1) && !allowed.allows(0));
    }

    #[test]
    fn survivors_follow_post_selection_and_mitigation() {
        // b1 split to a3/c3: qubits 0 = a3, 1 = c3 after the compiler unhooks b1.
        let mut register = Register::new(Bitboard::from_square(Square::B1));
        let split: TypedMove = "b1^a3c3:SPLIT_JUMP:BASIC".parse().expect("valid");
        assert!(register.begin(&split).is_ok());
        let a3 = register.square_qubit(Square::A3).expect("quantum").index();
        let c3 = register.square_qubit(Square::C3).expect("quantum").index();
        // A noisy result: mostly one piece, some shots with 0 or 2 pieces.
        let results = Probabilities::new(
            register.circuit().num_qubits() as u32,
            vec![(1 << a3, 0.45), (1 << c3, 0.45), (0, 0.05), ((1 << a3) | (1 << c3), 0.05)],
        )
        .expect("sums to 1");
        let readout = Readout::new(&register, &recycle(&register, Recycling::CleanOnly));
        let plain = survivors(&results, &readout, None, Some(1000)).expect("survives");
        assert_eq!(plain.outcomes.len(), 4);
        let allowed = AllowedPieces::new(Bitboard::from_square(Square::B1));
        let mitigated = survivors(&results, &readout, Some(&allowed), Some(1000)).expect("survives");
        assert_eq!(mitigated.shots, Some(900.0));
        let (p, errors) = mitigated.square_probabilities();
        assert!((p[usize::from(Square::A3)] - 0.5).abs() < 1e-12);
        let expected_error = (0.25f64 / 900.0).sqrt();
        assert!((errors.expect("sampled")[usize::from(Square::A3)] - expected_error).abs() < 1e-12);
        assert_eq!(mitigated.classical_board(), None);
        assert_eq!(mitigated.draw(0.2).count_ones(), 1);
        assert_eq!(mitigated.distribution().len(), 2);
    }
}
