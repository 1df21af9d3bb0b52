//! Backend selection shared by commands: `--backend local|ionq|URL` plus the remote flags,
//! validated once, then turned into a quantum board (or, for `qchess compare`, a backend that
//! also runs circuits).
//!
//! A backend is written `KIND[,OPTION...]`:
//!
//! - `local`: the exact built-in simulator.
//! - `ionq`: IonQ's API (`--provider-url`, default `https://api.ionq.co/v0.4`, `/v0.4` added when
//!   the URL has no path; the key from `--api-key` or `IONQ_API_KEY`).
//! - `http://HOST:PORT` (or `https://...`): a `qchess serve`, or any IonQ v0.4 compatible API;
//!   `/v0.4` is added when the URL has no path.
//! - `ibm:DEVICE` (`ibm:ibm_fez`): an IBM Quantum device; circuits are routed onto its coupling
//!   map and run as Sampler jobs. The API key comes from `--ibm-api-key` or `QISKIT_IBM_TOKEN`,
//!   the service instance from `--ibm-crn` or `QISKIT_IBM_INSTANCE`; `--ibm-url` (or
//!   `QCHESS_IBM_URL`) points both IAM and the API at one server, such as a `qchess serve`.
//! - `braket:DEVICE` (`braket:iqm-garnet`, or a device ARN): an Amazon Braket device; circuits
//!   are routed onto its capabilities and run as verbatim programs of its native gates, with the
//!   AWS credentials and endpoints found as the AWS SDKs find them (see [`braket`]).
//!
//! Options, after commas, set one backend's `target=simulator|qpu.NAME`, `noise=MODEL` and
//! `mitigation` (drop shots with impossible piece counts); without them the `--target`,
//! `--noise-model` and `--mitigation` flags apply. So `qchess compare --backend local --vs
//! http://127.0.0.1:8080,target=qpu.aria-1` compares the simulator with a sampled stand-in.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use anyhow::Context as _;
use qchess_circuit::ir::Circuit;
use qchess_compare::observation::Observation;
use qchess_core::text::{excerpt, with_causes};
use qchess_core::{Bitboard, BoardError, QuantumBoard};
use qchess_remote::config::PollPolicy;
use qchess_remote::ibm::IbmMode;
use qchess_remote::{IonqClient, RemoteBoard, RemoteBoardConfig, RemoteSettings};
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};

use crate::exit::bad_input_at;

mod braket;
mod ibm;
mod stored;

pub use braket::{BraketArgs, ready_device as ready_braket_device};
pub use ibm::{IbmArgs, ready_device};

/// Which kind of backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendKind {
    /// The exact built-in simulator.
    Local,
    /// IonQ's API at `--provider-url`.
    Ionq,
    /// An IonQ-compatible API at this URL (a `qchess serve`), with `/v0.4` added if needed.
    Url(String),
    /// An IBM Quantum device.
    Ibm(String),
    /// An Amazon Braket device (a short name or an ARN).
    Braket(String),
}

/// A backend as written on the command line. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackendSpec {
    /// The kind.
    pub kind: BackendKind,
    /// `target=...`.
    pub target: Option<String>,
    /// `noise=...`.
    pub noise_model: Option<String>,
    /// `mitigation`.
    pub mitigation: bool,
}

impl FromStr for BackendSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<BackendSpec, String> {
        let mut parts = text.trim().split(',');
        let head = parts.next().unwrap_or("").trim();
        let kind = match head {
            "local" => BackendKind::Local,
            "ionq" => BackendKind::Ionq,
            url if url.starts_with("http://") || url.starts_with("https://") => BackendKind::Url(url.to_owned()),
            ibm if ibm.starts_with("ibm:") => BackendKind::Ibm(ibm_device(&ibm["ibm:".len()..])?),
            braket if braket.starts_with("braket:") => {
                BackendKind::Braket(braket::braket_device(&braket["braket:".len()..])?)
            }
            other => {
                return Err(format!(
                    "`{}` is not a backend: use local, ionq, ibm:DEVICE, braket:DEVICE or the http:// URL of a qchess serve",
                    excerpt(other)
                ));
            }
        };
        let mut spec = BackendSpec { kind, target: None, noise_model: None, mitigation: false };
        for option in parts.map(str::trim) {
            match option.split_once('=') {
                Some(("target", value)) => spec.target = Some(value.to_owned()),
                Some(("noise", value)) => spec.noise_model = Some(value.to_owned()),
                None if option == "mitigation" => spec.mitigation = true,
                _ => {
                    return Err(format!(
                        "backend option `{}`: expected target=simulator|qpu.NAME, noise=MODEL or mitigation",
                        excerpt(option)
                    ));
                }
            }
        }
        if spec.kind == BackendKind::Local && (spec.target.is_some() || spec.noise_model.is_some() || spec.mitigation) {
            return Err("the local backend takes no options".to_owned());
        }
        if matches!(spec.kind, BackendKind::Ibm(_) | BackendKind::Braket(_))
            && (spec.target.is_some() || spec.noise_model.is_some())
        {
            return Err(
                "an ibm:DEVICE or braket:DEVICE backend takes no target= or noise= option: the device is its target"
                    .to_owned(),
            );
        }
        Ok(spec)
    }
}

impl fmt::Display for BackendSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            BackendKind::Local => f.write_str("local")?,
            BackendKind::Ionq => f.write_str("ionq")?,
            BackendKind::Url(url) => f.write_str(url)?,
            BackendKind::Ibm(device) => write!(f, "ibm:{device}")?,
            BackendKind::Braket(device) => write!(f, "braket:{device}")?,
        }
        if let Some(target) = &self.target {
            write!(f, ",target={target}")?;
        }
        if let Some(noise) = &self.noise_model {
            write!(f, ",noise={noise}")?;
        }
        if self.mitigation {
            f.write_str(",mitigation")?;
        }
        Ok(())
    }
}

/// Flags of remote backends, shared by every backend a command uses.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RemoteArgs {
    /// Base URL of IonQ's API for `--backend ionq`; `/v0.4` is added when the URL has no path.
    #[arg(long, value_name = "URL")]
    pub provider_url: Option<String>,
    /// API key of remote backends (default: the IONQ_API_KEY environment variable).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
    /// Backend of remote providers: simulator or qpu.NAME (a backend's `target=` wins).
    #[arg(long)]
    pub target: Option<String>,
    /// Simulator noise model of remote providers: ideal, aria-1, ... (a backend's `noise=` wins).
    #[arg(long)]
    pub noise_model: Option<String>,
    /// Shots per job of sampling backends, before post-selection grows them (default 1000).
    #[arg(long)]
    pub shots: Option<u64>,
    /// The most seconds one move (or one circuit) spends with a remote provider in the
    /// foreground: every request, retry, back-off and the wait for its job. A kept game's job
    /// goes on when the time runs out (resume it with `qchess games resume`; without the flag
    /// such a move waits until its job ends); otherwise the job is canceled (default 3600).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// How to reach IBM Quantum for `--backend ibm:DEVICE`.
    #[command(flatten)]
    pub ibm: IbmArgs,
    /// How a game's jobs go to IBM Quantum for `--backend ibm:DEVICE`: session (one dedicated
    /// session per game, so its jobs go ahead of other jobs once the first has run; a batch
    /// where the instance's plan allows no sessions), batch (one batch per game) or jobs (each
    /// job alone in the device's queue) [default: session].
    #[arg(long, value_name = "session|batch|jobs")]
    pub ibm_mode: Option<IbmMode>,
    /// How to reach Amazon Braket for `--backend braket:DEVICE`.
    #[command(flatten)]
    pub braket: BraketArgs,
    /// Drop shots whose piece count is impossible (remote backends).
    #[arg(long)]
    pub mitigation: bool,
    /// The most bytes of one provider answer to read (default 64 MiB); a larger answer is an
    /// error.
    #[arg(long, value_name = "BYTES")]
    pub max_response_bytes: Option<u64>,
}

/// `--backend` and the remote flags, for commands that run one game.
#[derive(Debug, Clone, clap::Args)]
pub struct BackendArgs {
    /// Where moves run: local, ionq, ibm:DEVICE (IBM Quantum), braket:DEVICE (Amazon Braket: iqm-garnet,
    /// rigetti-ankaa-3, ionq-forte-1, sv1, ... or an ARN), or the URL of a qchess serve, with `,target=...`,
    /// `,noise=...` or `,mitigation` options.
    #[arg(long, default_value = "local", value_name = "BACKEND")]
    pub backend: BackendSpec,
    /// Flags of remote backends.
    #[command(flatten)]
    pub remote: RemoteArgs,
}

impl BackendArgs {
    /// The exact built-in simulator, with no remote flags.
    pub fn local() -> BackendArgs {
        BackendArgs {
            backend: BackendSpec { kind: BackendKind::Local, target: None, noise_model: None, mitigation: false },
            remote: RemoteArgs::default(),
        }
    }

    /// Whether moves run on the exact built-in simulator.
    pub fn is_local(&self) -> bool {
        self.backend.kind == BackendKind::Local
    }

    /// A board at `occupancy` on the chosen backend; `seed` seeds the outcomes it draws. Bad
    /// flags are input errors (exit code 2).
    pub fn board(&self, occupancy: Bitboard, seed: u64) -> anyhow::Result<Box<dyn QuantumBoard>> {
        let backend = Backend::resolve(&self.backend, &self.remote)?;
        backend.board(occupancy, seed).with_context(|| format!("backend {}", backend.label()))
    }
}

/// A validated backend, ready to make boards and run circuits.
#[derive(Debug, Clone)]
pub enum Backend {
    /// The exact built-in simulator.
    Local,
    /// A provider.
    Remote {
        /// How reports name it.
        label: String,
        /// The board configuration (provider, shots, mitigation); its seed is set per board.
        config: Box<RemoteBoardConfig>,
    },
}

impl Backend {
    /// Checks `spec` with the remote flags.
    pub fn resolve(spec: &BackendSpec, remote: &RemoteArgs) -> anyhow::Result<Backend> {
        let url = match &spec.kind {
            BackendKind::Local => return Ok(Backend::Local),
            BackendKind::Ibm(device) => return ibm::resolve(spec, device, remote),
            BackendKind::Braket(device) => return braket::resolve(spec, device, remote),
            BackendKind::Ionq => remote.provider_url.as_deref().map(provider_url),
            BackendKind::Url(url) => Some(provider_url(url)),
        };
        let settings = RemoteSettings {
            provider_url: url,
            api_key: remote.api_key.clone(),
            target: spec.target.clone().or_else(|| remote.target.clone()),
            noise_model: spec.noise_model.clone().or_else(|| remote.noise_model.clone()),
            shots: remote.shots,
            timeout_secs: remote.timeout,
            mitigation: spec.mitigation || remote.mitigation,
            seed: None,
            max_response_bytes: remote.max_response_bytes,
        };
        let mut config = settings
            .board_config()
            .map_err(|e| bad_input_at(format!("backend `{}`", excerpt(&spec.to_string())), e))?;
        if matches!(spec.kind, BackendKind::Url(_)) {
            // A server on this machine answers in milliseconds; poll it accordingly.
            config.provider = config
                .provider
                .with_poll(PollPolicy { initial: Duration::from_millis(5), max: Duration::from_millis(200) });
        }
        let provider = &config.provider;
        let mut details = vec![provider.target().to_string()];
        if !provider.target().is_qpu() {
            details.push(provider.noise_model().to_string());
        }
        if config.mitigation != qchess_remote::Mitigation::None {
            details.push("mitigation".to_owned());
        }
        let base = match &spec.kind {
            BackendKind::Url(url) => url.trim_end_matches('/').to_owned(),
            BackendKind::Ibm(device) => format!("ibm:{device}"),
            _ => "ionq".to_owned(),
        };
        Ok(Backend::Remote { label: format!("{base} ({})", details.join(", ")), config: Box::new(config) })
    }

    /// How reports name the backend.
    pub fn label(&self) -> String {
        match self {
            Backend::Local => "local".to_owned(),
            Backend::Remote { label, .. } => label.clone(),
        }
    }

    /// A board at `occupancy`; `seed` seeds the outcomes it draws.
    pub fn board(&self, occupancy: Bitboard, seed: u64) -> Result<Box<dyn QuantumBoard>, BoardError> {
        match self {
            Backend::Local => {
                Ok(Box::new(LocalBoard::with_options(occupancy, LocalBoardOptions { seed, ..Default::default() })))
            }
            Backend::Remote { config, .. } => {
                let config = RemoteBoardConfig { seed, ..(**config).clone() };
                Ok(Box::new(RemoteBoard::new(occupancy, config)?))
            }
        }
    }
}

/// The shared remote flags (shots, timeout, mitigation, answer size), checked as for IonQ, for a
/// provider whose own connection is described apart (IBM, Braket); `base_url` stands in for
/// IonQ's, which is unused.
fn shared_board_config(
    spec: &BackendSpec,
    remote: &RemoteArgs,
    base_url: &str,
    place: &dyn Fn() -> String,
) -> anyhow::Result<RemoteBoardConfig> {
    let settings = RemoteSettings {
        provider_url: Some(base_url.to_owned()),
        shots: remote.shots,
        timeout_secs: remote.timeout,
        mitigation: spec.mitigation || remote.mitigation,
        max_response_bytes: remote.max_response_bytes,
        ..RemoteSettings::default()
    };
    settings.board_config().map_err(|e| bad_input_at(place(), e))
}

/// Runs a future on a fresh single-threaded runtime.
fn block_on<T, E: From<qchess_remote::RemoteError>>(future: impl Future<Output = Result<T, E>>) -> Result<T, E> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| {
        qchess_remote::RemoteError::Network {
            what: "starting the async runtime".into(),
            attempts: 0,
            detail: e.to_string(),
        }
    })?;
    runtime.block_on(future)
}

/// The device of `ibm:DEVICE`: letters, digits, `_` and `-`, as IBM names its devices.
fn ibm_device(device: &str) -> Result<String, String> {
    let valid = !device.is_empty()
        && device.len() <= 64
        && device.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if valid {
        Ok(device.to_owned())
    } else if device.is_empty() {
        Err("`ibm:` names no device: write ibm:DEVICE, such as ibm:ibm_fez".to_owned())
    } else {
        Err(format!("`ibm:{}`: a device name has only letters, digits, `_` and `-`", excerpt(device)))
    }
}

/// The provider base URL of a server URL (`--backend URL` or `--provider-url URL`): `/v0.4` is
/// added when the URL has no path, so the bare base users copy works as well as the API's.
fn provider_url(url: &str) -> String {
    let trimmed = url.trim_end_matches('/');
    let after_scheme = trimmed.split_once("://").map_or(trimmed, |(_, rest)| rest);
    if after_scheme.contains('/') { trimmed.to_owned() } else { format!("{trimmed}/v0.4") }
}

impl qchess_compare::Backend for Backend {
    fn label(&self) -> String {
        Backend::label(self)
    }

    fn board(&self, occupancy: Bitboard, seed: u64) -> Result<Box<dyn QuantumBoard>, BoardError> {
        Backend::board(self, occupancy, seed)
    }

    fn run_circuit(&self, circuit: &Circuit, shots: u64, _seed: u64) -> Result<Observation, String> {
        match self {
            Backend::Local => qchess_compare::circuits::run_exact(circuit),
            Backend::Remote { config, .. } if config.ibm.is_some() => ibm::run_circuit(config, circuit, shots),
            Backend::Remote { config, .. } if config.braket.is_some() => braket::run_circuit(config, circuit, shots),
            Backend::Remote { config, .. } => {
                let client = IonqClient::new(config.provider.clone()).map_err(|e| with_causes(&e))?;
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| format!("cannot start the async runtime: {e}"))?;
                let result = runtime.block_on(client.run(circuit, shots)).map_err(|e| with_causes(&e))?;
                let shots = (!config.provider.exact_results()).then_some(result.shots);
                qchess_compare::circuits::from_qubit_results(circuit, result.probabilities.outcomes(), shots)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        for text in [
            "local",
            "ionq",
            "http://127.0.0.1:8080",
            "ionq,target=qpu.aria-1,noise=aria-1,mitigation",
            "ibm:ibm_fez",
            "ibm:ibm_brisbane,mitigation",
            "braket:iqm-garnet",
            "braket:arn:aws:braket:us-west-1::device/qpu/rigetti/Ankaa-3,mitigation",
        ] {
            let spec: BackendSpec = text.parse().expect(text);
            assert_eq!(spec.to_string(), text);
        }
        let spec: BackendSpec = "http://127.0.0.1:9/v0.4,target=qpu.aria-1".parse().expect("url");
        assert_eq!(spec.kind, BackendKind::Url("http://127.0.0.1:9/v0.4".into()));
        assert_eq!(spec.target.as_deref(), Some("qpu.aria-1"));
        for (bad, says) in [
            ("sim", "not a backend"),
            ("ionq,colour=red", "backend option `colour=red`"),
            ("local,mitigation", "no options"),
            ("ibm:", "`ibm:` names no device"),
            ("ibm:../x", "only letters, digits"),
            ("ibm:ibm_fez,noise=aria-1", "no target= or noise= option"),
            ("braket:", "`braket:` names no device"),
            ("braket:garnet", "unknown Braket device `garnet`"),
            ("braket:sv1,target=qpu.aria-1", "no target= or noise= option"),
        ] {
            let error = bad.parse::<BackendSpec>().expect_err(bad);
            assert!(error.contains(says), "{bad}: {error}");
        }
    }

    /// Every one-character deletion, replacement and insertion of valid specs parses or
    /// fails cleanly, and whatever parses prints back to text that parses to the same spec.
    #[test]
    fn mutated_specs_never_panic_and_round_trip() {
        let valid = [
            "local",
            "ionq,target=qpu.aria-1,noise=aria-1,mitigation",
            "http://127.0.0.1:8080,target=simulator",
            "ibm:ibm_fez,mitigation",
            "braket:iqm-garnet,mitigation",
        ];
        let alphabet = [',', '=', ':', '/', 'a', '1', ' ', '.', 'é', '\0'];
        for text in valid {
            let chars: Vec<char> = text.chars().collect();
            let mut mutants = Vec::new();
            for i in 0..=chars.len() {
                for &c in &alphabet {
                    let mut inserted = chars.clone();
                    inserted.insert(i, c);
                    mutants.push(inserted);
                    if i < chars.len() {
                        let mut replaced = chars.clone();
                        replaced[i] = c;
                        mutants.push(replaced);
                    }
                }
                if i < chars.len() {
                    let mut deleted = chars.clone();
                    deleted.remove(i);
                    mutants.push(deleted);
                }
            }
            for mutant in mutants {
                let mutant: String = mutant.into_iter().collect();
                if let Ok(spec) = mutant.parse::<BackendSpec>() {
                    assert_eq!(spec.to_string().parse::<BackendSpec>().as_ref(), Ok(&spec), "{mutant:?}");
                }
            }
        }
    }

    #[test]
    fn server_urls_get_the_api_path() {
        assert_eq!(provider_url("http://127.0.0.1:8080"), "http://127.0.0.1:8080/v0.4");
        assert_eq!(provider_url("http://127.0.0.1:8080/"), "http://127.0.0.1:8080/v0.4");
        assert_eq!(provider_url("https://example.org/v0.4"), "https://example.org/v0.4");
    }

    #[test]
    fn backends_resolve_with_labels() {
        let remote = RemoteArgs { shots: Some(500), ..RemoteArgs::default() };
        let spec: BackendSpec = "http://127.0.0.1:1,target=qpu.aria-1".parse().expect("valid");
        let backend = Backend::resolve(&spec, &remote).expect("valid");
        assert_eq!(backend.label(), "http://127.0.0.1:1 (qpu.aria-1)");
        let Backend::Remote { config, .. } = backend else { panic!("remote") };
        assert_eq!(config.shots, 500);
        let bad: BackendSpec = "http://127.0.0.1:1,target=aria".parse().expect("parses");
        let error = format!("{:#}", Backend::resolve(&bad, &remote).expect_err("bad target"));
        assert!(error.contains("target `aria`"), "{error}");
        assert_eq!(Backend::resolve(&"local".parse().expect("local"), &remote).expect("local").label(), "local");
    }
}
