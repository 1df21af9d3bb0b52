//! The background work of the game store, per process: renewing the leases of the waiting moves
//! this process polls, taking over waiting moves whose lease ran out (their process died, or
//! this one restarted after a crash) so that every waiting move completes, and archiving games
//! unused past the idle time.

use std::sync::Arc;
use std::time::Duration;

use crate::service::Games;

/// Runs until the task is aborted.
pub(crate) async fn run(games: Arc<Games>) {
    let config = games.config().clone();
    let lease = config.lease;
    // Renewed three times per lease, so one late renewal never loses it.
    let mut renew = tokio::time::interval((lease / 3).max(Duration::from_millis(50)));
    let mut scan = tokio::time::interval((lease / 2).max(Duration::from_millis(100)));
    let mut archive =
        tokio::time::interval((config.idle_timeout / 4).clamp(Duration::from_millis(250), Duration::from_secs(60)));
    for interval in [&mut renew, &mut scan, &mut archive] {
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    }
    loop {
        tokio::select! {
            _ = renew.tick() => {
                // A store that cannot be reached now is tried again at the next tick.
                let _ = games.store().renew_leases(games.instance(), lease).await;
            }
            _ = scan.tick() => take_over_expired(&games).await,
            _ = archive.tick() => games.archive_idle().await,
        }
    }
}

/// Takes over every waiting move whose lease ran out, and plays it here.
async fn take_over_expired(games: &Games) {
    let Ok(expired) = games.store().expired_pending("web").await else { return };
    for pending in expired {
        let taken = games.store().take_over(&pending, games.instance(), games.config().lease).await;
        let Ok(Some(claim)) = taken else { continue };
        let id = claim.game_id.clone();
        // The move goes on on its game's thread; its answer has no one to go to.
        let _ = games.run_claimed(&id, claim, None).await;
    }
}
