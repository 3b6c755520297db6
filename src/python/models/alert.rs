//! Python classes of alerts and alert configurations, made from their field lists.

use chrono::{DateTime, Utc};
use pyo3::prelude::*;

use super::{list_class, py_model, py_part, Host};

crate::models::current_value_fields!(py_part
    "The value of the metric that triggered an alert: `number` and `units` (`RAW`, `BYTES`, ...).");

crate::models::alert_fields!(py_model
    "An alert: a global alert or an open alert of an alert configuration.\n\n\
     Every documented field is an attribute (`None` where the server left it out); timestamps \
     are timezone-aware datetimes; `to_dict()` gives back the server's JSON.\n\n\
     >>> alert = client.global_alerts.get(alert_id)  # doctest: +SKIP\n\
     >>> alert.status, alert.current_value.number  # doctest: +SKIP\n\
     ('OPEN', 12.0)");

crate::models::alert_config_fields!(py_model
    "An alert configuration of a project; `matchers`, `metric_threshold` and `notifications` \
     are the server's JSON as Python objects.");

list_class!(
    /// Alerts: a read-only sequence with `total_count` and `to_polars()`.
    AlertList("AlertList") of Alert(crate::Alert), crate::frame::alerts_frame, AlertListIterator
);

/// An alert in its context (`client.alerts.context(alert)`): `alert`, `frame` (the long frame
/// of its metric on its host, partition or database over `start`..`end` at `granularity`;
/// empty for an alert without a metric), `threshold` (its configuration's, or None), `hosts`
/// (its host, or its replica set's members, with their state), `host`, `note` (why the frame
/// is empty, when it is), and `chart()`; and beside them what may say why, each a polars
/// frame: `events` (the deployment's events of the window), `slow_queries` (by namespace and
/// query shape) and `suggested_indexes`; `reading` (one sentence of what was found) and
/// `missing` (the parts left out, and why).
///
/// >>> ctx = client.alerts.context(alert)  # doctest: +SKIP
/// >>> ctx.kind, ctx.measurement, ctx.granularity, ctx.frame.height  # doctest: +SKIP
/// ('host', 'CONNECTIONS', 'PT1M', 181)
/// >>> ctx.reading  # doctest: +SKIP
/// 'connections crossed 2 000 on rs0-1.example.net:27017 at 02:03; rs0 elected ...'
#[pyclass(frozen, module = "opsapi._native", skip_from_py_object)]
pub struct AlertContext {
    inner: crate::AlertContext,
}

impl From<crate::AlertContext> for AlertContext {
    fn from(inner: crate::AlertContext) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl AlertContext {
    /// The alert.
    #[getter]
    fn alert(&self) -> Alert {
        Alert::from(self.inner.alert.clone())
    }
    /// The long frame of the alert's metric (the columns of every long frame; no rows for an
    /// alert without a metric).
    #[getter]
    fn frame(&self, py: Python<'_>) -> PyResult<crate::python::frame::PyFrame> {
        let frame = self
            .inner
            .frame()
            .map_err(|e| crate::python::errors::to_py_err(py, e))?;
        Ok(crate::python::frame::PyFrame(frame))
    }
    /// `metricThreshold.threshold` of the alert's configuration, or None; in the units of
    /// the frame's series where the configuration says other units of the same kind (Atlas's
    /// replication lag: 60 seconds configured, 60000 in its milliseconds).
    #[getter]
    fn threshold(&self) -> Option<f64> {
        self.inner.threshold
    }
    /// The threshold's units: the series' where it was converted to them, else
    /// `metricThreshold.units` of the alert's configuration; None without a threshold.
    #[getter]
    fn threshold_units(&self) -> Option<&str> {
        self.inner.threshold_units.as_deref()
    }
    /// `"host"`, `"disk"` or `"database"`: where the metric is measured; None without one.
    #[getter]
    fn kind(&self) -> Option<&'static str> {
        self.inner.kind.map(|k| k.as_str())
    }
    /// The measurement read (the alert's metric, as the measurements API names it).
    #[getter]
    fn measurement(&self) -> Option<&str> {
        self.inner.measurement.as_deref()
    }
    /// The window's start.
    #[getter]
    fn start(&self) -> DateTime<Utc> {
        self.inner.start
    }
    /// The window's end.
    #[getter]
    fn end(&self) -> DateTime<Utc> {
        self.inner.end
    }
    /// The granularity of the frame (`"PT1M"`, ...).
    #[getter]
    fn granularity(&self) -> &'static str {
        self.inner.granularity.as_str()
    }
    /// The alert's own host (the one its `hostId` or `hostnameAndPort` names), or None.
    #[getter]
    fn host(&self) -> Option<Host> {
        self.inner.host().cloned().map(Host::from)
    }
    /// The hosts it concerns: its host, or its replica set's members.
    #[getter]
    fn hosts(&self) -> Vec<Host> {
        self.inner.hosts.iter().cloned().map(Host::from).collect()
    }
    /// The deployment's events of the window, oldest first, as a polars frame: `created`,
    /// `event_type_name`, `kind` (`election`, `restart`, `host_down`, `host_up`, `scaling`,
    /// `cluster_change`, `configuration`, `upgrade`, `alert`), `said` (what it says, in
    /// words), `host`, `replica_set_name`, `id`, `host_id`, `alert_id`. Elections, restarts
    /// and hosts down about its hosts or replica sets; on Atlas its cluster's auto-scaling,
    /// tier changes and disk resizes; the project's configuration changes; the alert's own
    /// acknowledgements.
    #[getter]
    fn events(&self, py: Python<'_>) -> PyResult<crate::python::frame::PyFrame> {
        let frame = self.inner.events_frame();
        Ok(crate::python::frame::PyFrame(
            frame.map_err(|e| crate::python::errors::to_py_err(py, e))?,
        ))
    }
    /// The window's slow queries on the alert's host by namespace and query shape, the most
    /// time first, as a polars frame: `namespace`, `shape`, `count`, `total_ms`, `median_ms`,
    /// `docs_examined`, `docs_returned`, `examined_per_returned`, `plan_summary`, `index`
    /// (the suggested index that would serve the shape, if one is). Empty when there were
    /// none, or when `missing` says why it could not be read.
    #[getter]
    fn slow_queries(&self, py: Python<'_>) -> PyResult<crate::python::frame::PyFrame> {
        let frame = self.inner.slow_queries_frame();
        Ok(crate::python::frame::PyFrame(
            frame.map_err(|e| crate::python::errors::to_py_err(py, e))?,
        ))
    }
    /// The indexes the Performance Advisor suggests for the window's namespaces, as a polars
    /// frame: `host`, `namespace`, `index` (`{status: 1, createdAt: 1}`), `shapes` (the shapes
    /// it serves), `count`, `avg_ms`, `weight`.
    #[getter]
    fn suggested_indexes(&self, py: Python<'_>) -> PyResult<crate::python::frame::PyFrame> {
        let frame = self.inner.suggested_indexes_frame();
        Ok(crate::python::frame::PyFrame(
            frame.map_err(|e| crate::python::errors::to_py_err(py, e))?,
        ))
    }
    /// One sentence built from what was found: what the alert says happened, the slow
    /// queries that dominate its window and the index missing for them, the events around it.
    #[getter]
    fn reading(&self) -> &str {
        &self.inner.reading
    }
    /// The parts left out, and why (`{"slow_queries": "the key may not read ... (HTTP
    /// 403)"}`): what the flavour or the key's permission does not offer. Never an error.
    #[getter]
    fn missing(&self) -> std::collections::BTreeMap<String, String> {
        self.inner.missing.clone()
    }
    /// The measurements read: one per host, partition or database.
    #[getter]
    fn measurements(&self) -> Vec<super::Measurements> {
        let m = self.inner.measurements.iter().cloned();
        m.map(super::Measurements::from).collect()
    }
    /// Why the frame is empty, when it is (no metric, a host the project does not have, a
    /// metric the server does not measure).
    #[getter]
    fn note(&self) -> Option<&str> {
        self.inner.note.as_deref()
    }
    /// An Altair chart: the series, the threshold as a rule, and the span the alert was open
    /// shaded (`opsapi.alerts_analysis.context_chart`; Altair is imported here, not before).
    ///
    /// >>> client.alerts.context(alert).chart().save("alert.html")  # doctest: +SKIP
    #[pyo3(signature = (**kwargs))]
    fn chart<'py>(
        slf: &Bound<'py, Self>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let module = slf.py().import("opsapi.alerts_analysis")?;
        module.getattr("context_chart")?.call((slf,), kwargs)
    }
    fn __repr__(&self) -> String {
        let points: usize = self
            .inner
            .measurements
            .iter()
            .map(|m| m.data_point_count())
            .sum();
        format!(
            "AlertContext(alert={:?}, kind={:?}, measurement={:?}, granularity={:?}, points={points}, threshold={:?})",
            self.inner.alert.id.as_deref().unwrap_or(""),
            self.kind().unwrap_or("none"),
            self.inner.measurement.as_deref().unwrap_or(""),
            self.granularity(),
            self.inner.threshold
        )
        .replace('"', "'")
    }
}
