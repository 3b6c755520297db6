//! `client.alerts`: project alerts. List, iterate page by page, get, acknowledge,
//! un-acknowledge, one or many (`(group_id, alert_id)` pairs) at once, every project at once,
//! and an alert in its context. The acknowledgement and the `*_many` results are global
//! alerts' (`acknowledgement.rs`), the iterator classes too (`global_alerts.rs`).

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::acknowledgement::{acknowledgement, ManyResults};
use super::global_alerts::alert_iterator;
use super::{handle_pair, twins};
use crate::api::acknowledgement::Acknowledgement;
use crate::api::alerts::{acknowledge_many_requests, list_all_requests, AlertsQuery};
use crate::python::args;
use crate::python::errors::{invalid_argument, to_py_err};
use crate::python::models::{Alert, AlertContext, AlertList};
use crate::python::runtime::dispatch;
use crate::{AlertStatus, ContextOptions};

handle_pair!(
    /// Project alerts (`/groups/{group_id}/alerts`).
    Alerts,
    AsyncAlerts
);

fn query(py: Python<'_>, status: Option<&Bound<'_, PyAny>>) -> PyResult<AlertsQuery> {
    let mut q = AlertsQuery::new();
    if let Some(s) = args::string(py, "status", status)? {
        q = q.status(AlertStatus::from(s.as_str()));
    }
    q.validate().map_err(|e| to_py_err(py, e))?;
    Ok(q)
}

fn list(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    status: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let g = args::text(py, "group_id", group_id)?;
    let q = query(py, status)?;
    crate::api::alerts::list_request(&g, &q).map_err(|e| to_py_err(py, e))?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(AlertList::from(c.alerts().list(&g, &q).await?))
    })
}

twins! {
    Alerts
    /// Every alert of a project, every page (an `AlertList`); `status` is `"OPEN"`,
    /// `"CLOSED"` or `"TRACKING"`.
    ///
    /// >>> alerts = client.alerts.list(group_id, status="OPEN")  # doctest: +SKIP
    /// >>> alerts.total_count, alerts.to_polars().height  # doctest: +SKIP
    AsyncAlerts
    /// Every alert of a project, every page (an `AlertList`).
    ///
    /// >>> alerts = await client.alerts.list(group_id, status="OPEN")  # doctest: +SKIP
    #[pyo3(signature = (group_id, *, status = None))]
    fn list(group_id: &Bound<'_, PyAny>, status: Option<&Bound<'_, PyAny>>) => list
}

fn iter(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    status: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let g = args::text(py, "group_id", group_id)?;
    let q = query(py, status)?;
    let stream = c.alerts().stream(&g, &q).map_err(|e| to_py_err(py, e))?;
    alert_iterator(py, is_async, "alerts.iter", Box::pin(stream))
}

twins! {
    Alerts
    /// The same alerts, lazily, page by page: `for alert in client.alerts.iter(group_id)`.
    ///
    /// >>> for alert in client.alerts.iter(group_id, status="OPEN"):  # doctest: +SKIP
    /// ...     print(alert.id, alert.event_type_name)
    AsyncAlerts
    /// The same alerts, lazily, page by page: `async for alert in client.alerts.iter(...)`
    /// (a plain `for` raises `TypeError`).
    ///
    /// >>> async for alert in client.alerts.iter(group_id, status="OPEN"):  # doctest: +SKIP
    /// ...     print(alert.id)
    #[pyo3(signature = (group_id, *, status = None))]
    fn iter(group_id: &Bound<'_, PyAny>, status: Option<&Bound<'_, PyAny>>) => iter
}

fn get(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    alert_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let g = args::text(py, "group_id", group_id)?;
    let a = args::text(py, "alert_id", alert_id)?;
    crate::api::alerts::get_request(&g, &a).map_err(|e| to_py_err(py, e))?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Alert::from(c.alerts().get(&g, &a).await?))
    })
}

twins! {
    /// One alert of a project: `GET /groups/{group_id}/alerts/{alert_id}`.
    ///
    Alerts
    /// >>> client.alerts.get(group_id, alert_id).status  # doctest: +SKIP
    /// 'OPEN'
    AsyncAlerts
    /// >>> (await client.alerts.get(group_id, alert_id)).status  # doctest: +SKIP
    /// 'OPEN'
    fn get(group_id: &Bound<'_, PyAny>, alert_id: &Bound<'_, PyAny>) => get
}

/// One alert's acknowledgement (or un-acknowledgement), checked before it is sent.
fn change(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    alert_id: &Bound<'_, PyAny>,
    ack: Acknowledgement,
) -> PyResult<Py<PyAny>> {
    let g = args::text(py, "group_id", group_id)?;
    let a = args::text(py, "alert_id", alert_id)?;
    crate::api::alerts::acknowledge_request(&g, &a, &ack, c.server_time())
        .map_err(|e| to_py_err(py, e))?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Alert::from(c.alerts().acknowledge(&g, &a, &ack).await?))
    })
}

#[allow(clippy::too_many_arguments)]
fn acknowledge(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    alert_id: &Bound<'_, PyAny>,
    until: Option<&Bound<'_, PyAny>>,
    duration: Option<&Bound<'_, PyAny>>,
    forever: Option<&Bound<'_, PyAny>>,
    comment: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let ack = acknowledgement(py, until, duration, forever, comment)?;
    change(py, c, is_async, group_id, alert_id, ack)
}

fn unacknowledge(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    group_id: &Bound<'_, PyAny>,
    alert_id: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let ack = Acknowledgement::unacknowledge();
    change(py, c, is_async, group_id, alert_id, ack)
}

twins! {
    Alerts
    /// Acknowledges an alert until a time (`until`), for a while (`duration`: `"4h"`,
    /// `"PT4H"`, a timedelta) or `forever=True`; returns the alert. Never sent twice once an
    /// attempt may have reached the server.
    ///
    /// >>> client.alerts.acknowledge(group_id, alert_id, duration="4h", comment="resizing")  # doctest: +SKIP
    AsyncAlerts
    /// Acknowledges an alert until a time (`until`), for a while (`duration`) or
    /// `forever=True`; returns the alert.
    ///
    /// >>> await client.alerts.acknowledge(group_id, alert_id, duration="4h")  # doctest: +SKIP
    #[pyo3(signature = (group_id, alert_id, *, until = None, duration = None, forever = None, comment = None))]
    fn acknowledge(
        group_id: &Bound<'_, PyAny>,
        alert_id: &Bound<'_, PyAny>,
        until: Option<&Bound<'_, PyAny>>,
        duration: Option<&Bound<'_, PyAny>>,
        forever: Option<&Bound<'_, PyAny>>,
        comment: Option<&Bound<'_, PyAny>>,
    ) => acknowledge
}

twins! {
    /// Un-acknowledges an alert (sends an `acknowledgedUntil` in the past); returns it.
    ///
    Alerts
    /// >>> client.alerts.unacknowledge(group_id, alert_id).acknowledged_until  # doctest: +SKIP
    AsyncAlerts
    /// >>> await client.alerts.unacknowledge(group_id, alert_id)  # doctest: +SKIP
    fn unacknowledge(group_id: &Bound<'_, PyAny>, alert_id: &Bound<'_, PyAny>) => unacknowledge
}

/// `pairs`: an iterable (not a string) of `(group_id, alert_id)` pairs, each named by its
/// position on error (`pairs[2]`).
fn pairs(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    let what = "an iterable of (group_id, alert_id) pairs";
    let bad = |arg: &str, v: &Bound<'_, PyAny>| {
        invalid_argument(
            py,
            arg,
            format!("must be {what}, not {}", args::type_name(v)),
        )
    };
    if v.is_instance_of::<PyString>() {
        return Err(bad("pairs", v));
    }
    let mut out = Vec::new();
    for (i, item) in v.try_iter().map_err(|_| bad("pairs", v))?.enumerate() {
        let item = item?;
        let name = format!("pairs[{i}]");
        let two: Vec<Bound<'_, PyAny>> = match item.cast::<PyTuple>() {
            Ok(t) if t.len() == 2 => t.iter().collect(),
            _ => match item.extract::<Vec<Bound<'_, PyAny>>>() {
                Ok(l) if l.len() == 2 && !item.is_instance_of::<PyString>() => l,
                _ => {
                    return Err(invalid_argument(
                        py,
                        &name,
                        format!(
                            "must be a (group_id, alert_id) pair, not {}",
                            args::type_name(&item)
                        ),
                    ))
                }
            },
        };
        out.push((
            args::text(py, &format!("{name}[0]"), &two[0])?,
            args::text(py, &format!("{name}[1]"), &two[1])?,
        ));
    }
    Ok(out)
}

/// Checks every request before any is sent (an argument error raises), then sends them.
fn many(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    pairs: Vec<(String, String)>,
    ack: Acknowledgement,
) -> PyResult<Py<PyAny>> {
    acknowledge_many_requests(&pairs, &ack, c.server_time()).map_err(|e| to_py_err(py, e))?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(ManyResults(
            c.alerts().acknowledge_many(&pairs, &ack).await?,
        ))
    })
}

#[allow(clippy::too_many_arguments)]
fn acknowledge_many(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    pairs: &Bound<'_, PyAny>,
    until: Option<&Bound<'_, PyAny>>,
    duration: Option<&Bound<'_, PyAny>>,
    forever: Option<&Bound<'_, PyAny>>,
    comment: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let p = self::pairs(py, pairs)?;
    let ack = acknowledgement(py, until, duration, forever, comment)?;
    many(py, c, is_async, p, ack)
}

fn unacknowledge_many(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    pairs: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let p = self::pairs(py, pairs)?;
    many(py, c, is_async, p, Acknowledgement::unacknowledge())
}

twins! {
    Alerts
    /// Acknowledges many alerts, of one project or several, concurrently (at most
    /// `max_concurrency` at once): one result per `(group_id, alert_id)` pair, in the order
    /// given, each an `Alert` or the exception object of its failure (returned, not raised).
    /// An argument error raises before any request is sent.
    ///
    /// >>> results = client.alerts.acknowledge_many([(g, a1), (g, a2)], duration="2h")  # doctest: +SKIP
    /// >>> failed = [r for r in results if isinstance(r, opsapi.OpsApiError)]  # doctest: +SKIP
    AsyncAlerts
    /// Acknowledges many alerts concurrently: one result per `(group_id, alert_id)` pair, in
    /// the order given, each an `Alert` or the exception object of its failure.
    ///
    /// >>> results = await client.alerts.acknowledge_many([(g, a1)], duration="2h")  # doctest: +SKIP
    #[pyo3(signature = (pairs, *, until = None, duration = None, forever = None, comment = None))]
    fn acknowledge_many(
        pairs: &Bound<'_, PyAny>,
        until: Option<&Bound<'_, PyAny>>,
        duration: Option<&Bound<'_, PyAny>>,
        forever: Option<&Bound<'_, PyAny>>,
        comment: Option<&Bound<'_, PyAny>>,
    ) => acknowledge_many
}

twins! {
    /// Un-acknowledges many alerts concurrently: one result per pair, in the order given.
    ///
    Alerts
    /// >>> results = client.alerts.unacknowledge_many([(g, a1), (g, a2)])  # doctest: +SKIP
    AsyncAlerts
    /// >>> results = await client.alerts.unacknowledge_many([(g, a1)])  # doctest: +SKIP
    fn unacknowledge_many(pairs: &Bound<'_, PyAny>) => unacknowledge_many
}

fn list_all(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    status: Option<&Bound<'_, PyAny>>,
    groups: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let q = query(py, status)?;
    let groups = match groups.filter(|g| !g.is_none()) {
        Some(g) => Some(args::texts(py, "groups", "a list of project ids", g)?),
        None => None,
    };
    if let Some(g) = &groups {
        list_all_requests(g, &q).map_err(|e| to_py_err(py, e))?;
    }
    let c = c.clone();
    dispatch(py, is_async, async move {
        let ids: Option<Vec<&str>> = groups
            .as_ref()
            .map(|g| g.iter().map(String::as_str).collect());
        Ok(AlertList::from(
            c.alerts().list_all(&q, ids.as_deref()).await?,
        ))
    })
}

twins! {
    Alerts
    /// The alerts of every project the key can see (or of the projects in `groups`), the
    /// projects concurrently: one `AlertList` in the order of the projects, whose frame has
    /// `group_id`. A project that fails raises (never a silently shorter list).
    ///
    /// >>> everywhere = client.alerts.list_all(status="OPEN")  # doctest: +SKIP
    /// >>> everywhere.to_polars().group_by("group_id").len()  # doctest: +SKIP
    AsyncAlerts
    /// The alerts of every project the key can see (or of those in `groups`), concurrently.
    ///
    /// >>> everywhere = await client.alerts.list_all(status="OPEN")  # doctest: +SKIP
    #[pyo3(signature = (*, status = None, groups = None))]
    fn list_all(status: Option<&Bound<'_, PyAny>>, groups: Option<&Bound<'_, PyAny>>) => list_all
}

fn context(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    alert: &Bound<'_, PyAny>,
    before: Option<&Bound<'_, PyAny>>,
    after: Option<&Bound<'_, PyAny>>,
    granularity: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let alert = match alert.cast::<Alert>() {
        Ok(a) => a.get().model().clone(),
        Err(_) => {
            let t = args::type_name(alert);
            return Err(invalid_argument(
                py,
                "alert",
                format!("must be an Alert, not {t}"),
            ));
        }
    };
    let before = args::duration(py, "before", before)?;
    let after = args::duration(py, "after", after)?;
    let granularity = args::duration(py, "granularity", granularity)?;
    let options =
        ContextOptions::from_parts(before.as_deref(), after.as_deref(), granularity.as_deref())
            .map_err(|e| to_py_err(py, e))?;
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(AlertContext::from(
            c.alerts().context(&alert, &options).await?,
        ))
    })
}

twins! {
    Alerts
    /// The alert in its context (an `AlertContext`): its metric on its host (or partition,
    /// or database) from `before` (default 2 hours) before it was created to `after`
    /// (default 1 hour) after it was resolved, or now while open, at the finest granularity
    /// the window allows unless `granularity` is given; the threshold of its configuration;
    /// the hosts it concerns. For global and project alerts. An alert without a metric (a
    /// replica set without a primary) gives an empty frame, its hosts' state and the window's
    /// events, and does not raise.
    ///
    /// >>> ctx = client.alerts.context(alert)  # doctest: +SKIP
    /// >>> ctx.frame.select("timestamp", "value").tail(3), ctx.threshold  # doctest: +SKIP
    /// >>> ctx.chart()  # an Altair chart  # doctest: +SKIP
    AsyncAlerts
    /// The alert in its context (an `AlertContext`), as `Client.alerts.context` gives it.
    ///
    /// >>> ctx = await client.alerts.context(alert, before="PT30M")  # doctest: +SKIP
    #[pyo3(signature = (alert, *, before = None, after = None, granularity = None))]
    fn context(
        alert: &Bound<'_, PyAny>,
        before: Option<&Bound<'_, PyAny>>,
        after: Option<&Bound<'_, PyAny>>,
        granularity: Option<&Bound<'_, PyAny>>,
    ) => context
}
