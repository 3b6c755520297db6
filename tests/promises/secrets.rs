//! The private key never reaches a log line, at any level, from any crate: this test installs
//! a `log` logger and a `tracing` subscriber that record everything at TRACE (what
//! `RUST_LOG=trace` with env_logger or tracing-subscriber would print) and makes calls that
//! succeed, are refused, retry and fail.

#![cfg(feature = "sim")] // against the simulator

use std::fmt::Write as _;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use opsapi::sim::{Fault, SimConfig, Simulator};
use opsapi::Client;

static LINES: OnceLock<Arc<Mutex<Vec<String>>>> = OnceLock::new();

fn lines() -> Arc<Mutex<Vec<String>>> {
    LINES.get_or_init(Default::default).clone()
}

struct Everything;

impl log::Log for Everything {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        let line = format!("{} {} {}", record.level(), record.target(), record.args());
        lines().lock().unwrap().push(line);
    }
    fn flush(&self) {}
}

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

struct AllEvents;

impl tracing::Subscriber for AllEvents {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        let mut f = Fields(format!("span {}", span.metadata().name()));
        span.record(&mut f);
        lines().lock().unwrap().push(f.0);
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, values: &tracing::span::Record<'_>) {
        let mut f = Fields("record".into());
        values.record(&mut f);
        lines().lock().unwrap().push(f.0);
    }
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut f = Fields(format!(
            "{} {}",
            event.metadata().level(),
            event.metadata().target()
        ));
        event.record(&mut f);
        lines().lock().unwrap().push(f.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test]
async fn no_log_line_at_any_level_holds_the_private_key() {
    static EVERYTHING: Everything = Everything;
    log::set_logger(&EVERYTHING).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    tracing::subscriber::set_global_default(AllEvents).unwrap();

    let sim = Simulator::start(SimConfig::default()).unwrap();
    let key = sim.private_key().to_string();
    let client = Client::builder(sim.base_url())
        .credentials(sim.public_key(), &key)
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    let group = sim.group_ids()[0].clone();
    client.hosts().list(&group).await.unwrap();
    sim.inject(
        Fault::Status {
            status: 503,
            retry_after: Some(0),
        },
        1,
    );
    sim.inject(Fault::StaleNonce, 1);
    client.groups().list().await.unwrap();
    assert!(client.hosts().get(&group, "nope").await.is_err());

    let wrong = "d41d8cd9-8f00-4204-a980-0998ecf8427e";
    let refused = Client::builder(sim.base_url())
        .credentials(sim.public_key(), wrong)
        .build()
        .unwrap();
    assert!(refused.groups().list().await.unwrap_err().is_unauthorized());

    // A port this test holds bound and not listening: every connection is refused.
    let held = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    held.bind(
        &"127.0.0.1:0"
            .parse::<std::net::SocketAddr>()
            .unwrap()
            .into(),
    )
    .unwrap();
    let port = held.local_addr().unwrap().as_socket().unwrap().port();
    let closed = Client::builder(format!("http://127.0.0.1:{port}"))
        .credentials("pub", &key)
        .max_retries(1)
        .retry_backoff(Duration::from_millis(1))
        .build()
        .unwrap();
    assert!(closed.groups().list().await.is_err());

    let lines = lines().lock().unwrap().clone();
    assert!(
        lines.len() > 20,
        "the loggers saw too little to mean anything: {lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains("retrying")), "{lines:?}");
    let leaks: Vec<_> = lines
        .iter()
        .filter(|l| l.contains(&key) || l.contains(wrong))
        .collect();
    assert!(leaks.is_empty(), "{leaks:?}");
}
