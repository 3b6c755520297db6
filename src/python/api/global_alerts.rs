//! `client.global_alerts`: list, iterate page by page, get, acknowledge, un-acknowledge, one
//! or many at once.

use std::pin::Pin;
use std::sync::Arc;

use futures_util::{FutureExt, Stream, StreamExt};
use pyo3::exceptions::PyStopAsyncIteration;
use pyo3::prelude::*;

use super::acknowledgement::{acknowledgement, ManyResults};
use super::{handle_pair, twins};
use crate::api::global_alerts::{acknowledge_many_requests, Acknowledgement, GlobalAlertsQuery};
use crate::python::args;
use crate::python::errors::to_py_err;
use crate::python::models::{Alert, AlertList};
use crate::python::runtime::{block_on, dispatch, py_future};
use crate::AlertStatus;

handle_pair!(
    /// Global alerts.
    GlobalAlerts,
    AsyncGlobalAlerts
);

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

fn list(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    status: Option<&Bound<'_, PyAny>>,
    created_on_or_after: Option<&Bound<'_, PyAny>>,
    created_on_or_before: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let q = alerts_query(py, status, created_on_or_after, created_on_or_before)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(AlertList::from(c.global_alerts().list(&q).await?))
    })
}

twins! {
    GlobalAlerts
    /// Every global alert matching the filters, every page (an `AlertList`, fetched with
    /// bounded concurrency once `totalCount` is known).
    ///
    /// >>> alerts = client.global_alerts.list(status="OPEN")  # doctest: +SKIP
    /// >>> alerts.total_count, alerts.to_polars().height  # doctest: +SKIP
    AsyncGlobalAlerts
    /// Every global alert matching the filters, every page (an `AlertList`).
    ///
    /// >>> alerts = await client.global_alerts.list(status="OPEN")  # doctest: +SKIP
    #[pyo3(signature = (*, status = None, created_on_or_after = None, created_on_or_before = None))]
    fn list(
        status: Option<&Bound<'_, PyAny>>,
        created_on_or_after: Option<&Bound<'_, PyAny>>,
        created_on_or_before: Option<&Bound<'_, PyAny>>,
    ) => list
}

fn iter(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    status: Option<&Bound<'_, PyAny>>,
    created_on_or_after: Option<&Bound<'_, PyAny>>,
    created_on_or_before: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let q = alerts_query(py, status, created_on_or_after, created_on_or_before)?;
    let stream = c.global_alerts().stream(&q).map_err(|e| to_py_err(py, e))?;
    alert_iterator(py, is_async, "global_alerts.iter", Box::pin(stream))
}

twins! {
    GlobalAlerts
    /// The same alerts, lazily, page by page: `for alert in client.global_alerts.iter(...)`.
    ///
    /// >>> for alert in client.global_alerts.iter(status="OPEN"):  # doctest: +SKIP
    /// ...     print(alert.id, alert.current_value)
    AsyncGlobalAlerts
    /// The same alerts, lazily, page by page: `async for alert in client.global_alerts.iter(...)`
    /// (a plain `for` raises `TypeError`).
    ///
    /// >>> async for alert in client.global_alerts.iter(status="OPEN"):  # doctest: +SKIP
    /// ...     print(alert.id)
    #[pyo3(signature = (*, status = None, created_on_or_after = None, created_on_or_before = None))]
    fn iter(
        status: Option<&Bound<'_, PyAny>>,
        created_on_or_after: Option<&Bound<'_, PyAny>>,
        created_on_or_before: Option<&Bound<'_, PyAny>>,
    ) => iter
}

fn get(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    alert_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let alert_id = args::text(py, "alert_id", alert_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Alert::from(c.global_alerts().get(&alert_id).await?))
    })
}

twins! {
    /// One global alert: `GET /globalAlerts/{alert_id}`.
    ///
    GlobalAlerts
    /// >>> client.global_alerts.get(alert_id).status  # doctest: +SKIP
    /// 'OPEN'
    AsyncGlobalAlerts
    /// >>> (await client.global_alerts.get(alert_id)).status  # doctest: +SKIP
    /// 'OPEN'
    fn get(alert_id: &Bound<'_, PyAny>) => get
}

#[allow(clippy::too_many_arguments)]
fn acknowledge(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    alert_id: &Bound<'_, PyAny>,
    until: Option<&Bound<'_, PyAny>>,
    duration: Option<&Bound<'_, PyAny>>,
    forever: Option<&Bound<'_, PyAny>>,
    comment: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let alert_id = args::text(py, "alert_id", alert_id)?;
    let ack = acknowledgement(py, until, duration, forever, comment)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Alert::from(
            c.global_alerts().acknowledge(&alert_id, &ack).await?,
        ))
    })
}

twins! {
    GlobalAlerts
    /// Acknowledges an alert until a time (`until`), for a while (`duration`: `"4h"`,
    /// `"PT4H"`, a timedelta) or `forever=True`; returns the alert. Never sent twice once an
    /// attempt may have reached the server.
    ///
    /// >>> client.global_alerts.acknowledge(alert_id, duration="4h", comment="resizing")  # doctest: +SKIP
    AsyncGlobalAlerts
    /// Acknowledges an alert until a time (`until`), for a while (`duration`) or
    /// `forever=True`; returns the alert.
    ///
    /// >>> await client.global_alerts.acknowledge(alert_id, duration="4h")  # doctest: +SKIP
    #[pyo3(signature = (alert_id, *, until = None, duration = None, forever = None, comment = None))]
    fn acknowledge(
        alert_id: &Bound<'_, PyAny>,
        until: Option<&Bound<'_, PyAny>>,
        duration: Option<&Bound<'_, PyAny>>,
        forever: Option<&Bound<'_, PyAny>>,
        comment: Option<&Bound<'_, PyAny>>,
    ) => acknowledge
}

fn unacknowledge(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    alert_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let alert_id = args::text(py, "alert_id", alert_id)?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Alert::from(
            c.global_alerts().unacknowledge(&alert_id).await?,
        ))
    })
}

twins! {
    /// Un-acknowledges an alert (sends an `acknowledgedUntil` in the past); returns the alert.
    ///
    GlobalAlerts
    /// >>> client.global_alerts.unacknowledge(alert_id).acknowledged_until  # doctest: +SKIP
    AsyncGlobalAlerts
    /// >>> await client.global_alerts.unacknowledge(alert_id)  # doctest: +SKIP
    fn unacknowledge(alert_id: &Bound<'_, PyAny>) => unacknowledge
}

#[allow(clippy::too_many_arguments)]
fn acknowledge_many(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    alert_ids: &Bound<'_, PyAny>,
    until: Option<&Bound<'_, PyAny>>,
    duration: Option<&Bound<'_, PyAny>>,
    forever: Option<&Bound<'_, PyAny>>,
    comment: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ids = args::texts(py, "alert_ids", "a list of alert ids", alert_ids)?;
    let ack = acknowledgement(py, until, duration, forever, comment)?;
    many(py, c, is_async, ids, ack)
}

/// Checks every request before any is sent (an argument error raises), then sends them.
fn many(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    ids: Vec<String>,
    ack: Acknowledgement,
) -> PyResult<Py<PyAny>> {
    acknowledge_many_requests(&ids, &ack, c.server_time()).map_err(|e| to_py_err(py, e))?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(ManyResults(
            c.global_alerts().acknowledge_many(&ids, &ack).await?,
        ))
    })
}

fn unacknowledge_many(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    alert_ids: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let ids = args::texts(py, "alert_ids", "a list of alert ids", alert_ids)?;
    many(py, c, is_async, ids, Acknowledgement::unacknowledge())
}

twins! {
    GlobalAlerts
    /// Acknowledges many alerts concurrently (at most `max_concurrency` at once): one result
    /// per id, in the order given, each a `GlobalAlert` or the exception object of its failure
    /// (returned, not raised: one bad id stops nothing). The acknowledgement is that of
    /// `acknowledge`; an argument error raises before any request is sent.
    ///
    /// >>> results = client.global_alerts.acknowledge_many(ids, duration="2h")  # doctest: +SKIP
    /// >>> failed = [r for r in results if isinstance(r, opsapi.OpsApiError)]  # doctest: +SKIP
    AsyncGlobalAlerts
    /// Acknowledges many alerts concurrently: one result per id, in the order given, each a
    /// `GlobalAlert` or the exception object of its failure (returned, not raised).
    ///
    /// >>> results = await client.global_alerts.acknowledge_many(ids, duration="2h")  # doctest: +SKIP
    #[pyo3(signature = (alert_ids, *, until = None, duration = None, forever = None, comment = None))]
    fn acknowledge_many(
        alert_ids: &Bound<'_, PyAny>,
        until: Option<&Bound<'_, PyAny>>,
        duration: Option<&Bound<'_, PyAny>>,
        forever: Option<&Bound<'_, PyAny>>,
        comment: Option<&Bound<'_, PyAny>>,
    ) => acknowledge_many
}

twins! {
    GlobalAlerts
    /// Un-acknowledges many alerts concurrently: one result per id, in the order given, each
    /// a `GlobalAlert` or the exception object of its failure.
    ///
    /// >>> results = client.global_alerts.unacknowledge_many(ids)  # doctest: +SKIP
    AsyncGlobalAlerts
    /// Un-acknowledges many alerts concurrently: one result per id, in the order given.
    ///
    /// >>> results = await client.global_alerts.unacknowledge_many(ids)  # doctest: +SKIP
    fn unacknowledge_many(alert_ids: &Bound<'_, PyAny>) => unacknowledge_many
}

pub(super) type AlertStream = Pin<Box<dyn Stream<Item = crate::Result<crate::Alert>> + Send>>;

/// Alerts of the sync client, page by page: `for alert in client.global_alerts.iter()`
/// (or `client.alerts.iter(group_id)`).
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
            let _context = crate::python::runtime::handle()?.enter();
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

/// Alerts of the async client, page by page: `async for alert in client.global_alerts.iter()`
/// (or `client.alerts.iter(group_id)`).
#[pyclass(frozen, name = "AsyncAlertIterator", module = "opsapi._native")]
pub struct AsyncAlertIterator {
    stream: Arc<tokio::sync::Mutex<AlertStream>>,
    /// The call that made it, for the message of a plain `for`.
    call: &'static str,
}

#[pymethods]
impl AsyncAlertIterator {
    /// A plain `for` would block the event loop for the whole listing.
    fn __iter__(&self) -> PyResult<()> {
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "AsyncClient.{}() is an async iterator: use `async for alert in ...` (a plain \
             `for` would block the event loop), or the sync opsapi.Client",
            self.call
        )))
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
/// `call` names the method (`global_alerts.iter`) in the message of a plain `for`.
pub(super) fn alert_iterator(
    py: Python<'_>,
    is_async: bool,
    call: &'static str,
    stream: AlertStream,
) -> PyResult<Py<PyAny>> {
    let stream = Arc::new(tokio::sync::Mutex::new(stream));
    Ok(if is_async {
        Py::new(py, AsyncAlertIterator { stream, call })?.into_any()
    } else {
        Py::new(py, AlertIterator { stream })?.into_any()
    })
}
