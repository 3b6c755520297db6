//! The in-process simulator, for `opsapi.testing.Simulator` and `python -m opsapi sim`: its
//! construction, addresses, keys and clock. What it saw and holds is `sim/truth.rs`, its faults
//! and holds `sim/faults.rs`, its flavours `sim/flavour.rs`.

use std::sync::Mutex;
use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::sim::{Retention, SimConfig, SimTls, Simulator};

mod alerts;
mod causes;
mod faults;
mod flavour;
mod truth;

pub(crate) use faults::PyHold;

mod seasonal;
pub(crate) use seasonal::_seasonal_cases;

mod shapes;
pub(crate) use shapes::_forecast_cases;

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

    /// Sets how far the `Date` header of every answer is off the simulator's clock, in
    /// seconds (either sign; 0: not at all).
    fn set_date_skew(&self, seconds: f64) -> PyResult<()> {
        if !seconds.is_finite() || seconds.abs() > 1e11 {
            return Err(PyValueError::new_err(
                "seconds must be a finite number of seconds",
            ));
        }
        let skew = chrono::TimeDelta::milliseconds((seconds * 1000.0) as i64);
        self.with(|s| s.set_date_skew(skew))
    }

    /// Adds a standalone host to a project; returns its id (None: no such project).
    fn add_host(&self, group_id: &str) -> PyResult<Option<String>> {
        self.with(|s| s.add_host(group_id))
    }

    /// Removes a host; whether there was one.
    fn remove_host(&self, host_id: &str) -> PyResult<bool> {
        self.with(|s| s.remove_host(host_id))
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
