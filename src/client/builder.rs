//! The builder of a [`Client`]: every setting, checked once by [`ClientBuilder::build`], which
//! names the setting at fault.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use reqwest::header::HeaderValue;

use super::authenticate::{Authenticate, Digest};
use super::base_url::normalize_base_url;
use super::oauth::OAuth;
use super::{
    pace, Client, Config, Inner, PerProcess, RateLimits, Tls, DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_USER_AGENT, MAX_CONCURRENCY_LIMIT, MAX_RETRIES_LIMIT, MAX_TIMEOUT,
};
use crate::auth::{Credentials, ServiceAccount};
use crate::error::{Error, Result};
use crate::flavour::{EndpointSet, Flavour};

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
    flavour: Option<Flavour>,
    credentials: Option<Credentials>,
    service_account: Option<ServiceAccount>,
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
    rate_limit_sets: Vec<(EndpointSet, f64)>,
    token_cache: bool,
    token_cache_dir: Option<PathBuf>,
}

impl ClientBuilder {
    /// A builder with every default, for the server at `base_url`.
    pub(super) fn new(base_url: String, flavour: Option<Flavour>) -> Self {
        Self {
            base_url,
            flavour,
            credentials: None,
            service_account: None,
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
            rate_limit_sets: Vec::new(),
            token_cache: true,
            token_cache_dir: None,
        }
    }

    /// The server's address (what [`Client::builder`] was given; for [`Client::atlas`],
    /// `https://cloud.mongodb.com` unless set here).
    pub fn base_url(mut self, base_url: impl Into<String>) -> Self {
        self.base_url = base_url.into();
        self
    }

    /// The server's flavour, where its base URL does not tell it (an Ops Manager URL names
    /// Ops Manager; `cloud.mongodb.com` Cloud Manager, and Atlas under `/api/atlas/v2`).
    ///
    /// ```
    /// use opsapi::{Client, Flavour};
    /// let c = Client::builder("http://127.0.0.1:8080").flavour(Flavour::CloudManager).build().unwrap();
    /// assert_eq!((c.flavour(), c.base_url()), (Flavour::CloudManager, "http://127.0.0.1:8080/api/public/v1.0"));
    /// ```
    pub fn flavour(mut self, flavour: Flavour) -> Self {
        self.flavour = Some(flavour);
        self
    }

    /// An Atlas service account (OAuth 2 client credentials), instead of an API key: the
    /// client buys an access token at `POST {base_url}/api/oauth/token` and sends it as
    /// `Authorization: Bearer` until shortly before it expires. One token serves every request
    /// of the client (and its clones, threads and tasks); it is refreshed once, before it
    /// expires, and a request refused because its token expired is sent once more with a
    /// fresh one. Atlas only.
    ///
    /// ```
    /// let client = opsapi::Client::atlas().service_account("mdb_sa_id_1", "mdb_sa_sk_2").build().unwrap();
    /// assert_eq!(client.client_id(), Some("mdb_sa_id_1"));
    /// assert!(!format!("{client:?}").contains("mdb_sa_sk_2"));
    /// ```
    pub fn service_account(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.service_account = Some(ServiceAccount::new(client_id, client_secret));
        self
    }
    /// Whether a service account's tokens are shared with the other processes of the machine
    /// (default true): kept in a cache file under the user's cache folder
    /// (`$XDG_CACHE_HOME/opsapi`, else `~/.cache/opsapi`, `~/Library/Caches/opsapi` on macOS,
    /// `%LOCALAPPDATA%\opsapi` on Windows), mode 0600, locked while a process buys one,
    /// keyed by base URL and client id, holding each token and its expiry and never the
    /// secret. A cron job's runs or a cluster's workers then buy one token between them from
    /// a token endpoint that allows about ten a minute. `false`: the client keeps its tokens
    /// to itself.
    pub fn token_cache(mut self, on: bool) -> Self {
        self.token_cache = on;
        self
    }

    /// The folder of the token cache ([`ClientBuilder::token_cache`]) instead of the user's
    /// cache folder. It is used only if it is the user's own and no one else may write in it.
    pub fn token_cache_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.token_cache_dir = Some(dir.into());
        self
    }

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

    /// The opt-in client-side limit of one endpoint set (Atlas's token buckets: monitoring,
    /// alerts, events), per project; it replaces [`ClientBuilder::rate_limit`] for that set.
    /// On Ops Manager and Cloud Manager, which limit a project's requests together, a set's
    /// requests are paced at its rate within the project's one pace.
    ///
    /// ```
    /// use opsapi::{Client, EndpointSet};
    /// let c = Client::atlas().rate_limit_for(EndpointSet::Monitoring, 1.5).build().unwrap();
    /// assert_eq!(c.rate_limit_for(EndpointSet::Monitoring), Some(1.5));
    /// assert_eq!(c.rate_limit_for(EndpointSet::Alerts), None);
    /// ```
    pub fn rate_limit_for(mut self, set: EndpointSet, per_second: f64) -> Self {
        self.rate_limit_sets.retain(|(s, _)| *s != set);
        self.rate_limit_sets.push((set, per_second));
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
        let secret = match (&self.credentials, &self.service_account) {
            (Some(c), _) => Some(c.private_key()),
            (None, Some(sa)) => Some(sa.client_secret()),
            (None, None) => None,
        };
        let flavour = self
            .flavour
            .unwrap_or_else(|| Flavour::from_base_url(&self.base_url));
        let (base, root) = normalize_base_url(&self.base_url, secret, flavour)?;
        let config = self.check(flavour, base, root)?;
        let process = RwLock::new(Arc::new(PerProcess::new(&config)?));
        Ok(Client {
            inner: Arc::new(Inner {
                config,
                process,
                server_version: RwLock::new(None),
                server_clock: Default::default(),
                pacer: pace::Pacer::default(),
                tokens: Default::default(),
            }),
        })
    }

    fn check(self, flavour: Flavour, base: String, root: String) -> Result<Config> {
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
        let rates = self.rate_limit.iter().map(|r| (None, *r));
        let sets = self.rate_limit_sets.iter().map(|(s, r)| (Some(*s), *r));
        for (set, r) in rates.chain(sets) {
            if !(r.is_finite() && r > 0.0 && r <= 1e6) {
                let of = set.map(|s| format!(" of `{s}`")).unwrap_or_default();
                return Err(Error::invalid_argument(
                    "rate_limit",
                    format!(
                        "the rate{of} must be a number of requests per second above 0, not {r}"
                    ),
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
        if let Some(sa) = &self.service_account {
            if self.credentials.is_some() {
                return Err(Error::invalid_argument(
                    "client_id",
                    "give either an API key (public_key, private_key) or a service account \
                     (client_id, client_secret), not both",
                ));
            }
            if flavour != Flavour::Atlas {
                return Err(Error::invalid_argument(
                    "client_id",
                    format!(
                        "service accounts are Atlas's; this client is for {flavour} (use \
                         Client.atlas, or an API key)"
                    ),
                ));
            }
            check_header_text("client_id", sa.client_id())?;
            check_key("client_secret", sa.client_secret())?;
        }
        let tls = Tls {
            verify: self.verify,
            // Read (and its argument errors raised) even when verify=false turns it off.
            ca_file: self
                .ca_file
                .map(|path| crate::tls::client_config(&path))
                .transpose()?,
        };
        let token_url = self
            .service_account
            .is_some()
            .then(|| url::Url::parse(&format!("{root}{}", crate::flavour::OAUTH_TOKEN_PATH)))
            .transpose()
            .map_err(|e| Error::invalid_argument("base_url", e.to_string()))?;
        let token_file = match (&self.service_account, self.token_cache) {
            (Some(sa), true) => self
                .token_cache_dir
                .map(|dir| {
                    let bytes = dir.as_os_str().as_encoded_bytes();
                    if bytes.is_empty() || bytes.contains(&0) {
                        return Err(Error::invalid_argument(
                            "token_cache",
                            "the folder must be a path, not empty, without a NUL",
                        ));
                    }
                    std::path::absolute(&dir)
                        .map_err(|e| Error::invalid_argument("token_cache", e.to_string()))
                })
                .transpose()?
                .or_else(super::token_file::default_dir)
                .map(|dir| super::token_file::TokenFile::new(dir, &base, sa.client_id())),
            _ => None,
        };
        let mut per_set = [None; EndpointSet::ALL.len()];
        for (set, r) in &self.rate_limit_sets {
            per_set[*set as usize] = Some(*r);
        }
        Ok(Config {
            base,
            flavour,
            credentials: self.credentials,
            service_account: self.service_account,
            token_url,
            token_file,
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
            rate_limit: RateLimits {
                all: self.rate_limit,
                per_set,
            },
        })
    }
}

/// The authentication scheme of a client's settings, if it has credentials: Digest for an API
/// key, OAuth 2 for a service account. Chosen here, with the settings; each process builds its
/// own (`PerProcess::new`), over its own connection pool.
pub(super) fn authenticator(
    config: &Config,
    http: &reqwest::Client,
) -> Option<Box<dyn Authenticate>> {
    if let Some(c) = &config.credentials {
        return Some(Box::new(Digest::new(c.clone())));
    }
    let (sa, url) = (config.service_account.as_ref()?, config.token_url.as_ref()?);
    Some(Box::new(OAuth::new(
        sa.clone(),
        url.clone(),
        http.clone(),
        config.token_file.clone(),
    )))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Client;

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
