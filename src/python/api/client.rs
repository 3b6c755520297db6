//! `Client` and `AsyncClient`: construction (every default and check is the Rust builder's;
//! `None` means "not given") and the resource handles.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyType};

// The classes of every resource of `resources!`, whose getters `client_classes!` writes: a
// new resource's row there is all this file needs.
use super::*;
use crate::python::args;
use crate::python::errors::{invalid_argument, to_py_err};

/// The constructor's keyword arguments, as given: `None` where not given, so that the
/// defaults and every check are the Rust builder's.
pub(crate) struct ClientOptions<'py> {
    pub(crate) timeout: Option<Bound<'py, PyAny>>,
    pub(crate) max_retries: Option<Bound<'py, PyAny>>,
    pub(crate) max_concurrency: Option<Bound<'py, PyAny>>,
    pub(crate) verify: Option<Bound<'py, PyAny>>,
    pub(crate) ca_file: Option<Bound<'py, PyAny>>,
    pub(crate) user_agent: Option<Bound<'py, PyAny>>,
    pub(crate) max_response_bytes: Option<Bound<'py, PyAny>>,
    pub(crate) rate_limit: Option<Bound<'py, PyAny>>,
    /// A service account's token cache: True, False or its folder (`Client.atlas`,
    /// `from_env`).
    pub(crate) token_cache: Option<Bound<'py, PyAny>>,
}

/// What signs the client's requests: an API key (Digest) or an Atlas service account.
enum Key {
    Digest(String, String),
    ServiceAccount(String, String),
}

/// The client: the builder of `base_url` (or Atlas's, for `Client.atlas`), the flavour when
/// given, the key, the options.
fn build_client(
    py: Python<'_>,
    builder: crate::ClientBuilder,
    flavour: Option<&Bound<'_, PyAny>>,
    key: Key,
    o: &ClientOptions<'_>,
) -> PyResult<crate::Client> {
    let mut b = match key {
        Key::Digest(public, private) => builder.credentials(public, private),
        Key::ServiceAccount(id, secret) => builder.service_account(id, secret),
    };
    if let Some(f) = args::string(py, "flavour", flavour)? {
        b = b.flavour(f.parse().map_err(|e| to_py_err(py, e))?);
    }
    if let Some(t) = args::seconds(py, "timeout", o.timeout.as_ref())? {
        b = b.timeout_secs(t);
    }
    if let Some(n) = args::count(py, "max_retries", o.max_retries.as_ref())? {
        b = b.max_retries_u64(n);
    }
    if let Some(n) = args::count(py, "max_concurrency", o.max_concurrency.as_ref())? {
        b = b.max_concurrency_u64(n);
    }
    if let Some(v) = args::flag(py, "verify", o.verify.as_ref())? {
        b = b.verify(v);
    }
    if let Some(ca) = args::path(py, "ca_file", o.ca_file.as_ref())? {
        b = b.ca_file(ca);
    }
    if let Some(ua) = args::string(py, "user_agent", o.user_agent.as_ref())? {
        b = b.user_agent(ua);
    }
    if let Some(n) = args::count(py, "max_response_bytes", o.max_response_bytes.as_ref())? {
        b = b.max_response_bytes(n);
    }
    b = rate_limit(py, b, o.rate_limit.as_ref())?;
    b = token_cache(py, b, o.token_cache.as_ref())?;
    b.build().map_err(|e| to_py_err(py, e))
}

/// `token_cache=`: True (the user's cache folder), False (off) or the cache's folder.
fn token_cache(
    py: Python<'_>,
    b: crate::ClientBuilder,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<crate::ClientBuilder> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(b);
    };
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return Ok(b.token_cache(v.is_truthy()?));
    }
    match args::path(py, "token_cache", Some(v)) {
        Ok(Some(dir)) => Ok(b.token_cache_dir(dir)),
        _ => Err(invalid_argument(
            py,
            "token_cache",
            format!(
                "must be True, False or a folder (str or os.PathLike), not {}",
                args::type_name(v)
            ),
        )),
    }
}

/// `rate_limit=`: requests per second per project, or a dict of them per endpoint set
/// (`{"monitoring": 1.5, "alerts": 8}`).
fn rate_limit(
    py: Python<'_>,
    mut b: crate::ClientBuilder,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<crate::ClientBuilder> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(b);
    };
    let Ok(sets) = v.cast::<PyDict>() else {
        if let Some(r) = args::number(py, "rate_limit", Some(v), "requests per second")? {
            b = b.rate_limit(r);
        }
        return Ok(b);
    };
    for (set, rate) in sets.iter() {
        let set = args::text(py, "rate_limit", &set)?;
        let set: crate::EndpointSet = set.parse().map_err(|e| to_py_err(py, e))?;
        let what = "requests per second";
        if let Some(r) = args::number(py, "rate_limit", Some(&rate), what)? {
            b = b.rate_limit_for(set, r);
        }
    }
    Ok(b)
}

fn env_var(py: Python<'_>, name: &str) -> PyResult<String> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => Ok(v),
        _ => Err(invalid_argument(
            py,
            name,
            format!("the environment variable {name} is not set"),
        )),
    }
}

fn env_opt(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The client from the environment: `OPSAPI_BASE_URL` (optional for Atlas), an API key
/// (`OPSAPI_PUBLIC_KEY`, `OPSAPI_PRIVATE_KEY`) or a service account (`OPSAPI_CLIENT_ID`,
/// `OPSAPI_CLIENT_SECRET`), and the optional `OPSAPI_FLAVOUR` and `OPSAPI_CA_FILE`.
fn from_env(py: Python<'_>, o: ClientOptions<'_>) -> PyResult<crate::Client> {
    let flavour = env_opt("OPSAPI_FLAVOUR");
    let key = match env_opt("OPSAPI_CLIENT_ID") {
        Some(id) => Key::ServiceAccount(id, env_var(py, "OPSAPI_CLIENT_SECRET")?),
        None => Key::Digest(
            env_var(py, "OPSAPI_PUBLIC_KEY")?,
            env_var(py, "OPSAPI_PRIVATE_KEY")?,
        ),
    };
    let atlas = matches!(key, Key::ServiceAccount(..)) || flavour.as_deref() == Some("atlas");
    let builder = match (env_opt("OPSAPI_BASE_URL"), atlas) {
        (Some(url), false) => crate::Client::builder(url),
        (Some(url), true) => crate::Client::atlas().base_url(url),
        (None, true) => crate::Client::atlas(),
        (None, false) => return Err(env_var(py, "OPSAPI_BASE_URL").unwrap_err()),
    };
    let ca_file = match o.ca_file {
        Some(ca) => Some(ca),
        None => env_opt("OPSAPI_CA_FILE").map(|v| PyString::new(py, &v).into_any()),
    };
    let o = ClientOptions { ca_file, ..o };
    let flavour = flavour.map(|f| PyString::new(py, &f).into_any());
    build_client(py, builder, flavour.as_ref(), key, &o)
}

/// `Client.atlas(...)`: exactly one of an API key and a service account, each complete.
fn atlas_key(
    py: Python<'_>,
    public_key: Option<&Bound<'_, PyAny>>,
    private_key: Option<&Bound<'_, PyAny>>,
    client_id: Option<&Bound<'_, PyAny>>,
    client_secret: Option<&Bound<'_, PyAny>>,
) -> PyResult<Key> {
    let public_key = args::string(py, "public_key", public_key)?;
    let private_key = args::string(py, "private_key", private_key)?;
    let client_id = args::string(py, "client_id", client_id)?;
    let client_secret = args::string(py, "client_secret", client_secret)?;
    let digest = public_key.is_some() || private_key.is_some();
    let account = client_id.is_some() || client_secret.is_some();
    let missing =
        |name: &str, pair: &str| invalid_argument(py, name, format!("is missing: give {pair}"));
    match (digest, account) {
        (true, true) => Err(invalid_argument(
            py,
            "client_id",
            "give either an API key (public_key, private_key) or a service account \
             (client_id, client_secret), not both",
        )),
        (false, false) => Err(invalid_argument(
            py,
            "client_id",
            "give a service account (client_id, client_secret) or an API key \
             (public_key, private_key)",
        )),
        (true, false) => Ok(Key::Digest(
            public_key.ok_or_else(|| missing("public_key", "public_key with private_key"))?,
            private_key.ok_or_else(|| missing("private_key", "private_key with public_key"))?,
        )),
        (false, true) => Ok(Key::ServiceAccount(
            client_id.ok_or_else(|| missing("client_id", "client_id with client_secret"))?,
            client_secret
                .ok_or_else(|| missing("client_secret", "client_secret with client_id"))?,
        )),
    }
}

/// Both client classes, with the resources of the table ([`super::resources!`]): the sync one
/// gets the sync handles, the async one the async handles.
macro_rules! client_classes {
    ($(#[$sync_meta:meta])* $sync_client:ident, $(#[$async_meta:meta])* $async_client:ident {
        $($(#[doc = $doc:literal])* $getter:ident: $sync:ident, $async:ident;)*
    }) => {
        client_class!($(#[$sync_meta])* $sync_client { $($(#[doc = $doc])* $getter: $sync;)* });
        client_class!($(#[$async_meta])* $async_client { $($(#[doc = $doc])* $getter: $async;)* });
    };
}

/// The constructor, `from_env` and the handles of one client class (the sync and the async
/// one differ only in their handles' classes).
macro_rules! client_class {
    ($(#[$meta:meta])* $name:ident {
        $($(#[doc = $doc:literal])* $getter:ident: $handle:ident;)*
    }) => {
        $(#[$meta])*
        #[pyclass(frozen, module = "opsapi._native")]
        pub struct $name {
            client: crate::Client,
        }

        #[pymethods]
        impl $name {
            #[new]
            #[pyo3(signature = (base_url, public_key, private_key, *, timeout = None,
                                max_retries = None, max_concurrency = None, verify = None,
                                ca_file = None, user_agent = None, max_response_bytes = None,
                                rate_limit = None, flavour = None))]
            #[allow(clippy::too_many_arguments)]
            fn new<'py>(
                py: Python<'py>,
                base_url: &Bound<'py, PyAny>,
                public_key: &Bound<'py, PyAny>,
                private_key: &Bound<'py, PyAny>,
                timeout: Option<Bound<'py, PyAny>>,
                max_retries: Option<Bound<'py, PyAny>>,
                max_concurrency: Option<Bound<'py, PyAny>>,
                verify: Option<Bound<'py, PyAny>>,
                ca_file: Option<Bound<'py, PyAny>>,
                user_agent: Option<Bound<'py, PyAny>>,
                max_response_bytes: Option<Bound<'py, PyAny>>,
                rate_limit: Option<Bound<'py, PyAny>>,
                flavour: Option<Bound<'py, PyAny>>,
            ) -> PyResult<Self> {
                let o = ClientOptions {
                    timeout, max_retries, max_concurrency, verify, ca_file, user_agent,
                    max_response_bytes, rate_limit, token_cache: None,
                };
                let base_url = args::required_str(py, "base_url", base_url)?;
                let key = Key::Digest(
                    args::required_str(py, "public_key", public_key)?,
                    args::required_str(py, "private_key", private_key)?,
                );
                let builder = crate::Client::builder(base_url);
                let client = build_client(py, builder, flavour.as_ref(), key, &o)?;
                Ok(Self { client })
            }

            /// A client of Atlas (its Admin API v2) with a service account (`client_id`,
            /// `client_secret`: OAuth 2, one access token for every request of the client,
            /// bought again before it expires) or an API key (`public_key`, `private_key`:
            /// Digest). `base_url` is `https://cloud.mongodb.com` unless given; the token
            /// endpoint is `base_url` + `/api/oauth/token`. A service account's token is
            /// shared with the machine's other processes through a cache file under the
            /// user's cache folder (mode 0600, the token and its expiry, never the secret);
            /// `token_cache=False` turns that off, a folder puts the cache there. The other
            /// keyword arguments are the constructor's.
            ///
            /// >>> client = opsapi.Client.atlas(client_id=CLIENT_ID, client_secret=CLIENT_SECRET)  # doctest: +SKIP
            /// >>> client.flavour  # doctest: +SKIP
            /// 'atlas'
            #[classmethod]
            #[pyo3(signature = (*, public_key = None, private_key = None, client_id = None,
                                client_secret = None, base_url = None, timeout = None,
                                max_retries = None, max_concurrency = None, verify = None,
                                ca_file = None, user_agent = None, max_response_bytes = None,
                                rate_limit = None, token_cache = None))]
            #[allow(clippy::too_many_arguments)]
            fn atlas<'py>(
                _cls: &Bound<'py, PyType>,
                py: Python<'py>,
                public_key: Option<Bound<'py, PyAny>>,
                private_key: Option<Bound<'py, PyAny>>,
                client_id: Option<Bound<'py, PyAny>>,
                client_secret: Option<Bound<'py, PyAny>>,
                base_url: Option<Bound<'py, PyAny>>,
                timeout: Option<Bound<'py, PyAny>>,
                max_retries: Option<Bound<'py, PyAny>>,
                max_concurrency: Option<Bound<'py, PyAny>>,
                verify: Option<Bound<'py, PyAny>>,
                ca_file: Option<Bound<'py, PyAny>>,
                user_agent: Option<Bound<'py, PyAny>>,
                max_response_bytes: Option<Bound<'py, PyAny>>,
                rate_limit: Option<Bound<'py, PyAny>>,
                token_cache: Option<Bound<'py, PyAny>>,
            ) -> PyResult<Self> {
                let o = ClientOptions {
                    timeout, max_retries, max_concurrency, verify, ca_file, user_agent,
                    max_response_bytes, rate_limit, token_cache,
                };
                let key = atlas_key(
                    py, public_key.as_ref(), private_key.as_ref(), client_id.as_ref(),
                    client_secret.as_ref(),
                )?;
                let mut builder = crate::Client::atlas();
                if let Some(url) = args::string(py, "base_url", base_url.as_ref())? {
                    builder = builder.base_url(url);
                }
                Ok(Self { client: build_client(py, builder, None, key, &o)? })
            }

            /// A client from `OPSAPI_BASE_URL`, `OPSAPI_PUBLIC_KEY`, `OPSAPI_PRIVATE_KEY` and
            /// the optional `OPSAPI_CA_FILE` and `OPSAPI_FLAVOUR`; for an Atlas service
            /// account, `OPSAPI_CLIENT_ID` and `OPSAPI_CLIENT_SECRET` (and `OPSAPI_BASE_URL`
            /// only where it is not `https://cloud.mongodb.com`). Keyword arguments as for the
            /// constructor, and `token_cache` as for `atlas`.
            ///
            /// >>> client = opsapi.Client.from_env(timeout=10)  # doctest: +SKIP
            #[classmethod]
            #[pyo3(signature = (*, timeout = None, max_retries = None, max_concurrency = None,
                                verify = None, user_agent = None, max_response_bytes = None,
                                ca_file = None, rate_limit = None, token_cache = None))]
            #[allow(clippy::too_many_arguments)]
            fn from_env<'py>(
                _cls: &Bound<'py, PyType>,
                py: Python<'py>,
                timeout: Option<Bound<'py, PyAny>>,
                max_retries: Option<Bound<'py, PyAny>>,
                max_concurrency: Option<Bound<'py, PyAny>>,
                verify: Option<Bound<'py, PyAny>>,
                user_agent: Option<Bound<'py, PyAny>>,
                max_response_bytes: Option<Bound<'py, PyAny>>,
                ca_file: Option<Bound<'py, PyAny>>,
                rate_limit: Option<Bound<'py, PyAny>>,
                token_cache: Option<Bound<'py, PyAny>>,
            ) -> PyResult<Self> {
                let o = ClientOptions {
                    timeout, max_retries, max_concurrency, verify, ca_file, user_agent,
                    max_response_bytes, rate_limit, token_cache,
                };
                Ok(Self { client: from_env(py, o)? })
            }

            /// The API's base URL (ending in `/api/public/v1.0`, or `/api/atlas/v2` for Atlas).
            #[getter]
            fn base_url(&self) -> &str {
                self.client.base_url()
            }
            /// The server's flavour: `"ops-manager"`, `"cloud-manager"` or `"atlas"` (from
            /// the base URL, or as given).
            #[getter]
            fn flavour(&self) -> &'static str {
                self.client.flavour().as_str()
            }
            /// `versionString` of the last service-version header, if any.
            #[getter]
            fn server_version(&self) -> Option<String> {
                self.client.server_version().and_then(|v| v.version_string)
            }
            /// The server's clock, as the `Date` headers of its answers show it (to the
            /// second) where that is more than 2 s from this machine's; else, and before any
            /// answer, this machine's clock. Acknowledgements count from it.
            #[getter]
            fn server_time(&self) -> chrono::DateTime<chrono::Utc> {
                self.client.server_time()
            }
            $(
                $(#[doc = $doc])*
                #[getter]
                fn $getter(&self) -> $handle {
                    $handle { client: self.client.clone() }
                }
            )*
            fn __repr__(&self) -> String {
                format!(
                    "{}(base_url={:?}, flavour={:?})",
                    stringify!($name),
                    self.client.base_url(),
                    self.client.flavour().as_str()
                )
            }
        }
    };
}

super::resources!(client_classes!(
    /// A client of the Deployment Operations Public API, for scripts and notebooks: every call
    /// waits for its answer (with the GIL released). Safe to share between threads.
    ///
    /// >>> client = opsapi.Client("https://om.example.com:8443", PUBLIC_KEY, PRIVATE_KEY)  # doctest: +SKIP
    /// >>> client.hosts.list(group_id)[0].hostname  # doctest: +SKIP
    Client,
    /// The asyncio client: the same constructor and methods as `Client`, and every method that
    /// talks to the server is a coroutine. Works from any event loop.
    ///
    /// >>> client = opsapi.AsyncClient("https://om.example.com:8443", PUBLIC_KEY, PRIVATE_KEY)  # doctest: +SKIP
    /// >>> hosts = await client.hosts.list(group_id)  # doctest: +SKIP
    AsyncClient
));
