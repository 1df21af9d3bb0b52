//! Tensors as the executor program carries them.
//!
//! * IBM's schema (`CompressedTensorModel`): `{"data", "shape", "dtype"}`, the data little-endian
//!   and C-ordered, booleans bit-packed with the first element in the lowest bit, then
//!   zlib-compressed and base64-encoded.
//! * A samplex's own arrays (`{"data", "shape", "dtype"}` inside its JSON): base64 without
//!   compression, where `u32` is stored in eight bytes and `u8` in two, as its writer does.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use num_complex::Complex64;
use serde_json::{Value, json};

use crate::ibm::runtime;

/// The most elements one tensor may hold.
pub const MAX_ELEMENTS: usize = 1 << 26;

/// A tensor's shape and its elements, widened to one of three kinds.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor<T> {
    /// The shape.
    pub shape: Vec<usize>,
    /// The elements in C order.
    pub data: Vec<T>,
}

/// How one element is stored: its width in bytes and how it reads.
enum Layout {
    Real(usize),
    Int { bytes: usize, signed: bool },
    Complex(usize),
    Bool,
}

fn layout(dtype: &str, samplex: bool) -> Result<Layout, String> {
    Ok(match (dtype, samplex) {
        ("f16", false) => return Err("f16 tensors are not read".into()),
        ("f32", false) => Layout::Real(4),
        ("f64", false) => Layout::Real(8),
        ("i8", false) => Layout::Int { bytes: 1, signed: true },
        ("i16", false) => Layout::Int { bytes: 2, signed: true },
        ("i32", false) => Layout::Int { bytes: 4, signed: true },
        ("i64", _) => Layout::Int { bytes: 8, signed: true },
        ("u8", false) => Layout::Int { bytes: 1, signed: false },
        ("u8", true) => Layout::Int { bytes: 2, signed: false },
        ("u16", false) => Layout::Int { bytes: 2, signed: false },
        ("u32", false) => Layout::Int { bytes: 4, signed: false },
        ("u32", true) | ("u64", false) => Layout::Int { bytes: 8, signed: false },
        ("c64", false) => Layout::Complex(4),
        ("c128", _) => Layout::Complex(8),
        ("bool", false) => Layout::Bool,
        (other, _) => return Err(format!("dtype `{}` is not read", qchess_core::text::excerpt(other))),
    })
}

/// The raw bytes, shape and element layout of a tensor object.
fn parts(value: &Value, samplex: bool) -> Result<(Vec<u8>, Vec<usize>, Layout), String> {
    let text = value.get("data").and_then(Value::as_str).ok_or("it has no `data` text")?;
    let dtype = value.get("dtype").and_then(Value::as_str).ok_or("it has no `dtype`")?;
    let shape = value
        .get("shape")
        .and_then(Value::as_array)
        .ok_or("it has no `shape` list")?
        .iter()
        .map(|d| d.as_u64().and_then(|d| usize::try_from(d).ok()).ok_or("its shape holds a non-count"))
        .collect::<Result<Vec<usize>, _>>()?;
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).filter(|&n| n <= MAX_ELEMENTS);
    let count = count.ok_or_else(|| format!("its shape {shape:?} holds more than {MAX_ELEMENTS} elements"))?;
    let layout = layout(dtype, samplex)?;
    let bytes = if samplex {
        STANDARD.decode(text.trim()).map_err(|e| format!("its data is not base64 ({e})"))?
    } else {
        runtime::decode_bytes(text, true).map_err(|e| format!("its data is {e}"))?
    };
    let wanted = match layout {
        Layout::Real(b) | Layout::Int { bytes: b, .. } => count * b,
        Layout::Complex(b) => count * 2 * b,
        Layout::Bool => count.div_ceil(8),
    };
    if bytes.len() != wanted {
        return Err(format!("its data holds {} bytes; shape {shape:?} of {dtype} needs {wanted}", bytes.len()));
    }
    Ok((bytes, shape, layout))
}

fn real(chunk: &[u8]) -> f64 {
    match chunk.len() {
        4 => f64::from(f32::from_le_bytes(chunk.try_into().unwrap_or_default())),
        _ => f64::from_le_bytes(chunk.try_into().unwrap_or_default()),
    }
}

fn integer(chunk: &[u8], signed: bool) -> i128 {
    let mut wide = [0u8; 16];
    wide[..chunk.len()].copy_from_slice(chunk);
    if signed && chunk.last().is_some_and(|b| b & 0x80 != 0) {
        wide[chunk.len()..].fill(0xff);
    }
    i128::from_le_bytes(wide)
}

/// A real tensor (`f32`, `f64`, or integers read as reals).
pub fn reals(value: &Value, samplex: bool) -> Result<Tensor<f64>, String> {
    let (bytes, shape, layout) = parts(value, samplex)?;
    let data = match layout {
        Layout::Real(b) => bytes.chunks_exact(b).map(real).collect(),
        Layout::Int { bytes: b, signed } => bytes.chunks_exact(b).map(|c| integer(c, signed) as f64).collect(),
        Layout::Complex(_) | Layout::Bool => return Err("a complex or boolean tensor where reals are wanted".into()),
    };
    Ok(Tensor { shape, data })
}

/// An integer tensor.
pub fn integers(value: &Value, samplex: bool) -> Result<Tensor<i64>, String> {
    let (bytes, shape, layout) = parts(value, samplex)?;
    let Layout::Int { bytes: b, signed } = layout else {
        return Err("a real, complex or boolean tensor where integers are wanted".into());
    };
    let data = bytes
        .chunks_exact(b)
        .map(|c| i64::try_from(integer(c, signed)).map_err(|_| "an integer past 2^63".to_string()))
        .collect::<Result<_, _>>()?;
    Ok(Tensor { shape, data })
}

/// A complex tensor.
pub fn complexes(value: &Value, samplex: bool) -> Result<Tensor<Complex64>, String> {
    let (bytes, shape, layout) = parts(value, samplex)?;
    let Layout::Complex(b) = layout else { return Err("a real or integer tensor where complexes are wanted".into()) };
    let data = bytes.chunks_exact(2 * b).map(|c| Complex64::new(real(&c[..b]), real(&c[b..]))).collect();
    Ok(Tensor { shape, data })
}

/// A boolean tensor in IBM's compressed form.
pub fn encode_bools(shape: &[usize], bits: &[bool]) -> Value {
    let mut packed = vec![0u8; bits.len().div_ceil(8)];
    for (i, _) in bits.iter().enumerate().filter(|(_, b)| **b) {
        packed[i / 8] |= 1 << (i % 8);
    }
    json!({ "data": runtime::encode_bytes(&packed), "shape": shape, "dtype": "bool" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressed(bytes: &[u8], shape: &[usize], dtype: &str) -> Value {
        json!({ "data": runtime::encode_bytes(bytes), "shape": shape, "dtype": dtype })
    }

    #[test]
    fn reals_read_little_endian_in_c_order() {
        let bytes: Vec<u8> = [0.5f64, -1.25, 3.0, 4.0].iter().flat_map(|x| x.to_le_bytes()).collect();
        let tensor = reals(&compressed(&bytes, &[2, 2], "f64"), false).expect("read");
        assert_eq!(tensor, Tensor { shape: vec![2, 2], data: vec![0.5, -1.25, 3.0, 4.0] });
    }

    #[test]
    fn a_samplex_u8_array_takes_two_bytes_per_element() {
        let value = json!({ "data": STANDARD.encode([2u8, 0, 3, 0]), "shape": [2], "dtype": "u8" });
        assert_eq!(integers(&value, true).expect("read").data, vec![2, 3]);
        let signed = compressed(&[0xfe], &[1], "i8");
        assert_eq!(integers(&signed, false).expect("read").data, vec![-2]);
    }

    #[test]
    fn booleans_pack_the_first_element_into_the_lowest_bit() {
        let value = encode_bools(&[1, 3], &[true, false, true]);
        let bytes = runtime::decode_bytes(value["data"].as_str().expect("text"), true).expect("bytes");
        assert_eq!(bytes, vec![0b101]);
    }

    #[test]
    fn wrong_sizes_and_kinds_are_named() {
        let short = compressed(&[0; 8], &[2], "f64");
        assert!(reals(&short, false).expect_err("short").contains("needs 16"));
        let huge = json!({ "data": "", "shape": [1 << 20, 1 << 20], "dtype": "f64" });
        assert!(reals(&huge, false).expect_err("huge").contains("more than"));
        let unknown = compressed(&[0; 2], &[1], "f16");
        assert!(reals(&unknown, false).expect_err("f16").contains("f16"));
        assert!(complexes(&compressed(&[0; 8], &[1], "f64"), false).is_err());
    }
}
