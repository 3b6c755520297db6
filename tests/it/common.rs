//! The one place tests start a simulator and a client for it.

use std::time::Duration;

use opsapi::sim::{RequestRecord, SimConfig, Simulator};
use opsapi::Client;

/// The API path prefix, as the simulator's request log records paths.
pub const API: &str = "/api/public/v1.0";

pub fn start(config: SimConfig) -> Simulator {
    Simulator::start(config).expect("simulator starts")
}

pub fn sim() -> Simulator {
    start(SimConfig::default())
}

/// A client with the simulator's Global Owner key and a 1 ms retry backoff.
pub fn client(sim: &Simulator) -> Client {
    client_with(sim, |b| b)
}

pub fn client_with(
    sim: &Simulator,
    f: impl FnOnce(opsapi::ClientBuilder) -> opsapi::ClientBuilder,
) -> Client {
    let b = Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .retry_backoff(Duration::from_millis(1));
    f(b).build().unwrap()
}

/// The requests that passed authentication.
pub fn authorized(sim: &Simulator) -> Vec<RequestRecord> {
    sim.requests()
        .into_iter()
        .filter(|r| r.authorized)
        .collect()
}

/// The JSON body of a logged request.
pub fn json_body(r: &RequestRecord) -> serde_json::Value {
    serde_json::from_slice(&r.body).expect("a JSON body")
}
