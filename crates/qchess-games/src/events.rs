//! A game's changes as they happen ([`Games::watch`]), for the event stream of a board.
//!
//! Every change of a game bumps its revision in the store; the watcher gets the game's whole
//! state (as [`Games::state`] answers it for this caller), tagged with that revision. A watcher
//! that comes back with the last revision it had gets nothing until the game passes it, then
//! the state as it is: it shows what a board that never dropped shows, with no move missed or
//! sent twice. Besides, the players' presence (which of them have a board open) is told when
//! it changes, and a deleted game ends the stream. The service ends a stream after
//! [`GamesConfig::events_lifetime`](crate::GamesConfig::events_lifetime) and when it closes
//! ([`Games::close`]); boards reconnect.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::GamesError;
use crate::hub::{GONE, Subscription};
use crate::seats::{Caller, Role};
use crate::service::Games;

/// How often a stream looks again when nothing woke it (the store may have been unreachable).
const RECHECK: Duration = Duration::from_millis(250);

/// One thing a watcher of a game is told.
#[derive(Debug, Clone, PartialEq)]
pub enum GameEvent {
    /// The game's state, as of `revision`.
    State {
        /// The store's revision of the game.
        revision: i64,
        /// Its state, as the watcher may see it.
        state: Value,
    },
    /// Which players have a board open: `{"white": bool, "black": bool}`.
    Presence(Value),
    /// The game was deleted; the stream ends.
    Gone(String),
    /// The watcher may watch no more (its seat was claimed by another browser, or the game
    /// became unreadable); the stream ends.
    Refused(String),
}

impl Games {
    /// Game `id`'s events for `caller`, after revision `last` when the watcher has one; the
    /// stream ends with the game, after the stream's lifetime, when the receiver is dropped, or
    /// when the service closes.
    pub async fn watch(
        self: &Arc<Games>,
        id: &str,
        caller: Caller,
        last: Option<i64>,
    ) -> Result<mpsc::Receiver<GameEvent>, GamesError> {
        let role = self.watcher(id, &caller).await?;
        let seat = role.filter(|role| *role != Role::Spectator);
        let subscription = self.hub().subscribe(id, seat);
        let (sender, events) = mpsc::channel(8);
        tokio::spawn(Arc::clone(self).pump(id.to_owned(), caller, last, subscription, sender));
        Ok(events)
    }

    /// Sends a game's events until the stream ends (see [`Games::watch`]).
    async fn pump(
        self: Arc<Games>,
        id: String,
        caller: Caller,
        last: Option<i64>,
        mut subscription: Subscription,
        sender: mpsc::Sender<GameEvent>,
    ) {
        let end = tokio::time::Instant::now() + self.config().events_lifetime;
        let mut closing = self.closing.subscribe();
        let mut sent = last;
        let mut first = true;
        let mut presence: Option<Value> = None;
        loop {
            if *closing.borrow_and_update() {
                return;
            }
            let revision = *subscription.revision.borrow_and_update();
            if revision == GONE {
                let _ = sender.send(GameEvent::Gone(format!("game {id} was deleted"))).await;
                return;
            }
            if first || sent.is_none_or(|sent| revision > sent) {
                first = false;
                match self.state(&id, &caller).await {
                    Ok(state) => {
                        let current = state["revision"].as_i64().unwrap_or(revision);
                        if sent.is_none_or(|sent| current > sent) {
                            if sender.send(GameEvent::State { revision: current, state }).await.is_err() {
                                return;
                            }
                            sent = Some(current);
                        }
                    }
                    Err(GamesError::NotFound(message)) => {
                        let _ = sender.send(GameEvent::Gone(message)).await;
                        return;
                    }
                    // The seat was claimed away, or the game became unreadable: say so and stop.
                    Err(error) if error.is_refusal() => {
                        let _ = sender.send(GameEvent::Refused(error.to_string())).await;
                        return;
                    }
                    // The store is unreachable for now: the next change (or the next tick) tries again.
                    Err(_) => first = true,
                }
            }
            let now_present = subscription.presence.borrow_and_update().clone();
            if presence.as_ref() != Some(&now_present) {
                if sender.send(GameEvent::Presence(now_present.clone())).await.is_err() {
                    return;
                }
                presence = Some(now_present);
            }
            tokio::select! {
                changed = subscription.revision.changed() => if changed.is_err() { return },
                changed = subscription.presence.changed() => if changed.is_err() { return },
                changed = closing.changed() => if changed.is_err() { return },
                () = tokio::time::sleep_until(end) => return,
                () = sender.closed() => return,
                () = tokio::time::sleep(RECHECK) => {}
            }
        }
    }
}
