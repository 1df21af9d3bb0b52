//! One-qubit unitaries as a samplex's virtual registers hold them, and their synthesis into the
//! angles of a template's `rz`-`sx`-`rz`-`sx`-`rz` or `rz`-`rx`-`rz` run (the formulas of the
//! samplex's own synthesizers, so that the template circuit equals the register's gate).

use std::f64::consts::PI;

use num_complex::Complex64;

/// A 2x2 matrix, row-major.
pub type U2 = [Complex64; 4];

/// The identity.
pub const IDENTITY: U2 =
    [Complex64::new(1.0, 0.0), Complex64::new(0.0, 0.0), Complex64::new(0.0, 0.0), Complex64::new(1.0, 0.0)];

/// `a · b`.
pub fn product(a: &U2, b: &U2) -> U2 {
    [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]]
}

/// A fractional gate a samplex multiplies by: `rz(θ)` or `rx(θ)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rotation {
    /// `rz(θ) = diag(e^{-iθ/2}, e^{iθ/2})`.
    Z,
    /// `rx(θ) = cos(θ/2) I - i sin(θ/2) X`.
    X,
}

impl Rotation {
    /// The gate at angle `theta`.
    pub fn gate(self, theta: f64) -> U2 {
        let (sin, cos) = (0.5 * theta).sin_cos();
        let zero = Complex64::new(0.0, 0.0);
        match self {
            Rotation::Z => {
                [Complex64::from_polar(1.0, -0.5 * theta), zero, zero, Complex64::from_polar(1.0, 0.5 * theta)]
            }
            Rotation::X => {
                let off = Complex64::new(0.0, -sin);
                [Complex64::new(cos, 0.0), off, off, Complex64::new(cos, 0.0)]
            }
        }
    }
}

/// How a register's gate becomes template angles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Synth {
    /// `rz`, `sx`, `rz`, `sx`, `rz`.
    RzSx,
    /// `rz`, `rx`, `rz`.
    RzRx,
}

/// Below this, an angle counts as zero (or π) when phases are unified.
const TOLERANCE: f64 = 1e-15;

impl Synth {
    /// The three template angles, in template order, of `gate`.
    pub fn angles(self, gate: &U2) -> [f64; 3] {
        let determinant = gate[0] * gate[3] - gate[1] * gate[2];
        let phase = determinant.powf(-0.5);
        let plus = (phase * gate[3]).arg();
        let minus = (phase * gate[2]).arg();
        // The middle angle of an `rz` (its phases unify into the first angle) and of a π pulse.
        let (mut values, rotation_center, flip_center) = match self {
            Synth::RzSx => {
                let middle = PI - 2.0 * gate[2].norm().atan2(gate[0].norm());
                ([plus - minus - PI, middle, plus + minus], PI, 0.0)
            }
            Synth::RzRx => {
                let middle = 2.0 * gate[2].norm().atan2(gate[0].norm());
                ([plus - minus - PI / 2.0, middle, plus + minus + PI / 2.0], 0.0, PI)
            }
        };
        let center = values[1].rem_euclid(2.0 * PI);
        if (center - rotation_center).abs() < TOLERANCE {
            values[0] += values[2];
            values[2] = 0.0;
        }
        if (center - flip_center).abs() < TOLERANCE {
            values[0] -= values[2];
            values[2] = 0.0;
        }
        // Into (-π, π].
        values.map(|v| -(-v + PI).rem_euclid(2.0 * PI) + PI)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sx() -> U2 {
        let (a, b) = (Complex64::new(0.5, 0.5), Complex64::new(0.5, -0.5));
        [a, b, b, a]
    }

    /// The template's gates in time order, as one matrix.
    fn template(synth: Synth, angles: [f64; 3]) -> U2 {
        let z = |t| Rotation::Z.gate(t);
        match synth {
            Synth::RzSx => {
                product(&z(angles[2]), &product(&sx(), &product(&z(angles[1]), &product(&sx(), &z(angles[0])))))
            }
            Synth::RzRx => product(&z(angles[2]), &product(&Rotation::X.gate(angles[1]), &z(angles[0]))),
        }
    }

    /// Whether `a` and `b` are equal up to a global phase.
    fn equal_up_to_phase(a: &U2, b: &U2) -> bool {
        let overlap: Complex64 = a.iter().zip(b).map(|(x, y)| x.conj() * y).sum();
        (overlap.norm() - 2.0).abs() < 1e-9
    }

    #[test]
    fn both_synthesizers_rebuild_their_gate() {
        let h = {
            let r = Complex64::new(std::f64::consts::FRAC_1_SQRT_2, 0.0);
            [r, r, r, -r]
        };
        let gates = [
            IDENTITY,
            h,
            Rotation::X.gate(PI / 2.0),
            Rotation::Z.gate(0.3),
            product(&Rotation::X.gate(1.1), &Rotation::Z.gate(-0.4)),
            product(&h, &Rotation::Z.gate(2.0)),
            Rotation::X.gate(PI),
        ];
        for synth in [Synth::RzSx, Synth::RzRx] {
            for gate in &gates {
                let angles = synth.angles(gate);
                assert!(angles.iter().all(|a| a.abs() <= PI + 1e-12), "{angles:?}");
                assert!(equal_up_to_phase(&template(synth, angles), gate), "{synth:?} of {gate:?}: {angles:?}");
            }
        }
    }
}
