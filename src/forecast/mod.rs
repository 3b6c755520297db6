//! Days-to-limit forecasts that keep their word (issue 37): where the present regime of a
//! series starts, its trend since, and when **the series itself** first reaches a limit, with
//! a range that holds that day at its level on every shape of series, or none and why.
//!
//! A series comes as its daily peaks ([`Day`]: one per 24 hours before now, toward the limit,
//! lower-is-worse resources negated): the day's high quantile (`peak`, robust, for the trend)
//! and its maximum (`top`, what reaches a limit). Three steps, each in a file:
//!
//! 1. **where the fit starts** ([`fit`]): the newest of the changes named from outside the
//!    series ([`Break`]: a disk's capacity changed, events name a tier change) inside the
//!    window, then the last change of level or slope after it ([`regime`]);
//! 2. **the fit** (`fit.rs`): the trend of the peaks since (Theil–Sen, a weekly cycle
//!    cancelled), the line of the daily maxima, how far they stray from it and how uncertain the
//!    line is;
//! 3. **the first passage** ([`Fit::crossing`], `passage.rs`): the probability that the series
//!    has reached the limit by each day, from which the range's ends are read at `α/2` and
//!    `1 − α/2`, or at the levels a backtest on the series' own past calibrates
//!    ([`backtest`]: each past forecast's probability of what came, its PIT).
//!
//! Pure functions of their input: `opsapi.capacity` (through the Python extension) and Rust
//! users call the same.
//!
//! ```
//! use opsapi::forecast::{fit, Day, Settings};
//!
//! // Four weeks of a series climbing 10 a day with a weekly rhythm.
//! let days: Vec<Day> = (0..28u32)
//!     .map(|d| {
//!         let wave = [0.0, 6.0, 9.0, 7.0, 5.0, -8.0, -10.0][(d % 7) as usize];
//!         let v = 1000.0 - 10.0 * f64::from(d) + wave;
//!         Day { day: d, weekday: 1 + (d % 7) as u8, peak: v, top: v + 3.0, top_at: 0.6 }
//!     })
//!     .collect();
//! let f = fit(&days, &[], 0, &Settings::default()).unwrap();
//! assert!((f.trend - 10.0).abs() < 0.5 && f.dated);
//! let range = f.crossing(1500.0, &[0.1, 0.5, 0.9], 1000);
//! let (low, mid, high) = (range[0].unwrap(), range[1].unwrap(), range[2].unwrap());
//! assert!(low <= mid && mid <= high && (45.0..55.0).contains(&mid));
//! ```

mod days;
mod fit;
mod passage;
pub mod regime;
pub mod stats;

pub use days::days_of;
pub use fit::{Fit, Shocks};
pub use passage::NODES;

/// One day of a series: `day` days before now (0: the 24 hours up to now), its weekday
/// (1 = Monday), its peak (a high quantile) and its maximum, both toward the limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Day {
    /// Days before now.
    pub day: u32,
    /// 1 (Monday) to 7.
    pub weekday: u8,
    /// The day's high quantile toward the limit (the trend is fitted to these).
    pub peak: f64,
    /// The day's maximum toward the limit (what reaches a limit).
    pub top: f64,
    /// Where in the day the maximum came: the fraction of its 24 hours (1: at their end).
    pub top_at: f64,
}

/// Why a fit starts where it does (`fit_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// No change: the fit starts with the window (or the history, if shorter).
    History,
    /// The level stepped (a bulk load, a delete, a pool resized).
    LevelShift,
    /// The growth sped up or slowed.
    SlopeChange,
    /// The capacity changed (a disk resized: its own size says so, or events).
    CapacityChange,
    /// The deployment moved to another tier (events say so).
    TierChange,
}

impl Reason {
    /// Every reason.
    pub const ALL: [Reason; 5] = [
        Reason::History,
        Reason::LevelShift,
        Reason::SlopeChange,
        Reason::CapacityChange,
        Reason::TierChange,
    ];

    /// Its name in `fit_reason`.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::History => "history",
            Reason::LevelShift => "level_shift",
            Reason::SlopeChange => "slope_change",
            Reason::CapacityChange => "capacity_change",
            Reason::TierChange => "tier_change",
        }
    }

    /// The reason of a name.
    pub fn from_name(name: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

/// A change named from outside the series: `age` days before now (fractional), and what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Break {
    /// Days before now it happened.
    pub age: f64,
    /// `CapacityChange` or `TierChange`.
    pub reason: Reason,
}

/// How the fits are made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// How many days back from an origin a fit looks.
    pub window_days: u32,
    /// The fewest days for a trend.
    pub min_days: u32,
    /// Whether a weekly cycle is taken out where two weeks allow.
    pub weekly: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            window_days: 14,
            min_days: 4,
            weekly: true,
        }
    }
}

/// After a change, the fewest days since it to forecast from.
pub const MIN_REGIME_DAYS: usize = 7;
/// How far back (days, at least the window) a fit learns how far the series strays from its
/// line, and looks for where its regime starts.
pub const STRAYING_DAYS: u32 = 56;

/// The fit `origin` days before now, on the window before it, from where its present regime
/// starts; `None` without a day in the window. `days` in any order.
pub fn fit(days: &[Day], breaks: &[Break], origin: u32, settings: &Settings) -> Option<Fit> {
    let end = origin.saturating_add(settings.window_days);
    // How far the series strays is learned from more than the window where the history has
    // it, as far back as the regime goes.
    let far = origin.saturating_add(settings.window_days.max(STRAYING_DAYS));
    let mut read: Vec<&Day> = days
        .iter()
        .filter(|d| d.day >= origin && d.day < far && d.peak.is_finite() && d.top.is_finite())
        .collect();
    read.sort_by_key(|d| std::cmp::Reverse(d.day));
    let forced = breaks
        .iter()
        .filter(|b| b.age >= f64::from(origin) && b.age < f64::from(far))
        .min_by(|a, b| a.age.total_cmp(&b.age));
    if let Some(b) = forced {
        // Only the days wholly after it.
        read.retain(|d| f64::from(d.day) + 1.0 <= b.age);
    }
    let x: Vec<f64> = read
        .iter()
        .map(|d| f64::from(origin) - f64::from(d.day) - 0.5)
        .collect();
    let peak: Vec<f64> = read.iter().map(|d| d.peak).collect();
    let top: Vec<f64> = read.iter().map(|d| d.top).collect();
    let top_at: Vec<f64> = read.iter().map(|d| d.top_at).collect();
    let weekday: Vec<u8> = read.iter().map(|d| d.weekday).collect();
    let change = regime::last_change(&x, &peak, &weekday, settings.weekly);
    // The window's days: the trend is fitted to these.
    let window = read.iter().position(|d| d.day < end).unwrap_or(read.len());
    let (start, reason, since) = match (change, forced) {
        (Some(c), _) => (c.start, c.kind, f64::from(read[c.start].day) + 1.0),
        (None, Some(b)) if b.age < f64::from(end) => (0, b.reason, b.age),
        _ => {
            let first = read.get(window)?;
            (0, Reason::History, f64::from(first.day) + 1.0)
        }
    };
    // Each day back is a weekday earlier: the first day after the origin follows the origin's.
    let next_weekday = read.last().map_or(1, |d| {
        let back = i64::from(d.day) - i64::from(origin) + 1;
        ((i64::from(d.weekday) - 1 + back).rem_euclid(7) + 1) as u8
    });
    let regime = fit::Regime {
        x: &x[start..],
        peak: &peak[start..],
        top: &top[start..],
        top_at: &top_at[start..],
        weekday: &weekday[start..],
        next_weekday,
    };
    let mut f = fit::fit(
        &regime,
        window.saturating_sub(start),
        settings.weekly,
        settings.min_days as usize,
    );
    f.origin = origin;
    f.since = since.min(f64::from(end)) - f64::from(origin);
    f.reason = if since <= f64::from(end) {
        reason
    } else {
        Reason::History
    };
    f.short = f.reason != Reason::History && f.days < MIN_REGIME_DAYS;
    f.dated &= !f.short;
    Some(f)
}

/// A past forecast checked against what came.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Past {
    /// Days before now it was made.
    pub origin: u32,
    /// Days ahead it was checked.
    pub horizon: u32,
    /// The probability it gave that no day of the horizon would reach what the highest did:
    /// uniform over many forecasts when their distribution is right.
    pub pit: f64,
    /// The highest maximum of the horizon less the forecast's line of the maxima on its last
    /// day (its weekday's offset added).
    pub error: f64,
    /// That error in days of the trend, for a forecast that gave a date.
    pub error_days: Option<f64>,
    /// Whether it gave a date.
    pub dated: bool,
}

/// Rolling-origin backtests of [`fit`] on the series' own past: a forecast every `every` days
/// whose window lies in the history, checked at each of `horizons` it has seen come; each
/// fit borrows `shocks` (its group's, [`Fit::borrow`]) as today's does.
///
/// ```
/// # use opsapi::forecast::{backtest, Day, Settings};
/// let days: Vec<Day> = (0..63u32).map(|d| {
///     let v = 500.0 - 3.0 * f64::from(d) + [2.0, -1.0, 0.5, -2.0, 1.0, 0.0, -0.5][(d % 7) as usize];
///     Day { day: d, weekday: 1 + (d % 7) as u8, peak: v, top: v, top_at: 1.0 }
/// }).collect();
/// let past = backtest(&days, &[], &Settings::default(), &[7, 14, 30], 1, None);
/// // Origins 7 to 49 days ago, each checked at the horizons it has seen.
/// assert_eq!(past.iter().filter(|p| p.horizon == 30).count(), 49 - 30 + 1);
/// assert!(past.iter().all(|p| (0.0..=1.0).contains(&p.pit)));
/// ```
pub fn backtest(
    days: &[Day],
    breaks: &[Break],
    settings: &Settings,
    horizons: &[u32],
    every: u32,
    shocks: Option<&Shocks>,
) -> Vec<Past> {
    let Some(span) = days.iter().map(|d| d.day + 1).max() else {
        return Vec::new();
    };
    let mut top = vec![None; span as usize];
    for d in days.iter().filter(|d| d.top.is_finite()) {
        top[d.day as usize] = Some(d.top);
    }
    // The changes the whole history shows, in hindsight: a past forecast whose horizon saw the
    // series change forecast a regime that did not last, and is not what today's forecast (of
    // the present regime) is to be judged by. One made just after a change it could not yet
    // see is: today's may be such a one.
    let changed = hindsight(days, breaks, settings);
    let saw_change = |origin: u32, h: u32| {
        changed
            .iter()
            .any(|&c| c > f64::from(origin - h) && c <= f64::from(origin))
    };
    let first = horizons
        .iter()
        .copied()
        .filter(|h| *h > 0)
        .min()
        .unwrap_or(1);
    let last = span.saturating_sub(settings.window_days);
    let mut out = Vec::new();
    for origin in (first..=last).step_by(every.max(1) as usize) {
        let Some(mut f) = fit(days, breaks, origin, settings) else {
            continue;
        };
        if let Some(s) = shocks {
            f.borrow(s);
        }
        if f.short || f.days < (settings.min_days as usize).max(2) {
            continue;
        }
        for &h in horizons.iter().filter(|h| **h > 0 && **h <= origin) {
            if saw_change(origin, h) {
                continue;
            }
            let seen: Vec<f64> = (origin - h..origin)
                .filter_map(|d| top[d as usize])
                .collect();
            if seen.len() * 2 < h as usize || seen.is_empty() {
                continue;
            }
            let highest = seen.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            // The line, not the median of the highest maximum: that is 24 more passes over
            // the horizon, and the ranges read only the PIT.
            let error = highest - f.line_at(h);
            out.push(Past {
                origin,
                horizon: h,
                pit: f.below(highest, h),
                error,
                error_days: f.dated.then(|| error / f.trend),
                dated: f.dated,
            });
        }
    }
    out
}

/// Every change the whole history shows (days before now), and the breaks named outside it.
fn hindsight(days: &[Day], breaks: &[Break], settings: &Settings) -> Vec<f64> {
    let mut all: Vec<&Day> = days.iter().filter(|d| d.peak.is_finite()).collect();
    all.sort_by_key(|d| std::cmp::Reverse(d.day));
    let x: Vec<f64> = all.iter().map(|d| -f64::from(d.day) - 0.5).collect();
    let peak: Vec<f64> = all.iter().map(|d| d.peak).collect();
    let weekday: Vec<u8> = all.iter().map(|d| d.weekday).collect();
    regime::changes(&x, &peak, &weekday, settings.weekly)
        .iter()
        .map(|c| f64::from(all[c.start].day) + 1.0)
        .chain(breaks.iter().map(|b| b.age))
        .collect()
}

/// The probabilities at which a range at `level` is read from [`Fit::crossing`], calibrated by
/// past forecasts' PITs ([`Past::pit`]: the probability each gave that the horizon stayed
/// below what came): where they were overconfident (PITs piled near 0 or 1), the ends move
/// outward; never inward, so that a range is never narrower than the model's own. `None`
/// with fewer than [`MIN_PITS`] of them.
///
/// ```
/// use opsapi::forecast::calibrated;
///
/// // Uniform PITs: the model was right, its own ends stand.
/// let fair: Vec<f64> = (0..100).map(|i| (f64::from(i) + 0.5) / 100.0).collect();
/// let (lo, hi) = calibrated(&fair, 0.8).unwrap();
/// assert!((lo - 0.1).abs() < 0.01 && (hi - 0.9).abs() < 0.01);
/// // Past outcomes beyond the model's 10 % tails three times in ten: read further out.
/// let over: Vec<f64> = (0..100).map(|i| if i < 15 { 0.01 } else if i >= 85 { 0.99 } else { 0.5 }).collect();
/// let (lo, hi) = calibrated(&over, 0.8).unwrap();
/// assert!(lo < 0.05 && hi > 0.95);
/// assert_eq!(calibrated(&fair[..5], 0.8), None);
/// ```
pub fn calibrated(pits: &[f64], level: f64) -> Option<(f64, f64)> {
    let mut pit: Vec<f64> = pits.iter().copied().filter(|p| p.is_finite()).collect();
    if pit.len() < MIN_PITS {
        return None;
    }
    pit.sort_by(f64::total_cmp);
    let a = (1.0 - level) / 2.0;
    let q = |p: f64| pit[((p * (pit.len() - 1) as f64).round() as usize).min(pit.len() - 1)];
    Some(((1.0 - q(1.0 - a)).min(a), (1.0 - q(a)).max(1.0 - a)))
}

/// The fewest past forecasts a range is calibrated on.
pub const MIN_PITS: usize = 20;
