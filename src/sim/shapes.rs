//! Series shaped like real ones, each with the truth a person sees (issue 37): what a
//! days-to-limit forecast and its range must keep their word on.
//!
//! A [`Family`] is one shape that real fleets have and that `opsapi.capacity`'s method does not
//! assume: disks that grow with a weekly rhythm (small noise, or several times larger), disks
//! with compaction drops (a sawtooth), a bend in the growth, a one-off bulk load or delete, a
//! disk resized mid-history; connections with a weekly peak, a storm, a pool resized; the
//! oplog window, the dirty cache, CPU and tickets as `capacity.headroom` reads them. Each
//! family is seeded over a spread of growth rates, capacities, noise levels and horizons.
//!
//! The truth of a case is the first instant after the anchor at which **the served series
//! itself** reaches its limit ([`ShapeCase::first_breach_at`]): the same generating process run
//! forward, hour by hour, up to three years. Not a fitted line, not the trend: a disk with
//! compaction drops fills at the top of a tooth, a weekly load at its busiest hour, a storm may
//! get there first.
//!
//! Every value is a pure function of (seed, family, case, timestamp), as every other series of
//! the simulator; nothing here is served over HTTP: tests build frames from it in-process
//! (`opsapi.testing.forecast_cases`), hundreds of cases in milliseconds.
//!
//! ```
//! use chrono::{TimeZone, Utc};
//! use opsapi::sim::shapes::{cases, Family, ShapesConfig};
//!
//! let anchor = Utc.with_ymd_and_hms(2026, 3, 2, 10, 0, 0).unwrap();
//! let config = ShapesConfig { family: Family::DiskSawtooth, n: 3, anchor, ..ShapesConfig::default() };
//! let all = cases(&config);
//! let breach = all[0].first_breach_at.unwrap();
//! assert!(breach > anchor);
//! // The series itself reaches the limit then, and not an hour before.
//! let t = breach.timestamp();
//! assert!(all[0].toward_limit(t) >= 0.0 && all[0].toward_limit(t - 3600) < 0.0);
//! ```

use chrono::{DateTime, TimeDelta, Utc};

use super::rng::{hash, normal, SplitMix64};
use crate::{Measurements, Series};

const DAY: f64 = 86_400.0;
const GIB: f64 = 1_073_741_824.0;
/// How far forward the truth is looked for: three years, hour by hour.
const FORWARD_HOURS: i64 = 3 * 365 * 24;

/// A shape of series real fleets have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// Disk space growing steadily, faster on working hours (a weekly rhythm), small noise.
    DiskSteady,
    /// The same with noise several times larger (and some of it lasting a few days).
    DiskNoisy,
    /// Growth with a drop every 2 to 7 days (compaction, a purge job): a sawtooth, net upward.
    DiskSawtooth,
    /// Growth that sped up or slowed (1.5 to 4 times) 5 to 40 days ago, and stays so.
    DiskBend,
    /// A one-off bulk load (or a large delete) 3 to 40 days ago, the old growth after it.
    DiskStep,
    /// A disk resized or moved to another tier 5 to 40 days ago: another capacity, the data
    /// resynced (a little smaller) and growing at a somewhat different rate since.
    DiskResize,
    /// Connections with a business-hours plateau, quiet weekends, in half the cases a busier
    /// Monday (the seasonal cases' shape).
    ConnectionsWeekly,
    /// The same with connection storms: a few hours far above the day's peak, about once a
    /// month.
    ConnectionsStorm,
    /// The same with the connection pool resized 3 to 40 days ago: a step up or down.
    ConnectionsPoolStep,
    /// The oplog window (hours, lower is worse) shrinking toward 24 h, shorter on busy hours.
    OplogWindow,
    /// Dirty bytes in the WiredTiger cache (% of it) climbing toward the 20 % trigger.
    Cache,
    /// Normalized CPU (%) climbing toward 90 %.
    Cpu,
    /// Available read tickets (lower is worse) falling toward 16, spiky.
    Tickets,
}

impl Family {
    /// Every family, in the order the tests report them.
    pub const ALL: [Family; 13] = [
        Family::DiskSteady,
        Family::DiskNoisy,
        Family::DiskSawtooth,
        Family::DiskBend,
        Family::DiskStep,
        Family::DiskResize,
        Family::ConnectionsWeekly,
        Family::ConnectionsStorm,
        Family::ConnectionsPoolStep,
        Family::OplogWindow,
        Family::Cache,
        Family::Cpu,
        Family::Tickets,
    ];

    /// Its name (`disk_steady`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Family::DiskSteady => "disk_steady",
            Family::DiskNoisy => "disk_noisy",
            Family::DiskSawtooth => "disk_sawtooth",
            Family::DiskBend => "disk_bend",
            Family::DiskStep => "disk_step",
            Family::DiskResize => "disk_resize",
            Family::ConnectionsWeekly => "connections_weekly",
            Family::ConnectionsStorm => "connections_storm",
            Family::ConnectionsPoolStep => "connections_pool_step",
            Family::OplogWindow => "oplog_window",
            Family::Cache => "cache",
            Family::Cpu => "cpu",
            Family::Tickets => "tickets",
        }
    }

    /// The family of a name, if it is one.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The `resource` of `opsapi.capacity.headroom` its series is.
    pub fn resource(self) -> &'static str {
        match self {
            Family::ConnectionsWeekly | Family::ConnectionsStorm | Family::ConnectionsPoolStep => {
                "connections"
            }
            Family::OplogWindow => "oplog_window",
            Family::Cache => "cache",
            Family::Cpu => "cpu",
            Family::Tickets => "tickets",
            _ => "disk",
        }
    }

    /// What changed in its history, as `fit_reason` names it (`None`: nothing did).
    pub fn change(self) -> Option<&'static str> {
        match self {
            Family::DiskBend => Some("slope_change"),
            Family::DiskStep | Family::ConnectionsPoolStep => Some("level_shift"),
            Family::DiskResize => Some("capacity_change"),
            _ => None,
        }
    }

    fn code(self) -> u64 {
        Family::ALL.iter().position(|f| *f == self).unwrap_or(0) as u64
    }
}

/// What to generate.
#[derive(Debug, Clone)]
pub struct ShapesConfig {
    /// Seed of the parameters and the noise.
    pub seed: u64,
    /// Number of cases (hosts).
    pub n: usize,
    /// Their shape.
    pub family: Family,
    /// The instant the truths are relative to (a test's `now`).
    pub anchor: DateTime<Utc>,
    /// The days of history the series will be asked for (every change is inside them, and the
    /// series stays in its range there).
    pub history_days: u32,
}

impl Default for ShapesConfig {
    fn default() -> Self {
        Self {
            seed: 0,
            n: 200,
            family: Family::DiskSteady,
            anchor: DateTime::UNIX_EPOCH,
            history_days: 63,
        }
    }
}

/// The generating process of one case, in units toward its limit (used bytes; connections;
/// minus hours of oplog; percent; tickets in use).
#[derive(Debug, Clone, PartialEq)]
struct Shape {
    /// The trend at the anchor (a night's value, without the daily cycle) and per day now.
    x_now: f64,
    per_day: f64,
    /// Days (negative: before the anchor) and the trend per day before a bend.
    before: Option<(f64, f64)>,
    /// Days and the jump of a step (the value before it was `jump` lower).
    step: Option<(f64, f64)>,
    /// The business-hours plateau's height, the share of it left at weekends, how much busier
    /// Mondays are.
    daily: f64,
    weekend: f64,
    monday: f64,
    /// Disks: the growth of each hour of the week, integrated, over the mean (days): written
    /// on working hours, the used space climbs in steps of a day and pauses at weekends.
    wave: Vec<f64>,
    /// Period (days), drop and phase (days) of a sawtooth.
    saw: Option<(f64, f64, f64)>,
    /// Storms: from, to (unix seconds) and height.
    storms: Vec<(i64, i64, f64)>,
    /// The noise of each calendar day (from `day0`) and of each point.
    day0: i64,
    day_noise: Vec<f64>,
    point_noise: f64,
    /// Disks: capacity now, and before the resize (at `before`'s day... or `resized_at`).
    capacity: f64,
    resized: Option<(f64, f64)>,
}

/// The business-hours plateau at `t` (unix seconds) in [0, 1]: 0 before 07:00 and after
/// 21:00 UTC, 1 from 09:00 to 18:00, linear between (the seasonal cases' plateau).
fn plateau(t: i64) -> f64 {
    let h = t.rem_euclid(86_400) as f64 / 3600.0;
    ((h - 7.0) / 2.0).min((21.0 - h) / 3.0).clamp(0.0, 1.0)
}

/// 0 = Monday.
fn weekday(t: i64) -> i64 {
    (t.div_euclid(86_400) + 3).rem_euclid(7)
}

impl Shape {
    fn week(&self, t: i64) -> f64 {
        match weekday(t) {
            0 => 1.0 + self.monday,
            5 | 6 => self.weekend,
            _ => 1.0,
        }
    }

    fn trend(&self, d: f64) -> f64 {
        let mut v = match self.before {
            Some((at, g0)) if d < at => self.x_now + self.per_day * at + g0 * (d - at),
            _ => self.x_now + self.per_day * d,
        };
        if let Some((at, jump)) = self.step {
            if d < at {
                v -= jump;
            }
        }
        v
    }

    fn capacity(&self, d: f64) -> f64 {
        match self.resized {
            Some((at, before)) if d < at => before,
            _ => self.capacity,
        }
    }

    /// The value at `t`, toward the limit, before its units and rounding.
    fn x(&self, seed: u64, index: u64, anchor: i64, t: i64) -> f64 {
        let d = (t - anchor) as f64 / DAY;
        let mut v = self.trend(d) + self.daily * plateau(t) * self.week(t);
        if !self.wave.is_empty() {
            // The hour of the week (from Monday 00:00 UTC), interpolated.
            let pos = (t - (t.div_euclid(86_400) - weekday(t)) * 86_400) as f64 / 3600.0;
            let i = pos.floor() as usize % 168;
            let f = pos - pos.floor();
            let w = self.wave[i] * (1.0 - f) + self.wave[(i + 1) % 168] * f;
            let g = match self.before {
                Some((at, g0)) if d < at => g0,
                _ => self.per_day,
            };
            v += g * w;
        }
        if let Some((period, drop, phase)) = self.saw {
            let u = (d - phase) / period;
            v += drop * (u - u.floor() - 0.5);
        }
        v += self
            .storms
            .iter()
            .filter(|(a, b, _)| (*a..*b).contains(&t))
            .map(|s| s.2)
            .sum::<f64>();
        let day = (t.div_euclid(86_400) - self.day0).clamp(0, self.day_noise.len() as i64 - 1);
        v + self.day_noise[day as usize]
            + self.point_noise * normal(hash(&[seed, index, 0x7074, t as u64]))
    }
}

/// One seeded case: its shape, its truth and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeCase {
    /// Its place in the set.
    pub index: usize,
    /// Its family.
    pub family: Family,
    /// Project (the cases of a set share one).
    pub group_id: String,
    /// Host id (24 hex digits).
    pub host_id: String,
    /// `hostname`.
    pub hostname: String,
    /// The measurement its resource is read from (`DISK_PARTITION_SPACE_USED`, `CONNECTIONS`,
    /// `OPLOG_MASTER_TIME`, `DIRTY_FILL_RATIO`, `SYSTEM_NORMALIZED_CPU_USER`,
    /// `TICKETS_AVAILABLE_READS`).
    pub metric: &'static str,
    /// The limit in the measurement's units: disks, 90 % of the capacity now (bytes);
    /// connections 5 000; the oplog window 24 h; dirty cache 20 %; CPU 90 %; tickets 16.
    pub limit: f64,
    /// +1: higher is worse; -1: lower is worse (the oplog window, tickets).
    pub worse: i8,
    /// Disks: the capacity now, and before the resize (bytes).
    pub capacity_bytes: Option<f64>,
    /// Disks resized: the capacity before.
    pub capacity_before_bytes: Option<f64>,
    /// The trend's change per day now, in the measurement's units.
    pub per_day: f64,
    /// When the change of its family happened (a bend, a step, a resize).
    pub changed_at: Option<DateTime<Utc>>,
    /// The first instant after the anchor, on the hour, at which the series itself reaches the
    /// limit (`None`: not within three years).
    pub first_breach_at: Option<DateTime<Utc>>,
    /// The reference instant.
    pub anchor: DateTime<Utc>,
    seed: u64,
    shape: Shape,
}

impl ShapeCase {
    /// The measurement's units.
    pub fn units(&self) -> &'static str {
        match self.family.resource() {
            "disk" => "BYTES",
            "oplog_window" => "HOURS",
            "cache" | "cpu" => "PERCENT",
            _ => "SCALAR",
        }
    }

    fn x(&self, t: i64) -> f64 {
        self.shape
            .x(self.seed, self.index as u64, self.anchor.timestamp(), t)
    }

    /// The served values at `t` (unix seconds), by measurement: what the frame holds.
    pub fn values(&self, t: i64) -> Vec<(&'static str, f64)> {
        let x = self.x(t);
        let d = (t - self.anchor.timestamp()) as f64 / DAY;
        let round2 = |v: f64| (v * 100.0).round() / 100.0;
        match self.family.resource() {
            "disk" => {
                let cap = self.shape.capacity(d);
                let used = x.clamp(0.0, cap).round();
                vec![
                    ("DISK_PARTITION_SPACE_USED", used),
                    ("DISK_PARTITION_SPACE_FREE", cap.round() - used),
                ]
            }
            "oplog_window" => vec![(self.metric, round2((-x).max(0.01)))],
            "cache" | "cpu" => vec![(self.metric, round2(x.clamp(0.0, 100.0)))],
            "tickets" => vec![
                (self.metric, (128.0 - x).clamp(0.0, 128.0).round()),
                (
                    "TICKETS_AVAILABLE_WRITE",
                    (128.0 - x / 3.0).clamp(0.0, 128.0).round(),
                ),
            ],
            _ => vec![(self.metric, x.max(0.0).round())],
        }
    }

    /// How far past its limit the served series is at `t`, toward the limit (>= 0: reached).
    pub fn toward_limit(&self, t: i64) -> f64 {
        let v = self.values(t)[0].1;
        if self.family.resource() == "disk" {
            // 90 % of the capacity of that moment (after the anchor: the capacity now).
            let d = (t - self.anchor.timestamp()) as f64 / DAY;
            return v - 0.9 * self.shape.capacity(d);
        }
        f64::from(self.worse) * (v - self.limit)
    }

    /// Its measurements from `start` to `end` (unix seconds, both on the grid of `step`).
    pub fn measurements(&self, start: i64, end: i64, step: i64) -> Measurements {
        let stamps = super::seasonal::grid(start, end, step);
        let rows: Vec<Vec<(&'static str, f64)>> = stamps.iter().map(|&t| self.values(t)).collect();
        let millis: Vec<i64> = stamps.iter().map(|&t| t * 1000).collect();
        let names: Vec<&'static str> = rows
            .first()
            .map_or(Vec::new(), |r| r.iter().map(|v| v.0).collect());
        let series = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let values = rows.iter().map(|r| Some(r[i].1)).collect();
                Series::new(*name, Some(self.units()), millis.clone(), values)
            })
            .collect();
        let disk = self.family.resource() == "disk";
        Measurements {
            group_id: Some(self.group_id.clone()),
            host_id: Some(self.host_id.clone()),
            process_id: Some(format!("{}:27017", self.hostname)),
            partition_name: disk.then(|| "data".to_string()),
            series,
            ..Measurements::default()
        }
    }
}

/// A uniform draw in `[lo, hi)`, and a log-uniform one.
fn between(r: &mut SplitMix64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * r.f64()
}

fn log_between(r: &mut SplitMix64, lo: f64, hi: f64) -> f64 {
    between(r, lo.ln(), hi.ln()).exp()
}

/// The trend now and per day of a series whose peaks head for `limit`: reached `days_to`
/// days after the anchor, and `then` (a share of the limit) `history` days before it.
fn heading(limit: f64, days_to: f64, then: f64, history: f64) -> (f64, f64) {
    let now = limit / (1.0 + days_to * (1.0 - then) / history);
    (now, (limit - now) / days_to)
}

/// AR(1) day noise of standard deviation `sd` and lag-1 correlation `rho` over the calendar
/// days from `day0`, `n` of them.
fn day_noise(seed: u64, key: u64, day0: i64, n: usize, sd: f64, rho: f64) -> Vec<f64> {
    let mut e = 0.0;
    let k = (1.0 - rho * rho).sqrt();
    (0..n)
        .map(|i| {
            let z = normal(hash(&[seed, key, 0x6461_7973, (day0 + i as i64) as u64]));
            e = if i == 0 { z * sd } else { rho * e + k * sd * z };
            e
        })
        .collect()
}

/// Disks' weekly rhythm: of each hour's growth, `share` comes on business hours (weekends
/// keeping `weekend` of it), integrated over the week and centred (days of mean growth).
fn wave(share: f64, weekend: f64) -> Vec<f64> {
    let load: Vec<f64> = (0..168i64)
        .map(|h| {
            let t = (4 + h / 24) * 86_400 + (h % 24) * 3600; // 1970-01-05 was a Monday
            let w = if h / 24 >= 5 { weekend } else { 1.0 };
            plateau(t) * w
        })
        .collect();
    let mean = load.iter().sum::<f64>() / 168.0;
    let mut acc = 0.0;
    let mut out: Vec<f64> = load
        .iter()
        .map(|l| {
            let v = acc;
            acc += ((1.0 - share) + share * l / mean - 1.0) / 24.0;
            v
        })
        .collect();
    let centre = out.iter().sum::<f64>() / 168.0;
    out.iter_mut().for_each(|v| *v -= centre);
    out
}

mod draw;

/// The cases of `config` (see [`Family`] for each family's spread).
pub fn cases(config: &ShapesConfig) -> Vec<ShapeCase> {
    let family = config.family;
    let mut r = SplitMix64::new(hash(&[config.seed, 0x7368_6170_6573, family.code()]));
    let anchor = config.anchor;
    let a = anchor.timestamp();
    let group_id = format!(
        "{:024x}",
        hash(&[config.seed, 0x0067_726f_7570, family.code()]) as u128
    );
    let history = f64::from(config.history_days.max(7));
    let day0 = (a - (i64::from(config.history_days) + 2) * 86_400).div_euclid(86_400);
    let days = (((a + FORWARD_HOURS * 3600).div_euclid(86_400)) - day0 + 2) as usize;
    (0..config.n)
        .map(|index| {
            let key = hash(&[family.code(), index as u64]);
            let host_id = format!(
                "{:08x}{:016x}",
                0x5ea7_0000u32 + (family.code() as u32) * 0x1000 + index as u32,
                r.next_u64()
            );
            // A draw whose series reaches its limit in the history (its noise included) is
            // drawn again: every case starts short of its limit.
            let mut case = loop {
                let p = draw::params(family, &mut r, history, a);
                let shape = Shape {
                    day_noise: day_noise(config.seed, key, day0, days, p.day_sd, p.rho),
                    day0,
                    ..p.shape
                };
                let case = ShapeCase {
                    index,
                    family,
                    group_id: group_id.clone(),
                    host_id: host_id.clone(),
                    hostname: format!("{}-{index:03}.example.net", family.name().replace('_', "-")),
                    metric: p.metric,
                    limit: p.limit,
                    worse: p.worse,
                    capacity_bytes: (family.resource() == "disk").then_some(shape.capacity),
                    capacity_before_bytes: shape.resized.map(|r| r.1),
                    per_day: f64::from(p.worse) * shape.per_day,
                    changed_at: p.changed.map(|d| {
                        anchor + TimeDelta::milliseconds((d * DAY * 1000.0).round() as i64)
                    }),
                    first_breach_at: None,
                    anchor,
                    seed: config.seed,
                    shape,
                };
                let hours = i64::from(config.history_days) * 24;
                if (0..=hours).all(|k| case.toward_limit(a - k * 3600) < 0.0) {
                    break case;
                }
            };
            let start = a.div_euclid(3600) * 3600 + 3600;
            case.first_breach_at = (0..FORWARD_HOURS)
                .map(|k| start + k * 3600)
                .find(|&t| case.toward_limit(t) >= 0.0)
                .and_then(|t| DateTime::from_timestamp(t, 0));
            case
        })
        .collect()
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod coverage;
