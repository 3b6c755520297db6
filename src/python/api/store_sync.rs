//! `client.measurements.sync(...)` (sync and async twins side by side): its arguments to
//! `SyncOptions`, and its report (`store_report.rs`); the store itself is `store.rs`.

use std::sync::{Arc, OnceLock};

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};

use super::measurements::targets as fleet_targets;
use super::store::{granularity, kind, Store};
use super::store_report::ReportOut;
use super::{twins, AsyncMeasurementsApi, MeasurementsApi};
use crate::iso8601::IsoDuration;
use crate::python::args;
use crate::python::errors::{invalid_argument, to_py_err};
use crate::python::runtime::{dispatch, is_shut_down};
use crate::store::{Kind, Store as CoreStore, SyncOptions};

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

/// `sync`'s arguments in the order of its signature, for `twins!`.
#[allow(clippy::too_many_arguments)]
fn sync_twin(
    py: Python<'_>,
    client: &crate::Client,
    is_async: bool,
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
    sync(py, client, is_async, store, a)
}

twins! {
    MeasurementsApi
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
    AsyncMeasurementsApi
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
    fn sync(
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
    ) => sync_twin
}
