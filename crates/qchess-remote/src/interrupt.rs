//! Ctrl-C while a job waits: the job is canceled instead of the process being killed.
//!
//! The SIGINT handlers are installed once per process. While no job waits, a Ctrl-C does what
//! it always does (the default action is emulated, so the process ends); while a job waits, it
//! only raises a flag that the waiting loop sees, so the loop can cancel the job first.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use signal_hook::consts::SIGINT;

struct Handlers {
    interrupted: Arc<AtomicBool>,
    idle: Arc<AtomicBool>,
    waiters: AtomicUsize,
    /// Serialises the idle/waiting transitions.
    transition: Mutex<()>,
}

fn handlers() -> Option<&'static Handlers> {
    static HANDLERS: OnceLock<Option<Handlers>> = OnceLock::new();
    HANDLERS
        .get_or_init(|| {
            let interrupted = Arc::new(AtomicBool::new(false));
            let idle = Arc::new(AtomicBool::new(true));
            // Registered in this order, the default action runs first when idle.
            signal_hook::flag::register_conditional_default(SIGINT, Arc::clone(&idle)).ok()?;
            signal_hook::flag::register(SIGINT, Arc::clone(&interrupted)).ok()?;
            Some(Handlers { interrupted, idle, waiters: AtomicUsize::new(0), transition: Mutex::new(()) })
        })
        .as_ref()
}

/// Held while a job waits: Ctrl-C then sets [`InterruptGuard::interrupted`] instead of ending
/// the process.
pub(crate) struct InterruptGuard {
    handlers: &'static Handlers,
}

impl InterruptGuard {
    /// Starts listening; `None` when the handlers could not be installed.
    pub(crate) fn listen() -> Option<InterruptGuard> {
        let handlers = handlers()?;
        let _lock = handlers.transition.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if handlers.waiters.fetch_add(1, Ordering::SeqCst) == 0 {
            handlers.interrupted.store(false, Ordering::SeqCst);
            handlers.idle.store(false, Ordering::SeqCst);
        }
        Some(InterruptGuard { handlers })
    }

    /// Whether Ctrl-C was pressed since the first current waiter started.
    pub(crate) fn interrupted(&self) -> bool {
        self.handlers.interrupted.load(Ordering::SeqCst)
    }
}

impl Drop for InterruptGuard {
    fn drop(&mut self) {
        let _lock = self.handlers.transition.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if self.handlers.waiters.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.handlers.idle.store(true, Ordering::SeqCst);
        }
    }
}
