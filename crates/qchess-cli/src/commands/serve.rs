//! `qchess serve`: the IonQ-compatible provider API, the quantum board REST API and `/health`
//! over HTTP, until Ctrl-C or SIGTERM.

use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use qchess_games::GamesConfig;
use qchess_server::{Limits, Server, ServerConfig, ServerKey, ShutdownReport, Timeouts, shutdown_signal};
use qchess_standins::RunOptions;
use qchess_standins::braket::{self, KeyPair};
use qchess_standins::ibm::{self, IbmPlan, noise::IbmNoise};
use qchess_standins::ionq::defect::Defect;
use qchess_standins::ionq::{IonqOptions, JobLimits, NoiseOptions};

use crate::exit::bad_input;

/// The environment variable `serve` reads its API key from when `--api-key` is not given.
const API_KEY_ENV: &str = "QCHESS_SERVE_API_KEY";

/// The environment variable that sets how many seconds the IBM stand-in's tokens live (tests
/// watch one expire); IAM's hour otherwise.
const IBM_TOKEN_SECONDS_ENV: &str = "QCHESS_SERVE_IBM_TOKEN_SECONDS";

/// Flags of `qchess serve`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address to listen on; port 0 picks a free port. The bound address is the first line of
    /// stdout.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Require `Authorization: apiKey KEY` on every route but /health and /v0.4/backends (also
    /// read from QCHESS_SERVE_API_KEY).
    #[arg(long)]
    api_key: Option<String>,
    /// Depolarizing probability per gate of the hardware stand-ins (qpu.* backends and noisy
    /// simulator models).
    #[arg(long, default_value_t = 0.0)]
    depolarizing: f64,
    /// Probability of reading each bit wrong on the hardware stand-ins.
    #[arg(long, default_value_t = 0.0)]
    readout_error: f64,
    /// How the IBM Quantum stand-in runs Sampler and Estimator jobs: ideal (the exact
    /// distribution and exact expectation values, so results agree with the local simulator
    /// within sampling error) or device (qiskit-aer's model of the device's calibration, applied
    /// locally: depolarizing at each gate's error, T1/T2 relaxation over its length, readout
    /// errors).
    #[arg(long, value_name = "device|ideal", default_value = "ideal")]
    ibm_noise: IbmNoise,
    /// The plan of the service instance the IBM Quantum stand-in plays: premium (sessions and
    /// batches) or open (IBM's Open Plan: a dedicated session is refused with the service's
    /// error 1352, batches and lone jobs run).
    #[arg(long, value_name = "premium|open", default_value = "premium")]
    ibm_plan: IbmPlan,
    /// Other users' jobs kept queued on each device of the IBM Quantum stand-in, so that a lone
    /// job waits behind them while a dedicated session's jobs go ahead (0: none).
    #[arg(long, value_name = "N", default_value_t = 0)]
    ibm_busy_jobs: usize,
    /// Milliseconds each of --ibm-busy-jobs runs.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    ibm_busy_job_ms: u64,
    /// How the Amazon Braket stand-in's QPUs run verbatim programs: ideal (exactly) or
    /// calibrated (the device's published fidelities, as Braket's local emulator models them).
    #[arg(long, value_name = "ideal|calibrated", default_value = "ideal")]
    braket_noise: braket::Noise,
    /// A Braket device (short name or ARN) the stand-in reports OFFLINE; repeatable.
    #[arg(long, value_name = "DEVICE")]
    braket_offline: Vec<String>,
    /// The access key id Braket requests must be signed with (also read from
    /// AWS_ACCESS_KEY_ID, with the secret from AWS_SECRET_ACCESS_KEY).
    #[arg(long, value_name = "KEY")]
    aws_access_key_id: Option<String>,
    /// The secret access key of --aws-access-key-id (else AWS_SECRET_ACCESS_KEY).
    #[arg(long, value_name = "SECRET")]
    aws_secret_access_key: Option<String>,
    /// Seed of shot sampling and of the quantum board's measurement outcomes.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Milliseconds a job waits queued before it runs (a stand-in for a provider's queue).
    #[arg(long, default_value_t = 0)]
    queue_delay_ms: u64,
    /// Qubits of the simulator backend (at most 64).
    #[arg(long, default_value_t = JobLimits::default().max_qubits)]
    max_qubits: u32,
    /// Most shots one job may ask for.
    #[arg(long, default_value_t = JobLimits::default().max_shots)]
    max_shots: u64,
    /// Jobs kept at once; only read jobs (or unread ones past --result-ttl) make room, and a
    /// full store answers new jobs 429 with Retry-After.
    #[arg(long, default_value_t = JobLimits::default().max_jobs)]
    max_jobs: usize,
    /// Largest request body in bytes.
    #[arg(long, default_value_t = Limits::default().max_body_bytes)]
    max_body_bytes: usize,
    /// Jobs simulated at once.
    #[arg(long, default_value_t = RunOptions::default().workers)]
    workers: usize,
    /// Seconds one job may run; it then ends failed with the code TimeLimitExceeded.
    #[arg(long, value_name = "SECONDS", default_value_t = RunOptions::default().time_limit.as_secs_f64())]
    time_limit: f64,
    /// Seconds a finished job's results are kept for their owner when nobody fetched them;
    /// until then they are never dropped, and a full store answers new jobs 429.
    #[arg(long, value_name = "SECONDS", default_value_t = IonqOptions::default().result_ttl.as_secs_f64())]
    result_ttl: f64,
    /// Connections served at once; more wait to be accepted until one closes.
    #[arg(long, default_value_t = Limits::default().max_connections)]
    max_connections: usize,
    /// Seconds a connection may take to send a whole request header (counted from its opening
    /// or from the request's first byte); then it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Timeouts::default().header.as_secs_f64())]
    header_timeout: f64,
    /// Seconds a request body may take to arrive after its header; then the answer is 408.
    #[arg(long, value_name = "SECONDS", default_value_t = Timeouts::default().body.as_secs_f64())]
    body_timeout: f64,
    /// Seconds a connection may move no byte while no request is handled (idle keep-alive, or
    /// an answer nobody reads); then it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = Timeouts::default().idle.as_secs_f64())]
    idle_timeout: f64,
    /// Seconds running jobs and requests in flight get to finish after Ctrl-C or SIGTERM.
    #[arg(long, value_name = "SECONDS", default_value_t = Timeouts::default().shutdown_grace.as_secs_f64())]
    shutdown_grace: f64,
    /// Basis states the quantum board API's state may hold; a move needing more is answered 422.
    #[arg(long, default_value_t = Limits::default().max_board_states)]
    max_board_states: usize,
    /// A deliberate defect, for testing comparisons: bit-flip:QUBIT:PROBABILITY (each shot
    /// reads the qubit flipped that often) or phase-flip:QUBIT:GATES (a Z gate after that many
    /// gates on the qubit).
    #[arg(long, value_name = "DEFECT", hide = true)]
    defect: Option<Defect>,
    /// Flags of the web board's game API.
    #[command(flatten)]
    games: super::serve_games::GameArgs,
}

/// A duration flag in seconds; its range is checked with the rest of the configuration.
fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| bad_input(format!("{flag} must be a number of seconds, got {value}")))
}

/// The Braket stand-in's key pair: the flags, else the environment; none when neither gives
/// both halves.
fn braket_keys(key: Option<String>, secret: Option<String>) -> anyhow::Result<Option<KeyPair>> {
    if key.is_none() && secret.is_some() {
        return Err(bad_input("--aws-secret-access-key needs --aws-access-key-id"));
    }
    let from_env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let flag = key.is_some();
    let key = key.or_else(|| from_env("AWS_ACCESS_KEY_ID"));
    let secret = secret.or_else(|| from_env("AWS_SECRET_ACCESS_KEY"));
    match (key, secret) {
        (Some(access_key_id), Some(secret)) => Ok(Some(KeyPair { access_key_id, secret })),
        (Some(_), None) if flag => {
            Err(bad_input("--aws-access-key-id needs its secret: --aws-secret-access-key or AWS_SECRET_ACCESS_KEY"))
        }
        _ => Ok(None),
    }
}

/// Runs `qchess serve`.
pub fn run(mut args: Args, json: bool) -> anyhow::Result<()> {
    let key = match args.api_key {
        Some(key) => Some(key),
        None => std::env::var(API_KEY_ENV).ok().filter(|k| !k.trim().is_empty()),
    };
    let api_key = key.map(|k| ServerKey::new(&k)).transpose().map_err(bad_input)?;
    let timeouts = Timeouts {
        header: seconds("--header-timeout", args.header_timeout)?,
        body: seconds("--body-timeout", args.body_timeout)?,
        idle: seconds("--idle-timeout", args.idle_timeout)?,
        shutdown_grace: seconds("--shutdown-grace", args.shutdown_grace)?,
    };
    let braket_keys = braket_keys(args.aws_access_key_id.take(), args.aws_secret_access_key.take())?;
    let devices = braket::devices::all();
    if let Some(unknown) = args
        .braket_offline
        .iter()
        .find(|name| !devices.iter().any(|d| d.short == name.as_str() || d.arn == name.as_str()))
    {
        return Err(bad_input(format!("--braket-offline: unknown Braket device `{unknown}`")));
    }
    let games = args.games.config()?;
    // The IBM stand-in keeps its jobs and sessions only in a store named with --db.
    let ibm_db = if args.games.store_flagged() { ServerConfig::ibm_database(&games.db) } else { None };
    let ibm_token_seconds = std::env::var(IBM_TOKEN_SECONDS_ENV).ok().and_then(|s| s.parse::<u64>().ok());
    let config = ServerConfig {
        addr: args.addr,
        api_key,
        limits: Limits {
            max_body_bytes: args.max_body_bytes,
            max_board_states: args.max_board_states,
            max_connections: args.max_connections,
        },
        timeouts,
        jobs: JobLimits {
            max_qubits: args.max_qubits,
            max_shots: args.max_shots,
            max_jobs: args.max_jobs,
            ..JobLimits::default()
        },
        noise: NoiseOptions { depolarizing: args.depolarizing, readout_error: args.readout_error },
        ibm_noise: args.ibm_noise,
        ibm_token_lifetime: Duration::from_secs(ibm_token_seconds.unwrap_or(ibm::DEFAULT_TOKEN_SECONDS)),
        ibm_plan: args.ibm_plan,
        ibm_busy: ibm::busy::BusyLoad {
            jobs: args.ibm_busy_jobs,
            job_length: Duration::from_millis(args.ibm_busy_job_ms),
        },
        braket_keys,
        braket_noise: args.braket_noise,
        braket_offline: args.braket_offline,
        run: RunOptions {
            seed: args.seed,
            queue_delay: Duration::from_millis(args.queue_delay_ms),
            workers: args.workers,
            time_limit: seconds("--time-limit", args.time_limit)?,
        },
        result_ttl: seconds("--result-ttl", args.result_ttl)?,
        defect: args.defect,
        games,
        ibm_db,
        public_url: args.games.public_url().map(str::to_owned),
        cors_origins: args.games.cors_origins().to_vec(),
    };
    config.validate().map_err(bad_input)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let named_store = args.games.store_named();
    let served = runtime.block_on(async {
        let server = match Server::bind(config.clone()).await {
            // The default store cannot be opened (a read-only home, say): serve from memory.
            Err(qchess_server::ServeError::Store(error)) if !named_store => {
                eprintln!(
                    "qchess serve: {error}; the web board's games are kept in memory only (name a store with --db)"
                );
                let games = GamesConfig { db: qchess_store::Location::Memory, ..config.games.clone() };
                Server::bind(ServerConfig { games, ..config }).await?
            }
            other => other?,
        };
        // Listen for Ctrl-C and SIGTERM before anyone can learn the address.
        let shutdown = shutdown_signal();
        let addr = server.local_addr();
        let mut stdout = std::io::stdout().lock();
        if json {
            writeln!(
                stdout,
                "{}",
                serde_json::json!({ "address": addr.to_string(), "url": format!("http://{addr}") })
            )?;
        } else {
            writeln!(stdout, "listening on http://{addr}")?;
        }
        stdout.flush()?;
        drop(stdout);
        eprintln!(
            "qchess serve: provider API at http://{addr}/v0.4, board API at http://{addr}/quantumboard; Ctrl-C stops"
        );
        eprintln!("qchess serve: web board at http://{addr}/ (game API described at /openapi.json)");
        eprintln!("qchess serve: games kept in {}", server.state().games.store().location());
        args.games.open_board(&format!("http://{addr}/"));
        if let Some(defect) = args.defect {
            eprintln!("qchess serve: every job has the deliberate defect {defect} (for testing comparisons)");
        }
        let report = server.run(shutdown).await?;
        eprintln!("qchess serve: {}", shutdown_summary(&report));
        anyhow::Ok(())
    });
    // Jobs still simulating were told to stop; do not wait on them past a moment.
    runtime.shutdown_timeout(Duration::from_secs(1));
    served
}

/// One line on what became of the work in hand at shutdown.
fn shutdown_summary(report: &ShutdownReport) -> String {
    format!(
        "stopped; {} queued jobs failed (ServerShutdown), {} running jobs finished, {} running jobs stopped after the grace period (ServerShutdown), {} connections closed",
        report.unstarted_failed, report.running_finished, report.running_stopped, report.connections_closed
    )
}
