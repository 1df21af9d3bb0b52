//! Moves that wait for a provider: claimed before anything is submitted (so only one process
//! plays a game's next move), held under a lease that the holder renews while it waits, taken
//! over by another process once the lease runs out (its holder died), and either finished (the
//! move is stored) or given up (the move is taken back).

use std::time::Duration;

use sqlx::Row;
use sqlx::any::AnyRow;

use crate::db::{Store, now_ms};
use crate::error::StoreError;
use crate::events::{NewEvent, Standing, insert_events};

/// A move waiting for a provider job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingMove {
    /// The game.
    pub game_id: String,
    /// The event it becomes.
    pub seq: u32,
    /// The move as entered.
    pub input: String,
    /// The claim's token: finishing or giving up the move needs it.
    pub token: String,
    /// The process polling its job.
    pub holder: Option<String>,
    /// Until when the holder's lease runs (ms since 1970).
    pub lease_until: i64,
    /// How many holders took it up so far.
    pub attempts: u32,
    /// The last problem, when a holder hit one.
    pub message: Option<String>,
    /// When it was claimed.
    pub started_at: i64,
}

const PENDING_COLUMNS: &str = "game_id, seq, input, token, holder, lease_until, attempts, message, started_at";

fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX / 2)
}

impl Store {
    fn pending_from(&self, row: &AnyRow) -> Result<PendingMove, StoreError> {
        let read = || -> Result<PendingMove, sqlx::Error> {
            Ok(PendingMove {
                game_id: row.try_get("game_id")?,
                seq: row.try_get::<i64, _>("seq")? as u32,
                input: row.try_get("input")?,
                token: row.try_get("token")?,
                holder: row.try_get("holder")?,
                lease_until: row.try_get("lease_until")?,
                attempts: row.try_get::<i64, _>("attempts")? as u32,
                message: row.try_get("message")?,
                started_at: row.try_get("started_at")?,
            })
        };
        read().map_err(|e| self.failed("reading a waiting move", e))
    }

    /// Game `id`'s waiting move, when it has one.
    pub async fn pending(&self, id: &str) -> Result<Option<PendingMove>, StoreError> {
        let row =
            sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {PENDING_COLUMNS} FROM pending_moves WHERE game_id = $1")))
                .bind(id.to_owned())
                .fetch_optional(&self.pool)
                .await
                .map_err(|e| self.failed("reading a waiting move", e))?;
        row.map(|row| self.pending_from(&row)).transpose()
    }

    /// Every waiting move.
    pub async fn all_pending(&self) -> Result<Vec<PendingMove>, StoreError> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {PENDING_COLUMNS} FROM pending_moves ORDER BY started_at"
        )))
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.failed("reading the waiting moves", e))?;
        rows.iter().map(|row| self.pending_from(row)).collect()
    }

    /// Claims game `id`'s next move (`input`) for `holder`, if the game is still at `revision`
    /// and no other move waits; the holder's lease runs for `lease`. Returns the claim and the
    /// game's new revision.
    pub async fn claim(
        &self,
        id: &str,
        revision: i64,
        input: &str,
        holder: &str,
        lease: Duration,
    ) -> Result<(PendingMove, i64), StoreError> {
        let doing = "claiming a move";
        let now = now_ms();
        let mut transaction = self.begin_writing().await.map_err(|e| self.failed(doing, e))?;
        // The revision bump locks the game's row: a concurrent change waits, then finds it moved.
        let bumped = sqlx::query(
            "UPDATE games SET revision = revision + 1, archived = 0, updated_at = $1 WHERE id = $2 AND revision = $3 \
             AND NOT EXISTS (SELECT 1 FROM pending_moves WHERE game_id = $2)",
        )
        .bind(now)
        .bind(id.to_owned())
        .bind(revision)
        .execute(&mut *transaction)
        .await
        .map_err(|e| self.failed(doing, e))?;
        if bumped.rows_affected() == 0 {
            drop(transaction);
            return Err(self.why_not(id, revision).await);
        }
        let row = sqlx::query("SELECT COUNT(*) AS n FROM game_events WHERE game_id = $1")
            .bind(id.to_owned())
            .fetch_one(&mut *transaction)
            .await
            .map_err(|e| self.failed(doing, e))?;
        let seq: i64 = row.try_get("n").map_err(|e| self.failed(doing, e))?;
        let pending = PendingMove {
            game_id: id.to_owned(),
            seq: seq as u32,
            input: input.to_owned(),
            token: format!("{:016x}", rand::random::<u64>()),
            holder: Some(holder.to_owned()),
            lease_until: now + lease_ms(lease),
            attempts: 1,
            message: None,
            started_at: now,
        };
        sqlx::query(
            "INSERT INTO pending_moves (game_id, seq, input, token, holder, lease_until, attempts, message, started_at) \
             VALUES ($1, $2, $3, $4, $5, $6, 1, NULL, $7)",
        )
        .bind(id.to_owned())
        .bind(seq)
        .bind(pending.input.clone())
        .bind(pending.token.clone())
        .bind(pending.holder.clone())
        .bind(pending.lease_until)
        .bind(now)
        .execute(&mut *transaction)
        .await
        .map_err(|e| self.failed(doing, e))?;
        transaction.commit().await.map_err(|e| self.failed(doing, e))?;
        Ok((pending, revision + 1))
    }

    /// Stores the waiting move (`token` must still hold it) as `event`; returns the new revision.
    pub async fn finish(
        &self,
        id: &str,
        token: &str,
        event: &NewEvent,
        standing: &Standing,
    ) -> Result<i64, StoreError> {
        let doing = "storing a move that waited";
        let mut transaction = self.begin_writing().await.map_err(|e| self.failed(doing, e))?;
        let removed = sqlx::query("DELETE FROM pending_moves WHERE game_id = $1 AND token = $2")
            .bind(id.to_owned())
            .bind(token.to_owned())
            .execute(&mut *transaction)
            .await
            .map_err(|e| self.failed(doing, e))?;
        if removed.rows_affected() == 0 {
            return Err(StoreError::ClaimLost(id.to_owned()));
        }
        insert_events(&mut transaction, id, std::slice::from_ref(event)).await.map_err(|e| self.failed(doing, e))?;
        let row = sqlx::query(
            "UPDATE games SET revision = revision + 1, result = $1, to_move = $2, ply = $3, updated_at = $4, \
             record = $6 WHERE id = $5 RETURNING revision",
        )
        .bind(standing.result.clone())
        .bind(standing.to_move.clone())
        .bind(i64::from(standing.ply))
        .bind(now_ms())
        .bind(id.to_owned())
        .bind(standing.record.clone())
        .fetch_one(&mut *transaction)
        .await
        .map_err(|e| self.failed(doing, e))?;
        let revision: i64 = row.try_get("revision").map_err(|e| self.failed(doing, e))?;
        transaction.commit().await.map_err(|e| self.failed(doing, e))?;
        Ok(revision)
    }

    /// Gives the waiting move up (it is taken back); `token` must still hold it. Returns the
    /// game's new revision.
    pub async fn abandon(&self, id: &str, token: &str) -> Result<i64, StoreError> {
        self.remove_pending(id, Some(token))
            .await?
            .map(|(_, revision)| revision)
            .ok_or_else(|| StoreError::ClaimLost(id.to_owned()))
    }

    /// Takes game `id`'s waiting move back whoever holds it (`qchess games cancel`); returns
    /// it, or `None` when no move waited.
    pub async fn cancel_pending(&self, id: &str) -> Result<Option<PendingMove>, StoreError> {
        Ok(self.remove_pending(id, None).await?.map(|(pending, _)| pending))
    }

    async fn remove_pending(&self, id: &str, token: Option<&str>) -> Result<Option<(PendingMove, i64)>, StoreError> {
        let doing = "taking a waiting move back";
        let mut transaction = self.begin_writing().await.map_err(|e| self.failed(doing, e))?;
        let row =
            sqlx::query(sqlx::AssertSqlSafe(format!("SELECT {PENDING_COLUMNS} FROM pending_moves WHERE game_id = $1")))
                .bind(id.to_owned())
                .fetch_optional(&mut *transaction)
                .await
                .map_err(|e| self.failed(doing, e))?;
        let Some(row) = row else { return Ok(None) };
        let pending = self.pending_from(&row)?;
        if token.is_some_and(|token| token != pending.token) {
            return Ok(None);
        }
        sqlx::query("DELETE FROM pending_moves WHERE game_id = $1 AND token = $2")
            .bind(id.to_owned())
            .bind(pending.token.clone())
            .execute(&mut *transaction)
            .await
            .map_err(|e| self.failed(doing, e))?;
        let row =
            sqlx::query("UPDATE games SET revision = revision + 1, updated_at = $1 WHERE id = $2 RETURNING revision")
                .bind(now_ms())
                .bind(id.to_owned())
                .fetch_one(&mut *transaction)
                .await
                .map_err(|e| self.failed(doing, e))?;
        let revision: i64 = row.try_get("revision").map_err(|e| self.failed(doing, e))?;
        transaction.commit().await.map_err(|e| self.failed(doing, e))?;
        Ok(Some((pending, revision)))
    }

    /// Whether `token` still holds game `id`'s waiting move.
    pub async fn still_claimed(&self, id: &str, token: &str) -> Result<bool, StoreError> {
        let row = sqlx::query("SELECT token FROM pending_moves WHERE game_id = $1")
            .bind(id.to_owned())
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.failed("reading a waiting move", e))?;
        Ok(row.and_then(|row| row.try_get::<String, _>("token").ok()).is_some_and(|held| held == token))
    }

    /// Extends every lease `holder` holds by `lease` from now; returns how many.
    pub async fn renew_leases(&self, holder: &str, lease: Duration) -> Result<u64, StoreError> {
        let query = sqlx::query("UPDATE pending_moves SET lease_until = $1 WHERE holder = $2")
            .bind(now_ms() + lease_ms(lease))
            .bind(holder.to_owned());
        self.run("renewing leases", query).await
    }

    /// Waiting moves of games made by `origin` whose lease ran out: their holder died or gave
    /// them back for now. (A command-line game's waiting move is taken up only by
    /// `qchess games resume`.)
    pub async fn expired_pending(&self, origin: &str) -> Result<Vec<PendingMove>, StoreError> {
        let columns = PENDING_COLUMNS.split(", ").map(|c| format!("p.{c}")).collect::<Vec<_>>().join(", ");
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {columns} FROM pending_moves p JOIN games g ON g.id = p.game_id \
             WHERE p.lease_until < $1 AND g.origin = $2 ORDER BY p.lease_until"
        )))
        .bind(now_ms())
        .bind(origin.to_owned())
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.failed("reading the waiting moves", e))?;
        rows.iter().map(|row| self.pending_from(row)).collect()
    }

    /// Takes over `pending` (read with an expired lease) for `holder`, unless someone else did
    /// first; returns the move as now held.
    pub async fn take_over(
        &self,
        pending: &PendingMove,
        holder: &str,
        lease: Duration,
    ) -> Result<Option<PendingMove>, StoreError> {
        let lease_until = now_ms() + lease_ms(lease);
        let query = sqlx::query(
            "UPDATE pending_moves SET holder = $1, lease_until = $2, attempts = attempts + 1 \
             WHERE game_id = $3 AND token = $4 AND lease_until = $5",
        )
        .bind(holder.to_owned())
        .bind(lease_until)
        .bind(pending.game_id.clone())
        .bind(pending.token.clone())
        .bind(pending.lease_until);
        if self.run("taking over a waiting move", query).await? == 0 {
            return Ok(None);
        }
        Ok(Some(PendingMove {
            holder: Some(holder.to_owned()),
            lease_until,
            attempts: pending.attempts + 1,
            ..pending.clone()
        }))
    }

    /// Lets go of a waiting move for now: another try (by anyone) may start after `retry`;
    /// `message` says what went wrong.
    pub async fn release(&self, id: &str, token: &str, retry: Duration, message: &str) -> Result<(), StoreError> {
        let query = sqlx::query(
            "UPDATE pending_moves SET holder = NULL, lease_until = $1, message = $2 WHERE game_id = $3 AND token = $4",
        )
        .bind(now_ms() + lease_ms(retry))
        .bind(message.to_owned())
        .bind(id.to_owned())
        .bind(token.to_owned());
        self.run("letting go of a waiting move", query).await.map(|_| ())
    }
}
