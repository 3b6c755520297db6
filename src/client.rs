//! The client, its builder, and the request pipeline: URL building, Digest signing, retries.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use reqwest::header::{
    HeaderMap, ACCEPT, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER, USER_AGENT, WWW_AUTHENTICATE,
};
use reqwest::{Method, StatusCode};
use url::Url;

use crate::auth::{Challenge, Credentials, DigestSession};
use crate::error::{ApiError, Error, Result};

/// The path of the API under the server's address.
pub const API_PATH: &str = "/api/public/v1.0";

/// The default user agent: `opsapi/<version>`.
pub const DEFAULT_USER_AGENT: &str = concat!("opsapi/", env!("CARGO_PKG_VERSION"));

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

/// Builds a [`Client`].
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
    timeout: Duration,
    connect_timeout: Duration,
    max_retries: u32,
    max_concurrency: usize,
    verify: bool,
    ca_file: Option<PathBuf>,
    user_agent: Option<String>,
    retry_backoff: Duration,
    max_retry_wait: Duration,
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

    /// The timeout of each HTTP request (default 30 s).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The connect timeout (default 10 s, and never more than the request timeout).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Retries of transient faults: connect errors, 429, 502, 503 and 504 (default 3).
    pub fn max_retries(mut self, n: u32) -> Self {
        self.max_retries = n;
        self
    }

    /// Requests in flight at once for paging and fleet pulls (default 8).
    pub fn max_concurrency(mut self, n: usize) -> Self {
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
    /// (default 60 s).
    pub fn max_retry_wait(mut self, max: Duration) -> Self {
        self.max_retry_wait = max;
        self
    }

    /// Builds the client.
    pub fn build(self) -> Result<Client> {
        let base = normalize_base_url(&self.base_url)?;
        if self.max_concurrency == 0 {
            return Err(Error::invalid_argument(
                "max_concurrency",
                "must be at least 1",
            ));
        }
        if self.timeout.is_zero() {
            return Err(Error::invalid_argument(
                "timeout",
                "must be longer than zero",
            ));
        }
        let mut http = reqwest::Client::builder()
            .timeout(self.timeout)
            .connect_timeout(self.connect_timeout.min(self.timeout))
            .pool_max_idle_per_host(self.max_concurrency.max(8))
            .tcp_nodelay(true)
            .no_proxy();
        if !self.verify {
            http = http.tls_danger_accept_invalid_certs(true);
        }
        if let Some(path) = &self.ca_file {
            // Read (and its argument errors raised) even when verify=false turns it off.
            let tls = crate::tls::client_config(path)?;
            if self.verify {
                http = http.tls_backend_preconfigured(tls);
            }
        }
        let http = http.build().map_err(|e| {
            Error::Config(format!("cannot build the HTTP client: {}", error_chain(&e)))
        })?;
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base,
                session: self.credentials.map(DigestSession::new),
                timeout: self.timeout,
                max_retries: self.max_retries,
                max_concurrency: self.max_concurrency,
                user_agent: self
                    .user_agent
                    .unwrap_or_else(|| DEFAULT_USER_AGENT.to_string()),
                retry_backoff: self.retry_backoff,
                max_retry_wait: self.max_retry_wait,
                server_version: RwLock::new(None),
                handshake: tokio::sync::Mutex::new(()),
            }),
        })
    }
}

/// Accepts `https://host:port`, `https://host:port/`, `https://host:port/api/public/v1.0`
/// or a prefix behind a proxy (`https://host/ops`), and returns the API's base URL.
fn normalize_base_url(base: &str) -> Result<String> {
    let trimmed = base.trim().trim_end_matches('/');
    let url = Url::parse(trimmed)
        .map_err(|e| Error::invalid_argument("base_url", format!("`{base}` is not a URL: {e}")))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(Error::invalid_argument(
            "base_url",
            format!("`{base}` must start with https:// or http://"),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(Error::invalid_argument(
            "base_url",
            format!("`{base}` must not have a query or fragment"),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::invalid_argument(
            "base_url",
            "must not hold credentials; pass the API keys separately",
        ));
    }
    let s = url.as_str().trim_end_matches('/');
    Ok(if s.ends_with(API_PATH) {
        s.to_string()
    } else {
        format!("{s}{API_PATH}")
    })
}

/// A client of the API. Cheap to clone: clones share connections and the Digest session.
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
    http: reqwest::Client,
    base: String,
    session: Option<DigestSession>,
    timeout: Duration,
    max_retries: u32,
    pub(crate) max_concurrency: usize,
    user_agent: String,
    retry_backoff: Duration,
    max_retry_wait: Duration,
    server_version: RwLock<Option<ServiceVersion>>,
    /// Held by the one request that fetches the first Digest challenge of a fresh client, so
    /// that concurrent requests (paging, fleet pulls) wait for it and go out signed instead of
    /// each collecting a 401 of its own.
    handshake: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base)
            .field(
                "public_key",
                &self
                    .inner
                    .session
                    .as_ref()
                    .map(|s| s.credentials().public_key()),
            )
            .field("timeout", &self.inner.timeout)
            .field("max_retries", &self.inner.max_retries)
            .field("max_concurrency", &self.inner.max_concurrency)
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
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
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
    Url::parse(&s).map_err(|e| Error::Config(format!("cannot build a URL from `{s}`: {e}")))
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

impl Client {
    /// Starts building a client for the server at `base_url` (with or without
    /// `/api/public/v1.0`).
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.into(),
            credentials: None,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            max_retries: 3,
            max_concurrency: 8,
            verify: true,
            ca_file: None,
            user_agent: None,
            retry_backoff: Duration::from_millis(250),
            max_retry_wait: Duration::from_secs(60),
        }
    }

    /// The API's base URL, ending in `/api/public/v1.0`.
    pub fn base_url(&self) -> &str {
        &self.inner.base
    }

    /// The public key the client signs with.
    pub fn public_key(&self) -> Option<&str> {
        self.inner
            .session
            .as_ref()
            .map(|s| s.credentials().public_key())
    }

    /// Requests in flight at once for paging and fleet pulls.
    pub fn max_concurrency(&self) -> usize {
        self.inner.max_concurrency
    }

    /// The service version of the last answer that carried one.
    pub fn server_version(&self) -> Option<ServiceVersion> {
        self.inner
            .server_version
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Sends a request: signs it, retries transient faults, re-challenges once on 401, and
    /// turns error statuses into [`Error::Api`].
    pub(crate) async fn execute(&self, req: &Request) -> Result<Response> {
        let inner = &self.inner;
        let url = build_url(&inner.base, &req.path, &req.query)?;
        let target = request_target(&url);
        let method = req.method.as_str();
        let mut attempt: u32 = 0;
        let mut rechallenged = false;
        // A fresh client knows no challenge yet: one request fetches it, the others wait.
        let mut handshake = match &inner.session {
            Some(s) if !s.has_challenge() => {
                let guard = inner.handshake.lock().await;
                (!s.has_challenge()).then_some(guard)
            }
            _ => None,
        };
        loop {
            let signed = inner.session.as_ref().and_then(|s| s.sign(method, &target));
            let mut rb = inner
                .http
                .request(req.method.clone(), url.clone())
                .header(ACCEPT, "application/json")
                .header(USER_AGENT, &inner.user_agent);
            if let Some(s) = &signed {
                rb = rb.header(AUTHORIZATION, &s.header);
            }
            if let Some(body) = &req.body {
                rb = rb
                    .header(CONTENT_TYPE, "application/json")
                    .body(body.clone());
            }
            let started = Instant::now();
            let result = rb.send().await;
            let resp = match result {
                Ok(resp) => resp,
                Err(e) => {
                    let err = self.transport_error(req, &e);
                    if self.retryable_transport(req, &e) && attempt < inner.max_retries {
                        attempt += 1;
                        self.backoff(req, attempt, None, &err.to_string()).await;
                        continue;
                    }
                    return Err(err);
                }
            };
            let status = resp.status();
            let headers = resp.headers().clone();

            if status == StatusCode::UNAUTHORIZED && !rechallenged {
                if let Some(session) = &inner.session {
                    let challenge = headers
                        .get_all(WWW_AUTHENTICATE)
                        .iter()
                        .filter_map(|h| h.to_str().ok())
                        .find_map(|h| Challenge::parse(h).ok());
                    if let Some(challenge) = challenge {
                        tracing::debug!(
                            target: "opsapi",
                            method, path = %req.path, stale = challenge.stale, signed = signed.is_some(),
                            "digest challenge"
                        );
                        session.update(challenge);
                        drop(handshake.take());
                        rechallenged = true;
                        // Drain the 401 body so the connection can be reused.
                        let _ = resp.bytes().await;
                        continue;
                    }
                }
            }

            drop(handshake.take());
            let retryable_status = matches!(status.as_u16(), 429 | 502 | 503 | 504);
            let retry_after = parse_retry_after(&headers);
            if retryable_status && attempt < inner.max_retries {
                let too_long = retry_after.is_some_and(|d| d > inner.max_retry_wait);
                if !too_long {
                    let _ = resp.bytes().await;
                    attempt += 1;
                    self.backoff(req, attempt, retry_after, status.as_str())
                        .await;
                    continue;
                }
            }

            let body = match resp.bytes().await {
                Ok(b) => b,
                Err(e) => {
                    let err = self.transport_error(req, &e);
                    if self.retryable_transport(req, &e) && attempt < inner.max_retries {
                        attempt += 1;
                        self.backoff(req, attempt, None, &err.to_string()).await;
                        continue;
                    }
                    return Err(err);
                }
            };
            tracing::debug!(
                target: "opsapi",
                method,
                path = %req.path,
                status = status.as_u16(),
                duration_ms = started.elapsed().as_secs_f64() * 1000.0,
                bytes = body.len(),
                "request"
            );
            if status.is_success() {
                if let Some(v) = service_version(&headers) {
                    *inner
                        .server_version
                        .write()
                        .unwrap_or_else(|e| e.into_inner()) = Some(v);
                }
                return Ok(Response { body });
            }
            let mut api = ApiError::from_response(status.as_u16(), &body, retry_after);
            api.request = format!("{method} {}", req.path);
            return Err(Error::Api(Box::new(api)));
        }
    }

    fn transport_error(&self, req: &Request, e: &reqwest::Error) -> Error {
        if e.is_timeout() {
            Error::Timeout {
                method: req.method.to_string(),
                path: req.path.clone(),
                timeout: self.inner.timeout,
            }
        } else {
            Error::Transport {
                method: req.method.to_string(),
                path: req.path.clone(),
                message: crate::tls::with_hint(error_chain(e), e),
            }
        }
    }

    /// Connect errors are always safe to retry: nothing reached the server. Other transport
    /// faults (a reset, a cut body) are retried only for GET, which changes nothing.
    fn retryable_transport(&self, req: &Request, e: &reqwest::Error) -> bool {
        if e.is_timeout() || crate::tls::is_tls_error(e) {
            return false;
        }
        e.is_connect() || req.method == Method::GET
    }

    async fn backoff(&self, req: &Request, attempt: u32, retry_after: Option<Duration>, why: &str) {
        let delay = match retry_after {
            Some(d) => d,
            None => {
                let base = self.inner.retry_backoff.as_secs_f64() * 2f64.powi(attempt as i32 - 1);
                let capped = base.min(8.0);
                // "Equal jitter": half fixed, half random, so retries of many clients spread.
                Duration::from_secs_f64(capped / 2.0 + fastrand::f64() * capped / 2.0)
            }
        };
        tracing::warn!(
            target: "opsapi",
            method = %req.method,
            path = %req.path,
            attempt,
            max_retries = self.inner.max_retries,
            delay_ms = delay.as_millis() as u64,
            "retrying after {why}"
        );
        tokio::time::sleep(delay).await;
    }

    /// Sends a GET and decodes the answer as one model.
    pub(crate) async fn get_model<T: crate::models::Decode>(&self, req: Request) -> Result<T> {
        let resp = self.execute(&req).await?;
        T::decode_at(&req.path, &resp.body)
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
            assert_eq!(normalize_base_url(input).unwrap(), want);
        }
        for bad in [
            "om:8443",
            "ftp://om",
            "https://u:p@om",
            "https://om/?x=1",
            "",
        ] {
            assert!(normalize_base_url(bad).is_err(), "{bad}");
        }
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
