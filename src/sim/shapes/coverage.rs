//! How often each family's range holds the truth (issue 37), through `opsapi::forecast` as
//! `opsapi.capacity` calls it: the cases' hourly series as days, a capacity change seen in the
//! disk's own size as a break, the fit now and the first passage's range at 80 %; with the
//! window as long as the history (residual ranges) and with the default window, calibrated on
//! each series' own past (backtested ranges).

use super::{cases, Family, ShapeCase, ShapesConfig};
use crate::forecast::{backtest, calibrated, days_of, fit, Break, Day, Reason, Settings, Shocks};

/// What one case's forecast said and whether it held.
#[derive(Debug, Clone, Copy)]
pub(super) struct Outcome {
    pub(super) truth: f64,
    pub(super) low: Option<f64>,
    pub(super) high: Option<f64>,
    pub(super) backtested: bool,
    pub(super) reason: Reason,
}

impl Outcome {
    pub(super) fn covered(&self) -> bool {
        match self.low {
            Some(l) => l <= self.truth && self.high.is_none_or(|h| self.truth <= h),
            None => false,
        }
    }
}

const HISTORY: u32 = 60;
const LEVEL: f64 = 0.8;

/// The case's points toward its limit, the limit and the breaks its capacity shows.
pub(super) fn series(c: &ShapeCase) -> (Vec<(i64, f64)>, f64, Vec<Break>) {
    let end = c.anchor.timestamp().div_euclid(3600) * 3600;
    let m = c.measurements(end - i64::from(HISTORY) * 86_400, end, 3600);
    let s = &m.series[0];
    let sign = if c.family.resource() == "disk" {
        1.0
    } else {
        f64::from(c.worse)
    };
    let points: Vec<(i64, f64)> = s
        .timestamps
        .iter()
        .zip(&s.values)
        .filter_map(|(t, v)| Some((t / 1000, sign * (*v)?)))
        .collect();
    if c.family.resource() != "disk" {
        return (points, sign * c.limit, Vec::new());
    }
    let free = &m.series[1];
    let cap: Vec<(i64, f64)> = s
        .timestamps
        .iter()
        .zip(s.values.iter().zip(&free.values))
        .filter_map(|(t, (u, f))| Some((t / 1000, (*u)? + (*f)?)))
        .collect();
    let now_cap = cap.last().map_or(0.0, |c| c.1);
    let breaks = cap
        .windows(2)
        .filter(|w| (w[1].1 - w[0].1).abs() > 0.01 * w[0].1)
        .map(|w| Break {
            age: (end - w[1].0) as f64 / 86_400.0 + 1.0 / 24.0,
            reason: Reason::CapacityChange,
        })
        .collect();
    (points, 0.9 * now_cap, breaks)
}

/// The quantile of a day's points `opsapi.capacity` takes as its peak, by resource.
fn quantile(c: &ShapeCase) -> f64 {
    if c.family.resource() == "connections" {
        0.99
    } else {
        0.95
    }
}

/// The case's days, limit and breaks.
pub(super) fn days(c: &ShapeCase) -> (Vec<Day>, f64, Vec<Break>) {
    let (points, limit, breaks) = series(c);
    let now = c.anchor.timestamp().div_euclid(3600) * 3600;
    (days_of(&points, now, quantile(c)), limit, breaks)
}

/// The forecast of one case, its window `window` days (the history's: residual ranges), its
/// range calibrated on its own past where `backtested`, its group's `shocks` borrowed where
/// given (`opsapi.capacity` asks each series alone: none).
pub(super) fn outcome(
    c: &ShapeCase,
    window: u32,
    backtested: bool,
    shocks: Option<&Shocks>,
) -> Option<Outcome> {
    let (days, limit, breaks) = days(c);
    let settings = Settings {
        window_days: window,
        ..Settings::default()
    };
    let mut f = fit(&days, &breaks, 0, &settings)?;
    if let Some(s) = shocks {
        f.borrow(s);
    }
    let a = (1.0 - LEVEL) / 2.0;
    let (mut p_low, mut p_high) = (a, 1.0 - a);
    let mut from_past = false;
    if backtested {
        let pit: Vec<f64> = backtest(&days, &breaks, &settings, &[7, 14, 30], 2, shocks)
            .iter()
            .map(|p| p.pit)
            .collect();
        if let Some((lo, hi)) = calibrated(&pit, LEVEL) {
            (p_low, p_high, from_past) = (lo, hi, true);
        }
    }
    let truth = (c.first_breach_at? - c.anchor).num_seconds() as f64 / 86_400.0;
    let (low, high) = if f.short {
        (None, None)
    } else {
        let r = f.crossing(limit, &[p_low, p_high], 1095);
        (r[0], r[1])
    };
    Some(Outcome {
        truth,
        low,
        high,
        backtested: from_past,
        reason: f.reason,
    })
}

/// What the ranges of one family did.
#[derive(Debug, Clone, Copy)]
pub(super) struct Measured {
    /// Cases, and those given a range.
    pub(super) cases: usize,
    pub(super) given: usize,
    /// Of those given a range, the share that held the truth.
    pub(super) coverage: f64,
    /// The median width of the ranges given, as a share of the truth's horizon.
    pub(super) width: f64,
    /// Ranges calibrated on the series' own past.
    pub(super) backtested: usize,
    /// Fits that start where the family's change is (a fit_reason other than history).
    pub(super) restarted: usize,
}

/// `n` cases of `family` (seed `seed`), their window `window` days, calibrated where `bt`.
pub(super) fn measure(family: Family, n: usize, seed: u64, window: u32, bt: bool) -> Measured {
    let anchor = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2026, 3, 2, 10, 0, 0).unwrap();
    let all = cases(&ShapesConfig {
        seed,
        n,
        family,
        anchor,
        history_days: HISTORY,
    });
    // Each series alone, as `opsapi.capacity` asks them.
    let shocks = None;
    let out: Vec<Outcome> = std::thread::scope(|s| {
        let (a, b) = all.split_at(all.len() / 2);
        let h = s.spawn(move || {
            a.iter()
                .filter_map(|c| outcome(c, window, bt, shocks))
                .collect::<Vec<_>>()
        });
        let mut rest: Vec<Outcome> = b
            .iter()
            .filter_map(|c| outcome(c, window, bt, shocks))
            .collect();
        let mut first = h.join().unwrap_or_default();
        first.append(&mut rest);
        first
    });
    let given: Vec<&Outcome> = out.iter().filter(|o| o.low.is_some()).collect();
    let mut widths: Vec<f64> = given
        .iter()
        .map(|o| {
            o.high
                .map_or(f64::INFINITY, |h| (h - o.low.unwrap_or(0.0)) / o.truth)
        })
        .collect();
    widths.sort_by(f64::total_cmp);
    Measured {
        cases: n,
        given: given.len(),
        coverage: given.iter().filter(|o| o.covered()).count() as f64 / given.len().max(1) as f64,
        width: widths.get(widths.len() / 2).copied().unwrap_or(f64::NAN),
        backtested: out.iter().filter(|o| o.backtested).count(),
        restarted: out.iter().filter(|o| o.reason != Reason::History).count(),
    }
}

fn cases_from_env(default: usize) -> usize {
    std::env::var("OPSAPI_FORECAST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Each family's 80 % ranges, residual (the window the history's 60 days) and backtested (the
/// default 14-day window, calibrated on the series' own 60 days): inside 70-92 % coverage
/// with `OPSAPI_FORECAST_CASES` cases (`make test-stress`: 200), and pooled; the default small
/// set (4 a family, 9 s) checks that each family's ranges hold the truth in at least half its
/// cases (4 cases say little of a rate: 93 % pooled over its 104 ranges, on seed 1), and that
/// a resized disk's fit restarts at the resize.
#[test]
fn each_family_s_80_range_holds_the_first_breach_70_to_92_times_in_100() {
    let n = cases_from_env(4);
    let only = std::env::var("OPSAPI_FORECAST_FAMILY").ok();
    let (mut held, mut total) = (0.0, 0);
    let mut failed = Vec::new();
    for family in Family::ALL {
        if only.as_deref().is_some_and(|o| o != family.name()) {
            continue;
        }
        for (window, bt) in [(HISTORY, false), (14, true)] {
            let m = measure(family, n, 1, window, bt);
            let source = if bt { "backtest" } else { "residuals" };
            eprintln!(
                "{:22} {source:9} coverage {:5.1} % of {} given ({} cases), median width {:.2} of the horizon, {} backtested, {} restarted",
                family.name(), 100.0 * m.coverage, m.given, m.cases, m.width, m.backtested, m.restarted
            );
            held += m.coverage * m.given as f64;
            total += m.given;
            let band = if n >= 100 { 0.70..=0.92 } else { 0.5..=1.0 };
            if !band.contains(&m.coverage) || 10 * m.given < 9 * m.cases {
                failed.push(format!("{} {source}: {:?}", family.name(), m));
            }
            // Within the window (the whole history's here), a resize restarts every fit.
            if family == Family::DiskResize && window == HISTORY {
                assert_eq!(m.restarted, m.cases, "a resize restarts every fit");
            }
        }
    }
    let pooled = held / total.max(1) as f64;
    eprintln!("pooled coverage {:.1} % of {total} ranges", 100.0 * pooled);
    if n >= 100 {
        assert!((0.70..=0.92).contains(&pooled), "pooled {pooled}");
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
