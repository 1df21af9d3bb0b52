//! Helpers of the server tests: a real server on 127.0.0.1 and a blocking client.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use qchess_server::{Server, ServerConfig};
use serde_json::Value;

/// Starts a server on its own thread and runtime; returns its base URL.
pub fn start(configure: impl FnOnce(&mut ServerConfig) + Send + 'static) -> String {
    let (sender, receiver) = std::sync::mpsc::channel::<SocketAddr>();
    std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let mut config = ServerConfig::new("127.0.0.1:0".parse().expect("address"));
            configure(&mut config);
            let server = Server::bind(config).await.expect("binds");
            sender.send(server.local_addr()).expect("sends");
            server.run(std::future::pending()).await.expect("serves");
        });
    });
    let addr = receiver.recv_timeout(Duration::from_secs(10)).expect("the server starts");
    format!("http://{addr}")
}

pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder().timeout(Duration::from_secs(10)).build().expect("client")
}

pub fn wait_until_final(http: &reqwest::blocking::Client, base: &str, id: &str) -> (Value, Vec<String>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut seen = Vec::new();
    loop {
        let job: Value = http.get(format!("{base}/v0.4/jobs/{id}")).send().expect("answers").json().expect("JSON");
        let status = job["status"].as_str().expect("status").to_owned();
        if seen.last() != Some(&status) {
            seen.push(status.clone());
        }
        if ["completed", "failed", "canceled"].contains(&status.as_str()) {
            return (job, seen);
        }
        assert!(Instant::now() < deadline, "job {id} stuck in {status}");
        std::thread::sleep(Duration::from_millis(5));
    }
}
