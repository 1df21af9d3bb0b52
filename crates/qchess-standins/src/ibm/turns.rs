//! How a job of the IBM stand-in waits for its turn: out its queue delay, then for its
//! session's turn on the device, then for a run slot. Waiting jobs sleep on one condition
//! variable and wake when something they wait on changes (a slot frees, a job ends or is
//! cancelled, a session lets go of its device) or when a time they wait for comes: never by
//! polling.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

/// A count of changes that waiting jobs sleep on: each change bumps it and wakes them all.
#[derive(Debug, Default)]
pub struct Wake {
    changes: Mutex<u64>,
    changed: Condvar,
}

impl Wake {
    /// The count of changes so far, to wait past with [`Wake::wait`].
    pub fn seen(&self) -> u64 {
        *self.changes.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Something waiting jobs may wait on changed: wakes them.
    pub fn notify(&self) {
        *self.changes.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.changed.notify_all();
    }

    /// Sleeps until a change after `seen`, or until `until` when given.
    pub fn wait(&self, seen: u64, until: Option<Instant>) {
        let mut changes = self.changes.lock().unwrap_or_else(|p| p.into_inner());
        while *changes == seen {
            match until {
                None => changes = self.changed.wait(changes).unwrap_or_else(|p| p.into_inner()),
                Some(until) => {
                    let Some(left) = until.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) else {
                        return;
                    };
                    changes = self.changed.wait_timeout(changes, left).unwrap_or_else(|p| p.into_inner()).0;
                }
            }
        }
    }

    /// Sleeps until `until`; `false` as soon as `cancel` is set (cancelling notifies).
    pub fn sleep_until(&self, until: Instant, cancel: &AtomicBool) -> bool {
        loop {
            let seen = self.seen();
            if cancel.load(Ordering::SeqCst) {
                return false;
            }
            if Instant::now() >= until {
                return true;
            }
            self.wait(seen, Some(until));
        }
    }
}

/// How many jobs may run at once; the others wait in the queue.
#[derive(Debug)]
pub struct Slots {
    free: Mutex<usize>,
    wake: Arc<Wake>,
}

impl Slots {
    /// `count` slots (at least one), whose waiting jobs sleep on `wake`.
    pub fn new(count: usize, wake: Arc<Wake>) -> Slots {
        Slots { free: Mutex::new(count.max(1)), wake }
    }

    /// What waiting jobs sleep on.
    pub fn wake(&self) -> &Wake {
        &self.wake
    }

    /// Takes a slot, unless `cancel` is set first.
    pub fn take(&self, cancel: &AtomicBool) -> bool {
        loop {
            let seen = self.wake.seen();
            if cancel.load(Ordering::SeqCst) {
                return false;
            }
            let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
            if *free > 0 {
                *free -= 1;
                return true;
            }
            drop(free);
            self.wake.wait(seen, None);
        }
    }

    /// Gives a slot back and wakes the jobs waiting.
    pub fn give_back(&self) {
        *self.free.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        self.wake.notify();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_freed_slot_wakes_a_waiting_job_at_once() {
        let slots = Arc::new(Slots::new(1, Arc::new(Wake::default())));
        let never = AtomicBool::new(false);
        assert!(slots.take(&never));
        let waiting = Arc::clone(&slots);
        let taker = std::thread::spawn(move || waiting.take(&AtomicBool::new(false)));
        std::thread::sleep(Duration::from_millis(50));
        assert!(!taker.is_finished(), "no slot is free");
        slots.give_back();
        assert!(taker.join().expect("the taker ends"), "it took the freed slot");
    }

    #[test]
    fn cancelling_wakes_a_sleeping_job() {
        let wake = Arc::new(Wake::default());
        let cancel = Arc::new(AtomicBool::new(false));
        let (sleeper_wake, sleeper_cancel) = (Arc::clone(&wake), Arc::clone(&cancel));
        let far = Instant::now() + Duration::from_secs(600);
        let sleeper = std::thread::spawn(move || sleeper_wake.sleep_until(far, &sleeper_cancel));
        cancel.store(true, Ordering::SeqCst);
        wake.notify();
        assert!(!sleeper.join().expect("the sleeper ends"), "cancelled, not slept out");
        assert!(wake.sleep_until(Instant::now() + Duration::from_millis(5), &AtomicBool::new(false)));
    }
}
