//! Applying a fused block to a state vector, in single or double precision, on one thread or
//! several.
//!
//! The basis states a block mixes form groups of `2^m` amplitudes (one per value of its qubits).
//! Groups are processed [`LANES`] at a time: their amplitudes are gathered into fixed-size
//! arrays of real and imaginary parts, multiplied by the matrix in loops over the lanes that the
//! compiler vectorises, and scattered back. When the block's lowest qubit is at bit 3 or above,
//! the lanes of a gather are contiguous and copied as one slice.
//!
//! Threads take contiguous parts of the vector that hold whole groups (parts of at least twice
//! the highest qubit's stride); a block on the top qubits runs on one thread. Every amplitude is
//! computed by the same operations in the same order whatever the split, so results do not
//! depend on the thread count.

use std::ops::{Add, Mul, Sub};

use num_complex::Complex;

use super::fusion::Block;
use super::workers;

/// Groups processed together.
const LANES: usize = 8;

/// States below this many amplitudes stay on one thread: spawning costs more than the pass.
const THREADED_FROM: usize = 1 << 14;

/// The real number type of amplitudes: `f32` (single precision) or `f64` (double).
pub trait Real:
    Copy + Default + PartialEq + Send + Sync + bytemuck::Pod + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    /// From a double (rounded for `f32`).
    fn from_f64(value: f64) -> Self;
    /// To a double (exact).
    fn to_f64(self) -> f64;
    /// `acc += w * x` on `N` lanes, with the vector instructions of `simd` (fused
    /// multiply-adds where the processor has them).
    fn madd_lanes<S: pulp::Simd, const N: usize>(simd: S, acc: &mut [Self; N], w: &[Self; N], x: &[Self; N]);
    /// `out = a - b` on `N` lanes.
    fn sub_lanes<S: pulp::Simd, const N: usize>(simd: S, out: &mut [Self; N], a: &[Self; N], b: &[Self; N]);
    /// `out = a + b` on `N` lanes.
    fn add_lanes<S: pulp::Simd, const N: usize>(simd: S, out: &mut [Self; N], a: &[Self; N], b: &[Self; N]);
}

/// Implements the lane operations of [`Real`] for one type through `pulp`'s vectors.
macro_rules! lane_ops {
    ($t:ty, $as_simd:ident, $as_mut_simd:ident, $madd:ident, $sub:ident, $add:ident) => {
        #[inline(always)]
        fn madd_lanes<S: pulp::Simd, const N: usize>(simd: S, acc: &mut [$t; N], w: &[$t; N], x: &[$t; N]) {
            let (acc_v, acc_t) = S::$as_mut_simd(acc);
            let ((w_v, w_t), (x_v, x_t)) = (S::$as_simd(w), S::$as_simd(x));
            for ((a, &w), &x) in acc_v.iter_mut().zip(w_v).zip(x_v) {
                *a = simd.$madd(w, x, *a);
            }
            for ((a, &w), &x) in acc_t.iter_mut().zip(w_t).zip(x_t) {
                *a += w * x;
            }
        }
        #[inline(always)]
        fn sub_lanes<S: pulp::Simd, const N: usize>(simd: S, out: &mut [$t; N], a: &[$t; N], b: &[$t; N]) {
            let (out_v, out_t) = S::$as_mut_simd(out);
            let ((a_v, a_t), (b_v, b_t)) = (S::$as_simd(a), S::$as_simd(b));
            for ((o, &a), &b) in out_v.iter_mut().zip(a_v).zip(b_v) {
                *o = simd.$sub(a, b);
            }
            for ((o, &a), &b) in out_t.iter_mut().zip(a_t).zip(b_t) {
                *o = a - b;
            }
        }
        #[inline(always)]
        fn add_lanes<S: pulp::Simd, const N: usize>(simd: S, out: &mut [$t; N], a: &[$t; N], b: &[$t; N]) {
            let (out_v, out_t) = S::$as_mut_simd(out);
            let ((a_v, a_t), (b_v, b_t)) = (S::$as_simd(a), S::$as_simd(b));
            for ((o, &a), &b) in out_v.iter_mut().zip(a_v).zip(b_v) {
                *o = simd.$add(a, b);
            }
            for ((o, &a), &b) in out_t.iter_mut().zip(a_t).zip(b_t) {
                *o = a + b;
            }
        }
    };
}

impl Real for f32 {
    fn from_f64(value: f64) -> f32 {
        value as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    lane_ops!(f32, as_simd_f32s, as_mut_simd_f32s, mul_add_e_f32s, sub_f32s, add_f32s);
}

impl Real for f64 {
    fn from_f64(value: f64) -> f64 {
        value
    }
    fn to_f64(self) -> f64 {
        self
    }
    lane_ops!(f64, as_simd_f64s, as_mut_simd_f64s, mul_add_e_f64s, sub_f64s, add_f64s);
}

/// A block ready to apply in precision `T`.
pub(crate) struct Prepared<T> {
    mask: usize,
    offsets: Vec<usize>,
    re: Vec<T>,
    im: Vec<T>,
    control_mask: usize,
    control_value: usize,
    lowest: usize,
    highest: usize,
}

impl<T: Real> Prepared<T> {
    pub(crate) fn new(block: &Block) -> Prepared<T> {
        let dim = 1usize << block.qubits.len();
        let offsets = (0..dim)
            .map(|s| block.qubits.iter().enumerate().filter(|(i, _)| s >> i & 1 == 1).map(|(_, &q)| 1 << q).sum())
            .collect();
        Prepared {
            mask: block.qubits.iter().map(|&q| 1usize << q).sum(),
            offsets,
            re: block.matrix.iter().map(|z| T::from_f64(z.re)).collect(),
            im: block.matrix.iter().map(|z| T::from_f64(z.im)).collect(),
            control_mask: block.control_mask,
            control_value: block.control_value,
            lowest: block.qubits.first().copied().unwrap_or(0),
            highest: block.qubits.last().copied().unwrap_or(0),
        }
    }
}

/// Applies `block` to `amplitudes` with up to `threads` threads.
pub(crate) fn apply<T: Real>(amplitudes: &mut [Complex<T>], block: &Prepared<T>, threads: usize) {
    let span = 2usize << block.highest;
    let len = amplitudes.len();
    let mut parts = threads.max(1).next_power_of_two();
    if parts > threads.max(1) {
        parts /= 2;
    }
    while parts > 1 && len / parts < span.max(THREADED_FROM) {
        parts /= 2;
    }
    if parts <= 1 {
        apply_part(amplitudes, block, 0);
        return;
    }
    let part = len / parts;
    let chunks: Vec<(usize, &mut [Complex<T>])> = amplitudes.chunks_mut(part).enumerate().collect();
    workers::for_each(parts, chunks, |(index, chunk)| apply_part(chunk, block, index * part));
}

/// Applies `block` to a part of the vector that holds whole groups and starts at index
/// `origin` (controls are tested on absolute indices).
fn apply_part<T: Real>(amplitudes: &mut [Complex<T>], block: &Prepared<T>, origin: usize) {
    let dim = block.offsets.len();
    if dim > 64 || amplitudes.len() < dim {
        return;
    }
    let groups = amplitudes.len() / dim;
    let contiguous = block.lowest >= 3;
    let zero = T::default();
    let mut xr = [[zero; LANES]; 64];
    let mut xi = [[zero; LANES]; 64];
    let mut index = [0usize; LANES];
    let mut base = 0usize;
    let mut done = 0usize;
    while done < groups {
        let lanes = LANES.min(groups - done);
        for slot in index.iter_mut().take(lanes) {
            *slot = base;
            base = ((base | block.mask) + 1) & !block.mask;
        }
        done += lanes;
        if block.control_mask != 0 {
            // Controls are only ever on blocks of unfused wide gates: one group at a time.
            for &start in &index[..lanes] {
                if (origin + start) & block.control_mask == block.control_value {
                    apply_group(amplitudes, block, start);
                }
            }
            continue;
        }
        for (s, &offset) in block.offsets.iter().enumerate() {
            if contiguous && lanes == LANES {
                let run = &amplitudes[index[0] + offset..index[0] + offset + LANES];
                for ((r, i), a) in xr[s].iter_mut().zip(xi[s].iter_mut()).zip(run) {
                    *r = a.re;
                    *i = a.im;
                }
            } else {
                for w in 0..lanes {
                    let a = amplitudes[index[w] + offset];
                    xr[s][w] = a.re;
                    xi[s][w] = a.im;
                }
            }
        }
        for (r, &offset) in block.offsets.iter().enumerate() {
            let (mut yr, mut yi) = ([zero; LANES], [zero; LANES]);
            let row_re = &block.re[r * dim..(r + 1) * dim];
            let row_im = &block.im[r * dim..(r + 1) * dim];
            for (((&mr, &mi), xr), xi) in row_re.iter().zip(row_im).zip(&xr[..dim]).zip(&xi[..dim]) {
                for w in 0..LANES {
                    yr[w] = yr[w] + mr * xr[w] - mi * xi[w];
                    yi[w] = yi[w] + mr * xi[w] + mi * xr[w];
                }
            }
            if contiguous && lanes == LANES {
                let run = &mut amplitudes[index[0] + offset..index[0] + offset + LANES];
                for ((a, &r), &i) in run.iter_mut().zip(&yr).zip(&yi) {
                    *a = Complex::new(r, i);
                }
            } else {
                for w in 0..lanes {
                    amplitudes[index[w] + offset] = Complex::new(yr[w], yi[w]);
                }
            }
        }
    }
}

/// Applies `block` to the one group whose first index is `start`.
fn apply_group<T: Real>(amplitudes: &mut [Complex<T>], block: &Prepared<T>, start: usize) {
    let dim = block.offsets.len();
    let mut x = [Complex::new(T::default(), T::default()); 64];
    for (slot, &offset) in x.iter_mut().zip(&block.offsets) {
        *slot = amplitudes[start + offset];
    }
    for (r, &offset) in block.offsets.iter().enumerate() {
        let (mut yr, mut yi) = (T::default(), T::default());
        for (s, value) in x[..dim].iter().enumerate() {
            let (mr, mi) = (block.re[r * dim + s], block.im[r * dim + s]);
            yr = yr + mr * value.re - mi * value.im;
            yi = yi + mr * value.im + mi * value.re;
        }
        amplitudes[start + offset] = Complex::new(yr, yi);
    }
}
