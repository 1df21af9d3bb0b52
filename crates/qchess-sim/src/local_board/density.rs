//! Two-square reduced density matrices, read exactly from the sparse state.
//!
//! A square with a qubit sits at its own key position, so its occupancy is one bit of every
//! basis key; a square without a qubit is classical and contributes a fixed value. Tracing out
//! everything else (other squares, ancillas, branch labels) pairs up the basis states that agree
//! on every other bit: `rho[i][j] = sum over rest of a(i, rest) * conj(a(j, rest))`.

use num_complex::Complex64;
use qchess_core::{BoardError, Square, SquarePairDensity};

use super::LocalBoard;

/// Where a square's occupancy comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// The bit at this key position.
    Qubit(u8),
    /// A classical value.
    Classical(bool),
}

impl LocalBoard {
    /// The exact reduced density matrix of two different squares (see [`SquarePairDensity`]).
    pub fn exact_pair_density(&self, first: Square, second: Square) -> Result<SquarePairDensity, BoardError> {
        if first == second {
            return Err(BoardError::InvalidMove {
                mv: format!("{first}{second}"),
                reason: "a two-square density matrix needs two different squares".to_owned(),
            });
        }
        let (a, b) = (self.source(first)?, self.source(second)?);
        let zero = Complex64::new(0.0, 0.0);
        let mut matrix = [[zero; 4]; 4];
        let quantum_mask = [a, b].iter().fold(0u128, |mask, source| match source {
            Source::Qubit(position) => mask | (1u128 << position),
            Source::Classical(_) => mask,
        });
        // Group the amplitudes by everything but the two squares' bits.
        let mut rows: Vec<(u128, usize, Complex64)> = self
            .state()
            .amplitudes()
            .map(|(key, amp)| (key & !quantum_mask, 2 * bit(a, key) + bit(b, key), amp))
            .collect();
        rows.sort_unstable_by_key(|&(rest, index, _)| (rest, index));
        let norm = self.state().norm_sqr();
        let mut start = 0;
        while start < rows.len() {
            let rest = rows[start].0;
            let end = start + rows[start..].iter().take_while(|row| row.0 == rest).count();
            for &(_, i, amp_i) in &rows[start..end] {
                for &(_, j, amp_j) in &rows[start..end] {
                    matrix[i][j] += amp_i * amp_j.conj() / norm;
                }
            }
            start = end;
        }
        Ok(SquarePairDensity { first, second, matrix })
    }

    fn source(&self, square: Square) -> Result<Source, BoardError> {
        match self.register().square_qubit(square) {
            Some(qubit) => match self.state().position(qubit) {
                Some(position) => Ok(Source::Qubit(position)),
                None => Err(BoardError::Backend(format!("the qubit of {square} is not in the simulator state").into())),
            },
            None => Ok(Source::Classical(self.register().classical_occupancy().contains(square))),
        }
    }
}

/// The occupancy (0 or 1) a basis key gives a square.
fn bit(source: Source, key: u128) -> usize {
    match source {
        Source::Qubit(position) => usize::from(key & (1u128 << position) != 0),
        Source::Classical(full) => usize::from(full),
    }
}

#[cfg(test)]
mod tests {
    use qchess_core::{Bitboard, QuantumBoard, TypedMove};

    use super::*;

    fn board(squares: &[Square], moves: &[&str]) -> LocalBoard {
        let mut board = LocalBoard::new(squares.iter().copied().collect::<Bitboard>());
        for text in moves {
            let mv: TypedMove = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            board.apply(&mv).unwrap_or_else(|e| panic!("{text}: {e}"));
        }
        board
    }

    fn assert_matrix(actual: &[[Complex64; 4]; 4], expected: &[[Complex64; 4]; 4]) {
        for (row_a, row_e) in actual.iter().zip(expected) {
            for (a, e) in row_a.iter().zip(row_e) {
                assert!((a - e).norm() < 1e-12, "{actual:?} != {expected:?}");
            }
        }
    }

    #[test]
    fn a_knight_split_is_the_psi_plus_state() {
        // (i/sqrt2)(|10> + |01>) on (a3, c3): rho has 1/2 on the |01>,|10> block.
        let mut board = board(&[Square::B1], &["b1^a3c3:SPLIT_JUMP:BASIC"]);
        let rho = board.pair_density(Square::A3, Square::C3).expect("density");
        let zero = Complex64::new(0.0, 0.0);
        let half = Complex64::new(0.5, 0.0);
        let expected = [[zero; 4], [zero, half, half, zero], [zero, half, half, zero], [zero; 4]];
        assert_matrix(&rho.matrix, &expected);
    }

    #[test]
    fn classical_squares_give_product_states() {
        let board = board(&[Square::B1, Square::E2], &["b1^a3c3:SPLIT_JUMP:BASIC"]);
        let rho = board.exact_pair_density(Square::E2, Square::H8).expect("density");
        assert_matrix(&rho.matrix, &SquarePairDensity::classical(Square::E2, Square::H8, true, false).matrix);
        // One quantum square with a classical one: diag(1/2, 1/2) on the |1y> block.
        let rho = board.exact_pair_density(Square::E2, Square::A3).expect("density");
        let zero = Complex64::new(0.0, 0.0);
        let half = Complex64::new(0.5, 0.0);
        let mut expected = [[zero; 4]; 4];
        expected[2][2] = half;
        expected[3][3] = half;
        assert_matrix(&rho.matrix, &expected);
        assert!(board.exact_pair_density(Square::E2, Square::E2).is_err());
    }

    #[test]
    fn squares_entangled_with_a_third_are_mixed() {
        // Three-way split by two splits: b1 -> a3, c3 then c3 -> b5, d5 (knight moves from c3).
        let board = board(&[Square::B1], &["b1^a3c3:SPLIT_JUMP:BASIC", "c3^b5d5:SPLIT_JUMP:BASIC"]);
        let rho = board.exact_pair_density(Square::A3, Square::B5).expect("density");
        let trace: f64 = (0..4).map(|i| rho.matrix[i][i].re).sum();
        assert!((trace - 1.0).abs() < 1e-12);
        // P(a3) = 1/2, P(b5) = 1/4, never both: diag(1/4, 1/4, 1/2, 0) on |00>,|01>,|10>,|11>.
        assert!((rho.matrix[0][0].re - 0.25).abs() < 1e-12);
        assert!((rho.matrix[1][1].re - 0.25).abs() < 1e-12);
        assert!((rho.matrix[2][2].re - 0.5).abs() < 1e-12);
        assert!(rho.matrix[3][3].norm() < 1e-12);
    }
}
