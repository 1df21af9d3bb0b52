//! Looking inside the quantum state: Bell correlations and entanglement between squares.
//!
//! Both read the reduced density matrix `rho` of two squares' occupancy (everything else traced
//! out, see [`SquarePairDensity`]), which exact backends give.
//!
//! - [`BellCorrelations`]: the expectation values `<phi|rho|phi>` of the projectors onto the
//!   eight two-qubit states (first square left in each ket):
//!   O1 `Psi+ = (|01>+|10>)/sqrt2`, O2 `Psi- = (|01>-|10>)/sqrt2`,
//!   O3 `Psi+i = (|01>+i|10>)/sqrt2`, O4 `Psi-i = (|01>-i|10>)/sqrt2`,
//!   O5 `Phi+ = (|00>+|11>)/sqrt2`, O6 `Phi- = (|00>-|11>)/sqrt2`,
//!   O7 `Phi+i = (|00>+i|11>)/sqrt2`, O8 `Phi-i = (|00>-i|11>)/sqrt2`.
//! - [`entangled_group`]: the squares whose occupancy a measurement of one square bears on,
//!   read from the occupancy distribution (any board gives it).
//! - [`log_negativity`]: `log2 ||rho^T_B||_1`, the trace norm of the partial transpose on the
//!   second square: 0 for product (and all separable two-qubit) states, 1 for a maximally
//!   entangled pair.
//!
//! After a knight splits from b1 to a3 and c3 the state is `(i/sqrt2)(|10> + |01>)` on
//! (a3, c3), which is `Psi+` up to a global phase:
//!
//! ```
//! use qchess_engine::Game;
//!
//! let mut game = Game::standard();
//! game.play("b1^a3c3")?;
//! let bell = game.bell_correlations("a3".parse()?, "c3".parse()?)?;
//! assert!((bell.values[0] - 1.0).abs() < 1e-12); // O1 = <Psi+|rho|Psi+> = 1
//! assert!((bell.values[2] - 0.5).abs() < 1e-12); // O3 = |<Psi+i|Psi+>|^2 = 1/2
//! let entanglement = game.entanglement("a3".parse()?)?;
//! assert!((entanglement[usize::from(qchess_core::Square::C3)] - 1.0).abs() < 1e-12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod groups;
mod linalg;

use num_complex::Complex64;
use qchess_core::{Square, SquarePairDensity};

use crate::{Game, GameError};

pub use groups::entangled_group;

/// The names of the eight Bell projectors, in order O1 ..= O8.
pub const BELL_STATE_NAMES: [&str; 8] = ["Psi+", "Psi-", "Psi+i", "Psi-i", "Phi+", "Phi-", "Phi+i", "Phi-i"];

/// The expectation values O1 ..= O8 of the Bell projectors for two squares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BellCorrelations {
    /// The first square.
    pub first: Square,
    /// The second square.
    pub second: Square,
    /// O1 ..= O8, in the order of [`BELL_STATE_NAMES`].
    pub values: [f64; 8],
}

impl BellCorrelations {
    /// The correlations read from a two-square density matrix.
    pub fn from_density(density: &SquarePairDensity) -> BellCorrelations {
        let values = bell_states().map(|phi| expectation(&density.matrix, &phi));
        BellCorrelations { first: density.first, second: density.second, values }
    }
}

/// The eight Bell states as vectors over `|00>, |01>, |10>, |11>`.
fn bell_states() -> [[Complex64; 4]; 8] {
    let h = Complex64::new(std::f64::consts::FRAC_1_SQRT_2, 0.0);
    let z = Complex64::new(0.0, 0.0);
    let i = Complex64::new(0.0, std::f64::consts::FRAC_1_SQRT_2);
    [[z, h, h, z], [z, h, -h, z], [z, h, i, z], [z, h, -i, z], [h, z, z, h], [h, z, z, -h], [h, z, z, i], [h, z, z, -i]]
}

/// `<phi|rho|phi>`, real for a Hermitian `rho`.
fn expectation(rho: &[[Complex64; 4]; 4], phi: &[Complex64; 4]) -> f64 {
    let mut total = Complex64::new(0.0, 0.0);
    for i in 0..4 {
        for j in 0..4 {
            total += phi[i].conj() * rho[i][j] * phi[j];
        }
    }
    total.re
}

/// The log negativity `log2 ||rho^T_B||_1` of a two-square density matrix (0 when the trace
/// norm rounds below 1).
pub fn log_negativity(density: &SquarePairDensity) -> f64 {
    let rho = &density.matrix;
    // (rho^T_B)[(a,b),(a',b')] = rho[(a,b'),(a',b)], index 2a + b.
    let transposed: [[Complex64; 4]; 4] =
        std::array::from_fn(|row| std::array::from_fn(|col| rho[(row & 2) | (col & 1)][(col & 2) | (row & 1)]));
    let trace_norm: f64 = linalg::hermitian_eigenvalues(&transposed).iter().map(|v| v.abs()).sum();
    trace_norm.log2().max(0.0)
}

impl Game {
    /// The reduced density matrix of two different squares (after a full-board measurement,
    /// the measured board's product state).
    pub fn pair_density(&mut self, first: Square, second: Square) -> Result<SquarePairDensity, GameError> {
        if let Some(measured) = self.measured_board() {
            return Ok(SquarePairDensity::classical(
                first,
                second,
                measured.contains(first),
                measured.contains(second),
            ));
        }
        self.board_mut().pair_density(first, second).map_err(GameError::Backend)
    }

    /// The Bell correlations O1 ..= O8 of two different squares.
    pub fn bell_correlations(&mut self, first: Square, second: Square) -> Result<BellCorrelations, GameError> {
        Ok(BellCorrelations::from_density(&self.pair_density(first, second)?))
    }

    /// The log negativity between `square` and each square, indexed by square (0 for itself).
    pub fn entanglement(&mut self, square: Square) -> Result<[f64; 64], GameError> {
        let mut values = [0.0; 64];
        let quantum = self.position().superposed();
        for other in Square::ALL {
            // A square that is certainly empty or full is in a product state with everything.
            if other != square && quantum.contains(other) && quantum.contains(square) {
                values[usize::from(other)] = log_negativity(&self.pair_density(square, other)?);
            }
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn density(entries: [[(f64, f64); 4]; 4]) -> SquarePairDensity {
        let matrix = entries.map(|row| row.map(|(re, im)| Complex64::new(re, im)));
        SquarePairDensity { first: Square::A1, second: Square::B1, matrix }
    }

    #[test]
    fn psi_plus_and_product_states() {
        let z = (0.0, 0.0);
        let h = (0.5, 0.0);
        let psi_plus = density([[z; 4], [z, h, h, z], [z, h, h, z], [z; 4]]);
        let bell = BellCorrelations::from_density(&psi_plus);
        let expected = [1.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0];
        for (v, e) in bell.values.iter().zip(expected) {
            assert!((v - e).abs() < 1e-12, "{:?}", bell.values);
        }
        assert!((log_negativity(&psi_plus) - 1.0).abs() < 1e-12);
        // |+>|0> = (|00> + |10>)/sqrt2 is a product state.
        let product = density([[h, z, h, z], [z; 4], [h, z, h, z], [z; 4]]);
        assert!(log_negativity(&product).abs() < 1e-12);
        // The classically correlated mixture diag(1/2, 0, 0, 1/2) is separable.
        let mixed = density([[h, z, z, z], [z; 4], [z; 4], [z, z, z, h]]);
        assert!(log_negativity(&mixed).abs() < 1e-12);
        let bell = BellCorrelations::from_density(&mixed);
        for k in 4..8 {
            assert!((bell.values[k] - 0.5).abs() < 1e-12, "{:?}", bell.values);
        }
    }

    #[test]
    fn phi_plus_i_is_maximally_entangled() {
        let z = (0.0, 0.0);
        // |phi> = (|00> + i|11>)/sqrt2: rho = |phi><phi| has rho[0][3] = -i/2, rho[3][0] = i/2.
        let rho = density([[(0.5, 0.0), z, z, (0.0, -0.5)], [z; 4], [z; 4], [(0.0, 0.5), z, z, (0.5, 0.0)]]);
        let bell = BellCorrelations::from_density(&rho);
        assert!((bell.values[6] - 1.0).abs() < 1e-12, "{:?}", bell.values);
        assert!(bell.values[7].abs() < 1e-12);
        assert!((bell.values[4] - 0.5).abs() < 1e-12);
        assert!((log_negativity(&rho) - 1.0).abs() < 1e-12);
    }
}
