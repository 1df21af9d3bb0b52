//! The service's background work: renewing leases, taking over waiting moves and archiving
//! idle games (`recovery`), polling the store for watched games (`hub`), deciding flag falls
//! (`referee`).

use std::sync::Arc;

use crate::service::Games;

/// The service's background work ([`Games::start_background`]); it stops when this is dropped.
#[derive(Debug)]
pub struct Background(Vec<tokio::task::JoinHandle<()>>);

impl Drop for Background {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

impl Games {
    /// Starts the background work on the current runtime: taking over waiting moves whose
    /// lease ran out and archiving idle games (`recovery`), polling the store for the watched
    /// games (`hub`), deciding flag falls (`referee`). It runs until the handle is dropped.
    pub fn start_background(self: &Arc<Games>) -> Background {
        Background(vec![
            tokio::spawn(crate::recovery::run(Arc::clone(self))),
            tokio::spawn(crate::hub::run(Arc::clone(self.hub()), self.store().clone())),
            tokio::spawn(crate::referee::run(Arc::clone(self))),
        ])
    }

    /// Ends every event stream (the server is stopping); new ones end at once.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }
}
