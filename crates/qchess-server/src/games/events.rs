//! `GET /api/games/{id}/events`: a game's changes as Server-Sent Events.
//!
//! Every change of a game bumps its revision in the store; the stream sends the game's whole
//! state (as `GET /api/games/{id}` answers it for this caller) as an event named `state`
//! whose id is that revision. A board that reconnects with `Last-Event-ID: R` gets nothing
//! until the game passes R, then the state as it is: it shows what a board that never dropped
//! shows, with no move missed or sent twice. Besides, `presence` events (no id) say which
//! players have a board open, and a `gone` event ends the stream of a deleted game. The server
//! ends a stream after [`GamesConfig::events_lifetime`](super::GamesConfig::events_lifetime)
//! and at shutdown; clients reconnect (`retry: 1000`).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio::sync::mpsc;

use super::hub::{GONE, Subscription};
use super::seats::{Caller, Role};
use crate::AppState;
use crate::error::ApiError;

/// How long a silent stream waits before a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How often a stream looks whether the server is stopping.
const SHUTDOWN_CHECK: Duration = Duration::from_millis(250);

/// `GET /api/games/{id}/events`.
pub async fn events(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    caller: Caller,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let last = match headers.get("last-event-id").map(|v| v.to_str().map(str::trim)) {
        None | Some(Ok("")) => None,
        Some(Ok(text)) => Some(text.parse::<i64>().map_err(|_| {
            ApiError::bad_request("Last-Event-ID: not an event id of this stream (they are whole numbers)")
        })?),
        Some(Err(_)) => return Err(ApiError::bad_request("Last-Event-ID: not text")),
    };
    let role = state.games.watcher(&id, &caller).await?;
    let seat = role.filter(|role| *role != Role::Spectator);
    let subscription = state.games.hub().subscribe(&id, seat);
    let (sender, mut events) = mpsc::channel::<Event>(8);
    tokio::spawn(pump(Arc::clone(&state), id, caller, last, subscription, sender));
    let stream = futures_util::stream::poll_fn(move |cx| events.poll_recv(cx).map(|e| e.map(Ok::<_, Infallible>)));
    let mut response = Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Proxies that buffer answers would hold events back.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

/// Sends a game's changes until the client leaves, the stream's lifetime ends, the game is
/// deleted, or the server stops.
async fn pump(
    state: Arc<AppState>,
    id: String,
    caller: Caller,
    last: Option<i64>,
    mut subscription: Subscription,
    sender: mpsc::Sender<Event>,
) {
    let end = tokio::time::Instant::now() + state.games.config().events_lifetime;
    if sender.send(Event::default().retry(Duration::from_millis(1000)).comment("qchess game events")).await.is_err() {
        return;
    }
    let mut sent = last;
    let mut first = true;
    let mut presence: Option<Value> = None;
    loop {
        let revision = *subscription.revision.borrow_and_update();
        if revision == GONE {
            let _ = sender.send(Event::default().event("gone").data(format!("game {id} was deleted"))).await;
            return;
        }
        if first || sent.is_none_or(|sent| revision > sent) {
            first = false;
            match state.games.state(&id, &caller).await {
                Ok(view) => {
                    let current = view["revision"].as_i64().unwrap_or(revision);
                    if sent.is_none_or(|sent| current > sent) {
                        let Ok(event) = Event::default().id(current.to_string()).event("state").json_data(&view) else {
                            return;
                        };
                        if sender.send(event).await.is_err() {
                            return;
                        }
                        sent = Some(current);
                    }
                }
                Err(error) if error.status == StatusCode::NOT_FOUND => {
                    let _ = sender.send(Event::default().event("gone").data(error.message)).await;
                    return;
                }
                // The seat was claimed away, or the game became unreadable: say so and stop.
                Err(error) if error.status.is_client_error() => {
                    let _ = sender.send(Event::default().event("refused").data(error.message)).await;
                    return;
                }
                // The store is unreachable for now: the next change (or the next tick) tries again.
                Err(_) => first = true,
            }
        }
        let now_present = subscription.presence.borrow_and_update().clone();
        if presence.as_ref() != Some(&now_present) {
            let Ok(event) = Event::default().event("presence").json_data(&now_present) else { return };
            if sender.send(event).await.is_err() {
                return;
            }
            presence = Some(now_present);
        }
        tokio::select! {
            changed = subscription.revision.changed() => if changed.is_err() { return },
            changed = subscription.presence.changed() => if changed.is_err() { return },
            () = tokio::time::sleep_until(end) => return,
            () = sender.closed() => return,
            () = tokio::time::sleep(SHUTDOWN_CHECK) => {
                if state.shutting_down.load(Ordering::SeqCst) {
                    return;
                }
            }
        }
    }
}
