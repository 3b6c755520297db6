//! The client: its checked settings, the per-process HTTP stack and authentication, and what
//! it learns from the server. The builder is in [`builder`] (which also chooses the
//! authentication scheme), the base URL with its redaction rules in `base_url.rs`, the
//! pipeline that sends a request in [`send`], its retry rules and error mapping in `retry.rs`
//! (shared with the token endpoint's), authentication in `authenticate.rs` (Digest) and
//! `oauth.rs` (Atlas service accounts), pacing in `pace.rs`.

mod authenticate;
mod base_url;
mod builder;
mod oauth;
mod pace;
mod retry;
mod send;
mod server;
mod token_file;

use std::sync::{Arc, RwLock};
use std::time::Duration;

use reqwest::header::HeaderValue;

use crate::auth::{Credentials, ServiceAccount};
use crate::error::{Error, Result};
use crate::flavour::{EndpointSet, Flavour};
pub use crate::request::API_PATH;

use authenticate::Authenticate;
use base_url::maskable;
pub use base_url::redact_url;
pub use builder::ClientBuilder;
pub(crate) use retry::error_chain;
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

/// What it takes to build the HTTP stack again (in a child process after `fork`).
#[derive(Clone)]
struct Tls {
    verify: bool,
    /// The TLS configuration built from `ca_file` (see `crate::tls`).
    ca_file: Option<rustls::ClientConfig>,
}

/// The client-side limits: one for every request, and one per endpoint set.
#[derive(Debug, Clone, Copy, Default)]
struct RateLimits {
    all: Option<f64>,
    per_set: [Option<f64>; EndpointSet::ALL.len()],
}

impl RateLimits {
    /// The limit of a request of `set` (the set's own, else the one for every request).
    fn of(&self, set: Option<EndpointSet>) -> Option<f64> {
        set.and_then(|s| self.per_set[s as usize]).or(self.all)
    }
}

/// The checked settings of a client.
struct Config {
    base: String,
    flavour: Flavour,
    credentials: Option<Credentials>,
    service_account: Option<ServiceAccount>,
    /// Where a service account buys its tokens.
    token_url: Option<url::Url>,
    /// Where it shares them with the machine's other processes (`None`: the cache is off).
    token_file: Option<token_file::TokenFile>,
    timeout: Duration,
    connect_timeout: Duration,
    max_retries: u32,
    max_concurrency: usize,
    tls: Tls,
    user_agent: HeaderValue,
    retry_backoff: Duration,
    max_retry_wait: Duration,
    max_response_bytes: usize,
    rate_limit: RateLimits,
}

/// The parts of a client that belong to one process: the connection pool (its connections
/// are driven by tasks of the process's runtime) and the authentication (the Digest session
/// and its handshake lock; the lock of a token fetch). A child made by `fork` inherits none
/// of the threads behind them, so it builds its own on first use (see [`Client::process`]);
/// the parent keeps its own untouched. (A service account's token itself is the client's,
/// [`Inner::tokens`]: a child uses the token its parent bought. Other processes take it from
/// the machine's token cache, `token_file.rs`.)
struct PerProcess {
    pid: u32,
    http: reqwest::Client,
    auth: Option<Box<dyn Authenticate>>,
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
            auth: builder::authenticator(config, &http),
            http,
            in_flight: tokio::sync::Semaphore::new(config.max_concurrency.max(1)),
            spare_bodies: std::sync::Mutex::new(Vec::new()),
        })
    }
}

/// A client of the API (Ops Manager, Cloud Manager or Atlas: [`Client::flavour`]). Cheap to
/// clone: clones share connections, the Digest session and a service account's token.
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
    /// A service account's access token: one for every request of the client.
    pub(crate) tokens: oauth::TokenCache,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = &self.inner.config;
        f.debug_struct("Client")
            .field("base_url", &c.base)
            .field("flavour", &c.flavour)
            .field(
                "public_key",
                &c.credentials.as_ref().map(Credentials::public_key),
            )
            .field(
                "client_id",
                &c.service_account.as_ref().map(ServiceAccount::client_id),
            )
            .field("timeout", &c.timeout)
            .field("max_retries", &c.max_retries)
            .field("max_concurrency", &c.max_concurrency)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Starts building a client for the server at `base_url` (with or without the API's
    /// path). The flavour is the URL's ([`Flavour::from_base_url`]) unless
    /// [`ClientBuilder::flavour`] says otherwise.
    pub fn builder(base_url: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(base_url.into(), None)
    }

    /// Starts building a client of Atlas's Admin API v2 at `https://cloud.mongodb.com` (see
    /// [`ClientBuilder::base_url`]), with an API key ([`ClientBuilder::credentials`], Digest)
    /// or a service account ([`ClientBuilder::service_account`], OAuth 2).
    ///
    /// ```
    /// use opsapi::{Client, Flavour};
    /// let client = Client::atlas().service_account("mdb_sa_id_1", "mdb_sa_sk_2").build().unwrap();
    /// assert_eq!(client.flavour(), Flavour::Atlas);
    /// assert_eq!(client.base_url(), "https://cloud.mongodb.com/api/atlas/v2");
    /// let digest = Client::atlas().credentials("PUBLIC", "PRIVATE").build().unwrap();
    /// assert_eq!(digest.public_key(), Some("PUBLIC"));
    /// ```
    pub fn atlas() -> ClientBuilder {
        ClientBuilder::new("https://cloud.mongodb.com".into(), Some(Flavour::Atlas))
    }

    /// The API's base URL: the server's address and the flavour's API path
    /// (`/api/public/v1.0`, or `/api/atlas/v2` for Atlas).
    pub fn base_url(&self) -> &str {
        &self.inner.config.base
    }

    /// The server's flavour: Ops Manager, Cloud Manager or Atlas.
    pub fn flavour(&self) -> Flavour {
        self.inner.config.flavour
    }

    /// The public key the client signs with (Digest).
    pub fn public_key(&self) -> Option<&str> {
        self.inner
            .config
            .credentials
            .as_ref()
            .map(Credentials::public_key)
    }

    /// The client id of the service account the client buys its tokens with (Atlas).
    pub fn client_id(&self) -> Option<&str> {
        self.inner
            .config
            .service_account
            .as_ref()
            .map(ServiceAccount::client_id)
    }

    /// The folder of the token cache the client shares with the machine's other processes
    /// (a service account's, unless [`ClientBuilder::token_cache`] turned it off).
    ///
    /// ```
    /// let dir = std::env::temp_dir().join("etl-tokens");
    /// let c = opsapi::Client::atlas()
    ///     .service_account("mdb_sa_id_1", "mdb_sa_sk_2")
    ///     .token_cache_dir(&dir)
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(c.token_cache(), Some(dir.as_path()));
    /// let off = opsapi::Client::atlas().service_account("id", "secret").token_cache(false);
    /// assert_eq!(off.build().unwrap().token_cache(), None);
    /// ```
    pub fn token_cache(&self) -> Option<&std::path::Path> {
        self.inner.config.token_file.as_ref().map(|f| f.dir())
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
        self.inner.config.rate_limit.all
    }

    /// The client-side limit of the requests of one endpoint set, per project: the set's
    /// own ([`ClientBuilder::rate_limit_for`]), else [`Client::rate_limit`].
    pub fn rate_limit_for(&self, set: EndpointSet) -> Option<f64> {
        self.inner.config.rate_limit.of(Some(set))
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

    /// [`Error::Unsupported`] when the client's flavour lacks `operation` (a handle checks
    /// before work that sends no request at first: a stream, an empty batch).
    pub(crate) fn require(&self, operation: crate::Operation) -> Result<()> {
        let flavour = self.flavour();
        if flavour.supports(operation) {
            Ok(())
        } else {
            Err(Error::Unsupported {
                operation: operation.name(),
                flavour,
            })
        }
    }

    /// The secret to keep out of messages: the private key or the client secret.
    fn secret(&self) -> Option<&str> {
        let c = &self.inner.config;
        c.credentials
            .as_ref()
            .map(Credentials::private_key)
            .or_else(|| {
                c.service_account
                    .as_ref()
                    .map(ServiceAccount::client_secret)
            })
    }

    /// The connection pool and authentication of this process: after a `fork`, the child
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
