//! The client, its builder, and the request pipeline: URL building, Digest signing, retries,
//! the time budget, the body cap and redirects.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use bytes::Bytes;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use reqwest::header::{
    HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION, RETRY_AFTER, USER_AGENT,
    WWW_AUTHENTICATE,
};
use reqwest::{Method, StatusCode};
use tokio::time::Instant;
use url::Url;

use crate::auth::{Challenge, Credentials, DigestSession};
use crate::error::{ApiError, Error, Result};

/// The path of the API under the server's address.
pub const API_PATH: &str = "/api/public/v1.0";

/// The default user agent: `opsapi/<version>`.
pub const DEFAULT_USER_AGENT: &str = concat!("opsapi/", env!("CARGO_PKG_VERSION"));

/// The default cap on a response body: 256 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 256 << 20;

/// The most retries a client may be configured with.
pub const MAX_RETRIES_LIMIT: u32 = 100;

/// The most requests in flight a client may be configured with.
pub const MAX_CONCURRENCY_LIMIT: usize = 1024;

/// The longest time budget of one request (one day).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(86_400);

/// Same-origin redirects followed for one request before giving up.
const MAX_REDIRECTS: u32 = 5;

/// An error body is kept up to this size (an HTML page from a proxy fits); the rest is not read.
const MAX_ERROR_BODY: usize = 1 << 20;

/// The service version the server reports in `X-Vendor-Service-Version` (or the live name
/// `X-MongoDB-Service-Version`): `gitHash=...; versionString=...`.
///
/// ```
/// use opsapi::ServiceVersion;
/// let v = ServiceVersion::parse("gitHash=ca9b4ac; versionString=current");
/// assert_eq!(v.version_string.as_deref(), Some("current"));
/// assert_eq!(ServiceVersion::parse("gitHash=abc;").version_string, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ServiceVersion {
    /// `gitHash`
    pub git_hash: Option<String>,
    /// `versionString`
    pub version_string: Option<String>,
}

impl ServiceVersion {
    /// Parses the header value, tolerating missing parts and unknown keys.
    pub fn parse(header: &str) -> Self {
        let mut v = Self::default();
        for part in header.split(';') {
            let Some((k, val)) = part.split_once('=') else {
                continue;
            };
            let val = val.trim();
            if val.is_empty() {
                continue;
            }
            match k.trim() {
                "gitHash" => v.git_hash = Some(val.to_string()),
                "versionString" => v.version_string = Some(val.to_string()),
                _ => {}
            }
        }
        v
    }
}

/// Builds a [`Client`]. Every setting is checked by [`ClientBuilder::build`], which names the
/// setting at fault.
///
/// ```
/// use std::time::Duration;
/// let client = opsapi::Client::builder("https://om.example.com:8443")
///     .credentials("PUBLIC", "PRIVATE")
///     .timeout(Duration::from_secs(10))
///     .max_retries(5)
///     .max_concurrency(16)
///     .build()
///     .unwrap();
/// assert_eq!(client.base_url(), "https://om.example.com:8443/api/public/v1.0");
/// assert!(!format!("{client:?}").contains("PRIVATE"));
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ClientBuilder {
    base_url: String,
    credentials: Option<Credentials>,
    timeout_secs: f64,
    connect_timeout: Duration,
    max_retries: u64,
    max_concurrency: u64,
    verify: bool,
    ca_file: Option<PathBuf>,
    user_agent: Option<String>,
    retry_backoff: Duration,
    max_retry_wait: Duration,
    max_response_bytes: u64,
}

impl ClientBuilder {
    /// The API public/private key pair (Digest user name and password).
    pub fn credentials(
        mut self,
        public_key: impl Into<String>,
        private_key: impl Into<String>,
    ) -> Self {
        self.credentials = Some(Credentials::new(public_key, private_key));
        self
    }

    /// The time budget of one API request: every attempt, its retries, backoff and
    /// `Retry-After` waits included (default 30 s, at most a day). A listing or a fleet pull is
    /// many requests, each with its own budget.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout_secs = timeout.as_secs_f64();
        self
    }

    /// [`ClientBuilder::timeout`] in seconds, as a caller with a number at hand gives it; a
    /// value that is not a positive number of seconds is refused by `build()`.
    pub fn timeout_secs(mut self, seconds: f64) -> Self {
        self.timeout_secs = seconds;
        self
    }

    /// The connect timeout (default 10 s, and never more than the request timeout).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Retries of transient faults: connect errors, 429, 502, 503 and 504 (default 3, at most
    /// 100). See [`Client`] for which requests are retried after which fault.
    pub fn max_retries(mut self, n: u32) -> Self {
        self.max_retries = n.into();
        self
    }

    /// [`ClientBuilder::max_retries`] from any count; more than 100 is refused by `build()`.
    pub fn max_retries_u64(mut self, n: u64) -> Self {
        self.max_retries = n;
        self
    }

    /// Requests in flight at once for paging and fleet pulls (default 8, 1 to 1024).
    pub fn max_concurrency(mut self, n: usize) -> Self {
        self.max_concurrency = n as u64;
        self
    }

    /// [`ClientBuilder::max_concurrency`] from any count; out of range is refused by `build()`.
    pub fn max_concurrency_u64(mut self, n: u64) -> Self {
        self.max_concurrency = n;
        self
    }

    /// Whether to verify the server's TLS certificate (default true).
    pub fn verify(mut self, verify: bool) -> Self {
        self.verify = verify;
        self
    }

    /// A PEM bundle to trust instead of the system's certificate authorities: the internal CA
    /// that signed the server's certificate, or the server's own self-signed certificate,
    /// which is then trusted as exactly that certificate (pinned; its names are not checked,
    /// its validity period is).
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.ca_file = Some(path.into());
        self
    }

    /// The `User-Agent` header (default `opsapi/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// The first retry delay; each retry doubles it, with jitter (default 250 ms).
    pub fn retry_backoff(mut self, base: Duration) -> Self {
        self.retry_backoff = base;
        self
    }

    /// The longest `Retry-After` the client waits for; a longer one ends the retries
    /// (default 60 s). The time budget ([`ClientBuilder::timeout`]) bounds it too.
    pub fn max_retry_wait(mut self, max: Duration) -> Self {
        self.max_retry_wait = max;
        self
    }

    /// The largest response body read (default 256 MiB). A larger body ends the request in
    /// [`Error::ResponseTooLarge`] while it is read, so memory grows to about the limit, not
    /// to the size of the body.
    pub fn max_response_bytes(mut self, limit: u64) -> Self {
        self.max_response_bytes = limit;
        self
    }

    /// Builds the client, checking every setting.
    ///
    /// ```
    /// let e = opsapi::Client::builder("https://om:8443").max_retries(1000).build().unwrap_err();
    /// assert_eq!(e.to_string(), "invalid argument `max_retries`: must be at most 100, not 1000");
    /// let e = opsapi::Client::builder("https://om:8443").credentials("pub", "key\n").build().unwrap_err();
    /// assert!(e.to_string().contains("`private_key`"), "{e}");
    /// assert!(!e.to_string().contains("key\n"));
    /// ```
    pub fn build(self) -> Result<Client> {
        let secret = self.credentials.as_ref().map(Credentials::private_key);
        let base = normalize_base_url(&self.base_url, secret)?;
        let config = self.check(base)?;
        let process = RwLock::new(Arc::new(PerProcess::new(&config)?));
        Ok(Client {
            inner: Arc::new(Inner {
                config,
                process,
                server_version: RwLock::new(None),
            }),
        })
    }

    fn check(self, base: String) -> Result<Config> {
        let timeout = Duration::try_from_secs_f64(self.timeout_secs)
            .ok()
            .filter(|d| !d.is_zero() && *d <= MAX_TIMEOUT)
            .ok_or_else(|| {
                Error::invalid_argument(
                    "timeout",
                    format!(
                        "must be a positive number of seconds up to {}, not {}",
                        MAX_TIMEOUT.as_secs(),
                        self.timeout_secs
                    ),
                )
            })?;
        if self.max_retries > u64::from(MAX_RETRIES_LIMIT) {
            return Err(Error::invalid_argument(
                "max_retries",
                format!(
                    "must be at most {MAX_RETRIES_LIMIT}, not {}",
                    self.max_retries
                ),
            ));
        }
        if self.max_concurrency == 0 || self.max_concurrency > MAX_CONCURRENCY_LIMIT as u64 {
            return Err(Error::invalid_argument(
                "max_concurrency",
                format!(
                    "must be from 1 to {MAX_CONCURRENCY_LIMIT}, not {}",
                    self.max_concurrency
                ),
            ));
        }
        if self.max_response_bytes == 0 || self.max_response_bytes > usize::MAX as u64 {
            return Err(Error::invalid_argument(
                "max_response_bytes",
                format!(
                    "must be a positive number of bytes, not {}",
                    self.max_response_bytes
                ),
            ));
        }
        let user_agent = match self.user_agent {
            Some(ua) => {
                check_header_text("user_agent", &ua)?;
                ua
            }
            None => DEFAULT_USER_AGENT.to_string(),
        };
        if let Some(c) = &self.credentials {
            check_header_text("public_key", c.public_key())?;
            check_key("private_key", c.private_key())?;
        }
        let tls = Tls {
            verify: self.verify,
            // Read (and its argument errors raised) even when verify=false turns it off.
            ca_file: self
                .ca_file
                .map(|path| crate::tls::client_config(&path))
                .transpose()?,
        };
        Ok(Config {
            base,
            credentials: self.credentials,
            timeout,
            connect_timeout: self.connect_timeout.min(timeout),
            max_retries: self.max_retries as u32,
            max_concurrency: self.max_concurrency as usize,
            tls,
            user_agent: HeaderValue::from_str(&user_agent)
                .map_err(|e| Error::invalid_argument("user_agent", e.to_string()))?,
            retry_backoff: self.retry_backoff,
            max_retry_wait: self.max_retry_wait,
            max_response_bytes: self.max_response_bytes as usize,
        })
    }
}

/// A header value must be one line of visible text: a CR or LF (a key or user agent pasted
/// with its line break) would make every request fail, after pointless retries.
fn check_header_text(argument: &str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        return Err(Error::invalid_argument(argument, "must not be empty"));
    }
    check_key(argument, value)?;
    if !value.is_ascii() || HeaderValue::from_str(value).is_err() {
        return Err(Error::invalid_argument(
            argument,
            "must be printable ASCII text (it goes into an HTTP header)",
        ));
    }
    Ok(())
}

/// Keys are never shown in a message, so the message says what is wrong without the value.
fn check_key(argument: &str, value: &str) -> Result<()> {
    if value.is_empty() {
        return Err(Error::invalid_argument(argument, "must not be empty"));
    }
    if let Some((i, c)) = value.char_indices().find(|(_, c)| c.is_control()) {
        let what = match c {
            '\n' | '\r' => "a line break",
            '\t' => "a tab",
            _ => "a control character",
        };
        return Err(Error::invalid_argument(
            argument,
            format!(
                "contains {what} at position {i} (was it pasted or read from a file with \
                 its line ending?)"
            ),
        ));
    }
    if value.trim() != value {
        return Err(Error::invalid_argument(
            argument,
            "starts or ends with a space (was it pasted with one?)",
        ));
    }
    Ok(())
}

/// What it takes to build the HTTP stack again (in a child process after `fork`).
#[derive(Clone)]
struct Tls {
    verify: bool,
    /// The TLS configuration built from `ca_file` (see `crate::tls`).
    ca_file: Option<rustls::ClientConfig>,
}

/// The checked settings of a client.
struct Config {
    base: String,
    credentials: Option<Credentials>,
    timeout: Duration,
    connect_timeout: Duration,
    max_retries: u32,
    max_concurrency: usize,
    tls: Tls,
    user_agent: HeaderValue,
    retry_backoff: Duration,
    max_retry_wait: Duration,
    max_response_bytes: usize,
}

/// The parts of a client that belong to one process: the connection pool (its connections
/// are driven by tasks of the process's runtime), the Digest session and the handshake lock.
/// A child made by `fork` inherits none of the threads behind them, so it builds its own on
/// first use (see [`Client::process`]); the parent keeps its own untouched.
struct PerProcess {
    pid: u32,
    http: reqwest::Client,
    session: Option<DigestSession>,
    /// Held by the one request that fetches the first Digest challenge of a fresh client, so
    /// that concurrent requests (paging, fleet pulls) wait for it and go out signed instead of
    /// each collecting a 401 of its own.
    handshake: tokio::sync::Mutex<()>,
}

impl PerProcess {
    fn new(config: &Config) -> Result<Self> {
        let mut http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .pool_max_idle_per_host(config.max_concurrency.max(8))
            .tcp_nodelay(true)
            // Redirects are followed by `execute`, which signs each hop for its own URI and
            // never sends credentials to another origin.
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy();
        if !config.tls.verify {
            http = http.tls_danger_accept_invalid_certs(true);
        }
        if let (Some(tls), true) = (&config.tls.ca_file, config.tls.verify) {
            http = http.tls_backend_preconfigured(tls.clone());
        }
        let http = http.build().map_err(|e| {
            Error::Config(format!("cannot build the HTTP client: {}", error_chain(&e)))
        })?;
        Ok(Self {
            pid: std::process::id(),
            http,
            session: config.credentials.clone().map(DigestSession::new),
            handshake: tokio::sync::Mutex::new(()),
        })
    }
}

/// Accepts `https://host:port`, `https://host:port/`, `https://host:port/api/public/v1.0`
/// or a prefix behind a proxy (`https://host/ops`), and returns the API's base URL.
///
/// Messages never echo what could be a secret pasted by mistake: the user info, query and
/// fragment of the URL are left out and the private key, wherever it is, is masked.
fn normalize_base_url(base: &str, secret: Option<&str>) -> Result<String> {
    let shown = || redact_url(base, secret);
    let trimmed = base.trim().trim_end_matches('/');
    let url = Url::parse(trimmed).map_err(|e| {
        Error::invalid_argument("base_url", format!("`{}` is not a URL: {e}", shown()))
    })?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(Error::invalid_argument(
            "base_url",
            format!("`{}` must start with https:// or http://", shown()),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::invalid_argument(
            "base_url",
            format!(
                "`{}` must not hold credentials; pass the API keys separately",
                shown()
            ),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(Error::invalid_argument(
            "base_url",
            format!("`{}` must not have a query or fragment", shown()),
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(Error::invalid_argument(
            "base_url",
            format!("`{}` has no host", shown()),
        ));
    }
    if let Some(secret) = maskable(secret) {
        if base.contains(secret) {
            return Err(Error::invalid_argument(
                "base_url",
                format!(
                    "`{}` contains the private key; pass the keys separately",
                    shown()
                ),
            ));
        }
    }
    let s = url.as_str().trim_end_matches('/');
    Ok(if s.ends_with(API_PATH) {
        s.to_string()
    } else {
        format!("{s}{API_PATH}")
    })
}

/// A URL as it may be shown in a message: without user info, query or fragment (where keys
/// get pasted), and with `secret` masked wherever else it occurs.
///
/// ```
/// # use opsapi::redact_url;
/// let key = "5f1c2e3a-private";
/// assert_eq!(redact_url(&format!("https://pub:{key}@om:8443/x?k={key}"), None), "https://***@om:8443/x?***");
/// assert_eq!(redact_url(&format!("https://om:8443/{key}/api"), Some(key)), "https://om:8443/***/api");
/// ```
pub fn redact_url(url: &str, secret: Option<&str>) -> String {
    let mut s = url.trim().to_string();
    // The query and fragment go first: user info is only looked for before them.
    if let Some(i) = s.find(['?', '#']) {
        s.truncate(i);
        s.push_str("?***");
    }
    let authority_start = s.find("://").map_or(0, |i| i + 3);
    let authority_end = s[authority_start..]
        .find('/')
        .map_or(s.len(), |i| authority_start + i);
    if let Some(at) = s[authority_start..authority_end].rfind('@') {
        s.replace_range(authority_start..authority_start + at, "***");
    }
    match maskable(secret) {
        Some(k) => s.replace(k, "***"),
        None => s,
    }
}

/// The secret to mask in messages. Real private keys are UUIDs; a key of a few characters
/// (a test's `"k"`) would mask ordinary words, so it is not looked for.
fn maskable(secret: Option<&str>) -> Option<&str> {
    secret.filter(|k| k.len() >= 8)
}

/// A client of the API. Cheap to clone: clones share connections and the Digest session.
///
/// # Retries and the time budget
///
/// The client's `timeout` bounds one API request with every attempt, backoff and
/// `Retry-After` wait. Transient faults are retried up to `max_retries` times:
///
/// - a connect error (nothing reached the server) and a 429 (the server did not act) for
///   every request;
/// - 502, 503, 504, a reset or a cut body for GET, which changes nothing, and for DELETE,
///   whose outcome is the same however often it is sent: when such a retry answers 404, the
///   first attempt deleted the entry, and the DELETE succeeds;
/// - never for PATCH once an attempt may have reached the server (a gateway's 502 may come
///   after the server applied it): the error is returned instead.
///
/// A `Retry-After` longer than what is left of the budget (or than `max_retry_wait`) ends
/// the request at once with the error, whose `retry_after` says when to come back.
///
/// ```no_run
/// # async fn run() -> opsapi::Result<()> {
/// let client = opsapi::Client::builder("https://om.example.com:8443")
///     .credentials("PUBLIC", "PRIVATE")
///     .build()?;
/// let host = client.hosts().get("5e9f...", "a1b2...").await?;
/// println!("{:?} is {:?}", host.hostname, host.type_name);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Client {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    config: Config,
    process: RwLock<Arc<PerProcess>>,
    server_version: RwLock<Option<ServiceVersion>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.inner.config;
        f.debug_struct("Client")
            .field("base_url", &c.base)
            .field(
                "public_key",
                &c.credentials.as_ref().map(Credentials::public_key),
            )
            .field("timeout", &c.timeout)
            .field("max_retries", &c.max_retries)
            .field("max_concurrency", &c.max_concurrency)
            .finish_non_exhaustive()
    }
}

/// An answer with a success status.
#[derive(Debug)]
pub(crate) struct Response {
    pub(crate) body: Bytes,
}

/// A request before it is sent: everything that makes it, and nothing that sends it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    pub(crate) method: Method,
    /// The path under the API base, already percent-encoded (see [`PathBuilder`]).
    pub(crate) path: String,
    pub(crate) query: Vec<(&'static str, String)>,
    pub(crate) body: Option<Vec<u8>>,
}

impl Request {
    pub(crate) fn get(path: String) -> Self {
        Self {
            method: Method::GET,
            path,
            query: Vec::new(),
            body: None,
        }
    }

    pub(crate) fn query(mut self, pairs: impl IntoIterator<Item = (&'static str, String)>) -> Self {
        self.query.extend(pairs);
        self
    }
}

/// Characters kept as they are in a path segment: RFC 3986 unreserved. Everything else,
/// `/ ? # %` included, is percent-encoded, so an identifier stays one segment.
pub(crate) const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Builds a request path from literal segments and caller-supplied identifiers.
///
/// ```
/// use opsapi::PathBuilder;
/// let p = PathBuilder::new().lit("groups").id("group_id", "a/b?c#d%").unwrap().finish();
/// assert_eq!(p, "/groups/a%2Fb%3Fc%23d%25");
/// assert!(PathBuilder::new().id("host_id", "..").is_err());
/// assert!(PathBuilder::new().id("host_id", "").is_err());
/// ```
#[derive(Debug, Default)]
pub struct PathBuilder(String);

impl PathBuilder {
    /// An empty path.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a literal segment (no encoding).
    pub fn lit(mut self, segment: &str) -> Self {
        self.0.push('/');
        self.0.push_str(segment);
        self
    }

    /// Appends an identifier as one percent-encoded segment, rejecting what cannot be one:
    /// the empty string, `.` and `..` (which URL parsers resolve away even when encoded).
    pub fn id(mut self, argument: &str, value: &str) -> Result<Self> {
        if value.is_empty() {
            return Err(Error::invalid_argument(argument, "must not be empty"));
        }
        if value.trim().is_empty() {
            return Err(Error::invalid_argument(argument, "must not be blank"));
        }
        if value == "." || value == ".." {
            return Err(Error::invalid_argument(
                argument,
                format!("`{value}` cannot be sent as a path segment"),
            ));
        }
        self.0.push('/');
        self.0.extend(utf8_percent_encode(value, SEGMENT));
        Ok(self)
    }

    /// The path.
    pub fn finish(self) -> String {
        self.0
    }
}

/// The full URL of a request: base, path and query, with the query percent-encoded.
pub(crate) fn build_url(base: &str, path: &str, query: &[(&'static str, String)]) -> Result<Url> {
    let mut s = String::with_capacity(base.len() + path.len() + 64);
    s.push_str(base);
    s.push_str(path);
    if !query.is_empty() {
        s.push('?');
        let mut ser = url::form_urlencoded::Serializer::new(String::new());
        for (k, v) in query {
            ser.append_pair(k, v);
        }
        s.push_str(&ser.finish());
    }
    Url::parse(&s).map_err(|e| Error::Config(format!("cannot build a URL for {path}: {e}")))
}

/// The request target as it goes on the wire, which Digest signs.
fn request_target(url: &Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{}", url.path(), q),
        None => url.path().to_string(),
    }
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        let msg = inner.to_string();
        if !s.contains(&msg) {
            s.push_str(": ");
            s.push_str(&msg);
        }
        src = inner.source();
    }
    s
}

fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let delta = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(delta.to_std().unwrap_or(Duration::ZERO))
}

fn service_version(headers: &HeaderMap) -> Option<ServiceVersion> {
    let h = headers
        .get("x-vendor-service-version")
        .or_else(|| headers.get("x-mongodb-service-version"))?;
    Some(ServiceVersion::parse(h.to_str().ok()?))
}

/// Whether the origin (scheme, host, port) of two URLs is the same.
fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// Why an attempt failed, for the retry rules (see [`Client`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// The connection could not be made: nothing reached the server.
    Connect,
    /// 429: the server did not act on the request.
    RateLimited,
    /// A 502/503/504, a reset or a cut body: the server may have acted on the request.
    MaybeApplied,
}

/// Whether `method` may be sent again after `fault`.
fn may_retry(method: &Method, fault: Fault) -> bool {
    match fault {
        Fault::Connect | Fault::RateLimited => true,
        Fault::MaybeApplied => matches!(*method, Method::GET | Method::HEAD | Method::DELETE),
    }
}

/// A body that could not be read whole.
enum BodyError {
    TooLarge,
    Transport(reqwest::Error),
}

/// Reads a body of at most `limit` bytes. A larger one is not read further; memory grows to
/// about the limit, never to the size the server announces or sends.
async fn read_body(
    resp: &mut reqwest::Response,
    limit: usize,
) -> std::result::Result<Bytes, BodyError> {
    let announced = resp.content_length();
    if announced.is_some_and(|n| n > limit as u64) {
        return Err(BodyError::TooLarge);
    }
    let mut buf: Vec<u8> = Vec::with_capacity(announced.unwrap_or(0) as usize);
    while let Some(chunk) = resp.chunk().await.map_err(BodyError::Transport)? {
        let needed = buf.len() + chunk.len();
        if needed > limit {
            return Err(BodyError::TooLarge);
        }
        if needed > buf.capacity() {
            // Doubling, but never past the limit.
            let target = needed.max(buf.capacity() * 2).min(limit);
            buf.reserve_exact(target - buf.len());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(buf))
}

/// Reads up to `limit` bytes of a body that matters only as text for a message (an error
/// body, a 401 drained for connection reuse); the rest is left unread.
async fn read_some(resp: &mut reqwest::Response, limit: usize) -> Bytes {
    let mut buf = Vec::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        let room = limit - buf.len();
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if buf.len() >= limit {
            break;
        }
    }
    Bytes::from(buf)
}

impl Client {
    /// Starts building a client for the server at `base_url` (with or without
    /// `/api/public/v1.0`).
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            credentials: None,
            timeout_secs: 30.0,
            connect_timeout: Duration::from_secs(10),
            max_retries: 3,
            max_concurrency: 8,
            verify: true,
            ca_file: None,
            user_agent: None,
            retry_backoff: Duration::from_millis(250),
            max_retry_wait: Duration::from_secs(60),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES as u64,
        }
    }

    /// The API's base URL, ending in `/api/public/v1.0`.
    pub fn base_url(&self) -> &str {
        &self.inner.config.base
    }

    /// The public key the client signs with.
    pub fn public_key(&self) -> Option<&str> {
        self.inner
            .config
            .credentials
            .as_ref()
            .map(Credentials::public_key)
    }

    /// Requests in flight at once for paging and fleet pulls.
    pub fn max_concurrency(&self) -> usize {
        self.inner.config.max_concurrency
    }

    /// The time budget of one API request.
    pub fn timeout(&self) -> Duration {
        self.inner.config.timeout
    }

    /// The largest response body read.
    pub fn max_response_bytes(&self) -> usize {
        self.inner.config.max_response_bytes
    }

    /// The service version of the last answer that carried one.
    pub fn server_version(&self) -> Option<ServiceVersion> {
        self.inner
            .server_version
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The connection pool and Digest session of this process: after a `fork`, the child
    /// builds its own on first use, and the parent's stay as they were.
    fn process(&self) -> Result<Arc<PerProcess>> {
        let pid = std::process::id();
        {
            let current = self.inner.process.read().unwrap_or_else(|e| e.into_inner());
            if current.pid == pid {
                return Ok(current.clone());
            }
        }
        let mut slot = self
            .inner
            .process
            .write()
            .unwrap_or_else(|e| e.into_inner());
        if slot.pid != pid {
            let fresh = Arc::new(PerProcess::new(&self.inner.config)?);
            // The parent's pool and session hold handles to threads this process does not
            // have: dropping them could wait on those threads forever, so they are leaked.
            std::mem::forget(std::mem::replace(&mut *slot, fresh));
        }
        Ok(slot.clone())
    }

    /// Sends a request: signs it, follows same-origin redirects, re-challenges on 401,
    /// retries transient faults (see [`Client`] for the rules), all within the time budget,
    /// and turns error statuses into [`Error::Api`].
    pub(crate) async fn execute(&self, req: &Request) -> Result<Response> {
        let config = &self.inner.config;
        let deadline = Instant::now() + config.timeout;
        let process = self.process()?;
        let mut url = build_url(&config.base, &req.path, &req.query)?;
        let method = req.method.clone();
        let mut retries: u32 = 0;
        let mut redirects: u32 = 0;
        // An attempt that may have reached the server was made (for DELETE's 404 rule).
        let mut reached = false;
        // A signed request refused with a new challenge is sent once more with it; so is the
        // unsigned first request of a fresh client (the handshake).
        let mut signed_refusals = 0;
        let mut unsigned_refusals = 0;
        // A fresh client knows no challenge yet: one request fetches it, the others wait.
        let mut handshake = match &process.session {
            Some(s) if !s.has_challenge() => {
                let guard = tokio::time::timeout_at(deadline, process.handshake.lock())
                    .await
                    .map_err(|_| self.timeout_error(req))?;
                (!s.has_challenge()).then_some(guard)
            }
            _ => None,
        };
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(self.timeout_error(req));
            }
            let target = request_target(&url);
            let signed = process
                .session
                .as_ref()
                .and_then(|s| s.sign(method.as_str(), &target));
            let mut rb = process
                .http
                .request(method.clone(), url.clone())
                .timeout(remaining)
                .header(ACCEPT, "application/json")
                .header(USER_AGENT, config.user_agent.clone());
            if let Some(s) = &signed {
                rb = rb.header(AUTHORIZATION, &s.header);
            }
            if let Some(body) = &req.body {
                rb = rb
                    .header(CONTENT_TYPE, "application/json")
                    .body(body.clone());
            }
            let started = std::time::Instant::now();
            let mut resp = match rb.send().await {
                Ok(resp) => resp,
                Err(e) => {
                    let fault = if e.is_connect() {
                        Fault::Connect
                    } else {
                        Fault::MaybeApplied
                    };
                    reached |= fault == Fault::MaybeApplied;
                    // A refused certificate gets the same answer on every attempt.
                    let no_retry = e.is_timeout() || crate::tls::is_tls_error(&e);
                    let err = self.transport_error(req, e);
                    if !no_retry
                        && self
                            .retry(req, fault, &mut retries, deadline, None, &err)
                            .await
                    {
                        continue;
                    }
                    return Err(err);
                }
            };
            let status = resp.status();

            if status.is_redirection() {
                if let Some(next) = self.redirect(req, &url, &resp, &mut redirects)? {
                    let _ = read_some(&mut resp, 64 << 10).await;
                    url = next;
                    continue;
                }
            }

            if status == StatusCode::UNAUTHORIZED {
                let challenge = resp
                    .headers()
                    .get_all(WWW_AUTHENTICATE)
                    .iter()
                    .filter_map(|h| h.to_str().ok())
                    .find_map(|h| Challenge::parse(h).ok());
                // A signed request refused right after this request's own handshake is tried
                // again only for a stale nonce: a plain refusal then means wrong credentials.
                let fresh_challenge_refused = signed.is_some()
                    && unsigned_refusals > 0
                    && !challenge.as_ref().is_some_and(|c| c.stale);
                let refusals = if signed.is_some() {
                    &mut signed_refusals
                } else {
                    &mut unsigned_refusals
                };
                if let (Some(challenge), Some(session), 0, false) = (
                    challenge,
                    &process.session,
                    *refusals,
                    fresh_challenge_refused,
                ) {
                    tracing::debug!(
                        target: "opsapi",
                        method = %method, path = %req.path, stale = challenge.stale,
                        signed = signed.is_some(), "digest challenge"
                    );
                    session.update(challenge);
                    drop(handshake.take());
                    *refusals += 1;
                    // Read the 401 body so that the connection can be reused.
                    let _ = read_some(&mut resp, 64 << 10).await;
                    continue;
                }
            }
            drop(handshake.take());

            let headers = std::mem::take(resp.headers_mut());
            let retry_after = parse_retry_after(&headers);
            if status.is_success() {
                let body = match read_body(&mut resp, config.max_response_bytes).await {
                    Ok(body) => body,
                    Err(BodyError::TooLarge) => return Err(self.too_large(req)),
                    Err(BodyError::Transport(e)) => {
                        reached = true;
                        let timed_out = e.is_timeout();
                        let err = self.transport_error(req, e);
                        let fault = Fault::MaybeApplied;
                        if !timed_out
                            && self
                                .retry(req, fault, &mut retries, deadline, None, &err)
                                .await
                        {
                            continue;
                        }
                        return Err(err);
                    }
                };
                self.log_request(req, status, started, body.len());
                if let Some(v) = service_version(&headers) {
                    *self
                        .inner
                        .server_version
                        .write()
                        .unwrap_or_else(|e| e.into_inner()) = Some(v);
                }
                return Ok(Response { body });
            }

            let body = read_some(&mut resp, MAX_ERROR_BODY).await;
            self.log_request(req, status, started, body.len());
            if status == StatusCode::NOT_FOUND && method == Method::DELETE && reached {
                // An earlier attempt may have reached the server and deleted the entry: its
                // absence now is that attempt's success, not a wrong id.
                tracing::info!(
                    target: "opsapi",
                    method = %method, path = %req.path,
                    "404 on a retried DELETE: the first attempt deleted it"
                );
                return Ok(Response { body: Bytes::new() });
            }
            let mut api = ApiError::from_response(status.as_u16(), &body, retry_after);
            api.request = format!("{method} {}", req.path);
            let err = Error::Api(Box::new(api));
            let fault = match status.as_u16() {
                429 => Some(Fault::RateLimited),
                502..=504 => Some(Fault::MaybeApplied),
                _ => None,
            };
            if let Some(fault) = fault {
                reached |= fault == Fault::MaybeApplied;
                if self
                    .retry(req, fault, &mut retries, deadline, retry_after, &err)
                    .await
                {
                    continue;
                }
            }
            return Err(err);
        }
    }

    /// Decides whether to try again after `err`, and waits the backoff (or `Retry-After`)
    /// when so. No retry when the rules forbid it, the retries are spent, or the wait would
    /// not end before the time budget (or is longer than `max_retry_wait`).
    async fn retry(
        &self,
        req: &Request,
        fault: Fault,
        retries: &mut u32,
        deadline: Instant,
        retry_after: Option<Duration>,
        err: &Error,
    ) -> bool {
        let config = &self.inner.config;
        if !may_retry(&req.method, fault) || *retries >= config.max_retries {
            return false;
        }
        let attempt = *retries + 1;
        let delay = match retry_after {
            Some(d) if d > config.max_retry_wait => return false,
            Some(d) => d,
            None => {
                let base = config.retry_backoff.as_secs_f64() * 2f64.powi(attempt as i32 - 1);
                let capped = base.min(8.0);
                // "Equal jitter": half fixed, half random, so retries of many clients spread.
                Duration::from_secs_f64(capped / 2.0 + fastrand::f64() * capped / 2.0)
            }
        };
        if Instant::now() + delay >= deadline {
            tracing::debug!(
                target: "opsapi",
                method = %req.method, path = %req.path, delay_ms = delay.as_millis() as u64,
                "not retrying: the wait would outlast the time budget"
            );
            return false;
        }
        *retries = attempt;
        tracing::warn!(
            target: "opsapi",
            method = %req.method,
            path = %req.path,
            attempt,
            max_retries = config.max_retries,
            delay_ms = delay.as_millis() as u64,
            "retrying after {}",
            short_reason(err)
        );
        tokio::time::sleep(delay).await;
        true
    }

    /// The next URL of a redirect, when it is to be followed; an error for one that is not.
    fn redirect(
        &self,
        req: &Request,
        from: &Url,
        resp: &reqwest::Response,
        redirects: &mut u32,
    ) -> Result<Option<Url>> {
        let Some(location) = resp.headers().get(LOCATION) else {
            return Ok(None);
        };
        let secret = self.secret();
        let location = String::from_utf8_lossy(location.as_bytes()).into_owned();
        let transport = |message: String| Error::Transport {
            method: req.method.to_string(),
            path: req.path.clone(),
            message,
        };
        let next = from.join(&location).map_err(|e| {
            transport(format!(
                "the server redirected to `{}`, which is not a URL: {e}",
                redact_url(&location, secret)
            ))
        })?;
        if !same_origin(from, &next) {
            return Err(transport(format!(
                "the server answered {} with a redirect to another origin, `{}`; it was not \
                 followed, because credentials are never sent to another origin (if that \
                 server is the API, make it the base_url)",
                resp.status().as_u16(),
                redact_url(next.as_str(), secret)
            )));
        }
        let keeps_method = matches!(resp.status().as_u16(), 307 | 308);
        if req.method != Method::GET && !keeps_method {
            return Err(transport(format!(
                "the server answered {} with a redirect to `{}`; a {} is only re-sent to \
                 another URL on 307 or 308",
                resp.status().as_u16(),
                redact_url(next.path(), secret),
                req.method
            )));
        }
        *redirects += 1;
        if *redirects > MAX_REDIRECTS {
            return Err(transport(format!(
                "more than {MAX_REDIRECTS} redirects (the last to `{}`)",
                redact_url(next.path(), secret)
            )));
        }
        Ok(Some(next))
    }

    fn secret(&self) -> Option<&str> {
        self.inner
            .config
            .credentials
            .as_ref()
            .map(Credentials::private_key)
    }

    fn log_request(
        &self,
        req: &Request,
        status: StatusCode,
        started: std::time::Instant,
        n: usize,
    ) {
        tracing::debug!(
            target: "opsapi",
            method = %req.method,
            path = %req.path,
            status = status.as_u16(),
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            bytes = n,
            "request"
        );
    }

    fn timeout_error(&self, req: &Request) -> Error {
        Error::Timeout {
            method: req.method.to_string(),
            path: req.path.clone(),
            timeout: self.inner.config.timeout,
        }
    }

    fn too_large(&self, req: &Request) -> Error {
        Error::ResponseTooLarge {
            method: req.method.to_string(),
            path: req.path.clone(),
            limit: self.inner.config.max_response_bytes,
        }
    }

    fn transport_error(&self, req: &Request, e: reqwest::Error) -> Error {
        if e.is_timeout() {
            return self.timeout_error(req);
        }
        // reqwest names the URL in its messages; the path is named by this error already,
        // and the base URL is the user's own (where a key could have been pasted).
        let e = e.without_url();
        let message = crate::tls::with_hint(error_chain(&e), &e);
        Error::Transport {
            method: req.method.to_string(),
            path: req.path.clone(),
            message: match maskable(self.secret()) {
                Some(k) => message.replace(k, "***"),
                None => message,
            },
        }
    }

    /// Sends a GET and decodes the answer as one model.
    pub(crate) async fn get_model<T: crate::models::Decode>(&self, req: Request) -> Result<T> {
        let resp = self.execute(&req).await?;
        T::decode_at(&req.path, &resp.body)
    }
}

/// A short reason for a retry's log line.
fn short_reason(err: &Error) -> String {
    match err {
        Error::Api(api) => api.status.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_are_normalized() {
        for (input, want) in [
            ("https://om:8443", "https://om:8443/api/public/v1.0"),
            ("https://om:8443/", "https://om:8443/api/public/v1.0"),
            (
                "https://om:8443/api/public/v1.0",
                "https://om:8443/api/public/v1.0",
            ),
            (
                "https://om:8443/api/public/v1.0/",
                "https://om:8443/api/public/v1.0",
            ),
            (
                "http://127.0.0.1:1/ops",
                "http://127.0.0.1:1/ops/api/public/v1.0",
            ),
        ] {
            assert_eq!(normalize_base_url(input, None).unwrap(), want);
        }
        for bad in [
            "om:8443",
            "ftp://om",
            "https://u:p@om",
            "https://om/?x=1",
            "",
        ] {
            assert!(normalize_base_url(bad, None).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_key_pasted_into_the_base_url_is_never_echoed() {
        let key = "0c2e7a4b-5f21-4a8e-9d3b-6f1e2a3b4c5d";
        for url in [
            format!("https://pub:{key}@om:8443"),
            format!("https://{key}@om:8443"),
            format!("https://om:8443/{key}"),
            format!("https://om:8443/?key={key}"),
            format!("https://om:8443/#{key}"),
            format!("om:8443/{key}"),
            format!("https://om:8443 {key}"),
        ] {
            let err = normalize_base_url(&url, Some(key)).unwrap_err().to_string();
            assert!(!err.contains(key), "{err}");
            assert!(err.contains("`base_url`"), "{err}");
        }
        // Without the key at hand, the user info, query and fragment are still left out.
        let err = normalize_base_url(&format!("https://u:{key}@om"), None)
            .unwrap_err()
            .to_string();
        assert!(!err.contains(key), "{err}");
    }

    #[test]
    fn settings_out_of_range_name_the_setting() {
        let arg = |b: ClientBuilder| match b.build() {
            Err(Error::InvalidArgument { argument, message }) => format!("{argument}: {message}"),
            other => panic!("{other:?}"),
        };
        let b = || Client::builder("http://127.0.0.1:1").credentials("pub", "key");
        assert_eq!(
            arg(b().max_retries_u64(u64::MAX)),
            format!("max_retries: must be at most 100, not {}", u64::MAX)
        );
        assert_eq!(
            arg(b().max_concurrency_u64(0)),
            "max_concurrency: must be from 1 to 1024, not 0"
        );
        assert_eq!(
            arg(b().timeout_secs(f64::INFINITY)),
            "timeout: must be a positive number of seconds up to 86400, not inf"
        );
        assert_eq!(
            arg(b().timeout_secs(-1.0)),
            "timeout: must be a positive number of seconds up to 86400, not -1"
        );
        assert!(arg(b().user_agent("opsapi\r\nX-Evil: 1"))
            .starts_with("user_agent: contains a line break"));
        assert!(arg(b().user_agent("é")).starts_with("user_agent: must be printable ASCII"));
        let e = arg(b().credentials("pub\n", "key"));
        assert!(
            e.starts_with("public_key: contains a line break at position 3"),
            "{e}"
        );
        let e = arg(b().credentials("pub", "secret-key\n"));
        assert!(e.starts_with("private_key: contains a line break"), "{e}");
        assert!(!e.contains("secret-key"), "{e}");
        assert_eq!(
            arg(b().credentials("pub", "")),
            "private_key: must not be empty"
        );
        assert_eq!(
            arg(b().max_response_bytes(0)),
            "max_response_bytes: must be a positive number of bytes, not 0"
        );
    }

    #[test]
    fn urls_keep_encoded_segments_and_repeat_m() {
        let path = PathBuilder::new()
            .lit("groups")
            .id("group_id", "g/1")
            .unwrap()
            .lit("hosts")
            .id("host_id", "h?#")
            .unwrap()
            .finish();
        let url = build_url(
            "http://127.0.0.1:1/api/public/v1.0",
            &path,
            &[
                ("m", "A".into()),
                ("m", "B".into()),
                ("start", "2024-01-01T00:00:00Z".into()),
            ],
        )
        .unwrap();
        assert_eq!(
            request_target(&url),
            "/api/public/v1.0/groups/g%2F1/hosts/h%3F%23?m=A&m=B&start=2024-01-01T00%3A00%3A00Z"
        );
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(same_origin(&u("https://om/a"), &u("https://om:443/b?c")));
        assert!(!same_origin(&u("https://om/a"), &u("http://om/a")));
        assert!(!same_origin(&u("https://om/a"), &u("https://om:8443/a")));
        assert!(!same_origin(&u("https://om/a"), &u("https://evil/a")));
    }

    #[test]
    fn retry_rules_by_method() {
        for m in [Method::GET, Method::DELETE, Method::PATCH] {
            assert!(may_retry(&m, Fault::Connect));
            assert!(may_retry(&m, Fault::RateLimited));
        }
        assert!(may_retry(&Method::GET, Fault::MaybeApplied));
        assert!(may_retry(&Method::DELETE, Fault::MaybeApplied));
        assert!(!may_retry(&Method::PATCH, Fault::MaybeApplied));
    }

    #[test]
    fn service_versions_tolerate_missing_parts() {
        assert_eq!(
            ServiceVersion::parse("gitHash=9aedcdd; versionString=v20200901"),
            ServiceVersion {
                git_hash: Some("9aedcdd".into()),
                version_string: Some("v20200901".into())
            }
        );
        assert_eq!(ServiceVersion::parse("versionString=x").git_hash, None);
        assert_eq!(ServiceVersion::parse(""), ServiceVersion::default());
    }
}
