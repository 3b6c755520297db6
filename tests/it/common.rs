//! The one place tests start a simulator and a client for it, and read what it was sent.

use std::time::Duration;

use opsapi::sim::{RequestRecord, SimConfig, Simulator};
use opsapi::{AckUntil, Acknowledgement, Client, Error};

/// The API path prefix, as the simulator's request log records paths.
pub const API: &str = "/api/public/v1.0";

pub fn start(config: SimConfig) -> Simulator {
    Simulator::start(config).expect("simulator starts")
}

pub fn sim() -> Simulator {
    start(SimConfig::default())
}

/// A client with the simulator's Global Owner key and a 1 ms retry backoff (and the default
/// time budget).
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

/// The builder of the reliability tests (time budget, retries by method, body cap, redirects,
/// Digest refusals, decode errors): the simulator's Global Owner key, a 1 ms retry backoff
/// and a 5 s time budget.
pub fn builder(sim: &Simulator) -> opsapi::ClientBuilder {
    Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .retry_backoff(Duration::from_millis(1))
        .timeout(Duration::from_secs(5))
}

/// [`builder`]'s client: as [`client`], with a 5 s time budget.
pub fn client_5s(sim: &Simulator) -> Client {
    builder(sim).build().unwrap()
}

/// A client (a 5 s budget) that has done its Digest handshake, with the log emptied.
pub async fn warm(sim: &Simulator) -> Client {
    let c = client_5s(sim);
    c.groups().list().await.unwrap();
    sim.clear_requests();
    c
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

/// The query of a logged request, decoded, in order.
pub fn query_pairs(r: &RequestRecord) -> Vec<(String, String)> {
    url::form_urlencoded::parse(r.query.as_deref().unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

/// The log, one line per request: `METHOD path[?query] signed|unsigned STATUS [faults]`,
/// the path under the API prefix. The reliability tests assert the exact requests that went
/// out with it (method, path, query, Authorization or not, status) next to the result.
pub fn seen(sim: &Simulator) -> Vec<String> {
    sim.requests()
        .iter()
        .map(|r| {
            let mut s = format!(
                "{} {}",
                r.method,
                r.path.strip_prefix(API).unwrap_or(&r.path)
            );
            if let Some(q) = &r.query {
                s.push('?');
                s.push_str(q);
            }
            s.push_str(if r.signed { " signed " } else { " unsigned " });
            s.push_str(&r.status.to_string());
            if !r.faults.is_empty() {
                s.push_str(&format!(" [{}]", r.faults.join(", ")));
            }
            s
        })
        .collect()
}

/// Identifiers of the seeded world, one of each kind a call needs.
pub struct Ids {
    pub group: String,
    pub host: String,
    /// An open alert without a running acknowledgement.
    pub alert: String,
    pub entry: String,
}

pub fn ids(sim: &Simulator) -> Ids {
    let w = sim.world();
    let alert = w
        .alerts
        .iter()
        .find(|a| a.status == "OPEN" && a.acknowledged_until.is_none())
        .expect("an open alert that is not acknowledged");
    Ids {
        group: w.hosts[0].group_id.clone(),
        host: w.hosts[0].id.clone(),
        alert: alert.id.clone(),
        entry: w.access_list[0].id.clone(),
    }
}

/// Whether the simulator holds a running acknowledgement of `alert`.
pub fn acknowledged(sim: &Simulator, alert: &str) -> bool {
    sim.world()
        .alerts
        .iter()
        .any(|a| a.id == alert && a.acknowledged_until.is_some())
}

/// Whether the simulator's access list still holds `entry`.
pub fn listed(sim: &Simulator, entry: &str) -> bool {
    sim.world().access_list.iter().any(|e| e.id == entry)
}

pub fn for_an_hour() -> Acknowledgement {
    Acknowledgement::new(AckUntil::For("PT1H".parse().unwrap()))
}

pub fn api_error(err: &Error) -> &opsapi::ApiError {
    err.api()
        .unwrap_or_else(|| panic!("not an API error: {err:?}"))
}
