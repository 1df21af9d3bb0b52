//! A stand-in for IBM Quantum's authentication and device routes, so the IBM client runs in
//! tests without the service.
//!
//! * `POST /identity/token`: IBM Cloud IAM's API-key exchange. The form body must carry
//!   `grant_type=urn:ibm:params:oauth:grant-type:apikey` and an `apikey` (the server's
//!   `--api-key` when it has one, any non-empty key otherwise); the answer is a bearer token with
//!   `access_token`, `token_type`, `expires_in` and `expiration`, as IAM gives it.
//! * `GET /api/v1/backends` and `GET /api/v1/backends/{name}/configuration`: the devices this
//!   server describes (`ibm_fez`, Heron; `ibm_brisbane`, Eagle) and their configurations as IBM
//!   publishes them. Both need `Authorization: Bearer TOKEN` with a live token and a
//!   `Service-CRN` header; a missing, unknown or expired token is 401, as on the service.
//!
//! * `POST /api/v1/jobs` (Sampler V2: `{"program_id": "sampler", "backend", "params": {"pubs":
//!   [[QASM3, null, SHOTS]]}}`): every circuit must be an ISA circuit of the device (its basis
//!   gates only, two-qubit gates on coupled pairs in their direction), else 400 naming what is
//!   not; it runs on a state vector over the qubits it uses ([`jobs`]). `GET /api/v1/jobs/{id}`,
//!   `GET /api/v1/jobs/{id}/results` (per register, one hex sample per shot) and
//!   `POST /api/v1/jobs/{id}/cancel` (409 once finished) follow.
//!
//! Errors have the service's shapes: IAM's `{"errorCode", "errorMessage"}`, and the API's
//! `{"errors": [{"code", "message"}], "status_code"}`. Tokens live
//! [`DEFAULT_TOKEN_SECONDS`] (IAM's hour), or `QCHESS_SERVE_IBM_TOKEN_SECONDS` when set, so tests
//! can watch one expire.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

pub mod isa;
pub mod jobs;
mod shots;

use crate::AppState;
use crate::config::ServerKey;

/// How long a token lives by default (IAM's `expires_in`).
pub const DEFAULT_TOKEN_SECONDS: u64 = 3600;

/// The grant type of an API-key exchange.
const APIKEY_GRANT: &str = "urn:ibm:params:oauth:grant-type:apikey";

/// The devices described here: API name and the configuration IBM publishes for it.
fn devices() -> [(&'static str, &'static str); 2] {
    [
        ("ibm_fez", qchess_route::target::presets::FEZ_CONF),
        ("ibm_brisbane", qchess_route::target::presets::BRISBANE_CONF),
    ]
}

/// Tokens handed out and when each expires.
#[derive(Debug)]
struct Tokens {
    key: Option<ServerKey>,
    lifetime: Duration,
    issued: Mutex<HashMap<String, Instant>>,
    jobs: Mutex<jobs::Jobs>,
}

/// The routes of the [module docs](self) for `serve`: its `--api-key` (if any) is the one key
/// IAM accepts, and tokens live `QCHESS_SERVE_IBM_TOKEN_SECONDS` or [`DEFAULT_TOKEN_SECONDS`].
pub fn routes(state: &AppState) -> Router<Arc<AppState>> {
    let lifetime = std::env::var("QCHESS_SERVE_IBM_TOKEN_SECONDS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(DEFAULT_TOKEN_SECONDS);
    service(state.config.api_key.clone(), Duration::from_secs(lifetime))
}

/// The routes of the [module docs](self) with their own token store: `key` is the one API key
/// IAM accepts (any non-empty key when `None`), and tokens live `lifetime`.
pub fn service<S: Clone + Send + Sync + 'static>(key: Option<ServerKey>, lifetime: Duration) -> Router<S> {
    let tokens =
        Arc::new(Tokens { key, lifetime, issued: Mutex::new(HashMap::new()), jobs: Mutex::new(HashMap::new()) });
    Router::new()
        .route("/identity/token", post(token))
        .route("/api/v1/backends", get(backends))
        .route("/api/v1/backends/{name}/configuration", get(configuration))
        .route("/api/v1/jobs", post(submit))
        .route("/api/v1/jobs/{id}", get(job))
        .route("/api/v1/jobs/{id}/results", get(results))
        .route("/api/v1/jobs/{id}/cancel", post(cancel))
        .with_state(tokens)
}

/// An IAM error.
fn iam_error(status: StatusCode, code: &str, message: &str) -> Response {
    (status, axum::Json(json!({ "errorCode": code, "errorMessage": message }))).into_response()
}

/// An API error.
fn api_error(status: StatusCode, code: &str, message: &str) -> Response {
    let body = json!({ "errors": [{ "code": code, "message": message }], "status_code": status.as_u16() });
    (status, axum::Json(body)).into_response()
}

/// `POST /identity/token`.
async fn token(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, body: Bytes) -> Response {
    let form_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !form_type.starts_with("application/x-www-form-urlencoded") {
        return iam_error(StatusCode::BAD_REQUEST, "BXNIM0109E", "Property missing or empty. Operation not allowed.");
    }
    let form = form_fields(&body);
    if form.get("grant_type").map(String::as_str) != Some(APIKEY_GRANT) {
        return iam_error(StatusCode::BAD_REQUEST, "BXNIM0103E", "Unsupported grant type.");
    }
    let key = form.get("apikey").map(String::as_str).unwrap_or("");
    let accepted = match &tokens.key {
        Some(expected) => expected.matches(key),
        None => !key.is_empty(),
    };
    if !accepted {
        return iam_error(StatusCode::BAD_REQUEST, "BXNIM0415E", "Provided API key could not be found.");
    }
    let access = format!("qchess-{:032x}", rand::random::<u128>());
    let expires_in = tokens.lifetime.as_secs();
    let expiration = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) + expires_in;
    let mut issued = tokens.issued.lock().unwrap_or_else(|p| p.into_inner());
    let now = Instant::now();
    issued.retain(|_, expiry| *expiry > now);
    issued.insert(access.clone(), now + tokens.lifetime);
    axum::Json(json!({
        "access_token": access,
        "refresh_token": "not_supported",
        "token_type": "Bearer",
        "expires_in": expires_in,
        "expiration": expiration,
        "scope": "ibm openid",
    }))
    .into_response()
}

/// The fields of a form body (`a=b&c=d`, `+` and `%XX` decoded).
fn form_fields(body: &[u8]) -> HashMap<String, String> {
    let decode = |text: &[u8]| {
        let hex = |byte: u8| (byte as char).to_digit(16);
        let mut out = Vec::with_capacity(text.len());
        let mut i = 0;
        while i < text.len() {
            match (text[i], text.get(i + 1).copied().and_then(hex), text.get(i + 2).copied().and_then(hex)) {
                (b'+', _, _) => out.push(b' '),
                (b'%', Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 2;
                }
                (byte, _, _) => out.push(byte),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    body.split(|&b| b == b'&')
        .filter_map(|pair| {
            let at = pair.iter().position(|&b| b == b'=')?;
            Some((decode(&pair[..at]), decode(&pair[at + 1..])))
        })
        .collect()
}

/// A short, printable excerpt of a name from a request.
fn excerpt(text: &str) -> String {
    let shown: String = text.chars().take(60).flat_map(char::escape_debug).collect();
    if text.chars().count() > 60 { format!("`{shown}...`") } else { format!("`{shown}`") }
}

/// The refusal of a request without a live bearer token or a service instance header.
fn refusal(tokens: &Tokens, headers: &HeaderMap) -> Option<Response> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    let Some(bearer) = bearer else {
        return Some(api_error(StatusCode::UNAUTHORIZED, "1001", "Missing bearer token in Authorization header."));
    };
    let issued = tokens.issued.lock().unwrap_or_else(|p| p.into_inner());
    match issued.get(bearer) {
        Some(expiry) if *expiry > Instant::now() => {}
        Some(_) => return Some(api_error(StatusCode::UNAUTHORIZED, "1002", "The bearer token has expired.")),
        None => return Some(api_error(StatusCode::UNAUTHORIZED, "1001", "The bearer token is not valid.")),
    }
    if headers.get("service-crn").and_then(|v| v.to_str().ok()).is_none_or(|v| v.trim().is_empty()) {
        return Some(api_error(StatusCode::BAD_REQUEST, "1218", "Missing Service-CRN header."));
    }
    None
}

/// `GET /api/v1/backends`.
async fn backends(State(tokens): State<Arc<Tokens>>, headers: HeaderMap) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    let names: Vec<&str> = devices().iter().map(|(name, _)| *name).collect();
    axum::Json(json!({ "devices": names })).into_response()
}

/// `GET /api/v1/backends/{name}/configuration`.
async fn configuration(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, Path(name): Path<String>) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    match devices().into_iter().find(|(device, _)| *device == name) {
        Some((_, text)) => match serde_json::from_str::<Value>(text) {
            Ok(value) => axum::Json(value).into_response(),
            Err(e) => api_error(StatusCode::INTERNAL_SERVER_ERROR, "5000", &format!("stored configuration: {e}")),
        },
        None => {
            let message = format!("Backend {} not found.", excerpt(&name));
            api_error(StatusCode::NOT_FOUND, "1216", &message)
        }
    }
}

/// `POST /api/v1/jobs`.
async fn submit(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    let request: Value = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => return api_error(StatusCode::BAD_REQUEST, "1201", &format!("the body is not JSON: {e}")),
    };
    let backend = request.get("backend").and_then(Value::as_str).unwrap_or("").to_owned();
    let Some((_, conf)) = devices().into_iter().find(|(device, _)| *device == backend) else {
        return api_error(StatusCode::NOT_FOUND, "1216", &format!("Backend {} not found.", excerpt(&backend)));
    };
    let target = match qchess_route::Target::from_json(conf, &backend) {
        Ok(target) => target,
        Err(e) => return api_error(StatusCode::INTERNAL_SERVER_ERROR, "5000", &format!("stored configuration: {e}")),
    };
    // Simulating is quick at the sizes allowed; keep it off the async workers anyway.
    let seed = rand::random::<u64>();
    let ran = tokio::task::spawn_blocking(move || jobs::run(&request, &target, seed)).await;
    let results = match ran {
        Ok(Ok(results)) => results,
        Ok(Err(message)) => return api_error(StatusCode::BAD_REQUEST, "1517", &message),
        Err(e) => return api_error(StatusCode::INTERNAL_SERVER_ERROR, "5000", &format!("the simulation failed: {e}")),
    };
    let id = format!("d{:019x}", rand::random::<u64>() >> 1);
    let job = jobs::Job { backend: backend.clone(), status: "Completed", results };
    tokens.jobs.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), job);
    axum::Json(json!({ "id": id, "backend": backend })).into_response()
}

/// The stored job `id`, or the service's 404.
fn stored(tokens: &Tokens, id: &str) -> Result<jobs::Job, Box<Response>> {
    let jobs = tokens.jobs.lock().unwrap_or_else(|p| p.into_inner());
    jobs.get(id)
        .cloned()
        .ok_or_else(|| Box::new(api_error(StatusCode::NOT_FOUND, "1291", &format!("Job {} not found.", excerpt(id)))))
}

/// `GET /api/v1/jobs/{id}`.
async fn job(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    match stored(&tokens, &id) {
        Ok(job) => axum::Json(json!({
            "id": id,
            "backend": job.backend,
            "status": job.status,
            "state": { "status": job.status },
            "program": { "id": "sampler" },
        }))
        .into_response(),
        Err(missing) => *missing,
    }
}

/// `GET /api/v1/jobs/{id}/results`.
async fn results(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    match stored(&tokens, &id) {
        Ok(job) if job.status == "Completed" => axum::Json(job.results).into_response(),
        Ok(job) => api_error(StatusCode::CONFLICT, "1234", &format!("Job {id} is {} and has no results.", job.status)),
        Err(missing) => *missing,
    }
}

/// `POST /api/v1/jobs/{id}/cancel`: jobs here finish when submitted, so a known job is past
/// cancelling.
async fn cancel(State(tokens): State<Arc<Tokens>>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    if let Some(refused) = refusal(&tokens, &headers) {
        return refused;
    }
    match stored(&tokens, &id) {
        Ok(job) => {
            api_error(StatusCode::CONFLICT, "1300", &format!("Job {id} is {} and cannot be cancelled.", job.status))
        }
        Err(missing) => *missing,
    }
}
