//! `SyncReport`: what a sync did, on its way from the core to Python (its failures become the
//! exceptions they would be raised as).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::api::measurements::Target;
use crate::python::errors::to_py_err;
use crate::store::{Kind, SyncReport as CoreReport};

/// What a sync did: the targets `new` to the store, `updated` (new points), `unchanged`
/// (nothing new), `failed` (target → the error, as raised elsewhere: asked again next sync),
/// `no_longer_seen` (gone from the server; their data is kept), `gaps` (spans the store lost
/// that the server no longer had), `warnings` (what the sync noticed and did not stop for),
/// and `requests` (of which `data_requests`), `points_added`, `bytes_written`,
/// `files_removed`, `seconds`. Targets
/// are tuples: `("host", group_id, host_id)`, `("disk", group_id, host_id, partition_name)`,
/// `("database", group_id, host_id, database_name)`; a failed discovery listing is
/// `("listing", path)`.
///
/// >>> report = client.measurements.sync(opsapi.Store("s"), granularity="PT1H", window="P1D")
/// >>> (len(report.updated), report.data_requests == len(report.new))
/// (0, True)
#[pyclass(frozen, name = "SyncReport", module = "opsapi._native")]
pub struct SyncReport {
    new: Vec<Vec<String>>,
    updated: Vec<Vec<String>>,
    unchanged: Vec<Vec<String>>,
    no_longer_seen: Vec<Vec<String>>,
    gaps: Vec<Gap>,
    warnings: Vec<String>,
    failed: Py<PyDict>,
    failed_count: usize,
    requests: u64,
    data_requests: u64,
    points_added: u64,
    bytes_written: u64,
    files_removed: u64,
    seconds: f64,
}

/// A lost span, as the report keeps it.
struct Gap {
    target: Vec<String>,
    granularity: &'static str,
    first: chrono::DateTime<chrono::Utc>,
    last: chrono::DateTime<chrono::Utc>,
    points: u64,
}

impl Gap {
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("target", PyTuple::new(py, &self.target)?)?;
        d.set_item("granularity", self.granularity)?;
        d.set_item("first", self.first)?;
        d.set_item("last", self.last)?;
        d.set_item("points", self.points)?;
        Ok(d)
    }
}

fn parts(t: &Target) -> Vec<String> {
    let mut v = vec![
        Kind::of(t).as_str().to_string(),
        t.group_id().to_string(),
        t.host_id().to_string(),
    ];
    v.extend(t.partition_name().or(t.database_name()).map(str::to_string));
    v
}

fn tuples<'py>(py: Python<'py>, items: &[Vec<String>]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for t in items {
        out.append(PyTuple::new(py, t)?)?;
    }
    Ok(out)
}

/// Bytes for people: `812 B`, `4.2 kB`, `1.3 MB`.
pub(super) fn human_bytes(n: u64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", units[u])
    }
}

#[pymethods]
impl SyncReport {
    /// Targets the store met for the first time.
    ///
    /// >>> report = client.measurements.sync(opsapi.Store("s"), kind="host", granularity="PT1H",
    /// ...                                   window="P1D")
    /// >>> report.new[0][0]
    /// 'host'
    #[getter(new)]
    fn new_targets<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tuples(py, &self.new)
    }
    /// Known targets that got new points.
    #[getter]
    fn updated<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tuples(py, &self.updated)
    }
    /// Known targets with nothing new.
    #[getter]
    fn unchanged<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tuples(py, &self.unchanged)
    }
    /// Targets discovery no longer finds on the server (their data is kept).
    #[getter]
    fn no_longer_seen<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        tuples(py, &self.no_longer_seen)
    }
    /// Spans the store lost (files found missing or damaged) that the server no longer had:
    /// one dict each, `target`, `granularity`, `first`, `last` (the lost file's first and last
    /// point), `points` (lost). Also in `store.targets()`'s `gaps` and `points_lost`.
    #[getter]
    fn gaps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for g in &self.gaps {
            out.append(g.to_dict(py)?)?;
        }
        Ok(out)
    }
    /// What the sync noticed and did not stop for, one sentence each: a server clock more
    /// than 5 minutes ahead of this machine's (nothing left the window in that sync), files
    /// found missing or damaged (dropped, their spans asked again), targets asked up to a time
    /// after the server's now (repaired).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }
    /// Failed targets (and discovery listings, `("listing", path)`) and their errors.
    #[getter]
    fn failed(&self, py: Python<'_>) -> Py<PyDict> {
        self.failed.clone_ref(py)
    }
    /// API requests sent: listing pages and data requests (not retries).
    #[getter]
    fn requests(&self) -> u64 {
        self.requests
    }
    /// Measurement requests sent.
    #[getter]
    fn data_requests(&self) -> u64 {
        self.data_requests
    }
    /// Data points added to the store.
    #[getter]
    fn points_added(&self) -> u64 {
        self.points_added
    }
    /// Bytes of data files written (compactions included).
    #[getter]
    fn bytes_written(&self) -> u64 {
        self.bytes_written
    }
    /// Data files removed (compacted, or out of the store's window).
    #[getter]
    fn files_removed(&self) -> u64 {
        self.files_removed
    }
    /// Wall time of the sync, in seconds.
    #[getter]
    fn seconds(&self) -> f64 {
        self.seconds
    }

    /// The report as plain data (for JSON): the counts, the target lists, and each failure
    /// as `{"target": [...], "error": "..."}`.
    ///
    /// >>> report = client.measurements.sync(opsapi.Store("s"), kind="host", granularity="PT1H",
    /// ...                                   window="P1D")
    /// >>> sorted(report.to_dict())[:3]
    /// ['bytes_written', 'data_requests', 'failed']
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("new", tuples(py, &self.new)?)?;
        d.set_item("updated", tuples(py, &self.updated)?)?;
        d.set_item("unchanged", tuples(py, &self.unchanged)?)?;
        d.set_item("no_longer_seen", tuples(py, &self.no_longer_seen)?)?;
        let gaps = PyList::empty(py);
        for g in &self.gaps {
            let gd = g.to_dict(py)?;
            gd.set_item("target", PyList::new(py, &g.target)?)?;
            gd.set_item("first", g.first.to_rfc3339())?;
            gd.set_item("last", g.last.to_rfc3339())?;
            gaps.append(gd)?;
        }
        d.set_item("gaps", gaps)?;
        d.set_item("warnings", self.warnings.clone())?;
        let failed = PyList::empty(py);
        for (k, v) in self.failed.bind(py).iter() {
            let f = PyDict::new(py);
            f.set_item("target", k.cast::<PyTuple>()?.to_list())?;
            f.set_item("error", v.str()?)?;
            failed.append(f)?;
        }
        d.set_item("failed", failed)?;
        d.set_item("requests", self.requests)?;
        d.set_item("data_requests", self.data_requests)?;
        d.set_item("points_added", self.points_added)?;
        d.set_item("bytes_written", self.bytes_written)?;
        d.set_item("files_removed", self.files_removed)?;
        d.set_item("seconds", self.seconds)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let targets =
            self.new.len() + self.updated.len() + self.unchanged.len() + self.failed_count;
        let head = format!(
            "SyncReport({targets} targets: {} new, {} updated, {} unchanged, {} failed, {} no \
             longer seen; {} requests ({} for data), {} points added, {} written, {:.1} s)",
            self.new.len(),
            self.updated.len(),
            self.unchanged.len(),
            self.failed_count,
            self.no_longer_seen.len(),
            self.requests,
            self.data_requests,
            self.points_added,
            human_bytes(self.bytes_written),
            self.seconds
        );
        let mut notes = Vec::new();
        let counted = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        if !self.gaps.is_empty() {
            notes.push(counted(self.gaps.len(), "gap"));
        }
        if !self.warnings.is_empty() {
            notes.push(counted(self.warnings.len(), "warning"));
        }
        if notes.is_empty() {
            head
        } else {
            format!("{}; {})", head.trim_end_matches(')'), notes.join(", "))
        }
    }
}

/// The core's report on its way to Python: errors become the exceptions they would be raised
/// as.
pub(super) struct ReportOut(pub(super) CoreReport);

impl<'py> IntoPyObject<'py> for ReportOut {
    type Target = SyncReport;
    type Output = Bound<'py, SyncReport>;
    type Error = PyErr;
    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, SyncReport>> {
        let r = self.0;
        let failed = PyDict::new(py);
        let failed_count = r.failed.len();
        for f in r.failed {
            let key = PyTuple::new(py, parts(&f.target))?;
            failed.set_item(key, to_py_err(py, f.error).value(py))?;
        }
        for (path, e) in r.listings_failed {
            let key = PyTuple::new(py, ["listing".to_string(), path])?;
            failed.set_item(key, to_py_err(py, e).value(py))?;
        }
        let list = |v: Vec<Target>| v.iter().map(parts).collect();
        Bound::new(
            py,
            SyncReport {
                new: list(r.new),
                updated: list(r.updated),
                unchanged: list(r.unchanged),
                no_longer_seen: list(r.no_longer_seen),
                gaps: r
                    .gaps
                    .iter()
                    .map(|g| Gap {
                        target: parts(&g.target),
                        granularity: g.granularity.as_str(),
                        first: g.first,
                        last: g.last,
                        points: g.points,
                    })
                    .collect(),
                warnings: r.warnings,
                failed: failed.unbind(),
                failed_count,
                requests: r.requests,
                data_requests: r.data_requests,
                points_added: r.points_added,
                bytes_written: r.bytes_written,
                files_removed: r.files_removed,
                seconds: r.seconds,
            },
        )
    }
}
