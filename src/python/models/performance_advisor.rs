//! Python classes of the Performance Advisor's answers, made from their field lists.

use pyo3::prelude::*;

use super::{py_model, py_part};

crate::models::namespace_fields!(py_part
    "A namespace of a host's slow queries: `namespace` (`<database>.<collection>`) and \
     `type`.\n\n\
     >>> [n.namespace for n in client.performance_advisor.namespaces(group_id, host_id)]  # doctest: +SKIP\n\
     ['orders.users', 'orders.items']");

crate::models::slow_query_fields!(py_part
    "A slow query's log line (`line`) and its `namespace`.");

crate::models::slow_query_logs_fields!(py_model
    "The log lines of a host's slow queries (`slow_queries`); `to_polars()` reads each \
     line.\n\n\
     >>> logs = client.performance_advisor.slow_query_logs(group_id, host_id)  # doctest: +SKIP\n\
     >>> logs.to_polars().group_by(\"shape\").agg(pl.col(\"duration_ms\").median())  # doctest: +SKIP");

crate::models::query_shape_fields!(py_part
    "A query shape that suggested indexes serve: `count`, `avg_ms`, `inefficiency_score` \
     (documents read per document returned) and example `operations`.");

crate::models::suggested_index_fields!(py_part
    "A suggested index: its keys (`index`, each `{field: 1}`), its `namespace` and the \
     shapes it serves (`impact`, their ids).");

crate::models::suggested_indexes_fields!(py_model
    "The indexes suggested for a host's slow queries (`indexes`) and the query shapes they \
     serve (`shapes`).\n\n\
     >>> s = client.performance_advisor.suggested_indexes(group_id, host_id)  # doctest: +SKIP\n\
     >>> [(i.namespace, i.index) for i in s.indexes]  # doctest: +SKIP\n\
     [('orders.users', [{'email': 1}])]");

#[pymethods]
impl SlowQueryLogs {
    /// One row per log line, as polars: `timestamp`, `namespace`, `shape` (the command and its
    /// filter, values as `?`), `duration_ms`, `docs_examined`, `docs_returned`,
    /// `plan_summary` and the `line`; what a line does not say is null.
    ///
    /// >>> logs.to_polars().sort("duration_ms", descending=True).head(3)  # doctest: +SKIP
    fn to_polars(&self, py: Python<'_>) -> PyResult<crate::python::frame::PyFrame> {
        let frame = crate::frame::slow_queries_frame(self.model())
            .map_err(|e| crate::python::errors::to_py_err(py, e))?;
        Ok(crate::python::frame::PyFrame(frame))
    }

    /// The lines summarised by namespace and query shape, the most time first: `namespace`,
    /// `shape`, `count`, `total_ms`, `median_ms`, `docs_examined`, `docs_returned`,
    /// `examined_per_returned`, `plan_summary`, `index` (null here) and `share`, each shape's
    /// share of the logs' whole slow-query time (0 to 1), as an alert context's
    /// `.slow_queries` summarises its window's.
    ///
    /// >>> logs.summary().select("namespace", "shape", "share").head(2)  # doctest: +SKIP
    fn summary(&self, py: Python<'_>) -> PyResult<crate::python::frame::PyFrame> {
        let frame = crate::frame::context::slow_summary_frame(self.model())
            .map_err(|e| crate::python::errors::to_py_err(py, e))?;
        Ok(crate::python::frame::PyFrame(frame))
    }

    /// The number of log lines.
    ///
    /// >>> len(logs)  # doctest: +SKIP
    fn __len__(&self) -> usize {
        self.model().slow_queries.as_ref().map_or(0, Vec::len)
    }
}
