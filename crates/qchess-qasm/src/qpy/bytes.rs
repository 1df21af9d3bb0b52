//! A bounds-checked big-endian reader over a QPY payload.

use super::QpyError;

/// Bytes being read, with the offset of the next one.
#[derive(Debug, Clone)]
pub(super) struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
    /// Where `data` starts in the whole payload (nested payloads report whole-file offsets).
    base: usize,
}

impl<'a> Bytes<'a> {
    pub(super) fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data, at: 0, base: 0 }
    }

    /// A reader over `data`, which starts at offset `base` of the whole payload.
    pub(super) fn with_base(data: &'a [u8], base: usize) -> Bytes<'a> {
        Bytes { data, at: 0, base }
    }

    /// The offset of the next byte in the whole payload.
    pub(super) fn offset(&self) -> usize {
        self.base + self.at
    }

    /// How many bytes are left.
    pub(super) fn left(&self) -> u64 {
        (self.data.len() - self.at) as u64
    }

    /// Whether every byte was read.
    pub(super) fn is_empty(&self) -> bool {
        self.at >= self.data.len()
    }

    /// The next `len` bytes; `field` names them in the error when they are missing.
    pub(super) fn take(&mut self, len: u64, field: &'static str) -> Result<&'a [u8], QpyError> {
        let remaining = (self.data.len() - self.at) as u64;
        if len > remaining {
            return Err(QpyError::Truncated { offset: self.offset(), field, wanted: len, left: remaining });
        }
        let start = self.at;
        self.at += len as usize;
        Ok(&self.data[start..self.at])
    }

    /// The next `len` bytes as a reader of their own (offsets still count from the payload).
    pub(super) fn sub(&mut self, len: u64, field: &'static str) -> Result<Bytes<'a>, QpyError> {
        let base = self.offset();
        Ok(Bytes { data: self.take(len, field)?, at: 0, base })
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], QpyError> {
        let bytes = self.take(N as u64, field)?;
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    pub(super) fn u8(&mut self, field: &'static str) -> Result<u8, QpyError> {
        Ok(self.array::<1>(field)?[0])
    }

    pub(super) fn bool(&mut self, field: &'static str) -> Result<bool, QpyError> {
        Ok(self.u8(field)? != 0)
    }

    pub(super) fn u16(&mut self, field: &'static str) -> Result<u16, QpyError> {
        Ok(u16::from_be_bytes(self.array(field)?))
    }

    pub(super) fn u32(&mut self, field: &'static str) -> Result<u32, QpyError> {
        Ok(u32::from_be_bytes(self.array(field)?))
    }

    pub(super) fn i32(&mut self, field: &'static str) -> Result<i32, QpyError> {
        Ok(i32::from_be_bytes(self.array(field)?))
    }

    pub(super) fn u64(&mut self, field: &'static str) -> Result<u64, QpyError> {
        Ok(u64::from_be_bytes(self.array(field)?))
    }

    pub(super) fn i64(&mut self, field: &'static str) -> Result<i64, QpyError> {
        Ok(i64::from_be_bytes(self.array(field)?))
    }

    pub(super) fn f64(&mut self, field: &'static str) -> Result<f64, QpyError> {
        Ok(f64::from_be_bytes(self.array(field)?))
    }

    /// `len` bytes of UTF-8 text.
    pub(super) fn text(&mut self, len: u64, field: &'static str) -> Result<String, QpyError> {
        let offset = self.offset();
        let bytes = self.take(len, field)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| QpyError::Malformed {
            at: format!("byte {offset}"),
            what: format!("the {field} is not UTF-8 text"),
        })
    }
}
