//! The one place tests start a simulator and a client for it, and read what it was sent.

use std::time::Duration;

use opsapi::sim::{RequestRecord, SimConfig, Simulator};
use opsapi::{AckUntil, Acknowledgement, Client, Error};

/// The API path prefix, as the simulator's request log records paths.
pub const API: &str = "/api/public/v1.0";

pub fn start(config: SimConfig) -> Simulator {
    Simulator::start(config).expect("simulator starts")
}

/// The default simulator, on the fixed clock ([`fixed_now`]): what a test expects of windows
/// ending now, of expiries and of rate-limit refills does not depend on when it runs.
pub fn sim() -> Simulator {
    sim_at_fixed_now()
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
/// and a 60 s time budget. The budget only ends a call that hangs (a regression): under
/// `make test-stress`, a 500-host page took more than 5 s. Tests of the budget itself set
/// their own.
pub fn builder(sim: &Simulator) -> opsapi::ClientBuilder {
    Client::builder(sim.base_url())
        .credentials(sim.public_key(), sim.private_key())
        .retry_backoff(Duration::from_millis(1))
        .timeout(Duration::from_secs(60))
}

/// [`builder`]'s client, before its Digest handshake.
pub fn fresh_client(sim: &Simulator) -> Client {
    builder(sim).build().unwrap()
}

/// A client (a 60 s budget) that has done its Digest handshake, with the log emptied.
pub async fn warm(sim: &Simulator) -> Client {
    let c = fresh_client(sim);
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

/// A loopback port this test holds: bound, not listening, so that every connection to it is
/// refused, and nothing else can take it while the socket lives. [`listen_on`] turns it into
/// a listener without ever letting the port go.
pub fn closed_port() -> (socket2::Socket, u16) {
    use socket2::{Domain, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).expect("a socket");
    let addr: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
    s.bind(&addr.into()).expect("bound");
    let port = s
        .local_addr()
        .unwrap()
        .as_socket()
        .expect("an IP address")
        .port();
    (s, port)
}

/// The port of [`closed_port`], now listening: connections queue until a server accepts
/// them.
pub fn listen_on(s: socket2::Socket) -> std::net::TcpListener {
    s.listen(128).expect("listening");
    s.into()
}

/// Tells when the client, on this thread, decides to retry (its "retrying after ..." log
/// event): the point between a failed attempt and its retry, where a test can change the
/// world the retry meets with no race, since on a current-thread runtime the client waits
/// its backoff until the test yields.
pub struct RetrySignal {
    _guard: tracing::subscriber::DefaultGuard,
    pub retries: tokio::sync::mpsc::UnboundedReceiver<String>,
}

/// Installs a [`RetrySignal`] for this thread (until it is dropped).
pub fn on_retry() -> RetrySignal {
    struct Message(String);
    impl tracing::field::Visit for Message {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            if field.name() == "message" {
                self.0 = format!("{value:?}");
            }
        }
    }
    struct OnRetry(tokio::sync::mpsc::UnboundedSender<String>);
    impl tracing::Subscriber for OnRetry {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            tracing::span::Id::from_u64(1)
        }
        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
        fn event(&self, event: &tracing::Event<'_>) {
            let mut m = Message(String::new());
            event.record(&mut m);
            if m.0.starts_with("retrying") {
                let _ = self.0.send(m.0);
            }
        }
        fn enter(&self, _: &tracing::span::Id) {}
        fn exit(&self, _: &tracing::span::Id) {}
    }
    let (tx, retries) = tokio::sync::mpsc::unbounded_channel();
    RetrySignal {
        _guard: tracing::subscriber::set_default(OnRetry(tx)),
        retries,
    }
}

/// The instant tests fix the simulator's clock at ([`SimConfig::now`]) when what they expect
/// depends on it: an hour of the past, so that acknowledgements counted from it are in the
/// server's future.
pub fn fixed_now() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-03-02T10:00:00Z")
        .unwrap()
        .to_utc()
}

/// A simulator whose clock stands at [`fixed_now`] until the test advances it.
pub fn sim_at_fixed_now() -> Simulator {
    start(SimConfig {
        now: Some(fixed_now()),
        ..SimConfig::default()
    })
}
