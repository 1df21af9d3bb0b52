//! One HTTP/1.1 connection, bounded in time so that a slow or silent client cannot hold it:
//!
//! * a request header must arrive whole within [`Timeouts::header`] of the connection opening
//!   or of the request's first byte (a client sending half a header is dropped);
//! * a request body must arrive whole within [`Timeouts::body`] of its header (the handler
//!   reading it sees an error, answered 408);
//! * a connection that moves no byte for [`Timeouts::idle`] while no handler runs (an idle
//!   keep-alive connection, or a client that stopped reading an answer) is closed;
//! * while other connections wait for a place (the cap is reached), idle keep-alive
//!   connections are closed at once.
//!
//! The watch works from outside HTTP: the socket reports every byte moved, the service reports
//! when a request's header was parsed, when its handler returned and when its answer was sent.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use qchess_standins::body::BodyTimeout;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{Notify, watch};
use tower_service::Service as _;

use crate::config::Timeouts;

/// What a connection has been doing, shared by its socket, its service and its watchdog.
#[derive(Debug)]
struct Activity {
    epoch: Instant,
    /// Milliseconds since `epoch` when a byte last moved, or an answer was sent.
    last_byte: AtomicU64,
    /// Milliseconds since `epoch` + 1 when the header being read began; 0 while none is.
    header_since: AtomicU64,
    /// Handlers running.
    handlers: AtomicUsize,
    /// Requests whose answer has not been sent yet.
    open: AtomicUsize,
}

impl Activity {
    /// A fresh connection: its first header is due within the header timeout.
    fn new() -> Activity {
        Activity {
            epoch: Instant::now(),
            last_byte: AtomicU64::new(0),
            header_since: AtomicU64::new(1),
            handlers: AtomicUsize::new(0),
            open: AtomicUsize::new(0),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn bytes_moved(&self, read: bool) {
        let now = self.now();
        self.last_byte.store(now, Ordering::Relaxed);
        // The first byte of a request after an answer starts its header's clock.
        if read && self.open.load(Ordering::Relaxed) == 0 {
            let _ = self.header_since.compare_exchange(0, now + 1, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Why the connection must close now, if it must.
    fn expired(&self, timeouts: &Timeouts) -> Option<Expiry> {
        if self.handlers.load(Ordering::Relaxed) > 0 {
            return None;
        }
        let now = self.now();
        let header_since = self.header_since.load(Ordering::Relaxed);
        if self.open.load(Ordering::Relaxed) == 0 && header_since > 0 {
            let waited = now.saturating_sub(header_since - 1);
            return (waited >= timeouts.header.as_millis() as u64).then_some(Expiry::Header);
        }
        let idle = now.saturating_sub(self.last_byte.load(Ordering::Relaxed));
        (idle >= timeouts.idle.as_millis() as u64).then_some(Expiry::Idle)
    }

    /// Whether the connection waits for a next request that has not begun.
    fn is_idle(&self) -> bool {
        self.handlers.load(Ordering::Relaxed) == 0
            && self.open.load(Ordering::Relaxed) == 0
            && self.header_since.load(Ordering::Relaxed) == 0
    }

    /// Resolves once the connection must close: a timeout, or an idle connection while others
    /// wait for a place.
    async fn watch(&self, timeouts: Timeouts, crowding: &Crowding) -> Expiry {
        let tick = (timeouts.header.min(timeouts.idle) / 4).clamp(Duration::from_millis(10), Duration::from_secs(1));
        loop {
            tokio::select! {
                () = tokio::time::sleep(tick) => {}
                () = crowding.notify.notified() => {}
            }
            if crowding.crowded.load(Ordering::Relaxed) && self.is_idle() {
                return Expiry::Crowded;
            }
            if let Some(expiry) = self.expired(&timeouts) {
                return expiry;
            }
        }
    }
}

/// Whether connections wait for a place because all are taken; idle keep-alive connections
/// then close to make room, so that clients holding idle connections in their pools cannot keep
/// others out.
#[derive(Debug, Default)]
pub struct Crowding {
    crowded: AtomicBool,
    notify: Notify,
}

impl Crowding {
    /// Says whether connections wait for a place; when they start to, idle ones are told at once.
    pub fn set(&self, crowded: bool) {
        self.crowded.store(crowded, Ordering::Relaxed);
        if crowded {
            self.notify.notify_waiters();
        }
    }
}

/// Why a connection was closed by the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expiry {
    Header,
    Idle,
    Crowded,
}

/// The socket, reporting every byte it moves.
struct WatchedStream {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for WatchedStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.bytes_moved(true);
        }
        polled
    }
}

impl AsyncWrite for WatchedStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.stream).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.bytes_moved(false);
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// A request body that fails with [`BodyTimeout`] unless it arrives whole in time.
struct TimedBody {
    body: Incoming,
    deadline: Pin<Box<tokio::time::Sleep>>,
    after: Duration,
}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        match self.deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(BodyTimeout { after: self.after })))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// An answer's body that tells the connection when it was sent (or dropped).
struct TrackedBody {
    body: Body,
    _open: Open,
}

impl http_body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Counts a request until its answer was sent, or its handler was dropped unanswered.
struct Open(Arc<Activity>);

impl Open {
    fn new(activity: &Arc<Activity>) -> Open {
        activity.header_since.store(0, Ordering::Relaxed);
        activity.open.fetch_add(1, Ordering::Relaxed);
        Open(Arc::clone(activity))
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.last_byte.store(self.0.now(), Ordering::Relaxed);
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Counts a running handler while it lives.
struct Handling(Arc<Activity>);

impl Drop for Handling {
    fn drop(&mut self) {
        self.0.handlers.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Serves one connection until the client leaves, a timeout closes it, or (after `shutdown`
/// turns true) its request in flight is answered.
pub async fn serve(
    stream: TcpStream,
    app: Router,
    timeouts: Timeouts,
    crowding: Arc<Crowding>,
    mut shutdown: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity::new());
    // Handlers see the peer's address (the game API's rate limits count by it).
    let peer = stream.peer_addr().ok();
    let io = TokioIo::new(WatchedStream { stream, activity: Arc::clone(&activity) });
    let service_activity = Arc::clone(&activity);
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        let activity = Arc::clone(&service_activity);
        let mut app = app.clone();
        if let Some(peer) = peer {
            request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
        }
        async move {
            let open = Open::new(&activity);
            activity.handlers.fetch_add(1, Ordering::Relaxed);
            let handling = Handling(Arc::clone(&activity));
            let request = request.map(|body| TimedBody {
                body,
                deadline: Box::pin(tokio::time::sleep(timeouts.body)),
                after: timeouts.body,
            });
            let response = app.call(request).await.unwrap_or_else(|never: Infallible| match never {});
            drop(handling);
            Ok::<_, Infallible>(response.map(|body| Body::new(TrackedBody { body, _open: open })))
        }
    });
    let connection = hyper::server::conn::http1::Builder::new().keep_alive(true).serve_connection(io, service);
    tokio::pin!(connection);
    let watchdog = activity.watch(timeouts, &crowding);
    tokio::pin!(watchdog);
    let mut draining = *shutdown.borrow();
    if draining {
        connection.as_mut().graceful_shutdown();
    }
    loop {
        tokio::select! {
            // Errors of one connection (a reset, a malformed request) concern only its client.
            _ = connection.as_mut() => return,
            // Dropping the connection closes the socket.
            _ = &mut watchdog => return,
            changed = shutdown.changed(), if !draining => {
                if changed.is_err() || *shutdown.borrow() {
                    draining = true;
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_follows_what_the_connection_is_doing() {
        let timeouts =
            Timeouts { header: Duration::from_millis(50), idle: Duration::from_millis(80), ..Timeouts::default() };
        let activity = Activity::new();
        assert_eq!(activity.expired(&timeouts), None);
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(activity.expired(&timeouts), Some(Expiry::Header), "no header on a fresh connection");
        // A request is being handled: never expired.
        activity.header_since.store(0, Ordering::Relaxed);
        activity.open.store(1, Ordering::Relaxed);
        activity.handlers.store(1, Ordering::Relaxed);
        activity.last_byte.store(0, Ordering::Relaxed);
        assert_eq!(activity.expired(&timeouts), None);
        // Its answer is not being read: idle.
        activity.handlers.store(0, Ordering::Relaxed);
        std::thread::sleep(Duration::from_millis(30));
        assert_eq!(activity.expired(&timeouts), Some(Expiry::Idle));
        // Answered; the next request's first byte starts the header clock.
        activity.open.store(0, Ordering::Relaxed);
        activity.bytes_moved(true);
        assert_eq!(activity.expired(&timeouts), None);
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(activity.expired(&timeouts), Some(Expiry::Header));
    }
}
