//! `opsapi._native._forecast_cases`: the simulator's series shaped like real ones
//! (`opsapi::sim::shapes`), as long frames and their truths, for
//! `opsapi.testing.forecast_cases`.

use chrono::{DateTime, Utc};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::python::frame::PyFrame;
use crate::sim::shapes::{cases, Family, ShapesConfig};

/// `n` cases of `family` over the `days` before `now` on a grid of `step_seconds`: the host
/// frame and the disk frame (one of them empty, by the family's resource), and one dict of
/// truths per case.
#[pyfunction]
#[pyo3(signature = (family, n, *, seed, now, days, step_seconds))]
pub(crate) fn _forecast_cases<'py>(
    py: Python<'py>,
    family: &str,
    n: usize,
    seed: u64,
    now: DateTime<Utc>,
    days: u32,
    step_seconds: i64,
) -> PyResult<(PyFrame, PyFrame, Vec<Bound<'py, PyDict>>)> {
    let family = Family::from_name(family).ok_or_else(|| {
        let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
        PyValueError::new_err(format!(
            "family must be one of {}, not {family:?}",
            names.join(", ")
        ))
    })?;
    if n == 0 || n > 100_000 {
        return Err(PyValueError::new_err(format!(
            "n must be 1 to 100000 cases, not {n}"
        )));
    }
    if !(7..=3660).contains(&days) {
        return Err(PyValueError::new_err(format!(
            "days must be 7 to 3660, not {days}"
        )));
    }
    if !(60..=86_400).contains(&step_seconds) {
        return Err(PyValueError::new_err(format!(
            "step must be 60 to 86400 seconds, not {step_seconds}"
        )));
    }
    let config = ShapesConfig {
        seed,
        n,
        family,
        anchor: now,
        history_days: days,
    };
    let end = now.timestamp().div_euclid(step_seconds) * step_seconds;
    let start = end - i64::from(days) * 86_400;
    let (all, frames) = py.detach(|| {
        let all = cases(&config);
        let ms: Vec<_> = all
            .iter()
            .map(|c| c.measurements(start, end, step_seconds))
            .collect();
        let disk = family.resource() == "disk";
        let (of, none): (Vec<_>, Vec<_>) = (ms.iter().collect(), Vec::new());
        let frames = if disk {
            (crate::frame::long_frame(none), crate::frame::long_frame(of))
        } else {
            (crate::frame::long_frame(of), crate::frame::long_frame(none))
        };
        (all, frames)
    });
    let host = frames.0.map_err(|e| PyValueError::new_err(e.to_string()))?;
    let disk = frames.1.map_err(|e| PyValueError::new_err(e.to_string()))?;
    let truths = all
        .iter()
        .map(|c| {
            let d = PyDict::new(py);
            d.set_item("family", c.family.name())?;
            d.set_item("resource", c.family.resource())?;
            d.set_item("group_id", &c.group_id)?;
            d.set_item("host_id", &c.host_id)?;
            d.set_item("hostname", &c.hostname)?;
            d.set_item("measurement", c.metric)?;
            d.set_item("limit", c.limit)?;
            d.set_item("worse", c.worse)?;
            d.set_item("capacity_bytes", c.capacity_bytes)?;
            d.set_item("capacity_before_bytes", c.capacity_before_bytes)?;
            d.set_item("per_day", c.per_day)?;
            d.set_item("change", c.family.change())?;
            d.set_item("changed_at", c.changed_at)?;
            d.set_item("first_breach_at", c.first_breach_at)?;
            d.set_item("anchor", c.anchor)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((PyFrame(host), PyFrame(disk), truths))
}
