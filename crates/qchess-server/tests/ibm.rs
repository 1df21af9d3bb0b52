//! The IBM Quantum client against the stand-in routes on 127.0.0.1: key exchange, device
//! configurations (read by `qchess-route` as targets) and their disk cache, tokens refreshed
//! when they expire, and the service's refusals sorted into the error taxonomy.

use std::net::SocketAddr;
use std::time::Duration;

use qchess_remote::RemoteError;
use qchess_remote::config::{ApiKey, RetryPolicy};
use qchess_remote::ibm::{IbmClient, IbmConfig};
use qchess_server::{ServerKey, ibm};

const KEY: &str = "ibm-cloud-key";

/// Serves the IBM routes (tokens living `lifetime`) on their own thread; returns the base URL.
fn start(lifetime: Duration) -> String {
    let (sender, receiver) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
            sender.send(listener.local_addr().expect("address")).expect("sends");
            let key = ServerKey::new(KEY).expect("a key");
            axum::serve(listener, ibm::service::<()>(Some(key), lifetime)).await.expect("serves");
        });
    });
    let addr = receiver.recv_timeout(Duration::from_secs(10)).expect("the server starts");
    format!("http://{addr}")
}

fn config(base: &str, key: &str, device: &str) -> IbmConfig {
    let retry =
        RetryPolicy { max_retries: 1, base_delay: Duration::from_millis(10), max_delay: Duration::from_millis(50) };
    IbmConfig { retry, ..IbmConfig::new(ApiKey::new(key).expect("a key"), "crn:v1:qchess:test", device).at(base) }
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(future)
}

#[test]
fn the_configuration_is_fetched_read_as_a_target_and_cached() {
    let base = start(Duration::from_secs(3600));
    let cache = tempfile::tempdir().expect("a temporary directory");
    let client =
        IbmClient::new(IbmConfig { cache_dir: Some(cache.path().to_owned()), ..config(&base, KEY, "ibm_fez") })
            .expect("client");
    let configuration = block_on(client.configuration()).expect("fetched");
    assert_eq!(configuration["backend_name"], "ibm_fez");
    let target = qchess_route::Target::from_json(&configuration.to_string(), "ibm_fez").expect("a target");
    assert_eq!(target.num_qubits, 156);
    assert!(cache.path().join("ibm_fez.configuration.json").is_file());

    // The cache answers without the network: this client's services are unreachable.
    let offline =
        IbmConfig { cache_dir: Some(cache.path().to_owned()), ..config("http://127.0.0.1:9", KEY, "ibm_fez") };
    let cached = block_on(IbmClient::new(offline).expect("client").configuration()).expect("from the cache");
    assert_eq!(cached, configuration);
}

#[test]
fn an_expired_token_is_exchanged_again() {
    let base = start(Duration::from_secs(1));
    let client = IbmClient::new(config(&base, KEY, "ibm_brisbane")).expect("client");
    let first = block_on(client.token()).expect("a token");
    assert_eq!(block_on(client.token()).expect("a token"), first, "a live token is kept");
    std::thread::sleep(Duration::from_millis(1100));
    // The token has expired on the server; the client exchanges the key again.
    let configuration = block_on(client.configuration()).expect("fetched after a refresh");
    assert_eq!(configuration["n_qubits"], 127);
    assert_ne!(block_on(client.token()).expect("a token"), first);
}

#[test]
fn refusals_sort_into_the_taxonomy() {
    let base = start(Duration::from_secs(3600));
    let wrong_key = IbmClient::new(config(&base, "not-the-key", "ibm_fez")).expect("client");
    let refused = block_on(wrong_key.configuration()).expect_err("a wrong key is refused");
    assert!(matches!(&refused, RemoteError::Auth { status: 401, message } if message.contains("API key")), "{refused}");

    let unknown = IbmClient::new(config(&base, KEY, "ibm_nowhere")).expect("client");
    let missing = block_on(unknown.configuration()).expect_err("an unknown device");
    assert!(
        matches!(&missing, RemoteError::Rejected { status: 404, message, .. } if message.contains("ibm_nowhere")),
        "{missing}"
    );

    // Without a token the API answers 401 in the service's shape.
    let answer = reqwest::blocking::get(format!("{base}/api/v1/backends")).expect("answers");
    assert_eq!(answer.status(), 401);
    let body: serde_json::Value = answer.json().expect("JSON");
    assert!(body["errors"][0]["message"].as_str().is_some_and(|m| m.contains("bearer token")), "{body}");

    let unreachable = IbmClient::new(config("http://127.0.0.1:9", KEY, "ibm_fez")).expect("client");
    let down = block_on(unreachable.token()).expect_err("nothing listens");
    assert!(matches!(down, RemoteError::Network { attempts: 2, .. }), "{down}");
}

#[test]
fn a_token_the_api_refuses_is_exchanged_once_then_the_refusal_stands() {
    // IAM on one server, the API on another that knows none of its tokens: each request is
    // refused 401, the client exchanges the key again and retries once, then reports it.
    let (iam, api) = (start(Duration::from_secs(3600)), start(Duration::from_secs(3600)));
    let client =
        IbmClient::new(IbmConfig { api_url: format!("{api}/api/v1"), ..config(&iam, KEY, "ibm_fez") }).expect("client");
    let before = block_on(client.token()).expect("a token");
    let refused = block_on(client.configuration()).expect_err("the API does not know the token");
    assert!(
        matches!(&refused, RemoteError::Auth { status: 401, message } if message.contains("not valid")),
        "{refused}"
    );
    assert_ne!(block_on(client.token()).expect("a token"), before, "the refused token was exchanged");
}
