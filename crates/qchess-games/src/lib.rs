//! The game service behind qchess's web board: many games at once, each kept in the game store
//! ([`qchess_store`]), so that games outlive the server and several servers share them. A typed
//! Rust API that knows nothing of HTTP: `qchess-server`'s handlers call it and turn its answers
//! and [`GamesError`]s into HTTP.
//!
//! * [`Games`] is the one way in: new games ([`Games::create`], from a [`NewGameBody`]),
//!   listing, state, legal moves, moves in official notation (a move on a remote provider may
//!   be answered [`Answer::Pending`] while its job runs, and finishes in the background),
//!   computer moves, square analysis, records and circuits, deleting.
//! * Seats ([`seats`]): a bearer token per human side and one for spectators, kept as hashes;
//!   every request comes with its [`Caller`], and each seat may do what its side may.
//! * Turns besides moves: resigning, draw offers, takebacks, claiming a win on time
//!   ([`OfferAction`]); clocks are kept by the service, and its referee decides flag falls.
//! * The coach ([`coach`]): evaluation, hint and review, in searches of bounded time.
//! * Live events ([`GameEvent`], [`Games::watch`]): each change of a game as it happens, through
//!   any instance on the same store; presence of the players.
//! * Recovery across instances: a waiting move's lease is renewed while its instance lives, and
//!   taken over by another instance on the same store once it runs out.
//!
//! Every change is made against the game's revision in the store: of two changes sent at once
//! (to one server or to two), one wins and the other is answered [`GamesError::Conflict`] with
//! the current state. Loaded games live on threads of their own; games unused for
//! [`GamesConfig::idle_timeout`] are unloaded and archived, never deleted. The background work
//! (recovery, the event hub's polling, the referee) runs while [`Games::start_background`]'s
//! handle lives.
//!
//! ```
//! use qchess_games::{Caller, Games, GamesConfig, NewGameBody};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let runtime = tokio::runtime::Runtime::new()?;
//! runtime.block_on(async {
//!     let store = qchess_store::Store::open(&qchess_store::Location::Memory).await?;
//!     let games = Games::new(store, tokio::runtime::Handle::current(), GamesConfig::default());
//!     let body: NewGameBody = serde_json::from_str(r#"{"white": "human", "black": "random"}"#)?;
//!     let caller = Caller::default();
//!     let created = games.create("game-1".to_owned(), body, &caller, "http://127.0.0.1:8080").await?;
//!     let white = created["seats"]["white"]["token"].as_str().unwrap_or_default().to_owned();
//!     let seated = Caller { token: Some(white), address: None };
//!     let moved = games.play("game-1", &seated, "e2e4".to_owned(), Some(0)).await?;
//!     assert_eq!(moved.state()["ply"], 1);
//!     Ok::<(), Box<dyn std::error::Error>>(())
//! })?;
//! # Ok(()) }
//! ```

mod acting;
mod background;
mod choices;
pub mod coach;
mod config;
mod error;
mod events;
mod hub;
mod limits;
mod live;
mod new_game;
mod reading;
mod recovery;
mod referee;
pub mod seats;
mod service;
mod session;
mod turns;
mod view;

pub use acting::OfferAction;
pub use background::Background;
pub use config::{GamesConfig, RemoteGameBackend};
pub use error::GamesError;
pub use events::GameEvent;
pub use limits::{GameRates, Rate};
pub use new_game::{ListGames, NewGameBody};
pub use seats::Caller;
pub use service::{Answer, Games};
pub use turns::Reply;
