//! Accepting connections up to the cap (more wait in the listen queue), and stopping: on the shutdown signal the server stops
//! accepting, refuses new jobs, fails the jobs that have not started (`ServerShutdown`), ends
//! the game service's event streams, lets
//! running jobs and requests in flight finish within [`Timeouts::shutdown_grace`], then fails
//! and stops whatever still runs.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;

use crate::AppState;
use crate::config::Timeouts;
use crate::connection::{self, Crowding};

/// How often shutdown looks whether everything finished.
const DRAIN_POLL: Duration = Duration::from_millis(20);

/// What happened to the work in hand when the server stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ShutdownReport {
    /// Jobs that had not started, failed with `ServerShutdown`.
    pub unstarted_failed: usize,
    /// Jobs that were running and finished within the grace period.
    pub running_finished: usize,
    /// Jobs still running when the grace period ran out, failed with `ServerShutdown`.
    pub running_stopped: usize,
    /// Connections still open when the grace period ran out, closed.
    pub connections_closed: usize,
}

/// Serves `app` on `listener` until `shutdown` resolves, then stops as the module docs say.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> ShutdownReport {
    let timeouts = state.config.timeouts;
    let cap = state.config.limits.max_connections;
    let slots = Arc::new(Semaphore::new(cap));
    let crowding = Arc::new(Crowding::default());
    let (stopping, stop_signal) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        // At the cap, further connections wait in the listen queue until one closes: a burst
        // of clients is served late rather than turned away. Idle keep-alive connections close
        // at once to make room; silent ones at the header timeout.
        let slot = match Arc::clone(&slots).try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                crowding.set(true);
                let slot = tokio::select! {
                    () = &mut shutdown => break,
                    slot = Arc::clone(&slots).acquire_owned() => slot,
                };
                crowding.set(false);
                let Ok(slot) = slot else { break };
                slot
            }
        };
        let accepted = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        while connections.try_join_next().is_some() {}
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors or a connection reset before it was taken: wait a little
            // rather than spin, and go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let (app, stop_signal, crowding) = (app.clone(), stop_signal.clone(), Arc::clone(&crowding));
        connections.spawn(async move {
            connection::serve(stream, app, timeouts, crowding, stop_signal).await;
            drop(slot);
        });
    }
    drop(listener);
    stop(&state, &stopping, &mut connections, &slots, cap, timeouts).await
}

async fn stop(
    state: &AppState,
    stopping: &watch::Sender<bool>,
    connections: &mut JoinSet<()>,
    slots: &Semaphore,
    cap: usize,
    timeouts: Timeouts,
) -> ShutdownReport {
    let deadline = Instant::now() + timeouts.shutdown_grace;
    let mut report = ShutdownReport { unstarted_failed: state.ionq.refuse_new_jobs(), ..ShutdownReport::default() };
    // Event streams end; connections answer what they are doing and close.
    state.games.close();
    let running = state.ionq.running();
    let _ = stopping.send(true);
    while Instant::now() < deadline && (state.ionq.running() > 0 || slots.available_permits() < cap) {
        while connections.try_join_next().is_some() {}
        tokio::time::sleep(DRAIN_POLL.min(deadline.saturating_duration_since(Instant::now()))).await;
    }
    report.running_stopped = state.ionq.stop_running(timeouts.shutdown_grace);
    report.running_finished = running.saturating_sub(report.running_stopped);
    report.connections_closed = cap - slots.available_permits();
    connections.abort_all();
    while connections.join_next().await.is_some() {}
    report
}
