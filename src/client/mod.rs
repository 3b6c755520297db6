//! The client and its builder: settings checked once, the per-process HTTP stack, and the
//! base URL with its redaction rules. The pipeline that sends a request is in [`send`].
//!
//! (Over 600 lines: the builder's settings, each with its check and doc test, are most of
//! it; sending is in send.rs and pacing in pace.rs.)

mod base_url;
mod pace;
mod send;
mod server;

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use reqwest::header::HeaderValue;

use crate::auth::{Credentials, DigestSession};
use crate::error::{Error, Result};
pub use crate::request::API_PATH;

pub use base_url::redact_url;
use base_url::{maskable, normalize_base_url};
pub(crate) use send::error_chain;
use server::ServerClock;
pub use server::ServiceVersion;

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
    rate_limit: Option<f64>,
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

    /// An opt-in client-side limit: at most `per_second` requests per second per project
    /// (requests under `/groups/{id}/` count for that project, the others for one shared
    /// bucket), for servers that penalise 429s. Requests are paced, not refused: a request
    /// waits for its slot, and that wait counts against its `timeout`. Retries take slots too.
    ///
    /// ```
    /// let c = opsapi::Client::builder("https://om:8443").rate_limit(20.0).build().unwrap();
    /// assert_eq!(c.rate_limit(), Some(20.0));
    /// let e = opsapi::Client::builder("https://om:8443").rate_limit(0.0).build().unwrap_err();
    /// assert!(e.to_string().contains("`rate_limit`"));
    /// ```
    pub fn rate_limit(mut self, per_second: f64) -> Self {
        self.rate_limit = Some(per_second);
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
                server_clock: ServerClock::default(),
                pacer: pace::Pacer::default(),
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
        if let Some(r) = self.rate_limit {
            if !(r.is_finite() && r > 0.0 && r <= 1e6) {
                return Err(Error::invalid_argument(
                    "rate_limit",
                    format!("must be a number of requests per second above 0, not {r}"),
                ));
            }
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
            rate_limit: self.rate_limit,
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
    rate_limit: Option<f64>,
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
    /// `max_concurrency` permits: one is held by each request on the wire (sent, its answer
    /// read), not while it waits for its pace or a retry, so that requests waiting out a
    /// `Retry-After` do not stop the others of a listing or a fleet pull.
    in_flight: tokio::sync::Semaphore,
    /// Body buffers handed back once their body was decoded and let go (a fleet pull's
    /// measurements): the next body is read into one instead of fresh memory. A 1.5 MB body
    /// in fresh memory is 370 page faults; a fleet pull of 100 of them faulted in 150 MB.
    spare_bodies: std::sync::Mutex<Vec<Vec<u8>>>,
}

impl PerProcess {
    /// How many spare body buffers are kept (twice the requests on the wire by default:
    /// bodies are released in bursts), and the largest kept.
    const SPARE_BODIES: usize = 16;
    const SPARE_BODY_BYTES: usize = 32 << 20;

    /// A buffer for a body of about `size` bytes: a spare one if any.
    pub(crate) fn body_buffer(&self, size: usize) -> Vec<u8> {
        let spare = self
            .spare_bodies
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        match spare {
            Some(mut buf) => {
                buf.clear();
                buf.reserve(size);
                buf
            }
            None => Vec::with_capacity(size),
        }
    }

    /// Keeps `body`'s buffer for another body, if nothing else holds it.
    pub(crate) fn recycle(&self, body: bytes::Bytes) {
        let Ok(buf) = body.try_into_mut() else {
            return;
        };
        let buf = Vec::from(buf);
        if buf.capacity() > Self::SPARE_BODY_BYTES || buf.capacity() < 64 << 10 {
            return;
        }
        let mut spare = self.spare_bodies.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < Self::SPARE_BODIES {
            spare.push(buf);
        }
    }
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
            in_flight: tokio::sync::Semaphore::new(config.max_concurrency.max(1)),
            spare_bodies: std::sync::Mutex::new(Vec::new()),
        })
    }
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
    pub(crate) server_clock: ServerClock,
    pub(crate) pacer: pace::Pacer,
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
            rate_limit: None,
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

    /// The client-side limit in requests per second per project, if set.
    pub fn rate_limit(&self) -> Option<f64> {
        self.inner.config.rate_limit
    }

    /// The service version of the last answer that carried one.
    pub fn server_version(&self) -> Option<ServiceVersion> {
        self.inner
            .server_version
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The server's clock as its answers' `Date` headers show it (to the second), where it is
    /// more than 2 s from this machine's; else, and before any answer, this machine's clock.
    /// Acknowledgements count from it: "for 4 hours" is 4 hours of the server's time.
    ///
    /// ```
    /// let client = opsapi::Client::builder("https://om:8443").build().unwrap();
    /// let (before, now) = (chrono::Utc::now(), client.server_time());
    /// assert!(now >= before && now <= chrono::Utc::now());
    /// ```
    pub fn server_time(&self) -> chrono::DateTime<chrono::Utc> {
        self.inner.server_clock.now()
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
