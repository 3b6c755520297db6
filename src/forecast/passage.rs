//! When the series itself first reaches a limit: the distribution of the first passage.
//!
//! Day `k` after the origin, the series' maximum is its line there (its weekday's offset
//! added), plus the line's error (`ε · s(k)`, one `ε` for the whole path: a slope that is wrong
//! stays wrong), plus that day's own straying, drawn from what the regime's days did
//! ([`super::fit::Cdf`]). The limit is not reached by day `h` when no day up to it reached it:
//!
//! `P(not by h) = E_ε[ Π_{k ≤ h} G(limit − line(k) − ε · s(k)) · (n / (n + Σ_{k ≤ h} q(k)))^(m + ½) ]`,
//!
//! the last factor for the shocks: the `m` days of the `n` seen that strayed far beyond the
//! rest (a storm), whose rate is known only as well as `m` in `n` tells (a Gamma posterior of
//! it, Jeffreys' prior), `q(k)` the chance one of them would reach the limit on day `k`.
//! `ε` is integrated over [`NODES`] equally likely quantiles of a normal. A series that climbs
//! to each day's end (a disk) reaches the limit at the hour its line does; one whose maximum
//! comes at a busy hour, on the day's busy hour: its dates are days.

use super::fit::{Fit, PRIOR_DAYS};
use super::stats::{normal_cdf, normal_quantile};

/// The quantiles of `ε` the expectation is taken over.
pub const NODES: usize = 32;

/// Each node's probability not to have reached the limit, as its two parts: the days' own
/// straying (a product) and the shocks' chances so far (a sum).
#[derive(Clone, Copy)]
struct Alive {
    days: [f64; NODES],
    shocks: [f64; NODES],
}

impl Fit {
    fn nodes(&self) -> [f64; NODES] {
        let mut e = [0.0; NODES];
        for (j, v) in e.iter_mut().enumerate() {
            *v = normal_quantile((j as f64 + 0.5) / NODES as f64);
        }
        e
    }

    /// Day `day` after the origin (1: the first): the line of its maximum at `x` days after the
    /// origin (its weekday's offset added), and the line's standard deviation.
    fn at(&self, day: u32, x: f64) -> (f64, f64) {
        let s = ((self.widen * self.sd_c).powi(2) + (self.sd_1 * (x - self.xbar)).powi(2)).sqrt();
        let w = (i64::from(self.next_weekday) - 1 + i64::from(day) - 1).rem_euclid(7) + 1;
        (self.a + self.trend * x + self.offset[w as usize], s)
    }

    /// The shocks' expected count before any day (their Gamma posterior's shape, Jeffreys'
    /// half a shock, the group's as `PRIOR_DAYS` days more) and days (its rate).
    fn shock_counts(&self) -> (f64, f64) {
        let own = self.shocks.len() as f64;
        match &self.prior {
            Some(p) => (
                own + 0.5 + p.rate * PRIOR_DAYS,
                self.shock_days + PRIOR_DAYS,
            ),
            None => (own + 0.5, self.shock_days),
        }
    }

    /// The chance that a shock reaches `v` above the line: one of the series' own, or one of
    /// its group's (at the series' scale), weighed by how many of each are expected.
    fn shock_beyond(&self, v: f64) -> f64 {
        let own = self.shocks.len() as f64;
        let beyond = |heights: &mut dyn Iterator<Item = f64>, bw: f64| -> (f64, f64) {
            let (mut n, mut sum) = (0.0, 0.0);
            for h in heights {
                n += 1.0;
                sum += 1.0 - normal_cdf((v - h) / bw.max(1e-300));
            }
            (n, sum)
        };
        let (n_own, q_own) = beyond(&mut self.shocks.iter().copied(), self.shock_bw);
        let q_own = if n_own > 0.0 { q_own / n_own } else { 0.0 };
        let Some(p) = &self.prior else {
            return q_own;
        };
        let scale = self.scale();
        let q_p = if scale > 0.0 {
            p.beyond(v / scale)
        } else {
            0.0
        };
        let borrowed = p.rate * PRIOR_DAYS;
        (own * q_own + borrowed * q_p) / (own + borrowed).max(1e-300)
    }

    /// The probability of not having reached `limit`, node by node, through `frac` of day
    /// `day` after `alive` (the days before it).
    fn step(&self, alive: &Alive, eps: &[f64; NODES], limit: f64, day: u32, frac: f64) -> Alive {
        // A series that climbs: its line by the hour; one with a busy hour: the day's.
        let (l, s) = self.at(day, f64::from(day) - 1.5 + frac);
        let mut out = *alive;
        for (j, e) in eps.iter().enumerate() {
            let v = limit - l - e * s;
            out.days[j] *= self.cdf.at(v).powf(frac);
            out.shocks[j] += frac * self.shock_beyond(v);
        }
        out
    }

    /// The probability that the limit has been reached, over the nodes.
    fn reached(&self, alive: &Alive) -> f64 {
        let (a, n) = self.shock_counts();
        let kept: f64 = (0..NODES)
            .map(|j| {
                let shock = if alive.shocks[j] > 0.0 {
                    (n / (n + alive.shocks[j])).powf(a)
                } else {
                    1.0
                };
                alive.days[j] * shock
            })
            .sum();
        1.0 - kept / NODES as f64
    }

    /// For each probability of `p`, when the series has reached `limit` with it, in days after
    /// the origin; `None` past `max_days`. A series that climbs to each day's end is dated to
    /// the hour its line gets there; one whose maximum comes at a busy hour, to the end of the
    /// day by which the probability is nearest `p`: when in a day its busy hour comes, the
    /// days before do not say.
    ///
    /// ```
    /// # use opsapi::forecast::{fit, Day, Settings};
    /// // A disk growing exactly 2 a day, at 50 now: 100 in 25 days.
    /// let days: Vec<Day> = (0..14).map(|d| Day { day: d, weekday: 1 + (d % 7) as u8,
    ///     peak: 50.0 - 2.0 * d as f64, top: 50.0 - 2.0 * d as f64, top_at: 1.0 }).collect();
    /// let f = fit(&days, &[], 0, &Settings::default()).unwrap();
    /// let at = f.crossing(100.0, &[0.1, 0.5, 0.9], 1000);
    /// assert!(at.iter().all(|d| (d.unwrap() - 25.0).abs() < 1e-3));
    /// ```
    pub fn crossing(&self, limit: f64, p: &[f64], max_days: u32) -> Vec<Option<f64>> {
        let eps = self.nodes();
        let mut alive = Alive {
            days: [1.0; NODES],
            shocks: [0.0; NODES],
        };
        let mut out: Vec<Option<f64>> = p.iter().map(|&p| (p <= 0.0).then_some(0.0)).collect();
        let mut before = 0.0;
        for k in 1..=max_days {
            if out.iter().all(Option::is_some) {
                break;
            }
            let next = self.step(&alive, &eps, limit, k, 1.0);
            let end = self.reached(&next);
            let day = f64::from(k) - 1.0;
            for (i, target) in p.iter().enumerate() {
                if out[i].is_some() || end < *target {
                    continue;
                }
                if !self.climbs {
                    let nearer = if *target - before < end - *target {
                        day
                    } else {
                        day + 1.0
                    };
                    out[i] = Some(nearer);
                    continue;
                }
                let (mut lo, mut hi) = (0.0, 1.0);
                for _ in 0..40 {
                    let mid = (lo + hi) / 2.0;
                    if self.reached(&self.step(&alive, &eps, limit, k, mid)) >= *target {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                out[i] = Some(day + hi);
            }
            // The next day starts from this one's end, at the line of its middle.
            alive = self.step(&alive, &eps, limit, k, 1.0);
            before = end;
        }
        out
    }

    /// The probability that the series has reached `limit` by `t` days after the origin.
    pub fn reached_by(&self, limit: f64, t: f64) -> f64 {
        let eps = self.nodes();
        let mut alive = Alive {
            days: [1.0; NODES],
            shocks: [0.0; NODES],
        };
        let full = t.floor().max(0.0) as u32;
        for k in 1..=full {
            alive = self.step(&alive, &eps, limit, k, 1.0);
        }
        self.reached(&self.step(&alive, &eps, limit, full + 1, t - f64::from(full)))
    }

    /// The probability that no day's maximum of the `horizon` days after the origin reaches
    /// `m`: what a past forecast said of what then came (its PIT).
    pub fn below(&self, m: f64, horizon: u32) -> f64 {
        let eps = self.nodes();
        let mut alive = Alive {
            days: [1.0; NODES],
            shocks: [0.0; NODES],
        };
        for k in 1..=horizon {
            alive = self.step(&alive, &eps, m, k, 1.0);
        }
        1.0 - self.reached(&alive)
    }

    /// The line of the maxima on day `day` after the origin (1: the first), its weekday's
    /// offset added.
    pub fn line_at(&self, day: u32) -> f64 {
        self.at(day.max(1), f64::from(day.max(1)) - 0.5).0
    }

    /// The median of the highest maximum of the `horizon` days after the origin.
    pub fn median_max(&self, horizon: u32) -> f64 {
        let (l1, s1) = self.at(1, 0.5);
        let (l2, s2) = self.at(horizon.max(1), f64::from(horizon) - 0.5);
        let (clo, chi) = self.cdf.range();
        let top = self.shocks.iter().copied().fold(chi, f64::max);
        let wide = 10.0 * s1.max(s2) + 4.0 * self.shock_bw;
        let (mut lo, mut hi) = (l1.min(l2) + clo - wide, l1.max(l2) + top + wide);
        for _ in 0..24 {
            let mid = (lo + hi) / 2.0;
            if self.below(mid, horizon) >= 0.5 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        (lo + hi) / 2.0
    }
}
