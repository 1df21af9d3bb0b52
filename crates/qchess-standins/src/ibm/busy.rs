//! Other users' jobs on the stand-in's devices (`qchess serve --ibm-busy-jobs N
//! --ibm-busy-job-ms MS`), so that a client sees what a busy device does to its jobs.
//!
//! Under a load, each device runs the jobs that reach it one at a time, in the order they
//! arrive, and always has `N` jobs of other users queued, each running `MS` milliseconds: a
//! lone job waits behind the `N` queued ahead of it and the rest of the one running. A
//! dedicated session that holds the device ([`sessions`](super::sessions): active after its
//! first job ran) goes ahead: its jobs start at once, and nothing of the queue starts while it
//! holds the device. Other users' jobs are not simulated, only timed: they take the device
//! for their length and are never listed.
//!
//! Without a load (`N` = 0, the default) every job starts as soon as its session and the run
//! slots allow, as before.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The most other users' jobs a device may be kept busy with.
pub const MAX_BUSY_JOBS: usize = 10_000;

/// Other users' jobs kept queued on every device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BusyLoad {
    /// How many wait in each device's queue at any time (0: no load).
    pub jobs: usize,
    /// How long each runs.
    pub job_length: Duration,
}

/// Who holds a device, as its sessions say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// No dedicated session holds it.
    Nobody,
    /// The waiting job's own session holds it.
    Mine,
    /// Another session holds it.
    Other,
}

/// Something in a device's queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// Another user's job.
    Theirs,
    /// A job submitted here, by ticket.
    Ours(u64),
}

/// One device's queue.
#[derive(Debug)]
struct Queue {
    waiting: VecDeque<Entry>,
    /// Another user's job running until then.
    theirs_until: Option<Instant>,
    /// A job of ours that has its turn and has not finished.
    ours: Option<u64>,
    /// When the device is free for the next job in the queue.
    free_at: Instant,
    /// Tickets whose turn came.
    granted: HashSet<u64>,
}

impl Queue {
    fn new(load: BusyLoad, now: Instant) -> Queue {
        Queue {
            waiting: std::iter::repeat_n(Entry::Theirs, load.jobs).collect(),
            theirs_until: Some(now + load.job_length),
            ours: None,
            free_at: now,
            granted: HashSet::new(),
        }
    }

    /// Moves the queue on to `now`; while a session holds the device nothing of it starts.
    fn advance(&mut self, load: BusyLoad, now: Instant, held: bool) {
        loop {
            if let Some(until) = self.theirs_until {
                if until > now {
                    return;
                }
                self.theirs_until = None;
                self.free_at = until;
            }
            if self.ours.is_some() {
                return;
            }
            if held {
                self.free_at = self.free_at.max(now);
                return;
            }
            match self.waiting.pop_front() {
                Some(Entry::Theirs) => {
                    self.theirs_until = Some(self.free_at + load.job_length);
                    // Another user's job joins the back: the queue stays as long.
                    self.waiting.push_back(Entry::Theirs);
                }
                Some(Entry::Ours(ticket)) => {
                    self.ours = Some(ticket);
                    self.granted.insert(ticket);
                }
                None => return,
            }
        }
    }
}

/// Every device's queue under a [`BusyLoad`].
#[derive(Debug)]
pub struct DeviceQueues {
    load: BusyLoad,
    queues: Mutex<(HashMap<String, Queue>, u64)>,
    changed: Condvar,
}

/// A job's turn on its device; the device is free for the next one when it is dropped.
#[derive(Debug)]
pub struct Turn<'a> {
    queues: &'a DeviceQueues,
    held: Option<(String, u64)>,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let Some((backend, ticket)) = self.held.take() else { return };
        let mut state = self.queues.queues.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(queue) = state.0.get_mut(&backend) {
            queue.granted.remove(&ticket);
            if queue.ours == Some(ticket) {
                queue.ours = None;
                queue.free_at = Instant::now();
            }
        }
        self.queues.changed.notify_all();
    }
}

impl DeviceQueues {
    /// The queues of `load`.
    pub fn new(load: BusyLoad) -> DeviceQueues {
        DeviceQueues { load, queues: Mutex::new((HashMap::new(), 0)), changed: Condvar::new() }
    }

    /// Waits for a job's turn on `backend`, asking `holder` who holds the device at each look;
    /// `None` when `cancel` is set first. See the [module docs](self).
    pub fn wait_turn(&self, backend: &str, cancel: &AtomicBool, holder: impl Fn() -> Holder) -> Option<Turn<'_>> {
        let free = Turn { queues: self, held: None };
        if self.load.jobs == 0 {
            return Some(free);
        }
        let mut ticket = None;
        loop {
            let holds = holder();
            let mut state = self.queues.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            let (queues, next) = &mut *state;
            let queue = queues.entry(backend.to_owned()).or_insert_with(|| Queue::new(self.load, now));
            queue.advance(self.load, now, holds != Holder::Nobody);
            if holds == Holder::Mine && ticket.is_none() {
                return Some(free);
            }
            let mine = *ticket.get_or_insert_with(|| {
                *next += 1;
                queue.waiting.push_back(Entry::Ours(*next));
                *next
            });
            queue.advance(self.load, now, holds != Holder::Nobody);
            if queue.granted.contains(&mine) {
                return Some(Turn { queues: self, held: Some((backend.to_owned(), mine)) });
            }
            if cancel.load(Ordering::SeqCst) {
                queue.waiting.retain(|entry| *entry != Entry::Ours(mine));
                return None;
            }
            let wait =
                queue.theirs_until.map_or(Duration::from_millis(20), |until| until.saturating_duration_since(now));
            drop(self.changed.wait_timeout(state, wait.min(Duration::from_millis(20))));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOAD: BusyLoad = BusyLoad { jobs: 2, job_length: Duration::from_millis(100) };

    #[test]
    fn a_lone_job_waits_behind_the_queue_and_a_holding_session_does_not() {
        let start = Instant::now();
        let mut queue = Queue::new(LOAD, start);
        queue.waiting.push_back(Entry::Ours(1));
        queue.advance(LOAD, start, false);
        assert_eq!(queue.ours, None, "one runs, two wait ahead of it");
        queue.advance(LOAD, start + Duration::from_millis(250), false);
        assert_eq!(queue.ours, None, "the third is still running");
        queue.advance(LOAD, start + Duration::from_millis(300), false);
        assert_eq!(queue.ours, Some(1), "its turn after three lengths");
        assert_eq!(queue.waiting.len(), 2, "two others queued behind it");
        // Held by a session, the device starts nothing of the queue, and the time is not made up.
        queue.ours = None;
        queue.free_at = start + Duration::from_millis(300);
        queue.advance(LOAD, start + Duration::from_millis(900), true);
        assert_eq!(queue.theirs_until, None);
        queue.advance(LOAD, start + Duration::from_millis(900), false);
        assert_eq!(queue.theirs_until, Some(start + Duration::from_millis(1000)));
    }

    #[test]
    fn without_a_load_every_job_goes_at_once_and_a_cancelled_wait_leaves() {
        let none = DeviceQueues::new(BusyLoad::default());
        assert!(none.wait_turn("ibm_fez", &AtomicBool::new(false), || Holder::Other).is_some());
        let busy = DeviceQueues::new(BusyLoad { jobs: 1, job_length: Duration::from_secs(60) });
        assert!(busy.wait_turn("ibm_fez", &AtomicBool::new(true), || Holder::Nobody).is_none());
        assert!(busy.wait_turn("ibm_fez", &AtomicBool::new(false), || Holder::Mine).is_some(), "a holder goes first");
        let state = busy.queues.lock().expect("queues");
        assert_eq!(state.0["ibm_fez"].waiting, [Entry::Theirs], "the cancelled job left the queue");
    }
}
