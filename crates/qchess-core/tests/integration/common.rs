//! Building positions for tests.

use qchess_core::{Fen, Position, Square, SquareProbabilities};

/// A position from a FEN whose listed squares get the given occupancy probabilities; every
/// other piece is certain.
pub fn quantum(fen: &str, probabilities: &[(&str, f64)]) -> Position {
    let setup: Fen = fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"));
    let mut squares = SquareProbabilities::classical(setup.occupancy());
    for &(name, p) in probabilities {
        let sq: Square = name.parse().unwrap_or_else(|e| panic!("{name}: {e}"));
        squares.probabilities[usize::from(sq)] = p;
    }
    Position::new(setup, squares).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// A classical position from a FEN.
pub fn classical(fen: &str) -> Position {
    quantum(fen, &[])
}
