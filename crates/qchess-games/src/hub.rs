//! The games this instance's event streams watch: each one's latest revision and its players'
//! presence, for the streams to wait on. A poller reads both from the store (so a change made
//! through another instance on the same store shows within [`POLL`]); this instance's own
//! changes are told at once. A seat with a stream open here is online; the poller marks it
//! seen in the store, so that other instances show it online too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use qchess_store::{Seat, Store};
use serde_json::{Value, json};
use tokio::sync::{Notify, watch};

use crate::seats::Role;
use crate::session::now_ms;

/// How often the store is asked about watched games.
pub const POLL: Duration = Duration::from_millis(150);

/// How often presence is read from the store.
const PRESENCE_EVERY: Duration = Duration::from_secs(1);

/// How often seats open here are marked seen in the store.
const SEEN_EVERY: Duration = Duration::from_secs(4);

/// A seat seen this long ago (by any instance) is no longer online.
const ONLINE_FOR_MS: i64 = 12_000;

/// The revision of a game that was deleted.
pub const GONE: i64 = i64::MAX;

#[derive(Debug)]
struct Watched {
    revision: watch::Sender<i64>,
    presence: watch::Sender<Value>,
    /// Streams open here per player seat.
    seats: HashMap<Role, usize>,
    streams: usize,
}

/// See the [module docs](self).
#[derive(Debug, Default)]
pub struct Hub {
    games: Mutex<HashMap<String, Watched>>,
    wake: Notify,
    /// Seats whose last stream here closed, to mark away in the store.
    left: Mutex<Vec<(String, Role)>>,
}

/// One stream's view of a watched game; leaving the game when dropped.
#[derive(Debug)]
pub struct Subscription {
    hub: Arc<Hub>,
    id: String,
    seat: Option<Role>,
    /// The game's latest revision ([`GONE`] once deleted).
    pub revision: watch::Receiver<i64>,
    /// Who is online: `{"white": bool, "black": bool}`.
    pub presence: watch::Receiver<Value>,
}

impl Hub {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Watched>> {
        self.games.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts watching game `id` for a stream (of player seat `seat`, if any).
    pub fn subscribe(self: &Arc<Hub>, id: &str, seat: Option<Role>) -> Subscription {
        let mut games = self.lock();
        let watched = games.entry(id.to_owned()).or_insert_with(|| Watched {
            revision: watch::Sender::new(-1),
            presence: watch::Sender::new(json!({ "white": false, "black": false })),
            seats: HashMap::new(),
            streams: 0,
        });
        watched.streams += 1;
        if let Some(seat) = seat {
            *watched.seats.entry(seat).or_default() += 1;
            watched.presence.send_modify(|presence| presence[seat.name()] = json!(true));
        }
        let subscription = Subscription {
            hub: Arc::clone(self),
            id: id.to_owned(),
            seat,
            revision: watched.revision.subscribe(),
            presence: watched.presence.subscribe(),
        };
        drop(games);
        self.wake.notify_one();
        subscription
    }

    /// This instance changed game `id` to `revision`: its streams hear at once.
    pub fn changed(&self, id: &str, revision: i64) {
        if let Some(watched) = self.lock().get(id) {
            watched.revision.send_if_modified(|known| {
                let newer = revision > *known;
                if newer {
                    *known = revision;
                }
                newer
            });
        }
    }

    /// Whether `seat` of game `id` has a stream open here.
    pub fn online_here(&self, id: &str, seat: Role) -> bool {
        self.lock().get(id).is_some_and(|watched| watched.seats.get(&seat).is_some_and(|n| *n > 0))
    }

    fn ids(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// `(game, seat)` of every player seat with a stream open here.
    fn seats_here(&self) -> Vec<(String, String)> {
        let games = self.lock();
        let mut seats = Vec::new();
        for (id, watched) in games.iter() {
            for (seat, count) in &watched.seats {
                if *count > 0 {
                    seats.push((id.clone(), seat.name().to_owned()));
                }
            }
        }
        seats
    }

    /// The revisions `found` of the games `asked` about.
    fn set_revisions(&self, asked: &[String], found: &[(String, i64)]) {
        let games = self.lock();
        let known: HashMap<&str, i64> = found.iter().map(|(id, revision)| (id.as_str(), *revision)).collect();
        for id in asked {
            let Some(watched) = games.get(id) else { continue };
            // A game the store no longer has was deleted.
            let revision = known.get(id.as_str()).copied().unwrap_or(GONE);
            watched.revision.send_if_modified(|current| {
                let newer = revision > *current;
                if newer {
                    *current = revision;
                }
                newer
            });
        }
    }

    /// Presence from the `seats` of the games `asked` about.
    fn set_presence(&self, asked: &[String], seats: &[Seat]) {
        let now = now_ms();
        let games = self.lock();
        for id in asked {
            let Some(watched) = games.get(id) else { continue };
            let mut presence = json!({ "white": false, "black": false });
            for role in [Role::White, Role::Black] {
                let here = watched.seats.get(&role).is_some_and(|n| *n > 0);
                let elsewhere = seats.iter().any(|seat| {
                    seat.game_id == *id
                        && seat.role == role.name()
                        && seat.seen_at.is_some_and(|at| now - at < ONLINE_FOR_MS)
                });
                presence[role.name()] = json!(here || elsewhere);
            }
            watched.presence.send_if_modified(|current| {
                let changed = *current != presence;
                if changed {
                    *current = presence.clone();
                }
                changed
            });
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut games = self.hub.lock();
        let Some(watched) = games.get_mut(&self.id) else { return };
        watched.streams -= 1;
        if let Some(seat) = self.seat
            && let Some(count) = watched.seats.get_mut(&seat)
        {
            *count -= 1;
            if *count == 0 {
                watched.presence.send_modify(|presence| presence[seat.name()] = json!(false));
                self.hub.left.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((self.id.clone(), seat));
            }
        }
        if watched.streams == 0 {
            games.remove(&self.id);
        }
        drop(games);
        self.hub.wake.notify_one();
    }
}

/// Polls `store` for the games `hub` watches until the task is aborted.
pub(crate) async fn run(hub: Arc<Hub>, store: Store) {
    let mut last_presence = std::time::Instant::now() - PRESENCE_EVERY;
    let mut last_seen = std::time::Instant::now() - SEEN_EVERY;
    loop {
        tokio::select! {
            () = tokio::time::sleep(POLL) => {}
            () = hub.wake.notified() => {}
        }
        // Seats whose last stream here closed are marked away at once, not when they go stale.
        let left: Vec<(String, Role)> =
            std::mem::take(&mut *hub.left.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        for (id, seat) in left {
            if !hub.online_here(&id, seat) {
                let _ = store.mark_seat_away(&id, seat.name()).await;
            }
        }
        let ids = hub.ids();
        if ids.is_empty() {
            continue;
        }
        // A store that cannot be reached now is asked again at the next tick.
        if let Ok(found) = store.revisions(&ids).await {
            hub.set_revisions(&ids, &found);
        }
        if last_seen.elapsed() >= SEEN_EVERY {
            last_seen = std::time::Instant::now();
            let _ = store.touch_seats(&hub.seats_here()).await;
        }
        if last_presence.elapsed() >= PRESENCE_EVERY {
            last_presence = std::time::Instant::now();
            if let Ok(seats) = store.seats_of(&ids).await {
                hub.set_presence(&ids, &seats);
            }
        }
    }
}
