//! `GET /api/games/{id}/events`: a game's changes ([`qchess_games::Games::watch`]) as
//! Server-Sent Events.
//!
//! A `state` event carries the game's whole state (as `GET /api/games/{id}` answers it for
//! this caller), its id the game's revision: a board that reconnects with `Last-Event-ID: R`
//! gets nothing until the game passes R. `presence` events (no id) say which players have a
//! board open; a `gone` event ends the stream of a deleted game, a `refused` one the stream of
//! a seat claimed away. Clients reconnect when the server ends a stream (`retry: 1000`).

use std::convert::Infallible;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use qchess_games::GameEvent;

use super::request::Seat;
use crate::AppState;
use crate::error::ApiError;

/// How long a silent stream waits before a keep-alive comment.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /api/games/{id}/events`.
pub async fn events(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Seat(caller): Seat,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let last = match headers.get("last-event-id").map(|v| v.to_str().map(str::trim)) {
        None | Some(Ok("")) => None,
        Some(Ok(text)) => Some(text.parse::<i64>().map_err(|_| {
            ApiError::bad_request("Last-Event-ID: not an event id of this stream (they are whole numbers)")
        })?),
        Some(Err(_)) => return Err(ApiError::bad_request("Last-Event-ID: not text")),
    };
    let mut events = state.games.watch(&id, caller, last).await?;
    let mut hello = Some(Event::default().retry(Duration::from_millis(1000)).comment("qchess game events"));
    let stream = futures_util::stream::poll_fn(move |cx| {
        if let Some(hello) = hello.take() {
            return Poll::Ready(Some(Ok::<_, Infallible>(hello)));
        }
        // An event that cannot be written ends the stream, as a closed one does.
        events.poll_recv(cx).map(|event| event.and_then(|event| sse_event(event).map(Ok)))
    });
    let mut response = Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    // Proxies that buffer answers would hold events back.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

/// A game's event as the stream writes it.
fn sse_event(event: GameEvent) -> Option<Event> {
    match event {
        GameEvent::State { revision, state } => {
            Event::default().id(revision.to_string()).event("state").json_data(&state).ok()
        }
        GameEvent::Presence(presence) => Event::default().event("presence").json_data(&presence).ok(),
        GameEvent::Gone(message) => Some(Event::default().event("gone").data(message)),
        GameEvent::Refused(message) => Some(Event::default().event("refused").data(message)),
    }
}
