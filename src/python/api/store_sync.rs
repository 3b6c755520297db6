//! `client.measurements.sync(...)` (sync and async twins side by side) and its `SyncReport`;
//! the store itself is `store.rs`.

use std::sync::{Arc, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};

use super::measurements::targets as fleet_targets;
use super::store::{granularity, kind, Store};
use super::{AsyncMeasurementsApi, MeasurementsApi};
use crate::api::measurements::Target;
use crate::iso8601::IsoDuration;
use crate::python::args;
use crate::python::errors::{invalid_argument, to_py_err};
use crate::python::runtime::{dispatch, is_shut_down};
use crate::store::{Kind, Store as CoreStore, SyncOptions, SyncReport as CoreReport};

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
struct ReportOut(CoreReport);

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

/// `sync(...)`'s keyword arguments after the store.
struct SyncArgs<'a, 'py> {
    targets: Option<&'a Bound<'py, PyAny>>,
    kind: Option<&'a Bound<'py, PyAny>>,
    granularity: &'a Bound<'py, PyAny>,
    window: &'a Bound<'py, PyAny>,
    metrics: Option<&'a Bound<'py, PyAny>>,
    wait: Option<&'a Bound<'py, PyAny>>,
    progress: Option<&'a Bound<'py, PyAny>>,
    rediscover: Option<&'a Bound<'py, PyAny>>,
    projects: Option<&'a Bound<'py, PyAny>>,
    keep: Option<&'a Bound<'py, PyAny>>,
}

/// `kind`: one name, or a sequence of them (all three by default).
fn kinds(py: Python<'_>, v: Option<&Bound<'_, PyAny>>) -> PyResult<(Vec<Kind>, Option<String>)> {
    let Some(v) = v.filter(|v| !v.is_none()) else {
        return Ok((Kind::ALL.to_vec(), None));
    };
    if v.is_instance_of::<PyString>() {
        let k = kind(py, "kind", v)?;
        return Ok((vec![k], Some(k.as_str().to_string())));
    }
    let names = args::texts(
        py,
        "kind",
        "\"host\", \"disk\", \"database\" or a tuple of them",
        v,
    )?;
    let mut out = Vec::new();
    for (i, n) in names.iter().enumerate() {
        let k = Kind::parse(n).map_err(|_| {
            invalid_argument(
                py,
                &format!("kind[{i}]"),
                format!("`{n}` is not one of \"host\", \"disk\", \"database\""),
            )
        })?;
        if !out.contains(&k) {
            out.push(k);
        }
    }
    Ok((out, None))
}

fn options(py: Python<'_>, a: &SyncArgs<'_, '_>) -> PyResult<SyncOptions> {
    let g = granularity(py, a.granularity)?;
    let window = args::duration(py, "window", Some(a.window))?.unwrap_or_default();
    let window = IsoDuration::parse("window", &window).map_err(|e| to_py_err(py, e))?;
    let (kinds, one_kind) = kinds(py, a.kind)?;
    let mut o = SyncOptions::new(g, window).kinds(kinds.clone());
    match a.targets.filter(|t| !t.is_none()) {
        None => {}
        Some(t) if t.is_instance_of::<PyString>() && args::text(py, "targets", t)? == "all" => {}
        Some(t) if t.is_instance_of::<PyString>() => {
            return Err(invalid_argument(
                py,
                "targets",
                "must be \"all\" or a list of target tuples",
            ))
        }
        Some(t) => o = o.targets(fleet_targets(py, t, one_kind.as_deref())?),
    }
    match a.metrics.filter(|m| !m.is_none()) {
        None => {}
        Some(m) if m.is_instance_of::<PyDict>() => {
            for (k, names) in m.cast::<PyDict>()?.iter() {
                let k = kind(py, "metrics", &k)?;
                let names = args::texts(
                    py,
                    &format!("metrics[{k:?}]"),
                    "a list of measurement names",
                    &names,
                )?;
                o = o.metrics(k, names);
            }
        }
        Some(m) => {
            if kinds.len() != 1 {
                return Err(invalid_argument(
                    py,
                    "metrics",
                    "a list of names applies to one kind: give a dict {kind: names} for several",
                ));
            }
            let names = args::metrics(py, Some(m))?.unwrap_or_default();
            o = o.metrics(kinds[0], names);
        }
    }
    if let Some(p) = a.projects.filter(|p| !p.is_none()) {
        o = o.projects(args::texts(py, "projects", "a list of project ids", p)?);
    }
    if let Some(w) = args::flag(py, "wait", a.wait)? {
        o = o.wait(w);
    }
    if let Some(k) = a.keep.filter(|k| !k.is_none()) {
        let k = k.cast::<PyDict>().map_err(|_| {
            invalid_argument(
                py,
                "keep",
                "must be a dict {granularity: window, or None to keep it for good}",
            )
        })?;
        for (g, w) in k.iter() {
            let g = granularity(py, &g)?;
            let argument = format!("keep[{:?}]", g.as_str());
            o = match args::duration(py, &argument, Some(&w))? {
                None => o.keep_for_good(g),
                Some(w) => o.keep(
                    g,
                    IsoDuration::parse(&argument, &w).map_err(|e| to_py_err(py, e))?,
                ),
            };
        }
    }
    if let Some(d) = args::duration(py, "rediscover", a.rediscover)? {
        let d = IsoDuration::parse("rediscover", &d).map_err(|e| to_py_err(py, e))?;
        let secs = d.fixed_seconds().ok_or_else(|| {
            invalid_argument(py, "rediscover", "must be a fixed duration (days or hours)")
        })?;
        o = o.rediscover(std::time::Duration::from_secs_f64(secs));
    }
    with_progress(py, o, a.progress)
}

/// The progress bar (`opsapi._progress`, created once the number of data requests is
/// known), a callable `(done, total, target, ok)`, or nothing.
fn with_progress(
    py: Python<'_>,
    o: SyncOptions,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<SyncOptions> {
    let progress = match progress.filter(|p| !p.is_none()) {
        None => PyBool::new(py, true).to_owned().into_any(),
        Some(p) => p.clone(),
    };
    let callback: Arc<OnceLock<Option<Py<PyAny>>>> = Arc::new(OnceLock::new());
    if let Ok(b) = progress.cast::<PyBool>() {
        if !b.is_true() {
            return Ok(o);
        }
    } else if progress.is_callable() {
        let _ = callback.set(Some(progress.unbind()));
    } else {
        return Err(invalid_argument(
            py,
            "progress",
            "must be a bool or a callable(done, total, target, ok)",
        ));
    }
    Ok(o.progress(move |p| {
        if is_shut_down() {
            return;
        }
        Python::attach(|py| {
            let cb = callback.get_or_init(|| {
                py.import("opsapi._progress")
                    .and_then(|m| m.call_method1("make_progress", (p.total,)))
                    .ok()
                    .filter(|cb| !cb.is_none())
                    .map(Bound::unbind)
            });
            if let Some(cb) = cb {
                if let Err(e) = cb.call1(py, (p.done, p.total, p.target.to_string(), p.ok)) {
                    e.write_unraisable(py, None);
                }
            }
        });
    }))
}

fn sync(
    py: Python<'_>,
    client: &crate::Client,
    is_async: bool,
    store: &Bound<'_, PyAny>,
    a: SyncArgs<'_, '_>,
) -> PyResult<Py<PyAny>> {
    let store = match store.cast::<Store>() {
        Ok(s) => s.get().inner.clone(),
        Err(_) => match args::path(py, "store", Some(store)) {
            Ok(Some(p)) => CoreStore::new(p),
            _ => {
                return Err(invalid_argument(
                    py,
                    "store",
                    "must be an opsapi.Store (or the path of its folder)",
                ))
            }
        },
    };
    let options = options(py, &a)?;
    let c = client.clone();
    dispatch(py, is_async, async move {
        let r = c.measurements().sync(&store, &options).await?;
        Ok(ReportOut(r))
    })
}

#[pymethods]
impl MeasurementsApi {
    /// Syncs a measurement store (`opsapi.Store`): asks each target only what the store does
    /// not hold yet, from its last stored point (overlapping by one, so that the null first
    /// point of a rate series never replaces a stored value), writes it crash-safely, and
    /// drops whole files older than `window`. `targets="all"` (the default) discovers every
    /// project, host, partition and database the key can see at each sync (a known host's
    /// partitions and databases once per `rediscover`, a day by default); or a list of
    /// targets as `fleet` takes them. `kind`: which measurements (all three by default).
    /// `metrics`: names for one kind, or `{kind: names}`. `projects`: discover only these
    /// (the store's targets of other projects stay as they are). `keep`: more granularities
    /// the same sync keeps, each with its window (`None`: for good), e.g. `granularity="PT1M",
    /// window="P2D", keep={"PT1H": "P395D", "P1D": None}`. One writer at a time: `wait=False`
    /// raises `StoreLockedError` at once instead of waiting. A target that fails is in the
    /// report's `failed` and asked again next sync; it fails nothing else.
    ///
    /// >>> store = opsapi.Store("fleet-store")
    /// >>> client.measurements.sync(store, kind="disk", granularity="PT1H", window="P2D")  # doctest: +ELLIPSIS
    /// SyncReport(... targets: ... new, 0 updated, 0 unchanged, 0 failed, 0 no longer seen; ...)
    #[pyo3(signature = (store, *, targets = None, kind = None, granularity, window, metrics = None,
                        wait = None, progress = None, rediscover = None, projects = None,
                        keep = None))]
    #[allow(clippy::too_many_arguments)]
    fn sync(
        &self,
        py: Python<'_>,
        store: &Bound<'_, PyAny>,
        targets: Option<&Bound<'_, PyAny>>,
        kind: Option<&Bound<'_, PyAny>>,
        granularity: &Bound<'_, PyAny>,
        window: &Bound<'_, PyAny>,
        metrics: Option<&Bound<'_, PyAny>>,
        wait: Option<&Bound<'_, PyAny>>,
        progress: Option<&Bound<'_, PyAny>>,
        rediscover: Option<&Bound<'_, PyAny>>,
        projects: Option<&Bound<'_, PyAny>>,
        keep: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let a = SyncArgs {
            projects,
            targets,
            kind,
            granularity,
            window,
            metrics,
            wait,
            progress,
            rediscover,
            keep,
        };
        sync(py, &self.client, false, store, a)
    }
}

#[pymethods]
impl AsyncMeasurementsApi {
    /// Syncs a measurement store, as `Client.measurements.sync` does (awaited; waiting for
    /// another sync's lock does not block the event loop).
    ///
    /// >>> report = await client.measurements.sync(opsapi.Store("fleet-store"), granularity="PT1H",
    /// ...                                          window="P2D", kind="host")
    /// >>> report.data_requests == len(report.new)
    /// True
    #[pyo3(signature = (store, *, targets = None, kind = None, granularity, window, metrics = None,
                        wait = None, progress = None, rediscover = None, projects = None,
                        keep = None))]
    #[allow(clippy::too_many_arguments)]
    fn sync(
        &self,
        py: Python<'_>,
        store: &Bound<'_, PyAny>,
        targets: Option<&Bound<'_, PyAny>>,
        kind: Option<&Bound<'_, PyAny>>,
        granularity: &Bound<'_, PyAny>,
        window: &Bound<'_, PyAny>,
        metrics: Option<&Bound<'_, PyAny>>,
        wait: Option<&Bound<'_, PyAny>>,
        progress: Option<&Bound<'_, PyAny>>,
        rediscover: Option<&Bound<'_, PyAny>>,
        projects: Option<&Bound<'_, PyAny>>,
        keep: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let a = SyncArgs {
            projects,
            targets,
            kind,
            granularity,
            window,
            metrics,
            wait,
            progress,
            rediscover,
            keep,
        };
        sync(py, &self.client, true, store, a)
    }
}
