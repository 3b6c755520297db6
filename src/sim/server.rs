//! The HTTP side: connections, the shared state, fault injection at the edges, and the request
//! pipeline. Digest is in `server/auth.rs`, routing and authorization in `server/routes.rs`,
//! the answer shapes and errors in `server/render.rs`, and one handler file per resource in
//! `server/handlers/`.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::header::HeaderValue;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use percent_encoding::{percent_decode_str, utf8_percent_encode};
use serde_json::{json, Map, Value};

use super::aim::{Arrival, FaultQueue, Holds};
use super::clock::Clock;
use super::faults::{
    fault_status, front_reply, garble, html_page, invalid_utf8, Abort, Shape, SimBody, Stage,
};
use super::fmt::{iso, parse_duration, parse_time, push_str};
use super::metrics::{
    render_measurements, Face, MetricDef, Source, DATABASE_METRICS, DISK_METRICS, HOST_METRICS,
};
pub(crate) use super::reply::{err, Reply};
use super::rng::SplitMix64;
use super::world::{AccessListEntry, Alert, Host, World};
use super::{Fault, Faults, Keys, RequestRecord, SimConfig};

mod atlas;
mod auth;
mod exchanges;
mod handlers;
mod query;
mod render;
mod routes;

pub(crate) use auth::*;
use handlers::*;
pub(crate) use query::*;
pub(crate) use render::*;
use routes::*;

const REALM: &str = "MMS Public API";
const GIT_HASH: &str = "5f0c3a7e9b1d2c4f6a8e0b2d4c6f8a1b3d5e7f90";
const VERSION: &str = "opsapi-sim-1.0";
const MAX_BODY: usize = 1 << 20;
/// Upper bound of points (series x timestamps) in one measurements response (~100 MB).
const MAX_POINTS: i64 = 2_000_000;

// Links encode path segments as the client does.
use crate::request::SEGMENT;

struct ListEntry {
    generation: u64,
    valid_until: Option<DateTime<Utc>>,
    body: Bytes,
}

struct NonceState {
    /// [`Clock::elapsed`] when it was issued.
    issued: std::time::Duration,
    used: HashSet<u32>,
}

#[derive(Default)]
struct Cache {
    map: HashMap<String, Bytes>,
    order: VecDeque<String>,
    bytes: usize,
}

/// State shared by the server and the [`super::Simulator`] handle.
pub(crate) struct Shared {
    pub config: SimConfig,
    pub keys: Keys,
    pub base_url: String,
    pub world: RwLock<World>,
    /// The world's anchor (immutable; kept here so that renderers never re-lock the world).
    pub anchor: DateTime<Utc>,
    pub faults: Mutex<Faults>,
    pub queue: FaultQueue,
    /// Requests to keep waiting until a test releases them.
    pub holds: Holds,
    /// The simulator's time ([`SimConfig::now`]).
    pub clock: Clock,
    /// The per-project request limit.
    pub limiter: super::limit::RateLimiter,
    /// Atlas's access tokens and token buckets.
    atlas: atlas::AtlasState,
    /// The request log in arrival order, each record with its sequence number.
    pub log: Mutex<Vec<(u64, RequestRecord)>>,
    /// Atlas, with `OPSAPI_SIM_EXCHANGES` set: where every exchange is recorded for the spec
    /// check (`server/exchanges.rs`).
    exchanges: Option<exchanges::Recorder>,
    log_seq: AtomicU64,
    /// TCP connections accepted.
    pub connections: AtomicU64,
    /// Nonce lifetime in milliseconds (switchable at runtime).
    pub nonce_lifetime_ms: AtomicU64,
    nonces: Mutex<HashMap<String, NonceState>>,
    cache: Mutex<Cache>,
    /// Rendered alert-list pages: (world generation, valid until, body).
    list_cache: Mutex<HashMap<String, ListEntry>>,
    /// Bumped by every change to the world (PATCH, DELETE).
    generation: AtomicU64,
    rng: Mutex<SplitMix64>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub fn new(
        config: SimConfig,
        world: World,
        keys: Keys,
        base_url: String,
        clock: Clock,
    ) -> std::io::Result<Self> {
        let seed = config.seed
            ^ std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
        Ok(Self {
            exchanges: exchanges::Recorder::from_env(config.flavour)?,
            faults: Mutex::new(config.faults.clone()),
            limiter: super::limit::RateLimiter::new(config.rate_limit),
            atlas: Default::default(),
            keys,
            base_url,
            anchor: world.anchor,
            world: RwLock::new(world),
            queue: FaultQueue::default(),
            holds: Holds::default(),
            clock,
            log: Mutex::new(Vec::new()),
            log_seq: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            nonce_lifetime_ms: AtomicU64::new(
                u64::try_from(config.nonce_lifetime.as_millis()).unwrap_or(u64::MAX),
            ),
            nonces: Mutex::new(HashMap::new()),
            cache: Mutex::new(Cache::default()),
            list_cache: Mutex::new(HashMap::new()),
            generation: AtomicU64::new(0),
            rng: Mutex::new(SplitMix64::new(seed)),
            config,
        })
    }

    pub fn world_read(&self) -> RwLockReadGuard<'_, World> {
        self.world.read().unwrap_or_else(|e| e.into_inner())
    }

    pub fn nonce_lifetime(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.nonce_lifetime_ms.load(Ordering::Relaxed))
    }

    fn roll(&self, p: f64) -> bool {
        p > 0.0 && lock(&self.rng).f64() < p
    }

    fn new_nonce(&self) -> String {
        let mut r = lock(&self.rng);
        let nonce = format!("{:016x}{:016x}", r.next_u64(), r.next_u64());
        drop(r);
        let mut nonces = lock(&self.nonces);
        if nonces.len() > 10_000 {
            let keep = self.nonce_lifetime() + std::time::Duration::from_secs(600);
            let now = self.clock.elapsed();
            nonces.retain(|_, s| now.saturating_sub(s.issued) < keep);
        }
        nonces.insert(
            nonce.clone(),
            NonceState {
                issued: self.clock.elapsed(),
                used: HashSet::new(),
            },
        );
        nonce
    }

    /// Takes the first queued fault that `pred` accepts and that is aimed at `req`.
    fn take_fault(&self, req: &Arrival<'_>, pred: impl Fn(&Fault) -> bool) -> Option<Fault> {
        self.queue.take(req, pred)
    }
}

/// Accepts connections until `stop` turns true; with `tls`, each one after its handshake.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    shared: Arc<Shared>,
    tls: Option<tokio_rustls::TlsAcceptor>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            r = listener.accept() => {
                let Ok((stream, _)) = r else {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    continue;
                };
                let _ = stream.set_nodelay(true);
                shared.connections.fetch_add(1, Ordering::Relaxed);
                let shared = shared.clone();
                let mut stop = stop.clone();
                let tls = tls.clone();
                connections.spawn(async move {
                    match tls {
                        None => serve_connection(stream, shared, stop).await,
                        Some(acceptor) => {
                            // A client that refuses the certificate ends the handshake
                            // here; one that never finishes it is dropped at `stop`.
                            let handshake = tokio::select! {
                                r = acceptor.accept(stream) => r,
                                _ = stop.changed() => return,
                            };
                            if let Ok(stream) = handshake {
                                serve_connection(stream, shared, stop).await;
                            }
                        }
                    }
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            _ = stop.changed() => break,
        }
    }
    drop(listener);
    // Graceful, but bounded: whatever is still running after the grace is dropped.
    let drain = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(shared.config.shutdown_grace, drain)
        .await
        .is_err()
    {
        connections.abort_all();
    }
}

/// Serves HTTP/1.1 on one connection, plain or TLS, until it closes or `stop` turns true.
async fn serve_connection<S>(
    stream: S,
    shared: Arc<Shared>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let svc = hyper::service::service_fn(move |req| {
        let shared = shared.clone();
        async move { handle(shared, req).await }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), svc);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = stop.changed() => {
            // Idle keep-alive connections close now; a request in flight gets its answer
            // first.
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        }
    }
}

async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Result<Response<SimBody>, Abort> {
    let method = req.method().as_str().to_string();
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    let target = req
        .uri()
        .path_and_query()
        .map(|pq| pq.as_str().to_string())
        .unwrap_or_else(|| path.clone());
    let header = |name| {
        req.headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_string)
    };
    let authz = header(hyper::header::AUTHORIZATION);
    let accept = header(hyper::header::ACCEPT);
    let content_type = header(hyper::header::CONTENT_TYPE);
    let body = match http_body_util::Limited::new(req.into_body(), MAX_BODY)
        .collect()
        .await
    {
        Ok(c) => c.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let mut record = RequestRecord {
        method: method.clone(),
        path: path.clone(),
        query: query.clone(),
        body: body.to_vec(),
        status: 0,
        signed: authz.is_some(),
        authorized: false,
        faults: Vec::new(),
        arrived: shared.clock.real_elapsed(),
        accept: accept.clone(),
        content_type,
        auth: authz
            .as_deref()
            .and_then(|a| a.split_whitespace().next())
            .map(str::to_string),
    };
    // The record takes its place in the log on arrival and gets its status at the end.
    let seq = shared.log_seq.fetch_add(1, Ordering::Relaxed);
    if shared.config.log_requests {
        lock(&shared.log).push((seq, record.clone()));
    }
    let log = |record: &RequestRecord| {
        if shared.config.log_requests {
            let mut log = lock(&shared.log);
            if let Some(slot) = log.iter_mut().rev().find(|(s, _)| *s == seq) {
                slot.1 = record.clone();
            }
        }
    };
    // The exchange, for the spec check (Atlas, with OPSAPI_SIM_EXCHANGES set).
    let exchange = |record: &RequestRecord, answer: Option<&Reply>| {
        if let Some(recorder) = &shared.exchanges {
            recorder.record(record, answer, shared.clock.now());
        }
    };
    let arrival = Arrival {
        method: &method,
        path: &path,
        query: query.as_deref(),
    };
    if let Some(hold) = shared.holds.take(&arrival) {
        hold.wait().await;
    }
    let faults = lock(&shared.faults).clone();
    if !faults.latency.is_zero() {
        tokio::time::sleep(faults.latency).await;
    }

    // In front of the API: any request, before its signature is checked.
    let front = shared.take_fault(&arrival, |f| f.stage() == Stage::Front);
    let reset = match &front {
        Some(f) => {
            record.faults.push(f.label());
            *f == Fault::Reset
        }
        None => {
            let reset = shared.roll(faults.rate_reset);
            if reset {
                record.faults.push("rate_reset".into());
            }
            reset
        }
    };
    if reset {
        log(&record);
        exchange(&record, None);
        return Err(Abort);
    }
    let mut reply = if let Some(Fault::Challenge { stale }) = front {
        challenge(&shared, stale)
    } else if let Some(reply) = front.and_then(|f| front_reply(&f)) {
        reply
    } else if authz.is_some()
        && shared
            .take_fault(&arrival, |f| *f == Fault::StaleNonce)
            .is_some()
    {
        record.faults.push(Fault::StaleNonce.label());
        challenge(&shared, true)
    } else if atlas::is_token_endpoint(&shared, &path) {
        let (authorized, reply) = atlas::token_endpoint(&shared, &method, authz.as_deref(), &body);
        record.authorized = authorized;
        reply
    } else {
        match verify(&shared, &method, &target, authz.as_deref()) {
            Auth::Challenge { stale } => challenge(&shared, stale),
            Auth::Ok(role, user) => {
                record.authorized = true;
                let request = Handled {
                    role,
                    user: &user,
                    method: &method,
                    path: &path,
                    query: query.as_deref(),
                    body: &body,
                    accept: accept.as_deref(),
                };
                authorized(&shared, &faults, &request, &mut record.faults)
            }
        }
    };

    // After the handler: the request was applied.
    let mut stall = None;
    if record.authorized {
        if let Some(f) = shared.take_fault(&arrival, |f| f.stage() == Stage::After) {
            record.faults.push(f.label());
            match f {
                Fault::ResetAfterApplied => {
                    log(&record);
                    exchange(&record, None);
                    return Err(Abort);
                }
                Fault::StatusAfterApplied {
                    status,
                    retry_after,
                } => reply = fault_status(&path, status, retry_after),
                Fault::HtmlPageAfterApplied { status } => reply = html_page(status),
                Fault::StallHeaders(d) => stall = Some(d),
                _ => {}
            }
        }
    }
    // On the body of an answer that has one.
    let mut shape = Shape::Whole;
    if record.authorized && reply.status != 401 && !reply.body.is_empty() {
        if let Some(f) = shared.take_fault(&arrival, |f| f.stage() == Stage::Body) {
            record.faults.push(f.label());
            match f {
                Fault::Truncate => shape = Shape::Cut,
                Fault::GarbledJson => reply.body = garble(&reply.body),
                Fault::InvalidUtf8 => reply.body = invalid_utf8(&reply.body),
                Fault::StallBody(d) => shape = Shape::Stalled(d),
                Fault::Drip(d) => shape = Shape::Drip(d),
                Fault::Oversize(n) => shape = Shape::Oversize(n),
                Fault::EndlessBody => shape = Shape::Endless,
                _ => {}
            }
        } else if shared.roll(faults.rate_truncate) {
            record.faults.push("rate_truncate".into());
            shape = Shape::Cut;
        }
    }
    record.status = reply.status;
    log(&record);
    exchange(&record, Some(&reply));
    if let Some(d) = stall {
        tokio::time::sleep(d).await;
    }
    Ok(to_response(reply, shape, shared.clock.date()))
}

/// `now` as an HTTP date (IMF-fixdate): the `Date` header, from the simulator's clock (and
/// the skew a test set: `Simulator::set_date_skew`).
fn http_date(now: DateTime<Utc>) -> String {
    now.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn to_response(reply: Reply, shape: Shape, now: DateTime<Utc>) -> Response<SimBody> {
    let body = SimBody::new(reply.body, shape);
    let len = body.announced_len();
    let mut resp = Response::new(body);
    *resp.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&http_date(now)) {
        h.insert(hyper::header::DATE, v);
    }
    if reply.status != 204 {
        h.insert(
            hyper::header::CONTENT_TYPE,
            HeaderValue::from_static(reply.content_type),
        );
        if let Some(len) = len {
            h.insert(hyper::header::CONTENT_LENGTH, HeaderValue::from(len));
        }
    }
    if reply.version_header {
        let v = format!("gitHash={GIT_HASH}; versionString={VERSION}");
        if let Ok(v) = HeaderValue::from_str(&v) {
            h.insert("x-mongodb-service-version", v.clone());
            h.insert("x-vendor-service-version", v);
        }
    }
    for (name, value) in reply.headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.append(name, v);
        }
    }
    resp
}
