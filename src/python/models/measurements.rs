//! Python classes of measurements: a series per measurement, columns handed to polars whole.

use crate::python::frame::PyFrame;
use chrono::{DateTime, Utc};
use pyo3::prelude::*;

use super::{json_loads, json_to_py, PyField};
use crate::frame::Shape;
use crate::python::errors::to_py_err;

fn repr_opt<T: std::fmt::Debug>(v: &Option<T>) -> String {
    match v {
        Some(v) => format!("{v:?}").replace('"', "'"),
        None => "None".into(),
    }
}

/// One measurement's time series.
#[pyclass(
    frozen,
    name = "Series",
    module = "opsapi._native",
    skip_from_py_object
)]
#[derive(Clone)]
pub struct Series {
    inner: crate::Series,
}

#[pymethods]
impl Series {
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    #[getter]
    fn units(&self) -> Option<&str> {
        self.inner.units.as_deref()
    }
    /// Timezone-aware (UTC) datetimes, one per data point.
    #[getter]
    fn timestamps(&self) -> Vec<Option<DateTime<Utc>>> {
        self.inner
            .timestamps
            .iter()
            .map(|&ms| DateTime::from_timestamp_millis(ms))
            .collect()
    }
    /// Values, `None` where the server sent null.
    #[getter]
    fn values(&self) -> Vec<Option<f64>> {
        self.inner.values.clone()
    }
    fn __len__(&self) -> usize {
        self.inner.len()
    }
    fn __repr__(&self) -> String {
        format!(
            "Series(name={:?}, units={}, points={})",
            self.inner.name,
            repr_opt(&self.inner.units),
            self.inner.len()
        )
        .replace('"', "'")
    }
}

/// Measurements of a host or a disk partition.
#[pyclass(
    frozen,
    name = "Measurements",
    module = "opsapi._native",
    skip_from_py_object
)]
pub struct Measurements {
    inner: crate::Measurements,
}

impl From<crate::Measurements> for Measurements {
    fn from(inner: crate::Measurements) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl Measurements {
    #[getter]
    fn group_id(&self) -> Option<&str> {
        self.inner.group_id.as_deref()
    }
    #[getter]
    fn host_id(&self) -> Option<&str> {
        self.inner.host_id.as_deref()
    }
    #[getter]
    fn process_id(&self) -> Option<&str> {
        self.inner.process_id.as_deref()
    }
    #[getter]
    fn partition_name(&self) -> Option<&str> {
        self.inner.partition_name.as_deref()
    }
    #[getter]
    fn database_name(&self) -> Option<&str> {
        self.inner.database_name.as_deref()
    }
    #[getter]
    fn granularity(&self) -> Option<&str> {
        self.inner.granularity.as_deref()
    }
    #[getter]
    fn start(&self) -> Option<DateTime<Utc>> {
        self.inner.start
    }
    #[getter]
    fn end(&self) -> Option<DateTime<Utc>> {
        self.inner.end
    }
    #[getter]
    fn links(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        PyField::to_py(&Some(self.inner.links.clone()), py)
    }
    #[getter]
    fn series(&self) -> Vec<Series> {
        self.inner
            .series
            .iter()
            .map(|s| Series { inner: s.clone() })
            .collect()
    }
    /// A polars DataFrame, `shape="long"` (one row per data point: key columns, `timestamp`,
    /// `value`) or `"wide"` (`timestamp`, then one column per measurement). A null data point
    /// stays null.
    ///
    /// >>> m = client.measurements.host(g, h, granularity="PT1M", period="PT1H")  # doctest: +SKIP
    /// >>> m.to_polars(shape="wide").tail()  # doctest: +SKIP
    #[pyo3(signature = (shape = "long"))]
    fn to_polars(&self, py: Python<'_>, shape: &str) -> PyResult<PyFrame> {
        let shape: Shape = shape.parse().map_err(|e| to_py_err(py, e))?;
        let frame = self.inner.to_frame(shape).map_err(|e| to_py_err(py, e))?;
        Ok(PyFrame(frame))
    }
    /// The Arrow PyCapsule stream interface: the long frame (see `to_polars()`) as Arrow,
    /// without a copy through Python objects.
    ///
    /// >>> import pyarrow, duckdb  # doctest: +SKIP
    /// >>> pyarrow.table(m).num_rows  # doctest: +SKIP
    /// >>> duckdb.sql("select measurement, max(value) from m group by measurement")  # doctest: +SKIP
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__(
        &self,
        py: Python<'_>,
        requested_schema: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let frame = self
            .inner
            .to_frame(Shape::Long)
            .map_err(|e| to_py_err(py, e))?;
        crate::python::frame::arrow_stream(py, frame, requested_schema)
    }
    /// What was measured, one row per series (points, nulls, first and last value), for
    /// Jupyter.
    ///
    /// >>> m  # in a notebook cell  # doctest: +SKIP
    fn _repr_html_(&self) -> String {
        use super::escape_html as e;
        let m = &self.inner;
        let mut out = String::from("<p><b>Measurements</b>");
        for (label, v) in [
            ("host", m.host_id.as_deref()),
            ("process", m.process_id.as_deref()),
            ("partition", m.partition_name.as_deref()),
            ("database", m.database_name.as_deref()),
            ("granularity", m.granularity.as_deref()),
        ] {
            if let Some(v) = v {
                out.push_str(&format!(" · {label} <code>{}</code>", e(v)));
            }
        }
        if let (Some(start), Some(end)) = (m.start, m.end) {
            out.push_str(&format!(
                " · {} to {}",
                start.to_rfc3339(),
                end.to_rfc3339()
            ));
        }
        out.push_str(
            "</p><table><tr><th>measurement</th><th>units</th><th>points</th>\
                      <th>nulls</th><th>first</th><th>last</th></tr>",
        );
        let show = |v: Option<&Option<f64>>| match v.copied().flatten() {
            Some(x) => format!("{x}"),
            None => "null".to_string(),
        };
        for s in &m.series {
            let nulls = s.values.iter().filter(|v| v.is_none()).count();
            out.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                e(&s.name),
                e(s.units.as_deref().unwrap_or("")),
                s.len(),
                nulls,
                show(s.values.first()),
                show(s.values.last()),
            ));
        }
        out.push_str("</table>");
        out
    }
    /// The JSON object exactly as the server sent it (key order, number spelling and fields
    /// this library does not know included).
    ///
    /// >>> m.to_dict()["measurements"][0]["dataPoints"][0]  # doctest: +SKIP
    /// {'timestamp': '2026-01-01T00:00:00Z', 'value': None}
    fn to_dict(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match self.inner.raw_json() {
            Some(text) => json_loads(py, text),
            None => json_to_py(py, &self.inner),
        }
    }
    fn __repr__(&self) -> String {
        format!(
            "Measurements(group_id={}, host_id={}, partition_name={}, granularity={}, series={}, points={})",
            repr_opt(&self.inner.group_id),
            repr_opt(&self.inner.host_id),
            repr_opt(&self.inner.partition_name),
            repr_opt(&self.inner.granularity),
            self.inner.series.len(),
            self.inner.data_point_count()
        )
    }
}
