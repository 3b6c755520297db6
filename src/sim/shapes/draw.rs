//! Each family's spread of parameters: growth rates, capacities, noise, horizons, changes.
//!
//! Every family heads for its limit: the trend of its peaks gets there 7 to 150 days after the
//! anchor (log-uniform), from 15 to 80 % of the way `history` days before (so that every case
//! is seen moving, some barely). A draw whose series would leave its range over the history
//! (a disk past 90 % or near empty, a load below zero) is drawn again, from the same stream.

use super::{between, heading, log_between, wave, Family, Shape, GIB};
use crate::sim::rng::SplitMix64;

/// What a draw gives [`super::cases`]: the shape without its day noise, and the rest.
pub(super) struct Params {
    pub(super) shape: Shape,
    pub(super) day_sd: f64,
    pub(super) rho: f64,
    pub(super) metric: &'static str,
    pub(super) limit: f64,
    pub(super) worse: i8,
    /// The change's day (negative: before the anchor).
    pub(super) changed: Option<f64>,
}

fn plain(x_now: f64, per_day: f64) -> Shape {
    Shape {
        x_now,
        per_day,
        before: None,
        step: None,
        daily: 0.0,
        weekend: 1.0,
        monday: 0.0,
        wave: Vec::new(),
        saw: None,
        storms: Vec::new(),
        day0: 0,
        day_noise: Vec::new(),
        point_noise: 0.0,
        capacity: 0.0,
        resized: None,
    }
}

pub(super) fn params(family: Family, r: &mut SplitMix64, history: f64, anchor: i64) -> Params {
    match family.resource() {
        "disk" => disk(family, r, history),
        "oplog_window" => oplog(r, history),
        _ => load(family, r, history, anchor),
    }
}

/// Disk space: capacity 50 GiB to 4 TiB (log-uniform), the limit 90 % of it. The day's noise
/// (lag-1 correlated across days) is a 10th to an 80th of two weeks' growth (steady), a 2nd to
/// a 10th (noisy), an 8th to a 60th (the others); each point's a quarter of that. Of the
/// growth, 0 to 90 % is written on working hours.
fn disk(family: Family, r: &mut SplitMix64, history: f64) -> Params {
    loop {
        let cap = log_between(r, 50.0, 4000.0) * GIB;
        let days_to = log_between(r, 7.0, 150.0);
        let then = between(r, 0.15, 0.8);
        let (u_now, g) = heading(0.9 * cap, days_to, then, history);
        let (snr_lo, snr_hi, rho_hi) = match family {
            Family::DiskSteady => (10.0, 80.0, 0.3),
            Family::DiskNoisy => (2.0, 10.0, 0.6),
            _ => (8.0, 60.0, 0.3),
        };
        let day_sd = g * 14.0 / log_between(r, snr_lo, snr_hi);
        let rho = between(r, 0.0, rho_hi);
        let share = between(r, 0.0, 0.9);
        let weekend = between(r, 0.1, 0.9);
        let mut shape = Shape {
            wave: wave(share, weekend),
            point_noise: day_sd / 4.0,
            capacity: cap,
            ..plain(u_now, g)
        };
        let mut changed = None;
        match family {
            // Compaction every 2 to 7 days gives back 0.5 to 3 times the net growth between
            // two of them.
            Family::DiskSawtooth => {
                let period = between(r, 2.0, 7.0);
                let drop = between(r, 0.5, 3.0) * g * period;
                shape.saw = Some((period, drop, between(r, 0.0, period)));
            }
            Family::DiskBend => {
                let at = -between(r, 5.0, 40.0);
                let ratio = log_between(r, 1.5, 4.0);
                let ratio = if r.chance(0.5) { ratio } else { 1.0 / ratio };
                shape.before = Some((at, g / ratio));
                changed = Some(at);
            }
            // A bulk load (7 in 10) or a delete of 5 to 40 days' growth.
            Family::DiskStep => {
                let at = -between(r, 3.0, 40.0);
                let jump = between(r, 5.0, 40.0) * g;
                shape.step = Some((at, if r.chance(0.7) { jump } else { -jump }));
                changed = Some(at);
            }
            // A bigger disk (8 in 10: 1.25 to 2.5 times) or a smaller one; half the time the
            // resync gave back 2 to 15 % of the data; growth 0.7 to 1.4 times what it was.
            Family::DiskResize => {
                let at = -between(r, 5.0, 40.0);
                let m = if r.chance(0.8) {
                    between(r, 1.25, 2.5)
                } else {
                    between(r, 0.55, 0.8)
                };
                let drop = if r.chance(0.5) {
                    between(r, 0.02, 0.15) * shape.trend(at)
                } else {
                    0.0
                };
                shape.before = Some((at, g * between(r, 0.7, 1.4)));
                shape.step = Some((at, -drop));
                shape.resized = Some((at, cap / m));
                changed = Some(at);
            }
            _ => {}
        }
        let saw = shape.saw.map_or(0.0, |s| s.1 / 2.0);
        let margin = saw + 3.0 * day_sd + 2.0 * g;
        let fits = (0..=history as i64).all(|k| {
            let d = -(k as f64);
            let (v, c) = (shape.trend(d), shape.capacity(d));
            v - margin > 0.02 * c && v + margin < 0.9 * c
        });
        if fits {
            return Params {
                shape,
                day_sd,
                rho,
                metric: "DISK_PARTITION_SPACE_USED",
                limit: 0.9 * cap,
                worse: 1,
                changed,
            };
        }
    }
}

/// Connections, dirty cache, CPU and tickets in use: a business-hours plateau of 10 to 60 % of
/// the peak, weekends keeping 20 to 90 % of it, half the cases a Monday 5 to 20 % busier (the
/// seasonal cases' week); a day's noise a 4th to a 40th of two weeks' growth, correlated
/// across days for cache, CPU and tickets, and each point's a fifth of it (tickets: as much).
fn load(family: Family, r: &mut SplitMix64, history: f64, anchor: i64) -> Params {
    let (metric, limit, worse, toward, rho_hi, point) = match family.resource() {
        "cache" => ("DIRTY_FILL_RATIO", 20.0, 1, 20.0, 0.4, 0.2),
        "cpu" => ("SYSTEM_NORMALIZED_CPU_USER", 90.0, 1, 90.0, 0.4, 0.2),
        // Available tickets (lower is worse) are 128 less those in use: toward 112 in use.
        "tickets" => ("TICKETS_AVAILABLE_READS", 16.0, -1, 112.0, 0.4, 1.0),
        _ => ("CONNECTIONS", 5000.0, 1, 5000.0, 0.0, 0.2),
    };
    loop {
        let days_to = log_between(r, 7.0, 150.0);
        let share = between(r, 0.1, 0.6);
        let then = between(r, (share + 0.2).max(0.3), 0.8);
        let (peak, g) = heading(toward, days_to, then, history);
        let weekend = between(r, 0.2, 0.9);
        let monday = if r.chance(0.5) {
            between(r, 0.05, 0.2)
        } else {
            0.0
        };
        let daily = peak * share / (1.0 + monday);
        let day_sd = g * 14.0 / log_between(r, 4.0, 40.0);
        let rho = between(r, 0.0, rho_hi);
        let mut shape = Shape {
            daily,
            weekend,
            monday,
            point_noise: day_sd * point,
            ..plain(peak - daily * (1.0 + monday), g)
        };
        let mut changed = None;
        match family {
            // Storms about once a month (a Poisson process, the history's and the future's
            // alike): 2 to 8 hours, 15 to 50 % of the peak above the day.
            Family::ConnectionsStorm => {
                let mut t = anchor - ((history + 1.0) * super::DAY) as i64;
                loop {
                    t += (-(1.0 - r.f64()).ln() * 30.0 * super::DAY) as i64;
                    if t > anchor + super::FORWARD_HOURS * 3600 {
                        break;
                    }
                    let hours = between(r, 2.0, 8.0);
                    let height = between(r, 0.15, 0.5) * peak;
                    shape.storms.push((t, t + (hours * 3600.0) as i64, height));
                }
            }
            // The pool resized: a step up (7 in 10) or down of 10 to 35 % of the peak.
            Family::ConnectionsPoolStep => {
                let at = -between(r, 3.0, 40.0);
                let jump = between(r, 0.1, 0.35) * peak;
                shape.step = Some((at, if r.chance(0.7) { jump } else { -jump }));
                changed = Some(at);
            }
            _ => {}
        }
        let fits = (0..=history as i64).all(|k| {
            let v = shape.trend(-(k as f64));
            v - 3.0 * day_sd > 0.05 * peak && v + daily * (1.0 + monday) + 2.0 * day_sd < toward
        });
        if fits {
            return Params {
                shape,
                day_sd,
                rho,
                metric,
                limit,
                worse,
                changed,
            };
        }
    }
}

/// The oplog window (hours; its shape is toward the limit, minus hours): 1.5 to 6 times the
/// 24 h target `history` days ago, shorter by 5 to 30 % on busy hours, noise as the loads'.
fn oplog(r: &mut SplitMix64, history: f64) -> Params {
    let days_to = log_between(r, 7.0, 150.0);
    let w_then = 24.0 * between(r, 1.5, 6.0);
    let g = (w_then - 24.0) / (days_to + history);
    let w_now = 24.0 + g * days_to;
    let weekend = between(r, 0.2, 0.9);
    let monday = if r.chance(0.5) {
        between(r, 0.05, 0.2)
    } else {
        0.0
    };
    let daily = between(r, 0.05, 0.3) * w_now / (1.0 + monday);
    let day_sd = g * 14.0 / log_between(r, 4.0, 40.0);
    Params {
        shape: Shape {
            daily,
            weekend,
            monday,
            point_noise: day_sd / 5.0,
            ..plain(-w_now - daily * (1.0 + monday), g)
        },
        day_sd,
        rho: 0.0,
        metric: "OPLOG_MASTER_TIME",
        limit: 24.0,
        worse: -1,
        changed: None,
    }
}
