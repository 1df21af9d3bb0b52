//! Two-qubit unitaries with the fewest CX: the KAK (Cartan) decomposition in the magic basis.
//!
//! Every two-qubit unitary is `U = K1 . A(a, b, c) . K2` with `K1`, `K2` one-qubit gates on each
//! side and `A = exp(i (a XX + b YY + c ZZ))`. In the magic basis `B` one-qubit pairs are real
//! orthogonal matrices and `A` is diagonal, so the spectrum of `M(U) = (B^+ U B)^T (B^+ U B)`
//! (with `U` scaled to determinant 1) decides what `U` needs (Shende, Bullock and Markov 2004):
//!
//! * 0 CX when `U` is a product of one-qubit gates (all four eigenvalues equal);
//! * 1 CX when `U` is locally a CX (eigenvalues `i, i, -i, -i`);
//! * 2 CX when the eigenvalues close under conjugation (`A(a, 0, c)` up to one-qubit gates,
//!   `CX . (Rx(-2a) (x) Rz(-2c)) . CX`);
//! * 3 CX otherwise (Vatan and Williams 2004: `Rz` and `Ry` between three alternating CX).
//!
//! [`synthesize`] tries 0, 1, 2, 3 in turn: it builds the core circuit whose `M` has the same
//! spectrum as `U`'s, finds the one-qubit gates around it from the two spectral decompositions
//! (two matrices whose `X^T X` are the same diagonal differ by a real orthogonal matrix, which is
//! a one-qubit pair in the magic basis), and keeps the first circuit whose product is `U` up to
//! a global phase to `1e-9`. Nothing is assumed about a decomposition that does not check out.

use std::f64::consts::{FRAC_1_SQRT_2, FRAC_PI_2, PI};

use num_complex::Complex64;
use qchess_circuit::ir::{GateKind, Matrix2, Matrix4};

use crate::linalg::{identity2, kron, mul4};
use crate::program::{Instr, one};

/// How close two eigenvalues must be to count as equal.
const SPECTRUM_TOLERANCE: f64 = 1e-7;
/// How close a synthesised circuit's product must be to the unitary, entry by entry.
const PRODUCT_TOLERANCE: f64 = 1e-9;

type Real4 = [[f64; 4]; 4];

fn c(re: f64, im: f64) -> Complex64 {
    Complex64::new(re, im)
}

/// The magic basis: its columns are Bell states with phases, `(|00> + |11>)/sqrt 2`,
/// `i (|00> - |11>)/sqrt 2`, `i (|01> + |10>)/sqrt 2`, `(|01> - |10>)/sqrt 2`.
fn magic() -> Matrix4 {
    let h = FRAC_1_SQRT_2;
    let z = c(0.0, 0.0);
    [
        [c(h, 0.0), c(0.0, h), z, z],
        [z, z, c(0.0, h), c(h, 0.0)],
        [z, z, c(0.0, h), c(-h, 0.0)],
        [c(h, 0.0), c(0.0, -h), z, z],
    ]
}

fn adjoint(m: &Matrix4) -> Matrix4 {
    let mut out = [[c(0.0, 0.0); 4]; 4];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = m[j][i].conj();
        }
    }
    out
}

fn transpose(m: &Matrix4) -> Matrix4 {
    let mut out = [[c(0.0, 0.0); 4]; 4];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = m[j][i];
        }
    }
    out
}

fn complex_of(m: &Real4) -> Matrix4 {
    m.map(|row| row.map(|x| c(x, 0.0)))
}

/// The determinant, by Gaussian elimination with partial pivoting.
fn det4(m: &Matrix4) -> Complex64 {
    let mut a = *m;
    let mut det = c(1.0, 0.0);
    for col in 0..4 {
        let pivot = (col..4).max_by(|&x, &y| a[x][col].norm_sqr().total_cmp(&a[y][col].norm_sqr())).unwrap_or(col);
        if a[pivot][col].norm_sqr() == 0.0 {
            return c(0.0, 0.0);
        }
        if pivot != col {
            a.swap(pivot, col);
            det = -det;
        }
        det *= a[col][col];
        let pivot_row = a[col];
        for row in a.iter_mut().skip(col + 1) {
            let factor = row[col] / pivot_row[col];
            for (entry, &above) in row.iter_mut().zip(&pivot_row).skip(col) {
                *entry -= factor * above;
            }
        }
    }
    det
}

fn det_real(m: &Real4) -> f64 {
    det4(&complex_of(m)).re
}

/// `u` scaled to determinant 1 (one of the four roots).
fn special(u: &Matrix4) -> Matrix4 {
    let root = det4(u).powf(0.25);
    u.map(|row| row.map(|x| x / root))
}

/// The eigenvalues and eigenvectors (columns) of a real symmetric 4x4 matrix, by cyclic Jacobi
/// rotations.
fn jacobi(mut a: Real4) -> Real4 {
    let mut v = [[0.0; 4]; 4];
    (0..4).for_each(|i| v[i][i] = 1.0);
    for _ in 0..64 {
        let off: f64 = (0..4)
            .flat_map(|i| (0..4).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        if off < 1e-30 {
            break;
        }
        for p in 0..4 {
            for q in p + 1..4 {
                if a[p][q].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let (cos, sin) = (1.0 / (t * t + 1.0).sqrt(), t / (t * t + 1.0).sqrt());
                for row in a.iter_mut() {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = cos * akp - sin * akq;
                    row[q] = sin * akp + cos * akq;
                }
                let (row_p, row_q) = (a[p], a[q]);
                for k in 0..4 {
                    a[p][k] = cos * row_p[k] - sin * row_q[k];
                    a[q][k] = sin * row_p[k] + cos * row_q[k];
                }
                for row in v.iter_mut() {
                    let (vkp, vkq) = (row[p], row[q]);
                    row[p] = cos * vkp - sin * vkq;
                    row[q] = sin * vkp + cos * vkq;
                }
            }
        }
    }
    v
}

/// A real orthogonal `P` and the eigenvalues `l` with `P^T m P = diag(l)`, for a symmetric
/// unitary `m` (its real and imaginary parts commute, so a generic real combination of them has
/// the common eigenvectors).
fn diagonalize(m: &Matrix4) -> Option<(Real4, [Complex64; 4])> {
    // Mixing weights with no simple relation to each other (the golden ratio's fraction, root 2,
    // e, 1/pi): a second try when the first happens to merge two eigenvalues.
    for mix in [0.618_033_988_749_894_8, std::f64::consts::SQRT_2, std::f64::consts::E, std::f64::consts::FRAC_1_PI] {
        let combined: Real4 = std::array::from_fn(|i| std::array::from_fn(|j| m[i][j].re + mix * m[i][j].im));
        let p = jacobi(combined);
        let d = mul4(&transpose(&complex_of(&p)), &mul4(m, &complex_of(&p)));
        let off = (0..4)
            .flat_map(|i| (0..4).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| d[i][j].norm_sqr())
            .fold(0.0, f64::max);
        if off < 1e-20 {
            return Some((p, std::array::from_fn(|k| d[k][k])));
        }
    }
    None
}

/// The spectrum of `M(u)` for `u` of determinant 1, with its eigenvectors in the magic basis.
fn spectrum(u: &Matrix4) -> Option<(Matrix4, Real4, [Complex64; 4])> {
    let b = magic();
    let in_magic = mul4(&adjoint(&b), &mul4(u, &b));
    let m = mul4(&transpose(&in_magic), &in_magic);
    let (p, eigenvalues) = diagonalize(&m)?;
    Some((in_magic, p, eigenvalues))
}

/// `k` as `ka (x) kb` (`ka` on the operand of index bit 0), each scaled to be unitary.
fn factor(k: &Matrix4) -> Option<(Matrix2, Matrix2)> {
    let (mut r0, mut c0) = (0, 0);
    for r in 0..4 {
        for col in 0..4 {
            if k[r][col].norm_sqr() > k[r0][c0].norm_sqr() {
                (r0, c0) = (r, col);
            }
        }
    }
    let ka: Matrix2 = std::array::from_fn(|i| std::array::from_fn(|j| k[(r0 & 2) | i][(c0 & 2) | j]));
    let kb: Matrix2 = std::array::from_fn(|i| std::array::from_fn(|j| k[(i << 1) | (r0 & 1)][(j << 1) | (c0 & 1)]));
    let unitary = |m: Matrix2| -> Option<Matrix2> {
        let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
        (det.norm() > 1e-12).then(|| m.map(|row| row.map(|x| x / det.sqrt())))
    };
    Some((unitary(ka)?, unitary(kb)?))
}

/// The spectral form of a unitary scaled to determinant 1: itself in the magic basis, the real
/// orthogonal `P` and the eigenvalues of `M`.
type Spectral = (Matrix4, Real4, [Complex64; 4]);

/// One-qubit pairs `k1`, `k2` with `u = k1 . v . k2` up to a global phase, if `u` (given in its
/// spectral form) and `v` are locally equivalent (their `M` spectra agree up to sign).
fn local_gates(u: &Spectral, v: &Matrix4) -> Option<((Matrix2, Matrix2), (Matrix2, Matrix2))> {
    let b = magic();
    let (u_magic, pu, lu) = u;
    let (u_magic, pu, lu) = (*u_magic, *pu, *lu);
    let v = special(v);
    for scale in [c(1.0, 0.0), c(0.0, 1.0)] {
        // Scaling by i keeps the determinant and turns the spectrum's sign.
        let (v_magic, pv, lv) = spectrum(&v.map(|row| row.map(|x| x * scale)))?;
        let mut used = [false; 4];
        let mut order = [0usize; 4];
        let mut matched = true;
        for k in 0..4 {
            let best = (0..4)
                .filter(|&j| !used[j])
                .min_by(|&x, &y| (lu[k] - lv[x]).norm_sqr().total_cmp(&(lu[k] - lv[y]).norm_sqr()));
            match best {
                Some(j) if (lu[k] - lv[j]).norm_sqr() < SPECTRUM_TOLERANCE * SPECTRUM_TOLERANCE => {
                    used[j] = true;
                    order[k] = j;
                }
                _ => matched = false,
            }
        }
        if !matched {
            continue;
        }
        let mut pv_ordered: Real4 = std::array::from_fn(|i| std::array::from_fn(|k| pv[i][order[k]]));
        if det_real(&pu) * det_real(&pv_ordered) < 0.0 {
            pv_ordered.iter_mut().for_each(|row| row[0] = -row[0]);
        }
        let xu = mul4(&u_magic, &complex_of(&pu));
        let xv = mul4(&v_magic, &complex_of(&pv_ordered));
        let q = mul4(&xu, &adjoint(&xv));
        if q.iter().flatten().any(|x| x.im.abs() > 1e-7) {
            continue;
        }
        let q: Real4 = q.map(|row| row.map(|x| x.re));
        let right: Real4 =
            std::array::from_fn(|i| std::array::from_fn(|j| (0..4).map(|k| pv_ordered[i][k] * pu[j][k]).sum()));
        let from_magic = |m: &Real4| mul4(&b, &mul4(&complex_of(m), &adjoint(&b)));
        return Some((factor(&from_magic(&q))?, factor(&from_magic(&right))?));
    }
    None
}

/// The core circuit of `cx` CX (0 to 3) on `a`, `b` whose `M` has the eigenvalues `l` of the
/// unitary to build, if one exists.
fn core(cx: usize, l: &[Complex64; 4], a: u32, b: u32) -> Option<Vec<Instr>> {
    match cx {
        // All eigenvalues equal: a product of one-qubit gates.
        0 => (1..4).all(|k| (l[k] - l[0]).norm_sqr() < SPECTRUM_TOLERANCE * SPECTRUM_TOLERANCE).then(Vec::new),
        // Eigenvalues +-i, twice each: locally a CX.
        1 => {
            let squares_are_minus_one =
                l.iter().all(|x| (x * x + 1.0).norm_sqr() < SPECTRUM_TOLERANCE * SPECTRUM_TOLERANCE);
            let sum_vanishes = l.iter().sum::<Complex64>().norm_sqr() < SPECTRUM_TOLERANCE * SPECTRUM_TOLERANCE;
            (squares_are_minus_one && sum_vanishes).then(|| vec![Instr::Cx { control: a, target: b }])
        }
        2 => {
            let conjugate =
                |i: usize, j: usize| (l[i] - l[j].conj()).norm_sqr() < SPECTRUM_TOLERANCE * SPECTRUM_TOLERANCE;
            let (first, second) = [((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))]
                .into_iter()
                .find(|&((i, j), (k, m))| conjugate(i, j) && conjugate(k, m))?;
            let (u, v) = (l[first.0].arg() / 2.0, l[second.0].arg() / 2.0);
            let (alpha, gamma) = ((u + v) / 2.0, (u - v) / 2.0);
            Some(vec![
                Instr::Cx { control: a, target: b },
                one(a, GateKind::Rx(-2.0 * alpha)),
                one(b, GateKind::Rz(-2.0 * gamma)),
                Instr::Cx { control: a, target: b },
            ])
        }
        3 => {
            let mut theta: [f64; 4] = std::array::from_fn(|k| l[k].arg() / 2.0);
            let turns = (theta.iter().sum::<f64>() / PI).round();
            theta[3] -= turns * PI;
            let (x, y, z) = ((theta[0] + theta[2]) / 2.0, (theta[1] + theta[2]) / 2.0, (theta[0] + theta[1]) / 2.0);
            Some(vec![
                one(b, GateKind::Rz(-FRAC_PI_2)),
                Instr::Cx { control: b, target: a },
                one(a, GateKind::Rz(FRAC_PI_2 - 2.0 * z)),
                one(b, GateKind::Ry(2.0 * x - FRAC_PI_2)),
                Instr::Cx { control: a, target: b },
                one(b, GateKind::Ry(FRAC_PI_2 - 2.0 * y)),
                Instr::Cx { control: b, target: a },
                one(a, GateKind::Rz(FRAC_PI_2)),
            ])
        }
        _ => None,
    }
}

/// The 4x4 matrix of one-qubit gates and CX on `a` (index bit 0) and `b` (bit 1), in time order;
/// `None` if an instruction is anything else or on another qubit.
pub fn matrix_of(instrs: &[Instr], a: u32, b: u32) -> Option<Matrix4> {
    let mut m = kron(&identity2(), &identity2());
    for instr in instrs {
        let step = match *instr {
            Instr::One { qubit, matrix } if qubit == a => kron(&matrix, &identity2()),
            Instr::One { qubit, matrix } if qubit == b => kron(&identity2(), &matrix),
            Instr::Cx { control, target } if (control, target) == (a, b) || (control, target) == (b, a) => {
                let (cbit, tbit) = if control == a { (1, 2) } else { (2, 1) };
                let image = |k: usize| if k & cbit != 0 { k ^ tbit } else { k };
                std::array::from_fn(|row| std::array::from_fn(|k| c(if image(k) == row { 1.0 } else { 0.0 }, 0.0)))
            }
            _ => return None,
        };
        m = mul4(&step, &m);
    }
    Some(m)
}

/// Whether `a = e^{i phi} b` entry by entry to `tolerance`.
fn same_up_to_phase(a: &Matrix4, b: &Matrix4, tolerance: f64) -> bool {
    let (mut r0, mut c0) = (0, 0);
    for r in 0..4 {
        for col in 0..4 {
            if b[r][col].norm_sqr() > b[r0][c0].norm_sqr() {
                (r0, c0) = (r, col);
            }
        }
    }
    let phase = a[r0][c0] / b[r0][c0];
    (phase.norm() - 1.0).abs() < tolerance
        && (0..4).all(|r| (0..4).all(|col| (a[r][col] - phase * b[r][col]).norm_sqr() < tolerance * tolerance))
}

/// The circuit of one-qubit gates and the fewest CX (0 to 3) on `a` (index bit 0 of `u`) and
/// `b`, in time order, whose product is `u` up to a global phase; `None` when it would take
/// `below` CX or more (or the decomposition does not check out numerically).
pub fn synthesize(u: &Matrix4, a: u32, b: u32, below: usize) -> Option<Vec<Instr>> {
    synthesize_with(u, a, b, 0..below.min(4))
}

/// How many CX `circuit` has.
pub fn cx_count(circuit: &[Instr]) -> usize {
    circuit.iter().filter(|i| matches!(i, Instr::Cx { .. })).count()
}

/// [`synthesize`] with the first CX count of `counts` (each 0 to 3) that builds `u`, for callers
/// that need a count of one parity (see [`crate::iswap`]). Three CX build any `u`; two build the
/// gates whose third KAK coordinate is zero, CX's class among them.
pub fn synthesize_with(u: &Matrix4, a: u32, b: u32, counts: impl IntoIterator<Item = usize>) -> Option<Vec<Instr>> {
    let spectral = spectrum(&special(u))?;
    for cx in counts {
        let Some(core) = core(cx, &spectral.2, a, b) else { continue };
        let Some(v) = matrix_of(&core, a, b) else { continue };
        let Some(((k1a, k1b), (k2a, k2b))) = local_gates(&spectral, &v) else { continue };
        let mut circuit = Vec::with_capacity(core.len() + 4);
        circuit.extend([Instr::One { qubit: a, matrix: k2a }, Instr::One { qubit: b, matrix: k2b }]);
        circuit.extend(core);
        circuit.extend([Instr::One { qubit: a, matrix: k1a }, Instr::One { qubit: b, matrix: k1b }]);
        if matrix_of(&circuit, a, b).is_some_and(|m| same_up_to_phase(&m, u, PRODUCT_TOLERANCE)) {
            return Some(circuit);
        }
    }
    None
}

#[cfg(test)]
mod tests;
