//! Games listed (newest change first, with their waiting moves), archived when unused, and
//! deleted.

use crate::db::Store;
use crate::error::StoreError;
use crate::games::{GameSummary, ListFilter, joined_select};

impl Store {
    /// Games, newest change first.
    pub async fn list(&self, filter: &ListFilter) -> Result<Vec<GameSummary>, StoreError> {
        // Games and their waiting moves in one statement: as of one moment.
        let mut sql = format!("{} WHERE 1 = 1", joined_select());
        if filter.owner.is_some() {
            sql.push_str(" AND g.owner = $1");
        }
        if !filter.archived {
            sql.push_str(" AND g.archived = 0");
        }
        if !filter.finished {
            sql.push_str(" AND g.result = '*'");
        }
        if filter.public_only {
            sql.push_str(" AND g.is_public = 1");
        }
        sql.push_str(" ORDER BY g.updated_at DESC, g.id");
        if let Some(limit) = filter.limit {
            sql.push_str(&format!(" LIMIT {limit}"));
        }
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        if let Some(owner) = &filter.owner {
            query = query.bind(owner.clone());
        }
        let rows = query.fetch_all(&self.pool).await.map_err(|e| self.failed("listing games", e))?;
        let mut games = Vec::with_capacity(rows.len());
        for row in &rows {
            let mut game = self.summary_from(row)?;
            game.pending = self.joined_pending(&game.id, row)?;
            if game.pending.is_some() {
                game.waiting_job = self.live_jobs(&game.id).await?.into_iter().rfind(|job| job.is_waiting());
            }
            games.push(game);
        }
        Ok(games)
    }

    /// Marks game `id` archived (or not); archiving keeps everything.
    pub async fn set_archived(&self, id: &str, archived: bool) -> Result<(), StoreError> {
        let query =
            sqlx::query("UPDATE games SET archived = $1 WHERE id = $2").bind(i64::from(archived)).bind(id.to_owned());
        match self.run("archiving a game", query).await? {
            0 => Err(StoreError::UnknownGame(id.to_owned())),
            _ => Ok(()),
        }
    }

    /// Archives every game made by `origin` and unchanged since `before` (ms since 1970);
    /// returns how many.
    pub async fn archive_idle(&self, origin: &str, before: i64) -> Result<u64, StoreError> {
        let query = sqlx::query(
            "UPDATE games SET archived = 1 WHERE archived = 0 AND origin = $1 AND updated_at < $2 \
             AND NOT EXISTS (SELECT 1 FROM pending_moves WHERE pending_moves.game_id = games.id)",
        )
        .bind(origin.to_owned())
        .bind(before);
        self.run("archiving idle games", query).await
    }

    /// Deletes game `id` with its events and jobs; false when there was none.
    pub async fn delete_game(&self, id: &str) -> Result<bool, StoreError> {
        let doing = "deleting a game";
        let mut transaction = self.begin_writing().await.map_err(|e| self.failed(doing, e))?;
        for table in ["game_events", "pending_moves", "provider_jobs", "game_seats", "game_clocks", "game_offers"] {
            sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {table} WHERE game_id = $1")))
                .bind(id.to_owned())
                .execute(&mut *transaction)
                .await
                .map_err(|e| self.failed(doing, e))?;
        }
        let deleted = sqlx::query("DELETE FROM games WHERE id = $1")
            .bind(id.to_owned())
            .execute(&mut *transaction)
            .await
            .map_err(|e| self.failed(doing, e))?;
        transaction.commit().await.map_err(|e| self.failed(doing, e))?;
        Ok(deleted.rows_affected() > 0)
    }
}
