//! Faults for Python: the standing rates (`set_faults`, `set_rate_limit`), the one-shot faults a
//! test queues (`inject`) and aims at a request, the holds that keep a request waiting on
//! arrival (`hold`, `_Hold`).

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{positive_rate, seconds, PySimulator};
use crate::sim::{Aim, Fault, Faults, Hold};

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

#[pymethods]
impl PySimulator {
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

    /// The one-shot faults still queued, oldest first, by label.
    fn injected(&self) -> PyResult<Vec<String>> {
        self.with(|s| s.injected().iter().map(Fault::label).collect())
    }

    /// Drops every queued one-shot fault.
    fn clear_injected(&self) -> PyResult<()> {
        self.with(|s| s.clear_injected())
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
