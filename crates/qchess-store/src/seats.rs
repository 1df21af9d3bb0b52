//! Seats: who may do what in a game. A seat (`white`, `black` or `spectator`) is a bearer
//! token the store keeps only as a hash; the server checks a presented token against the
//! hashes. Claiming a seat replaces its hash (the link's token stops working); seats currently
//! watched are marked seen, for the opponent's presence.

use sqlx::Row;

use crate::clocks::{ClockRow, insert_clock};
use crate::db::{Store, now_ms};
use crate::error::StoreError;
use crate::games::{GameSummary, NewGame};

/// A seat of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seat {
    /// The game.
    pub game_id: String,
    /// `white`, `black` or `spectator`.
    pub role: String,
    /// The hash of its token (never the token).
    pub token_hash: String,
    /// When its link was first opened (the token replaced), if it was.
    pub claimed_at: Option<i64>,
    /// When a board of this seat was last seen watching the game.
    pub seen_at: Option<i64>,
}

/// A seat to make with a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSeat {
    /// `white`, `black` or `spectator`.
    pub role: String,
    /// The hash of its token.
    pub token_hash: String,
}

/// How a new game is seated: its seats, whether anyone may watch it, and its clocks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seating {
    /// Whether its changes need seats (false: anyone may act, as before seats existed).
    pub seated: bool,
    /// Whether anyone may watch it.
    pub public: bool,
    /// Whether the coach helps while it runs, agreed when it was made (a casual game).
    pub casual: bool,
    /// Its seats.
    pub seats: Vec<NewSeat>,
    /// Its clocks, when it has them.
    pub clock: Option<ClockRow>,
}

impl Store {
    /// Stores a new game; returns its summary.
    pub async fn create_game(&self, game: &NewGame) -> Result<GameSummary, StoreError> {
        self.create_seated_game(game, &Seating::default()).await
    }

    /// Stores a new game with its seats and clocks, all at once; returns its summary.
    pub async fn create_seated_game(&self, game: &NewGame, seating: &Seating) -> Result<GameSummary, StoreError> {
        let doing = "storing a new game";
        let failed = |e| self.failed(doing, e);
        let mut transaction = self.begin_writing().await.map_err(failed)?;
        let public = seating.public || !seating.seated;
        let id =
            Store::insert_game(&mut transaction, game, seating.seated, public, seating.casual).await.map_err(failed)?;
        for seat in &seating.seats {
            sqlx::query("INSERT INTO game_seats (game_id, role, token_hash) VALUES ($1, $2, $3)")
                .bind(id.clone())
                .bind(seat.role.clone())
                .bind(seat.token_hash.clone())
                .execute(&mut *transaction)
                .await
                .map_err(failed)?;
        }
        if let Some(clock) = &seating.clock {
            insert_clock(&mut transaction, &id, clock).await.map_err(failed)?;
        }
        transaction.commit().await.map_err(failed)?;
        self.summary(&id).await
    }

    /// The seats of game `id` (none for a game without seats).
    pub async fn seats(&self, id: &str) -> Result<Vec<Seat>, StoreError> {
        self.seats_of(std::slice::from_ref(&id.to_owned())).await
    }

    /// The seats of every game in `ids`.
    pub async fn seats_of(&self, ids: &[String]) -> Result<Vec<Seat>, StoreError> {
        let doing = "reading a game's seats";
        let mut seats = Vec::new();
        for chunk in ids.chunks(500) {
            let sql = format!(
                "SELECT game_id, role, token_hash, claimed_at, seen_at FROM game_seats WHERE game_id IN ({}) \
                 ORDER BY game_id, role",
                placeholders(chunk.len())
            );
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for id in chunk {
                query = query.bind(id.clone());
            }
            let rows = query.fetch_all(&self.pool).await.map_err(|e| self.failed(doing, e))?;
            for row in &rows {
                let read = || -> Result<Seat, sqlx::Error> {
                    Ok(Seat {
                        game_id: row.try_get("game_id")?,
                        role: row.try_get("role")?,
                        token_hash: row.try_get("token_hash")?,
                        claimed_at: row.try_get("claimed_at")?,
                        seen_at: row.try_get("seen_at")?,
                    })
                };
                seats.push(read().map_err(|e| self.failed(doing, e))?);
            }
        }
        Ok(seats)
    }

    /// Replaces seat `role` of game `id`'s token hash `old` by `new` (its link was opened);
    /// false when the seat no longer has `old` (another claim came first).
    pub async fn claim_seat(&self, id: &str, role: &str, old: &str, new: &str) -> Result<bool, StoreError> {
        let now = now_ms();
        let query = sqlx::query(
            "UPDATE game_seats SET token_hash = $1, claimed_at = $2, seen_at = $2 \
             WHERE game_id = $3 AND role = $4 AND token_hash = $5",
        )
        .bind(new.to_owned())
        .bind(now)
        .bind(id.to_owned())
        .bind(role.to_owned())
        .bind(old.to_owned());
        Ok(self.run("claiming a seat", query).await? == 1)
    }

    /// Marks the seats `(game, role)` seen now.
    pub async fn touch_seats(&self, seats: &[(String, String)]) -> Result<(), StoreError> {
        let now = now_ms();
        for (game, role) in seats {
            let query = sqlx::query("UPDATE game_seats SET seen_at = $1 WHERE game_id = $2 AND role = $3")
                .bind(now)
                .bind(game.clone())
                .bind(role.clone());
            self.run("marking a seat seen", query).await?;
        }
        Ok(())
    }

    /// Marks seat `role` of game `id` away (its last board closed), keeping that it was seen.
    pub async fn mark_seat_away(&self, id: &str, role: &str) -> Result<(), StoreError> {
        let query = sqlx::query("UPDATE game_seats SET seen_at = 1 WHERE game_id = $1 AND role = $2")
            .bind(id.to_owned())
            .bind(role.to_owned());
        self.run("marking a seat away", query).await.map(|_| ())
    }

    /// The revisions of the games in `ids` that exist.
    pub async fn revisions(&self, ids: &[String]) -> Result<Vec<(String, i64)>, StoreError> {
        let doing = "reading games' revisions";
        let mut revisions = Vec::new();
        for chunk in ids.chunks(500) {
            let sql = format!("SELECT id, revision FROM games WHERE id IN ({})", placeholders(chunk.len()));
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
            for id in chunk {
                query = query.bind(id.clone());
            }
            let rows = query.fetch_all(&self.pool).await.map_err(|e| self.failed(doing, e))?;
            for row in &rows {
                let read =
                    || -> Result<(String, i64), sqlx::Error> { Ok((row.try_get("id")?, row.try_get("revision")?)) };
                revisions.push(read().map_err(|e| self.failed(doing, e))?);
            }
        }
        Ok(revisions)
    }
}

/// `$1, $2, ..., $n`.
fn placeholders(n: usize) -> String {
    (1..=n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}
