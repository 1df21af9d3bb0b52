//! The events of a game (moves, mode changes, resignations, losses on time) and where a game
//! stands after them, as the store keeps them; and the names they give the sides.

use qchess_core::Color;
use sqlx::Row;

use crate::db::now_ms;

/// One event of a game: a move, a mode change, a resignation or a loss on time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Its place, from 0.
    pub seq: u32,
    /// As entered (`b1^a3c3`, `mode:classical`, `resign:white`).
    pub input: String,
    /// As recorded, with its outcomes (`c3xd5.m1`).
    pub played: String,
    /// A comment (a clock's time left), when any.
    pub comment: Option<String>,
    /// When (milliseconds since 1970).
    pub played_at: i64,
}

/// One event to add.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewEvent {
    /// As entered.
    pub input: String,
    /// As recorded.
    pub played: String,
    /// A comment, when any.
    pub comment: Option<String>,
}

/// Where a game stands after a change: what the `games` row keeps for listing and export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    /// The result token.
    pub result: String,
    /// The side to move, or empty when over.
    pub to_move: String,
    /// Plies played.
    pub ply: u32,
    /// The game's record (with every outcome, and any full-board measurement).
    pub record: String,
}

/// `white` or `black`.
pub fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// Inserts events after the game's last one.
pub(crate) async fn insert_events(
    transaction: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    events: &[NewEvent],
) -> Result<(), sqlx::Error> {
    let row = sqlx::query("SELECT COUNT(*) AS n FROM game_events WHERE game_id = $1")
        .bind(id.to_owned())
        .fetch_one(&mut **transaction)
        .await?;
    let first: i64 = row.try_get("n")?;
    let now = now_ms();
    for (index, event) in events.iter().enumerate() {
        sqlx::query(
            "INSERT INTO game_events (game_id, seq, input, played, comment, played_at) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(id.to_owned())
        .bind(first + index as i64)
        .bind(event.input.clone())
        .bind(event.played.clone())
        .bind(event.comment.clone())
        .bind(now)
        .execute(&mut **transaction)
        .await?;
    }
    Ok(())
}
