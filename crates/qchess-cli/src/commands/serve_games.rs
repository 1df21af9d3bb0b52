//! `qchess serve`'s flags for the web board's games: how many, how long they stay unused, and
//! the remote provider they may run on.

use std::time::Duration;

use qchess_server::games::{GamesConfig, RemoteGameBackend};

use crate::backend::{Backend, BackendSpec, RemoteArgs};
use crate::exit::bad_input;

/// Flags of the game API.
#[derive(Debug, Clone, clap::Args)]
pub struct GameArgs {
    /// Games of the web board kept at once.
    #[arg(long, default_value_t = GamesConfig::default().max_games)]
    max_games: usize,
    /// Seconds a game may stay unused before it is dropped.
    #[arg(long, default_value_t = GamesConfig::default().idle_timeout.as_secs())]
    game_idle_secs: u64,
    /// A remote provider the board may run games on besides the local simulator: ionq or the
    /// URL of a qchess serve, with `,target=...`, `,noise=...` or `,mitigation` options. The key
    /// comes from IONQ_API_KEY.
    #[arg(long, value_name = "BACKEND")]
    game_backend: Option<BackendSpec>,
}

impl GameArgs {
    /// The validated settings.
    pub fn config(&self) -> anyhow::Result<GamesConfig> {
        let remote = match &self.game_backend {
            None => None,
            Some(spec) => match Backend::resolve(spec, &RemoteArgs::default())? {
                Backend::Local => {
                    return Err(bad_input("--game-backend: local games are always offered; name a remote provider"));
                }
                Backend::Remote { label, config } => Some(RemoteGameBackend { label, config: *config }),
            },
        };
        let config =
            GamesConfig { max_games: self.max_games, idle_timeout: Duration::from_secs(self.game_idle_secs), remote };
        config.validate().map_err(bad_input)?;
        Ok(config)
    }
}
