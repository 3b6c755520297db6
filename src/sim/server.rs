//! The HTTP side: connections, Digest verification, faults, routing and the handlers.

use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future as _;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http_body_util::BodyExt;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::header::HeaderValue;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::{json, Map, Value};

use super::fmt::{iso, parse_duration, parse_time, push_str};
use super::metrics::{render_measurements, MetricDef, Source, DISK_METRICS, HOST_METRICS};
use super::rng::SplitMix64;
use super::world::{Alert, Host, World};
use super::{Fault, FaultQueue, Faults, Keys, RequestRecord, SimConfig};

const PREFIX: &str = "/api/public/v1.0";
const REALM: &str = "MMS Public API";
const GIT_HASH: &str = "5f0c3a7e9b1d2c4f6a8e0b2d4c6f8a1b3d5e7f90";
const VERSION: &str = "opsapi-sim-1.0";
const MAX_BODY: usize = 1 << 20;
/// Upper bound of points (series x timestamps) in one measurements response (~100 MB).
const MAX_POINTS: i64 = 2_000_000;

/// Segment encoding for links (everything but unreserved characters).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

struct ListEntry {
    generation: u64,
    valid_until: Option<DateTime<Utc>>,
    body: Bytes,
}

struct NonceState {
    issued: Instant,
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
    /// The request log in arrival order, each record with its sequence number.
    pub log: Mutex<Vec<(u64, RequestRecord)>>,
    log_seq: AtomicU64,
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
    pub fn new(config: SimConfig, world: World, keys: Keys, base_url: String) -> Self {
        let seed = config.seed
            ^ std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0);
        Self {
            faults: Mutex::new(config.faults.clone()),
            keys,
            base_url,
            anchor: world.anchor,
            world: RwLock::new(world),
            queue: Mutex::new(VecDeque::new()),
            log: Mutex::new(Vec::new()),
            log_seq: AtomicU64::new(0),
            nonce_lifetime_ms: AtomicU64::new(
                u64::try_from(config.nonce_lifetime.as_millis()).unwrap_or(u64::MAX),
            ),
            nonces: Mutex::new(HashMap::new()),
            cache: Mutex::new(Cache::default()),
            list_cache: Mutex::new(HashMap::new()),
            generation: AtomicU64::new(0),
            rng: Mutex::new(SplitMix64::new(seed)),
            config,
        }
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
            nonces.retain(|_, s| s.issued.elapsed() < keep);
        }
        nonces.insert(
            nonce.clone(),
            NonceState {
                issued: Instant::now(),
                used: HashSet::new(),
            },
        );
        nonce
    }

    /// Takes the first queued fault that `pred` accepts.
    fn take_fault(&self, pred: impl Fn(&Fault) -> bool) -> Option<Fault> {
        let mut q = lock(&self.queue);
        let i = q.iter().position(pred)?;
        q.remove(i)
    }
}

/// The error that makes hyper drop a connection without answering.
#[derive(Debug)]
pub(crate) struct Abort;

impl std::fmt::Display for Abort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("connection aborted by fault injection")
    }
}

impl std::error::Error for Abort {}

/// A response body: whole, or cut after its first half (with the full length announced).
pub(crate) struct SimBody {
    data: Option<Bytes>,
    len: u64,
    truncated: bool,
    /// Lets the written half reach the client before the connection is dropped.
    delay: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl SimBody {
    fn full(b: Bytes) -> Self {
        Self {
            len: b.len() as u64,
            data: Some(b),
            truncated: false,
            delay: None,
        }
    }
}

impl hyper::body::Body for SimBody {
    type Data = Bytes;
    type Error = Abort;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Abort>>> {
        match self.data.take() {
            Some(b) if !b.is_empty() => Poll::Ready(Some(Ok(Frame::data(b)))),
            _ if self.truncated => {
                let delay = self.delay.get_or_insert_with(|| {
                    Box::pin(tokio::time::sleep(std::time::Duration::from_millis(20)))
                });
                if delay.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                self.truncated = false;
                Poll::Ready(Some(Err(Abort)))
            }
            _ => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        !self.truncated && self.data.as_ref().is_none_or(|b| b.is_empty())
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.len)
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
    // Graceful, but bounded: whatever is still running after a second is dropped.
    let drain = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(std::time::Duration::from_secs(1), drain)
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

/// A finished answer before it becomes an HTTP response.
struct Reply {
    status: u16,
    body: Bytes,
    content_type: &'static str,
    headers: Vec<(&'static str, String)>,
    version_header: bool,
}

impl Reply {
    fn json(status: u16, body: Vec<u8>) -> Self {
        Self {
            status,
            body: Bytes::from(body),
            content_type: "application/json",
            headers: Vec::new(),
            version_header: (200..300).contains(&status),
        }
    }
}

fn reason(status: u16) -> &'static str {
    StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Unknown")
}

/// The service's error body.
fn error_body(status: u16, code: &str, detail: &str, params: Vec<Value>) -> Vec<u8> {
    let v = json!({
        "detail": detail,
        "error": status,
        "errorCode": code,
        "parameters": params,
        "reason": reason(status),
    });
    serde_json::to_vec(&v).unwrap_or_default()
}

fn err(status: u16, code: &str, detail: impl AsRef<str>, params: Vec<Value>) -> Reply {
    Reply::json(status, error_body(status, code, detail.as_ref(), params))
}

fn challenge(shared: &Shared, stale: bool) -> Reply {
    let nonce = shared.new_nonce();
    let mut r = err(
        401,
        "UNAUTHORIZED",
        "You are not authorized for this resource.",
        vec![],
    );
    r.content_type = "application/json;charset=ISO-8859-1";
    r.headers.push((
        "www-authenticate",
        format!(
            "Digest realm=\"{REALM}\", domain=\"\", nonce=\"{nonce}\", algorithm=MD5, qop=\"auth\", stale={stale}"
        ),
    ));
    r
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Owner,
    ReadOnly,
}

enum Auth {
    Ok(Role, String),
    Challenge { stale: bool },
}

fn verify(shared: &Shared, method: &str, target: &str, header: Option<&str>) -> Auth {
    let Some(header) = header else {
        return Auth::Challenge { stale: false };
    };
    let (scheme, params) = crate::auth::parse_auth_params(header);
    if !scheme.eq_ignore_ascii_case("digest") {
        return Auth::Challenge { stale: false };
    }
    let p = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    let (Some(user), Some(realm), Some(nonce), Some(uri), Some(resp)) = (
        p("username"),
        p("realm"),
        p("nonce"),
        p("uri"),
        p("response"),
    ) else {
        return Auth::Challenge { stale: false };
    };
    let keys = &shared.keys;
    let (role, password) = if user == keys.owner_public {
        (Role::Owner, keys.owner_private.as_str())
    } else if user == keys.ro_public {
        (Role::ReadOnly, keys.ro_private.as_str())
    } else {
        return Auth::Challenge { stale: false };
    };
    if realm != REALM
        || uri != target
        || p("algorithm").is_some_and(|a| !a.eq_ignore_ascii_case("MD5"))
        || p("qop") != Some("auth")
    {
        return Auth::Challenge { stale: false };
    }
    let (Some(nc), Some(cnonce)) = (p("nc"), p("cnonce")) else {
        return Auth::Challenge { stale: false };
    };
    let Ok(nc_value) = u32::from_str_radix(nc, 16) else {
        return Auth::Challenge { stale: false };
    };
    let expected = crate::auth::digest_response(
        user,
        realm,
        password,
        method,
        uri,
        nonce,
        Some((nc, cnonce)),
    );
    if !expected.eq_ignore_ascii_case(resp) {
        return Auth::Challenge { stale: false };
    }
    let mut nonces = lock(&shared.nonces);
    match nonces.get_mut(nonce) {
        // Right credentials, but a nonce this server does not know (or no longer): stale.
        None => Auth::Challenge { stale: true },
        Some(s) if s.issued.elapsed() >= shared.nonce_lifetime() => Auth::Challenge { stale: true },
        Some(s) => {
            if s.used.insert(nc_value) {
                Auth::Ok(role, user.to_string())
            } else {
                // A replayed (nonce, nc) pair.
                Auth::Challenge { stale: false }
            }
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
    let authz = req
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
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
        authorized: false,
    };
    // The record takes its place in the log on arrival and gets its status at the end.
    let seq = shared.log_seq.fetch_add(1, Ordering::Relaxed);
    if shared.config.log_requests {
        lock(&shared.log).push((seq, record.clone()));
    }
    let log = |record: RequestRecord| {
        if shared.config.log_requests {
            let mut log = lock(&shared.log);
            if let Some(slot) = log.iter_mut().rev().find(|(s, _)| *s == seq) {
                slot.1 = record;
            }
        }
    };
    let faults = lock(&shared.faults).clone();
    if !faults.latency.is_zero() {
        tokio::time::sleep(faults.latency).await;
    }

    // Faults that act before authentication.
    if shared.take_fault(|f| matches!(f, Fault::Reset)).is_some() || shared.roll(faults.rate_reset)
    {
        log(record);
        return Err(Abort);
    }
    let reply = if authz.is_some()
        && shared
            .take_fault(|f| matches!(f, Fault::StaleNonce))
            .is_some()
    {
        challenge(&shared, true)
    } else {
        match verify(&shared, &method, &target, authz.as_deref()) {
            Auth::Challenge { stale } => challenge(&shared, stale),
            Auth::Ok(role, user) => {
                record.authorized = true;
                authorized(
                    &shared,
                    &faults,
                    role,
                    &user,
                    &method,
                    &path,
                    query.as_deref(),
                    &body,
                )
            }
        }
    };
    let truncate = reply.status != 401
        && !reply.body.is_empty()
        && record.authorized
        && (shared
            .take_fault(|f| matches!(f, Fault::Truncate))
            .is_some()
            || shared.roll(faults.rate_truncate));
    record.status = reply.status;
    log(record);
    Ok(to_response(reply, truncate))
}

fn to_response(reply: Reply, truncate: bool) -> Response<SimBody> {
    let len = reply.body.len();
    let body = if truncate {
        SimBody {
            data: Some(reply.body.slice(..len / 2)),
            len: len as u64,
            truncated: true,
            delay: None,
        }
    } else {
        SimBody::full(reply.body)
    };
    let mut resp = Response::new(body);
    *resp.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = resp.headers_mut();
    if reply.status != 204 {
        h.insert(
            hyper::header::CONTENT_TYPE,
            HeaderValue::from_static(reply.content_type),
        );
        h.insert(hyper::header::CONTENT_LENGTH, HeaderValue::from(len));
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

/// Query parameters, decoded, in order.
struct Query<'a> {
    raw: Option<&'a str>,
    pairs: Vec<(String, String)>,
}

impl<'a> Query<'a> {
    fn parse(raw: Option<&'a str>) -> Self {
        let pairs = raw
            .map(|q| {
                url::form_urlencoded::parse(q.as_bytes())
                    .map(|(k, v)| (k.into_owned(), v.into_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Self { raw, pairs }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn all(&self, name: &str) -> Vec<&str> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    fn flag(&self, name: &str) -> bool {
        self.get(name)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }

    /// The raw query without the paging parameters (kept as sent).
    fn raw_without_paging(&self) -> Vec<&'a str> {
        self.raw
            .map(|q| {
                q.split('&')
                    .filter(|kv| {
                        let k = kv.split('=').next().unwrap_or("");
                        !kv.is_empty() && k != "pageNum" && k != "itemsPerPage"
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The options every response honours.
struct Render {
    pretty: bool,
    envelope: bool,
}

impl Render {
    fn entity(&self, status: u16, v: Value) -> Reply {
        let v = if self.envelope {
            json!({"status": status, "content": v})
        } else {
            v
        };
        self.value(status, &v)
    }

    fn list(&self, status: u16, mut v: Value) -> Reply {
        if self.envelope {
            if let Value::Object(m) = &mut v {
                m.insert("status".into(), json!(status));
            }
        }
        self.value(status, &v)
    }

    fn value(&self, status: u16, v: &Value) -> Reply {
        let body = if self.pretty {
            serde_json::to_vec_pretty(v)
        } else {
            serde_json::to_vec(v)
        };
        Reply::json(status, body.unwrap_or_default())
    }
}

fn link(href: String, rel: &str) -> Value {
    json!({"href": href, "rel": rel})
}

fn enc(s: &str) -> String {
    utf8_percent_encode(s, SEGMENT).to_string()
}

enum Route<'a> {
    Groups,
    Group(&'a str),
    Hosts(&'a str),
    Host(&'a str, &'a str),
    HostMeasurements(&'a str, &'a str),
    Disks(&'a str, &'a str),
    Disk(&'a str, &'a str, &'a str),
    DiskMeasurements(&'a str, &'a str, &'a str),
    AlertConfigs(&'a str),
    AlertConfig(&'a str, &'a str),
    AlertConfigAlerts(&'a str, &'a str),
    GroupAlerts(&'a str),
    GroupAlert(&'a str, &'a str),
    Events(&'a str),
    Event(&'a str, &'a str),
    GlobalAlerts,
    GlobalAlert(&'a str),
    AccessList,
    AccessListEntry(&'a str),
}

impl Route<'_> {
    fn group(&self) -> Option<&str> {
        use Route::*;
        match self {
            Group(g)
            | Hosts(g)
            | Host(g, _)
            | HostMeasurements(g, _)
            | Disks(g, _)
            | Disk(g, _, _)
            | DiskMeasurements(g, _, _)
            | AlertConfigs(g)
            | AlertConfig(g, _)
            | AlertConfigAlerts(g, _)
            | GroupAlerts(g)
            | GroupAlert(g, _)
            | Events(g)
            | Event(g, _) => Some(g),
            _ => None,
        }
    }

    fn is_global(&self) -> bool {
        matches!(
            self,
            Route::GlobalAlerts
                | Route::GlobalAlert(_)
                | Route::AccessList
                | Route::AccessListEntry(_)
        )
    }

    fn allows(&self, method: &str) -> bool {
        match self {
            Route::GlobalAlert(_) => method == "GET" || method == "PATCH",
            Route::AccessListEntry(_) => method == "GET" || method == "DELETE",
            _ => method == "GET",
        }
    }
}

fn route<'a>(segs: &'a [String]) -> Option<Route<'a>> {
    let s: Vec<&str> = segs.iter().map(String::as_str).collect();
    Some(match s.as_slice() {
        ["groups"] => Route::Groups,
        ["groups", g] => Route::Group(g),
        ["groups", g, "hosts"] => Route::Hosts(g),
        ["groups", g, "hosts", h] => Route::Host(g, h),
        ["groups", g, "hosts", h, "measurements"] => Route::HostMeasurements(g, h),
        ["groups", g, "hosts", h, "disks"] => Route::Disks(g, h),
        ["groups", g, "hosts", h, "disks", d] => Route::Disk(g, h, d),
        ["groups", g, "hosts", h, "disks", d, "measurements"] => Route::DiskMeasurements(g, h, d),
        ["groups", g, "alertConfigs"] => Route::AlertConfigs(g),
        ["groups", g, "alertConfigs", c] => Route::AlertConfig(g, c),
        ["groups", g, "alertConfigs", c, "alerts"] => Route::AlertConfigAlerts(g, c),
        ["groups", g, "alerts"] => Route::GroupAlerts(g),
        ["groups", g, "alerts", a] => Route::GroupAlert(g, a),
        ["groups", g, "events"] => Route::Events(g),
        ["groups", g, "events", e] => Route::Event(g, e),
        ["globalAlerts"] => Route::GlobalAlerts,
        ["globalAlerts", a] => Route::GlobalAlert(a),
        ["admin", "accessList"] => Route::AccessList,
        ["admin", "accessList", e] => Route::AccessListEntry(e),
        _ => return None,
    })
}

fn not_found_resource(path: &str) -> Reply {
    err(
        404,
        "RESOURCE_NOT_FOUND",
        format!("Cannot find resource {path}."),
        vec![json!(path)],
    )
}

#[allow(clippy::too_many_arguments)]
fn authorized(
    shared: &Shared,
    faults: &Faults,
    role: Role,
    user: &str,
    method: &str,
    path: &str,
    query: Option<&str>,
    body: &[u8],
) -> Reply {
    // Injected or random error statuses.
    if let Some(Fault::Status {
        status,
        retry_after,
    }) = shared.take_fault(|f| matches!(f, Fault::Status { .. }))
    {
        return fault_status(path, status, retry_after);
    }
    if shared.roll(faults.rate_429) {
        return fault_status(path, 429, Some(faults.retry_after_secs));
    }
    if shared.roll(faults.rate_500) {
        return fault_status(path, 500, None);
    }
    if shared.roll(faults.rate_503) {
        return fault_status(path, 503, Some(faults.retry_after_secs));
    }

    let Some(rest) = path.strip_prefix(PREFIX) else {
        return not_found_resource(path);
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let rest = rest.strip_prefix('/').unwrap_or(rest);
    let segs: Vec<String> = rest
        .split('/')
        .map(|s| percent_decode_str(s).decode_utf8_lossy().into_owned())
        .collect();
    let Some(route) = route(&segs) else {
        return not_found_resource(path);
    };
    if role == Role::ReadOnly {
        if route.is_global() || method != "GET" {
            return err(
                401,
                "USER_UNAUTHORIZED",
                "Current user is not authorized to perform this action.",
                vec![],
            );
        }
        if let Some(g) = route.group() {
            if g != shared.keys.ro_group {
                return err(
                    401,
                    "NOT_IN_GROUP",
                    format!("User {user} is not a member of group {g}."),
                    vec![json!(user), json!(g)],
                );
            }
        }
    }
    if !route.allows(method) {
        return err(
            405,
            "METHOD_NOT_ALLOWED",
            format!("Method {method} is not allowed for {path}."),
            vec![json!(method)],
        );
    }
    let q = Query::parse(query);
    let r = Render {
        pretty: q.flag("pretty"),
        envelope: q.flag("envelope"),
    };
    let ctx = Ctx {
        shared,
        method,
        role,
        user,
        path,
        q: &q,
        r: &r,
    };
    ctx.dispatch(&route, body)
}

fn fault_status(path: &str, status: u16, retry_after: Option<u64>) -> Reply {
    let mut reply = match status {
        429 => err(
            429,
            "RATE_LIMITED",
            format!("Resource {path} is limited to 100 requests every 1 minutes."),
            vec![json!(path), json!(100), json!(1)],
        ),
        500 => err(500, "UNEXPECTED_ERROR", "Unexpected error.", vec![]),
        503 => err(503, "SERVICE_UNAVAILABLE", "Service Unavailable.", vec![]),
        s => err(s, "UNEXPECTED_ERROR", reason(s), vec![]),
    };
    if let Some(secs) = retry_after {
        reply.headers.push(("retry-after", secs.to_string()));
    }
    reply
}

struct Ctx<'a> {
    shared: &'a Shared,
    method: &'a str,
    role: Role,
    user: &'a str,
    path: &'a str,
    q: &'a Query<'a>,
    r: &'a Render,
}

struct Page {
    num: usize,
    size: usize,
}

impl Ctx<'_> {
    fn url(&self, rel_path: &str) -> String {
        format!("{}{PREFIX}{rel_path}", self.shared.base_url)
    }

    fn self_url(&self) -> String {
        let mut s = format!("{}{}", self.shared.base_url, self.path);
        if let Some(q) = self.q.raw {
            s.push('?');
            s.push_str(q);
        }
        s
    }

    fn page(&self) -> Result<Page, Reply> {
        let parse = |name: &str, default: usize, max: usize| -> Result<usize, Reply> {
            match self.q.get(name) {
                None => Ok(default),
                Some(v) => match v.trim().parse::<i64>() {
                    Ok(n) if n >= 1 && n as u64 <= max as u64 => Ok(n as usize),
                    _ => Err(err(
                        400,
                        "INVALID_QUERY_PARAMETER",
                        format!("An invalid value {v} was specified for query parameter {name}."),
                        vec![json!(name), json!(v)],
                    )),
                },
            }
        };
        Ok(Page {
            num: parse("pageNum", 1, 1_000_000_000)?,
            size: parse("itemsPerPage", 100, 500)?,
        })
    }

    /// A paged list of already rendered items.
    fn list<T>(&self, items: Vec<T>, render: impl Fn(T) -> Value) -> Reply {
        let page = match self.page() {
            Ok(p) => p,
            Err(e) => return e,
        };
        let mut total = items.len() as i64;
        // Only a request for a later page can repeat the first one.
        let repeat = page.num > 1
            && self
                .shared
                .take_fault(|f| matches!(f, Fault::RepeatFirstPage))
                .is_some();
        if let Some(Fault::WrongTotalCount(n)) = self
            .shared
            .take_fault(|f| matches!(f, Fault::WrongTotalCount(_)))
        {
            total = n;
        }
        let n = items.len();
        let start = if repeat {
            0
        } else {
            (page.num - 1).saturating_mul(page.size)
        };
        let results: Vec<Value> = items
            .into_iter()
            .skip(start)
            .take(page.size)
            .map(render)
            .collect();
        let base = {
            let mut s = format!("{}{}?", self.shared.base_url, self.path);
            for kv in self.q.raw_without_paging() {
                s.push_str(kv);
                s.push('&');
            }
            s
        };
        let href = |num: usize| format!("{base}pageNum={num}&itemsPerPage={}", page.size);
        let mut links = vec![link(href(page.num), "self")];
        if page.num > 1 {
            links.push(link(href(page.num - 1), "previous"));
        }
        if page.num.saturating_mul(page.size) < n {
            links.push(link(href(page.num + 1), "next"));
        }
        self.r.list(
            200,
            json!({"links": links, "results": results, "totalCount": total}),
        )
    }

    fn world(&self) -> RwLockReadGuard<'_, World> {
        self.shared.world_read()
    }

    fn dispatch(&self, route: &Route<'_>, body: &[u8]) -> Reply {
        // Any /groups/{g}/... path needs an existing group first.
        if let Some(g) = route.group() {
            if !self.world().projects.iter().any(|p| p.id == g) {
                return err(
                    404,
                    "GROUP_NOT_FOUND",
                    format!("No group with ID {g} exists."),
                    vec![json!(g)],
                );
            }
        }
        match *route {
            Route::Groups => {
                let w = self.world();
                let items: Vec<_> = w
                    .projects
                    .iter()
                    .filter(|p| self.role == Role::Owner || p.id == self.shared.keys.ro_group)
                    .collect();
                let reply = self.list(items, |p| self.group_json(&w, &p.id));
                drop(w);
                reply
            }
            Route::Group(g) => {
                let v = self.group_json(&self.world(), g);
                self.r.entity(200, v)
            }
            Route::Hosts(g) => {
                let w = self.world();
                let cluster = self.q.get("clusterId");
                let items: Vec<_> = w
                    .hosts
                    .iter()
                    .filter(|h| h.group_id == g)
                    .filter(|h| cluster.is_none_or(|c| h.cluster_id.as_deref() == Some(c)))
                    .collect();
                let reply = self.list(items, |h| self.host_json(h));
                drop(w);
                reply
            }
            Route::Host(g, h) => match self.find_host(g, h) {
                Ok(host) => self.r.entity(200, self.host_json(&host)),
                Err(e) => e,
            },
            Route::Disks(g, h) => match self.find_host(g, h) {
                Ok(host) => {
                    let items: Vec<_> = host.partitions.iter().collect();
                    self.list(items, |p| self.disk_json(&host, &p.name))
                }
                Err(e) => e,
            },
            Route::Disk(g, h, d) => match self.find_host(g, h) {
                Ok(host) if host.partitions.iter().any(|p| p.name == d) => {
                    self.r.entity(200, self.disk_json(&host, d))
                }
                Ok(_) => device_not_found(h, d),
                Err(e) => e,
            },
            Route::HostMeasurements(g, h) => match self.find_host(g, h) {
                Ok(host) => self.measurements(&host, None),
                Err(e) => e,
            },
            Route::DiskMeasurements(g, h, d) => match self.find_host(g, h) {
                Ok(host) => match host.partitions.iter().position(|p| p.name == d) {
                    Some(i) => self.measurements(&host, Some(i)),
                    None => device_not_found(h, d),
                },
                Err(e) => e,
            },
            Route::AlertConfigs(g) => {
                let w = self.world();
                let items: Vec<_> = w.alert_configs.iter().filter(|c| c.group_id == g).collect();
                let reply = self.list(items, |c| self.config_json(c));
                drop(w);
                reply
            }
            Route::AlertConfig(g, c) => {
                let w = self.world();
                match w
                    .alert_configs
                    .iter()
                    .find(|x| x.group_id == g && x.id == c)
                {
                    Some(cfg) => {
                        let v = self.config_json(cfg);
                        drop(w);
                        self.r.entity(200, v)
                    }
                    None => config_not_found(g, c),
                }
            }
            Route::AlertConfigAlerts(g, c) => {
                let now = Utc::now();
                let w = self.world();
                if !w.alert_configs.iter().any(|x| x.group_id == g && x.id == c) {
                    return config_not_found(g, c);
                }
                let items: Vec<_> = w
                    .alerts
                    .iter()
                    .filter(|a| a.alert_config_id == c && a.status == "OPEN")
                    .collect();
                let reply = self.list(items, |a| self.alert_json(a, now, false));
                drop(w);
                reply
            }
            Route::GroupAlerts(g) => {
                let status = match self.status_filter() {
                    Ok(s) => s,
                    Err(e) => return e,
                };
                let now = Utc::now();
                let w = self.world();
                let items: Vec<_> = w
                    .alerts
                    .iter()
                    .filter(|a| a.group_id == g && status.is_none_or(|s| a.status == s))
                    .collect();
                let reply = self.list(items, |a| self.alert_json(a, now, false));
                drop(w);
                reply
            }
            Route::GroupAlert(g, a) => {
                let now = Utc::now();
                let w = self.world();
                match w.alerts.iter().find(|x| x.group_id == g && x.id == a) {
                    Some(al) => {
                        let v = self.alert_json(al, now, false);
                        drop(w);
                        self.r.entity(200, v)
                    }
                    None => err(
                        404,
                        "ALERT_NOT_FOUND",
                        format!("No alert with ID {a} exists in group {g}."),
                        vec![json!(a), json!(g)],
                    ),
                }
            }
            Route::Events(g) => {
                let mut bounds = [None, None];
                for (i, name) in ["minDate", "maxDate"].iter().enumerate() {
                    if let Some(v) = self.q.get(name) {
                        match parse_time(v) {
                            Some(t) => bounds[i] = Some(t),
                            None => return invalid_query(name, v),
                        }
                    }
                }
                let types = self.q.all("eventType");
                let w = self.world();
                let items: Vec<_> = w
                    .events
                    .iter()
                    .filter(|e| e.group_id == g)
                    .filter(|e| types.is_empty() || types.contains(&e.event_type_name.as_str()))
                    .filter(|e| bounds[0].is_none_or(|t| e.created >= t))
                    .filter(|e| bounds[1].is_none_or(|t| e.created <= t))
                    .collect();
                let reply = self.list(items, |e| self.event_json(e, self.q.flag("includeRaw")));
                drop(w);
                reply
            }
            Route::Event(g, e) => {
                let w = self.world();
                match w.events.iter().find(|x| x.group_id == g && x.id == e) {
                    Some(ev) => {
                        let v = self.event_json(ev, self.q.flag("includeRaw"));
                        drop(w);
                        self.r.entity(200, v)
                    }
                    None => not_found_resource(self.path),
                }
            }
            Route::GlobalAlerts => self.cached_alert_list(|| self.global_alerts()),
            Route::GlobalAlert(a) => self.global_alert(a, body),
            Route::AccessList => {
                let w = self.world();
                let items: Vec<_> = w.access_list.iter().collect();
                let reply = self.list(items, |e| {
                    json!({
                        "cidrBlock": e.cidr_block,
                        "created": iso(&e.created),
                        "description": e.description,
                        "id": e.id,
                        "links": [link(self.url(&format!("/admin/accessList/{}", e.id)), "self")],
                    })
                });
                drop(w);
                reply
            }
            Route::AccessListEntry(id) => self.access_list_entry(id),
        }
    }

    fn status_filter(&self) -> Result<Option<&str>, Reply> {
        match self.q.get("status") {
            None => Ok(None),
            Some(s @ ("TRACKING" | "OPEN" | "CLOSED")) => Ok(Some(s)),
            Some(s) => Err(err(
                400,
                "INVALID_ALERT_STATUS",
                format!("Invalid alert status {s}."),
                vec![json!(s)],
            )),
        }
    }

    fn find_host(&self, g: &str, h: &str) -> Result<Host, Reply> {
        self.world()
            .hosts
            .iter()
            .find(|x| x.group_id == g && x.id == h)
            .cloned()
            .ok_or_else(|| {
                err(
                    404,
                    "HOST_NOT_FOUND",
                    format!("No host with ID {h} exists in group {g}."),
                    vec![json!(h), json!(g)],
                )
            })
    }

    fn group_json(&self, w: &World, g: &str) -> Value {
        let Some(p) = w.projects.iter().find(|p| p.id == g) else {
            return Value::Null;
        };
        let hosts: Vec<&Host> = w.hosts.iter().filter(|h| h.group_id == g).collect();
        let count = |t: &[&str]| {
            hosts
                .iter()
                .filter(|h| t.contains(&h.type_name.as_str()))
                .count()
        };
        let mut rs: Vec<&str> = hosts
            .iter()
            .filter_map(|h| h.replica_set_name.as_deref())
            .collect();
        rs.sort_unstable();
        rs.dedup();
        let shards = hosts
            .iter()
            .filter_map(|h| h.shard_name.as_deref())
            .collect::<HashSet<_>>();
        json!({
            "activeAgentCounts": {"auto": 0, "backup": 0, "monitoring": 1, "numShards": shards.len()},
            "hostCounts": {
                "arbiter": 0,
                "config": count(&["SHARD_CONFIG"]),
                "master": 0,
                "mongos": count(&["SHARD_MONGOS"]),
                "primary": count(&["REPLICA_PRIMARY", "SHARD_PRIMARY"]),
                "secondary": count(&["REPLICA_SECONDARY", "SHARD_SECONDARY"]),
                "slave": 0,
            },
            "id": p.id,
            "lastActiveAgent": iso(&w.anchor),
            "links": [
                link(self.url(&format!("/groups/{}", p.id)), "self"),
                link(self.url(&format!("/groups/{}/hosts", p.id)), "http://mms.mongodb.com/hosts"),
            ],
            "name": p.name,
            "orgId": p.org_id,
            "publicApiEnabled": true,
            "replicaSetCount": rs.len(),
            "shardCount": shards.len(),
            "tags": [],
        })
    }

    fn host_json(&self, h: &Host) -> Value {
        let mut m = Map::new();
        m.insert("alertsEnabled".into(), json!(true));
        m.insert(
            "aliases".into(),
            json!([h.process_id(), format!("{}:{}", h.ip_address, h.port)]),
        );
        m.insert("authMechanismName".into(), json!("SCRAM-SHA-256"));
        if let Some(c) = &h.cluster_id {
            m.insert("clusterId".into(), json!(c));
        }
        m.insert("created".into(), json!(iso(&h.created)));
        m.insert("deactivated".into(), json!(false));
        m.insert("groupId".into(), json!(h.group_id));
        m.insert("hasStartupWarnings".into(), json!(h.index % 7 == 3));
        m.insert("hidden".into(), json!(false));
        m.insert("hostEnabled".into(), json!(true));
        m.insert("hostname".into(), json!(h.hostname));
        m.insert("id".into(), json!(h.id));
        m.insert("ipAddress".into(), json!(h.ip_address));
        m.insert("journalingEnabled".into(), json!(true));
        m.insert("lastDataSizeBytes".into(), json!(h.last_data_size_bytes));
        m.insert("lastIndexSizeBytes".into(), json!(h.last_index_size_bytes));
        m.insert("lastPing".into(), json!(iso(&h.last_ping)));
        m.insert("lastRestart".into(), json!(iso(&h.last_restart)));
        let base = format!("/groups/{}/hosts/{}", h.group_id, h.id);
        m.insert(
            "links".into(),
            json!([
                link(self.url(&base), "self"),
                link(
                    self.url(&format!("/groups/{}", h.group_id)),
                    "http://mms.mongodb.com/group"
                ),
                link(
                    self.url(&format!("{base}/disks")),
                    "http://mms.mongodb.com/disks"
                ),
                link(
                    self.url(&format!("{base}/measurements")),
                    "http://mms.mongodb.com/measurements"
                ),
            ]),
        );
        m.insert("logsEnabled".into(), json!(false));
        m.insert("lowUlimit".into(), json!(false));
        m.insert("muninEnabled".into(), json!(false));
        m.insert("port".into(), json!(h.port));
        m.insert("profilerEnabled".into(), json!(false));
        if let Some(rs) = &h.replica_set_name {
            m.insert("replicaSetName".into(), json!(rs));
        }
        if let Some(s) = &h.replica_state_name {
            m.insert("replicaStateName".into(), json!(s));
        }
        if let Some(s) = &h.shard_name {
            m.insert("shardName".into(), json!(s));
        }
        m.insert("sslEnabled".into(), json!(h.ssl_enabled));
        m.insert(
            "systemInfo".into(),
            json!({"memSizeMB": h.mem_size_mb, "numCores": h.num_cores}),
        );
        m.insert("typeName".into(), json!(h.type_name));
        let uptime = (self.shared.anchor - h.last_restart)
            .num_milliseconds()
            .max(0);
        m.insert("uptimeMsec".into(), json!(uptime));
        m.insert("username".into(), json!("mms-automation"));
        m.insert("version".into(), json!(h.version));
        Value::Object(m)
    }

    fn disk_json(&self, h: &Host, name: &str) -> Value {
        let base = format!("/groups/{}/hosts/{}/disks/{}", h.group_id, h.id, enc(name));
        json!({
            "links": [
                link(self.url(&base), "self"),
                link(self.url(&format!("{base}/measurements")), "http://mms.mongodb.com/measurements"),
                link(self.url(&format!("/groups/{}/hosts/{}", h.group_id, h.id)), "http://mms.mongodb.com/host"),
            ],
            "partitionName": name,
        })
    }

    fn config_json(&self, c: &super::world::AlertConfig) -> Value {
        let mut m = Map::new();
        m.insert("created".into(), json!(iso(&c.created)));
        m.insert("enabled".into(), json!(true));
        m.insert("eventTypeName".into(), json!(c.event_type_name));
        m.insert("groupId".into(), json!(c.group_id));
        m.insert("id".into(), json!(c.id));
        m.insert(
            "links".into(),
            json!([
                link(
                    self.url(&format!("/groups/{}/alertConfigs/{}", c.group_id, c.id)),
                    "self"
                ),
                link(
                    self.url(&format!(
                        "/groups/{}/alertConfigs/{}/alerts",
                        c.group_id, c.id
                    )),
                    "http://mms.mongodb.com/alerts"
                ),
            ]),
        );
        m.insert("matchers".into(), json!([]));
        if let (Some(metric), Some((t, u))) = (&c.metric_name, &c.threshold) {
            m.insert(
                "metricThreshold".into(),
                json!({"metricName": metric, "mode": "AVERAGE", "operator": "GREATER_THAN", "threshold": t, "units": u}),
            );
        }
        m.insert(
            "notifications".into(),
            json!([{"delayMin": 0, "emailEnabled": true, "intervalMin": 60, "smsEnabled": false, "typeName": "GROUP", "roles": ["GROUP_OWNER"]}]),
        );
        m.insert("updated".into(), json!(iso(&c.created)));
        Value::Object(m)
    }

    fn alert_json(&self, a: &Alert, now: DateTime<Utc>, global: bool) -> Value {
        let mut m = Map::new();
        if let Some(u) = a.acknowledged_until.filter(|u| *u > now) {
            m.insert("acknowledgedUntil".into(), json!(iso(&u)));
            if let Some(c) = &a.acknowledgement_comment {
                m.insert("acknowledgementComment".into(), json!(c));
            }
            if let Some(n) = &a.acknowledging_username {
                m.insert("acknowledgingUsername".into(), json!(n));
            }
        }
        m.insert("alertConfigId".into(), json!(a.alert_config_id));
        m.insert("created".into(), json!(iso(&a.created)));
        if let Some((n, u)) = &a.current_value {
            m.insert("currentValue".into(), json!({"number": n, "units": u}));
        }
        m.insert("eventTypeName".into(), json!(a.event_type_name));
        m.insert("groupId".into(), json!(a.group_id));
        if let Some(h) = &a.host_id {
            m.insert("hostId".into(), json!(h));
        }
        if let Some(h) = &a.hostname_and_port {
            m.insert("hostnameAndPort".into(), json!(h));
        }
        m.insert("id".into(), json!(a.id));
        if let Some(t) = &a.last_notified {
            m.insert("lastNotified".into(), json!(iso(t)));
        }
        let self_href = if global {
            self.url(&format!("/globalAlerts/{}", a.id))
        } else {
            self.url(&format!("/groups/{}/alerts/{}", a.group_id, a.id))
        };
        m.insert(
            "links".into(),
            json!([
                link(self_href, "self"),
                link(
                    self.url(&format!("/groups/{}", a.group_id)),
                    "http://mms.mongodb.com/group"
                ),
            ]),
        );
        if let Some(n) = &a.metric_name {
            m.insert("metricName".into(), json!(n));
        }
        if let Some(rs) = &a.replica_set_name {
            m.insert("replicaSetName".into(), json!(rs));
        }
        if let Some(t) = &a.resolved {
            m.insert("resolved".into(), json!(iso(t)));
        }
        m.insert("status".into(), json!(a.status));
        m.insert("tags".into(), json!([]));
        m.insert("typeName".into(), json!(a.type_name));
        m.insert("updated".into(), json!(iso(&a.updated)));
        Value::Object(m)
    }

    fn event_json(&self, e: &super::world::Event, raw: bool) -> Value {
        let mut v = e.body.clone();
        if let Value::Object(m) = &mut v {
            m.insert(
                "links".into(),
                json!([link(
                    self.url(&format!("/groups/{}/events/{}", e.group_id, e.id)),
                    "self"
                )]),
            );
            if raw {
                let mut r = Map::new();
                r.insert("_t".into(), json!(e.event_type_name));
                r.insert("cid".into(), json!(e.group_id));
                r.insert("cre".into(), json!({"$date": iso(&e.created)}));
                r.insert("et".into(), json!(e.event_type_name));
                r.insert("id".into(), json!({"$oid": e.id}));
                r.insert("severity".into(), json!("INFO"));
                for (k, src) in [("hid", "hostId"), ("hn", "hostname"), ("un", "username")] {
                    if let Some(x) = m.get(src) {
                        r.insert(k.into(), x.clone());
                    }
                }
                m.insert("raw".into(), Value::Object(r));
            }
        }
        v
    }

    /// Serves an alert list page from the page cache when nothing it shows can have changed:
    /// same world generation, and no acknowledgement has run out since it was rendered.
    /// (The 20 000-alert benchmark pages through the same pages again and again.)
    fn cached_alert_list(&self, render: impl FnOnce() -> Reply) -> Reply {
        let list_faults = lock(&self.shared.queue)
            .iter()
            .any(|f| matches!(f, Fault::RepeatFirstPage | Fault::WrongTotalCount(_)));
        if list_faults || self.shared.config.cache_bytes == 0 {
            return render();
        }
        let key = format!("{}?{}", self.path, self.q.raw.unwrap_or(""));
        let now = Utc::now();
        let generation = self.shared.generation.load(Ordering::SeqCst);
        if let Some(e) = lock(&self.shared.list_cache).get(&key) {
            if e.generation == generation && e.valid_until.is_none_or(|t| now < t) {
                return Reply::json(200, Vec::new()).with_body(e.body.clone());
            }
        }
        let reply = render();
        if reply.status == 200 {
            let valid_until = self
                .world()
                .alerts
                .iter()
                .filter_map(|a| a.acknowledged_until)
                .filter(|t| *t > now)
                .min();
            let mut c = lock(&self.shared.list_cache);
            if c.len() >= 4096 {
                c.clear();
            }
            c.insert(
                key,
                ListEntry {
                    generation,
                    valid_until,
                    body: reply.body.clone(),
                },
            );
        }
        reply
    }

    fn global_alerts(&self) -> Reply {
        let status = match self.status_filter() {
            Ok(s) => s,
            Err(e) => return e,
        };
        let mut bounds = [None, None];
        for (i, name) in ["createdOnOrAfter", "createdOnOrBefore"].iter().enumerate() {
            if let Some(v) = self.q.get(name) {
                match parse_time(v) {
                    Some(t) => bounds[i] = Some(t),
                    None => {
                        return err(
                            400,
                            "INVALID_QUERY_PARAMETER",
                            format!(
                                "An invalid value {v} was specified for query parameter {name}."
                            ),
                            vec![json!(name), json!(v)],
                        )
                    }
                }
            }
        }
        let now = Utc::now();
        let w = self.world();
        let items: Vec<_> = w
            .alerts
            .iter()
            .filter(|a| {
                status.is_none_or(|s| a.status == s)
                    && bounds[0].is_none_or(|t| a.created >= t)
                    && bounds[1].is_none_or(|t| a.created <= t)
            })
            .collect();
        let reply = self.list(items, |a| self.alert_json(a, now, true));
        drop(w);
        reply
    }

    fn global_alert(&self, id: &str, body: &[u8]) -> Reply {
        let now = Utc::now();
        if self.method == "PATCH" {
            let ack = match parse_ack(body, now) {
                Ok(a) => a,
                Err(e) => return e,
            };
            let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
            let Some(a) = w.alerts.iter_mut().find(|a| a.id == id) else {
                drop(w);
                return alert_not_found(id);
            };
            let (until, comment) = ack;
            if until > now {
                a.acknowledged_until = Some(until);
                a.acknowledgement_comment = comment;
                a.acknowledging_username = Some(self.user.to_string());
            } else {
                a.acknowledged_until = None;
                a.acknowledgement_comment = None;
                a.acknowledging_username = None;
            }
            a.updated = now;
            self.shared.generation.fetch_add(1, Ordering::SeqCst);
            let a = a.clone();
            drop(w);
            return self.r.entity(201, self.alert_json(&a, now, true));
        }
        let w = self.world();
        match w.alerts.iter().find(|a| a.id == id) {
            Some(a) => {
                let v = self.alert_json(a, now, true);
                drop(w);
                self.r.entity(200, v)
            }
            None => alert_not_found(id),
        }
    }

    fn access_list_entry(&self, id: &str) -> Reply {
        let not_found = || {
            err(
                404,
                "ACCESS_LIST_NOT_FOUND",
                format!("IP address {id} not on access list for user {}.", self.user),
                vec![json!(id), json!(self.user)],
            )
        };
        if self.method == "DELETE" {
            let mut w = self.shared.world.write().unwrap_or_else(|e| e.into_inner());
            let before = w.access_list.len();
            w.access_list.retain(|e| e.id != id);
            let removed = w.access_list.len() < before;
            self.shared.generation.fetch_add(1, Ordering::SeqCst);
            drop(w);
            if !removed {
                return not_found();
            }
            let mut r = Reply::json(204, Vec::new());
            r.content_type = "application/json";
            return r;
        }
        let w = self.world();
        match w.access_list.iter().find(|e| e.id == id) {
            Some(e) => {
                let v = json!({
                    "cidrBlock": e.cidr_block,
                    "created": iso(&e.created),
                    "description": e.description,
                    "id": e.id,
                    "links": [link(self.url(&format!("/admin/accessList/{}", e.id)), "self")],
                });
                drop(w);
                self.r.entity(200, v)
            }
            None => not_found(),
        }
    }

    fn measurements(&self, host: &Host, partition: Option<usize>) -> Reply {
        let q = self.q;
        let Some(gran) = q.get("granularity") else {
            return missing("granularity");
        };
        let step: i64 = match gran {
            "PT10S" => 10,
            "PT1M" => 60,
            "PT5M" => 300,
            "PT1H" => 3600,
            "P1D" => 86_400,
            other => {
                return err(
                    400,
                    "INVALID_GRANULARITY",
                    format!("An invalid granularity {other} was specified."),
                    vec![json!(other)],
                )
            }
        };
        let (period, start, end) = (q.get("period"), q.get("start"), q.get("end"));
        let now = Utc::now().timestamp();
        let (from, to) = match (period, start, end) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                return err(
                    400,
                    "MUTUALLY_EXCLUSIVE_QUERY_PARAMETERS",
                    "The query parameters period and start/end are mutually exclusive.",
                    vec![json!("period"), json!("start"), json!("end")],
                )
            }
            (None, None, None) => return missing("period"),
            (None, Some(_), None) => return missing("end"),
            (None, None, Some(_)) => return missing("start"),
            (Some(p), None, None) => match parse_duration(p) {
                Some(secs) if secs <= 20.0 * 365.0 * 86_400.0 => (now - secs.ceil() as i64, now),
                _ => return invalid_period(),
            },
            (None, Some(s), Some(e)) => {
                let parse = |name: &str, v: &str| {
                    parse_time(v).map(|t| t.timestamp()).ok_or_else(|| {
                        err(
                            400,
                            "INVALID_QUERY_PARAMETER",
                            format!(
                                "An invalid value {v} was specified for query parameter {name}."
                            ),
                            vec![json!(name), json!(v)],
                        )
                    })
                };
                let s = match parse("start", s) {
                    Ok(t) => t,
                    Err(e) => return e,
                };
                let e = match parse("end", e) {
                    Ok(t) => t,
                    Err(e) => return e,
                };
                if s > e {
                    return invalid_period();
                }
                (s, e)
            }
        };
        let first =
            from.div_euclid(step) * step + if from.rem_euclid(step) == 0 { 0 } else { step };
        let last = to.div_euclid(step) * step;
        let catalog: &[MetricDef] = if partition.is_some() {
            DISK_METRICS
        } else {
            HOST_METRICS
        };
        let wanted = q.all("m");
        let metrics: Vec<usize> = if wanted.is_empty() {
            (0..catalog.len()).collect()
        } else {
            let mut idx = Vec::with_capacity(wanted.len());
            for name in wanted {
                match catalog.iter().position(|m| m.name == name) {
                    Some(i) => idx.push(i),
                    None => {
                        return err(
                            404,
                            "INVALID_METRIC_NAME",
                            format!("An invalid metric name {name} was specified."),
                            vec![json!(name)],
                        )
                    }
                }
            }
            idx.sort_unstable();
            idx.dedup();
            idx
        };
        let points = if last >= first {
            (last - first) / step + 1
        } else {
            0
        };
        if points.saturating_mul(metrics.len() as i64) > MAX_POINTS {
            return err(
                400,
                "INVALID_PERIOD",
                format!(
                    "The requested window holds {points} points per measurement at {gran}; use a coarser granularity."
                ),
                vec![json!(gran)],
            );
        }
        let key = format!(
            "{}?{}#{first}-{last}",
            self.path,
            q.raw_without_paging()
                .into_iter()
                .filter(|kv| !kv.starts_with("period=")
                    && !kv.starts_with("start=")
                    && !kv.starts_with("end="))
                .collect::<Vec<_>>()
                .join("&")
        );
        // The self link carries the raw query, so it is part of the key too.
        let key = format!("{key}|{}", q.raw.unwrap_or(""));
        if self.shared.config.cache_bytes > 0 {
            if let Some(b) = lock(&self.shared.cache).map.get(&key) {
                return Reply::json(200, Vec::new()).with_body(b.clone());
            }
        }
        let world = self.world();
        let anchor = world.anchor.timestamp();
        drop(world);
        let src = Source {
            seed: self.shared.config.seed,
            host,
            partition: partition.map(|i| (i, &host.partitions[i])),
            anchor,
        };
        let est = points as usize * metrics.len() * 52 + 1024;
        let mut out = Vec::with_capacity(est);
        if self.r.envelope && !self.r.pretty {
            out.extend_from_slice(b"{\"content\":");
        }
        out.extend_from_slice(b"{\"end\":\"");
        super::fmt::push_timestamp(&mut out, last.max(first));
        out.extend_from_slice(b"\",\"granularity\":");
        push_str(&mut out, gran);
        out.extend_from_slice(b",\"groupId\":");
        push_str(&mut out, &host.group_id);
        out.extend_from_slice(b",\"hostId\":");
        push_str(&mut out, &host.id);
        out.extend_from_slice(b",\"links\":[{\"href\":");
        push_str(&mut out, &self.self_url());
        out.extend_from_slice(b",\"rel\":\"self\"},{\"href\":");
        push_str(
            &mut out,
            &self.url(&format!("/groups/{}/hosts/{}", host.group_id, host.id)),
        );
        out.extend_from_slice(b",\"rel\":\"http://mms.mongodb.com/host\"}],\"measurements\":");
        render_measurements(&mut out, &src, catalog, &metrics, first, last, step);
        if let Some((_, p)) = src.partition {
            out.extend_from_slice(b",\"partitionName\":");
            push_str(&mut out, &p.name);
        }
        out.extend_from_slice(b",\"processId\":");
        push_str(&mut out, &host.process_id());
        out.extend_from_slice(b",\"start\":\"");
        super::fmt::push_timestamp(&mut out, first);
        out.extend_from_slice(b"\"}");
        if self.r.envelope && !self.r.pretty {
            out.extend_from_slice(b",\"status\":200}");
        }
        let body = if self.r.pretty {
            match serde_json::from_slice::<Value>(&out) {
                Ok(v) => return self.r.entity(200, v),
                Err(_) => out,
            }
        } else {
            out
        };
        let body = Bytes::from(body);
        let cap = self.shared.config.cache_bytes;
        if cap > 0 && body.len() <= cap / 4 {
            let mut c = lock(&self.shared.cache);
            if !c.map.contains_key(&key) {
                c.bytes += body.len();
                c.map.insert(key.clone(), body.clone());
                c.order.push_back(key);
                while c.bytes > cap {
                    let Some(old) = c.order.pop_front() else {
                        break;
                    };
                    if let Some(b) = c.map.remove(&old) {
                        c.bytes -= b.len();
                    }
                }
            }
        }
        Reply::json(200, Vec::new()).with_body(body)
    }
}

impl Reply {
    fn with_body(mut self, body: Bytes) -> Self {
        self.body = body;
        self
    }
}

fn invalid_query(name: &str, v: &str) -> Reply {
    err(
        400,
        "INVALID_QUERY_PARAMETER",
        format!("An invalid value {v} was specified for query parameter {name}."),
        vec![json!(name), json!(v)],
    )
}

fn missing(name: &str) -> Reply {
    err(
        400,
        "MISSING_QUERY_PARAMETER",
        format!("The required query parameter {name} was not specified."),
        vec![json!(name)],
    )
}

fn invalid_period() -> Reply {
    err(
        400,
        "INVALID_PERIOD",
        "An invalid period was specified.",
        vec![],
    )
}

fn alert_not_found(id: &str) -> Reply {
    err(
        404,
        "ALERT_NOT_FOUND",
        format!("No alert with ID {id} exists."),
        vec![json!(id)],
    )
}

/// Validates a PATCH body: `{"acknowledgedUntil": ISO 8601, "acknowledgementComment": str?}`.
fn parse_ack(body: &[u8], _now: DateTime<Utc>) -> Result<(DateTime<Utc>, Option<String>), Reply> {
    let invalid_json = || err(400, "INVALID_JSON", "Received JSON is malformed.", vec![]);
    let v: Value = serde_json::from_slice(body).map_err(|_| invalid_json())?;
    let Value::Object(m) = v else {
        return Err(invalid_json());
    };
    let invalid_attr = |k: &str| {
        err(
            400,
            "INVALID_ATTRIBUTE",
            format!("Invalid attribute {k} specified."),
            vec![json!(k)],
        )
    };
    for k in m.keys() {
        if k != "acknowledgedUntil" && k != "acknowledgementComment" {
            return Err(invalid_attr(k));
        }
    }
    let until = match m.get("acknowledgedUntil") {
        None | Some(Value::Null) => {
            return Err(err(
                400,
                "MISSING_ATTRIBUTE",
                "The required attribute acknowledgedUntil was not specified.",
                vec![json!("acknowledgedUntil")],
            ))
        }
        Some(Value::String(s)) => parse_time(s).ok_or_else(|| invalid_attr("acknowledgedUntil"))?,
        Some(_) => return Err(invalid_attr("acknowledgedUntil")),
    };
    let comment = match m.get("acknowledgementComment") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() > 200 => {
            return Err(err(
                400,
                "ACKNOWLEDGEMENT_COMMENT_TOO_LONG",
                "The acknowledgement comment is too long. It must be 200 characters or fewer.",
                vec![],
            ))
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(invalid_attr("acknowledgementComment")),
    };
    Ok((until, comment))
}

fn device_not_found(h: &str, d: &str) -> Reply {
    err(
        404,
        "DEVICE_NOT_FOUND",
        format!("No disk partition named {d} exists on host {h}."),
        vec![json!(d), json!(h)],
    )
}

fn config_not_found(g: &str, c: &str) -> Reply {
    err(
        404,
        "ALERT_CONFIG_NOT_FOUND",
        format!("No alert configuration with ID {c} exists in group {g}."),
        vec![json!(c), json!(g)],
    )
}
