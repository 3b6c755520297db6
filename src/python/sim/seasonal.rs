//! `opsapi._native._seasonal_cases`: the simulator's seasonal cases (`opsapi::sim::seasonal`)
//! as one long frame and their truths, for `opsapi.testing.seasonal_cases`.

use chrono::{DateTime, Utc};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::python::frame::PyFrame;
use crate::sim::seasonal::{cases, SeasonalConfig};

/// `n` seasonal cases' series over the `days` before `now` on a grid of `step_seconds`, as
/// one long frame, and one dict of truths per case.
#[pyfunction]
#[pyo3(signature = (n, *, seed, now, days, step_seconds, limit))]
pub(crate) fn _seasonal_cases(
    py: Python<'_>,
    n: usize,
    seed: u64,
    now: DateTime<Utc>,
    days: u32,
    step_seconds: i64,
    limit: f64,
) -> PyResult<(PyFrame, Vec<Bound<'_, PyDict>>)> {
    if n == 0 || n > 100_000 {
        return Err(PyValueError::new_err(format!(
            "n must be 1 to 100000 cases, not {n}"
        )));
    }
    if days == 0 || days > 3660 {
        return Err(PyValueError::new_err(format!(
            "days must be 1 to 3660, not {days}"
        )));
    }
    if !(60..=86_400).contains(&step_seconds) {
        return Err(PyValueError::new_err(format!(
            "step must be 60 to 86400 seconds, not {step_seconds}"
        )));
    }
    if !(limit.is_finite() && limit > 0.0) {
        return Err(PyValueError::new_err(format!(
            "limit must be a positive number, not {limit}"
        )));
    }
    let all = cases(&SeasonalConfig {
        seed,
        n,
        anchor: now,
        limit,
        history_days: days,
        ..SeasonalConfig::default()
    });
    let end = now.timestamp().div_euclid(step_seconds) * step_seconds;
    let start = end - i64::from(days) * 86_400;
    let frame = py.detach(|| {
        let ms: Vec<_> = all
            .iter()
            .map(|c| c.measurements(start, end, step_seconds))
            .collect();
        crate::frame::long_frame(&ms)
    });
    let frame = frame.map_err(|e| PyValueError::new_err(e.to_string()))?;
    let truths = all
        .iter()
        .map(|c| {
            let d = PyDict::new(py);
            d.set_item("group_id", &c.group_id)?;
            d.set_item("host_id", &c.host_id)?;
            d.set_item("hostname", &c.hostname)?;
            d.set_item("measurement", c.metric)?;
            d.set_item("level", c.level)?;
            d.set_item("per_day", c.per_day)?;
            d.set_item("daily", c.daily)?;
            d.set_item("weekend", c.weekend)?;
            d.set_item("monday", c.monday)?;
            d.set_item("day_noise", c.day_noise)?;
            d.set_item("point_noise", c.point_noise)?;
            d.set_item("limit", c.limit)?;
            d.set_item("peak_at_anchor", c.peak_at_anchor)?;
            d.set_item("crosses_at", c.crosses_at)?;
            d.set_item("first_breach_at", c.first_breach_at)?;
            d.set_item("anchor", c.anchor)?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((PyFrame(frame), truths))
}
