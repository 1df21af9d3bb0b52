//! The threads a dense pass runs on: a pool per thread count, started once and kept for the
//! process, instead of threads started for every pass.
//!
//! A thread started while its parent computes is often put on the parent's processor and runs
//! only when the parent waits for it: on the guide's 2-core machine a new thread began 3 ms
//! after its start (a pass at 20 qubits takes about 6), where a pool thread that is woken
//! begins within 0.1 ms. The parts of a pass and the work on each are unchanged, so every
//! amplitude still goes through the same operations whatever the thread count.

use std::sync::{Mutex, OnceLock};

use rayon::{ThreadPool, ThreadPoolBuilder};

/// Runs `work` on every part, the parts at once on up to `threads` threads; returns when all
/// are done. One part, or one thread, runs on the calling thread alone, and so do all parts
/// where the system refuses the threads: the parts, and so the results, are the same.
pub(crate) fn for_each<P: Send>(threads: usize, parts: Vec<P>, work: impl Fn(P) + Sync) {
    let pool = if threads <= 1 || parts.len() <= 1 { None } else { pool(threads) };
    let Some(pool) = pool else {
        parts.into_iter().for_each(work);
        return;
    };
    let work = &work;
    pool.scope(|scope| {
        let mut parts = parts.into_iter();
        let first = parts.next();
        for part in parts {
            scope.spawn(move |_| work(part));
        }
        first.into_iter().for_each(work);
    });
}

/// The pool of `threads` threads, started on first use; `None` when the system refuses to
/// start them (tried again on the next call).
fn pool(threads: usize) -> Option<&'static ThreadPool> {
    static POOLS: OnceLock<Mutex<Vec<(usize, &'static ThreadPool)>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Mutex::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&(_, pool)) = pools.iter().find(|(count, _)| *count == threads) {
        return Some(pool);
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|index| format!("qchess-dense-{index}"))
        .build()
        .ok()?;
    // Kept for the process: a few thread counts at most (the CLI uses one).
    let pool: &'static ThreadPool = Box::leak(Box::new(pool));
    pools.push((threads, pool));
    Some(pool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_part_runs_once_on_any_thread_count() {
        for threads in [1, 2, 3, 8] {
            let mut values = vec![0u32; 1000];
            let parts: Vec<&mut [u32]> = values.chunks_mut(97).collect();
            for_each(threads, parts, |part| part.iter_mut().for_each(|v| *v += 1));
            assert!(values.iter().all(|&v| v == 1), "threads {threads}");
        }
    }

    #[test]
    fn parts_run_on_several_threads() {
        // Each part counts itself in and waits (up to 10 s) for the other: on one thread the
        // first part would wait alone and see a count of one.
        let arrived = std::sync::atomic::AtomicUsize::new(0);
        let seen = Mutex::new(Vec::new());
        for_each(2, vec![0, 1], |_| {
            arrived.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let started = std::time::Instant::now();
            while arrived.load(std::sync::atomic::Ordering::SeqCst) < 2 && started.elapsed().as_secs() < 10 {
                std::thread::yield_now();
            }
            let count = arrived.load(std::sync::atomic::Ordering::SeqCst);
            seen.lock().expect("seen").push((std::thread::current().id(), count));
        });
        let seen = seen.into_inner().expect("seen");
        assert_eq!(seen.len(), 2);
        assert_ne!(seen[0].0, seen[1].0, "both parts ran on one thread");
        assert!(seen.iter().all(|&(_, count)| count == 2), "a part ran alone: {seen:?}");
    }
}
