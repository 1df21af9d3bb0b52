//! The provider session a game's jobs go into (an IBM Quantum session or batch), kept with the
//! game so that a resumed game joins it again, and whether the game is over, so that its session
//! ends with it.

use sqlx::Row;

use crate::db::Store;
use crate::error::StoreError;

impl Store {
    /// The provider session game `id`'s jobs went into last, if it keeps one.
    pub async fn provider_session(&self, id: &str) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT provider_session FROM games WHERE id = $1")
            .bind(id.to_owned())
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.failed("reading a game's provider session", e))?
            .ok_or_else(|| StoreError::UnknownGame(id.to_owned()))?;
        row.try_get::<Option<String>, _>("provider_session")
            .map_err(|e| self.failed("reading a game's provider session", e))
    }

    /// Keeps `session` as the provider session of game `id` (`None` forgets it).
    pub async fn set_provider_session(&self, id: &str, session: Option<&str>) -> Result<(), StoreError> {
        let query = sqlx::query("UPDATE games SET provider_session = $1 WHERE id = $2")
            .bind(session.map(str::to_owned))
            .bind(id.to_owned());
        self.run("keeping a game's provider session", query).await.map(|_| ())
    }
}
