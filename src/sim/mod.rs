//! The built-in API simulator: a faithful, seeded, in-process imitation of the Deployment
//! Operations Public API v1.0 (`/api/public/v1.0`, HTTP Digest auth), for tests, demos and
//! benchmarks.
//!
//! (Over 600 lines: the simulator's public face, its options and every one of its methods
//! that tests and users call, documented with examples; the world, the server and the faults
//! are modules of their own.)
//!
//! It serves the operations this crate wraps plus the listings that lead to their
//! identifiers, verifies Digest signatures (nonce counts included) for two keys (a Global
//! Owner and a Project Read Only key), generates measurements for any window as a pure
//! function of the seed, and can inject faults: standing rates ([`Faults`]: latency,
//! 429/500/503, resets, truncated bodies) and one-shot faults queued with
//! [`Simulator::inject`] ([`Fault`]: error statuses and resets before or after the request
//! was applied, HTML pages from a proxy, garbled JSON, invalid UTF-8, 401s with and without a
//! challenge, stale nonces, redirects, stalled and drip-fed answers, oversize and endless
//! bodies, repeated pages, wrong totals). Every request is logged ([`Simulator::requests`]),
//! with the faults that struck it.
//!
//! Conventions where the public sources leave a choice:
//!
//! - Measurements list their series in the catalog's (documented) order whatever the order
//!   of the `m` parameters; repeated names count once. Data points sit on the granularity's
//!   grid, `start <= t <= end` (for `period`, the window ends now). A rate series' first
//!   point is null; a missed sample (about 0.3 %) is null in every series of the host.
//!   One response holds at most 2 million points (else 400 `INVALID_PERIOD`).
//! - A correct signature over a nonce the server does not know (or no longer accepts) is
//!   answered `stale=true`; a replayed `(nonce, nc)` pair, a wrong key or a wrong `uri` get
//!   `stale=false`. The 401 body's `errorCode` is `UNAUTHORIZED`.
//! - Successes carry both `X-MongoDB-Service-Version` (the documented name) and
//!   `X-Vendor-Service-Version`, with the same `gitHash=...; versionString=...` value.
//! - Errors are never wrapped by `envelope=true`; they keep their HTTP status.
//! - An unknown disk partition is 404 `DEVICE_NOT_FOUND`; a PATCH without
//!   `acknowledgedUntil` is 400 `MISSING_ATTRIBUTE`; a method a route does not serve is 405
//!   `METHOD_NOT_ALLOWED`.
//!
//! ```no_run
//! use opsapi::sim::{SimConfig, Simulator};
//!
//! let sim = Simulator::start(SimConfig { seed: 7, ..SimConfig::default() }).unwrap();
//! println!("{} {}", sim.base_url(), sim.public_key());
//! let groups = sim.group_ids();
//! assert_eq!(groups.len(), 3);
//! drop(sim); // stops the server and joins its thread
//! ```
//!
//! (Over 600 lines: the simulator's whole public surface, configuration, request log and
//! truth accessors; the server, world and faults have files of their own.)

mod aim;
mod causes;
mod churn;
pub mod cli;
mod clock;
mod faults;
mod flavour;
mod fmt;
mod headroom;
mod limit;
mod metrics;
mod reply;
mod retention;
mod rng;
pub mod seasonal;
mod server;
pub mod shapes;
mod tls;
mod world;

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use chrono::{DateTime, DurationRound, TimeDelta, Utc};

pub use aim::{Aim, Hold};
pub use faults::{Fault, Faults};
pub use flavour::TokenBucket;
pub use headroom::HeadroomTruth;
pub use retention::Retention;
pub use tls::SimTls;
pub use world::{
    tier_size, AccessListEntry, Alert, AlertConfig, Breach, Cluster, ClusterPart, Database, Event,
    Finding, Growth, Host, Partition, Project, SeededSeries, ShardGrowth, World, TIERS,
};
pub use world::{
    Acknowledged, AlertTruth, FlappingTruth, MetricAlertTruth, NoisyHostTruth, SeededAlert,
};
pub use world::{Causes, DriverCause, ElectionCause, RestartCause, ScalingCause, SlowCause};

/// How to seed and run a simulator.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Seed of the world and the keys.
    pub seed: u64,
    /// Number of projects.
    pub projects: usize,
    /// Hosts per project (replica sets, a standalone, sharded clusters, in turn).
    pub hosts_per_project: usize,
    /// Number of alerts across all projects (the `/globalAlerts` population).
    pub global_alerts: usize,
    /// How long a nonce stays valid (then `stale=true`).
    pub nonce_lifetime: Duration,
    /// Faults applied to every request (switchable later with [`Simulator::set_faults`]).
    pub faults: Faults,
    /// Tokio worker threads of the server (1 = a current-thread runtime).
    pub worker_threads: usize,
    /// TCP port on 127.0.0.1 (0 = any free port).
    pub port: u16,
    /// Address to bind (default 127.0.0.1).
    pub bind: std::net::IpAddr,
    /// The instant seeded times are relative to; `None` = [`SimConfig::now`] when that is
    /// given, else midnight UTC of the start day.
    pub anchor: Option<DateTime<Utc>>,
    /// A fixed "now" (`None`, the default: the wall clock). The world is anchored there
    /// (unless [`SimConfig::anchor`] says otherwise), `period` windows end there, and the
    /// clock stands still until [`Simulator::advance`] moves it: acknowledgements run out,
    /// nonces go stale ([`SimConfig::nonce_lifetime`]) and rate-limit tokens come back only
    /// then. So a test's expectations do not depend on the hour it runs at or on how loaded
    /// the machine is. Answers carry it in their `Date` header, which clients use as the
    /// server's clock.
    pub now: Option<DateTime<Utc>>,
    /// Upper bound of the rendered-body cache, in bytes (0 disables it).
    pub cache_bytes: usize,
    /// Whether to keep the request log (on by default).
    pub log_requests: bool,
    /// Serve HTTPS with a certificate generated at start (`None`, the default: plain HTTP).
    /// [`Simulator::ca_file`] is then the file a client passes as `ca_file`.
    pub tls: Option<SimTls>,
    /// How long a stop waits for the requests in flight to be answered (1 s by default);
    /// idle keep-alive connections are closed at once.
    pub shutdown_grace: Duration,
    /// Requests per second per project (`None`, the default: no limit). Past it, a request
    /// is answered 429 `RATE_LIMITED` with `Retry-After`; each project's bucket holds one
    /// second's worth of requests. Requests outside a project (`/globalAlerts`, the access
    /// list) are not limited.
    pub rate_limit: Option<f64>,
    /// How long measurements are kept at each granularity ([`Retention::unlimited`], the
    /// default: every window is served; [`Retention::ops_manager`]: as Ops Manager keeps them).
    /// Points older than that are left out of answers, as the service leaves them out.
    pub retention: Retention,
    /// The server the world is served as (Ops Manager by default): Cloud Manager, or Atlas
    /// with its paths, processes, versioned media types, service accounts and token buckets
    /// (see `server/atlas.rs`). The world is the same whatever the flavour.
    pub flavour: crate::Flavour,
    /// Atlas: how long an access token lives (`expires_in`; 3600 s).
    pub token_lifetime: Duration,
    /// Atlas: the token endpoint's own bucket (10 requests, refilled at 10 a minute; `None`:
    /// no limit).
    pub token_endpoint_limit: Option<TokenBucket>,
    /// Atlas: the token buckets of endpoint sets, each per project (none by default;
    /// [`TokenBucket::documented`] gives Atlas's).
    pub token_buckets: Vec<(crate::EndpointSet, TokenBucket)>,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            // Three projects: the third holds the first sharded cluster of two shards (at 5
            // hosts a project, the second's is cut after one), which a capacity finding
            // needs (world/findings.rs).
            projects: 3,
            hosts_per_project: 5,
            global_alerts: 60,
            nonce_lifetime: Duration::from_secs(300),
            faults: Faults::default(),
            worker_threads: 1,
            port: 0,
            bind: std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
            anchor: None,
            now: None,
            cache_bytes: 512 << 20,
            log_requests: true,
            tls: None,
            shutdown_grace: Duration::from_secs(1),
            rate_limit: None,
            retention: Retention::unlimited(),
            flavour: crate::Flavour::OpsManager,
            token_lifetime: Duration::from_secs(3600),
            token_endpoint_limit: Some(TokenBucket {
                capacity: 10,
                per_minute: 10.0,
            }),
            token_buckets: Vec::new(),
        }
    }
}

/// One request as the simulator saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRecord {
    /// HTTP method.
    pub method: String,
    /// Raw path, percent-encoding kept.
    pub path: String,
    /// Raw query string, if any.
    pub query: Option<String>,
    /// Request body.
    pub body: Vec<u8>,
    /// Status answered (0 when the connection was reset without an answer).
    pub status: u16,
    /// Whether the request carried an `Authorization` header.
    pub signed: bool,
    /// Whether the Digest signature was accepted.
    pub authorized: bool,
    /// The faults that struck it ([`Fault::label`], or `rate_429`, `rate_reset`, ... for a
    /// standing rate), in the order they struck.
    pub faults: Vec<String>,
    /// When it arrived, after the simulator started, by the machine's monotonic clock (not
    /// [`SimConfig::now`]'s): the gaps between a call's attempts show the waits it honoured.
    pub arrived: Duration,
    /// Its `Accept` header (Atlas's versioned media type names the version asked for).
    pub accept: Option<String>,
    /// Its `Content-Type` header.
    pub content_type: Option<String>,
    /// The scheme of its `Authorization` header: `Digest`, `Bearer` or `Basic`.
    pub auth: Option<String>,
}

/// The seeded disk growth of one partition: the truth a capacity forecast should find.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionTruth {
    /// Project.
    pub group_id: String,
    /// Host.
    pub host_id: String,
    /// `hostname:port`.
    pub process_id: String,
    /// Partition name.
    pub partition_name: String,
    /// Capacity.
    pub capacity_bytes: u64,
    /// Linear growth (0 for flat disks).
    pub growth_bytes_per_day: f64,
    /// Used bytes at `anchor`.
    pub used_bytes_at_anchor: f64,
    /// Noise amplitude around the trend in the served series.
    pub noise_bytes: f64,
    /// The growth class.
    pub growth: Growth,
    /// Reference instant.
    pub anchor: DateTime<Utc>,
}

impl PartitionTruth {
    /// Trend of the used space at `t` (without noise), clamped to `[1 %, 100 %]` of the disk.
    pub fn used_bytes_at(&self, t: DateTime<Utc>) -> f64 {
        let cap = self.capacity_bytes as f64;
        let days = (t - self.anchor).num_milliseconds() as f64 / 86_400_000.0;
        (self.used_bytes_at_anchor + self.growth_bytes_per_day * days).clamp(cap * 0.01, cap)
    }

    /// When the trend reaches the capacity, if it grows.
    pub fn full_at(&self) -> Option<DateTime<Utc>> {
        if self.growth_bytes_per_day <= 0.0 {
            return None;
        }
        let days =
            (self.capacity_bytes as f64 - self.used_bytes_at_anchor) / self.growth_bytes_per_day;
        Some(self.anchor + TimeDelta::milliseconds((days * 86_400_000.0) as i64))
    }
}

/// The seeded size and growth of one database: the truth a per-database analysis should find.
#[derive(Debug, Clone, PartialEq)]
pub struct DatabaseTruth {
    /// Project.
    pub group_id: String,
    /// Host.
    pub host_id: String,
    /// `hostname:port`.
    pub process_id: String,
    /// Database name.
    pub database_name: String,
    /// The partition its files live on (`data`).
    pub partition_name: String,
    /// `DATABASE_STORAGE_SIZE + DATABASE_INDEX_SIZE` at `anchor`.
    pub size_bytes_at_anchor: f64,
    /// Growth of that sum, bytes per day.
    pub growth_bytes_per_day: f64,
    /// Its share of the partition's growth (0 when the partition does not grow).
    pub share_of_disk_growth: f64,
    /// Whether it is the one database driving most of its disk's growth.
    pub drives_growth: bool,
    /// Reference instant.
    pub anchor: DateTime<Utc>,
}

/// The API keys of a simulator.
#[derive(Clone)]
pub(crate) struct Keys {
    pub owner_public: String,
    pub owner_private: String,
    pub ro_public: String,
    pub ro_private: String,
    pub ro_group: String,
    /// The service account (Atlas).
    pub client_id: String,
    pub client_secret: String,
}

/// A running simulator. Dropping it shuts the server down (bounded wait).
pub struct Simulator {
    shared: Arc<server::Shared>,
    base_url: String,
    control: Mutex<Control>,
    /// The certificates, and the directory of the PEM files (removed after `Drop` has
    /// stopped the server).
    tls: Option<tls::Tls>,
}

/// What it takes to stop the server thread.
struct Control {
    stop: Option<tokio::sync::watch::Sender<bool>>,
    done: Option<mpsc::Receiver<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator")
            .field("base_url", &self.base_url)
            .field("flavour", &self.shared.config.flavour)
            .field("public_key", &self.shared.keys.owner_public)
            .field("read_only_public_key", &self.shared.keys.ro_public)
            .finish_non_exhaustive()
    }
}

impl Simulator {
    /// Seeds the world, binds the port and serves on a thread of its own with its own tokio
    /// runtime. Returns once the socket is listening.
    pub fn start(config: SimConfig) -> std::io::Result<Simulator> {
        let listener = std::net::TcpListener::bind((config.bind, config.port))?;
        Self::start_on(listener, config)
    }

    /// [`Simulator::start`] on a socket the caller already listens on ([`SimConfig::port`]
    /// and [`SimConfig::bind`] are then not used): a test that kept a port bound, so that
    /// nothing else could take it, hands it over without ever letting it go.
    ///
    /// ```
    /// use opsapi::sim::{SimConfig, Simulator};
    ///
    /// let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// let port = listener.local_addr().unwrap().port();
    /// let sim = Simulator::start_on(listener, SimConfig::default()).unwrap();
    /// assert_eq!(sim.base_url(), format!("http://127.0.0.1:{port}"));
    /// ```
    pub fn start_on(
        listener: std::net::TcpListener,
        config: SimConfig,
    ) -> std::io::Result<Simulator> {
        let anchor = config.anchor.or(config.now).unwrap_or_else(|| {
            Utc::now()
                .duration_trunc(TimeDelta::days(1))
                .unwrap_or_else(|_| Utc::now())
        });
        let clock = clock::Clock::new(config.now);
        let world = world::generate(
            config.seed,
            config.projects,
            config.hosts_per_project,
            config.global_alerts,
            anchor,
        );
        let mut r = rng::SplitMix64::new(config.seed ^ 0x6b65_7973);
        // The service account from a stream of its own: the API keys stay as they were.
        let mut sa = rng::SplitMix64::new(config.seed ^ 0x7361_5f6b_6579);
        let keys = Keys {
            owner_public: r.letters(8),
            owner_private: r.uuid(),
            ro_public: r.letters(8),
            ro_private: r.uuid(),
            ro_group: world
                .projects
                .first()
                .map(|p| p.id.clone())
                .unwrap_or_default(),
            client_id: format!(
                "mdb_sa_id_{:016x}{:08x}",
                sa.next_u64(),
                sa.next_u64() >> 32
            ),
            client_secret: format!("mdb_sa_sk_{}", sa.letters(40)),
        };
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let tls = config
            .tls
            .map(|mode| tls::setup(mode, addr.ip()))
            .transpose()?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        let base_url = match addr {
            std::net::SocketAddr::V6(a) => format!("{scheme}://[{}]:{}", a.ip(), a.port()),
            std::net::SocketAddr::V4(a) => format!("{scheme}://{}:{}", a.ip(), a.port()),
        };
        let acceptor = tls.as_ref().map(|t| t.acceptor.clone());
        let rt = if config.worker_threads <= 1 {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?
        } else {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(config.worker_threads)
                .thread_name("opsapi-sim")
                .enable_all()
                .build()?
        };
        let shared = Arc::new(server::Shared::new(
            config,
            world,
            keys,
            base_url.clone(),
            clock,
        )?);
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let (done_tx, done_rx) = mpsc::channel();
        let s2 = shared.clone();
        let thread = std::thread::Builder::new()
            .name("opsapi-sim".into())
            .spawn(move || {
                let served = rt.block_on(async move {
                    let listener = tokio::net::TcpListener::from_std(listener)?;
                    server::serve(listener, s2, acceptor, stop_rx).await;
                    Ok::<(), std::io::Error>(())
                });
                drop(served);
                rt.shutdown_timeout(Duration::from_millis(500));
                let _ = done_tx.send(());
            })?;
        Ok(Simulator {
            shared,
            base_url,
            control: Mutex::new(Control {
                stop: Some(stop_tx),
                done: Some(done_rx),
                thread: Some(thread),
            }),
            tls,
        })
    }

    /// `http://127.0.0.1:PORT`, or `https://...` with [`SimConfig::tls`] (without the
    /// `/api/public/v1.0` prefix).
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// With [`SimConfig::tls`], the PEM file a client trusts the server with (its `ca_file`):
    /// the internal CA's certificate, or the server's own self-signed one. It lives in a
    /// temporary directory of the simulator's, removed when the simulator is dropped.
    ///
    /// ```no_run
    /// use opsapi::sim::{SimConfig, SimTls, Simulator};
    ///
    /// let sim = Simulator::start(SimConfig { tls: Some(SimTls::InternalCa), ..SimConfig::default() })
    ///     .unwrap();
    /// assert!(sim.base_url().starts_with("https://"));
    /// let client = opsapi::Client::builder(sim.base_url())
    ///     .credentials(sim.public_key(), sim.private_key())
    ///     .ca_file(sim.ca_file().unwrap())
    ///     .build()
    ///     .unwrap();
    /// ```
    pub fn ca_file(&self) -> Option<&std::path::Path> {
        self.tls.as_ref().map(|t| t.ca_file())
    }

    /// The Global Owner key's public half (the Digest user name).
    pub fn public_key(&self) -> &str {
        &self.shared.keys.owner_public
    }

    /// The Global Owner key's private half (the Digest password).
    pub fn private_key(&self) -> &str {
        &self.shared.keys.owner_private
    }

    /// The Project Read Only key's public half (GETs in the first project only).
    pub fn read_only_public_key(&self) -> &str {
        &self.shared.keys.ro_public
    }

    /// The Project Read Only key's private half.
    pub fn read_only_private_key(&self) -> &str {
        &self.shared.keys.ro_private
    }

    /// The seeded projects' identifiers, in order.
    pub fn group_ids(&self) -> Vec<String> {
        self.shared
            .world_read()
            .projects
            .iter()
            .map(|p| p.id.clone())
            .collect()
    }

    /// The request log, in arrival order.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(_, r)| r.clone())
            .collect()
    }

    /// Empties the request log.
    pub fn clear_requests(&self) {
        self.shared
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Sets the per-project request limit ([`SimConfig::rate_limit`]); buckets start full.
    ///
    /// ```
    /// let sim = opsapi::sim::Simulator::start(Default::default()).unwrap();
    /// sim.set_rate_limit(Some(20.0));
    /// assert_eq!(sim.rate_limit(), Some(20.0));
    /// ```
    pub fn set_rate_limit(&self, per_second: Option<f64>) {
        self.shared.limiter.set(per_second);
    }

    /// The per-project request limit, if any.
    pub fn rate_limit(&self) -> Option<f64> {
        self.shared.limiter.rate()
    }

    /// Replaces the standing faults.
    pub fn set_faults(&self, faults: Faults) {
        *self.shared.faults.lock().unwrap_or_else(|e| e.into_inner()) = faults;
    }

    /// The standing faults.
    pub fn faults(&self) -> Faults {
        self.shared
            .faults
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Changes how long nonces stay valid, for nonces already issued too (a short lifetime
    /// makes every client re-challenge often: "nonces that expire fast").
    pub fn set_nonce_lifetime(&self, lifetime: Duration) {
        let ms = u64::try_from(lifetime.as_millis()).unwrap_or(u64::MAX);
        self.shared
            .nonce_lifetime_ms
            .store(ms, std::sync::atomic::Ordering::Relaxed);
    }

    /// Queues `count` copies of a one-shot fault: each strikes the next request it applies to
    /// (see [`Fault`]). Queue many of a kind for a fault on every request ("endless 401s").
    ///
    /// Any request it applies to takes it, a request of an earlier call still in flight
    /// included: where that matters, aim it ([`Simulator::inject_at`]).
    pub fn inject(&self, fault: Fault, count: usize) {
        self.inject_at(Aim::new(), fault, count);
    }

    /// Queues `count` copies of a one-shot fault for the requests `aim` matches only: the
    /// first strikes the `aim.nth`-th of them, the others the ones after it.
    pub fn inject_at(&self, aim: Aim, fault: Fault, count: usize) {
        self.shared.queue.push(aim, fault, count);
    }

    /// Keeps the next request `aim` matches waiting on arrival (in the log, not yet handled)
    /// until the returned [`Hold`] is released or dropped: explicit order between requests,
    /// where a sleep would only make one likely.
    pub fn hold(&self, aim: Aim) -> Hold {
        self.shared.holds.add(aim)
    }

    /// The simulator's time: [`SimConfig::now`] plus what [`Simulator::advance`] added, or
    /// the wall clock plus that.
    pub fn now(&self) -> DateTime<Utc> {
        self.shared.clock.now()
    }

    /// Moves the simulator's clock forward: acknowledgements that end before the new time
    /// have run out, nonces older than their lifetime are stale, rate-limit buckets refill.
    pub fn advance(&self, by: Duration) {
        self.shared.clock.advance(by);
    }

    /// Sets how far the `Date` header of every answer is off the simulator's clock (zero:
    /// not at all): a server whose clock is wrong while its data are not, as a misconfigured
    /// host or proxy answers. Windows and data still follow [`Simulator::now`].
    ///
    /// ```
    /// use chrono::TimeDelta;
    /// let sim = opsapi::sim::Simulator::start(opsapi::sim::SimConfig::default()).unwrap();
    /// sim.set_date_skew(TimeDelta::days(365));
    /// sim.set_date_skew(TimeDelta::zero());
    /// ```
    pub fn set_date_skew(&self, skew: chrono::TimeDelta) {
        self.shared.clock.set_date_skew(skew);
    }

    /// The one-shot faults still queued, oldest first.
    pub fn injected(&self) -> Vec<Fault> {
        self.shared.queue.faults()
    }

    /// TCP connections accepted so far (a TLS handshake that fails still counts one; it
    /// leaves no request in the log).
    pub fn connections(&self) -> u64 {
        self.shared
            .connections
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Drops every queued one-shot fault.
    pub fn clear_injected(&self) {
        self.shared.queue.clear();
    }

    /// A snapshot of the world as it is now (acknowledgements that have expired removed,
    /// deleted access-list entries gone).
    pub fn world(&self) -> World {
        let mut w = self.shared.world_read().clone();
        let now = self.shared.clock.now();
        for a in w.alerts.iter_mut().chain(w.alert_history.iter_mut()) {
            a.expire_ack(now);
        }
        w
    }

    /// What the seeded alert history holds: the flapping configuration, the noisy host, the
    /// open disk alerts, the replica-set alerts and when each history alert was acknowledged
    /// (see [`AlertTruth`]).
    ///
    /// ```
    /// let sim = opsapi::sim::Simulator::start(Default::default()).unwrap();
    /// let truth = sim.alert_truth();
    /// let flapping = truth.flapping.unwrap();
    /// assert_eq!((flapping.metric_name.as_str(), flapping.episodes), ("CONNECTIONS", 16));
    /// ```
    pub fn alert_truth(&self) -> AlertTruth {
        self.shared.world_read().alert_truth.clone()
    }

    /// The hosts the simulator's flavour serves: on Atlas, none of the world's standalones
    /// (Atlas has no standalone processes).
    fn served_hosts<'w>(&self, w: &'w World) -> impl Iterator<Item = &'w world::Host> + use<'w> {
        let atlas = self.flavour() == crate::Flavour::Atlas;
        w.hosts
            .iter()
            .filter(move |h| !atlas || h.type_name != "STANDALONE")
    }

    /// The seeded size and growth of every database (of every mongod the flavour serves), in
    /// host order.
    /// On each host the databases add up to the `data` partition's used-space trend minus a
    /// constant overhead; the served disk series adds its noise (`noise_bytes`) on top.
    pub fn database_truth(&self) -> Vec<DatabaseTruth> {
        let w = self.shared.world_read();
        let anchor = w.anchor;
        self.served_hosts(&w)
            .flat_map(|h| {
                let disk_growth = h.partitions[0].growth_bytes_per_day;
                h.databases.iter().map(move |d| DatabaseTruth {
                    group_id: h.group_id.clone(),
                    host_id: h.id.clone(),
                    process_id: h.process_id(),
                    database_name: d.name.clone(),
                    partition_name: h.partitions[0].name.clone(),
                    size_bytes_at_anchor: d.size_at_anchor,
                    growth_bytes_per_day: d.growth_bytes_per_day,
                    share_of_disk_growth: if disk_growth > 0.0 {
                        d.growth_bytes_per_day / disk_growth
                    } else {
                        0.0
                    },
                    drives_growth: d.drives_growth,
                    anchor,
                })
            })
            .collect()
    }

    /// The seeded disk growth of every partition (of every host the flavour serves).
    pub fn partition_truth(&self) -> Vec<PartitionTruth> {
        let w = self.shared.world_read();
        let anchor = w.anchor;
        self.served_hosts(&w)
            .flat_map(|h| {
                h.partitions.iter().map(move |p| PartitionTruth {
                    group_id: h.group_id.clone(),
                    host_id: h.id.clone(),
                    process_id: h.process_id(),
                    partition_name: p.name.clone(),
                    capacity_bytes: p.capacity_bytes,
                    growth_bytes_per_day: p.growth_bytes_per_day,
                    used_bytes_at_anchor: p.used_bytes_at_anchor,
                    noise_bytes: p.noise_bytes,
                    growth: p.growth,
                    anchor,
                })
            })
            .collect()
    }

    /// Stops the server and waits (boundedly) for its thread.
    pub fn shutdown(self) {
        self.stop();
    }

    /// Stops the server through a shared reference (idempotent; what `Drop` does).
    ///
    /// Requests in flight get [`SimConfig::shutdown_grace`] to be answered; the wait is
    /// bounded (that grace and 4 s more at most).
    pub fn stop(&self) {
        let mut c = self.control.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(stop) = c.stop.take() {
            let _ = stop.send(true);
        }
        if let Some(done) = c.done.take() {
            let bound = self.shared.config.shutdown_grace + Duration::from_secs(4);
            if done.recv_timeout(bound).is_ok() {
                if let Some(t) = c.thread.take() {
                    let _ = t.join();
                }
            }
        }
    }

    /// Whether the server is still running.
    pub fn is_running(&self) -> bool {
        self.control
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .stop
            .is_some()
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn handle_types_are_send_and_sync() {
        send_sync::<Simulator>();
        send_sync::<SimConfig>();
        send_sync::<World>();
        send_sync::<RequestRecord>();
        send_sync::<PartitionTruth>();
    }

    #[test]
    fn same_seed_same_world_and_keys() {
        let anchor = chrono::TimeZone::with_ymd_and_hms(&Utc, 2024, 1, 1, 0, 0, 0).single();
        let cfg = |seed| SimConfig {
            seed,
            anchor,
            ..SimConfig::default()
        };
        let a = Simulator::start(cfg(11)).unwrap();
        let b = Simulator::start(cfg(11)).unwrap();
        assert_eq!(a.world(), b.world());
        assert_eq!(a.private_key(), b.private_key());
        assert_eq!(a.partition_truth(), b.partition_truth());
        a.stop();
        assert!(!a.is_running());
        a.stop();
        let w = b.world();
        assert_eq!(w.projects.len(), 3);
        assert_eq!(w.hosts.len(), 15);
        assert!(w
            .hosts
            .iter()
            .all(|h| (1..=3).contains(&h.partitions.len())));
        assert!(w.hosts.iter().any(|h| h.type_name == "SHARD_MONGOS"));
        assert!(w.hosts.iter().any(|h| h.shard_name.is_some()));
        assert_eq!(w.alerts.len(), 60);
        let dbg = format!("{b:?}");
        assert!(!dbg.contains(b.private_key()) && !dbg.contains(b.read_only_private_key()));
    }
}
