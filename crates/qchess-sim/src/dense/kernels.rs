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
            for (offset, (a0, a1)) in zeros.iter_mut().zip(ones.iter_mut()).enumerate() {
                if below.admits(offset) {
                    pair(a0, a1);
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
    for_each_pair(amplitudes, target, controls, |a0, a1| {
        let (x0, x1) = (*a0, *a1);
        *a0 = m00 * x0 + m01 * x1;
        *a1 = m10 * x0 + m11 * x1;
    });
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
    for_each_quad(len, a, b, controls, |i| {
        let idx = [i, i | bit_a, i | bit_b, i | bit_a | bit_b];
        let x = idx.map(|k| amplitudes[k]);
        for (row, &k) in m.iter().zip(idx.iter()) {
            amplitudes[k] = row[0] * x[0] + row[1] * x[1] + row[2] * x[2] + row[3] * x[3];
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
    let (bit_a, bit_b) = (1usize << a, 1usize << b);
    let one = Complex64::new(1.0, 0.0);
    let len = amplitudes.len();
    let [[m00, m01], [m10, m11]] = block;
    for_each_quad(len, a, b, controls, |i| {
        let (ia, ib) = (i | bit_a, i | bit_b);
        let (x01, x10) = (amplitudes[ia], amplitudes[ib]);
        amplitudes[ia] = m00 * x01 + m01 * x10;
        amplitudes[ib] = m10 * x01 + m11 * x10;
        if d00 != one {
            amplitudes[i] *= d00;
        }
        if d11 != one {
            amplitudes[i | bit_a | bit_b] *= d11;
        }
    });
}

/// Applies a diagonal two-qubit gate `diag(d[0], d[1], d[2], d[3])` (index bit 0 = `a`).
pub(crate) fn apply_diagonal4(
    amplitudes: &mut [Complex64],
    a: usize,
    b: usize,
    d: [Complex64; 4],
    controls: ControlMask,
) {
    let (bit_a, bit_b) = (1usize << a, 1usize << b);
    for (index, amplitude) in amplitudes.iter_mut().enumerate() {
        if controls.admits(index) {
            let k = usize::from(index & bit_a != 0) | (usize::from(index & bit_b != 0) << 1);
            *amplitude *= d[k];
        }
    }
}

/// Sum of `|amplitude|^2` over indices whose bit `qubit` is set.
pub(crate) fn weight_of_one(amplitudes: &[Complex64], qubit: usize) -> f64 {
    let stride = 1usize << qubit;
    amplitudes.chunks_exact(2 * stride).map(|block| block[stride..].iter().map(|a| a.norm_sqr()).sum::<f64>()).sum()
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
