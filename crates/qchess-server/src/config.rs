//! Everything `qchess serve` is started with, checked as one ([`ServerConfig::validate`]), then
//! split into the parts each crate takes: [`ServerConfig::ionq`], [`ServerConfig::ibm`] and
//! [`ServerConfig::braket`] for the provider stand-ins, the field [`ServerConfig::games`] for the game service; the rest (limits
//! and timeouts of connections, the board's states, origins, links) is the shell's own.

use std::net::SocketAddr;
use std::time::Duration;

use qchess_core::setting::{SettingError, check_duration, check_range};
use qchess_games::GamesConfig;
use qchess_standins::braket::{BraketOptions, KeyPair, Noise as BraketNoise};
use qchess_standins::ibm::busy::{BusyLoad, MAX_BUSY_JOBS};
use qchess_standins::ibm::noise::IbmNoise;
use qchess_standins::ibm::{self, IbmOptions, IbmPlan};
use qchess_standins::ionq::defect::Defect;
use qchess_standins::ionq::{IonqOptions, JobLimits, NoiseOptions};
use qchess_standins::{RunOptions, ServerKey};
use thiserror::Error;

/// Bounds on what requests may ask of the server itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body in bytes (413 beyond it).
    pub max_body_bytes: usize,
    /// Connections served at once; more wait in the listen queue until one closes.
    pub max_connections: usize,
    /// Basis states the quantum board API's state may hold; a move needing more is answered 422.
    pub max_board_states: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 4 << 20,
            max_connections: 4096,
            max_board_states: qchess_sim::sparse::DEFAULT_STATE_CAP,
        }
    }
}

/// How long the server waits for clients and for itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// A connection must send a whole request header within this time of its first byte;
    /// otherwise it is closed.
    pub header: Duration,
    /// A request body must arrive whole within this time of its header; otherwise the answer
    /// is 408.
    pub body: Duration,
    /// A connection that moves no byte for this long while no request is being handled (an
    /// idle keep-alive connection, or a client that stopped reading an answer) is closed.
    pub idle: Duration,
    /// On SIGTERM or Ctrl-C, how long running jobs and requests in flight may take to finish.
    pub shutdown_grace: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            header: Duration::from_secs(10),
            body: Duration::from_secs(30),
            idle: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// A setting that cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ConfigError {
    /// A number or duration is out of its range.
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// An address or origin is not an http(s) URL.
    #[error("{what} must be an http:// or https:// URL (without a path), got `{value}`")]
    BadUrl {
        /// The setting.
        what: &'static str,
        /// The value given.
        value: String,
    },
}

/// One day, the bound of most timeouts.
const DAY: Duration = Duration::from_secs(86_400);

/// Everything `qchess serve` is started with, each setting once.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Where to listen; port 0 picks a free port.
    pub addr: SocketAddr,
    /// When set, every route but `/health`, `/v0.4/backends`, the web page and the IBM
    /// stand-in's needs `Authorization: apiKey KEY`, and the IBM stand-in's token exchange
    /// accepts only it.
    pub api_key: Option<ServerKey>,
    /// Request and connection limits.
    pub limits: Limits,
    /// Timeouts of connections and of shutdown.
    pub timeouts: Timeouts,
    /// What one provider job, and all stored ones together, may ask for.
    pub jobs: JobLimits,
    /// Noise of the IonQ stand-in's hardware backends.
    pub noise: NoiseOptions,
    /// Whether the IBM stand-in samples its jobs with the device's calibrated noise.
    pub ibm_noise: IbmNoise,
    /// How long the IBM stand-in's tokens live.
    pub ibm_token_lifetime: Duration,
    /// The plan of the instance the IBM stand-in plays (the Open Plan refuses sessions).
    pub ibm_plan: IbmPlan,
    /// Other users' jobs that keep the IBM stand-in's devices busy.
    pub ibm_busy: BusyLoad,
    /// The AWS key pair the Braket stand-in checks signatures with (none: it refuses every
    /// request, saying so).
    pub braket_keys: Option<KeyPair>,
    /// Whether the Braket stand-in's QPUs run verbatim programs with their published noise.
    pub braket_noise: BraketNoise,
    /// Braket devices that answer `OFFLINE` (short names or ARNs).
    pub braket_offline: Vec<String>,
    /// How both stand-ins run their jobs; its seed is also the quantum board's, for its
    /// measurement outcomes.
    pub run: RunOptions,
    /// How long a finished IonQ job's results are kept for their owner when nobody fetched them.
    pub result_ttl: Duration,
    /// A deliberate defect of every IonQ job's results (tests of comparisons only).
    pub defect: Option<Defect>,
    /// The web board's games: how many, how long, and where they may run.
    pub games: GamesConfig,
    /// Where the IBM stand-in keeps its jobs and sessions (`--db`); in memory when `None`.
    pub ibm_db: Option<ibm::persist::Database>,
    /// The address players reach the server at, for seat links (`https://chess.example.org`);
    /// else the `Host` the game was created through, over http.
    pub public_url: Option<String>,
    /// Origins whose pages may call the server's APIs from a browser (CORS); none by default.
    pub cors_origins: Vec<String>,
}

impl ServerConfig {
    /// Defaults: no key, default limits and timeouts, no noise (IBM's stand-in included), seed
    /// 0, no queue delay, two workers, no defect.
    pub fn new(addr: SocketAddr) -> ServerConfig {
        let ionq = IonqOptions::default();
        ServerConfig {
            addr,
            api_key: None,
            limits: Limits::default(),
            timeouts: Timeouts::default(),
            jobs: ionq.limits,
            noise: ionq.noise,
            ibm_noise: IbmNoise::Ideal,
            ibm_token_lifetime: Duration::from_secs(qchess_standins::ibm::DEFAULT_TOKEN_SECONDS),
            ibm_plan: IbmPlan::Premium,
            ibm_busy: BusyLoad::default(),
            braket_keys: None,
            braket_noise: BraketNoise::Ideal,
            braket_offline: Vec::new(),
            run: ionq.run,
            result_ttl: ionq.result_ttl,
            defect: ionq.defect,
            games: GamesConfig::default(),
            ibm_db: None,
            public_url: None,
            cors_origins: Vec::new(),
        }
    }

    /// The IonQ stand-in's part.
    pub fn ionq(&self) -> IonqOptions {
        IonqOptions {
            key: self.api_key.clone(),
            limits: self.jobs,
            noise: self.noise,
            run: self.run,
            result_ttl: self.result_ttl,
            defect: self.defect,
        }
    }

    /// Where the IBM stand-in keeps its jobs and sessions when they are to outlive the server:
    /// the game store's database (`--db` named it), unless that is in memory.
    pub fn ibm_database(games: &qchess_store::Location) -> Option<ibm::persist::Database> {
        match games {
            qchess_store::Location::Memory => None,
            location => Some(ibm::persist::Database { url: location.url(), shown: location.to_string() }),
        }
    }

    /// The IBM stand-in's part.
    pub fn ibm(&self) -> IbmOptions {
        IbmOptions {
            noise: self.ibm_noise,
            run: self.run,
            plan: self.ibm_plan,
            busy: self.ibm_busy,
            ..IbmOptions::new(self.api_key.clone(), self.ibm_token_lifetime)
        }
    }

    /// The Braket stand-in's part.
    pub fn braket(&self) -> BraketOptions {
        BraketOptions {
            noise: self.braket_noise,
            offline: self.braket_offline.iter().cloned().collect(),
            run: self.run,
            max_shots: self.jobs.max_shots,
            ..BraketOptions::new(self.braket_keys.clone())
        }
    }

    /// Checks the ranges of every setting, naming its flag.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.ionq().validate()?;
        let l = &self.limits;
        check_range("--max-body-bytes", l.max_body_bytes as u64, 1024, 1 << 30)?;
        check_range("--max-connections", l.max_connections as u64, 1, 1_000_000)?;
        check_range("--max-board-states", l.max_board_states as u64, 1, 1 << 30)?;
        let t = &self.timeouts;
        check_duration("--header-timeout", t.header, DAY)?;
        check_duration("--body-timeout", t.body, DAY)?;
        check_duration("--idle-timeout", t.idle, DAY)?;
        check_duration("--shutdown-grace", t.shutdown_grace, DAY)?;
        check_range("--ibm-busy-jobs", self.ibm_busy.jobs as u64, 0, MAX_BUSY_JOBS as u64)?;
        if self.ibm_busy.jobs > 0 {
            let length = u64::try_from(self.ibm_busy.job_length.as_millis()).unwrap_or(u64::MAX);
            check_range("--ibm-busy-job-ms", length, 1, 3_600_000)?;
        }
        self.games.validate()?;
        let is_origin = |url: &str| {
            let rest = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"));
            rest.is_some_and(|host| !host.is_empty() && !host.contains(['/', ' ', '#', '?']))
        };
        if let Some(url) = self.public_url.as_deref().filter(|url| !is_origin(url.trim_end_matches('/'))) {
            return Err(ConfigError::BadUrl { what: "--public-url", value: url.to_owned() });
        }
        if let Some(origin) = self.cors_origins.iter().find(|origin| !is_origin(origin)) {
            return Err(ConfigError::BadUrl { what: "--cors-origin", value: origin.clone() });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ServerConfig {
        ServerConfig::new("127.0.0.1:0".parse().expect("an address"))
    }

    #[test]
    fn every_part_is_checked_and_named_by_its_flag() {
        assert_eq!(config().validate(), Ok(()));
        for (bad, says) in [
            (ServerConfig { public_url: Some("ftp://x".into()), ..config() }, "--public-url"),
            (ServerConfig { cors_origins: vec!["http://a/b".into()], ..config() }, "--cors-origin"),
            (
                ServerConfig { noise: NoiseOptions { depolarizing: 2.0, readout_error: 0.0 }, ..config() },
                "--depolarizing",
            ),
            (ServerConfig { run: RunOptions { workers: 0, ..RunOptions::default() }, ..config() }, "--workers"),
            (
                ServerConfig { limits: Limits { max_body_bytes: 10, ..Limits::default() }, ..config() },
                "--max-body-bytes",
            ),
            (
                ServerConfig { timeouts: Timeouts { idle: Duration::ZERO, ..Timeouts::default() }, ..config() },
                "--idle-timeout",
            ),
            (ServerConfig { games: GamesConfig { max_games: 0, ..GamesConfig::default() }, ..config() }, "--max-games"),
            (
                ServerConfig { ibm_busy: BusyLoad { jobs: 2, job_length: Duration::ZERO }, ..config() },
                "--ibm-busy-job-ms",
            ),
            (
                ServerConfig { ibm_busy: BusyLoad { jobs: MAX_BUSY_JOBS + 1, ..BusyLoad::default() }, ..config() },
                "--ibm-busy-jobs",
            ),
        ] {
            let error = bad.validate().expect_err(says).to_string();
            assert!(error.contains(says), "{error}");
        }
    }

    #[test]
    fn the_shared_settings_reach_both_stand_ins() {
        let key = ServerKey::new("k").expect("a key");
        let run = RunOptions {
            seed: 7,
            queue_delay: Duration::from_millis(5),
            workers: 3,
            time_limit: Duration::from_secs(9),
        };
        let config = ServerConfig { api_key: Some(key.clone()), run, ..config() };
        let (ionq, ibm) = (config.ionq(), config.ibm());
        assert_eq!((ionq.key, ionq.run), (Some(key.clone()), run));
        assert_eq!((ibm.key, ibm.run), (Some(key), run));
    }
}
