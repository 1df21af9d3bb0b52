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
/// are done. One part, or one thread, runs on the calling thread alone.
pub(crate) fn for_each<P: Send>(threads: usize, parts: Vec<P>, work: impl Fn(P) + Sync) {
    if threads <= 1 || parts.len() <= 1 {
        parts.into_iter().for_each(work);
        return;
    }
    let work = &work;
    pool(threads).scope(|scope| {
        let mut parts = parts.into_iter();
        let first = parts.next();
        for part in parts {
            scope.spawn(move |_| work(part));
        }
        first.into_iter().for_each(work);
    });
}

/// The pool of `threads` threads, started on first use.
fn pool(threads: usize) -> &'static ThreadPool {
    static POOLS: OnceLock<Mutex<Vec<(usize, &'static ThreadPool)>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Mutex::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&(_, pool)) = pools.iter().find(|(count, _)| *count == threads) {
        return pool;
    }
    // Kept for the process: a few thread counts at most (the CLI uses one).
    let pool: &'static ThreadPool = Box::leak(Box::new(
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|index| format!("qchess-dense-{index}"))
            .build()
            .unwrap_or_else(|error| panic!("cannot start {threads} simulator threads: {error}")),
    ));
    pools.push((threads, pool));
    pool
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
        let names = Mutex::new(Vec::new());
        let together = std::sync::Barrier::new(2);
        // Each part waits for the other, so both must run at once.
        for_each(2, vec![0, 1], |_| {
            together.wait();
            names.lock().expect("names").push(std::thread::current().id());
        });
        let names = names.into_inner().expect("names");
        assert_eq!(names.len(), 2);
        assert_ne!(names[0], names[1]);
    }
}
