//! Games: made, read, listed, moved on (only against the revision the caller read, so two
//! writers never both succeed), taken back, archived and deleted.

use serde_json::Value;
use sqlx::Row;
use sqlx::any::AnyRow;

use crate::clocks::Change;
use crate::db::{Store, now_ms};
use crate::error::StoreError;
use crate::events::{Event, NewEvent, Standing};
use crate::jobs::JobRow;
use crate::pending::PendingMove;

/// A game to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewGame {
    /// Its id; a fresh one when `None`.
    pub id: Option<String>,
    /// What made it: `play`, `game`, `web`.
    pub origin: String,
    /// The rule set's name.
    pub rules: String,
    /// White's player (`human`, `random`, `ai:3`, ...).
    pub white: String,
    /// Black's player.
    pub black: String,
    /// The backend as written (`local`, `http://...`, `ibm:ibm_fez`, `remote`): enough to run it again.
    pub backend: String,
    /// How the backend is shown.
    pub backend_label: String,
    /// The seed of outcomes.
    pub seed: u64,
    /// The game as it started, as a record (tags, and the moves of a loaded record).
    pub setup: String,
    /// More settings, as a JSON object (room for later ones).
    pub options: Value,
    /// Who owns it (the web board's visitor), when anyone.
    pub owner: Option<String>,
    /// Its result token (`*` while it goes on).
    pub result: String,
    /// The side to move (`white`, `black`), or empty when it is over.
    pub to_move: String,
    /// Plies played in the setup.
    pub ply: u32,
}

/// A game as listed: everything but its events.
#[derive(Debug, Clone, PartialEq)]
pub struct GameSummary {
    /// The id.
    pub id: String,
    /// What made it.
    pub origin: String,
    /// The rule set.
    pub rules: String,
    /// White's player.
    pub white: String,
    /// Black's player.
    pub black: String,
    /// The backend as written.
    pub backend: String,
    /// How the backend is shown.
    pub backend_label: String,
    /// The seed.
    pub seed: u64,
    /// The owner.
    pub owner: Option<String>,
    /// The result token.
    pub result: String,
    /// The side to move, or empty when over.
    pub to_move: String,
    /// Plies played.
    pub ply: u32,
    /// Bumped by every change; changes are made against it.
    pub revision: i64,
    /// Whether it was archived (unused for a while).
    pub archived: bool,
    /// When made (ms since 1970).
    pub created_at: i64,
    /// When last changed.
    pub updated_at: i64,
    /// The move waiting for a provider, when one is.
    pub pending: Option<PendingMove>,
    /// The waiting move's live job, when it has one.
    pub waiting_job: Option<JobRow>,
    /// Whether its sides are seats: every change needs the acting seat's token
    /// ([`seats`](crate::seats)). Games stored before seats existed are not.
    pub seated: bool,
    /// Whether anyone may watch it (else only holders of its seat or spectator tokens).
    pub public: bool,
    /// Whether its players agreed, when it was made, that the coach helps while it runs (a
    /// casual game). Games stored before the setting existed are not casual.
    pub casual: bool,
}

impl GameSummary {
    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.result != "*"
    }

    /// `finished 1-0`, `waiting for job J on ibm_fez (queued since ...)`, `white to move`.
    pub fn status(&self) -> String {
        if let Some(pending) = &self.pending {
            return match &self.waiting_job {
                Some(job) => job.describe(),
                None => format!("waiting to run {} on {}", pending.input, self.backend_label),
            };
        }
        if self.is_over() {
            format!("finished {}", self.result)
        } else if self.archived {
            format!("{} to move (archived)", self.to_move)
        } else {
            format!("{} to move", self.to_move)
        }
    }
}

/// A game with everything stored about it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredGame {
    /// The game's row.
    pub summary: GameSummary,
    /// The setup record.
    pub setup: String,
    /// The record as of the last change.
    pub record: String,
    /// More settings (a JSON object).
    pub options: Value,
    /// What was played, in order.
    pub events: Vec<Event>,
    /// Every job its board submitted, oldest first.
    pub jobs: Vec<JobRow>,
}

/// Which games to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Only this owner's.
    pub owner: Option<String>,
    /// Archived ones too.
    pub archived: bool,
    /// Finished ones too.
    pub finished: bool,
    /// At most this many, newest change first (`None`: all).
    pub limit: Option<u32>,
    /// Only games anyone may watch.
    pub public_only: bool,
}

pub(crate) const SUMMARY_COLUMNS: &str = "id, origin, rules, white, black, backend, backend_label, seed, owner, result, to_move, \
     ply, revision, archived, created_at, updated_at, seated, is_public, casual";

/// `SELECT` of games (`g`) with their waiting move's columns (`p_...`), for one snapshot of both.
pub(crate) fn joined_select() -> String {
    let columns = SUMMARY_COLUMNS.split(", ").map(|c| format!("g.{c}")).collect::<Vec<_>>().join(", ");
    format!(
        "SELECT {columns}, p.seq AS p_seq, p.input AS p_input, p.token AS p_token, p.holder AS p_holder, \
         p.lease_until AS p_lease_until, p.attempts AS p_attempts, p.message AS p_message, \
         p.started_at AS p_started_at FROM games g LEFT JOIN pending_moves p ON p.game_id = g.id"
    )
}

/// A fresh game id: 12 hex digits, short enough to type.
pub fn new_game_id() -> String {
    format!("{:012x}", rand::random::<u64>() >> 16)
}

fn text(row: &AnyRow, column: &str) -> Result<String, sqlx::Error> {
    row.try_get::<String, _>(column)
}

impl Store {
    pub(crate) fn summary_from(&self, row: &AnyRow) -> Result<GameSummary, StoreError> {
        let read = || -> Result<GameSummary, sqlx::Error> {
            Ok(GameSummary {
                id: text(row, "id")?,
                origin: text(row, "origin")?,
                rules: text(row, "rules")?,
                white: text(row, "white")?,
                black: text(row, "black")?,
                backend: text(row, "backend")?,
                backend_label: text(row, "backend_label")?,
                seed: row.try_get::<i64, _>("seed")? as u64,
                owner: row.try_get::<Option<String>, _>("owner")?,
                result: text(row, "result")?,
                to_move: text(row, "to_move")?,
                ply: row.try_get::<i64, _>("ply")? as u32,
                revision: row.try_get::<i64, _>("revision")?,
                archived: row.try_get::<i64, _>("archived")? != 0,
                created_at: row.try_get::<i64, _>("created_at")?,
                updated_at: row.try_get::<i64, _>("updated_at")?,
                pending: None,
                waiting_job: None,
                seated: row.try_get::<i64, _>("seated")? != 0,
                public: row.try_get::<i64, _>("is_public")? != 0,
                casual: row.try_get::<i64, _>("casual")? != 0,
            })
        };
        read().map_err(|e| self.failed("reading a game", e))
    }

    /// Inserts a new game's row (inside the caller's transaction); returns its id.
    pub(crate) async fn insert_game(
        transaction: &mut sqlx::Transaction<'_, sqlx::Any>,
        game: &NewGame,
        seated: bool,
        public: bool,
        casual: bool,
    ) -> Result<String, sqlx::Error> {
        let id = game.id.clone().unwrap_or_else(new_game_id);
        let now = now_ms();
        let options = serde_json::to_string(&game.options).unwrap_or_else(|_| "{}".to_owned());
        sqlx::query(
            "INSERT INTO games (id, origin, rules, white, black, backend, backend_label, seed, setup, record, options, \
             owner, result, to_move, ply, revision, archived, created_at, updated_at, seated, is_public, casual) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12, $13, $14, 1, 0, $15, $15, $16, $17, $18)",
        )
        .bind(id.clone())
        .bind(game.origin.clone())
        .bind(game.rules.clone())
        .bind(game.white.clone())
        .bind(game.black.clone())
        .bind(game.backend.clone())
        .bind(game.backend_label.clone())
        .bind(game.seed as i64)
        .bind(game.setup.clone())
        .bind(options)
        .bind(game.owner.clone())
        .bind(game.result.clone())
        .bind(game.to_move.clone())
        .bind(i64::from(game.ply))
        .bind(now)
        .bind(i64::from(seated))
        .bind(i64::from(public))
        .bind(i64::from(casual))
        .execute(&mut **transaction)
        .await?;
        Ok(id)
    }

    /// A game's row, with its waiting move and job.
    pub async fn summary(&self, id: &str) -> Result<GameSummary, StoreError> {
        // One statement, so the game and its waiting move are read as of one moment.
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("{} WHERE g.id = $1", joined_select())))
            .bind(id.to_owned())
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.failed("reading a game", e))?
            .ok_or_else(|| StoreError::UnknownGame(id.to_owned()))?;
        let mut summary = self.summary_from(&row)?;
        summary.pending = self.joined_pending(id, &row)?;
        if summary.pending.is_some() {
            summary.waiting_job = self.live_jobs(id).await?.into_iter().rfind(|job| job.is_waiting());
        }
        Ok(summary)
    }

    /// The waiting move read with a game (`p_` columns of [`joined_select`]), when it has one.
    pub(crate) fn joined_pending(&self, id: &str, row: &AnyRow) -> Result<Option<PendingMove>, StoreError> {
        let read = || -> Result<Option<PendingMove>, sqlx::Error> {
            let Some(token) = row.try_get::<Option<String>, _>("p_token")? else { return Ok(None) };
            Ok(Some(PendingMove {
                game_id: id.to_owned(),
                seq: row.try_get::<i64, _>("p_seq")? as u32,
                input: row.try_get("p_input")?,
                token,
                holder: row.try_get("p_holder")?,
                lease_until: row.try_get("p_lease_until")?,
                attempts: row.try_get::<i64, _>("p_attempts")? as u32,
                message: row.try_get("p_message")?,
                started_at: row.try_get("p_started_at")?,
            }))
        };
        read().map_err(|e| self.failed("reading a waiting move", e))
    }

    /// The revision of game `id` (a cheap check whether a copy is current).
    pub async fn revision(&self, id: &str) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT revision FROM games WHERE id = $1")
            .bind(id.to_owned())
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| self.failed("reading a game's revision", e))?
            .ok_or_else(|| StoreError::UnknownGame(id.to_owned()))?;
        row.try_get::<i64, _>("revision").map_err(|e| self.failed("reading a game's revision", e))
    }

    /// Everything about game `id`.
    pub async fn game(&self, id: &str) -> Result<StoredGame, StoreError> {
        let summary = self.summary(id).await?;
        let row = sqlx::query("SELECT setup, record, options FROM games WHERE id = $1")
            .bind(id.to_owned())
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.failed("reading a game", e))?;
        let setup = text(&row, "setup").map_err(|e| self.failed("reading a game", e))?;
        let record = text(&row, "record").map_err(|e| self.failed("reading a game", e))?;
        let options_text = text(&row, "options").map_err(|e| self.failed("reading a game", e))?;
        let options = serde_json::from_str(&options_text).map_err(|e| StoreError::Damaged {
            id: id.to_owned(),
            what: "the options".to_owned(),
            detail: e.to_string(),
        })?;
        let rows = sqlx::query(
            "SELECT seq, input, played, comment, played_at FROM game_events WHERE game_id = $1 ORDER BY seq",
        )
        .bind(id.to_owned())
        .fetch_all(&self.pool)
        .await
        .map_err(|e| self.failed("reading a game's moves", e))?;
        let events = rows
            .iter()
            .map(|row| {
                Ok(Event {
                    seq: row.try_get::<i64, _>("seq")? as u32,
                    input: text(row, "input")?,
                    played: text(row, "played")?,
                    comment: row.try_get::<Option<String>, _>("comment")?,
                    played_at: row.try_get::<i64, _>("played_at")?,
                })
            })
            .collect::<Result<Vec<Event>, sqlx::Error>>()
            .map_err(|e| self.failed("reading a game's moves", e))?;
        let jobs = self.jobs(id).await?;
        Ok(StoredGame { summary, setup, record, options, events, jobs })
    }

    /// Adds `events` to game `id` if it is still at `revision` and no move waits; returns the
    /// new revision.
    pub async fn append(
        &self,
        id: &str,
        revision: i64,
        events: &[NewEvent],
        standing: &Standing,
    ) -> Result<i64, StoreError> {
        let change = Change { events: events.to_vec(), standing: Some(standing.clone()), ..Change::default() };
        self.change(id, revision, &change).await
    }

    /// Keeps only the first `keep` events of game `id` (takes moves back), if it is still at
    /// `revision` and no move waits; returns the new revision.
    pub async fn truncate(&self, id: &str, revision: i64, keep: u32, standing: &Standing) -> Result<i64, StoreError> {
        let change = Change { keep: Some(keep), standing: Some(standing.clone()), ..Change::default() };
        self.change(id, revision, &change).await
    }

    /// Why a change made against `revision` was refused: the game is gone, a move waits, or it
    /// changed.
    pub(crate) async fn why_not(&self, id: &str, revision: i64) -> StoreError {
        match self.summary(id).await {
            Err(error) => error,
            Ok(summary) => match summary.pending {
                Some(pending) => StoreError::MoveWaiting { id: id.to_owned(), input: pending.input },
                None => StoreError::Conflict { id: id.to_owned(), expected: revision, current: summary.revision },
            },
        }
    }

    /// Writes `comment` on game `id`'s last event (a clock's time, known once the move ended).
    pub async fn comment_last(&self, id: &str, comment: &str) -> Result<(), StoreError> {
        let query = sqlx::query(
            "UPDATE game_events SET comment = $1 WHERE game_id = $2 \
             AND seq = (SELECT MAX(seq) FROM game_events WHERE game_id = $2)",
        )
        .bind(comment.to_owned())
        .bind(id.to_owned());
        self.run("commenting a move", query).await.map(|_| ())
    }

    /// The number of events of game `id`.
    pub(crate) async fn event_count(&self, id: &str) -> Result<u32, StoreError> {
        let row = sqlx::query("SELECT COUNT(*) AS n FROM game_events WHERE game_id = $1")
            .bind(id.to_owned())
            .fetch_one(&self.pool)
            .await
            .map_err(|e| self.failed("counting a game's moves", e))?;
        Ok(row.try_get::<i64, _>("n").map_err(|e| self.failed("counting a game's moves", e))? as u32)
    }
}
