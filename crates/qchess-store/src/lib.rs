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
//! * The provider session its jobs go into (an IBM Quantum session or batch), kept with the
//!   game ([`Store::provider_session`]) so that a resumed game joins it again.
//! * [`replay`]: a stored game rebuilt exactly: its setup, then each event as entered, with the
//!   same seeds and the journal's results.
//! * [`seats`]: who may do what in a game (bearer tokens kept only as hashes), and
//!   [`clocks`]: its Fischer clocks, its offers, and [`Change`]: a move with the clock it
//!   charges and the offers it ends, stored at once.
//!
//! ```
//! use qchess_engine::record::RecordInfo;
//! use qchess_engine::Game;
//! use qchess_store::replay::{setup_record, standing};
//! use qchess_store::{ListFilter, Location, NewGame, Store};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let store = Store::open(&Location::parse(&dir.path().join("games.db").display().to_string())?).await?;
//!
//! // A new game from the start position, kept with its setup and whose move it is.
//! let game = Game::standard();
//! let setup = setup_record(&game, &RecordInfo::default());
//! let now = standing(&game, &setup);
//! let new = NewGame {
//!     id: None,
//!     origin: "play".into(),
//!     rules: game.rules().name().into(),
//!     white: "human".into(),
//!     black: "ai:3".into(),
//!     backend: "local".into(),
//!     backend_label: "local".into(),
//!     seed: 7,
//!     setup,
//!     options: serde_json::json!({}),
//!     owner: None,
//!     result: now.result,
//!     to_move: now.to_move,
//!     ply: now.ply,
//! };
//! let stored = store.create_game(&new).await?;
//!
//! // What `qchess games` lists.
//! let listed = store.list(&ListFilter::default()).await?;
//! assert_eq!(listed.len(), 1);
//! assert_eq!(listed[0].id, stored.id);
//! assert_eq!(listed[0].status(), "white to move");
//! # Ok(()) }
//! ```
//!
//! Depends on `qchess-core`, `qchess-engine` (games and records) and `qchess-remote` (jobs).

pub mod clocks;
mod db;
mod error;
mod events;
pub mod games;
pub mod jobs;
mod listing;
mod location;
pub mod pending;
pub mod replay;
pub mod schema;
pub mod seats;
mod sessions;

pub use clocks::{Change, ClockRow, Offer};
pub use db::{Dialect, Store};
pub use error::StoreError;
pub use events::{Event, NewEvent, Standing};
pub use games::{GameSummary, ListFilter, NewGame, StoredGame};
pub use jobs::{ClaimCell, GameJournal, JobRow, JobState};
pub use location::{DB_ENV, Location, hide_password};
pub use pending::PendingMove;
pub use replay::RebuildError;
pub use seats::{NewSeat, Seat, Seating};
