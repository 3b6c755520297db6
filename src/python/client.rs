//! `Client` and `AsyncClient` and their resource handles. Each operation converts its
//! arguments, builds the core's future, and either waits for it (sync, GIL released) or hands
//! it to asyncio (async). The sync and async classes are generated from one definition.

use std::pin::Pin;
use std::sync::Arc;

use futures_util::{FutureExt, Stream, StreamExt};
use pyo3::exceptions::PyStopAsyncIteration;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyString, PyTuple, PyType};
use pyo3_polars::PyDataFrame;

use crate::frame::{FleetOptions, Shape, Target};
use crate::query::{Acknowledgement, GlobalAlertsQuery, MeasurementsQuery};
use crate::AlertStatus;

use super::args;
use super::errors::{invalid_argument, to_py_err};
use super::models::{
    AccessListEntry, Alert, AlertConfig, AlertList, Event, EventList, Group, Host, HostList,
    Measurements,
};
use super::runtime::{block_on, dispatch, is_shut_down, py_future, NoneResult};

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

fn alerts_query(
    py: Python<'_>,
    status: Option<&Bound<'_, PyAny>>,
    created_on_or_after: Option<&Bound<'_, PyAny>>,
    created_on_or_before: Option<&Bound<'_, PyAny>>,
) -> PyResult<GlobalAlertsQuery> {
    let mut q = GlobalAlertsQuery::new();
    if let Some(s) = args::string(py, "status", status)? {
        q = q.status(AlertStatus::from(s.as_str()));
    }
    if let Some(t) = args::timestamp(py, "created_on_or_after", created_on_or_after)? {
        q = q.created_on_or_after(t);
    }
    if let Some(t) = args::timestamp(py, "created_on_or_before", created_on_or_before)? {
        q = q.created_on_or_before(t);
    }
    q.validate().map_err(|e| to_py_err(py, e))?;
    Ok(q)
}

fn measurements_query(
    py: Python<'_>,
    granularity: &Bound<'_, PyAny>,
    period: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    metrics: Option<&Bound<'_, PyAny>>,
) -> PyResult<MeasurementsQuery> {
    let granularity = args::duration(py, "granularity", Some(granularity))?;
    let period = args::duration(py, "period", period)?;
    let start = args::timestamp(py, "start", start)?;
    let end = args::timestamp(py, "end", end)?;
    let metrics = args::metrics(py, metrics)?;
    MeasurementsQuery::from_parts(
        granularity.as_deref(),
        period.as_deref(),
        start,
        end,
        metrics,
    )
    .map_err(|e| to_py_err(py, e))
}

fn targets(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Vec<Target>> {
    let bad = || {
        invalid_argument(
            py,
            "targets",
            "must be a list of (group_id, host_id) or (group_id, host_id, partition_name) tuples",
        )
    };
    let mut out = Vec::new();
    for item in value.try_iter().map_err(|_| bad())? {
        let item = item?;
        let t = item.cast::<PyTuple>().map_err(|_| bad())?;
        let i = out.len();
        let parts = t
            .iter()
            .enumerate()
            .map(|(j, part)| args::text(py, &format!("targets[{i}][{j}]"), &part))
            .collect::<PyResult<Vec<String>>>()?;
        out.push(match parts.as_slice() {
            [g, h] => Target::host(g.as_str(), h.as_str()),
            [g, h, p] => Target::disk(g.as_str(), h.as_str(), p.as_str()),
            _ => return Err(bad()),
        });
    }
    Ok(out)
}

/// A fleet pull's result: the frame, or with `keep_going` the frame and the failures.
pub(crate) enum FleetOut {
    Frame(PyDataFrame),
    WithFailures(PyDataFrame, PyDataFrame),
}

impl<'py> IntoPyObject<'py> for FleetOut {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;
    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Self::Frame(f) => Ok(f.into_pyobject(py)?.into_any()),
            Self::WithFailures(f, e) => Ok((f, e).into_pyobject(py)?.into_any()),
        }
    }
}

fn progress_callback(
    py: Python<'_>,
    progress: &Bound<'_, PyAny>,
    total: usize,
) -> PyResult<Option<Py<PyAny>>> {
    if progress.is_none() {
        return Ok(None);
    }
    if let Ok(b) = progress.cast::<PyBool>() {
        if !b.is_true() {
            return Ok(None);
        }
        let cb = py
            .import("opsapi._progress")?
            .call_method1("make_progress", (total,))?;
        return Ok((!cb.is_none()).then(|| cb.unbind()));
    }
    if progress.is_callable() {
        return Ok(Some(progress.clone().unbind()));
    }
    Err(invalid_argument(
        py,
        "progress",
        "must be a bool or a callable(done, total, target, ok)",
    ))
}

#[allow(clippy::too_many_arguments)]
fn fleet(
    py: Python<'_>,
    client: &crate::Client,
    is_async: bool,
    targets_arg: &Bound<'_, PyAny>,
    granularity: &Bound<'_, PyAny>,
    period: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    metrics: Option<&Bound<'_, PyAny>>,
    shape: Option<String>,
    keep_going: bool,
    progress: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let targets = targets(py, targets_arg)?;
    let q = measurements_query(py, granularity, period, start, end, metrics)?;
    let shape: Shape = match shape {
        Some(s) => s.parse().map_err(|e| to_py_err(py, e))?,
        None => Shape::Long,
    };
    let mut options = FleetOptions::new().shape(shape).keep_going(keep_going);
    if let Some(cb) = progress_callback(py, progress, targets.len())? {
        let cb = Arc::new(cb);
        options = options.progress(move |p| {
            if is_shut_down() {
                return;
            }
            Python::attach(|py| {
                let r = cb.call1(py, (p.done, p.total, p.target.to_string(), p.ok));
                if let Err(e) = r {
                    e.write_unraisable(py, None);
                }
            });
        });
    }
    let c = client.clone();
    dispatch(py, is_async, async move {
        let r = c.measurements().fleet(&targets, &q, &options).await?;
        Ok(if keep_going {
            let failures = r.failures_frame()?;
            FleetOut::WithFailures(PyDataFrame(r.frame), PyDataFrame(failures))
        } else {
            FleetOut::Frame(PyDataFrame(r.frame))
        })
    })
}

type AlertStream = Pin<Box<dyn Stream<Item = crate::Result<crate::Alert>> + Send>>;

/// Global alerts of the sync client, page by page: `for alert in client.global_alerts.iter()`.
#[pyclass(frozen, name = "AlertIterator", module = "opsapi._native")]
pub struct AlertIterator {
    stream: Arc<tokio::sync::Mutex<AlertStream>>,
}

#[pymethods]
impl AlertIterator {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Alert>> {
        // The items of a page that has arrived are ready at once: hand them over without a
        // round trip through the runtime. Polled inside the runtime's context, so that a
        // stream that starts fetching the next page can create its I/O; then it is awaited.
        if let Ok(mut guard) = self.stream.try_lock() {
            let _context = super::runtime::handle()?.enter();
            if let Some(ready) = guard.next().now_or_never() {
                return match ready {
                    Some(Ok(alert)) => Ok(Some(Alert::from(alert))),
                    Some(Err(e)) => Err(to_py_err(py, e)),
                    None => Ok(None),
                };
            }
        }
        let stream = self.stream.clone();
        let next = block_on(
            py,
            async move { stream.lock().await.next().await.transpose() },
        )?;
        Ok(next.map(Alert::from))
    }
}

/// Global alerts of the async client, page by page: `async for alert in client.global_alerts.iter()`.
#[pyclass(frozen, name = "AsyncAlertIterator", module = "opsapi._native")]
pub struct AsyncAlertIterator {
    stream: Arc<tokio::sync::Mutex<AlertStream>>,
}

#[pymethods]
impl AsyncAlertIterator {
    /// A plain `for` would block the event loop for the whole listing.
    fn __iter__(&self) -> PyResult<()> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "AsyncClient.global_alerts.iter() is an async iterator: use `async for alert in ...` \
             (a plain `for` would block the event loop), or the sync opsapi.Client",
        ))
    }
    fn __aiter__(slf: Py<Self>) -> Py<Self> {
        slf
    }
    fn __anext__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let stream = self.stream.clone();
        py_future(py, async move {
            let next = stream.lock().await.next().await;
            match next {
                Some(Ok(a)) => Ok(Alert::from(a)),
                Some(Err(e)) => Err(Python::attach(|py| to_py_err(py, e))),
                None => Err(PyStopAsyncIteration::new_err(())),
            }
        })
    }
}

/// The iterator class of each client: `for` for the sync one, `async for` for the async one.
fn alert_iterator(py: Python<'_>, is_async: bool, stream: AlertStream) -> PyResult<Py<PyAny>> {
    let stream = Arc::new(tokio::sync::Mutex::new(stream));
    Ok(if is_async {
        Py::new(py, AsyncAlertIterator { stream })?.into_any()
    } else {
        Py::new(py, AlertIterator { stream })?.into_any()
    })
}

macro_rules! client_classes {
    ($is_async:expr, $Client:ident($client_name:literal), $AccessList:ident($al:literal),
     $GlobalAlerts:ident($ga:literal), $AlertConfigs:ident($ac:literal), $Hosts:ident($ho:literal),
     $Meas:ident($me:literal), $Events:ident($ev:literal), $Groups:ident($gr:literal)) => {

        /// A client of the Deployment Operations Public API.
        #[pyclass(frozen, name = $client_name, module = "opsapi._native")]
        pub struct $Client {
            client: crate::Client,
        }

        #[pymethods]
        impl $Client {
            #[new]
            #[pyo3(signature = (base_url, public_key, private_key, *, timeout = None, max_retries = None,
                                max_concurrency = None, verify = None, ca_file = None, user_agent = None,
                                max_response_bytes = None))]
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
            ) -> PyResult<Self> {
                let o = ClientOptions { timeout, max_retries, max_concurrency, verify, ca_file,
                                        user_agent, max_response_bytes };
                let client = build_client(py, base_url, public_key, private_key, &o)?;
                Ok(Self { client })
            }

            /// A client from `OPSAPI_BASE_URL`, `OPSAPI_PUBLIC_KEY`, `OPSAPI_PRIVATE_KEY` and
            /// the optional `OPSAPI_CA_FILE`; keyword arguments as for the constructor.
            #[classmethod]
            #[pyo3(signature = (*, timeout = None, max_retries = None, max_concurrency = None, verify = None,
                                user_agent = None, max_response_bytes = None))]
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
            ) -> PyResult<Self> {
                let base_url = PyString::new(py, &env_var(py, "OPSAPI_BASE_URL")?).into_any();
                let public_key = PyString::new(py, &env_var(py, "OPSAPI_PUBLIC_KEY")?).into_any();
                let private_key = PyString::new(py, &env_var(py, "OPSAPI_PRIVATE_KEY")?).into_any();
                let ca_file = std::env::var("OPSAPI_CA_FILE")
                    .ok()
                    .filter(|v| !v.is_empty())
                    .map(|v| PyString::new(py, &v).into_any());
                let o = ClientOptions { timeout, max_retries, max_concurrency, verify, ca_file,
                                        user_agent, max_response_bytes };
                let client = build_client(py, &base_url, &public_key, &private_key, &o)?;
                Ok(Self { client })
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
            #[getter]
            fn access_list(&self) -> $AccessList {
                $AccessList { client: self.client.clone() }
            }
            #[getter]
            fn global_alerts(&self) -> $GlobalAlerts {
                $GlobalAlerts { client: self.client.clone() }
            }
            #[getter]
            fn alert_configs(&self) -> $AlertConfigs {
                $AlertConfigs { client: self.client.clone() }
            }
            #[getter]
            fn hosts(&self) -> $Hosts {
                $Hosts { client: self.client.clone() }
            }
            #[getter]
            fn measurements(&self) -> $Meas {
                $Meas { client: self.client.clone() }
            }
            #[getter]
            fn events(&self) -> $Events {
                $Events { client: self.client.clone() }
            }
            #[getter]
            fn groups(&self) -> $Groups {
                $Groups { client: self.client.clone() }
            }
            fn __repr__(&self) -> String {
                format!("{}(base_url={:?})", $client_name, self.client.base_url())
            }
        }

        /// The global API access list.
        #[pyclass(frozen, name = $al, module = "opsapi._native")]
        pub struct $AccessList {
            client: crate::Client,
        }

        #[pymethods]
        impl $AccessList {
            fn delete(&self, py: Python<'_>, entry_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let entry_id = args::text(py, "entry_id", entry_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    c.access_list().delete(&entry_id).await.map(|()| NoneResult)
                })
            }

            fn list(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    let list = c.access_list().list().await?;
                    Ok(list.into_vec().into_iter().map(AccessListEntry::from).collect::<Vec<_>>())
                })
            }
        }

        /// Global alerts.
        #[pyclass(frozen, name = $ga, module = "opsapi._native")]
        pub struct $GlobalAlerts {
            client: crate::Client,
        }

        #[pymethods]
        impl $GlobalAlerts {
            #[pyo3(signature = (*, status = None, created_on_or_after = None, created_on_or_before = None))]
            fn list(
                &self,
                py: Python<'_>,
                status: Option<&Bound<'_, PyAny>>,
                created_on_or_after: Option<&Bound<'_, PyAny>>,
                created_on_or_before: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let q = alerts_query(py, status, created_on_or_after, created_on_or_before)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(AlertList::from(c.global_alerts().list(&q).await?))
                })
            }

            #[pyo3(signature = (*, status = None, created_on_or_after = None, created_on_or_before = None))]
            fn iter(
                &self,
                py: Python<'_>,
                status: Option<&Bound<'_, PyAny>>,
                created_on_or_after: Option<&Bound<'_, PyAny>>,
                created_on_or_before: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let q = alerts_query(py, status, created_on_or_after, created_on_or_before)?;
                let stream = self.client.global_alerts().stream(&q).map_err(|e| to_py_err(py, e))?;
                alert_iterator(py, $is_async, Box::pin(stream))
            }

            fn get(&self, py: Python<'_>, alert_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let alert_id = args::text(py, "alert_id", alert_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(Alert::from(c.global_alerts().get(&alert_id).await?))
                })
            }

            #[pyo3(signature = (alert_id, *, until = None, duration = None, forever = None, comment = None))]
            fn acknowledge(
                &self,
                py: Python<'_>,
                alert_id: &Bound<'_, PyAny>,
                until: Option<&Bound<'_, PyAny>>,
                duration: Option<&Bound<'_, PyAny>>,
                forever: Option<&Bound<'_, PyAny>>,
                comment: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let alert_id = args::text(py, "alert_id", alert_id)?;
                let forever = args::flag(py, "forever", forever)?.unwrap_or(false);
                let comment = args::string(py, "comment", comment)?;
                let until = args::timestamp(py, "until", until)?;
                let duration = args::duration(py, "duration", duration)?;
                let ack = Acknowledgement::from_parts(until, duration.as_deref(), forever, comment)
                    .map_err(|e| to_py_err(py, e))?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(Alert::from(c.global_alerts().acknowledge(&alert_id, &ack).await?))
                })
            }

            fn unacknowledge(&self, py: Python<'_>, alert_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let alert_id = args::text(py, "alert_id", alert_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(Alert::from(c.global_alerts().unacknowledge(&alert_id).await?))
                })
            }
        }

        /// Alert configurations of a project.
        #[pyclass(frozen, name = $ac, module = "opsapi._native")]
        pub struct $AlertConfigs {
            client: crate::Client,
        }

        #[pymethods]
        impl $AlertConfigs {
            fn open_alerts(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>, alert_config_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let alert_config_id = args::text(py, "alert_config_id", alert_config_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(AlertList::from(c.alert_configs().open_alerts(&group_id, &alert_config_id).await?))
                })
            }
            fn list(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    let list = c.alert_configs().list(&group_id).await?;
                    Ok(list.into_vec().into_iter().map(AlertConfig::from).collect::<Vec<_>>())
                })
            }
        }

        /// Hosts of a project.
        #[pyclass(frozen, name = $ho, module = "opsapi._native")]
        pub struct $Hosts {
            client: crate::Client,
        }

        #[pymethods]
        impl $Hosts {
            fn get(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>, host_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let host_id = args::text(py, "host_id", host_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(Host::from(c.hosts().get(&group_id, &host_id).await?))
                })
            }
            fn list(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(HostList::from(c.hosts().list(&group_id).await?))
                })
            }
            fn partitions(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>, host_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let host_id = args::text(py, "host_id", host_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move { c.hosts().partitions(&group_id, &host_id).await })
            }
        }

        /// Host and disk measurements, and fleet pulls.
        #[pyclass(frozen, name = $me, module = "opsapi._native")]
        pub struct $Meas {
            client: crate::Client,
        }

        #[pymethods]
        impl $Meas {
            #[pyo3(signature = (group_id, host_id, *, granularity, period = None, start = None, end = None, metrics = None))]
            #[allow(clippy::too_many_arguments)]
            fn host(
                &self,
                py: Python<'_>,
                group_id: &Bound<'_, PyAny>,
                host_id: &Bound<'_, PyAny>,
                granularity: &Bound<'_, PyAny>,
                period: Option<&Bound<'_, PyAny>>,
                start: Option<&Bound<'_, PyAny>>,
                end: Option<&Bound<'_, PyAny>>,
                metrics: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let host_id = args::text(py, "host_id", host_id)?;
                let q = measurements_query(py, granularity, period, start, end, metrics)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(Measurements::from(c.measurements().host(&group_id, &host_id, &q).await?))
                })
            }

            #[pyo3(signature = (group_id, host_id, partition_name, *, granularity, period = None, start = None, end = None, metrics = None))]
            #[allow(clippy::too_many_arguments)]
            fn disk(
                &self,
                py: Python<'_>,
                group_id: &Bound<'_, PyAny>,
                host_id: &Bound<'_, PyAny>,
                partition_name: &Bound<'_, PyAny>,
                granularity: &Bound<'_, PyAny>,
                period: Option<&Bound<'_, PyAny>>,
                start: Option<&Bound<'_, PyAny>>,
                end: Option<&Bound<'_, PyAny>>,
                metrics: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let host_id = args::text(py, "host_id", host_id)?;
                let partition_name = args::text(py, "partition_name", partition_name)?;
                let q = measurements_query(py, granularity, period, start, end, metrics)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(Measurements::from(
                        c.measurements().disk(&group_id, &host_id, &partition_name, &q).await?,
                    ))
                })
            }

            #[pyo3(signature = (targets, *, granularity, period = None, start = None, end = None, metrics = None,
                                shape = None, keep_going = None, progress = None))]
            #[allow(clippy::too_many_arguments)]
            fn fleet(
                &self,
                py: Python<'_>,
                targets: &Bound<'_, PyAny>,
                granularity: &Bound<'_, PyAny>,
                period: Option<&Bound<'_, PyAny>>,
                start: Option<&Bound<'_, PyAny>>,
                end: Option<&Bound<'_, PyAny>>,
                metrics: Option<&Bound<'_, PyAny>>,
                shape: Option<&Bound<'_, PyAny>>,
                keep_going: Option<&Bound<'_, PyAny>>,
                progress: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Py<PyAny>> {
                let shape = args::string(py, "shape", shape)?;
                let keep_going = args::flag(py, "keep_going", keep_going)?.unwrap_or(false);
                let default = PyBool::new(py, true).to_owned().into_any();
                let progress = progress.unwrap_or(&default);
                fleet(py, &self.client, $is_async, targets, granularity, period, start, end, metrics,
                      shape, keep_going, progress)
            }
        }

        /// Project events.
        #[pyclass(frozen, name = $ev, module = "opsapi._native")]
        pub struct $Events {
            client: crate::Client,
        }

        #[pymethods]
        impl $Events {
            #[pyo3(signature = (group_id, event_id, *, include_raw = None))]
            fn get(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>, event_id: &Bound<'_, PyAny>, include_raw: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let event_id = args::text(py, "event_id", event_id)?;
                let include_raw = args::flag(py, "include_raw", include_raw)?.unwrap_or(false);
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(Event::from(c.events().get(&group_id, &event_id, include_raw).await?))
                })
            }
            fn list(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    Ok(EventList::from(c.events().list(&group_id).await?))
                })
            }
        }

        /// Projects (the API's groups).
        #[pyclass(frozen, name = $gr, module = "opsapi._native")]
        pub struct $Groups {
            client: crate::Client,
        }

        #[pymethods]
        impl $Groups {
            fn list(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
                let c = self.client.clone();
                dispatch(py, $is_async, async move {
                    let list = c.groups().list().await?;
                    Ok(list.into_vec().into_iter().map(Group::from).collect::<Vec<_>>())
                })
            }
            fn get(&self, py: Python<'_>, group_id: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                let group_id = args::text(py, "group_id", group_id)?;
                let c = self.client.clone();
                dispatch(py, $is_async, async move { Ok(Group::from(c.groups().get(&group_id).await?)) })
            }
        }
    };
}

client_classes!(
    false,
    Client("Client"),
    AccessList("AccessList"),
    GlobalAlerts("GlobalAlerts"),
    AlertConfigs("AlertConfigs"),
    Hosts("Hosts"),
    MeasurementsApi("MeasurementsApi"),
    Events("Events"),
    Groups("Groups")
);

client_classes!(
    true,
    AsyncClient("AsyncClient"),
    AsyncAccessList("AsyncAccessList"),
    AsyncGlobalAlerts("AsyncGlobalAlerts"),
    AsyncAlertConfigs("AsyncAlertConfigs"),
    AsyncHosts("AsyncHosts"),
    AsyncMeasurementsApi("AsyncMeasurementsApi"),
    AsyncEvents("AsyncEvents"),
    AsyncGroups("AsyncGroups")
);
