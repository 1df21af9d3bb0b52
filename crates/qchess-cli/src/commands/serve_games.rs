//! `qchess serve`'s flags for the web board: how many games, how long they stay unused, the
//! remote provider they may run on, and `--open` to open the board in a browser.

use std::time::Duration;

use qchess_games::{GameRates, GamesConfig, Rate, RemoteGameBackend};

use crate::backend::{Backend, BackendSpec, RemoteArgs};
use crate::exit::bad_input;
use crate::store::DbArgs;

/// Flags of the game API.
#[derive(Debug, Clone, clap::Args)]
pub struct GameArgs {
    /// Where the web board's games are kept: `--db PATH|URL` (several servers on one
    /// postgres:// store serve the same games).
    #[command(flatten)]
    db: DbArgs,
    /// Games of the web board loaded at once.
    #[arg(long, default_value_t = GamesConfig::default().max_games)]
    max_games: usize,
    /// Seconds a game may stay unused before it is unloaded and archived (it stays in the store).
    #[arg(long, default_value_t = GamesConfig::default().idle_timeout.as_secs())]
    game_idle_secs: u64,
    /// Milliseconds a server holding a waiting move has to renew its lease; another server on
    /// the same store takes the move over once it runs out.
    #[arg(long, value_name = "MS", default_value_t = GamesConfig::default().lease.as_millis() as u64)]
    game_lease_ms: u64,
    /// Milliseconds a move on a remote provider is waited for before the answer is 202 (the
    /// move then finishes in the background).
    #[arg(long, value_name = "MS", default_value_t = GamesConfig::default().answer_wait.as_millis() as u64)]
    game_answer_wait_ms: u64,
    /// Milliseconds a computer player (ai:K) of the web board may think about one move [default:
    /// each level's own think time, as `qchess play --help` lists].
    #[arg(long, value_name = "MS")]
    game_movetime_ms: Option<u64>,
    /// A remote provider the board may run games on besides the local simulator: ionq or the
    /// URL of a qchess serve, with `,target=...`, `,noise=...` or `,mitigation` options. The key
    /// comes from IONQ_API_KEY.
    #[arg(long, value_name = "BACKEND")]
    game_backend: Option<BackendSpec>,
    /// How a web game's jobs go to an ibm:DEVICE --game-backend: session (one dedicated session
    /// per game; a batch where the instance's plan allows none), batch or jobs [default: session].
    #[arg(long, value_name = "session|batch|jobs")]
    game_ibm_mode: Option<qchess_remote::ibm::IbmMode>,
    /// Open the web board in a browser once the server listens ($BROWSER, else the system's
    /// opener: xdg-open, open or start).
    #[arg(long)]
    open: bool,
    /// Changes of games (moves, offers, answers...) one seat may make per second, after a
    /// burst of 4 s worth; 0: no limit.
    #[arg(long, value_name = "PER_SECOND", default_value_t = GameRates::default().seat.per_second)]
    game_seat_rate: f64,
    /// Changes of games one address (an IPv6 /64) may make per second, after a burst of 4 s
    /// worth; 0: no limit.
    #[arg(long, value_name = "PER_SECOND", default_value_t = GameRates::default().address.per_second)]
    game_address_rate: f64,
    /// New games one address may make per minute, after a burst of that many; 0: no limit.
    #[arg(long, value_name = "PER_MINUTE", default_value_t = GameRates::default().creation.burst)]
    game_create_rate: f64,
    /// Seconds an event stream lasts before the server ends it (boards reconnect and resume).
    #[arg(long, value_name = "SECONDS", default_value_t = GamesConfig::default().events_lifetime.as_secs())]
    game_events_secs: u64,
    /// The address players reach this server at, for the seat links of new games
    /// (`https://chess.example.org` behind a proxy); default: the address the game was created
    /// through, over http.
    #[arg(long, value_name = "URL")]
    public_url: Option<String>,
    /// An origin whose pages may call the game API from a browser (CORS; repeat for more);
    /// none by default.
    #[arg(long, value_name = "ORIGIN")]
    cors_origin: Vec<String>,
}

/// The command that opens `url` in a browser: `$BROWSER URL` when `browser` is set, else the
/// system's opener.
fn browser_command(url: &str, browser: Option<&str>) -> (String, Vec<String>) {
    if let Some(browser) = browser.map(str::trim).filter(|b| !b.is_empty()) {
        return (browser.to_owned(), vec![url.to_owned()]);
    }
    if cfg!(target_os = "macos") {
        ("open".to_owned(), vec![url.to_owned()])
    } else if cfg!(windows) {
        ("cmd".to_owned(), vec!["/C".to_owned(), "start".to_owned(), String::new(), url.to_owned()])
    } else {
        ("xdg-open".to_owned(), vec![url.to_owned()])
    }
}

impl GameArgs {
    /// With `--open`, starts a browser on the board at `url`; a browser that cannot be started
    /// is reported and the server goes on.
    pub fn open_board(&self, url: &str) {
        if !self.open {
            return;
        }
        let (program, arguments) = browser_command(url, std::env::var("BROWSER").ok().as_deref());
        let started = std::process::Command::new(&program)
            .args(&arguments)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        if let Err(error) = started {
            eprintln!("qchess serve: cannot open a browser with `{program}` ({error}); open {url} yourself");
        }
    }

    /// `--public-url`: where players reach the server, for seat links.
    pub fn public_url(&self) -> Option<&str> {
        self.public_url.as_deref()
    }

    /// `--cors-origin`: origins whose pages may call the server from a browser.
    pub fn cors_origins(&self) -> &[String] {
        &self.cors_origin
    }

    /// Whether the store was named (`--db`, `QCHESS_DB`) rather than the default.
    pub fn store_named(&self) -> bool {
        self.db.named()
    }

    /// Whether `--db` itself named the store. Only then does the IBM stand-in keep its jobs
    /// there: servers that share a store through `QCHESS_DB` (a test suite's) would otherwise
    /// see each other's jobs, and each one starting would fail the others' waiting jobs as left
    /// over from a restart.
    pub fn store_flagged(&self) -> bool {
        self.db.db.is_some()
    }

    /// The validated settings.
    pub fn config(&self) -> anyhow::Result<GamesConfig> {
        let flags = RemoteArgs { ibm_mode: self.game_ibm_mode, ..RemoteArgs::default() };
        let remote = match &self.game_backend {
            None => None,
            Some(spec) => match Backend::resolve(spec, &flags)? {
                Backend::Local => {
                    return Err(bad_input("--game-backend: local games are always offered; name a remote provider"));
                }
                Backend::Remote { label, config } => Some(RemoteGameBackend { label, config: *config }),
            },
        };
        let db = match self.db.location()? {
            Some(location) => location,
            None => {
                eprintln!(
                    "qchess serve: no data directory (HOME is not set): games are kept in memory only; name a store with --db"
                );
                qchess_store::Location::Memory
            }
        };
        let config = GamesConfig {
            db,
            max_games: self.max_games,
            idle_timeout: Duration::from_secs(self.game_idle_secs),
            lease: Duration::from_millis(self.game_lease_ms),
            answer_wait: Duration::from_millis(self.game_answer_wait_ms),
            remote,
            computer_movetime: self.game_movetime_ms.map(Duration::from_millis),
            rates: GameRates {
                seat: Rate::per_second(self.game_seat_rate, 4.0),
                address: Rate::per_second(self.game_address_rate, 4.0),
                creation: Rate { per_second: self.game_create_rate / 60.0, burst: self.game_create_rate.max(1.0) },
            },
            events_lifetime: Duration::from_secs(self.game_events_secs),
        };
        config.validate().map_err(bad_input)?;
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(max_games: usize, game_idle_secs: u64, game_backend: Option<&str>) -> GameArgs {
        GameArgs {
            db: DbArgs { db: Some(":memory:".to_owned()) },
            max_games,
            game_idle_secs,
            game_lease_ms: 30_000,
            game_answer_wait_ms: 5_000,
            game_movetime_ms: Some(500),
            game_backend: game_backend.map(|b| b.parse().expect("a backend")),
            game_ibm_mode: None,
            open: false,
            game_seat_rate: 5.0,
            game_address_rate: 50.0,
            game_create_rate: 60.0,
            game_events_secs: 600,
            public_url: None,
            cors_origin: Vec::new(),
        }
    }

    #[test]
    fn the_board_opens_with_browser_or_the_system_opener() {
        let url = "http://127.0.0.1:8080/";
        assert_eq!(browser_command(url, Some("firefox")), ("firefox".to_owned(), vec![url.to_owned()]));
        let (program, arguments) = browser_command(url, Some("  "));
        assert_ne!(program.trim(), "", "an empty $BROWSER is ignored");
        assert_eq!(arguments.last().map(String::as_str), Some(url));
    }

    #[test]
    fn game_flags_are_checked() {
        let config = args(5, 60, Some("http://127.0.0.1:9")).config().expect("valid");
        assert_eq!(config.max_games, 5);
        assert!(config.remote.expect("a remote").label.starts_with("http://127.0.0.1:9"));
        let own_times = GameArgs { game_movetime_ms: None, ..args(5, 60, None) }.config().expect("valid");
        assert_eq!(own_times.computer_movetime, None, "without the flag each level thinks its own time");
        for (bad, says) in [
            (args(0, 60, None), "--max-games"),
            (args(5, 0, None), "--game-idle-secs"),
            (args(5, 60, Some("local")), "local games are always offered"),
            (GameArgs { game_seat_rate: -1.0, ..args(5, 60, None) }, "--game-seat-rate"),
            (GameArgs { game_events_secs: 0, ..args(5, 60, None) }, "--game-events-secs"),
            (GameArgs { game_movetime_ms: Some(5), ..args(5, 60, None) }, "--game-movetime-ms"),
        ] {
            let error = bad.config().expect_err(says).to_string();
            assert!(error.contains(says), "{error}");
        }
    }
}
