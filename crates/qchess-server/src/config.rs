//! What a server is allowed to do: limits, noise, timing, the API key.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use thiserror::Error;

/// Bounds on what one request, and all stored jobs together, may ask of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest request body in bytes (413 beyond it).
    pub max_body_bytes: usize,
    /// Qubits of the `simulator` backend; QPU stand-ins have their device's size, at most this.
    pub max_qubits: u32,
    /// Largest state the dense simulator may allocate, in qubits. Circuits that stay sparse
    /// (few basis states, as game circuits do) may have up to `max_qubits`.
    pub max_dense_qubits: usize,
    /// Basis states the sparse simulator may hold before a job falls back to the dense one.
    pub max_sparse_states: usize,
    /// Most shots one job may ask for.
    pub max_shots: u64,
    /// Most gates one circuit may have.
    pub max_gates: usize,
    /// Jobs kept at once; the oldest read jobs (or unread ones past [`Timeouts::result_ttl`])
    /// are dropped to make room, and a submission finding none is answered 429. A finished job keeps only its results (at
    /// most `2^max_dense_qubits` outcomes, or the basis states of a sparse run), not its circuit.
    pub max_jobs: usize,
    /// Outcomes all stored results may hold together (16 bytes each). Only results that were
    /// fetched, or are older than [`Timeouts::result_ttl`], are dropped to make room; while
    /// unread results fill the store, submissions are answered 429 with `Retry-After`.
    pub max_result_entries: usize,
    /// Connections served at once; more wait in the listen queue until one closes.
    pub max_connections: usize,
    /// Basis states the quantum board API's state may hold; a move needing more is answered 422.
    pub max_board_states: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: 4 << 20,
            max_qubits: 29,
            max_dense_qubits: 20,
            max_sparse_states: 1 << 20,
            max_shots: 1_000_000,
            max_gates: 100_000,
            max_jobs: 10_000,
            max_result_entries: 1 << 24,
            max_connections: 4096,
            max_board_states: qchess_sim::sparse::DEFAULT_STATE_CAP,
        }
    }
}

/// How long the server waits for clients, for jobs and for itself.
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
    /// Longest time one job may run; it then ends `failed` with the code `TimeLimitExceeded`.
    pub job_time_limit: Duration,
    /// How long a finished job's results are kept for their owner when nobody fetched them.
    pub result_ttl: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            header: Duration::from_secs(10),
            body: Duration::from_secs(30),
            idle: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(10),
            job_time_limit: Duration::from_secs(300),
            result_ttl: Duration::from_secs(3600),
        }
    }
}

/// Noise of the hardware stand-ins: `qpu.*` backends and simulators with a non-ideal model.
/// Each shot is, with probability `1 - (1 - depolarizing)^gates`, replaced by a uniformly random
/// outcome (global depolarizing noise), and then each bit is flipped with probability
/// `readout_error`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NoiseOptions {
    /// Depolarizing probability per gate, in `[0, 1]`.
    pub depolarizing: f64,
    /// Probability of reading each bit wrong, in `[0, 0.5]`.
    pub readout_error: f64,
}

impl Default for NoiseOptions {
    fn default() -> NoiseOptions {
        NoiseOptions { depolarizing: 0.0, readout_error: 0.0 }
    }
}

/// A server API key. Its `Debug` output is redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerKey(String);

impl ServerKey {
    /// A key: non-empty visible ASCII.
    pub fn new(key: &str) -> Result<ServerKey, ConfigError> {
        let key = key.trim();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ConfigError::BadApiKey);
        }
        Ok(ServerKey(key.to_owned()))
    }

    /// Whether `candidate` is this key; takes the same time wherever they differ.
    pub fn matches(&self, candidate: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), candidate.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerKey(<redacted>)")
    }
}

/// A setting that cannot be used.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ConfigError {
    /// The API key is empty or not visible ASCII.
    #[error("the API key must be non-empty visible ASCII")]
    BadApiKey,
    /// A probability is out of range.
    #[error("{what} must be in [0, {max}], got {value}")]
    BadProbability {
        /// The setting.
        what: &'static str,
        /// Its largest value.
        max: f64,
        /// The value given.
        value: String,
    },
    /// A limit is zero or too large.
    #[error("{what} must be between {min} and {max}, got {value}")]
    BadLimit {
        /// The setting.
        what: &'static str,
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
        /// The value given.
        value: u64,
    },
    /// A duration is zero or too long.
    #[error("{what} must be above 0 and at most {max_seconds} seconds, got {value}")]
    BadDuration {
        /// The setting.
        what: &'static str,
        /// Its largest value in seconds.
        max_seconds: u64,
        /// The value given, in seconds.
        value: f64,
    },
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

/// Everything `qchess serve` is started with.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Where to listen; port 0 picks a free port.
    pub addr: SocketAddr,
    /// When set, every route but `/health` and `/v0.4/backends` needs `Authorization: apiKey KEY`.
    pub api_key: Option<ServerKey>,
    /// Request and resource limits.
    pub limits: Limits,
    /// Timeouts of connections, jobs, results and shutdown.
    pub timeouts: Timeouts,
    /// Noise of the hardware stand-ins.
    pub noise: NoiseOptions,
    /// Whether the IBM stand-in samples its jobs with the device's calibrated noise.
    pub ibm_noise: crate::ibm::noise::IbmNoise,
    /// Seed of shot sampling (per job, mixed with the job's number unless the job gives one)
    /// and of the quantum board's measurement outcomes.
    pub seed: u64,
    /// How long a job waits in the queue before it runs (a stand-in for a provider's queue).
    pub queue_delay: Duration,
    /// Jobs simulated at once.
    pub workers: usize,
    /// A deliberate defect of every job's results (tests of comparisons only).
    pub defect: Option<crate::defect::Defect>,
    /// The game API's games: how many, how long, and where they may run.
    pub games: crate::games::GamesConfig,
}

impl ServerConfig {
    /// Defaults: no key, default limits and timeouts, no noise (IBM's stand-in included), seed 0, no queue delay,
    /// two workers, no defect.
    pub fn new(addr: SocketAddr) -> ServerConfig {
        ServerConfig {
            addr,
            api_key: None,
            limits: Limits::default(),
            timeouts: Timeouts::default(),
            noise: NoiseOptions::default(),
            ibm_noise: crate::ibm::noise::IbmNoise::Ideal,
            seed: 0,
            queue_delay: Duration::ZERO,
            workers: 2,
            defect: None,
            games: crate::games::GamesConfig::default(),
        }
    }

    /// Checks the ranges of every setting.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let probability = |what, value: f64, max: f64| {
            if (0.0..=max).contains(&value) {
                Ok(())
            } else {
                Err(ConfigError::BadProbability { what, max, value: value.to_string() })
            }
        };
        probability("--depolarizing", self.noise.depolarizing, 1.0)?;
        probability("--readout-error", self.noise.readout_error, 0.5)?;
        let limit = |what, value: u64, min: u64, max: u64| {
            if (min..=max).contains(&value) { Ok(()) } else { Err(ConfigError::BadLimit { what, min, max, value }) }
        };
        let l = &self.limits;
        limit("--max-qubits", u64::from(l.max_qubits), 1, 64)?;
        limit("the dense qubit limit", l.max_dense_qubits as u64, 1, 30)?;
        limit("--max-shots", l.max_shots, 1, 100_000_000)?;
        limit("--max-jobs", l.max_jobs as u64, 1, 10_000_000)?;
        limit("--max-body-bytes", l.max_body_bytes as u64, 1024, 1 << 30)?;
        limit("the gate limit", l.max_gates as u64, 1, 10_000_000)?;
        limit("--workers", self.workers as u64, 1, 256)?;
        limit("--max-connections", l.max_connections as u64, 1, 1_000_000)?;
        limit("--max-board-states", l.max_board_states as u64, 1, 1 << 30)?;
        let t = &self.timeouts;
        for (what, value, max) in [
            ("--header-timeout", t.header, DAY),
            ("--body-timeout", t.body, DAY),
            ("--idle-timeout", t.idle, DAY),
            ("--shutdown-grace", t.shutdown_grace, DAY),
            ("--time-limit", t.job_time_limit, 7 * DAY),
            ("--result-ttl", t.result_ttl, 30 * DAY),
        ] {
            if value.is_zero() || value > max {
                return Err(ConfigError::BadDuration { what, max_seconds: max.as_secs(), value: value.as_secs_f64() });
            }
        }
        self.games.validate()
    }
}
