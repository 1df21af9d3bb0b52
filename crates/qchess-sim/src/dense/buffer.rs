//! Memory for the amplitudes of a planar state: an anonymous mapping the kernel may back with
//! huge pages.
//!
//! A 24-qubit single-precision state is 128 MiB: 32768 page faults of 4 KiB, each zeroing its
//! page, the first time a pass touches it, and as many TLB entries for the passes that stride
//! across it. Advised as huge pages (`MADV_HUGEPAGE`, honoured when the system's transparent
//! huge pages are in `madvise` or `always` mode), it faults in 2 MiB at a time. The mapping
//! starts zeroed, so nothing writes the zeros, and pages no pass touches are never faulted in.

use std::marker::PhantomData;

use memmap2::MmapMut;

use super::block_kernel::Real;

/// `len` values of `T` in an anonymous mapping, zeroed.
pub(crate) struct Buffer<T> {
    map: MmapMut,
    len: usize,
    _values: PhantomData<T>,
}

impl<T: Real> Buffer<T> {
    /// `len` zeros, or `None` when the system refuses the mapping.
    pub(crate) fn zeroed(len: usize) -> Option<Buffer<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let map = MmapMut::map_anon(bytes.max(1)).ok()?;
        // A hint: where huge pages are off, the mapping works the same with small ones.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Some(Buffer { map, len, _values: PhantomData })
    }

    /// The values.
    pub(crate) fn values(&self) -> &[T] {
        bytemuck::cast_slice(&self.map[..self.len * std::mem::size_of::<T>()])
    }

    /// The values, mutable.
    pub(crate) fn values_mut(&mut self) -> &mut [T] {
        bytemuck::cast_slice_mut(&mut self.map[..self.len * std::mem::size_of::<T>()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_starts_zeroed_and_keeps_what_is_written() {
        let mut buffer = Buffer::<f32>::zeroed(1 << 20).expect("4 MiB");
        assert!(buffer.values().iter().all(|&x| x == 0.0));
        buffer.values_mut()[12345] = 2.5;
        assert_eq!(buffer.values()[12345], 2.5);
        // Page-aligned, so every planar chunk starts a cache line.
        assert_eq!(buffer.values().as_ptr() as usize % 4096, 0);
        assert_eq!(Buffer::<f64>::zeroed(0).expect("empty").values().len(), 0);
    }
}
