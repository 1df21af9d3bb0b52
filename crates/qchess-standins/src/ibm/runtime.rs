//! The typed JSON of `qiskit-ibm-runtime` (its `RuntimeEncoder` and `RuntimeDecoder`): values
//! as `{"__type__": TYPE, "__value__": ...}`, where circuits are QPY and arrays are NumPy's
//! `.npy` format, each zlib-compressed and base64-encoded.
//!
//! Read here: `QuantumCircuit` (QPY), `ndarray` (`.npy` of booleans, integers or reals, or a
//! plain list), `complex`. Written here: `ndarray` (unsigned bytes and reals), and the result
//! containers the client turns into its own objects (`PrimitiveResult`, `SamplerPubResult`,
//! `PubResult`, `DataBin`, `BitArray`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

/// The largest decompressed value accepted (a circuit or an array).
pub const MAX_DECODED_BYTES: usize = 64 << 20;

/// An array of reals with its shape (row-major).
#[derive(Debug, Clone, PartialEq)]
pub struct Array {
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its elements, last index fastest.
    pub data: Vec<f64>,
}

/// The bytes of a `__value__` the encoder wrote: base64 of (zlib-compressed, when `zlib`) data.
pub fn decode_bytes(text: &str, zlib: bool) -> Result<Vec<u8>, String> {
    let raw = STANDARD.decode(text.trim()).map_err(|e| format!("not base64 ({e})"))?;
    if !zlib {
        return Ok(raw);
    }
    miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(&raw, MAX_DECODED_BYTES)
        .map_err(|e| format!("not zlib data within {MAX_DECODED_BYTES} bytes ({:?})", e.status))
}

/// `data` as the encoder writes it: zlib-compressed, then base64.
pub fn encode_bytes(data: &[u8]) -> String {
    STANDARD.encode(miniz_oxide::deflate::compress_to_vec_zlib(data, 6))
}

/// The type and value of a typed JSON object, if it is one.
pub fn typed(value: &Value) -> Option<(&str, &Value)> {
    Some((value.get("__type__")?.as_str()?, value.get("__value__")?))
}

/// An `ndarray` (or a plain number or nested list) as reals.
pub fn array(value: &Value) -> Result<Array, String> {
    match typed(value) {
        Some(("ndarray", Value::String(text))) => npy(&decode_bytes(text, true)?),
        Some(("ndarray", list)) => nested(list),
        Some((other, _)) => Err(format!("a `{other}` where an array was expected")),
        None => nested(value),
    }
}

/// A plain number or nested list of numbers.
fn nested(value: &Value) -> Result<Array, String> {
    match value {
        Value::Number(n) => Ok(Array { shape: Vec::new(), data: vec![n.as_f64().unwrap_or(f64::NAN)] }),
        Value::Bool(b) => Ok(Array { shape: Vec::new(), data: vec![f64::from(u8::from(*b))] }),
        Value::Array(items) => {
            let parts = items.iter().map(nested).collect::<Result<Vec<Array>, String>>()?;
            let inner = parts.first().map_or_else(Vec::new, |p| p.shape.clone());
            if parts.iter().any(|p| p.shape != inner) {
                return Err("a ragged list is not an array".into());
            }
            let mut shape = vec![parts.len()];
            shape.extend(inner);
            Ok(Array { shape, data: parts.into_iter().flat_map(|p| p.data).collect() })
        }
        _ => Err("an array element is not a number".into()),
    }
}

/// NumPy's `.npy` format: magic, version, header dictionary, then the elements.
pub fn npy(bytes: &[u8]) -> Result<Array, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a NumPy .npy array".into());
    }
    let (header_len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!(".npy version {v} is not read")),
    };
    let header = bytes.get(start..start + header_len).ok_or(".npy header cut short")?;
    let header = std::str::from_utf8(header).map_err(|_| ".npy header is not text")?;
    let field = |key: &str| -> Option<&str> {
        let at = header.find(&format!("'{key}'"))? + key.len() + 2;
        let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
        Some(rest)
    };
    let descr = field("descr")
        .and_then(|r| r.strip_prefix('\''))
        .and_then(|r| r.split('\'').next())
        .ok_or(".npy header has no descr")?;
    if field("fortran_order").is_some_and(|r| r.starts_with("True")) {
        return Err("Fortran-ordered arrays are not read".into());
    }
    let shape_text = field("shape")
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.split(')').next())
        .ok_or(".npy header has no shape")?;
    let shape = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| format!("bad .npy shape `{shape_text}`")))
        .collect::<Result<Vec<usize>, String>>()?;
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d)).ok_or("an .npy array too large")?;
    let body = &bytes[start + header_len..];
    let (little, kind, size) = match descr.as_bytes() {
        [order @ (b'<' | b'>' | b'|' | b'='), kind, digits @ ..] => {
            let size: usize = std::str::from_utf8(digits).ok().and_then(|d| d.parse().ok()).ok_or("bad .npy type")?;
            (*order != b'>', *kind, size)
        }
        _ => return Err(format!(".npy type `{descr}` is not read")),
    };
    if body.len() < count.saturating_mul(size) {
        return Err(".npy data cut short".into());
    }
    let element = |chunk: &[u8]| -> Option<f64> {
        let n = chunk.len();
        if n == 0 || n > 8 {
            return None;
        }
        let fold = |bits: u64, &b: &u8| bits << 8 | u64::from(b);
        let bits = if little { chunk.iter().rev().fold(0, fold) } else { chunk.iter().fold(0, fold) };
        Some(match (kind, n) {
            (b'f', 8) => f64::from_bits(bits),
            (b'f', 4) => f64::from(f32::from_bits(bits as u32)),
            (b'i', _) => ((bits << (64 - 8 * n)) as i64 >> (64 - 8 * n)) as f64,
            (b'u' | b'b', _) => bits as f64,
            _ => return None,
        })
    };
    let data = body[..count * size]
        .chunks(size.max(1))
        .map(|c| element(c).ok_or_else(|| format!(".npy type `{descr}` is not read")))
        .collect::<Result<Vec<f64>, String>>()?;
    Ok(Array { shape, data })
}

/// An `.npy` of `descr` elements (`raw` already laid out) with `shape`.
fn npy_bytes(descr: &str, shape: &[usize], raw: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape_text = if shape.len() == 1 { format!("({},)", dims[0]) } else { format!("({})", dims.join(", ")) };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
    // Magic (6) + version (2) + length (2) + header + newline, padded to a multiple of 64.
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    out.extend(raw);
    out
}

/// An `ndarray` of unsigned bytes.
pub fn ndarray_u8(shape: &[usize], data: &[u8]) -> Value {
    json!({ "__type__": "ndarray", "__value__": encode_bytes(&npy_bytes("|u1", shape, data)) })
}

/// An `ndarray` of reals.
pub fn ndarray_f64(shape: &[usize], data: &[f64]) -> Value {
    let raw: Vec<u8> = data.iter().flat_map(|x| x.to_le_bytes()).collect();
    json!({ "__type__": "ndarray", "__value__": encode_bytes(&npy_bytes("<f8", shape, &raw)) })
}

/// A `BitArray` of `num_bits`-bit values, `shots` per element of `shape` (values flattened,
/// shots last), each value's bits packed big-endian as Qiskit packs them.
pub fn bit_array(shape: &[usize], shots: usize, num_bits: u32, values: &[u128]) -> Value {
    let bytes = num_bits.div_ceil(8).max(1) as usize;
    let mut packed = Vec::with_capacity(values.len() * bytes);
    for value in values {
        for byte in (0..bytes).rev() {
            packed.push(if byte < 16 { (value >> (8 * byte)) as u8 } else { 0 });
        }
    }
    let mut full_shape = shape.to_vec();
    full_shape.extend([shots, bytes]);
    json!({ "__type__": "BitArray", "__value__": { "array": ndarray_u8(&full_shape, &packed), "num_bits": num_bits } })
}

/// A `DataBin` of named fields with the pub's `shape`.
pub fn data_bin(shape: &[usize], fields: Vec<(String, Value)>) -> Value {
    let names: Vec<&String> = fields.iter().map(|(n, _)| n).collect();
    let map: serde_json::Map<String, Value> = fields.iter().cloned().collect();
    json!({ "__type__": "DataBin", "__value__": { "field_names": names, "shape": shape, "fields": map } })
}

/// A pub's result: `SamplerPubResult` or `PubResult` (`kind`).
pub fn pub_result(kind: &str, data: Value, metadata: Value) -> Value {
    json!({ "__type__": kind, "__value__": { "data": data, "metadata": metadata } })
}

/// The job's `PrimitiveResult`.
pub fn primitive_result(pub_results: Vec<Value>, metadata: Value) -> Value {
    json!({ "__type__": "PrimitiveResult", "__value__": { "pub_results": pub_results, "metadata": metadata } })
}

/// A real number, plain or as the encoder's `complex` with no imaginary part.
pub fn real(value: &Value) -> Option<f64> {
    match typed(value) {
        Some(("complex", Value::Array(parts))) if parts.len() == 2 && parts[1].as_f64() == Some(0.0) => {
            parts[0].as_f64()
        }
        Some(_) => None,
        None => value.as_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `.npy` bytes NumPy 2.4 wrote (`np.save` of `np.array([[0.1], [0.2]])` and of
    /// `np.zeros(0)`), as qiskit-ibm-runtime sends parameter values.
    const TWO_BY_ONE: &str = "eJyb7BfqGxDJyFDGUK2eklqcXKRupaBuk2ahrqOgnpZfVFKUmBefX5SSChJ3S8wpTgWKF2ckFqQC+RpGOgqGmjoKtQpkA65ZM0Fgpz2EPmkPAF4PJJw=";
    const EMPTY: &str =
        "eJyb7BfqGxDJyFDGUK2eklqcXKRupaBuk2ahrqOgnpZfVFKUmBefX5SSChJ3S8wpTgWKF2ckFqQC+RoGOpo6CrUKFAAuAFOzG1s=";

    #[test]
    fn numpy_arrays_from_the_client_read_back() {
        let values = array(&json!({ "__type__": "ndarray", "__value__": TWO_BY_ONE })).expect("reads");
        assert_eq!(values, Array { shape: vec![2, 1], data: vec![0.1, 0.2] });
        let empty = array(&json!({ "__type__": "ndarray", "__value__": EMPTY })).expect("reads");
        assert_eq!(empty, Array { shape: vec![0], data: vec![] });
        assert_eq!(array(&json!([[1, 2], [3, 4]])).expect("a list").shape, [2, 2]);
        assert!(array(&json!([[1], [2, 3]])).expect_err("ragged").contains("ragged"));
        assert!(
            array(&json!({ "__type__": "ndarray", "__value__": "!!!" })).expect_err("not base64").contains("base64")
        );
    }

    #[test]
    fn written_arrays_read_back() {
        let Value::String(text) = &ndarray_f64(&[3], &[1.5, -2.0, 0.25])["__value__"] else { panic!("text") };
        assert_eq!(
            npy(&decode_bytes(text, true).expect("bytes")).expect("npy"),
            Array { shape: vec![3], data: vec![1.5, -2.0, 0.25] }
        );
        let bits = bit_array(&[], 2, 10, &[0b10_0000_0011, 1]);
        let Value::String(text) = &bits["__value__"]["array"]["__value__"] else { panic!("text") };
        let read = npy(&decode_bytes(text, true).expect("bytes")).expect("npy");
        // Big-endian bytes per shot: 0b10 then 0b11; then 0, 1.
        assert_eq!(read, Array { shape: vec![2, 2], data: vec![2.0, 3.0, 0.0, 1.0] });
        assert_eq!(bits["__value__"]["num_bits"], 10);
    }
}
