//! A stand-in for Amazon Braket's REST API and the S3 bucket its tasks write to, so that the
//! unmodified Braket SDK (boto3) and qchess's own client run against `qchess serve`:
//! `AWS_ENDPOINT_URL_BRAKET=http://HOST:PORT/braket`, `AWS_ENDPOINT_URL_S3=http://HOST:PORT/s3`
//! and `AWS_ENDPOINT_URL_STS=http://HOST:PORT/sts` point them here.
//!
//! * Under `/braket`: `GetDevice` (`GET /device/{arn}`), `SearchDevices` (`POST /devices`),
//!   `CreateQuantumTask` (`POST /quantum-task`), `GetQuantumTask` (`GET /quantum-task/{arn}`),
//!   `CancelQuantumTask` (`PUT /quantum-task/{arn}/cancel`) and `SearchQuantumTasks`
//!   (`POST /quantum-tasks`), in the service's `rest-json` shapes ([`devices`], [`tasks`]).
//! * Under `/s3`, path-style: `GetObject`, `ListObjectsV2`, `DeleteObject` and `CreateBucket`
//!   of the results bucket ([`s3`]); under `/sts`, `GetCallerIdentity`, which qchess and the SDK
//!   ask for the default bucket's name.
//!
//! Every request must be signed with SigV4 by the server's key pair ([`sign`]; from `qchess
//! serve`'s `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, or its flags); unsigned, wrongly
//! signed and expired requests get AWS's error shapes ([`BraketError`], [`XmlError`]).
//!
//! A task is read and checked when it is created ([`program`]: a verbatim box on a QPU must
//! use the device's native gates on coupled pairs, refused naming the gate or pair), waits
//! `QUEUED` for the queue delay, runs (`RUNNING`), and ends `COMPLETED` with its
//! `results.json` (a `GateModelTaskResult`) in the bucket and folder it named, `FAILED` with a
//! `failureReason` (its run went past the time limit, or its state grew too large), or
//! `CANCELLED`. A client token answers the task it created before.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, Uri};
use axum::routing::{get, post, put};

pub mod devices;
mod error;
pub mod program;
pub mod s3;
pub mod sign;
pub mod tasks;

pub use self::error::{BraketError, XmlError};
pub use self::program::Noise;
pub use self::sign::{KeyPair, SignatureError};

use crate::run::RunOptions;

/// The account the stand-in's caller is (what STS answers).
pub const ACCOUNT: &str = "123456789012";

/// How the stand-in is set up.
#[derive(Debug, Clone)]
pub struct BraketOptions {
    /// The key pair every request must be signed with (`None`: every request is refused,
    /// saying that the server has none).
    pub keys: Option<KeyPair>,
    /// Devices that answer `OFFLINE` (by short name or ARN).
    pub offline: BTreeSet<String>,
    /// Whether QPUs run verbatim programs with their calibrated noise.
    pub noise: Noise,
    /// Seed, queue delay, workers and time limit of its tasks.
    pub run: RunOptions,
    /// Most tasks kept; a creation past it is throttled.
    pub max_tasks: usize,
    /// Most shots one task may ask for.
    pub max_shots: u64,
}

impl BraketOptions {
    /// The key pair `keys`, every device online, no noise, the default [`RunOptions`].
    pub fn new(keys: Option<KeyPair>) -> BraketOptions {
        BraketOptions {
            keys,
            offline: BTreeSet::new(),
            noise: Noise::Ideal,
            run: RunOptions::default(),
            max_tasks: 10_000,
            max_shots: 100_000,
        }
    }
}

/// Everything the routes share.
#[derive(Debug)]
pub struct Shared {
    options: BraketOptions,
    devices: Vec<devices::Device>,
    tasks: Mutex<tasks::Tasks>,
    buckets: Mutex<s3::Buckets>,
    /// Tasks created so far, numbering each task's seed.
    created: AtomicU64,
    /// How many tasks may run at once.
    slots: Arc<tokio::sync::Semaphore>,
}

impl Shared {
    fn status(&self, device: &devices::Device) -> &'static str {
        if self.options.offline.contains(device.arn) || self.options.offline.contains(device.short) {
            "OFFLINE"
        } else {
            "ONLINE"
        }
    }

    /// Checks the signature of a request that reached `service`.
    fn verify(&self, service: &'static str, head: &Head, body: &[u8]) -> Result<(), SignatureError> {
        let Head { method, uri, headers } = head;
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
            .collect();
        let arrived = sign::Arrived {
            method: method.as_str(),
            path: uri.path(),
            query: uri.query().unwrap_or(""),
            headers: &headers,
            body,
        };
        let keys = self.options.keys.as_ref().ok_or(SignatureError::NoKeys)?;
        sign::verify(&arrived, service, keys, now())
    }
}

/// What a request's signature covers besides its body: its method, URI and headers.
#[derive(Debug, Clone)]
pub struct Head {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
}

impl<S: Send + Sync> FromRequestParts<S> for Head {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Head, Self::Rejection> {
        Ok(Head { method: parts.method.clone(), uri: parts.uri.clone(), headers: parts.headers.clone() })
    }
}

/// Seconds since 1970.
pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The routes of the [module docs](self), with their own task store and bucket.
pub fn service<S: Clone + Send + Sync + 'static>(options: BraketOptions) -> Router<S> {
    let workers = options.run.workers.max(1);
    let shared = Arc::new(Shared {
        options,
        devices: devices::all(),
        tasks: Mutex::new(tasks::Tasks::default()),
        buckets: Mutex::new(HashMap::new()),
        created: AtomicU64::new(0),
        slots: Arc::new(tokio::sync::Semaphore::new(workers)),
    });
    Router::new()
        .route("/braket/device/{arn}", get(tasks::get_device))
        .route("/braket/devices", post(tasks::search_devices))
        .route("/braket/quantum-task", post(tasks::create_task))
        .route("/braket/quantum-task/{arn}", get(tasks::get_task))
        .route("/braket/quantum-task/{arn}/cancel", put(tasks::cancel_task))
        .route("/braket/quantum-tasks", post(tasks::search_tasks))
        .route("/s3/{bucket}", get(s3::list_objects).put(s3::create_bucket))
        .route("/s3/{bucket}/{*key}", get(s3::get_object).delete(s3::delete_object))
        .route("/sts", post(s3::caller_identity))
        .route("/sts/", post(s3::caller_identity))
        .with_state(shared)
}
