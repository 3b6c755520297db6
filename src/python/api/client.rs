//! `Client` and `AsyncClient`: construction (every default and check is the Rust builder's;
//! `None` means "not given") and the resource handles.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyType};

use super::{
    AccessList, AlertConfigs, Alerts, AsyncAccessList, AsyncAlertConfigs, AsyncAlerts, AsyncEvents,
    AsyncGlobalAlerts, AsyncGroups, AsyncHosts, AsyncMeasurementsApi, Events, GlobalAlerts, Groups,
    Hosts, MeasurementsApi,
};
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
}

fn build_client(
    py: Python<'_>,
    base_url: &Bound<'_, PyAny>,
    public_key: &Bound<'_, PyAny>,
    private_key: &Bound<'_, PyAny>,
    o: &ClientOptions<'_>,
) -> PyResult<crate::Client> {
    let base_url = args::required_str(py, "base_url", base_url)?;
    let public_key = args::required_str(py, "public_key", public_key)?;
    let private_key = args::required_str(py, "private_key", private_key)?;
    let mut b = crate::Client::builder(base_url).credentials(public_key, private_key);
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
    let rate = o.rate_limit.as_ref();
    if let Some(r) = args::number(py, "rate_limit", rate, "requests per second")? {
        b = b.rate_limit(r);
    }
    b.build().map_err(|e| to_py_err(py, e))
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

/// The client from the environment: `OPSAPI_BASE_URL`, `OPSAPI_PUBLIC_KEY`,
/// `OPSAPI_PRIVATE_KEY` and the optional `OPSAPI_CA_FILE`.
fn from_env(py: Python<'_>, o: ClientOptions<'_>) -> PyResult<crate::Client> {
    let base_url = PyString::new(py, &env_var(py, "OPSAPI_BASE_URL")?).into_any();
    let public_key = PyString::new(py, &env_var(py, "OPSAPI_PUBLIC_KEY")?).into_any();
    let private_key = PyString::new(py, &env_var(py, "OPSAPI_PRIVATE_KEY")?).into_any();
    let ca_file = match o.ca_file {
        Some(ca) => Some(ca),
        None => std::env::var("OPSAPI_CA_FILE")
            .ok()
            .filter(|v| !v.is_empty())
            .map(|v| PyString::new(py, &v).into_any()),
    };
    let o = ClientOptions { ca_file, ..o };
    build_client(py, &base_url, &public_key, &private_key, &o)
}

/// The constructor, `from_env` and the handles of one client class (the sync and the async
/// one differ only in their handles' classes).
macro_rules! client_class {
    ($(#[$meta:meta])* $name:ident {
        access_list: $al:ident, global_alerts: $ga:ident, alert_configs: $ac:ident,
        hosts: $ho:ident, measurements: $me:ident, events: $ev:ident, groups: $gr:ident,
        alerts: $pa:ident
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
                                rate_limit = None))]
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
            ) -> PyResult<Self> {
                let o = ClientOptions {
                    timeout, max_retries, max_concurrency, verify, ca_file, user_agent,
                    max_response_bytes, rate_limit,
                };
                let client = build_client(py, base_url, public_key, private_key, &o)?;
                Ok(Self { client })
            }

            /// A client from `OPSAPI_BASE_URL`, `OPSAPI_PUBLIC_KEY`, `OPSAPI_PRIVATE_KEY` and
            /// the optional `OPSAPI_CA_FILE`; keyword arguments as for the constructor.
            ///
            /// >>> client = opsapi.Client.from_env(timeout=10)  # doctest: +SKIP
            #[classmethod]
            #[pyo3(signature = (*, timeout = None, max_retries = None, max_concurrency = None,
                                verify = None, user_agent = None, max_response_bytes = None,
                                ca_file = None, rate_limit = None))]
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
            ) -> PyResult<Self> {
                let o = ClientOptions {
                    timeout, max_retries, max_concurrency, verify, ca_file, user_agent,
                    max_response_bytes, rate_limit,
                };
                Ok(Self { client: from_env(py, o)? })
            }

            /// The API's base URL (ending in `/api/public/v1.0`).
            #[getter]
            fn base_url(&self) -> &str {
                self.client.base_url()
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
            /// The global API access list.
            #[getter]
            fn access_list(&self) -> $al {
                $al { client: self.client.clone() }
            }
            /// Global alerts: list, iterate, acknowledge.
            #[getter]
            fn global_alerts(&self) -> $ga {
                $ga { client: self.client.clone() }
            }
            /// Project alerts: list, acknowledge, every project at once, in context.
            #[getter]
            fn alerts(&self) -> $pa {
                $pa { client: self.client.clone() }
            }
            /// Alert configurations and their open alerts.
            #[getter]
            fn alert_configs(&self) -> $ac {
                $ac { client: self.client.clone() }
            }
            /// Hosts of a project.
            #[getter]
            fn hosts(&self) -> $ho {
                $ho { client: self.client.clone() }
            }
            /// Measurements and fleet pulls.
            #[getter]
            fn measurements(&self) -> $me {
                $me { client: self.client.clone() }
            }
            /// Project events.
            #[getter]
            fn events(&self) -> $ev {
                $ev { client: self.client.clone() }
            }
            /// Projects.
            #[getter]
            fn groups(&self) -> $gr {
                $gr { client: self.client.clone() }
            }
            fn __repr__(&self) -> String {
                format!("{}(base_url={:?})", stringify!($name), self.client.base_url())
            }
        }
    };
}

client_class! {
    /// A client of the Deployment Operations Public API, for scripts and notebooks: every call
    /// waits for its answer (with the GIL released). Safe to share between threads.
    ///
    /// >>> client = opsapi.Client("https://om.example.com:8443", PUBLIC_KEY, PRIVATE_KEY)  # doctest: +SKIP
    /// >>> client.hosts.list(group_id)[0].hostname  # doctest: +SKIP
    Client {
        access_list: AccessList, global_alerts: GlobalAlerts, alert_configs: AlertConfigs,
        hosts: Hosts, measurements: MeasurementsApi, events: Events, groups: Groups,
        alerts: Alerts
    }
}

client_class! {
    /// The asyncio client: the same constructor and methods as `Client`, and every method that
    /// talks to the server is a coroutine. Works from any event loop.
    ///
    /// >>> client = opsapi.AsyncClient("https://om.example.com:8443", PUBLIC_KEY, PRIVATE_KEY)  # doctest: +SKIP
    /// >>> hosts = await client.hosts.list(group_id)  # doctest: +SKIP
    AsyncClient {
        access_list: AsyncAccessList, global_alerts: AsyncGlobalAlerts,
        alert_configs: AsyncAlertConfigs, hosts: AsyncHosts, measurements: AsyncMeasurementsApi,
        events: AsyncEvents, groups: AsyncGroups, alerts: AsyncAlerts
    }
}
