//! `opsapi._native._Forecasts`: the days-to-limit forecasts (`opsapi::forecast`) of many
//! series at once, for `opsapi.capacity` (which makes the daily peaks, the groups and the
//! frames). Bindings only: each method converts, forwards and returns columns.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::forecast::{
    backtest as forecast_backtest, calibrated, days_of, fit, Break, Day, Fit, Reason, Settings,
    Shocks,
};

/// A past forecast every this many days calibrates a range: 2 gives about 45 of them on 63
/// days of history at 7, 14 and 30 days ahead (at least `MIN_PITS`, 20), in half the time
/// of one a day.
const EVERY: u32 = 2;

/// The series (their daily peaks and breaks), each one's group, and its fit now with its
/// group's shocks borrowed.
#[pyclass(frozen, module = "opsapi._native")]
pub(crate) struct _Forecasts {
    series: Vec<(Vec<Day>, Vec<Break>)>,
    group: Vec<u32>,
    shocks: Vec<Shocks>,
    settings: Settings,
    now: Vec<Option<Fit>>,
    /// Each series' range ends (probabilities), calibrated by its own past forecasts or its
    /// group's; `None`: from the fit alone.
    levels: Vec<Option<(f64, f64)>>,
    level: f64,
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
    /// `n` series: their points (`sid` of each, `t` unix seconds, `value` toward the limit,
    /// lower-is-worse values negated) up to `now`, made days by their `quantile`
    /// (`opsapi::forecast::days_of`), the group of each series (`group`, `n` of them: like
    /// series, whose shocks and past forecasts are pooled) and the changes named from
    /// outside them (`break_*`: days before now, `capacity_change` or `tier_change`). With
    /// `backtest`, each range is calibrated on the series' own past forecasts (at
    /// `horizons`), else its group's, where there are enough of them.
    #[new]
    #[pyo3(signature = (n, sid, t, value, group, break_sid, break_age, break_reason, *, now, quantile, window_days, min_days, level, backtest=true, horizons=vec![7, 14, 30], weekly=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        n: usize,
        sid: Vec<u32>,
        t: Vec<i64>,
        value: Vec<f64>,
        group: Vec<u32>,
        break_sid: Vec<u32>,
        break_age: Vec<f64>,
        break_reason: Vec<String>,
        now: i64,
        quantile: f64,
        window_days: u32,
        min_days: u32,
        level: f64,
        backtest: bool,
        horizons: Vec<u32>,
        weekly: bool,
    ) -> PyResult<Self> {
        let rows = sid.len();
        need(
            t.len() == rows && value.len() == rows,
            "the points' columns differ in length",
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
        need(level > 0.0 && level < 1.0, "level must be between 0 and 1")?;
        let mut points: Vec<Vec<(i64, f64)>> = vec![Vec::new(); n];
        for i in 0..rows {
            points[sid[i] as usize].push((t[i], value[i]));
        }
        let mut breaks: Vec<Vec<Break>> = vec![Vec::new(); n];
        for i in 0..break_sid.len() {
            let reason = Reason::from_name(&break_reason[i]).ok_or_else(|| {
                PyValueError::new_err(format!("no such reason: {}", break_reason[i]))
            })?;
            breaks[break_sid[i] as usize].push(Break {
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
            let series: Vec<(Vec<Day>, Vec<Break>)> = points
                .iter()
                .zip(breaks)
                .map(|(p, b)| (days_of(p, now, quantile), b))
                .collect();
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
            let pits: Vec<Vec<f64>> = if backtest {
                series
                    .iter()
                    .zip(&group)
                    .map(|((d, b), g)| {
                        forecast_backtest(
                            d,
                            b,
                            &settings,
                            &horizons,
                            EVERY,
                            Some(&shocks[*g as usize]),
                        )
                        .iter()
                        .map(|p| p.pit)
                        .collect()
                    })
                    .collect()
            } else {
                vec![Vec::new(); series.len()]
            };
            let pooled: Vec<Option<(f64, f64)>> = (0..groups)
                .map(|g| {
                    let all: Vec<f64> = pits
                        .iter()
                        .zip(&group)
                        .filter(|(_, k)| **k as usize == g)
                        .flat_map(|(p, _)| p.iter().copied())
                        .collect();
                    calibrated(&all, level)
                })
                .collect();
            let levels: Vec<Option<(f64, f64)>> = pits
                .iter()
                .zip(&group)
                .map(|(p, g)| calibrated(p, level).or(pooled[*g as usize]))
                .collect();
            (series, shocks, now, levels)
        });
        Ok(_Forecasts {
            series: out.0,
            group,
            shocks: out.1,
            settings,
            now: out.2,
            levels: out.3,
            level,
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
        let d = keyed(py, &rows, |f| f.origin)?;
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
                    forecast_backtest(days, breaks, &self.settings, &horizons, every, Some(shocks))
                        .into_iter()
                        .map(move |p| (i as u32, p))
                })
                .collect()
        });
        let d = keyed(py, &rows, |p| p.origin)?;
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

    /// The probabilities a range at `level` is read at, calibrated by past forecasts' `pits`
    /// (`opsapi::forecast::calibrated`); None with too few of them.
    #[staticmethod]
    fn calibrated(pits: Vec<f64>, level: f64) -> Option<(f64, f64)> {
        calibrated(&pits, level)
    }

    /// For each row, when series `sid` (fitted now) reaches `limit` (toward it): the days
    /// after now by which it has with probability one half (`days`) and the range's ends
    /// (`days_low`, `days_high`: None past `max_days`, or without a fit), and where the ends
    /// come from (`interval_source`: `backtest` or `residuals`).
    #[pyo3(signature = (sid, limit, *, max_days=1095))]
    fn crossings<'py>(
        &self,
        py: Python<'py>,
        sid: Vec<u32>,
        limit: Vec<f64>,
        max_days: u32,
    ) -> PyResult<Bound<'py, PyDict>> {
        let rows = sid.len();
        need(limit.len() == rows, "the columns differ in length")?;
        need(
            sid.iter().all(|s| (*s as usize) < self.now.len()),
            "a series id is out of range",
        )?;
        let a = (1.0 - self.level) / 2.0;
        let out: Vec<(Vec<Option<f64>>, Option<&'static str>)> = py.detach(|| {
            (0..rows)
                .map(|i| {
                    let s = sid[i] as usize;
                    match &self.now[s] {
                        Some(f) if limit[i].is_finite() => {
                            let (lo, hi, source) = match self.levels[s] {
                                Some((lo, hi)) => (lo, hi, "backtest"),
                                None => (a, 1.0 - a, "residuals"),
                            };
                            (f.crossing(limit[i], &[lo, 0.5, hi], max_days), Some(source))
                        }
                        _ => (vec![None; 3], None),
                    }
                })
                .collect()
        });
        let d = PyDict::new(py);
        for (k, name) in ["days_low", "days", "days_high"].iter().enumerate() {
            d.set_item(*name, out.iter().map(|r| r.0[k]).collect::<Vec<_>>())?;
        }
        d.set_item(
            "interval_source",
            out.iter().map(|r| r.1).collect::<Vec<_>>(),
        )?;
        Ok(d)
    }
}

/// The columns of a frame of rows keyed by series and origin (`sid`, `origin`), to which the
/// caller adds its own: the fits' and the past forecasts' alike.
fn keyed<'py, T>(
    py: Python<'py>,
    rows: &[(u32, T)],
    origin: impl Fn(&T) -> u32,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("sid", rows.iter().map(|r| r.0).collect::<Vec<_>>())?;
    d.set_item(
        "origin",
        rows.iter().map(|r| origin(&r.1)).collect::<Vec<_>>(),
    )?;
    Ok(d)
}
