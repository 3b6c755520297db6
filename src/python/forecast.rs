//! `opsapi._native._Forecasts`: the days-to-limit forecasts (`opsapi::forecast`) of many
//! series at once, for `opsapi.capacity` (which makes the daily peaks, the groups and the
//! frames). Bindings only: each method converts, forwards and returns columns.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::forecast::{backtest, fit, Break, Day, Fit, Reason, Settings, Shocks};

/// The series (their daily peaks and breaks), each one's group, and its fit now with its
/// group's shocks borrowed.
#[pyclass(frozen, module = "opsapi._native")]
pub(crate) struct _Forecasts {
    series: Vec<(Vec<Day>, Vec<Break>)>,
    group: Vec<u32>,
    shocks: Vec<Shocks>,
    settings: Settings,
    now: Vec<Option<Fit>>,
}

fn need(ok: bool, what: &str) -> PyResult<()> {
    if ok {
        Ok(())
    } else {
        Err(PyValueError::new_err(what.to_string()))
    }
}

/// A float column: a non-finite value (none to give) is None.
fn floats(v: impl IntoIterator<Item = f64>) -> Vec<Option<f64>> {
    v.into_iter().map(|x| x.is_finite().then_some(x)).collect()
}

impl _Forecasts {
    /// The fits of every series at `origin`, each with its group's shocks.
    fn fits_at(&self, origin: u32) -> Vec<Option<Fit>> {
        self.series
            .iter()
            .zip(&self.group)
            .map(|((days, breaks), g)| {
                let mut f = fit(days, breaks, origin, &self.settings)?;
                f.borrow(&self.shocks[*g as usize]);
                Some(f)
            })
            .collect()
    }
}

#[pymethods]
impl _Forecasts {
    /// `n` series: their days (`sid` of each, `day` before now, `weekday` 1 to 7, `peak`,
    /// `top` and `top_at`), the group of each series (`group`, `n` of them: like series, whose
    /// shocks and past errors are pooled) and the changes named from outside them (`break_*`:
    /// days before now, `capacity_change` or `tier_change`).
    #[new]
    #[pyo3(signature = (n, sid, day, weekday, peak, top, top_at, group, break_sid, break_age, break_reason, *, window_days, min_days, weekly=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        n: usize,
        sid: Vec<u32>,
        day: Vec<u32>,
        weekday: Vec<u8>,
        peak: Vec<f64>,
        top: Vec<f64>,
        top_at: Vec<f64>,
        group: Vec<u32>,
        break_sid: Vec<u32>,
        break_age: Vec<f64>,
        break_reason: Vec<String>,
        window_days: u32,
        min_days: u32,
        weekly: bool,
    ) -> PyResult<Self> {
        let rows = sid.len();
        need(
            [
                day.len(),
                weekday.len(),
                peak.len(),
                top.len(),
                top_at.len(),
            ] == [rows; 5],
            "the days' columns differ in length",
        )?;
        need(group.len() == n, "one group per series")?;
        need(
            break_age.len() == break_sid.len() && break_reason.len() == break_sid.len(),
            "the breaks' columns differ in length",
        )?;
        need(
            sid.iter().chain(&break_sid).all(|s| (*s as usize) < n),
            "a series id is out of range",
        )?;
        need(window_days > 0, "window_days must be 1 or more")?;
        let mut series: Vec<(Vec<Day>, Vec<Break>)> = vec![(Vec::new(), Vec::new()); n];
        for i in 0..rows {
            series[sid[i] as usize].0.push(Day {
                day: day[i],
                weekday: weekday[i],
                peak: peak[i],
                top: top[i],
                top_at: top_at[i],
            });
        }
        for i in 0..break_sid.len() {
            let reason = Reason::from_name(&break_reason[i]).ok_or_else(|| {
                PyValueError::new_err(format!("no such reason: {}", break_reason[i]))
            })?;
            series[break_sid[i] as usize].1.push(Break {
                age: break_age[i],
                reason,
            });
        }
        let settings = Settings {
            window_days,
            min_days,
            weekly,
        };
        let groups = group.iter().map(|g| *g as usize + 1).max().unwrap_or(0);
        let out = py.detach(|| {
            let own: Vec<Option<Fit>> = series
                .iter()
                .map(|(d, b)| fit(d, b, 0, &settings))
                .collect();
            let shocks: Vec<Shocks> = (0..groups)
                .map(|g| {
                    let of: Vec<&Fit> = own
                        .iter()
                        .zip(&group)
                        .filter(|(_, k)| **k as usize == g)
                        .filter_map(|(f, _)| f.as_ref())
                        .collect();
                    Shocks::of(&of)
                })
                .collect();
            let now: Vec<Option<Fit>> = own
                .into_iter()
                .zip(&group)
                .map(|(f, g)| {
                    f.map(|mut f| {
                        f.borrow(&shocks[*g as usize]);
                        f
                    })
                })
                .collect();
            (shocks, now)
        });
        Ok(_Forecasts {
            series,
            group,
            shocks: out.0,
            settings,
            now: out.1,
        })
    }

    /// The fits at each of `origins` (days before now; 0: now): one row per series and
    /// origin with a fit.
    fn fits<'py>(&self, py: Python<'py>, origins: Vec<u32>) -> PyResult<Bound<'py, PyDict>> {
        let rows: Vec<(u32, Fit)> = py.detach(|| {
            origins
                .iter()
                .flat_map(|&o| {
                    let fits = if o == 0 {
                        self.now.clone()
                    } else {
                        self.fits_at(o)
                    };
                    fits.into_iter()
                        .enumerate()
                        .filter_map(|(i, f)| Some((i as u32, f?)))
                        .collect::<Vec<_>>()
                })
                .collect()
        });
        let d = PyDict::new(py);
        d.set_item("sid", rows.iter().map(|r| r.0).collect::<Vec<_>>())?;
        d.set_item(
            "origin",
            rows.iter().map(|r| r.1.origin).collect::<Vec<_>>(),
        )?;
        d.set_item("since", floats(rows.iter().map(|r| r.1.since)))?;
        d.set_item(
            "reason",
            rows.iter().map(|r| r.1.reason.as_str()).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "days",
            rows.iter().map(|r| r.1.days as i64).collect::<Vec<_>>(),
        )?;
        d.set_item("short", rows.iter().map(|r| r.1.short).collect::<Vec<_>>())?;
        d.set_item("dated", rows.iter().map(|r| r.1.dated).collect::<Vec<_>>())?;
        d.set_item("trend", floats(rows.iter().map(|r| r.1.trend)))?;
        d.set_item("trend_sd", floats(rows.iter().map(|r| r.1.slope_sd())))?;
        d.set_item("level", floats(rows.iter().map(|r| r.1.level)))?;
        d.set_item("sigma", floats(rows.iter().map(|r| r.1.sigma)))?;
        d.set_item("spread", floats(rows.iter().map(|r| r.1.spread)))?;
        d.set_item("span", floats(rows.iter().map(|r| r.1.span)))?;
        d.set_item(
            "weekly",
            rows.iter().map(|r| r.1.weekly).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "r2",
            rows.iter()
                .map(|r| r.1.r2.filter(|v| v.is_finite()))
                .collect::<Vec<_>>(),
        )?;
        d.set_item(
            "outliers",
            rows.iter().map(|r| r.1.outliers as i64).collect::<Vec<_>>(),
        )?;
        Ok(d)
    }

    /// Each series' past forecasts (`opsapi::forecast::backtest`) at `horizons`, one every
    /// `every` days: one row per forecast and horizon checked.
    fn backtest<'py>(
        &self,
        py: Python<'py>,
        horizons: Vec<u32>,
        every: u32,
    ) -> PyResult<Bound<'py, PyDict>> {
        let rows: Vec<(u32, crate::forecast::Past)> = py.detach(|| {
            self.series
                .iter()
                .zip(&self.group)
                .enumerate()
                .flat_map(|(i, ((days, breaks), g))| {
                    let shocks = &self.shocks[*g as usize];
                    backtest(days, breaks, &self.settings, &horizons, every, Some(shocks))
                        .into_iter()
                        .map(move |p| (i as u32, p))
                })
                .collect()
        });
        let d = PyDict::new(py);
        d.set_item("sid", rows.iter().map(|r| r.0).collect::<Vec<_>>())?;
        d.set_item(
            "origin",
            rows.iter().map(|r| r.1.origin).collect::<Vec<_>>(),
        )?;
        d.set_item(
            "horizon",
            rows.iter().map(|r| r.1.horizon).collect::<Vec<_>>(),
        )?;
        d.set_item("pit", floats(rows.iter().map(|r| r.1.pit)))?;
        d.set_item("error", floats(rows.iter().map(|r| r.1.error)))?;
        d.set_item(
            "error_days",
            rows.iter()
                .map(|r| r.1.error_days.filter(|v| v.is_finite()))
                .collect::<Vec<_>>(),
        )?;
        d.set_item("dated", rows.iter().map(|r| r.1.dated).collect::<Vec<_>>())?;
        Ok(d)
    }

    /// For each row, when series `sid` (fitted now) reaches `limit` (toward it) with
    /// probabilities `p_low`, `p_mid` and `p_high`, in days after now (None past `max_days`
    /// or without a fit).
    #[pyo3(signature = (sid, limit, p_low, p_mid, p_high, *, max_days=1095))]
    #[allow(clippy::too_many_arguments)]
    fn crossings<'py>(
        &self,
        py: Python<'py>,
        sid: Vec<u32>,
        limit: Vec<f64>,
        p_low: Vec<f64>,
        p_mid: Vec<f64>,
        p_high: Vec<f64>,
        max_days: u32,
    ) -> PyResult<Bound<'py, PyDict>> {
        let rows = sid.len();
        need(
            [limit.len(), p_low.len(), p_mid.len(), p_high.len()] == [rows; 4],
            "the columns differ in length",
        )?;
        need(
            sid.iter().all(|s| (*s as usize) < self.now.len()),
            "a series id is out of range",
        )?;
        let out: Vec<Vec<Option<f64>>> = py.detach(|| {
            (0..rows)
                .map(|i| match &self.now[sid[i] as usize] {
                    Some(f) if limit[i].is_finite() => {
                        f.crossing(limit[i], &[p_low[i], p_mid[i], p_high[i]], max_days)
                    }
                    _ => vec![None; 3],
                })
                .collect()
        });
        let d = PyDict::new(py);
        for (k, name) in ["days_low", "days", "days_high"].iter().enumerate() {
            d.set_item(*name, out.iter().map(|r| r[k]).collect::<Vec<_>>())?;
        }
        Ok(d)
    }
}
