//! The measurement store: `opsapi.Store` (what it holds, its files, `check()`, `vacuum()`)
//! and `StoreCheck`. `Store.scan` is Python (`opsapi/_store.py`): a polars LazyFrame over the
//! files this module lists (`_scan_files`). The sync and its report: `store_sync.rs`.

use polars::prelude::{DataFrame, NamedFrom, Series};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::api::measurements::Granularity;
use crate::python::args;
use crate::python::errors::{invalid_argument, to_py_err};
use crate::python::frame::PyFrame;
use crate::store::{Kind, Store as CoreStore, StoreCheck as CoreCheck};

/// A measurement store: a folder of hive-partitioned Parquet files (one target's month per
/// file) and the manifest that says which are live; created by its first sync.
///
/// >>> store = opsapi.Store("fleet-store")
/// >>> report = client.measurements.sync(store, granularity="PT1H", window="P2D")
/// >>> store.targets().height == len(report.new)
/// True
/// >>> store.scan(kind="disk", granularity="PT1H").select("partition_name").unique().collect().height > 0
/// True
#[pyclass(frozen, name = "Store", module = "opsapi._native")]
pub struct Store {
    pub(crate) inner: CoreStore,
}

pub(super) fn kind(py: Python<'_>, argument: &str, v: &Bound<'_, PyAny>) -> PyResult<Kind> {
    let s = args::text(py, argument, v)?;
    Kind::parse(&s).map_err(|e| match e {
        crate::Error::InvalidArgument { message, .. } => invalid_argument(py, argument, message),
        e => to_py_err(py, e),
    })
}

pub(super) fn granularity(py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<Granularity> {
    let s = args::duration(py, "granularity", Some(v))?.unwrap_or_default();
    Granularity::parse("granularity", &s).map_err(|e| to_py_err(py, e))
}

#[pymethods]
impl Store {
    #[new]
    fn new(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let p = args::path(py, "path", Some(path))?
            .filter(|p| !p.as_os_str().is_empty())
            .ok_or_else(|| invalid_argument(py, "path", "must name a folder"))?;
        Ok(Self {
            inner: CoreStore::new(p),
        })
    }

    /// The store's folder.
    ///
    /// >>> opsapi.Store("fleet-store").path
    /// 'fleet-store'
    #[getter]
    fn path(&self) -> std::ffi::OsString {
        self.inner.path().as_os_str().to_os_string()
    }

    /// The folder, so that the store goes wherever a path does (`os.fspath(store)`).
    fn __fspath__(&self) -> std::ffi::OsString {
        self.path()
    }

    /// What the store holds: one row per target and granularity, with `kind`, `granularity`,
    /// `group_id`, `host_id`, `partition_name`, `database_name`, `first` and `last` (its first
    /// and last stored point), `last_sync` (when a sync last asked it, by the server's clock),
    /// `seen` (whether discovery still finds it on the server), `points`, `files`, `bytes`,
    /// and what it lost: `gaps` and `points_lost` (spans of files found missing or damaged
    /// that the server no longer had), `points_pending` (still to be asked again).
    ///
    /// >>> opsapi.Store("never-synced").targets().height
    /// 0
    fn targets(&self, py: Python<'_>) -> PyResult<PyFrame> {
        let store = self.inner.clone();
        py.detach(move || store.targets())
            .map(PyFrame)
            .map_err(|e| to_py_err(py, e))
    }

    /// The live data files of one kind (`"host"`, `"disk"`, `"database"`) at one granularity,
    /// as the manifest lists them: for readers that take a list of files (DuckDB's
    /// `read_parquet`, Dask). Each is checked first (inside the store, present, of its size,
    /// Parquet): a bad one raises `StoreFileError` naming it.
    ///
    /// >>> opsapi.Store("never-synced").files(kind="disk", granularity="PT1H")
    /// []
    #[pyo3(signature = (*, kind, granularity))]
    fn files(
        &self,
        py: Python<'_>,
        kind: &Bound<'_, PyAny>,
        granularity: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<std::ffi::OsString>> {
        let k = self::kind(py, "kind", kind)?;
        let g = self::granularity(py, granularity)?;
        let store = self.inner.clone();
        let files = py
            .detach(move || store.files(k, g))
            .map_err(|e| to_py_err(py, e))?;
        Ok(files.into_iter().map(|p| p.into_os_string()).collect())
    }

    /// Checks every live file whole: inside the store, present, its recorded size and
    /// checksum, a Parquet footer, its row count. Each bad file is a row of `problems`; it
    /// never raises for a bad file (the next sync drops it and asks the server again).
    ///
    /// >>> opsapi.Store("never-synced").check()
    /// StoreCheck(ok: 0 files, 0 B)
    fn check(&self, py: Python<'_>) -> PyResult<StoreCheck> {
        let store = self.inner.clone();
        py.detach(move || store.check())
            .map(StoreCheck)
            .map_err(|e| to_py_err(py, e))
    }

    /// Removes now the files that left the store (replaced by a compaction, or out of the
    /// window), which a sync keeps a day for the readers of older snapshots. Call it when
    /// nothing reads the store; it waits for a sync's lock. Returns how many it removed.
    ///
    /// >>> opsapi.Store("never-synced").vacuum()
    /// 0
    fn vacuum(&self, py: Python<'_>) -> PyResult<usize> {
        let store = self.inner.clone();
        py.detach(move || store.vacuum())
            .map_err(|e| to_py_err(py, e))
    }

    /// What `scan` reads (`opsapi/_store.py`): the checked files of one manifest, each with its
    /// `group_id` and `host_id`, and the `key=` names of the store's own path (for polars to
    /// leave out of the hive columns).
    #[pyo3(signature = (*, kind, granularity))]
    fn _scan_files<'py>(
        &self,
        py: Python<'py>,
        kind: &Bound<'py, PyAny>,
        granularity: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let k = self::kind(py, "kind", kind)?;
        let g = self::granularity(py, granularity)?;
        let store = self.inner.clone();
        let files = py
            .detach(move || store.snapshot(k, g))
            .map_err(|e| to_py_err(py, e))?;
        let d = PyDict::new(py);
        let paths: Vec<std::ffi::OsString> = files
            .iter()
            .map(|f| f.path.clone().into_os_string())
            .collect();
        d.set_item("files", paths)?;
        let groups: Vec<&str> = files.iter().map(|f| f.key.group_id.as_str()).collect();
        d.set_item("group_id", groups)?;
        let hosts: Vec<&str> = files.iter().map(|f| f.key.host_id.as_str()).collect();
        d.set_item("host_id", hosts)?;
        d.set_item("root_keys", root_hive_keys(self.inner.path()))?;
        Ok(d)
    }

    /// What `scan` reads for a history across granularities (`opsapi/_store.py`): the checked
    /// files of one manifest, each with its `granularity`, its `group_id` and `host_id`, and
    /// `before`: the instant (ms) its points must be before (None: all), where a finer
    /// granularity takes over.
    #[pyo3(signature = (*, kind, granularities))]
    fn _scan_history<'py>(
        &self,
        py: Python<'py>,
        kind: &Bound<'py, PyAny>,
        granularities: Vec<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let k = self::kind(py, "kind", kind)?;
        let gs = granularities
            .iter()
            .map(|g| granularity(py, g))
            .collect::<PyResult<Vec<_>>>()?;
        if gs.is_empty() {
            return Err(invalid_argument(py, "granularity", "names no granularity"));
        }
        let store = self.inner.clone();
        let files = py
            .detach(move || store.history_files(k, &gs))
            .map_err(|e| to_py_err(py, e))?;
        let d = PyDict::new(py);
        let paths: Vec<std::ffi::OsString> = files
            .iter()
            .map(|f| f.live.path.clone().into_os_string())
            .collect();
        d.set_item("files", paths)?;
        let gran: Vec<&str> = files.iter().map(|f| f.granularity.as_str()).collect();
        d.set_item("granularity", gran)?;
        let groups: Vec<&str> = files.iter().map(|f| f.live.key.group_id.as_str()).collect();
        d.set_item("group_id", groups)?;
        let hosts: Vec<&str> = files.iter().map(|f| f.live.key.host_id.as_str()).collect();
        d.set_item("host_id", hosts)?;
        let before: Vec<Option<i64>> = files.iter().map(|f| f.before).collect();
        d.set_item("before", before)?;
        d.set_item("root_keys", root_hive_keys(self.inner.path()))?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!("Store({:?})", self.inner.path().display().to_string()).replace('"', "'")
    }
}

/// The `key=` names polars would read as hive columns in the store's own path (above its
/// folders), for `scan` to leave out: `lake/team=ops/store` has `team`.
fn root_hive_keys(root: &std::path::Path) -> Vec<String> {
    root.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(part) => {
                let part = part.to_string_lossy();
                part.split_once('=').map(|(k, _)| k.to_string())
            }
            _ => None,
        })
        .collect()
}

/// What `Store.check()` found: `ok`, `files` and `bytes` checked, and `problems`, one row per
/// bad file (`path`, `problem`: `missing`, `truncated: ...`, `damaged: ...`, `... outside the
/// store ...`).
///
/// >>> check = opsapi.Store("never-synced").check()
/// >>> check.ok, check.problems.columns
/// (True, ['path', 'problem'])
#[pyclass(frozen, name = "StoreCheck", module = "opsapi._native")]
pub struct StoreCheck(CoreCheck);

#[pymethods]
impl StoreCheck {
    /// Whether every file is whole.
    #[getter]
    fn ok(&self) -> bool {
        self.0.ok()
    }
    /// Live files checked.
    #[getter]
    fn files(&self) -> usize {
        self.0.files
    }
    /// Their bytes, as the manifest records them.
    #[getter]
    fn bytes(&self) -> u64 {
        self.0.bytes
    }
    /// One row per bad file: `path` (the store's folder joined with the manifest's name for
    /// it) and `problem`.
    #[getter]
    fn problems(&self) -> PyResult<PyFrame> {
        let p = &self.0.problems;
        let paths: Vec<String> = p.iter().map(|x| x.path.display().to_string()).collect();
        let what: Vec<&str> = p.iter().map(|x| x.problem.as_str()).collect();
        let df = DataFrame::new(
            p.len(),
            vec![
                Series::new("path".into(), paths).into(),
                Series::new("problem".into(), what).into(),
            ],
        )
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        Ok(PyFrame(df))
    }

    fn __bool__(&self) -> bool {
        self.0.ok()
    }

    fn __repr__(&self) -> String {
        let size = super::store_report::human_bytes(self.0.bytes);
        match self.0.problems.len() {
            0 => format!("StoreCheck(ok: {} files, {size})", self.0.files),
            n => format!(
                "StoreCheck({n} bad of {} files, {size}; first: {}: {})",
                self.0.files,
                self.0.problems[0].path.display(),
                self.0.problems[0].problem
            ),
        }
    }
}
