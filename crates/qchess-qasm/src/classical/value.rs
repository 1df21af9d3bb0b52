//! Classical values. A value does not carry its type: the checker knows it, and every value is
//! kept normalised to it (an `int[8]` holds -128..=127, an `angle[4]` a 4-bit pattern).
//!
//! Values compare and hash by their bits (a float by its IEEE pattern), so two runs of a
//! program in the same state compare equal, which is what merging branches needs.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use num_complex::Complex64;

/// A duration: seconds, device samples (`dt`) and multiples of `stretch` variables, kept apart
/// because none converts to another without a device.
#[derive(Debug, Clone, Default)]
pub struct Duration {
    /// The part in seconds.
    pub seconds: f64,
    /// The part in `dt`.
    pub dt: f64,
    /// `(stretch variable, coefficient)` pairs, by variable.
    pub stretch: Vec<(u32, f64)>,
}

impl Duration {
    /// A duration in seconds.
    pub fn seconds(seconds: f64) -> Duration {
        Duration { seconds, ..Duration::default() }
    }

    /// Every part times `k`.
    pub fn scaled(&self, k: f64) -> Duration {
        Duration {
            seconds: self.seconds * k,
            dt: self.dt * k,
            stretch: self.stretch.iter().map(|&(s, c)| (s, c * k)).collect(),
        }
    }

    /// The sum, `-1` scaling the second for a difference.
    pub fn plus(&self, other: &Duration, sign: f64) -> Duration {
        let mut stretch = self.stretch.clone();
        for &(s, c) in &other.stretch {
            match stretch.iter_mut().find(|(t, _)| *t == s) {
                Some(entry) => entry.1 += sign * c,
                None => stretch.push((s, sign * c)),
            }
        }
        stretch.retain(|&(_, c)| c != 0.0);
        stretch.sort_by_key(|&(s, _)| s);
        Duration { seconds: self.seconds + sign * other.seconds, dt: self.dt + sign * other.dt, stretch }
    }

    pub(crate) fn key(&self) -> (u64, u64, Vec<(u32, u64)>) {
        (self.seconds.to_bits(), self.dt.to_bits(), self.stretch.iter().map(|&(s, c)| (s, c.to_bits())).collect())
    }
}

impl PartialEq for Duration {
    fn eq(&self, other: &Duration) -> bool {
        self.key() == other.key()
    }
}

/// The values of an array, outermost dimension first, in row-major order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Array {
    /// The size of each dimension.
    pub dims: Vec<u32>,
    /// The elements.
    pub items: Vec<Value>,
}

/// A view of part of a global array (a subroutine's array parameter, or a slice of one).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArrayView {
    /// The global variable holding the array.
    pub slot: u32,
    /// The first element, in the array's items.
    pub offset: usize,
    /// The size of each dimension of the view.
    pub dims: Vec<u32>,
    /// The step between neighbours in each dimension, in the array's items.
    pub strides: Vec<usize>,
}

impl ArrayView {
    /// The position in the array's items of the element at `index` (one per dimension).
    pub fn position(&self, index: &[usize]) -> usize {
        self.offset + index.iter().zip(&self.strides).map(|(i, s)| i * s).sum::<usize>()
    }
}

/// Inclusive integer range `start:step:end` (the values of a `for` loop).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Range {
    /// The first value.
    pub start: i128,
    /// The step (never zero).
    pub step: i128,
    /// The bound (reached or not).
    pub end: i128,
}

impl Range {
    /// The `index`-th value, if the range has one.
    pub fn get(&self, index: u64) -> Option<i128> {
        let value = self.start.checked_add(self.step.checked_mul(i128::from(index))?)?;
        let inside = if self.step > 0 { value <= self.end } else { value >= self.end };
        inside.then_some(value)
    }
}

/// A value. See the [module docs](self).
#[derive(Debug, Clone)]
pub enum Value {
    /// A `bool` or a scalar `bit`.
    Bool(bool),
    /// A `bit[n]`: bit `i` at index `i`.
    Bits(Vec<bool>),
    /// An `int` or `uint` of any width.
    Int(i128),
    /// A `float` (a `float[32]` holds a value a single-precision float represents).
    Float(f64),
    /// An `angle`: its bit pattern (the value is `2 pi pattern / 2^width`).
    Angle(u64),
    /// A `complex`.
    Complex(Complex64),
    /// A `duration` or `stretch`.
    Duration(Duration),
    /// An array.
    Array(Array),
    /// A reference to (part of) a global array.
    ArrayRef(ArrayView),
    /// Qubits, by index (an alias or a qubit parameter).
    Qubits(Arc<[u32]>),
    /// A `for` loop's range.
    Range(Range),
}

impl Value {
    /// The value as a number of radians or a real (integers, floats, angles of `width` bits,
    /// booleans).
    pub fn as_f64(&self, angle_width: u32) -> Option<f64> {
        Some(match self {
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Int(i) => *i as f64,
            Value::Float(x) => *x,
            Value::Angle(pattern) => angle_radians(*pattern, angle_width),
            _ => return None,
        })
    }

    /// Whether the value is "true": non-zero, or any bit set.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            Value::Bits(bits) => bits.iter().any(|&b| b),
            Value::Int(i) => *i != 0,
            Value::Float(x) => *x != 0.0,
            Value::Angle(p) => *p != 0,
            Value::Complex(z) => z.re != 0.0 || z.im != 0.0,
            _ => false,
        }
    }
}

/// The radians an angle pattern of `width` bits stands for.
pub fn angle_radians(pattern: u64, width: u32) -> f64 {
    std::f64::consts::TAU * pattern as f64 / 2f64.powi(width as i32)
}

/// Bits `0..len` of `value` (two's complement), least significant first.
pub fn bits_of(value: i128, len: u32) -> Vec<bool> {
    (0..len).map(|i| i < 128 && value >> i & 1 == 1).collect()
}

/// The unsigned number bits stand for (bit `i` worth `2^i`; at most 128 bits are read).
pub fn number_of(bits: &[bool]) -> u128 {
    bits.iter().take(128).enumerate().fold(0u128, |n, (i, &b)| if b { n | 1 << i } else { n })
}

/// The shape of a value for hashing and equality: floats by their bits.
#[derive(PartialEq, Eq, Hash)]
enum Key<'a> {
    Bool(bool),
    Bits(&'a [bool]),
    Int(i128),
    Float(u64),
    Angle(u64),
    Complex(u64, u64),
    Duration((u64, u64, Vec<(u32, u64)>)),
    Array(&'a Array),
    ArrayRef(&'a ArrayView),
    Qubits(&'a [u32]),
    Range(Range),
}

impl Value {
    fn key(&self) -> Key<'_> {
        match self {
            Value::Bool(b) => Key::Bool(*b),
            Value::Bits(bits) => Key::Bits(bits),
            Value::Int(i) => Key::Int(*i),
            Value::Float(x) => Key::Float(x.to_bits()),
            Value::Angle(p) => Key::Angle(*p),
            Value::Complex(z) => Key::Complex(z.re.to_bits(), z.im.to_bits()),
            Value::Duration(d) => Key::Duration(d.key()),
            Value::Array(a) => Key::Array(a),
            Value::ArrayRef(v) => Key::ArrayRef(v),
            Value::Qubits(q) => Key::Qubits(q),
            Value::Range(r) => Key::Range(*r),
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.key() == other.key()
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}
