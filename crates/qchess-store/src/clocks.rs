//! A game's clocks and offers, and [`Change`]: one change of a game (events added, events taken
//! back, where it stands, its clocks, its offers) made in one transaction against the revision
//! the caller read, so that a move, the clock it charges and the offers it ends are stored
//! together or not at all.

use std::time::Duration;

use qchess_core::Color;
use qchess_engine::clock::{FischerClock, TimeControl};
use serde_json::{Value, json};
use sqlx::Row;
use sqlx::any::AnyRow;

use crate::db::{Store, now_ms};
use crate::error::StoreError;
use crate::events::{NewEvent, Standing, insert_events, side_name};

/// A game's Fischer clocks as stored: each side's time left when the running side's turn
/// began, which side's clock runs (none before the first move and after the end), and since
/// when. Times are milliseconds (since 1970 for instants).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClockRow {
    /// Each side's time at the start.
    pub base_ms: i64,
    /// Added after each move.
    pub increment_ms: i64,
    /// White's time left (as of `since` when White's clock runs).
    pub white_ms: i64,
    /// Black's time left (as of `since` when Black's clock runs).
    pub black_ms: i64,
    /// `white` or `black` while that side's clock runs; empty while none does.
    pub running: String,
    /// When the running side's turn began (or when the clocks last changed).
    pub since: i64,
}

impl ClockRow {
    /// A clock of `control`, not running yet.
    pub fn new(control: TimeControl, now: i64) -> ClockRow {
        let base_ms = millis(control.base);
        ClockRow {
            base_ms,
            increment_ms: millis(control.increment),
            white_ms: base_ms,
            black_ms: base_ms,
            running: String::new(),
            since: now,
        }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        TimeControl { base: duration(self.base_ms), increment: duration(self.increment_ms) }
    }

    /// The side whose clock runs.
    pub fn running_side(&self) -> Option<Color> {
        side(&self.running)
    }

    /// `side`'s time left as stored (before the running side's current turn).
    pub fn left_ms(&self, side: Color) -> i64 {
        match side {
            Color::White => self.white_ms,
            Color::Black => self.black_ms,
        }
    }

    /// When the running side's time runs out.
    pub fn deadline(&self) -> Option<i64> {
        self.running_side().map(|side| self.since.saturating_add(self.left_ms(side)))
    }

    /// `side`'s time left at `now` (its clock counting down while it runs, never below 0).
    pub fn left_at(&self, side: Color, now: i64) -> i64 {
        let used = if self.running_side() == Some(side) { (now - self.since).max(0) } else { 0 };
        (self.left_ms(side) - used).max(0)
    }

    /// The clocks after `mover` moved at `now`: its turn's time charged (none for a turn whose
    /// clock was not running: the game's first move), the increment added, and `next`'s clock
    /// running from now (`None`: the game is over). Returns the mover's time left.
    pub fn after_move(&mut self, mover: Color, next: Option<Color>, now: i64) -> Duration {
        let used = if self.running_side() == Some(mover) { (now - self.since).max(0) } else { 0 };
        let mut clock = FischerClock::new(self.control());
        clock.set_remaining(mover, duration(self.left_ms(mover)));
        let left = clock.charge(mover, duration(used));
        self.set_left(mover, millis(left));
        self.running = next.map_or_else(String::new, |side| color_name(side).to_owned());
        self.since = now;
        left
    }

    /// The clocks stopped at `now` (the game ended otherwise than by a move): the running side's
    /// time used so far is charged.
    pub fn stop(&mut self, now: i64) {
        if let Some(side) = self.running_side() {
            let left = self.left_at(side, now);
            self.set_left(side, left);
        }
        self.running.clear();
        self.since = now;
    }

    /// `side`'s clock runs from `now` (after moves were taken back; `None`: no clock runs).
    pub fn restart(&mut self, side: Option<Color>, now: i64) {
        self.stop(now);
        self.running = side.map_or_else(String::new, |side| color_name(side).to_owned());
    }

    fn set_left(&mut self, side: Color, left: i64) {
        match side {
            Color::White => self.white_ms = left,
            Color::Black => self.black_ms = left,
        }
    }
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX / 4)
}

fn duration(millis: i64) -> Duration {
    Duration::from_millis(u64::try_from(millis).unwrap_or(0))
}

fn side(name: &str) -> Option<Color> {
    match name {
        "white" => Some(Color::White),
        "black" => Some(Color::Black),
        _ => None,
    }
}

fn color_name(side: Color) -> &'static str {
    side_name(side)
}

/// A time control as a stored game's options keep it (`qchess play --clock` and `qchess serve`
/// alike): `{"base_secs", "increment_secs", "base_ms", "increment_ms"}`.
pub fn stored_control(control: TimeControl) -> Value {
    json!({
        "base_secs": control.base.as_secs(),
        "increment_secs": control.increment.as_secs(),
        "base_ms": millis(control.base),
        "increment_ms": millis(control.increment),
    })
}

/// The time control kept in a stored game's options under `clock`, when it has one.
pub fn time_control(options: &Value) -> Option<TimeControl> {
    let kept = options.get("clock")?;
    let read = |ms: &str, secs: &str| {
        kept.get(ms)
            .and_then(Value::as_u64)
            .map(Duration::from_millis)
            .or_else(|| kept.get(secs).and_then(Value::as_u64).map(Duration::from_secs))
    };
    Some(TimeControl { base: read("base_ms", "base_secs")?, increment: read("increment_ms", "increment_secs")? })
}

/// A draw offer or a takeback request, waiting for the opponent's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    /// `draw` or `takeback`.
    pub kind: String,
    /// The side that made it (`white`, `black`).
    pub side: String,
    /// A takeback's plies to take back (0 for a draw offer).
    pub plies: u32,
    /// The game's ply when it was made.
    pub ply: u32,
    /// It holds while the game's ply is at most this (a move of the opponent answers it no).
    pub until_ply: u32,
    /// When it was made (ms since 1970).
    pub made_at: i64,
}

impl Offer {
    /// Whether it still holds at the game's `ply`.
    pub fn holds_at(&self, ply: u32) -> bool {
        ply >= self.ply && ply <= self.until_ply
    }
}

/// One change of a game, stored in one transaction against the revision it was made at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// Keep only this many of its events first (moves taken back).
    pub keep: Option<u32>,
    /// Events to add after those.
    pub events: Vec<NewEvent>,
    /// Where the game stands after it (`None`: unchanged).
    pub standing: Option<Standing>,
    /// Its clocks after it (`None`: unchanged).
    pub clock: Option<ClockRow>,
    /// Its offers after it, every one (`None`: unchanged).
    pub offers: Option<Vec<Offer>>,
}

impl Store {
    /// Makes `change` to game `id` if it is still at `revision` and no move waits; returns the
    /// new revision.
    pub async fn change(&self, id: &str, revision: i64, change: &Change) -> Result<i64, StoreError> {
        let doing = "storing a change of a game";
        let failed = |e| self.failed(doing, e);
        let mut transaction = self.begin_writing().await.map_err(failed)?;
        // The revision bump locks the game's row: a concurrent change waits, then finds it moved.
        let mut sql = "UPDATE games SET revision = revision + 1, archived = 0, updated_at = $1".to_owned();
        if change.standing.is_some() {
            sql.push_str(", result = $4, to_move = $5, ply = $6, record = $7");
        }
        sql.push_str(
            " WHERE id = $2 AND revision = $3 AND NOT EXISTS (SELECT 1 FROM pending_moves WHERE game_id = $2)",
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(now_ms()).bind(id.to_owned()).bind(revision);
        if let Some(standing) = &change.standing {
            query = query
                .bind(standing.result.clone())
                .bind(standing.to_move.clone())
                .bind(i64::from(standing.ply))
                .bind(standing.record.clone());
        }
        if query.execute(&mut *transaction).await.map_err(failed)?.rows_affected() == 0 {
            drop(transaction);
            return Err(self.why_not(id, revision).await);
        }
        if let Some(keep) = change.keep {
            sqlx::query("DELETE FROM game_events WHERE game_id = $1 AND seq >= $2")
                .bind(id.to_owned())
                .bind(i64::from(keep))
                .execute(&mut *transaction)
                .await
                .map_err(failed)?;
        }
        insert_events(&mut transaction, id, &change.events).await.map_err(failed)?;
        if let Some(clock) = &change.clock {
            sqlx::query(
                "UPDATE game_clocks SET white_ms = $1, black_ms = $2, running = $3, since = $4, deadline = $5 \
                 WHERE game_id = $6",
            )
            .bind(clock.white_ms)
            .bind(clock.black_ms)
            .bind(clock.running.clone())
            .bind(clock.since)
            .bind(clock.deadline())
            .bind(id.to_owned())
            .execute(&mut *transaction)
            .await
            .map_err(failed)?;
        }
        if let Some(offers) = &change.offers {
            sqlx::query("DELETE FROM game_offers WHERE game_id = $1")
                .bind(id.to_owned())
                .execute(&mut *transaction)
                .await
                .map_err(failed)?;
            for offer in offers {
                insert_offer(&mut transaction, id, offer).await.map_err(failed)?;
            }
        }
        transaction.commit().await.map_err(failed)?;
        Ok(revision + 1)
    }

    /// Game `id`'s clocks, when it has them.
    pub async fn clock(&self, id: &str) -> Result<Option<ClockRow>, StoreError> {
        let row = sqlx::query(
            "SELECT base_ms, increment_ms, white_ms, black_ms, running, since FROM game_clocks WHERE game_id = $1",
        )
        .bind(id.to_owned())
        .fetch_optional(&self.pool)
        .await
        .map_err(|e| self.failed("reading a game's clocks", e))?;
        row.map(|row| clock_from(&row).map_err(|e| self.failed("reading a game's clocks", e))).transpose()
    }

    /// Game `id`'s offers (also those its moves have since answered; see [`Offer::holds_at`]).
    pub async fn offers(&self, id: &str) -> Result<Vec<Offer>, StoreError> {
        let rows = sqlx::query(
            "SELECT kind, side, plies, ply, until_ply, made_at FROM game_offers WHERE game_id = $1 ORDER BY made_at",
        )
        .bind(id.to_owned())
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.failed("reading a game's offers", e))?;
        let read = |row: &AnyRow| -> Result<Offer, sqlx::Error> {
            Ok(Offer {
                kind: row.try_get("kind")?,
                side: row.try_get("side")?,
                plies: row.try_get::<i64, _>("plies")? as u32,
                ply: row.try_get::<i64, _>("ply")? as u32,
                until_ply: row.try_get::<i64, _>("until_ply")? as u32,
                made_at: row.try_get("made_at")?,
            })
        };
        rows.iter().map(|row| read(row).map_err(|e| self.failed("reading a game's offers", e))).collect()
    }

    /// The running clocks that run out first: `(game, deadline)`, soonest first, at most `limit`.
    pub async fn due_clocks(&self, limit: u32) -> Result<Vec<(String, i64)>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT game_id, deadline FROM game_clocks WHERE deadline IS NOT NULL ORDER BY deadline LIMIT {limit}"
        )))
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.failed("reading the running clocks", e))?;
        rows.iter()
            .map(|row| Ok((row.try_get("game_id")?, row.try_get("deadline")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.failed("reading the running clocks", e))
    }
}

fn clock_from(row: &AnyRow) -> Result<ClockRow, sqlx::Error> {
    Ok(ClockRow {
        base_ms: row.try_get("base_ms")?,
        increment_ms: row.try_get("increment_ms")?,
        white_ms: row.try_get("white_ms")?,
        black_ms: row.try_get("black_ms")?,
        running: row.try_get("running")?,
        since: row.try_get("since")?,
    })
}

/// Inserts a game's clocks (inside the caller's transaction).
pub(crate) async fn insert_clock(
    transaction: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    clock: &ClockRow,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO game_clocks (game_id, base_ms, increment_ms, white_ms, black_ms, running, since, deadline) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(id.to_owned())
    .bind(clock.base_ms)
    .bind(clock.increment_ms)
    .bind(clock.white_ms)
    .bind(clock.black_ms)
    .bind(clock.running.clone())
    .bind(clock.since)
    .bind(clock.deadline())
    .execute(&mut **transaction)
    .await
    .map(|_| ())
}

async fn insert_offer(
    transaction: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    offer: &Offer,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO game_offers (game_id, kind, side, plies, ply, until_ply, made_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(id.to_owned())
    .bind(offer.kind.clone())
    .bind(offer.side.clone())
    .bind(i64::from(offer.plies))
    .bind(i64::from(offer.ply))
    .bind(i64::from(offer.until_ply))
    .bind(offer.made_at)
    .execute(&mut **transaction)
    .await
    .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_charge_the_mover_and_run_for_the_next() {
        let mut clock = ClockRow::new("1+2".parse().expect("control"), 1_000);
        assert_eq!((clock.running_side(), clock.deadline()), (None, None));
        // The first move's turn had no running clock: no time is charged, the increment added.
        assert_eq!(clock.after_move(Color::White, Some(Color::Black), 5_000), Duration::from_secs(62));
        assert_eq!(clock.deadline(), Some(65_000));
        assert_eq!(clock.left_at(Color::Black, 15_000), 50_000);
        assert_eq!(clock.left_at(Color::White, 15_000), 62_000, "White's clock is not running");
        assert_eq!(clock.after_move(Color::Black, Some(Color::White), 20_000), Duration::from_secs(47));
        assert_eq!((clock.black_ms, clock.deadline()), (47_000, Some(82_000)));
        clock.stop(30_000);
        assert_eq!((clock.white_ms, clock.running.as_str(), clock.deadline()), (52_000, "", None));
        clock.restart(Some(Color::Black), 40_000);
        assert_eq!(clock.deadline(), Some(87_000));
        assert_eq!(clock.left_at(Color::Black, 100_000), 0, "never below zero");
    }

    #[test]
    fn time_controls_are_kept_in_the_options() {
        let control: TimeControl = "0.5+1.5".parse().expect("control");
        let options = json!({ "clock": stored_control(control) });
        assert_eq!(time_control(&options), Some(control));
        // As `qchess play` stored it before milliseconds were kept.
        let older = json!({ "clock": { "base_secs": 300, "increment_secs": 3 } });
        assert_eq!(time_control(&older), Some("5+3".parse().expect("control")));
        assert_eq!(time_control(&json!({})), None);
    }

    #[test]
    fn offers_hold_until_the_opponent_moves() {
        let offer = Offer { kind: "draw".into(), side: "white".into(), plies: 0, ply: 4, until_ply: 5, made_at: 0 };
        assert!(!offer.holds_at(3) && offer.holds_at(4) && offer.holds_at(5) && !offer.holds_at(6));
    }
}
