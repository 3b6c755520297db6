//! The in-process simulator, for `opsapi.testing.Simulator` and `python -m opsapi sim`.

use std::sync::Mutex;
use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::sim::{Aim, Fault, Faults, Hold, Retention, SimConfig, SimTls, Simulator};

mod alerts;
use alerts::alert_row;

mod flavour;

mod seasonal;
pub(crate) use seasonal::_seasonal_cases;

/// The built-in API simulator on a loopback port. Use `opsapi.testing.Simulator`.
#[pyclass(frozen, name = "_Simulator", module = "opsapi._native")]
pub struct PySimulator {
    sim: Mutex<Option<Simulator>>,
}

fn seconds(name: &str, s: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(s).map_err(|_| {
        PyValueError::new_err(format!("{name} must be a non-negative number of seconds"))
    })
}

/// `rate_limit=`: requests per second per project, or None for no limit.
/// `retention`: None (every point kept), True (Ops Manager's), or `{granularity: seconds or
/// None}` over Ops Manager's (granularity as the API spells it, `"PT1M"`).
fn retention(value: Option<&Bound<'_, PyAny>>) -> PyResult<Retention> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(Retention::unlimited());
    };
    if let Ok(b) = v.cast::<pyo3::types::PyBool>() {
        return Ok(if b.is_true() {
            Retention::ops_manager()
        } else {
            Retention::unlimited()
        });
    }
    let bad = || PyValueError::new_err("retention must be None, True or {granularity: seconds}");
    let mut r = Retention::ops_manager();
    for (k, keep) in v.cast::<PyDict>().map_err(|_| bad())?.iter() {
        let g: String = k.extract().map_err(|_| bad())?;
        let g = crate::Granularity::parse("retention", &g)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let keep: Option<f64> = keep.extract().map_err(|_| bad())?;
        let keep = keep.map(|s| seconds("retention", s)).transpose()?;
        r = r.with(g.seconds(), keep);
    }
    Ok(r)
}

fn positive_rate(rate: Option<f64>) -> PyResult<Option<f64>> {
    match rate {
        Some(r) if !(r.is_finite() && r > 0.0) => Err(PyValueError::new_err(format!(
            "rate_limit must be a positive number of requests per second, not {r}"
        ))),
        r => Ok(r),
    }
}

/// `tls=`: False or None (plain HTTP), True or `"ca"` (an internal CA signs the server's
/// certificate), `"self-signed"` (the server's own CA:TRUE certificate, no subjectAltName).
fn tls_mode(tls: Option<&Bound<'_, PyAny>>) -> PyResult<Option<SimTls>> {
    let Some(tls) = tls.filter(|t| !t.is_none()) else {
        return Ok(None);
    };
    if let Ok(on) = tls.cast::<pyo3::types::PyBool>() {
        return Ok(on.is_true().then_some(SimTls::InternalCa));
    }
    let mode: String = tls
        .extract()
        .map_err(|_| PyValueError::new_err("tls must be a bool, \"ca\" or \"self-signed\""))?;
    mode.parse::<SimTls>()
        .map(Some)
        .map_err(|e| PyValueError::new_err(format!("tls: {e}")))
}

/// The keyword arguments of `inject`, each allowed only with the kinds it means something for.
struct FaultArgs {
    retry_after: Option<u64>,
    total_count: Option<i64>,
    applied: bool,
    html: bool,
    stale: bool,
    location: Option<String>,
    seconds: Option<f64>,
    size: Option<u64>,
}

impl FaultArgs {
    fn fault(self, kind: &Bound<'_, PyAny>) -> PyResult<Fault> {
        let given = [
            ("retry_after", self.retry_after.is_some()),
            ("total_count", self.total_count.is_some()),
            ("applied", self.applied),
            ("html", self.html),
            ("stale", self.stale),
            ("location", self.location.is_some()),
            ("seconds", self.seconds.is_some()),
            ("size", self.size.is_some()),
        ];
        let only = |kind: &str, allowed: &[&str]| -> PyResult<()> {
            match given
                .iter()
                .find(|(name, on)| *on && !allowed.contains(name))
            {
                Some((name, _)) => Err(PyValueError::new_err(format!(
                    "inject: `{name}` does not go with {kind}"
                ))),
                None => Ok(()),
            }
        };
        let seconds = |kind: &str| -> PyResult<Duration> {
            match self.seconds {
                Some(s) => seconds("seconds", s),
                None => Err(PyValueError::new_err(format!(
                    "inject: {kind} needs `seconds`"
                ))),
            }
        };
        if kind.is_instance_of::<pyo3::types::PyBool>() {
            return Err(PyValueError::new_err(
                "inject: the fault is an HTTP status (int) or a name (str), not a bool",
            ));
        }
        if let Ok(status) = kind.extract::<u16>() {
            if !(100..=599).contains(&status) {
                return Err(PyValueError::new_err(format!(
                    "inject: {status} is not an HTTP status"
                )));
            }
            let what = format!("status {status}");
            if (300..400).contains(&status) {
                only(&what, &["location"])?;
                let location = self.location.ok_or_else(|| {
                    PyValueError::new_err(format!("inject: a redirect ({status}) needs `location`"))
                })?;
                if location.is_empty() || location.bytes().any(|b| !(0x20..0x7f).contains(&b)) {
                    return Err(PyValueError::new_err(
                        "inject: `location` must be printable ASCII (it goes into a header)",
                    ));
                }
                return Ok(Fault::Redirect { status, location });
            }
            return Ok(if self.html {
                only(&what, &["html", "applied"])?;
                if self.applied {
                    Fault::HtmlPageAfterApplied { status }
                } else {
                    Fault::HtmlPage { status }
                }
            } else {
                only(&what, &["retry_after", "applied"])?;
                let retry_after = self.retry_after;
                if self.applied {
                    Fault::StatusAfterApplied {
                        status,
                        retry_after,
                    }
                } else {
                    Fault::Status {
                        status,
                        retry_after,
                    }
                }
            });
        }
        let name: String = kind.extract().map_err(|_| {
            PyValueError::new_err("inject: the fault is an HTTP status (int) or a name (str)")
        })?;
        let what = format!("`{name}`");
        let fault = match name.as_str() {
            "reset" => {
                only(&what, &["applied"])?;
                if self.applied {
                    Fault::ResetAfterApplied
                } else {
                    Fault::Reset
                }
            }
            "challenge" => {
                only(&what, &["stale"])?;
                Fault::Challenge { stale: self.stale }
            }
            "wrong_total_count" => {
                only(&what, &["total_count"])?;
                Fault::WrongTotalCount(self.total_count.unwrap_or(0))
            }
            "stall" | "stall_body" | "drip" => {
                only(&what, &["seconds"])?;
                let d = seconds(&what)?;
                match name.as_str() {
                    "stall" => Fault::StallHeaders(d),
                    "stall_body" => Fault::StallBody(d),
                    _ => Fault::Drip(d),
                }
            }
            "oversize" => {
                only(&what, &["size"])?;
                Fault::Oversize(self.size.ok_or_else(|| {
                    PyValueError::new_err("inject: `oversize` needs `size` (bytes)")
                })?)
            }
            other => {
                only(&what, &[])?;
                match other {
                    "truncate" => Fault::Truncate,
                    "repeat_first_page" => Fault::RepeatFirstPage,
                    "stale_nonce" => Fault::StaleNonce,
                    "unauthorized" => Fault::Unauthorized,
                    "garbled_json" => Fault::GarbledJson,
                    "invalid_utf8" => Fault::InvalidUtf8,
                    "endless_body" => Fault::EndlessBody,
                    _ => {
                        return Err(PyValueError::new_err(format!(
                            "inject: unknown fault `{other}`"
                        )))
                    }
                }
            }
        };
        Ok(fault)
    }
}

impl PySimulator {
    fn with<T>(&self, f: impl FnOnce(&Simulator) -> T) -> PyResult<T> {
        let guard = self.sim.lock().unwrap_or_else(|e| e.into_inner());
        match guard.as_ref() {
            Some(sim) => Ok(f(sim)),
            None => Err(PyRuntimeError::new_err("the simulator is closed")),
        }
    }
}

#[pymethods]
impl PySimulator {
    #[new]
    #[pyo3(signature = (*, seed = 0, projects = 3, hosts_per_project = 5, global_alerts = None,
                        nonce_lifetime = None, port = 0, bind = None, worker_threads = 1,
                        log_requests = true, tls = None, rate_limit = None,
                        cache_bytes = None, now = None, retention = None, flavour = None,
                        token_buckets = None, token_lifetime = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        seed: u64,
        projects: usize,
        hosts_per_project: usize,
        global_alerts: Option<usize>,
        nonce_lifetime: Option<f64>,
        port: u16,
        bind: Option<String>,
        worker_threads: usize,
        log_requests: bool,
        tls: Option<&Bound<'_, PyAny>>,
        rate_limit: Option<f64>,
        cache_bytes: Option<usize>,
        now: Option<&Bound<'_, PyAny>>,
        retention: Option<&Bound<'_, PyAny>>,
        flavour: Option<&str>,
        token_buckets: Option<&Bound<'_, PyAny>>,
        token_lifetime: Option<f64>,
    ) -> PyResult<Self> {
        let now = super::args::timestamp(py, "now", now)?;
        let retention = self::retention(retention)?;
        let mut config = SimConfig {
            seed,
            projects,
            hosts_per_project,
            port,
            worker_threads,
            log_requests,
            tls: tls_mode(tls)?,
            rate_limit: positive_rate(rate_limit)?,
            now,
            retention,
            ..SimConfig::default()
        };
        if let Some(n) = global_alerts {
            config.global_alerts = n;
        }
        if let Some(n) = cache_bytes {
            config.cache_bytes = n;
        }
        if let Some(s) = nonce_lifetime {
            config.nonce_lifetime = seconds("nonce_lifetime", s)?;
        }
        flavour::configure(&mut config, flavour, token_buckets, token_lifetime)?;
        if let Some(b) = bind {
            config.bind = b
                .parse()
                .map_err(|_| PyValueError::new_err(format!("bind: `{b}` is not an IP address")))?;
        }
        let sim = py
            .detach(move || Simulator::start(config))
            .map_err(|e| PyOSError::new_err(format!("cannot start the simulator: {e}")))?;
        Ok(Self {
            sim: Mutex::new(Some(sim)),
        })
    }

    #[getter]
    fn base_url(&self) -> PyResult<String> {
        self.with(|s| s.base_url())
    }
    #[getter]
    fn public_key(&self) -> PyResult<String> {
        self.with(|s| s.public_key().to_string())
    }
    #[getter]
    fn private_key(&self) -> PyResult<String> {
        self.with(|s| s.private_key().to_string())
    }
    #[getter]
    fn read_only_public_key(&self) -> PyResult<String> {
        self.with(|s| s.read_only_public_key().to_string())
    }
    #[getter]
    fn read_only_private_key(&self) -> PyResult<String> {
        self.with(|s| s.read_only_private_key().to_string())
    }
    /// The PEM file a client passes as `ca_file` when serving HTTPS, else None (a `str`,
    /// decoded as `os.fsdecode` does, so that it also fits an environment variable).
    #[getter]
    fn ca_file(&self) -> PyResult<Option<std::ffi::OsString>> {
        self.with(|s| s.ca_file().map(|p| p.as_os_str().to_os_string()))
    }
    #[getter]
    fn group_ids(&self) -> PyResult<Vec<String>> {
        self.with(|s| s.group_ids())
    }

    /// The request log: one dict per request (`method`, `path`, `query`, `body`, `status`,
    /// `signed`, `authorized`, `faults`), oldest first.
    fn requests<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let records = self.with(|s| s.requests())?;
        records
            .into_iter()
            .map(|r| {
                let d = PyDict::new(py);
                d.set_item("method", r.method)?;
                d.set_item("path", r.path)?;
                d.set_item("query", r.query)?;
                d.set_item("body", PyBytes::new(py, &r.body))?;
                d.set_item("status", r.status)?;
                d.set_item("signed", r.signed)?;
                d.set_item("authorized", r.authorized)?;
                d.set_item("faults", r.faults)?;
                d.set_item("arrived", r.arrived.as_secs_f64())?;
                d.set_item("accept", r.accept)?;
                d.set_item("content_type", r.content_type)?;
                d.set_item("auth", r.auth)?;
                Ok(d)
            })
            .collect()
    }

    /// A snapshot of the world as the API would show it now (expired acknowledgements
    /// cleared, deleted access-list entries gone): a dict of lists of dicts, for tests to
    /// pick identifiers and check what a write did.
    fn world<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let w = self.with(|s| s.world())?;
        let out = PyDict::new(py);
        let list = |name: &str, rows: Vec<Bound<'py, PyDict>>| out.set_item(name, rows);
        let mut rows = Vec::new();
        for p in &w.projects {
            let d = PyDict::new(py);
            d.set_item("id", &p.id)?;
            d.set_item("name", &p.name)?;
            rows.push(d);
        }
        list("projects", std::mem::take(&mut rows))?;
        for h in &w.hosts {
            let d = PyDict::new(py);
            d.set_item("id", &h.id)?;
            d.set_item("group_id", &h.group_id)?;
            d.set_item("hostname", &h.hostname)?;
            d.set_item("type_name", &h.type_name)?;
            let parts: Vec<&str> = h.partitions.iter().map(|p| p.name.as_str()).collect();
            d.set_item("partitions", parts)?;
            rows.push(d);
        }
        list("hosts", std::mem::take(&mut rows))?;
        for c in &w.alert_configs {
            let d = PyDict::new(py);
            d.set_item("id", &c.id)?;
            d.set_item("group_id", &c.group_id)?;
            d.set_item("event_type_name", &c.event_type_name)?;
            rows.push(d);
        }
        list("alert_configs", std::mem::take(&mut rows))?;
        for a in &w.alerts {
            rows.push(alert_row(py, a)?);
        }
        list("alerts", std::mem::take(&mut rows))?;
        // What `/groups/{g}/alerts` lists, project by project: the history besides.
        for p in &w.projects {
            for a in w.project_alerts(&p.id) {
                rows.push(alert_row(py, a)?);
            }
        }
        list("project_alerts", std::mem::take(&mut rows))?;
        for e in &w.events {
            let d = PyDict::new(py);
            d.set_item("id", &e.id)?;
            d.set_item("group_id", &e.group_id)?;
            d.set_item("event_type_name", &e.event_type_name)?;
            rows.push(d);
        }
        list("events", std::mem::take(&mut rows))?;
        for e in &w.access_list {
            let d = PyDict::new(py);
            d.set_item("id", &e.id)?;
            d.set_item("cidr_block", &e.cidr_block)?;
            d.set_item("description", &e.description)?;
            rows.push(d);
        }
        list("access_list", rows)?;
        Ok(out)
    }

    /// What the seeded alert history holds (`Simulator::alert_truth`): a dict of the
    /// flapping configuration, the noisy host, the disk and replica-set alerts, and when each
    /// history alert was acknowledged.
    fn alert_truth<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        alerts::truth(py, self.with(|s| s.alert_truth())?)
    }

    /// The seeded disk growth of every partition (the truth a capacity forecast should
    /// find): one dict per partition.
    fn partition_truth<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let truth = self.with(|s| s.partition_truth())?;
        truth
            .into_iter()
            .map(|t| {
                let d = PyDict::new(py);
                d.set_item("group_id", &t.group_id)?;
                d.set_item("host_id", &t.host_id)?;
                d.set_item("process_id", &t.process_id)?;
                d.set_item("partition_name", &t.partition_name)?;
                d.set_item("capacity_bytes", t.capacity_bytes)?;
                d.set_item("growth_bytes_per_day", t.growth_bytes_per_day)?;
                d.set_item("used_bytes_at_anchor", t.used_bytes_at_anchor)?;
                d.set_item("noise_bytes", t.noise_bytes)?;
                d.set_item("growth", format!("{:?}", t.growth).to_lowercase())?;
                d.set_item("anchor", t.anchor)?;
                Ok(d)
            })
            .collect()
    }

    /// The seeded size and growth of every database: one dict per database.
    fn database_truth<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let truth = self.with(|s| s.database_truth())?;
        truth
            .into_iter()
            .map(|t| {
                let d = PyDict::new(py);
                d.set_item("group_id", &t.group_id)?;
                d.set_item("host_id", &t.host_id)?;
                d.set_item("process_id", &t.process_id)?;
                d.set_item("database_name", &t.database_name)?;
                d.set_item("partition_name", &t.partition_name)?;
                d.set_item("size_bytes_at_anchor", t.size_bytes_at_anchor)?;
                d.set_item("growth_bytes_per_day", t.growth_bytes_per_day)?;
                d.set_item("share_of_disk_growth", t.share_of_disk_growth)?;
                d.set_item("drives_growth", t.drives_growth)?;
                d.set_item("anchor", t.anchor)?;
                Ok(d)
            })
            .collect()
    }

    /// The seeded capacity findings (what `opsapi.capacity.headroom` must name): one dict
    /// per finding.
    fn headroom_truth<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let truth = self.with(|s| s.headroom_truth())?;
        truth
            .into_iter()
            .map(|t| {
                let d = PyDict::new(py);
                d.set_item("resource", t.resource)?;
                d.set_item("scope_kind", t.scope_kind)?;
                d.set_item("scope", &t.scope)?;
                d.set_item("group_id", &t.group_id)?;
                d.set_item("cluster_id", &t.cluster_id)?;
                d.set_item("replica_set_name", &t.replica_set_name)?;
                d.set_item("shard_name", &t.shard_name)?;
                d.set_item("members", &t.members)?;
                d.set_item("host_ids", &t.host_ids)?;
                d.set_item("measurements", &t.measurements)?;
                d.set_item("level_at_anchor", t.level_at_anchor)?;
                d.set_item("per_day", t.per_day)?;
                d.set_item("threshold", t.threshold)?;
                d.set_item("crosses_at", t.crosses_at)?;
                d.set_item("anchor", t.anchor)?;
                Ok(d)
            })
            .collect()
    }

    fn clear_requests(&self) -> PyResult<()> {
        self.with(|s| s.clear_requests())
    }

    /// Replaces the standing faults (rates are probabilities per request).
    #[pyo3(signature = (*, latency = 0.0, rate_429 = 0.0, rate_500 = 0.0, rate_503 = 0.0,
                        rate_reset = 0.0, rate_truncate = 0.0, retry_after_secs = 1))]
    #[allow(clippy::too_many_arguments)]
    fn set_faults(
        &self,
        latency: f64,
        rate_429: f64,
        rate_500: f64,
        rate_503: f64,
        rate_reset: f64,
        rate_truncate: f64,
        retry_after_secs: u64,
    ) -> PyResult<()> {
        let faults = Faults {
            latency: seconds("latency", latency)?,
            rate_429,
            rate_500,
            rate_503,
            rate_reset,
            rate_truncate,
            retry_after_secs,
        };
        self.with(|s| s.set_faults(faults))
    }

    /// Sets the per-project request limit (requests per second; None: no limit).
    #[pyo3(signature = (rate_limit))]
    fn set_rate_limit(&self, rate_limit: Option<f64>) -> PyResult<()> {
        let rate = positive_rate(rate_limit)?;
        self.with(|s| s.set_rate_limit(rate))
    }

    #[getter]
    fn rate_limit(&self) -> PyResult<Option<f64>> {
        self.with(|s| s.rate_limit())
    }

    /// Queues `count` one-shot faults for the next requests they apply to (see
    /// `opsapi.testing.Simulator.inject` for the kinds and their arguments).
    #[pyo3(signature = (fault, count = 1, *, retry_after = None, total_count = None,
                        applied = false, html = false, stale = false, location = None,
                        seconds = None, size = None, method = None, path = None,
                        page = None, nth = 1))]
    #[allow(clippy::too_many_arguments)]
    fn inject(
        &self,
        fault: &Bound<'_, PyAny>,
        count: usize,
        retry_after: Option<u64>,
        total_count: Option<i64>,
        applied: bool,
        html: bool,
        stale: bool,
        location: Option<String>,
        seconds: Option<f64>,
        size: Option<u64>,
        method: Option<String>,
        path: Option<String>,
        page: Option<u32>,
        nth: u32,
    ) -> PyResult<()> {
        let aim = aim(method, path, page, nth)?;
        let args = FaultArgs {
            retry_after,
            total_count,
            applied,
            html,
            stale,
            location,
            seconds,
            size,
        };
        let fault = args.fault(fault)?;
        self.with(|s| s.inject_at(aim, fault, count))
    }

    /// Keeps the next request that matches waiting on arrival until the hold is released.
    #[pyo3(signature = (*, method = None, path = None, page = None, nth = 1))]
    fn hold(
        &self,
        method: Option<String>,
        path: Option<String>,
        page: Option<u32>,
        nth: u32,
    ) -> PyResult<PyHold> {
        let aim = aim(method, path, page, nth)?;
        Ok(PyHold {
            hold: self.with(|s| s.hold(aim))?,
        })
    }

    /// The simulator's time (an aware datetime in UTC).
    #[getter]
    fn now(&self) -> PyResult<chrono::DateTime<chrono::Utc>> {
        self.with(|s| s.now())
    }

    /// Moves the simulator's clock forward by `seconds`.
    fn advance(&self, seconds: f64) -> PyResult<()> {
        let by = self::seconds("seconds", seconds)?;
        self.with(|s| s.advance(by))
    }

    /// The one-shot faults still queued, oldest first, by label.
    fn injected(&self) -> PyResult<Vec<String>> {
        self.with(|s| s.injected().iter().map(Fault::label).collect())
    }

    /// Adds a standalone host to a project; returns its id (None: no such project).
    fn add_host(&self, group_id: &str) -> PyResult<Option<String>> {
        self.with(|s| s.add_host(group_id))
    }

    /// Removes a host; whether there was one.
    fn remove_host(&self, host_id: &str) -> PyResult<bool> {
        self.with(|s| s.remove_host(host_id))
    }

    /// Drops every queued one-shot fault.
    fn clear_injected(&self) -> PyResult<()> {
        self.with(|s| s.clear_injected())
    }

    /// TCP connections accepted so far.
    #[getter]
    fn connections(&self) -> PyResult<u64> {
        self.with(|s| s.connections())
    }

    /// Stops the server and joins its thread. Idempotent.
    fn close(&self, py: Python<'_>) {
        let sim = self.sim.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(sim) = sim {
            py.detach(move || sim.shutdown());
        }
    }

    #[getter]
    fn closed(&self) -> bool {
        self.sim.lock().unwrap_or_else(|e| e.into_inner()).is_none()
    }

    fn __repr__(&self) -> String {
        match self.with(|s| s.base_url()) {
            Ok(url) => format!("Simulator(base_url={url:?})"),
            Err(_) => "Simulator(closed)".into(),
        }
    }
}

/// The keyword arguments that aim a fault or a hold at a request.
fn aim(method: Option<String>, path: Option<String>, page: Option<u32>, nth: u32) -> PyResult<Aim> {
    if nth == 0 {
        return Err(PyValueError::new_err("nth counts from 1"));
    }
    if page == Some(0) {
        return Err(PyValueError::new_err("page counts from 1"));
    }
    let mut aim = Aim::new().nth(nth);
    aim.method = method;
    aim.path = path;
    aim.page = page;
    Ok(aim)
}

/// A request kept waiting by `Simulator.hold`.
#[pyclass(frozen, name = "_Hold", module = "opsapi._native")]
pub struct PyHold {
    hold: Hold,
}

#[pymethods]
impl PyHold {
    /// Whether the held request has arrived.
    #[getter]
    fn arrived(&self) -> bool {
        self.hold.has_arrived()
    }

    /// Waits (the GIL released) until the held request arrives, at most `timeout` seconds;
    /// whether it did.
    fn wait_arrived(&self, py: Python<'_>, timeout: f64) -> PyResult<bool> {
        let timeout = seconds("timeout", timeout)?;
        Ok(py.detach(|| self.hold.wait_arrived(timeout)))
    }

    /// Lets the held request go on.
    fn release(&self) {
        self.hold.release();
    }
}

/// `opsapi sim ARGS`: the simulator's command line (`opsapi::sim::cli`, the same flags and
/// output as the `opsapi-sim` binary), serving until Ctrl-C or SIGTERM; returns the exit code.
#[pyfunction]
pub(crate) fn _sim_main(py: Python<'_>, args: Vec<String>) -> u8 {
    py.detach(|| crate::sim::cli::run(&args))
}

/// `opsapi-sim --help`'s text (`opsapi::sim::cli::help`): the CLI reference page shows it.
#[pyfunction]
pub(crate) fn _sim_help() -> String {
    crate::sim::cli::help()
}
