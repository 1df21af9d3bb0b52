//! In-place gate kernels on a full amplitude vector.
//!
//! Every kernel walks the vector once, touching each amplitude it changes exactly once and
//! allocating nothing. Controls are a bit mask and the value the masked bits must have, so
//! controls and anti-controls cost the same.

use num_complex::Complex64;

/// The basis states a controlled gate acts on: those with `index & mask == value`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct ControlMask {
    pub(crate) mask: usize,
    pub(crate) value: usize,
}

impl ControlMask {
    /// Whether `index` satisfies every control.
    #[inline(always)]
    fn admits(self, index: usize) -> bool {
        index & self.mask == self.value
    }

    /// The part of the mask on bits below `bit` and the part above it.
    fn split(self, bit: usize) -> (ControlMask, ControlMask) {
        let low = (1usize << bit) - 1;
        (
            ControlMask { mask: self.mask & low, value: self.value & low },
            ControlMask { mask: self.mask & !low, value: self.value & !low },
        )
    }
}

/// Calls `pair(lo, hi)` on every pair of amplitudes that differ only in bit `target` and
/// satisfy `controls`, with `lo` the one whose target bit is 0.
#[inline(always)]
fn for_each_pair(
    amplitudes: &mut [Complex64],
    target: usize,
    controls: ControlMask,
    mut pair: impl FnMut(&mut Complex64, &mut Complex64),
) {
    let stride = 1usize << target;
    let (below, above) = controls.split(target);
    if stride == 1 && controls.mask == 0 {
        // Adjacent pairs: no inner loop of one element.
        for block in amplitudes.chunks_exact_mut(2) {
            if let [a0, a1] = block {
                pair(a0, a1);
            }
        }
        return;
    }
    if stride == 1 {
        for (pair_index, block) in amplitudes.chunks_exact_mut(2).enumerate() {
            if let [a0, a1] = block
                && above.admits(pair_index * 2)
            {
                pair(a0, a1);
            }
        }
        return;
    }
    for (block_index, block) in amplitudes.chunks_exact_mut(2 * stride).enumerate() {
        if !above.admits(block_index * 2 * stride) {
            continue;
        }
        let (zeros, ones) = block.split_at_mut(stride);
        if below.mask == 0 {
            for (a0, a1) in zeros.iter_mut().zip(ones.iter_mut()) {
                pair(a0, a1);
            }
        } else {
            // Controls below the target are constant on runs below the lowest of them.
            let run = 1usize << below.mask.trailing_zeros();
            for (run_index, (zeros, ones)) in zeros.chunks_exact_mut(run).zip(ones.chunks_exact_mut(run)).enumerate() {
                if below.admits(run_index * run) {
                    for (a0, a1) in zeros.iter_mut().zip(ones.iter_mut()) {
                        pair(a0, a1);
                    }
                }
            }
        }
    }
}

/// Applies a general 2x2 matrix to qubit `target`.
pub(crate) fn apply_matrix2(
    amplitudes: &mut [Complex64],
    target: usize,
    m: &[[Complex64; 2]; 2],
    controls: ControlMask,
) {
    let [[m00, m01], [m10, m11]] = *m;
    if m.iter().flatten().all(|z| z.im == 0.0) {
        // Real entries (H, Ry): half the multiplications of complex ones.
        let [a, b, c, d] = [m00.re, m01.re, m10.re, m11.re];
        for_each_pair(amplitudes, target, controls, |a0, a1| {
            let (x0, x1) = (*a0, *a1);
            *a0 = Complex64::new(a * x0.re + b * x1.re, a * x0.im + b * x1.im);
            *a1 = Complex64::new(c * x0.re + d * x1.re, c * x0.im + d * x1.im);
        });
    } else if m00.im == 0.0 && m11.im == 0.0 && m01.re == 0.0 && m10.re == 0.0 {
        // Real diagonal, imaginary off the diagonal (Rx): i*y*x = (-y x.im, y x.re).
        let [a, b, c, d] = [m00.re, m01.im, m10.im, m11.re];
        for_each_pair(amplitudes, target, controls, |a0, a1| {
            let (x0, x1) = (*a0, *a1);
            *a0 = Complex64::new(a * x0.re - b * x1.im, a * x0.im + b * x1.re);
            *a1 = Complex64::new(d * x1.re - c * x0.im, d * x1.im + c * x0.re);
        });
    } else {
        for_each_pair(amplitudes, target, controls, |a0, a1| {
            let (x0, x1) = (*a0, *a1);
            *a0 = m00 * x0 + m01 * x1;
            *a1 = m10 * x0 + m11 * x1;
        });
    }
}

/// Applies `diag(d0, d1)` to qubit `target`; when `d0 == 1` only half the vector is touched.
pub(crate) fn apply_diagonal2(
    amplitudes: &mut [Complex64],
    target: usize,
    d0: Complex64,
    d1: Complex64,
    controls: ControlMask,
) {
    if d0 == Complex64::new(1.0, 0.0) {
        // A phase on |1> only: the target bit joins the controls.
        let bit = 1usize << target;
        let controls = ControlMask { mask: controls.mask | bit, value: controls.value | bit };
        apply_phase_where(amplitudes, d1, controls);
    } else {
        for_each_pair(amplitudes, target, controls, |a0, a1| {
            *a0 *= d0;
            *a1 *= d1;
        });
    }
}

/// Multiplies by `phase` every amplitude whose index satisfies `controls`.
pub(crate) fn apply_phase_where(amplitudes: &mut [Complex64], phase: Complex64, controls: ControlMask) {
    if controls.mask == 0 {
        amplitudes.iter_mut().for_each(|a| *a *= phase);
        return;
    }
    // Walk contiguous runs below the lowest masked bit, skipping whole runs that fail.
    let lowest = controls.mask.trailing_zeros() as usize;
    let run = 1usize << lowest;
    for (run_index, chunk) in amplitudes.chunks_exact_mut(run).enumerate() {
        if controls.admits(run_index * run) {
            chunk.iter_mut().for_each(|a| *a *= phase);
        }
    }
}

/// Exchanges the amplitudes of each pair differing in bit `target` (Pauli X).
pub(crate) fn apply_x(amplitudes: &mut [Complex64], target: usize, controls: ControlMask) {
    for_each_pair(amplitudes, target, controls, std::mem::swap);
}

/// Calls `quad(i00)` for every index with bits `a` and `b` clear that satisfies `controls`;
/// the other three members of the quad are `i00 | 1 << a`, `i00 | 1 << b` and both.
#[inline(always)]
fn for_each_quad(len: usize, a: usize, b: usize, controls: ControlMask, mut quad: impl FnMut(usize)) {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let lo_size = 1usize << lo;
    let hi_size = 1usize << hi;
    for outer in (0..len).step_by(2 * hi_size) {
        for middle in (0..hi_size).step_by(2 * lo_size) {
            let base = outer | middle;
            for inner in 0..lo_size {
                let index = base | inner;
                if controls.admits(index) {
                    quad(index);
                }
            }
        }
    }
}

/// Applies a general 4x4 matrix to targets `a` (index bit 0) and `b` (index bit 1).
pub(crate) fn apply_matrix4(
    amplitudes: &mut [Complex64],
    a: usize,
    b: usize,
    m: &[[Complex64; 4]; 4],
    controls: ControlMask,
) {
    let (bit_a, bit_b) = (1usize << a, 1usize << b);
    let len = amplitudes.len();
    // Only the nonzero entries are multiplied (Rxx and Ryy have half of them zero).
    let zero = Complex64::new(0.0, 0.0);
    let mut terms = [(0usize, 0usize, zero); 16];
    let mut count = 0;
    for (row, values) in m.iter().enumerate() {
        for (column, &value) in values.iter().enumerate() {
            if value != zero {
                terms[count] = (row, column, value);
                count += 1;
            }
        }
    }
    let terms = &terms[..count];
    for_each_quad(len, a, b, controls, |i| {
        let idx = [i, i | bit_a, i | bit_b, i | bit_a | bit_b];
        let x = idx.map(|k| amplitudes[k]);
        let mut y = [zero; 4];
        for &(row, column, value) in terms {
            y[row] += value * x[column];
        }
        for (&k, value) in idx.iter().zip(y) {
            amplitudes[k] = value;
        }
    });
}

/// Applies a matrix that mixes only `|01>` and `|10>` (index bit 0 = `a`), with `|00>` and
/// `|11>` multiplied by `d00` and `d11`: SWAP, iSWAP powers.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_exchange(
    amplitudes: &mut [Complex64],
    a: usize,
    b: usize,
    d00: Complex64,
    d11: Complex64,
    block: [[Complex64; 2]; 2],
    controls: ControlMask,
) {
    let one = Complex64::new(1.0, 0.0);
    let zero = Complex64::new(0.0, 0.0);
    let [[m00, m01], [m10, m11]] = block;
    // The cheapest arithmetic the block allows: an exchange with phases (SWAP, iSWAP), a real
    // diagonal with an imaginary off-diagonal (square roots of iSWAP), or the general case.
    if m00 == zero && m11 == zero {
        if m01 == one && m10 == one {
            walk_exchange(amplitudes, a, b, d00, d11, controls, std::mem::swap);
        } else if m01.re == 0.0 && m10.re == 0.0 {
            // Imaginary phases (iSWAP): i*q*v = (-q v.im, q v.re).
            let (q, r) = (m01.im, m10.im);
            walk_exchange(amplitudes, a, b, d00, d11, controls, |x01, x10| {
                let (u, v) = (*x01, *x10);
                *x01 = Complex64::new(-q * v.im, q * v.re);
                *x10 = Complex64::new(-r * u.im, r * u.re);
            });
        } else {
            walk_exchange(amplitudes, a, b, d00, d11, controls, |x01, x10| {
                let (u, v) = (*x01, *x10);
                *x01 = m01 * v;
                *x10 = m10 * u;
            });
        }
    } else if m00.im == 0.0 && m11.im == 0.0 && m01.re == 0.0 && m10.re == 0.0 {
        let [p, q, r, t] = [m00.re, m01.im, m10.im, m11.re];
        walk_exchange(amplitudes, a, b, d00, d11, controls, |x01, x10| {
            let (u, v) = (*x01, *x10);
            *x01 = Complex64::new(p * u.re - q * v.im, p * u.im + q * v.re);
            *x10 = Complex64::new(t * v.re - r * u.im, t * v.im + r * u.re);
        });
    } else {
        walk_exchange(amplitudes, a, b, d00, d11, controls, |x01, x10| {
            let (u, v) = (*x01, *x10);
            *x01 = m00 * u + m01 * v;
            *x10 = m10 * u + m11 * v;
        });
    }
}

/// Calls `mix(x01, x10)` on every `|01>`, `|10>` pair of targets `a` (index bit 0) and `b`
/// that satisfies `controls`, and scales `|00>` and `|11>` by `d00` and `d11`.
///
/// Without controls or diagonal phases, and with the lower target at bit 2 or above, the pairs
/// are walked as aligned runs of slices; otherwise quad by quad.
fn walk_exchange(
    amplitudes: &mut [Complex64],
    a: usize,
    b: usize,
    d00: Complex64,
    d11: Complex64,
    controls: ControlMask,
    mix: impl Fn(&mut Complex64, &mut Complex64),
) {
    let one = Complex64::new(1.0, 0.0);
    let (lo, hi) = (a.min(b), a.max(b));
    if controls.mask == 0 && d00 == one && d11 == one && lo >= 2 {
        for block in amplitudes.chunks_exact_mut(2 << hi) {
            let (high_clear, high_set) = block.split_at_mut(1 << hi);
            // `low_set` has the lower target bit set and the higher clear; `high_set` the reverse.
            let lows = high_clear.chunks_exact_mut(2 << lo).map(|chunk| chunk.split_at_mut(1 << lo).1);
            let highs = high_set.chunks_exact_mut(2 << lo).map(|chunk| chunk.split_at_mut(1 << lo).0);
            for (low_set, high_set) in lows.zip(highs) {
                // Index bit 0 is `a`: |01> is the state with `a` set.
                if a == lo {
                    low_set.iter_mut().zip(high_set.iter_mut()).for_each(|(x, y)| mix(x, y));
                } else {
                    low_set.iter_mut().zip(high_set.iter_mut()).for_each(|(x, y)| mix(y, x));
                }
            }
        }
        return;
    }
    let (bit_a, bit_b) = (1usize << a, 1usize << b);
    for_each_quad(amplitudes.len(), a, b, controls, |i| {
        let (ia, ib) = (i | bit_a, i | bit_b);
        let (mut x01, mut x10) = (amplitudes[ia], amplitudes[ib]);
        mix(&mut x01, &mut x10);
        (amplitudes[ia], amplitudes[ib]) = (x01, x10);
        if d00 != one {
            amplitudes[i] *= d00;
        }
        if d11 != one {
            amplitudes[i | bit_a | bit_b] *= d11;
        }
    });
}

/// Applies a diagonal two-qubit gate `diag(d[0], d[1], d[2], d[3])` (index bit 0 = `a`).
///
/// Without controls the vector is walked in blocks where the higher target bit is constant,
/// each split into runs where the lower one is too; a run is scaled by one factor (skipped
/// when it is 1).
pub(crate) fn apply_diagonal4(
    amplitudes: &mut [Complex64],
    a: usize,
    b: usize,
    d: [Complex64; 4],
    controls: ControlMask,
) {
    let (bit_a, bit_b) = (1usize << a, 1usize << b);
    if controls.mask != 0 {
        for (index, amplitude) in amplitudes.iter_mut().enumerate() {
            if controls.admits(index) {
                *amplitude *= d[usize::from(index & bit_a != 0) | (usize::from(index & bit_b != 0) << 1)];
            }
        }
        return;
    }
    let (lo, hi) = (a.min(b), a.max(b));
    if hi < 4 {
        // Both target bits are low: the factors repeat every 2^(hi + 1) amplitudes.
        let mut pattern = [Complex64::new(0.0, 0.0); 16];
        let period = 2usize << hi;
        for (offset, factor) in pattern.iter_mut().enumerate().take(period) {
            *factor = d[usize::from(offset & bit_a != 0) | (usize::from(offset & bit_b != 0) << 1)];
        }
        for chunk in amplitudes.chunks_exact_mut(period) {
            for (amplitude, factor) in chunk.iter_mut().zip(&pattern[..period]) {
                *amplitude *= *factor;
            }
        }
        return;
    }
    let one = Complex64::new(1.0, 0.0);
    let scale = |run: &mut [Complex64], factor: Complex64| {
        if factor != one {
            run.iter_mut().for_each(|amplitude| *amplitude *= factor);
        }
    };
    for (block_index, block) in amplitudes.chunks_exact_mut(1 << hi).enumerate() {
        let high_set = block_index & 1 == 1;
        // The factors where the lower target bit is 0 and where it is 1.
        let factor = |low_set: bool| {
            let (a_set, b_set) = if a == lo { (low_set, high_set) } else { (high_set, low_set) };
            d[usize::from(a_set) | (usize::from(b_set) << 1)]
        };
        let (f0, f1) = (factor(false), factor(true));
        if lo == 0 {
            for pair in block.chunks_exact_mut(2) {
                pair[0] *= f0;
                pair[1] *= f1;
            }
        } else {
            for pattern in block.chunks_exact_mut(2 << lo) {
                let (zeros, ones) = pattern.split_at_mut(1 << lo);
                scale(zeros, f0);
                scale(ones, f1);
            }
        }
    }
}

/// Sum of `|amplitude|^2` over indices whose bit `qubit` is set.
pub(crate) fn weight_of_one(amplitudes: &[Complex64], qubit: usize) -> f64 {
    let stride = 1usize << qubit;
    amplitudes.chunks_exact(2 * stride).map(|block| block[stride..].iter().map(|a| a.norm_sqr()).sum::<f64>()).sum()
}

/// The weights `(w0, w1)` of the basis states whose bit `qubit` reads 0 and 1, in one pass.
pub(crate) fn outcome_weights(amplitudes: &[Complex64], qubit: usize) -> (f64, f64) {
    let stride = 1usize << qubit;
    amplitudes.chunks_exact(2 * stride).fold((0.0, 0.0), |(zero, one), block| {
        let (zeros, ones) = block.split_at(stride);
        (zero + zeros.iter().map(|a| a.norm_sqr()).sum::<f64>(), one + ones.iter().map(|a| a.norm_sqr()).sum::<f64>())
    })
}

/// Zeroes every amplitude whose bit `qubit` differs from `value`, and scales the others.
pub(crate) fn project(amplitudes: &mut [Complex64], qubit: usize, value: bool, scale: f64) {
    let stride = 1usize << qubit;
    for block in amplitudes.chunks_exact_mut(2 * stride) {
        let (zeros, ones) = block.split_at_mut(stride);
        let (kept, dropped) = if value { (ones, zeros) } else { (zeros, ones) };
        dropped.iter_mut().for_each(|a| *a = Complex64::new(0.0, 0.0));
        if scale != 1.0 {
            kept.iter_mut().for_each(|a| *a *= scale);
        }
    }
}
