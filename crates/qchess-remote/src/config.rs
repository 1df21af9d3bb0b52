//! Validated settings of a provider connection: where, who, on what, and how patiently.
//!
//! Everything is checked once, when the configuration is built, so a client made from a
//! [`ProviderConfig`] never fails on a malformed URL or key later. The API key is kept in an
//! [`ApiKey`], whose `Debug` output never shows it and which has no `Display`.
//!
//! ```
//! use std::time::Duration;
//! use qchess_remote::config::{ApiKey, ProviderConfig};
//!
//! let config = ProviderConfig::new("http://127.0.0.1:8080/v0.4")?
//!     .with_api_key(ApiKey::new("secret-key")?)
//!     .with_target("qpu.aria-1".parse()?)
//!     .with_noise_model("aria-1".parse()?)
//!     .with_overall_timeout(Duration::from_secs(60));
//! assert_eq!(config.jobs_url(), "http://127.0.0.1:8080/v0.4/jobs");
//! assert!(!format!("{config:?}").contains("secret-key"));
//! # Ok::<(), qchess_remote::config::ConfigError>(())
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use qchess_core::text::excerpt;
use thiserror::Error;

/// The IonQ API this client speaks, unless another base URL is given.
pub const DEFAULT_PROVIDER_URL: &str = "https://api.ionq.co/v0.4";

/// The environment variable the API key is read from.
pub const API_KEY_ENV: &str = "IONQ_API_KEY";

/// Why a provider setting is not usable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// The base URL does not parse or is not plain `http(s)://host[:port][/path]`.
    #[error("provider URL `{}`: {reason}", excerpt(.url))]
    BadUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The API key is empty or holds characters an HTTP header cannot carry.
    #[error("API key: {0}")]
    BadApiKey(&'static str),
    /// The API key variable is set but not valid Unicode.
    #[error("{API_KEY_ENV} is set but is not valid UTF-8")]
    ApiKeyNotUnicode,
    /// A backend name is not `simulator` or `qpu.<name>`.
    #[error("target `{}`: expected `simulator` or `qpu.<name>` (for example qpu.aria-1)", excerpt(.0))]
    BadTarget(String),
    /// A noise model name is empty or holds characters other than `a-z`, `0-9`, `-` and `.`.
    #[error("noise model `{}`: expected a name like ideal, aria-1 or forte-1", excerpt(.0))]
    BadNoiseModel(String),
    /// A number is out of its range.
    #[error("{what} must be {range}, got {value}")]
    OutOfRange {
        /// The setting.
        what: &'static str,
        /// The range it must be in.
        range: &'static str,
        /// The value given.
        value: String,
    },
}

/// A provider API key. Its `Debug` output is redacted and it has no `Display`, so it cannot be
/// printed by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A key, checked to be non-empty and to fit in an HTTP header.
    pub fn new(key: impl Into<String>) -> Result<ApiKey, ConfigError> {
        let key = key.into();
        let key = key.trim().to_owned();
        if key.is_empty() {
            return Err(ConfigError::BadApiKey("it is empty"));
        }
        if !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(ConfigError::BadApiKey("it may hold only visible ASCII characters"));
        }
        Ok(ApiKey(key))
    }

    /// The key from [`API_KEY_ENV`], if that variable is set and not empty.
    pub fn from_env() -> Result<Option<ApiKey>, ConfigError> {
        match std::env::var(API_KEY_ENV) {
            Ok(value) if value.trim().is_empty() => Ok(None),
            Ok(value) => ApiKey::new(value).map(Some),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(ConfigError::ApiKeyNotUnicode),
        }
    }

    /// The `Authorization` header value: `apiKey KEY`.
    pub(crate) fn header_value(&self) -> String {
        format!("apiKey {}", self.0)
    }

    /// The key itself, for requests that carry it in a body (IBM Cloud's token exchange).
    pub(crate) fn secret(&self) -> &str {
        &self.0
    }

    /// Whether `candidate` is this key (for servers checking a request).
    pub fn matches(&self, candidate: &str) -> bool {
        // Compare every byte so the time taken does not depend on where they differ.
        let (a, b) = (self.0.as_bytes(), candidate.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// A backend to run on: `simulator` or a QPU such as `qpu.aria-1`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target(String);

impl Target {
    /// IonQ's cloud simulator.
    pub fn simulator() -> Target {
        Target("simulator".into())
    }

    /// The backend name as the API spells it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is a quantum processor: its results are shot frequencies.
    pub fn is_qpu(&self) -> bool {
        self.0.starts_with("qpu.")
    }
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.')
}

impl FromStr for Target {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<Target, ConfigError> {
        let valid = text == "simulator" || text.strip_prefix("qpu.").is_some_and(is_name);
        if valid { Ok(Target(text.to_owned())) } else { Err(ConfigError::BadTarget(text.to_owned())) }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A simulator noise model: `ideal` (exact probabilities) or a modelled device (`aria-1`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NoiseModel(String);

impl NoiseModel {
    /// No noise: the simulator returns exact probabilities.
    pub fn ideal() -> NoiseModel {
        NoiseModel("ideal".into())
    }

    /// The model name as the API spells it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the noiseless model.
    pub fn is_ideal(&self) -> bool {
        self.0 == "ideal"
    }
}

impl FromStr for NoiseModel {
    type Err = ConfigError;

    fn from_str(text: &str) -> Result<NoiseModel, ConfigError> {
        if is_name(text) { Ok(NoiseModel(text.to_owned())) } else { Err(ConfigError::BadNoiseModel(text.to_owned())) }
    }
}

impl fmt::Display for NoiseModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How requests that failed for a passing reason (429, 5xx, a dropped connection) are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 = never retry).
    pub max_retries: u32,
    /// Wait before the first retry; each later retry waits twice as long, with jitter.
    pub base_delay: Duration,
    /// The longest single wait, also the cap on a server's `Retry-After`.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy { max_retries: 5, base_delay: Duration::from_millis(500), max_delay: Duration::from_secs(30) }
    }
}

/// How often a job's status is polled while it waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PollPolicy {
    /// The first wait after submitting.
    pub initial: Duration,
    /// The longest wait between polls; waits grow by half each time up to it.
    pub max: Duration,
}

impl Default for PollPolicy {
    fn default() -> PollPolicy {
        PollPolicy { initial: Duration::from_millis(250), max: Duration::from_secs(5) }
    }
}

/// A validated provider connection: see the [module docs](self).
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    base_url: String,
    api_key: Option<ApiKey>,
    target: Target,
    noise: NoiseModel,
    request_timeout: Duration,
    overall_timeout: Duration,
    retry: RetryPolicy,
    poll: PollPolicy,
    progress: bool,
    cancel_on_interrupt: bool,
    max_response_bytes: u64,
}

/// The most bytes of one answer a client reads unless told otherwise (64 MiB: the results of
/// a 21-qubit dense state).
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 64 << 20;

impl ProviderConfig {
    /// A configuration for the API at `base_url` (for example [`DEFAULT_PROVIDER_URL`]), with
    /// no key, the ideal simulator, a 30 s request timeout, a 1 h overall timeout, default
    /// retries and polling, a progress bar, cancellation on Ctrl-C, and answers of at most
    /// [`DEFAULT_MAX_RESPONSE_BYTES`].
    pub fn new(base_url: &str) -> Result<ProviderConfig, ConfigError> {
        let bad = |reason: &str| ConfigError::BadUrl { url: base_url.to_owned(), reason: reason.to_owned() };
        let url = reqwest::Url::parse(base_url).map_err(|e| bad(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("the scheme must be http or https"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(bad("it has no host"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(bad("it must not have a query or fragment"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("credentials belong in the API key, not the URL"));
        }
        Ok(ProviderConfig {
            base_url: url.as_str().trim_end_matches('/').to_owned(),
            api_key: None,
            target: Target::simulator(),
            noise: NoiseModel::ideal(),
            request_timeout: Duration::from_secs(30),
            overall_timeout: Duration::from_secs(3600),
            retry: RetryPolicy::default(),
            poll: PollPolicy::default(),
            progress: true,
            cancel_on_interrupt: true,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        })
    }

    /// Sets the API key.
    #[must_use]
    pub fn with_api_key(mut self, key: ApiKey) -> ProviderConfig {
        self.api_key = Some(key);
        self
    }

    /// Sets the backend.
    #[must_use]
    pub fn with_target(mut self, target: Target) -> ProviderConfig {
        self.target = target;
        self
    }

    /// Sets the simulator noise model.
    #[must_use]
    pub fn with_noise_model(mut self, noise: NoiseModel) -> ProviderConfig {
        self.noise = noise;
        self
    }

    /// Sets the timeout of each HTTP request (connect, send and read the answer).
    #[must_use]
    pub fn with_request_timeout(mut self, timeout: Duration) -> ProviderConfig {
        self.request_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Sets the longest time one move (one run of the remote board) may spend with the provider:
    /// every request, retry, back-off and the wait for its job.
    #[must_use]
    pub fn with_overall_timeout(mut self, timeout: Duration) -> ProviderConfig {
        self.overall_timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Sets the retry policy.
    #[must_use]
    pub fn with_retry(mut self, retry: RetryPolicy) -> ProviderConfig {
        self.retry = retry;
        self
    }

    /// Sets the polling policy.
    #[must_use]
    pub fn with_poll(mut self, poll: PollPolicy) -> ProviderConfig {
        self.poll = poll;
        self
    }

    /// Shows (or never shows) a progress bar on stderr while a job waits. It is hidden anyway
    /// when stderr is not a terminal.
    #[must_use]
    pub fn with_progress(mut self, progress: bool) -> ProviderConfig {
        self.progress = progress;
        self
    }

    /// Cancels a waiting job when the user presses Ctrl-C (on by default).
    #[must_use]
    pub fn with_cancel_on_interrupt(mut self, cancel: bool) -> ProviderConfig {
        self.cancel_on_interrupt = cancel;
        self
    }

    /// Sets the most bytes of one answer the client reads; a larger answer is an error.
    #[must_use]
    pub fn with_max_response_bytes(mut self, bytes: u64) -> ProviderConfig {
        self.max_response_bytes = bytes.max(1);
        self
    }

    /// The most bytes of one answer the client reads.
    pub fn max_response_bytes(&self) -> u64 {
        self.max_response_bytes
    }

    /// The base URL, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The URL jobs are submitted to.
    pub fn jobs_url(&self) -> String {
        format!("{}/jobs", self.base_url)
    }

    /// The API key, if one is set.
    pub fn api_key(&self) -> Option<&ApiKey> {
        self.api_key.as_ref()
    }

    /// The backend.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The noise model.
    pub fn noise_model(&self) -> &NoiseModel {
        &self.noise
    }

    /// The timeout of each HTTP request.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// The longest time one move may spend with the provider (see
    /// [`ProviderConfig::with_overall_timeout`]).
    pub fn overall_timeout(&self) -> Duration {
        self.overall_timeout
    }

    /// The retry policy.
    pub fn retry(&self) -> RetryPolicy {
        self.retry
    }

    /// The polling policy.
    pub fn poll(&self) -> PollPolicy {
        self.poll
    }

    /// Whether a progress bar may be shown.
    pub fn progress(&self) -> bool {
        self.progress
    }

    /// Whether Ctrl-C cancels a waiting job.
    pub fn cancel_on_interrupt(&self) -> bool {
        self.cancel_on_interrupt
    }

    /// Whether results are exact probabilities (the ideal simulator) rather than shot frequencies.
    pub fn exact_results(&self) -> bool {
        !self.target.is_qpu() && self.noise.is_ideal()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_and_normalised() {
        let config = ProviderConfig::new("https://api.ionq.co/v0.4/").expect("valid");
        assert_eq!(config.base_url(), "https://api.ionq.co/v0.4");
        for (url, reason) in [
            ("ftp://host/v0.4", "scheme"),
            ("not a url", "relative URL"),
            ("http://host/v0.4?x=1", "query"),
            ("http://user:pw@host/", "credentials"),
        ] {
            let error = ProviderConfig::new(url).expect_err(url).to_string();
            assert!(error.contains(reason) && error.contains(url), "{url}: {error}");
        }
    }

    #[test]
    fn keys_never_print() {
        let key = ApiKey::new("  abc123  ").expect("valid");
        assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
        assert_eq!(key.header_value(), "apiKey abc123");
        assert!(key.matches("abc123") && !key.matches("abc124") && !key.matches("abc"));
        assert!(ApiKey::new("").is_err());
        assert!(ApiKey::new("a b").is_err());
        assert!(ApiKey::new("caf\u{e9}").is_err());
    }

    #[test]
    fn targets_and_noise_models_are_names() {
        assert!("simulator".parse::<Target>().is_ok());
        assert!("qpu.aria-1".parse::<Target>().expect("valid").is_qpu());
        for bad in ["", "qpu.", "QPU.aria", "qpu.a b", "sim"] {
            assert!(bad.parse::<Target>().is_err(), "{bad}");
        }
        assert!("forte-1".parse::<NoiseModel>().is_ok());
        assert!("Ideal".parse::<NoiseModel>().is_err());
        let noisy =
            ProviderConfig::new(DEFAULT_PROVIDER_URL).expect("valid").with_noise_model("aria-1".parse().expect("ok"));
        assert!(!noisy.exact_results());
    }
}
