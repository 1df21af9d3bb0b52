//! 2x2 and 4x4 complex matrices: products, phase-blind comparison, and the Z-Y-Z Euler angles
//! every one-qubit synthesis starts from.

use std::f64::consts::PI;

use num_complex::Complex64;
use qchess_circuit::ir::{Matrix2, Matrix4};

/// Tolerance for angles and matrix entries that are "exactly" something.
pub const EPS: f64 = 1e-10;

/// The 2x2 identity.
pub fn identity2() -> Matrix2 {
    let (o, z) = (Complex64::new(1.0, 0.0), Complex64::new(0.0, 0.0));
    [[o, z], [z, o]]
}

/// `a * b` (apply `b` first).
pub fn mul2(a: &Matrix2, b: &Matrix2) -> Matrix2 {
    let mut m = [[Complex64::new(0.0, 0.0); 2]; 2];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = a[i][0] * b[0][j] + a[i][1] * b[1][j];
        }
    }
    m
}

/// `a * b` for 4x4 matrices (apply `b` first).
pub fn mul4(a: &Matrix4, b: &Matrix4) -> Matrix4 {
    let mut m = [[Complex64::new(0.0, 0.0); 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] + a[i][3] * b[3][j];
        }
    }
    m
}

/// Whether `m` is the identity times a phase.
pub fn is_identity_up_to_phase(m: &Matrix2) -> bool {
    m[0][1].norm_sqr() < EPS * EPS && m[1][0].norm_sqr() < EPS * EPS && (m[0][0] - m[1][1]).norm_sqr() < EPS * EPS
}

/// Whether `a = e^{i alpha} b` for some `alpha`.
pub fn equal_up_to_phase2(a: &Matrix2, b: &Matrix2) -> bool {
    let flat = |m: &Matrix2| [m[0][0], m[0][1], m[1][0], m[1][1]];
    equal_up_to_phase(&flat(a), &flat(b))
}

/// Whether two vectors are equal up to one global phase, entry by entry to `1e-8`.
pub fn equal_up_to_phase(a: &[Complex64], b: &[Complex64]) -> bool {
    let Some((k, _)) = b.iter().enumerate().max_by(|x, y| x.1.norm().total_cmp(&y.1.norm())) else {
        return a.is_empty();
    };
    if b[k].norm() < EPS {
        return a.iter().all(|x| x.norm() < 1e-8);
    }
    let phase = a[k] / b[k];
    (phase.norm() - 1.0).abs() < 1e-8 && a.iter().zip(b).all(|(x, y)| (x - phase * y).norm() < 1e-8)
}

/// `(theta, phi, lambda)` with `m = e^{i alpha} Rz(phi) Ry(theta) Rz(lambda)`, `theta` in `[0, pi]`.
pub fn zyz_angles(m: &Matrix2) -> (f64, f64, f64) {
    let (cos, sin) = (m[0][0].norm(), m[1][0].norm());
    let theta = 2.0 * sin.atan2(cos);
    // Differences of arguments fix each angle up to 2 pi, a global phase; halving sums of them
    // would leave a pi ambiguity that is not.
    let (phi, lambda) = if sin < EPS {
        (m[1][1].arg() - m[0][0].arg(), 0.0)
    } else if cos < EPS {
        (m[1][0].arg() - (-m[0][1]).arg(), 0.0)
    } else {
        (m[1][1].arg() - (-m[0][1]).arg(), m[1][1].arg() - m[1][0].arg())
    };
    (theta, phi, lambda)
}

/// `angle` moved into `(-pi, pi]`.
pub fn wrap(angle: f64) -> f64 {
    let wrapped = (angle + PI).rem_euclid(2.0 * PI) - PI;
    if wrapped <= -PI + EPS { PI } else { wrapped }
}

/// Whether `angle` is a multiple of `2 pi` (a rotation that is the identity up to phase).
pub fn is_zero_angle(angle: f64) -> bool {
    wrap(angle).abs() < EPS
}

/// The 4x4 matrix of `a (x) b`: `a` on the operand of index bit 0, `b` on bit 1.
pub fn kron(a: &Matrix2, b: &Matrix2) -> Matrix4 {
    let mut m = [[Complex64::new(0.0, 0.0); 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        for (j, entry) in row.iter_mut().enumerate() {
            *entry = a[i & 1][j & 1] * b[i >> 1][j >> 1];
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use qchess_circuit::ir::GateKind;

    use super::*;

    #[test]
    fn zyz_angles_rebuild_every_sample_gate() {
        let mut kinds: Vec<GateKind> = GateKind::samples().into_iter().filter(|k| k.arity() == 1).collect();
        kinds.extend([GateKind::U(PI, 0.3, -1.2), GateKind::U(1e-13, 0.3, 0.4), GateKind::Ry(PI), GateKind::Rx(-PI)]);
        for kind in kinds {
            let m = kind.matrix2().expect("one-qubit");
            let (theta, phi, lambda) = zyz_angles(&m);
            let rebuilt = mul2(
                &GateKind::Rz(phi).matrix2().expect("1q"),
                &mul2(&GateKind::Ry(theta).matrix2().expect("1q"), &GateKind::Rz(lambda).matrix2().expect("1q")),
            );
            assert!(equal_up_to_phase2(&rebuilt, &m), "{kind:?}");
        }
    }

    #[test]
    fn wrap_lands_in_half_open_interval() {
        assert!((wrap(3.0 * PI) - PI).abs() < 1e-12);
        assert!((wrap(-PI) - PI).abs() < 1e-12);
        assert!(wrap(2.0 * PI).abs() < 1e-12);
        assert!(is_zero_angle(-4.0 * PI) && !is_zero_angle(0.1));
    }
}
