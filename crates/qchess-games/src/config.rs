//! What the game service is set up with: where games are kept, how many are loaded at once and
//! for how long, where they may run, and how fast they may be changed.

use std::time::Duration;

use qchess_core::setting::{SettingError, check_range};
use qchess_remote::RemoteBoardConfig;

use crate::limits::{self, GameRates};

/// A remote provider the service's games may run on, besides the exact local simulator.
#[derive(Debug, Clone)]
pub struct RemoteGameBackend {
    /// How the board's backend chooser names it (`http://127.0.0.1:8080 (simulator, ideal)`).
    pub label: String,
    /// The provider, shots and mitigation; the seed is set per game.
    pub config: RemoteBoardConfig,
}

/// Where games are kept, how many are loaded at once and for how long, and where they may run.
#[derive(Debug, Clone)]
pub struct GamesConfig {
    /// The game store (`--db`); in memory by default, so games last as long as the server.
    pub db: qchess_store::Location,
    /// Games loaded at once; a new game beyond it is refused ([`GamesError::TooMany`]).
    ///
    /// [`GamesError::TooMany`]: crate::GamesError::TooMany
    pub max_games: usize,
    /// A game not asked about for this long is unloaded and archived (kept in the store).
    pub idle_timeout: Duration,
    /// How long the holder of a waiting move's lease has to renew it; another server takes the
    /// move over once it runs out.
    pub lease: Duration,
    /// How long a move on a remote provider is waited for before it is answered as pending.
    pub answer_wait: Duration,
    /// The remote provider games may choose as `"backend": "remote"`.
    pub remote: Option<RemoteGameBackend>,
    /// How long a computer player (`ai:K`) may think about one move; `None` gives each level its
    /// own think time (`qchess_search::PlayerSpec::think_time`).
    pub computer_movetime: Option<Duration>,
    /// Rate limits of changes (per seat and per address) and of new games (per address).
    pub rates: GameRates,
    /// How long an event stream lasts before the service ends it (the client reconnects).
    pub events_lifetime: Duration,
}

impl Default for GamesConfig {
    fn default() -> GamesConfig {
        GamesConfig {
            db: qchess_store::Location::Memory,
            max_games: 1000,
            idle_timeout: Duration::from_secs(30 * 60),
            lease: Duration::from_secs(30),
            answer_wait: Duration::from_secs(5),
            remote: None,
            computer_movetime: None,
            rates: GameRates::default(),
            events_lifetime: Duration::from_secs(600),
        }
    }
}

/// A duration in whole milliseconds, saturating.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

impl GamesConfig {
    /// Checks the ranges of the settings, naming their flags.
    pub fn validate(&self) -> Result<(), SettingError> {
        check_range("--max-games", self.max_games as u64, 1, 100_000)?;
        check_range("--game-idle-secs", self.idle_timeout.as_secs(), 1, 7 * 86_400)?;
        check_range("--game-lease-ms", millis(self.lease), 100, 3_600_000)?;
        check_range("--game-answer-wait-ms", millis(self.answer_wait), 0, 600_000)?;
        if let Some(movetime) = self.computer_movetime {
            check_range("--game-movetime-ms", millis(movetime), 10, 600_000)?;
        }
        check_range("--game-events-secs", self.events_lifetime.as_secs(), 1, 86_400)?;
        limits::validate(&self.rates)
    }
}
