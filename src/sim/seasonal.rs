//! Seasonal series with known truths (issue 33 §2): what a forecast of a working week's load
//! must see through.
//!
//! Each case is one host's series (`CONNECTIONS` by default): a linear trend, a business-day
//! plateau (a daily cycle), quieter weekends and, in half the cases, a busier Monday (a weekly
//! cycle), a level of its own each day and jitter on every point (noise). The truths are the
//! parameters and two instants: when the trend of the peaks reaches the limit
//! ([`SeasonalCase::crosses_at`], what a days-to-limit forecasts) and when the series without
//! noise first does ([`SeasonalCase::first_breach_at`], the next peak hour after it: up to a
//! week later when Mondays are the peak).
//!
//! The series is a pure function of (seed, case, timestamp), like every other series of the
//! simulator; nothing here is served over HTTP: tests build frames from it in-process
//! (`opsapi.testing.seasonal_cases`), hundreds of cases in milliseconds.
//!
//! ```
//! use chrono::{TimeZone, Utc};
//! use opsapi::sim::seasonal::{cases, SeasonalConfig};
//!
//! let anchor = Utc.with_ymd_and_hms(2026, 3, 2, 10, 0, 0).unwrap();
//! let all = cases(&SeasonalConfig { n: 3, anchor, ..SeasonalConfig::default() });
//! let c = &all[0];
//! let days = (c.crosses_at - anchor).num_hours() as f64 / 24.0;
//! assert!((10.0..=120.0).contains(&days.round()));
//! assert!(c.first_breach_at.unwrap() >= c.crosses_at);
//! ```

use chrono::{DateTime, TimeDelta, Utc};

use super::rng::{hash, normal, SplitMix64};
use crate::{Measurements, Series};

/// What to generate.
#[derive(Debug, Clone)]
pub struct SeasonalConfig {
    /// Seed of the parameters and the noise.
    pub seed: u64,
    /// Number of cases (hosts).
    pub n: usize,
    /// The instant the truths are relative to (a test's `now`).
    pub anchor: DateTime<Utc>,
    /// The measurement (`CONNECTIONS`): its name and units in the frame.
    pub metric: &'static str,
    /// Its units.
    pub units: &'static str,
    /// The limit every case heads for.
    pub limit: f64,
    /// The days of history the series will be asked for (the trend stays above zero there).
    pub history_days: u32,
}

impl Default for SeasonalConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            n: 200,
            anchor: DateTime::UNIX_EPOCH,
            metric: "CONNECTIONS",
            units: "SCALAR",
            limit: 5000.0,
            history_days: 63,
        }
    }
}

/// One seeded case: its parameters (the truths) and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct SeasonalCase {
    /// Its place in the set (its noise stream).
    pub index: usize,
    /// Project (`seasonal` cases share one).
    pub group_id: String,
    /// Host id (24 hex digits).
    pub host_id: String,
    /// `hostname`.
    pub hostname: String,
    /// The measurement.
    pub metric: &'static str,
    /// Its units.
    pub units: &'static str,
    /// The trend at the anchor: the load of a night, without the daily cycle.
    pub level: f64,
    /// The trend's change per day (the same for the peaks: the cycles are added to it).
    pub per_day: f64,
    /// The height of the business-hours plateau (09:00 to 18:00 UTC, ramps from 07:00 and
    /// to 21:00) on a working day.
    pub daily: f64,
    /// The share of the plateau left on Saturdays and Sundays.
    pub weekend: f64,
    /// How much higher Monday's plateau is, as a share (0: no busier Monday).
    pub monday: f64,
    /// Standard deviation of a day's own level (the whole day moves with it): 1/4 to 1/40 of
    /// what the trend gains in 14 days.
    pub day_noise: f64,
    /// Standard deviation of each point's jitter.
    pub point_noise: f64,
    /// The limit.
    pub limit: f64,
    /// The trend of the peaks at the anchor: `level + daily · (1 + monday)`.
    pub peak_at_anchor: f64,
    /// When the trend of the peaks reaches the limit.
    pub crosses_at: DateTime<Utc>,
    /// When the series without noise first reaches it (on the hour; `None` past 3 years).
    pub first_breach_at: Option<DateTime<Utc>>,
    /// The reference instant.
    pub anchor: DateTime<Utc>,
    seed: u64,
}

const DAY: f64 = 86_400.0;

/// The business-hours plateau at `t` (unix seconds) in [0, 1]: 0 before 07:00 and after
/// 21:00 UTC, 1 from 09:00 to 18:00, linear between.
fn plateau(t: i64) -> f64 {
    let h = t.rem_euclid(86_400) as f64 / 3600.0;
    ((h - 7.0) / 2.0).min((21.0 - h) / 3.0).clamp(0.0, 1.0)
}

impl SeasonalCase {
    /// The series without noise at `t` (unix seconds).
    pub fn clean(&self, t: i64) -> f64 {
        let days = (t - self.anchor.timestamp()) as f64 / DAY;
        let dow = (t.div_euclid(86_400) + 3).rem_euclid(7); // 0 = Monday
        let week = match dow {
            0 => 1.0 + self.monday,
            5 | 6 => self.weekend,
            _ => 1.0,
        };
        self.level + self.per_day * days + self.daily * plateau(t) * week
    }

    /// The served value at `t`: the series, the day's own level and the point's jitter,
    /// rounded to a whole number (it counts connections).
    pub fn value(&self, t: i64) -> f64 {
        let i = self.index as u64;
        let day = t.div_euclid(86_400) as u64;
        let d = normal(hash(&[self.seed, i, 0x0064_6179, day]));
        let p = normal(hash(&[self.seed, i, 0x0070_6f69_6e74, t as u64]));
        (self.clean(t) + self.day_noise * d + self.point_noise * p)
            .max(0.0)
            .round()
    }

    /// Its measurements from `start` to `end` (unix seconds, both on the grid of `step`).
    pub fn measurements(&self, start: i64, end: i64, step: i64) -> Measurements {
        let stamps = grid(start, end, step);
        let values = stamps.iter().map(|&t| Some(self.value(t))).collect();
        let millis = stamps.iter().map(|&t| t * 1000).collect();
        Measurements {
            group_id: Some(self.group_id.clone()),
            host_id: Some(self.host_id.clone()),
            process_id: Some(format!("{}:27017", self.hostname)),
            series: vec![Series::new(self.metric, Some(self.units), millis, values)],
            ..Measurements::default()
        }
    }
}

/// The cases of `config`: the trend of each one's peaks reaches the limit 10 to 120 days after
/// the anchor, and was 30 to 80 % of today's `history_days` before it (so that no series goes
/// below zero there); the plateau is 10 to 60 % of the peak, weekends keep 20 to 90 % of it,
/// half the cases have a Monday 5 to 20 % busier; a day's level varies (standard deviation)
/// by a 4th to a 40th of what the trend gains in two weeks (log-uniform: a trend two weeks
/// can tell from the noise, some barely), and each point by a fifth of that.
pub fn cases(config: &SeasonalConfig) -> Vec<SeasonalCase> {
    let mut r = SplitMix64::new(hash(&[config.seed, 0x7365_6173_6f6e]));
    let anchor = config.anchor;
    let group_id = format!("{:024x}", hash(&[config.seed, 0x0067_726f_7570]) as u128);
    let history = f64::from(config.history_days.max(1));
    (0..config.n)
        .map(|index| {
            let host_id = format!("{:08x}{:016x}", 0x5ea5_0000u32 + index as u32, r.next_u64());
            let mut between = |lo: f64, hi: f64| lo + (hi - lo) * r.f64();
            let limit = config.limit;
            let days = between(10.0, 120.0);
            let share = between(0.10, 0.60);
            // The peaks' trend `history` days ago, as a share of today's: above the plateau's
            // share, so that the nights' load stays above zero.
            let then = between((share + 0.2).max(0.3), 0.8);
            let peak_at_anchor = limit / (1.0 + days * (1.0 - then) / history);
            let per_day = (limit - peak_at_anchor) / days;
            let weekend = between(0.20, 0.90);
            let monday = if between(0.0, 1.0) < 0.5 {
                between(0.05, 0.20)
            } else {
                0.0
            };
            let daily = peak_at_anchor * share / (1.0 + monday);
            let level = peak_at_anchor - daily * (1.0 + monday);
            let snr = (4f64.ln() + between(0.0, 1.0) * 10f64.ln()).exp();
            let day_noise = per_day * 14.0 / snr;
            let mut case = SeasonalCase {
                index,
                group_id: group_id.clone(),
                host_id,
                hostname: format!("seasonal-{index:03}.example.net"),
                metric: config.metric,
                units: config.units,
                level,
                per_day,
                daily,
                weekend,
                monday,
                day_noise,
                point_noise: day_noise / 5.0,
                limit,
                peak_at_anchor,
                crosses_at: anchor + TimeDelta::milliseconds((days * 86_400_000.0).round() as i64),
                first_breach_at: None,
                anchor,
                seed: config.seed,
            };
            let start = anchor.timestamp().div_euclid(3600) * 3600;
            case.first_breach_at = (0..3 * 365 * 24)
                .map(|k| start + k * 3600)
                .find(|&t| case.clean(t) >= limit)
                .and_then(|t| DateTime::from_timestamp(t, 0));
            case
        })
        .collect()
}

/// The instants of the grid of `step` from `start` (rounded down to it) to `end`, in unix
/// seconds: where a simulated series has its points.
pub(super) fn grid(start: i64, end: i64, step: i64) -> Vec<i64> {
    let first = start.div_euclid(step) * step;
    (0..)
        .map(|k| first + k * step)
        .take_while(|&t| t <= end)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn set(n: usize) -> Vec<SeasonalCase> {
        let anchor = Utc.with_ymd_and_hms(2026, 3, 2, 10, 0, 0).unwrap();
        cases(&SeasonalConfig {
            n,
            anchor,
            ..SeasonalConfig::default()
        })
    }

    #[test]
    fn the_peak_trend_reaches_the_limit_when_the_truth_says() {
        for c in set(50) {
            let days = (c.crosses_at - c.anchor).num_milliseconds() as f64 / 86_400_000.0;
            let at = c.peak_at_anchor + c.per_day * days;
            assert!((at - c.limit).abs() < 1e-6 * c.limit, "{c:?}");
            // The first breach is on a peak day's plateau at or after it, within a week (and
            // an hour of the grid).
            let breach = c.first_breach_at.unwrap();
            assert!(breach >= c.crosses_at - TimeDelta::hours(1), "{c:?}");
            assert!(breach <= c.crosses_at + TimeDelta::days(7), "{c:?}");
            assert!(c.clean(breach.timestamp()) >= c.limit);
            // Over the history, nights stay above a fifth of today's peak.
            let start = c.anchor.timestamp() - 63 * 86_400;
            assert!(c.clean(start - start.rem_euclid(86_400)) >= 0.2 * c.peak_at_anchor);
        }
    }

    #[test]
    fn same_seed_same_series_and_the_noise_is_what_the_truth_says() {
        let (a, b) = (set(20), set(20));
        assert_eq!(a, b);
        let c = &a[3];
        let start = c.anchor.timestamp() - 28 * 86_400;
        let m = c.measurements(start, c.anchor.timestamp(), 3600);
        assert_eq!(m.series[0].len(), 28 * 24 + 1);
        assert_eq!(
            m.series[0].values,
            c.measurements(start, c.anchor.timestamp(), 3600).series[0].values
        );
        // Night points (no plateau) of weekdays: their spread around the trend is the day's
        // noise and the point's together, sqrt(1 + 1/25) of the day's.
        let resid: Vec<f64> = (0..28 * 24)
            .map(|k| start + k * 3600)
            .map(|t| c.value(t) - c.clean(t))
            .collect();
        let n = resid.len() as f64;
        let mean = resid.iter().sum::<f64>() / n;
        let sd = (resid.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n).sqrt();
        let want = c.day_noise * (1.0f64 + 1.0 / 25.0).sqrt();
        // behaviour: 28 days' levels give the spread within a factor of 2.
        assert!(sd > want / 2.0 && sd < want * 2.0, "sd {sd} want {want}");
    }
}
