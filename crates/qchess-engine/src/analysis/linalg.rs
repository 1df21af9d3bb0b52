//! The little linear algebra the analysis needs: eigenvalues of a Hermitian 4x4 matrix.
//!
//! A Hermitian `H = A + iB` has the same eigenvalues as the real symmetric
//! `[[A, -B], [B, A]]`, each twice; the cyclic Jacobi method finds those to machine precision.

use num_complex::Complex64;

/// Sweeps after which Jacobi stops even if the off-diagonal part is not yet negligible
/// (it converges quadratically; 8x8 matrices need well under 10).
const MAX_SWEEPS: usize = 64;

/// The eigenvalues of a Hermitian 4x4 matrix, ascending. Only the lower triangle's
/// Hermitian part is assumed; `matrix` is symmetrised first.
pub(crate) fn hermitian_eigenvalues(matrix: &[[Complex64; 4]; 4]) -> [f64; 4] {
    let mut real = [[0.0f64; 8]; 8];
    for i in 0..4 {
        for j in 0..4 {
            // Symmetrise: (H + H^dagger) / 2 removes rounding asymmetry.
            let h = (matrix[i][j] + matrix[j][i].conj()) / 2.0;
            real[i][j] = h.re;
            real[i + 4][j + 4] = h.re;
            real[i][j + 4] = -h.im;
            real[i + 4][j] = h.im;
        }
    }
    let mut values = symmetric_eigenvalues(real);
    values.sort_by(f64::total_cmp);
    // Each eigenvalue appears twice, adjacent after sorting.
    [values[0], values[2], values[4], values[6]]
}

/// Eigenvalues of a real symmetric 8x8 matrix by cyclic Jacobi rotations.
fn symmetric_eigenvalues(mut a: [[f64; 8]; 8]) -> [f64; 8] {
    const N: usize = 8;
    for _ in 0..MAX_SWEEPS {
        let off: f64 = (0..N)
            .flat_map(|i| (0..N).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        if off < 1e-30 {
            break;
        }
        for p in 0..N {
            for q in p + 1..N {
                if a[p][q].abs() < 1e-300 {
                    continue;
                }
                // The rotation that zeroes a[p][q] (Golub and Van Loan, symmetric Schur).
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for row in a.iter_mut() {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = c * akp - s * akq;
                    row[q] = s * akp + c * akq;
                }
                let (head, tail) = a.split_at_mut(q);
                for (x, y) in head[p].iter_mut().zip(tail[0].iter_mut()) {
                    let (apk, aqk) = (*x, *y);
                    *x = c * apk - s * aqk;
                    *y = s * apk + c * aqk;
                }
            }
        }
    }
    std::array::from_fn(|i| a[i][i])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(re: f64, im: f64) -> Complex64 {
        Complex64::new(re, im)
    }

    #[test]
    fn diagonal_matrices_give_their_diagonal() {
        let z = c(0.0, 0.0);
        let m = [[c(3.0, 0.0), z, z, z], [z, c(-1.0, 0.0), z, z], [z, z, c(0.5, 0.0), z], [z, z, z, c(2.0, 0.0)]];
        let values = hermitian_eigenvalues(&m);
        for (v, e) in values.iter().zip([-1.0, 0.5, 2.0, 3.0]) {
            assert!((v - e).abs() < 1e-14, "{values:?}");
        }
    }

    #[test]
    fn complex_off_diagonals() {
        // [[0, -i], [i, 0]] (Pauli Y) has eigenvalues -1 and 1; padded with 5 and 7.
        let z = c(0.0, 0.0);
        let m = [[z, c(0.0, -1.0), z, z], [c(0.0, 1.0), z, z, z], [z, z, c(5.0, 0.0), z], [z, z, z, c(7.0, 0.0)]];
        let values = hermitian_eigenvalues(&m);
        for (v, e) in values.iter().zip([-1.0, 1.0, 5.0, 7.0]) {
            assert!((v - e).abs() < 1e-13, "{values:?}");
        }
    }

    #[test]
    fn a_dense_hermitian_matrix() {
        // All entries 1: rank one with eigenvalue 4; the rest 0. Then a phase twist keeps the
        // spectrum: D M D^dagger with D = diag(1, i, -1, -i).
        let phases = [c(1.0, 0.0), c(0.0, 1.0), c(-1.0, 0.0), c(0.0, -1.0)];
        let m: [[Complex64; 4]; 4] = std::array::from_fn(|i| std::array::from_fn(|j| phases[i] * phases[j].conj()));
        let values = hermitian_eigenvalues(&m);
        for (v, e) in values.iter().zip([0.0, 0.0, 0.0, 4.0]) {
            assert!((v - e).abs() < 1e-13, "{values:?}");
        }
    }
}
