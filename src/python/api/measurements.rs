//! `client.measurements`: host and disk measurements, and fleet pulls into one frame.

use std::sync::Arc;

use crate::python::frame::PyFrame;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyTuple};

use super::{handle_pair, twins};
use crate::api::measurements::MeasurementsQuery;
use crate::fleet::{FleetOptions, Target};
use crate::frame::Shape;
use crate::python::args;
use crate::python::errors::{invalid_argument, to_py_err};
use crate::python::models::Measurements;
use crate::python::runtime::{dispatch, is_shut_down};

handle_pair!(
    /// Host and disk measurements, and fleet pulls.
    MeasurementsApi,
    AsyncMeasurementsApi
);

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

/// `targets` (tuples of identifiers) with `kind`: the rule is `Target::from_parts`.
pub(crate) fn targets(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    kind: Option<&str>,
) -> PyResult<Vec<Target>> {
    let bad = || {
        invalid_argument(
            py,
            "targets",
            "must be a list of (group_id, host_id) or (group_id, host_id, partition_name) \
             tuples, or (group_id, host_id, database_name) tuples with kind=\"database\"",
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
        let target = Target::from_parts(kind, &parts).map_err(|e| match e {
            crate::Error::InvalidArgument { argument, message } if argument == "targets" => {
                invalid_argument(py, &format!("targets[{i}]"), message)
            }
            e => to_py_err(py, e),
        })?;
        out.push(target);
    }
    Ok(out)
}

/// `targets` and `kind` checked by the rules of `fleet` without sending anything: for callers
/// that split a pull before any request (`opsapi.dask`).
#[pyfunction]
#[pyo3(signature = (targets, kind = None))]
pub(crate) fn _check_targets(
    py: Python<'_>,
    targets: &Bound<'_, PyAny>,
    kind: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let kind = args::string(py, "kind", kind)?;
    self::targets(py, targets, kind.as_deref()).map(|_| ())
}

/// A fleet pull's result: the frame, or with `keep_going` the frame and the failures.
pub(crate) enum FleetOut {
    Frame(PyFrame),
    WithFailures(PyFrame, PyFrame),
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

/// `options` with the progress callback that `progress` asks for (see [`progress_callback`]).
fn with_progress(
    py: Python<'_>,
    mut options: FleetOptions,
    progress: &Bound<'_, PyAny>,
    total: usize,
) -> PyResult<FleetOptions> {
    if let Some(cb) = progress_callback(py, progress, total)? {
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
    Ok(options)
}

#[allow(clippy::too_many_arguments)]
fn fleet_impl(
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
    kind: Option<String>,
    keep_going: bool,
    progress: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let targets = targets(py, targets_arg, kind.as_deref())?;
    let q = measurements_query(py, granularity, period, start, end, metrics)?;
    let shape: Shape = match shape {
        Some(s) => s.parse().map_err(|e| to_py_err(py, e))?,
        None => Shape::Long,
    };
    let options = with_progress(
        py,
        FleetOptions::new().shape(shape).keep_going(keep_going),
        progress,
        targets.len(),
    )?;
    let c = client.clone();
    dispatch(py, is_async, async move {
        let r = c.measurements().fleet(&targets, &q, &options).await?;
        Ok(if keep_going {
            let failures = r.failures_frame()?;
            FleetOut::WithFailures(PyFrame(r.frame), PyFrame(failures))
        } else {
            FleetOut::Frame(PyFrame(r.frame))
        })
    })
}

#[allow(clippy::too_many_arguments)]
fn host(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
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
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Measurements::from(
            c.measurements().host(&group_id, &host_id, &q).await?,
        ))
    })
}

twins! {
    MeasurementsApi
    /// Host measurements: `granularity` and either `period` or `start` and `end`; `metrics`
    /// (measurement names) for a subset.
    ///
    /// >>> m = client.measurements.host(g, h, granularity="PT1M", period="PT1H",  # doctest: +SKIP
    /// ...                              metrics=["CONNECTIONS"])
    /// >>> m.to_polars(shape="wide")  # doctest: +SKIP
    AsyncMeasurementsApi
    /// Host measurements: `granularity` and either `period` or `start` and `end`.
    ///
    /// >>> m = await client.measurements.host(g, h, granularity="PT1M", period="PT1H")  # doctest: +SKIP
    #[pyo3(signature = (group_id, host_id, *, granularity, period = None, start = None, end = None, metrics = None))]
    fn host(
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
        granularity: &Bound<'_, PyAny>,
        period: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        metrics: Option<&Bound<'_, PyAny>>,
    ) => host
}

/// The measurements of a disk partition or a database (`disk` and `database`: one function,
/// their kind its argument): `name` is that target's third identifier (`partition_name` or
/// `database_name`), `target` builds it.
#[allow(clippy::too_many_arguments)]
fn named_target(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    (argument, target): NamedKind,
    group_id: &Bound<'_, PyAny>,
    host_id: &Bound<'_, PyAny>,
    name: &Bound<'_, PyAny>,
    granularity: &Bound<'_, PyAny>,
    period: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    metrics: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let group_id = args::text(py, "group_id", group_id)?;
    let host_id = args::text(py, "host_id", host_id)?;
    let name = args::text(py, argument, name)?;
    let q = measurements_query(py, granularity, period, start, end, metrics)?;
    let t = target(&group_id, &host_id, &name);
    let c = c.clone();
    dispatch(py, is_async, async move {
        Ok(Measurements::from(c.measurements().target(&t, &q).await?))
    })
}

/// A target kind with a third identifier: its argument name and its constructor.
type NamedKind = (&'static str, fn(&str, &str, &str) -> Target);

const DISK: NamedKind = ("partition_name", |g, h, p| Target::disk(g, h, p));
const DATABASE: NamedKind = ("database_name", |g, h, d| Target::database(g, h, d));

twins! {
    /// Disk-partition measurements, with the same window arguments as `host`.
    ///
    MeasurementsApi
    /// >>> m = client.measurements.disk(g, h, "data", granularity="PT1H", period="P30D")  # doctest: +SKIP
    AsyncMeasurementsApi
    /// >>> m = await client.measurements.disk(g, h, "data", granularity="PT1H", period="P30D")  # doctest: +SKIP
    #[pyo3(signature = (group_id, host_id, partition_name, *, granularity, period = None, start = None, end = None, metrics = None))]
    fn disk(
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
        partition_name: &Bound<'_, PyAny>,
        granularity: &Bound<'_, PyAny>,
        period: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        metrics: Option<&Bound<'_, PyAny>>,
    ) => named_target(DISK)
}

twins! {
    /// Database measurements (`DATABASE_DATA_SIZE`, ...), with the same window arguments as `host`.
    ///
    MeasurementsApi
    /// >>> m = client.measurements.database(g, h, "orders", granularity="PT1H", period="P30D")  # doctest: +SKIP
    AsyncMeasurementsApi
    /// >>> m = await client.measurements.database(g, h, "orders", granularity="PT1H", period="P30D")  # doctest: +SKIP
    #[pyo3(signature = (group_id, host_id, database_name, *, granularity, period = None, start = None, end = None, metrics = None))]
    fn database(
        group_id: &Bound<'_, PyAny>,
        host_id: &Bound<'_, PyAny>,
        database_name: &Bound<'_, PyAny>,
        granularity: &Bound<'_, PyAny>,
        period: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        metrics: Option<&Bound<'_, PyAny>>,
    ) => named_target(DATABASE)
}

#[allow(clippy::too_many_arguments)]
fn fleet(
    py: Python<'_>,
    c: &crate::Client,
    is_async: bool,
    targets: &Bound<'_, PyAny>,
    granularity: &Bound<'_, PyAny>,
    period: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    metrics: Option<&Bound<'_, PyAny>>,
    shape: Option<&Bound<'_, PyAny>>,
    keep_going: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
    kind: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let shape = args::string(py, "shape", shape)?;
    let kind = args::string(py, "kind", kind)?;
    let keep_going = args::flag(py, "keep_going", keep_going)?.unwrap_or(false);
    let default = PyBool::new(py, true).to_owned().into_any();
    let progress = progress.unwrap_or(&default);
    fleet_impl(
        py,
        c,
        is_async,
        targets,
        granularity,
        period,
        start,
        end,
        metrics,
        shape,
        kind,
        keep_going,
        progress,
    )
}

twins! {
    MeasurementsApi
    /// Measurements of many targets over one window, fetched concurrently, as one polars
    /// DataFrame (long: one row per data point; or `shape="wide"`). Targets are
    /// `(group_id, host_id)` for hosts, `(group_id, host_id, partition_name)` for disks, and
    /// `(group_id, host_id, database_name)` with `kind="database"` for databases.
    /// With `keep_going=True`, returns `(frame, failures)`.
    ///
    /// >>> frame = client.measurements.fleet([(g, h) for h in host_ids],  # doctest: +SKIP
    /// ...                                   granularity="PT5M", period="P1D")
    AsyncMeasurementsApi
    /// Measurements of many targets over one window, fetched concurrently, as one polars
    /// DataFrame.
    ///
    /// >>> frame = await client.measurements.fleet(targets, granularity="PT5M", period="P1D")  # doctest: +SKIP
    #[pyo3(signature = (targets, *, granularity, period = None, start = None, end = None, metrics = None,
                        shape = None, keep_going = None, progress = None, kind = None))]
    fn fleet(
        targets: &Bound<'_, PyAny>,
        granularity: &Bound<'_, PyAny>,
        period: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        metrics: Option<&Bound<'_, PyAny>>,
        shape: Option<&Bound<'_, PyAny>>,
        keep_going: Option<&Bound<'_, PyAny>>,
        progress: Option<&Bound<'_, PyAny>>,
        kind: Option<&Bound<'_, PyAny>>,
    ) => fleet
}

/// Hive-partitioned Parquet under `path`: `None`, or with `keep_going` the failures frame
/// (the same columns as `fleet`'s), so that no failed target goes unseen.
#[allow(clippy::too_many_arguments)]
fn fleet_to_parquet(
    py: Python<'_>,
    client: &crate::Client,
    is_async: bool,
    targets_arg: &Bound<'_, PyAny>,
    path: &Bound<'_, PyAny>,
    granularity: &Bound<'_, PyAny>,
    period: Option<&Bound<'_, PyAny>>,
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    metrics: Option<&Bound<'_, PyAny>>,
    keep_going: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
    kind: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let kind = args::string(py, "kind", kind)?;
    let targets = targets(py, targets_arg, kind.as_deref())?;
    // str or os.PathLike, as open() takes them.
    let root: std::path::PathBuf = match path.extract() {
        Ok(p) if p != std::path::PathBuf::new() => p,
        _ => {
            return Err(invalid_argument(
                py,
                "path",
                "must be a non-empty str or os.PathLike naming a directory",
            ))
        }
    };
    let q = measurements_query(py, granularity, period, start, end, metrics)?;
    let keep_going = args::flag(py, "keep_going", keep_going)?.unwrap_or(false);
    let default = PyBool::new(py, true).to_owned().into_any();
    let progress = progress.unwrap_or(&default);
    let options = with_progress(
        py,
        FleetOptions::new().keep_going(keep_going),
        progress,
        targets.len(),
    )?;
    let c = client.clone();
    dispatch(py, is_async, async move {
        let r = c
            .measurements()
            .fleet_to_parquet(&targets, &q, &root, &options)
            .await?;
        Ok(if keep_going {
            let failures = crate::fleet::FleetResult {
                frame: Default::default(),
                failures: r.failures,
            }
            .failures_frame()?;
            Some(PyFrame(failures))
        } else {
            None
        })
    })
}

twins! {
    MeasurementsApi
    /// A fleet pull written to hive-partitioned Parquet under `path`
    /// (`group_id=…/host_id=…/host.parquet`, `…/disk-<partition>.parquet`,
    /// `…/database-<name>.parquet`), target by target,
    /// so that memory does not grow with the number of targets. Returns None; with
    /// `keep_going=True`, the failures frame.
    ///
    /// >>> client.measurements.fleet_to_parquet(targets, "out/m", granularity="PT5M",  # doctest: +SKIP
    /// ...                                      period="P1D")
    /// >>> polars.scan_parquet("out/m/**/*.parquet", hive_partitioning=True)  # doctest: +SKIP
    AsyncMeasurementsApi
    /// A fleet pull written to hive-partitioned Parquet under `path`. Returns None; with
    /// `keep_going=True`, the failures frame.
    ///
    /// >>> await client.measurements.fleet_to_parquet(targets, "out/m", granularity="PT5M",  # doctest: +SKIP
    /// ...                                            period="P1D")
    #[pyo3(signature = (targets, path, *, granularity, period = None, start = None, end = None,
                        metrics = None, keep_going = None, progress = None, kind = None))]
    fn fleet_to_parquet(
        targets: &Bound<'_, PyAny>,
        path: &Bound<'_, PyAny>,
        granularity: &Bound<'_, PyAny>,
        period: Option<&Bound<'_, PyAny>>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        metrics: Option<&Bound<'_, PyAny>>,
        keep_going: Option<&Bound<'_, PyAny>>,
        progress: Option<&Bound<'_, PyAny>>,
        kind: Option<&Bound<'_, PyAny>>,
    ) => fleet_to_parquet
}
