//! Cross-checking a game on the local (sparse) board against the dense simulator.
//!
//! The game's accumulated circuit (every move compiled, every mid-game measurement deferred
//! with its recorded outcome as a post-selection) runs on the dense simulator, and each
//! square's occupancy probability read from it (its current qubit's marginal, or its classical
//! value) must equal the game's to [`TOLERANCE`].

use qchess_circuit::ir::{Circuit, Qubit};
use qchess_core::{Bitboard, Square};
use qchess_engine::Game;
use qchess_sim::dense::{DenseSimulator, Limits};

use crate::error::BenchError;
use crate::stats::median;

/// Largest difference allowed between the two simulators' probabilities.
pub const TOLERANCE: f64 = 1e-9;

/// A game's circuit and probabilities after one ply, kept for a later dense run.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    ply: usize,
    circuit: Circuit,
    square_qubits: Vec<(Square, Qubit)>,
    classical: Bitboard,
    probabilities: [f64; 64],
}

impl Snapshot {
    /// The game as it stands, if it runs on the local board, no full-board measurement has
    /// replaced its probabilities, and its circuit has at most `max_qubits` qubits.
    pub(crate) fn take(game: &Game, ply: usize, max_qubits: usize) -> Option<Snapshot> {
        if game.measured_board().is_some() {
            return None;
        }
        let board = game.local_board()?;
        if board.circuit().num_qubits() > max_qubits {
            return None;
        }
        let register = board.register();
        Some(Snapshot {
            ply,
            circuit: board.circuit().clone(),
            square_qubits: register.square_qubits().collect(),
            classical: register.classical_occupancy(),
            probabilities: game.probabilities().probabilities,
        })
    }
}

/// The cross-checks of one workload.
#[derive(Debug)]
pub(crate) struct CrossCheck {
    workload: String,
    plies: Vec<f64>,
    max_difference: f64,
}

impl CrossCheck {
    pub(crate) fn new(workload: &str) -> CrossCheck {
        CrossCheck { workload: workload.to_owned(), plies: Vec::new(), max_difference: 0.0 }
    }

    /// Runs `snapshot`'s circuit densely and compares every square.
    pub(crate) fn check(&mut self, game: usize, snapshot: &Snapshot) -> Result<(), BenchError> {
        let simulator = DenseSimulator::with_limits(Limits::with_max_qubits(snapshot.circuit.num_qubits()));
        let distribution = simulator
            .probabilities(&snapshot.circuit)
            .map_err(|source| BenchError::Dense { workload: self.workload.clone(), source })?;
        let marginals = qubit_marginals(&distribution.probabilities, distribution.num_qubits);
        for square in Square::ALL {
            let dense = match snapshot.square_qubits.iter().find(|(sq, _)| *sq == square) {
                Some((_, qubit)) => marginals[qubit.index()],
                None => f64::from(u8::from(snapshot.classical.contains(square))),
            };
            let sparse = snapshot.probabilities[usize::from(square)];
            let difference = (dense - sparse).abs();
            if difference > TOLERANCE || difference.is_nan() {
                return Err(BenchError::CrossCheck {
                    workload: self.workload.clone(),
                    game,
                    ply: snapshot.ply,
                    square,
                    sparse,
                    dense,
                });
            }
            self.max_difference = self.max_difference.max(difference);
        }
        self.plies.push(snapshot.ply as f64);
        Ok(())
    }

    /// Games checked.
    pub(crate) fn games(&self) -> usize {
        self.plies.len()
    }

    /// The median ply at which games were checked.
    pub(crate) fn median_ply(&self) -> Option<f64> {
        median(&self.plies)
    }

    /// The largest difference seen.
    pub(crate) fn max_difference(&self) -> f64 {
        self.max_difference
    }
}

/// The probability that each qubit reads 1, from a distribution over all of them.
fn qubit_marginals(probabilities: &[f64], num_qubits: usize) -> Vec<f64> {
    let mut marginals = vec![0.0; num_qubits];
    for (index, &p) in probabilities.iter().enumerate() {
        if p == 0.0 {
            continue;
        }
        let mut bits = index;
        while bits != 0 {
            marginals[bits.trailing_zeros() as usize] += p;
            bits &= bits - 1;
        }
    }
    marginals
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marginals_of_a_known_distribution() {
        // P(00) = 0.5, P(01) = 0.25 (qubit 0 set), P(11) = 0.25.
        let marginals = qubit_marginals(&[0.5, 0.25, 0.0, 0.25], 2);
        assert_eq!(marginals, vec![0.5, 0.25]);
    }

    #[test]
    fn a_split_and_capture_game_agrees_with_the_dense_simulator() {
        let mut game = Game::standard();
        for mv in ["g1^f3h3", "e7e5", "f3xe5.m1", "b8^a6c6"] {
            game.play(mv).expect("legal");
        }
        let snapshot = Snapshot::take(&game, 4, 20).expect("small circuit");
        let mut checks = CrossCheck::new("test");
        checks.check(0, &snapshot).expect("agrees");
        assert_eq!(checks.games(), 1);
        assert!(checks.max_difference() < 1e-12);
    }

    #[test]
    fn a_wrong_probability_is_reported_with_its_square() {
        let mut game = Game::standard();
        game.play("b1^a3c3").expect("legal");
        let mut snapshot = Snapshot::take(&game, 1, 20).expect("small circuit");
        snapshot.probabilities[usize::from(Square::A3)] = 0.25;
        let error = CrossCheck::new("test").check(3, &snapshot).expect_err("differs");
        let BenchError::CrossCheck { game, ply, square, sparse, dense, .. } = &error else {
            panic!("not a cross-check error: {error}");
        };
        assert_eq!((*game, *ply, *square, *sparse), (3, 1, Square::A3, 0.25));
        assert!((dense - 0.5).abs() < 1e-12);
        let text = error.to_string();
        assert!(text.starts_with("test, game 3, ply 1: a3 has probability 0.25 on the local board but "), "{text}");
        assert!(text.ends_with(" on the dense simulator"), "{text}");
    }
}
