//! An asynchronous client of Amazon Braket's REST API (`rest-json`, API version 2019-09-01) and
//! of the S3 objects its tasks write, every request signed with SigV4 ([`sigv4`]) by the
//! credentials AWS users keep ([`credentials`]).
//!
//! * **Where.** The device's ARN names its region (`arn:aws:braket:eu-north-1::device/...`); the
//!   managed simulators' ARNs name none, and then the region comes from the environment or the
//!   profile. Requests go to `https://braket.REGION.amazonaws.com`, results to the bucket's
//!   virtual host `https://BUCKET.s3.REGION.amazonaws.com`, unless `AWS_ENDPOINT_URL_BRAKET`,
//!   `AWS_ENDPOINT_URL_S3` (or `AWS_ENDPOINT_URL` for both) name another server, as the AWS SDKs
//!   honour them: a path prefix is kept, and S3 is then addressed path-style
//!   (`ENDPOINT/BUCKET/KEY`).
//! * **Tasks** ([`BraketClient::create_task`], [`BraketClient::task`],
//!   [`BraketClient::cancel_task`]): `CreateQuantumTask` with an OpenQASM 3 program
//!   (`braket.ir.openqasm.program`), the shots, the device's ARN, the output bucket and prefix,
//!   and a client token, which makes a submission safe to send again (Braket answers the same
//!   task); `GetQuantumTask`; `CancelQuantumTask`. The result is the `results.json` object
//!   (a `GateModelTaskResult`) in the task's output directory ([`BraketClient::results`]).
//! * **Every request** goes through the retry loop the other clients use ([`crate::retry`]):
//!   its own timeout, retries on 429, 5xx and dropped connections, the one deadline of the move,
//!   answers read no further than the size limit. AWS's refusals of the credentials are
//!   [`RemoteError::AwsAuth`], naming where the credentials came from.

use std::time::{Duration, SystemTime};

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::client::{excerpt, malformed};
use crate::config::{DEFAULT_MAX_RESPONSE_BYTES, PollPolicy, RetryPolicy};
use crate::error::RemoteError;
use crate::retry::{Attempts, Deadline, send_with_retries};

pub mod credentials;
pub mod runner;
pub mod sigv4;
pub mod tasks;

pub use credentials::{AwsCredentials, CredentialsError, Environment};
pub use runner::{BraketRunError, BraketRunner, client_token};
pub use tasks::{DeviceInfo, GateModelResult, TaskState};

/// The regions Braket's devices are in, asked in turn when listing them (each region's
/// `SearchDevices` answers its own devices).
pub const REGIONS: [&str; 5] = ["us-east-1", "us-west-1", "us-west-2", "eu-north-1", "eu-west-2"];

/// The regions to ask for the list of devices: all of [`REGIONS`], or the one given, or, when
/// `AWS_ENDPOINT_URL_BRAKET` (or `AWS_ENDPOINT_URL`) names one server for all, that server once.
pub fn listing_regions(given: Option<&str>, env: &Environment) -> Vec<String> {
    match given {
        Some(region) => vec![region.to_owned()],
        None if env.var("AWS_ENDPOINT_URL_BRAKET").or_else(|| env.var("AWS_ENDPOINT_URL")).is_some() => {
            vec![env.region().map_or_else(|| REGIONS[0].to_owned(), |(region, _)| region)]
        }
        None => REGIONS.map(str::to_owned).to_vec(),
    }
}

/// The Braket API version this client speaks.
pub const API_VERSION: &str = "2019-09-01";

/// The key prefix of task results in the output bucket, unless another is given.
pub const DEFAULT_PREFIX: &str = "qchess-tasks";

/// Why a Braket connection cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BraketConfigError {
    /// The device is neither a short name qchess knows nor a Braket device ARN.
    #[error(
        "unknown Braket device `{0}`: give an ARN (arn:aws:braket:REGION::device/...) or one of ionq-forte-1, \
         ionq-forte-enterprise-1, iqm-garnet, iqm-emerald, rigetti-ankaa-3, rigetti-cepheus-1-108q, sv1, dm1"
    )]
    UnknownDevice(String),
    /// The region given does not match the device ARN's.
    #[error("region {given} (from {source_name}) does not match device {arn}, which is in {arn_region}")]
    RegionMismatch {
        /// The region given.
        given: String,
        /// Where it was given.
        source_name: String,
        /// The device.
        arn: String,
        /// The ARN's region.
        arn_region: String,
    },
    /// A simulator's ARN names no region, and none was found.
    #[error("device {0} names no region and none is set: set AWS_REGION, or region in the profile of ~/.aws/config")]
    NoRegion(String),
    /// No usable credentials.
    #[error(transparent)]
    Credentials(#[from] CredentialsError),
    /// An endpoint URL is not http(s).
    #[error("{variable} `{value}` is not an http(s) URL")]
    BadEndpoint {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// The output bucket is not a bucket name.
    #[error("S3 bucket `{0}`: a bucket name has 3 to 63 lower-case letters, digits, dots and hyphens")]
    BadBucket(String),
}

/// The device of a short name or an ARN: its ARN, and its region when the ARN names one.
pub fn device_arn(name_or_arn: &str) -> Result<(String, Option<String>), BraketConfigError> {
    let arn = match qchess_route::target::braket::device(name_or_arn) {
        Some(device) => device.arn.to_owned(),
        None if name_or_arn.starts_with("arn:aws:braket:") && name_or_arn.contains(":device/") => {
            name_or_arn.to_owned()
        }
        None => return Err(BraketConfigError::UnknownDevice(name_or_arn.to_owned())),
    };
    let region = arn.split(':').nth(3).filter(|r| !r.is_empty()).map(str::to_owned);
    Ok((arn, region))
}

/// A validated Braket connection for one device.
#[derive(Debug, Clone)]
pub struct BraketConfig {
    /// The device's ARN.
    pub device_arn: String,
    /// The region every request is signed for.
    pub region: String,
    /// The credentials.
    pub credentials: AwsCredentials,
    /// Braket's base URL.
    pub braket_url: String,
    /// S3's base URL when another server is named (path-style); `None`: AWS's virtual hosts.
    pub s3_url: Option<String>,
    /// STS's base URL (for the account id of the default bucket's name).
    pub sts_url: String,
    /// The output bucket; `None`: the Braket SDK's default, `amazon-braket-REGION-ACCOUNT`.
    pub bucket: Option<String>,
    /// The key prefix of results in the bucket.
    pub prefix: String,
    /// Timeout of one request.
    pub request_timeout: Duration,
    /// The most time one run (a move's requests, retries and the wait for its task) may take.
    pub overall_timeout: Duration,
    /// Retries of a failed request.
    pub retry: RetryPolicy,
    /// How often a task's state is read while waiting.
    pub poll: PollPolicy,
    /// The most bytes of one answer read.
    pub max_response_bytes: u64,
}

impl BraketConfig {
    /// The connection for `device` (a short name or an ARN) that `env` describes: its
    /// credentials, its region (the ARN's; the environment's or the profile's for a simulator;
    /// `region` given explicitly must match the ARN's), and its endpoints. `now` is seconds since
    /// 1970, for credentials that expire.
    pub fn from_environment(
        device: &str,
        region: Option<&str>,
        env: &Environment,
        now: u64,
    ) -> Result<BraketConfig, BraketConfigError> {
        let (arn, arn_region) = device_arn(device)?;
        let region = match (arn_region, region) {
            (Some(arn_region), Some(given)) if arn_region != given => {
                return Err(BraketConfigError::RegionMismatch {
                    given: given.to_owned(),
                    source_name: "--aws-region".to_owned(),
                    arn,
                    arn_region,
                });
            }
            (Some(arn_region), _) => arn_region,
            (None, Some(given)) => given.to_owned(),
            (None, None) => env.region().map(|(r, _)| r).ok_or_else(|| BraketConfigError::NoRegion(arn.clone()))?,
        };
        let credentials = env.credentials(now)?;
        let endpoint = |variable: &'static str| -> Result<Option<String>, BraketConfigError> {
            match env.var(variable).or_else(|| env.var("AWS_ENDPOINT_URL")) {
                Some(url) if url.starts_with("http://") || url.starts_with("https://") => {
                    Ok(Some(url.trim_end_matches('/').to_owned()))
                }
                Some(url) => Err(BraketConfigError::BadEndpoint { variable, value: url.to_owned() }),
                None => Ok(None),
            }
        };
        let braket_url =
            endpoint("AWS_ENDPOINT_URL_BRAKET")?.unwrap_or_else(|| format!("https://braket.{region}.amazonaws.com"));
        let s3_url = endpoint("AWS_ENDPOINT_URL_S3")?;
        let sts_url =
            endpoint("AWS_ENDPOINT_URL_STS")?.unwrap_or_else(|| format!("https://sts.{region}.amazonaws.com"));
        Ok(BraketConfig {
            device_arn: arn,
            region,
            credentials,
            braket_url,
            s3_url,
            sts_url,
            bucket: None,
            prefix: DEFAULT_PREFIX.to_owned(),
            request_timeout: Duration::from_secs(30),
            overall_timeout: Duration::from_secs(3600),
            retry: RetryPolicy::default(),
            poll: PollPolicy::default(),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        })
    }

    /// Sets the output bucket and key prefix (`BUCKET` or `BUCKET/PREFIX`).
    pub fn with_output(mut self, location: &str) -> Result<BraketConfig, BraketConfigError> {
        let (bucket, prefix) = location.trim_matches('/').split_once('/').unwrap_or((location.trim_matches('/'), ""));
        let valid = (3..=63).contains(&bucket.len())
            && bucket.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
        if !valid {
            return Err(BraketConfigError::BadBucket(bucket.to_owned()));
        }
        self.bucket = Some(bucket.to_owned());
        if !prefix.is_empty() {
            self.prefix = prefix.trim_matches('/').to_owned();
        }
        Ok(self)
    }

    /// Whether the device is one of Braket's managed simulators.
    pub fn is_simulator(&self) -> bool {
        qchess_route::target::braket::is_simulator_arn(&self.device_arn)
    }
}

/// One request to AWS: what it is for, the service it is signed for, and its parts.
pub(crate) struct AwsRequest<'a> {
    pub what: &'a str,
    pub service: &'static str,
    pub method: Method,
    /// The full URL, its path percent-encoded as it is sent.
    pub url: String,
    pub body: Vec<u8>,
    pub content_type: Option<&'static str>,
    /// Whether sending it twice does no harm.
    pub idempotent: bool,
}

/// A client of Braket (and S3, STS) for one connection: see the [module docs](self).
#[derive(Debug)]
pub struct BraketClient {
    http: reqwest::Client,
    config: BraketConfig,
    /// The default bucket's name, once asked.
    default_bucket: tokio::sync::Mutex<Option<String>>,
}

impl BraketClient {
    /// A client for `config`.
    pub fn new(config: BraketConfig) -> Result<BraketClient, RemoteError> {
        let http = reqwest::Client::builder()
            .user_agent(concat!("qchess/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.request_timeout)
            .build()
            .map_err(|e| RemoteError::Network { what: "setting up HTTP".into(), attempts: 0, detail: e.to_string() })?;
        Ok(BraketClient { http, config, default_bucket: tokio::sync::Mutex::new(None) })
    }

    /// The configuration.
    pub fn config(&self) -> &BraketConfig {
        &self.config
    }

    /// The overall timeout from now.
    pub fn deadline(&self) -> Deadline {
        Deadline::after(self.config.overall_timeout)
    }

    /// Sends one signed request with retries; returns the body of a 2xx answer.
    pub(crate) async fn send(&self, request: &AwsRequest<'_>, deadline: Deadline) -> Result<Vec<u8>, RemoteError> {
        let url = reqwest::Url::parse(&request.url).map_err(|e| RemoteError::Network {
            what: request.what.to_owned(),
            attempts: 0,
            detail: e.to_string(),
        })?;
        let host = match url.port() {
            Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
            None => url.host_str().unwrap_or_default().to_owned(),
        };
        let query: Vec<(String, String)> = url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        let payload_hash = sigv4::sha256_hex(&request.body);
        let credentials = &self.config.credentials;
        let attempts = Attempts {
            what: request.what,
            idempotent: request.idempotent,
            policy: self.config.retry,
            request_timeout: self.config.request_timeout,
            deadline: Some(deadline),
            max_response_bytes: self.config.max_response_bytes,
        };
        let build = || {
            let seconds = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
            let amz_date = sigv4::amz_date(seconds);
            let mut headers = vec![("host".to_owned(), host.clone()), ("x-amz-date".to_owned(), amz_date.clone())];
            if request.service == "s3" {
                headers.push(("x-amz-content-sha256".to_owned(), payload_hash.clone()));
            }
            if let Some(token) = &credentials.session_token {
                headers.push(("x-amz-security-token".to_owned(), token.clone()));
            }
            if let Some(kind) = request.content_type {
                headers.push(("content-type".to_owned(), kind.to_owned()));
            }
            let signable = sigv4::Signable {
                method: request.method.as_str(),
                path: url.path(),
                query: &query,
                headers: &headers,
                payload_hash: &payload_hash,
            };
            let scope = sigv4::Scope {
                access_key_id: &credentials.access_key_id,
                secret: credentials.secret(),
                region: &self.config.region,
                service: request.service,
                amz_date: &amz_date,
            };
            let authorization = sigv4::authorization(&signable, &scope);
            let mut builder = self.http.request(request.method.clone(), url.clone());
            // reqwest writes `host` itself, from the URL.
            for (name, value) in headers.iter().filter(|(name, _)| name != "host") {
                builder = builder.header(name.as_str(), value.as_str());
            }
            builder.header(reqwest::header::AUTHORIZATION, authorization).body(request.body.clone())
        };
        let source = credentials.source.clone();
        send_with_retries(&attempts, build, |what, status, body, attempts| {
            aws_error(what, status, body, attempts, &source)
        })
        .await
    }

    /// A JSON request to Braket (`path` percent-encoded as sent).
    pub(crate) async fn braket(
        &self,
        what: &str,
        method: Method,
        path: &str,
        body: Option<&Value>,
        idempotent: bool,
        deadline: Deadline,
    ) -> Result<Value, RemoteError> {
        let request = AwsRequest {
            what,
            service: "braket",
            method,
            url: format!("{}{path}", self.config.braket_url),
            body: body.map(|b| b.to_string().into_bytes()).unwrap_or_default(),
            content_type: body.map(|_| "application/json"),
            idempotent,
        };
        let answer = self.send(&request, deadline).await?;
        if answer.is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&answer).map_err(|e| malformed(what, &format!("{e} in {}", excerpt(&answer))))
    }
}

/// Sorts AWS's error answers: `rest-json` bodies (`{"message"}`, with the code in `__type` or
/// `code`) and S3's XML (`<Code>`, `<Message>`).
fn aws_error(what: &str, status: StatusCode, body: &[u8], attempts: u32, credentials: &str) -> RemoteError {
    let json: Option<Value> = serde_json::from_slice(body).ok();
    let text = String::from_utf8_lossy(body);
    let xml = |tag: &str| {
        let open = format!("<{tag}>");
        let start = text.find(&open)? + open.len();
        let end = text[start..].find(&format!("</{tag}>"))? + start;
        Some(text[start..end].to_owned())
    };
    let field = |names: &[&str]| {
        json.as_ref().and_then(|v| names.iter().find_map(|n| v.get(*n).and_then(Value::as_str).map(str::to_owned)))
    };
    let code = field(&["__type", "code", "Code"])
        .or_else(|| xml("Code"))
        .map(|c| c.rsplit('#').next().unwrap_or(&c).to_owned());
    let message = field(&["message", "Message"]).or_else(|| xml("Message"));
    let message = match (code, message) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (None, Some(message)) | (Some(message), None) => message,
        (None, None) if body.is_empty() => status.canonical_reason().unwrap_or("no message").to_owned(),
        (None, None) => excerpt(body),
    };
    match status.as_u16() {
        401 | 403 => RemoteError::AwsAuth { status: status.as_u16(), message, credentials: credentials.to_owned() },
        code => crate::client::classify(what, code, message, attempts),
    }
}

/// `text` as one URL path segment: everything but `A-Z a-z 0-9 - _ . ~` escaped (an ARN's `:`
/// and `/` included), as botocore sends it.
pub(crate) fn segment(text: &str) -> String {
    sigv4::uri_encode(text, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Environment {
        Environment::of(&[
            ("AWS_ACCESS_KEY_ID", "AKID"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
            ("AWS_REGION", "us-east-1"),
        ])
    }

    #[test]
    fn the_region_comes_from_the_arn_and_a_different_one_given_is_refused() {
        let garnet = BraketConfig::from_environment("iqm-garnet", None, &env(), 0).expect("valid");
        assert_eq!(
            (garnet.region.as_str(), garnet.braket_url.as_str()),
            ("eu-north-1", "https://braket.eu-north-1.amazonaws.com")
        );
        let sv1 = BraketConfig::from_environment("sv1", None, &env(), 0).expect("valid");
        assert!(sv1.is_simulator() && sv1.region == "us-east-1");
        let mismatch =
            BraketConfig::from_environment("iqm-garnet", Some("us-east-1"), &env(), 0).expect_err("mismatch");
        assert!(mismatch.to_string().contains("eu-north-1"), "{mismatch}");
        let unknown = BraketConfig::from_environment("garnet", None, &env(), 0).expect_err("unknown").to_string();
        assert!(unknown.contains("unknown Braket device `garnet`"), "{unknown}");
        let no_region =
            Environment::of(&[("AWS_ACCESS_KEY_ID", "A"), ("AWS_SECRET_ACCESS_KEY", "s"), ("HOME", "/nonexistent")]);
        assert!(matches!(
            BraketConfig::from_environment("dm1", None, &no_region, 0),
            Err(BraketConfigError::NoRegion(_))
        ));
        let arn = "arn:aws:braket:us-west-1::device/qpu/rigetti/Ankaa-3";
        assert_eq!(device_arn(arn).expect("an ARN").1.as_deref(), Some("us-west-1"));
    }

    #[test]
    fn endpoints_follow_the_sdks_variables() {
        let with = Environment::of(&[
            ("AWS_ACCESS_KEY_ID", "A"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("AWS_ENDPOINT_URL_BRAKET", "http://127.0.0.1:9/braket/"),
            ("AWS_ENDPOINT_URL", "http://127.0.0.1:9/all"),
        ]);
        let config = BraketConfig::from_environment("iqm-garnet", None, &with, 0).expect("valid");
        assert_eq!(config.braket_url, "http://127.0.0.1:9/braket");
        assert_eq!(config.s3_url.as_deref(), Some("http://127.0.0.1:9/all"));
        let bad = Environment::of(&[
            ("AWS_ACCESS_KEY_ID", "A"),
            ("AWS_SECRET_ACCESS_KEY", "s"),
            ("AWS_ENDPOINT_URL_S3", "localhost:9"),
        ]);
        assert!(matches!(
            BraketConfig::from_environment("iqm-garnet", None, &bad, 0),
            Err(BraketConfigError::BadEndpoint { .. })
        ));
        let output = config.clone().with_output("my-bucket/games/").expect("valid");
        assert_eq!((output.bucket.as_deref(), output.prefix.as_str()), (Some("my-bucket"), "games"));
        assert!(config.with_output("My_Bucket").is_err());
    }

    #[test]
    fn aws_errors_sort_and_name_the_credentials() {
        let expired = br#"{"message":"The security token included in the request is expired"}"#;
        let error = aws_error("x", StatusCode::FORBIDDEN, expired, 1, "profile `default` in ~/.aws/credentials");
        assert!(error.to_string().contains("expired") && error.to_string().contains("profile `default`"), "{error}");
        let s3 = b"<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>";
        let missing = aws_error("the results", StatusCode::NOT_FOUND, s3, 1, "x");
        assert!(
            matches!(&missing, RemoteError::Rejected { status: 404, message, .. } if message.starts_with("NoSuchKey:")),
            "{missing}"
        );
        let offline = br#"{"__type":"DeviceOfflineException","message":"Device is offline"}"#;
        let error = aws_error("creating", StatusCode::from_u16(424).expect("a status"), offline, 1, "x").to_string();
        assert!(error.contains("DeviceOfflineException: Device is offline"), "{error}");
        assert_eq!(segment("arn:aws:braket:::device/x"), "arn%3Aaws%3Abraket%3A%3A%3Adevice%2Fx");
    }
}
