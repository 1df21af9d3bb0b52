//! What can go wrong with the store.

use thiserror::Error;

/// Why a store operation failed.
#[derive(Debug, Error)]
pub enum StoreError {
    /// `--db` / `QCHESS_DB` names no database this store can open.
    #[error("`{location}` is not a game store: {reason}")]
    BadLocation {
        /// What was given (a password in a URL is hidden).
        location: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The database could not be reached or refused a query.
    #[error("the game store {location} failed while {doing}: {detail}")]
    Database {
        /// Where the store is.
        location: String,
        /// What the store was doing.
        doing: String,
        /// What the database said.
        detail: String,
    },
    /// The database was written by a newer qchess.
    #[error(
        "the game store {location} has schema version {found}, newer than the {known} this qchess knows; use a newer qchess"
    )]
    NewerSchema {
        /// Where the store is.
        location: String,
        /// The version found.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// No game has this id.
    #[error("no stored game `{0}`; `qchess games` lists them")]
    UnknownGame(String),
    /// The game changed since the caller read it (another process or instance moved first).
    #[error("game {id} changed meanwhile (it is at revision {current}, the change expected {expected})")]
    Conflict {
        /// The game.
        id: String,
        /// The revision the change was made against.
        expected: i64,
        /// The game's revision now.
        current: i64,
    },
    /// The game has a move waiting for a provider job, so it cannot change otherwise.
    #[error("game {id} has a move waiting ({input}); resume or cancel it first")]
    MoveWaiting {
        /// The game.
        id: String,
        /// The waiting move as entered.
        input: String,
    },
    /// The waiting move the caller held is gone (canceled, or finished elsewhere).
    #[error("the waiting move of game {0} is no longer there (it was canceled or finished elsewhere)")]
    ClaimLost(String),
    /// A stored value cannot be read back (the database was edited by hand, or is damaged).
    #[error("game store: {what} of {id} is damaged: {detail}")]
    Damaged {
        /// The game (or job) whose value it is.
        id: String,
        /// Which value.
        what: String,
        /// What is wrong.
        detail: String,
    },
}
