//! The in-process simulator, for `opsapi.testing.Simulator` and `python -m opsapi sim`.

use std::sync::Mutex;
use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::sim::{Fault, Faults, SimConfig, SimTls, Simulator};

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
    #[pyo3(signature = (*, seed = 0, projects = 2, hosts_per_project = 5, global_alerts = None,
                        nonce_lifetime = None, port = 0, bind = None, worker_threads = 1,
                        log_requests = true, tls = None))]
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
    ) -> PyResult<Self> {
        let mut config = SimConfig {
            seed,
            projects,
            hosts_per_project,
            port,
            worker_threads,
            log_requests,
            tls: tls_mode(tls)?,
            ..SimConfig::default()
        };
        if let Some(n) = global_alerts {
            config.global_alerts = n;
        }
        if let Some(s) = nonce_lifetime {
            config.nonce_lifetime = seconds("nonce_lifetime", s)?;
        }
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
    /// `authorized`), oldest first.
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
                d.set_item("authorized", r.authorized)?;
                Ok(d)
            })
            .collect()
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

    /// Queues `count` one-shot faults for the next requests: an HTTP status (`503`), or one of
    /// `"reset"`, `"truncate"`, `"repeat_first_page"`, `"wrong_total_count"`, `"stale_nonce"`.
    #[pyo3(signature = (fault, count = 1, *, retry_after = None, total_count = None))]
    fn inject(
        &self,
        fault: &Bound<'_, PyAny>,
        count: usize,
        retry_after: Option<u64>,
        total_count: Option<i64>,
    ) -> PyResult<()> {
        let fault = if let Ok(status) = fault.extract::<u16>() {
            Fault::Status {
                status,
                retry_after,
            }
        } else {
            let name: String = fault.extract()?;
            match name.as_str() {
                "reset" => Fault::Reset,
                "truncate" => Fault::Truncate,
                "repeat_first_page" => Fault::RepeatFirstPage,
                "wrong_total_count" => Fault::WrongTotalCount(total_count.unwrap_or(0)),
                "stale_nonce" => Fault::StaleNonce,
                other => return Err(PyValueError::new_err(format!("unknown fault `{other}`"))),
            }
        };
        self.with(|s| s.inject(fault, count))
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
