//! Checking a dense state against the memory the system has free, before allocating it.
//!
//! An allocation larger than free memory may succeed (overcommit) and get the process killed
//! later, when the pages are touched. So a large state is first compared with `MemAvailable`
//! in `/proc/meminfo` and refused with an error that says both sizes. Where that file does not
//! exist the check is skipped and only the allocator's refusal is caught.

use super::error::DenseError;

/// States smaller than this are allocated without reading `/proc/meminfo`: they cannot be
/// what exhausts a machine, and branches clone them often.
const CHECK_FROM_BYTES: u128 = 64 << 20;

/// Refuses a `qubits`-qubit state of `bytes` bytes when the system reports less available.
pub(crate) fn check_available(bytes: u128, qubits: usize) -> Result<(), DenseError> {
    if bytes < CHECK_FROM_BYTES {
        return Ok(());
    }
    match std::fs::read_to_string("/proc/meminfo").ok().as_deref().and_then(mem_available) {
        Some(available) if bytes > u128::from(available) => Err(DenseError::InsufficientMemory { qubits, available }),
        _ => Ok(()),
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|line| line.starts_with("MemAvailable:"))?;
    let mut words = line["MemAvailable:".len()..].split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dense::{DenseState, Limits};

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       16314328 kB\nMemFree:          230000 kB\nMemAvailable:    8000000 kB\n";
        assert_eq!(mem_available(text), Some(8_192_000_000));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots kB\n"), None);
    }

    #[test]
    fn a_state_larger_than_available_memory_is_refused_before_allocation() {
        // 44 qubits are 256 TiB: past any machine's free memory, within the address space.
        if std::fs::read_to_string("/proc/meminfo").ok().as_deref().and_then(mem_available).is_none() {
            return;
        }
        let error = DenseState::zero(44, &Limits::with_max_qubits(50)).expect_err("256 TiB");
        assert!(matches!(error, DenseError::InsufficientMemory { qubits: 44, .. }), "{error:?}");
        let message = error.to_string();
        assert!(message.starts_with("44 qubits need 256 TiB for a dense state vector, but only "), "{message}");
        assert!(message.ends_with(" of memory is available"), "{message}");
    }

    #[test]
    fn small_states_skip_the_check() {
        assert!(check_available(1 << 20, 16).is_ok());
    }
}
