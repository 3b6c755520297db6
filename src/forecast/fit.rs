//! The trend of a regime's daily peaks, the line of its daily maxima, and how wrong both may
//! be.
//!
//! The trend is the Theil–Sen slope of the peaks: over the pairs of the same weekday a week or
//! more apart where the regime has two weeks (a weekly cycle cancels out of each), else over
//! every pair. The line the limit is compared with goes through the days' maxima (`top`: what
//! reaches a limit first is the series itself, not a quantile of it) with that slope, at their
//! median; how far each day's maximum strays from it (a weekly peak, a sawtooth's tooth, a
//! storm, noise) is kept whole, as a distribution ([`Cdf`]), not summed up as one deviation.
//!
//! The line itself is uncertain: its slope by `σ · sqrt(κ · V / Sxx)` and its level by
//! `s · sqrt(κ · π / 2n)`, `σ` the peaks' noise once the trend and the weekly cycle are out,
//! `s` the maxima's spread, `V` Theil–Sen's efficiency (1.1, 1.5 over same-weekday pairs),
//! `κ = (1 + ρ) / (1 − ρ)` for days that stray together (`ρ` their lag-1 autocorrelation: a
//! sawtooth, a slow wave), and Student's t of `n / κ − 2` degrees of freedom for a regime's
//! few days.

use super::stats::{lag1, mad, median, normal_cdf, t_widening, theil_sen};
use super::Reason;

/// A tabulated distribution function of how far a day's maximum strays from its line: the
/// residuals smoothed by a normal kernel (Silverman's bandwidth), widened by `sqrt(n / (n −
/// 2))` for the two parameters fitted to them.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Cdf {
    lo: f64,
    step: f64,
    values: Vec<f64>,
}

const CDF_POINTS: usize = 200;

impl Cdf {
    /// The values smoothed by a normal kernel of width `bw`.
    fn smoothed(values: &[f64], bw: f64) -> Cdf {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let scale = sorted.iter().map(|v| v.abs()).fold(0.0, f64::max);
        let bw = bw.max(1e-9 * (scale + 1.0));
        let lo = sorted[0] - 6.0 * bw;
        let hi = sorted[sorted.len() - 1] + 6.0 * bw;
        let step = (hi - lo) / (CDF_POINTS - 1) as f64;
        let n = values.len() as f64;
        let values = (0..CDF_POINTS)
            .map(|i| {
                let v = lo + i as f64 * step;
                sorted.iter().map(|x| normal_cdf((v - x) / bw)).sum::<f64>() / n
            })
            .collect();
        Cdf { lo, step, values }
    }

    fn new(resid: &[f64]) -> Cdf {
        let resid = if resid.is_empty() { &[0.0][..] } else { resid };
        let n = resid.len() as f64;
        let widen = if n > 3.0 { (n / (n - 2.0)).sqrt() } else { 2.0 };
        let r: Vec<f64> = resid.iter().map(|v| v * widen).collect();
        let sd = {
            let m = r.iter().sum::<f64>() / n;
            (r.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n).sqrt()
        };
        let mut sorted = r.clone();
        sorted.sort_by(f64::total_cmp);
        let q = |p: f64| sorted[((p * (n - 1.0)).round() as usize).min(sorted.len() - 1)];
        let iqr = (q(0.75) - q(0.25)) / 1.349;
        let spread = if iqr > 0.0 { sd.min(iqr) } else { sd };
        let scale = sorted.iter().map(|v| v.abs()).fold(0.0, f64::max);
        let bw = (0.9 * spread * n.powf(-0.2)).max(1e-9 * (scale + 1.0));
        let lo = sorted[0] - 6.0 * bw;
        let hi = sorted[sorted.len() - 1] + 6.0 * bw;
        let step = (hi - lo) / (CDF_POINTS - 1) as f64;
        let values = (0..CDF_POINTS)
            .map(|i| {
                let v = lo + i as f64 * step;
                r.iter().map(|x| normal_cdf((v - x) / bw)).sum::<f64>() / n
            })
            .collect();
        Cdf { lo, step, values }
    }

    /// The probability that a day's maximum is below its line plus `v`.
    pub(super) fn at(&self, v: f64) -> f64 {
        let f = (v - self.lo) / self.step;
        if f.is_nan() || f <= 0.0 {
            return 0.0;
        }
        // Beyond the table (an infinite limit too): certainly below.
        if f >= (self.values.len() - 1) as f64 {
            return 1.0;
        }
        let i = f.floor() as usize;
        let w = f - i as f64;
        self.values[i] * (1.0 - w) + self.values[i + 1] * w
    }

    pub(super) fn range(&self) -> (f64, f64) {
        (
            self.lo,
            self.lo + self.step * (self.values.len() - 1) as f64,
        )
    }
}

/// The fit of a regime at an origin: what `opsapi.capacity` reports, and the forecast's
/// distribution (`passage.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Days before now of the forecast's origin (0: now).
    pub origin: u32,
    /// Days before now where the fit starts (the regime's start, or the history's).
    pub since: f64,
    /// Why it starts there.
    pub reason: Reason,
    /// Days in the fit.
    pub days: usize,
    /// After a change, fewer than [`super::MIN_REGIME_DAYS`] days: too little to forecast.
    pub short: bool,
    /// Whether it gives a date: enough days, a trend toward the limit beyond the noise.
    pub dated: bool,
    /// Trend of the peaks per day, toward the limit (0 with fewer than two days).
    pub trend: f64,
    /// The line of the days' maxima at the origin's last day.
    pub level: f64,
    /// The peaks' day-to-day noise (robust, the trend and weekly cycle out).
    pub sigma: f64,
    /// The maxima's robust spread around their line.
    pub spread: f64,
    /// Days between the first and the last of the fit.
    pub span: f64,
    /// Whether the trend was taken over same-weekday pairs.
    pub weekly: bool,
    /// How much of the maxima's variance the line explains (those within 3.5 spreads).
    pub r2: Option<f64>,
    /// Days whose maximum is further than 3.5 spreads from the line.
    pub outliers: usize,
    /// The line: intercept at the origin, and the days' mean position.
    pub(super) a: f64,
    pub(super) xbar: f64,
    /// Standard deviations of the line at `xbar` and of its slope, and Student's widening.
    pub(super) sd_c: f64,
    pub(super) sd_1: f64,
    pub(super) widen: f64,
    /// How far each weekday's maximum sits from the line (index 1 = Monday; zeros without a
    /// weekly cycle), the weekday of the first day after the origin, and the rest of the
    /// straying, whatever the weekday.
    pub(super) offset: [f64; 8],
    pub(super) next_weekday: u8,
    /// Whether the series climbs to each day's end (its maximum at the day's last hour on 4
    /// days in 5): then it is dated to the hour.
    pub(super) climbs: bool,
    pub(super) cdf: Cdf,
    /// How far the shocks strayed, the width each stands for, and the days they were seen in.
    pub(super) shocks: Vec<f64>,
    pub(super) shock_bw: f64,
    pub(super) shock_days: f64,
    /// The robust deviation of the days that were not shocks: what a shock's height is
    /// measured in when it is lent to, or borrowed from, other series.
    pub(super) shock_unit: f64,
    /// What like series' shocks say ([`Fit::borrow`]).
    pub(super) prior: Option<Shocks>,
}

/// The shocks of a group of like series: their rate per day and their heights, in robust
/// deviations of each series' ordinary days; what a series that has seen few may still meet.
///
/// ```
/// # use opsapi::forecast::{fit, Day, Settings, Shocks};
/// let calm: Vec<Day> = (0..60).map(|d| Day { day: d, weekday: 1 + (d % 7) as u8,
///     peak: 100.0 - 0.5 * f64::from(d) + f64::from(d % 3), top: 101.0 - 0.5 * f64::from(d) + f64::from(d % 3), top_at: 0.5 }).collect();
/// let mut stormy = calm.clone();
/// stormy[20].top += 60.0;
/// let s = Settings { window_days: 60, ..Settings::default() };
/// let (mut a, b) = (fit(&calm, &[], 0, &s).unwrap(), fit(&stormy, &[], 0, &s).unwrap());
/// let group = Shocks::of(&[&a, &b]);
/// assert!((group.rate - 1.0 / 120.0).abs() < 1e-9);
/// // A series that has had a storm of its own may meet one as large as its group's ...
/// let mut wild = calm.clone();
/// wild[10].top += 150.0;
/// wild[40].top += 150.0;
/// let wild = fit(&wild, &[], 0, &s).unwrap();
/// let mut b2 = b.clone();
/// let alone = b2.crossing(200.0, &[0.1], 1000)[0].unwrap();
/// b2.borrow(&Shocks::of(&[&b, &wild]));
/// assert!(b2.crossing(200.0, &[0.1], 1000)[0].unwrap() < alone);
/// // ... but a neighbour's storms say nothing of a calm series: a flat host beside a
/// // stormy one is not dated by the other's storms.
/// let calm_alone = a.crossing(160.0, &[0.1], 1000);
/// a.borrow(&group);
/// assert_eq!(a.crossing(160.0, &[0.1], 1000), calm_alone);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Shocks {
    /// Shocks per day, over every series' days.
    pub rate: f64,
    /// Their heights above each series' line, in robust deviations of its ordinary days.
    pub heights: Vec<f64>,
    /// The chance a shock goes beyond each share (their heights smoothed by half their mean),
    /// tabulated.
    beyond: Option<Cdf>,
}

/// How many days of a series the group's shocks weigh as: about one window's worth.
pub(super) const PRIOR_DAYS: f64 = 30.0;

impl Shocks {
    /// The shocks of `fits` (a group of like series).
    pub fn of(fits: &[&Fit]) -> Shocks {
        let days: f64 = fits.iter().map(|f| f.shock_days).sum();
        let heights: Vec<f64> = fits
            .iter()
            .filter(|f| f.scale() > 0.0)
            .flat_map(|f| f.shocks.iter().map(move |h| h / f.scale()))
            .collect();
        let beyond = (!heights.is_empty()).then(|| {
            let mean = heights.iter().sum::<f64>() / heights.len() as f64;
            Cdf::smoothed(&heights, 0.5 * mean)
        });
        Shocks {
            rate: if days > 0.0 {
                heights.len() as f64 / days
            } else {
                0.0
            },
            heights,
            beyond,
        }
    }

    /// The chance one of these shocks goes beyond `share` robust deviations of a series.
    pub(super) fn beyond(&self, share: f64) -> f64 {
        self.beyond.as_ref().map_or(0.0, |c| 1.0 - c.at(share))
    }
}

impl Fit {
    /// The size shocks are measured against: the robust deviation of the ordinary days. Not
    /// the level: a host whose connections leapt from 64 to 3 000 had a storm 14 times its
    /// level, and lent at that share to a host at 3 350 of 5 000 it dated a flat series to
    /// reach its limit in 3 weeks.
    pub(super) fn scale(&self) -> f64 {
        self.shock_unit
    }

    /// The trend's standard deviation (per day).
    pub fn slope_sd(&self) -> f64 {
        self.sd_1
    }

    /// Takes what like series' shocks say as a prior (`PRIOR_DAYS` days of them), for a series
    /// that has had shocks of its own: their sizes and rate then steady its own few. A series
    /// that has had none borrows nothing: the group is the fleet's series of one resource,
    /// and another host's storms (a host whose connections leapt from 64 to 3 000) say
    /// nothing of a calm one's. Borrowed by every calm host, they dated flat series at two
    /// thirds of their limit to reach it in 3-4 weeks, and made one host's date depend on
    /// which other hosts were asked with it.
    pub fn borrow(&mut self, group: &Shocks) {
        self.prior = (!self.shocks.is_empty() && group.rate > 0.0 && !group.heights.is_empty())
            .then(|| group.clone());
    }
}

/// The median of `v` on each weekday (1-7, by `weekday`; 0 where a weekday has none): a
/// weekly cycle's offsets.
fn weekday_medians(v: &[f64], weekday: &[u8]) -> [f64; 8] {
    let mut offset = [0.0; 8];
    for (w, o) in offset.iter_mut().enumerate().skip(1) {
        let of: Vec<f64> = v
            .iter()
            .zip(weekday)
            .filter(|(_, k)| usize::from(**k) == w)
            .map(|(e, _)| *e)
            .collect();
        if !of.is_empty() {
            *o = median(&of);
        }
    }
    offset
}

/// A day further above the rest than this many robust deviations is a shock.
const SHOCK: f64 = 5.0;

/// The regime's days (oldest first): `x` days relative to the origin (each day's middle),
/// the peaks, maxima and weekdays.
#[derive(Clone, Copy)]
pub(super) struct Regime<'a> {
    pub(super) x: &'a [f64],
    pub(super) peak: &'a [f64],
    pub(super) top: &'a [f64],
    pub(super) top_at: &'a [f64],
    pub(super) weekday: &'a [u8],
    /// The weekday of the first day after the origin.
    pub(super) next_weekday: u8,
}

/// The fit of `all` (the regime's days within the history a fit reads), its trend and line on
/// those from `from` on (the window's); what strays from the line is learned from all of
/// them. `weekly`: take the weekly cycle out where two weeks allow.
pub(super) fn fit(all: &Regime<'_>, from: usize, weekly: bool, min_days: usize) -> Fit {
    let d = &all.tail(from);
    let n = d.x.len();
    let nf = n as f64;
    let same = same_weekday_pairs(d);
    let weekly = weekly && n >= 14 && same.len() >= 3;
    let trend = if n < 2 {
        0.0
    } else if weekly {
        median(
            &same
                .iter()
                .map(|(lag, rise)| rise / lag)
                .collect::<Vec<_>>(),
        )
    } else {
        theil_sen(d.x, d.peak, 1)
    };
    let lp = median(
        &d.x.iter()
            .zip(d.peak)
            .map(|(x, y)| y - trend * x)
            .collect::<Vec<_>>(),
    );
    // The peaks' residuals with the weekly cycle out: their noise and how long it lasts.
    let mut e: Vec<f64> =
        d.x.iter()
            .zip(d.peak)
            .map(|(x, y)| y - lp - trend * x)
            .collect();
    let raw = e.clone();
    if weekly {
        let offset = weekday_medians(&e, d.weekday);
        for (e, w) in e.iter_mut().zip(d.weekday) {
            *e -= offset[usize::from(*w).min(7)];
        }
    }
    let sigma = if weekly {
        let off: Vec<f64> = same
            .iter()
            .map(|(lag, rise)| (rise - trend * lag).abs())
            .collect();
        1.4826 / std::f64::consts::SQRT_2 * median(&off)
    } else {
        1.4826 * mad(&e)
    };
    // Their lag-1 autocorrelation, less its small-sample bias (Kendall's: (1 + 3ρ) / n). A
    // weekly cycle taken out of less than three weeks takes half the noise with it: then the
    // larger of the two readings, with and without it.
    let unbiased = |e: &[f64]| {
        let r1 = lag1(e);
        (r1 + (1.0 + 3.0 * r1) / nf).clamp(0.0, 0.8)
    };
    let rho = if weekly && n < 21 {
        unbiased(&e).max(unbiased(&raw))
    } else {
        unbiased(&e)
    };
    let kappa = (1.0 + rho) / (1.0 - rho);
    let xbar = d.x.iter().sum::<f64>() / nf;
    let sxx: f64 = d.x.iter().map(|x| (x - xbar).powi(2)).sum();
    // The slope's spread from the order statistics of the pairs' slopes (Sen's interval, over
    // each weekday's pairs where the weekly cycle is out: the seasonal Kendall test's), as a
    // standard deviation, widened for days that stray together.
    let groups: Vec<Vec<f64>> = if weekly {
        (1..=7u8)
            .map(|w| {
                let of: Vec<usize> = (0..n).filter(|i| d.weekday[*i] == w).collect();
                slopes_of(d, &of)
            })
            .collect()
    } else {
        vec![slopes_of(d, &(0..n).collect::<Vec<_>>())]
    };
    let sd_1 = sen_sd(&groups) * kappa.sqrt();
    // Peaks that come in steps (whole tickets, rounded percentages) tie, and ties narrow Sen's
    // interval: no narrower than least squares' with the residuals' standard deviation, and
    // widened by the step the slopes themselves come in about their median (their rounding).
    let sd_1 = if sxx > 0.0 {
        let m = e.iter().sum::<f64>() / nf;
        let sd = (e.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (nf - 2.0).max(1.0)).sqrt();
        let q = slope_step(&groups);
        (sd_1.max(sd * (kappa / sxx).sqrt()).powi(2) + q * q / 3.0).sqrt()
    } else {
        sd_1
    };
    // The maxima's line, with the peaks' slope.
    let a = median(
        &d.x.iter()
            .zip(d.top)
            .map(|(x, y)| y - trend * x)
            .collect::<Vec<_>>(),
    );
    let r: Vec<f64> =
        d.x.iter()
            .zip(d.top)
            .map(|(x, y)| y - a - trend * x)
            .collect();
    let spread = 1.4826 * mad(&r);
    // How far the maxima stray from the line, over all the regime's days: a storm a month is
    // seen in two months, not in two weeks. A weekly cycle of them stays where it is: the
    // limit is met on the busy weekday (each weekday's median offset, taken out of what strays
    // at random).
    let r_all: Vec<f64> = all
        .x
        .iter()
        .zip(all.top)
        .map(|(x, y)| y - a - trend * x)
        .collect();
    let offset = if weekly {
        weekday_medians(&r_all, all.weekday)
    } else {
        [0.0; 8]
    };
    let last_hour = all.top_at.iter().filter(|p| **p >= 0.95).count();
    let random: Vec<f64> = r_all
        .iter()
        .zip(all.weekday)
        .map(|(e, w)| e - offset[usize::from(*w).min(7)])
        .collect();
    // The days that strayed far beyond the rest (more than 5 robust deviations above them: a
    // storm) are shocks, at a rate of their own.
    let centre = median(&random);
    let body_sd = 1.4826 * mad(&random);
    let far = |v: f64| body_sd > 0.0 && v > centre + SHOCK * body_sd;
    let body: Vec<f64> = random.iter().copied().filter(|v| !far(*v)).collect();
    let shocks: Vec<f64> = random.iter().copied().filter(|v| far(*v)).collect();
    // Seen a few times only, a shock's height is known to within half of it.
    let shock_bw = body_sd
        .max(0.5 * shocks.iter().map(|v| v - centre).sum::<f64>() / shocks.len().max(1) as f64);
    let noise = (1.4826 * mad(&e)).max(sigma);
    let sd_c = spread.max(noise) * (kappa * std::f64::consts::FRAC_PI_2 / nf).sqrt();
    let inlier: Vec<bool> = r
        .iter()
        .map(|v| spread == 0.0 || v.abs() <= 3.5 * spread)
        .collect();
    let kept: Vec<f64> = d
        .top
        .iter()
        .zip(&inlier)
        .filter(|(_, k)| **k)
        .map(|(t, _)| *t)
        .collect();
    let mean = kept.iter().sum::<f64>() / kept.len().max(1) as f64;
    let ss_tot: f64 = kept.iter().map(|t| (t - mean).powi(2)).sum();
    let ss_res: f64 = r
        .iter()
        .zip(&inlier)
        .filter(|(_, k)| **k)
        .map(|(v, _)| v * v)
        .sum();
    let span = match (d.x.first(), d.x.last()) {
        (Some(f), Some(l)) => l - f,
        _ => 0.0,
    };
    let dated = n >= min_days.max(2) && trend > 0.0 && trend * span > 2.0 * sigma;
    Fit {
        origin: 0,
        since: 0.0,
        reason: Reason::History,
        days: n,
        short: false,
        dated,
        trend,
        level: a - 0.5 * trend,
        sigma,
        spread,
        span,
        weekly,
        r2: (ss_tot > 0.0).then(|| 1.0 - ss_res / ss_tot),
        outliers: inlier.iter().filter(|k| !**k).count(),
        a,
        xbar,
        sd_c,
        sd_1,
        widen: t_widening(nf / kappa - 2.0),
        offset,
        next_weekday: d.next_weekday,
        climbs: 5 * last_hour >= 4 * all.x.len(),
        cdf: Cdf::new(&body),
        shock_bw,
        shock_days: random.len() as f64,
        shock_unit: body_sd,
        shocks,
        prior: None,
    }
}

impl<'a> Regime<'a> {
    /// Its days from `from` on.
    fn tail(&self, from: usize) -> Regime<'a> {
        let from = from.min(self.x.len());
        Regime {
            x: &self.x[from..],
            peak: &self.peak[from..],
            top: &self.top[from..],
            top_at: &self.top_at[from..],
            weekday: &self.weekday[from..],
            next_weekday: self.next_weekday,
        }
    }
}

/// The gap between the distinct slopes on either side of their median: the step their median
/// is rounded to where the peaks tie (whole tickets, a week apart).
fn slope_step(groups: &[Vec<f64>]) -> f64 {
    let mut all: Vec<f64> = groups
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    if all.len() < 2 {
        return 0.0;
    }
    let m = median(&all);
    all.sort_by(f64::total_cmp);
    all.dedup();
    let below = all
        .iter()
        .copied()
        .filter(|v| *v < m)
        .fold(f64::NEG_INFINITY, f64::max);
    let above = all
        .iter()
        .copied()
        .filter(|v| *v > m)
        .fold(f64::INFINITY, f64::min);
    let gap = (m - below).max(above - m);
    if gap.is_finite() {
        gap
    } else {
        0.0
    }
}

/// The slopes of every pair of the days `of` (indices, oldest first).
fn slopes_of(d: &Regime<'_>, of: &[usize]) -> Vec<f64> {
    let mut out = Vec::new();
    for (k, &i) in of.iter().enumerate() {
        for &j in &of[k + 1..] {
            let lag = d.x[j] - d.x[i];
            if lag > 0.0 {
                out.push((d.peak[j] - d.peak[i]) / lag);
            }
        }
    }
    out
}

/// The standard deviation of the median slope of `groups` (each group's pairs of days),
/// read from Sen's 80 % interval: the order statistics of all the slopes `C / 2` either side
/// of the middle, `C = z · sqrt(Σ m(m − 1)(2m + 5) / 18)` over the groups' `m` days (the
/// variance of Kendall's S, summed over groups); where the pairs are too few for the
/// interval, every slope's range.
fn sen_sd(groups: &[Vec<f64>]) -> f64 {
    let mut all: Vec<f64> = groups.iter().flatten().copied().collect();
    if all.len() < 2 {
        return 0.0;
    }
    all.sort_by(f64::total_cmp);
    let var_s: f64 = groups
        .iter()
        .map(|g| {
            // m days give m (m - 1) / 2 pairs.
            let m = (1.0 + (1.0 + 8.0 * g.len() as f64).sqrt()) / 2.0;
            m * (m - 1.0) * (2.0 * m + 5.0) / 18.0
        })
        .sum();
    let z = 1.281_551_6;
    let c = z * var_s.sqrt();
    // The order statistics C / 2 either side of the median's place, interpolated.
    let at = |pos: f64| {
        let pos = pos.clamp(0.0, (all.len() - 1) as f64);
        let i = pos.floor() as usize;
        let f = pos - i as f64;
        all[i] * (1.0 - f) + all[(i + 1).min(all.len() - 1)] * f
    };
    let mid = (all.len() - 1) as f64 / 2.0;
    (at(mid + c / 2.0) - at(mid - c / 2.0)) / (2.0 * z)
}

/// The pairs of days of the same weekday, a week or more apart: (lag, rise of the peaks).
fn same_weekday_pairs(d: &Regime<'_>) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for i in 0..d.x.len() {
        for j in i + 1..d.x.len() {
            let lag = d.x[j] - d.x[i];
            if d.weekday[i] == d.weekday[j] && lag >= 6.5 {
                out.push((lag, d.peak[j] - d.peak[i]));
            }
        }
    }
    out
}
