//! The referee: decides flag falls by the server's clock, whether or not any board is open.
//!
//! It reads the running clocks that run out first from the store, sleeps until the first
//! deadline (or [`SCAN`], or until this instance changes a clock), and ends each game whose
//! time ran out (`time:SIDE`, stored against the game's revision: of several instances on one
//! store, one decides and the others find the game over). A game whose deadline is near is
//! loaded ahead, so deciding takes no rebuild. Instances must keep their clocks in time (NTP):
//! deadlines are wall-clock instants shared through the store.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::service::Games;
use crate::session::now_ms;

/// How often the store is read for running clocks, when nothing wakes the referee sooner.
pub const SCAN: Duration = Duration::from_millis(250);

/// A game whose deadline is this near is loaded ahead.
const WARM_MS: i64 = 3_000;

/// Clocks read at once.
const BATCH: u32 = 32;

/// How long a game that could not be decided waits before the next try.
const BACKOFF: Duration = Duration::from_secs(5);

/// Runs until the task is aborted.
pub(crate) async fn run(games: Arc<Games>) {
    let mut failed: HashMap<String, Instant> = HashMap::new();
    loop {
        let mut wait = SCAN;
        if let Ok(due) = games.store().due_clocks(BATCH).await {
            failed.retain(|_, at| at.elapsed() < BACKOFF);
            let now = now_ms();
            for (id, deadline) in due {
                if failed.contains_key(&id) {
                    continue;
                }
                if deadline <= now {
                    if let Err(error) = games.flag_due(&id).await {
                        eprintln!("qchess serve: game {id}: the flag fall could not be decided: {error}");
                        failed.insert(id, Instant::now());
                    }
                } else {
                    if deadline - now <= WARM_MS {
                        games.warm(&id).await;
                    }
                    // Sleep to the first deadline, but not past the next scan.
                    let until = Duration::from_millis(u64::try_from(deadline - now_ms()).unwrap_or(0));
                    wait = wait.min(until);
                }
            }
        }
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = games.referee.notified() => {}
        }
    }
}
