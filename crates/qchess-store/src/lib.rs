//! The game store: every stored game kept move by move in a database, with the provider jobs
//! its moves wait for, so that a game outlives the process that plays it.
//!
//! * [`Location`]: where the store is (`--db PATH|URL`, `QCHESS_DB`, else `games.db` in the
//!   platform's data directory); [`Store`]: the store, on SQLite (WAL) or PostgreSQL through one
//!   query layer, its schema versioned and migrated on opening ([`schema`]).
//! * [`games`]: games made, read, listed, moved on against the revision the caller read (so two
//!   writers never both win: the loser gets [`StoreError::Conflict`]), taken back, archived.
//! * [`pending`]: a move that waits for a provider job is claimed first, its job recorded before
//!   any wait, and held under a lease another process takes over when the holder dies.
//! * [`jobs`]: every provider job from before its submission to its results, and
//!   [`GameJournal`], the remote board's [`JobJournal`](qchess_remote::journal::JobJournal) over them.
//! * [`replay`]: a stored game rebuilt exactly: its setup, then each event as entered, with the
//!   same seeds and the journal's results.
//! * [`seats`]: who may do what in a game (bearer tokens kept only as hashes), and
//!   [`clocks`]: its Fischer clocks, its offers, and [`Change`]: a move with the clock it
//!   charges and the offers it ends, stored at once.
//!
//! ```no_run
//! # async fn show() -> Result<(), qchess_store::StoreError> {
//! use qchess_store::{ListFilter, Location, Store};
//!
//! let store = Store::open(&Location::parse("games.db")?).await?;
//! for game in store.list(&ListFilter::default()).await? {
//!     println!("{} {} vs {}: {}", game.id, game.white, game.black, game.status());
//! }
//! # Ok(()) }
//! ```
//!
//! Depends on `qchess-core`, `qchess-engine` (games and records) and `qchess-remote` (jobs).

pub mod clocks;
mod db;
mod error;
pub mod games;
pub mod jobs;
mod listing;
mod location;
pub mod pending;
pub mod replay;
pub mod schema;
pub mod seats;

pub use clocks::{Change, ClockRow, Offer};
pub use db::{Dialect, Store};
pub use error::StoreError;
pub use games::{Event, GameSummary, ListFilter, NewEvent, NewGame, Standing, StoredGame};
pub use jobs::{ClaimCell, GameJournal, JobRow, JobState};
pub use location::{DB_ENV, Location, hide_password};
pub use pending::PendingMove;
pub use replay::RebuildError;
pub use seats::{NewSeat, Seat, Seating};
