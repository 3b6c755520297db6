//! A series' points as its [`Day`]s: what [`super::fit`] reads.

use super::Day;

const DAY: i64 = 86_400;

/// The days of `points` (unix seconds, value toward the limit: lower-is-worse values negated)
/// up to `now`: day `k` holds the points of `(now − (k + 1) days, now − k days]`, its peak is
/// their `quantile` (linear), its top their maximum and `top_at` where in the day that came.
/// A day with fewer than half the points of the fullest is left out (a gap would show a lower
/// peak), as are points after `now` and non-finite values.
///
/// ```
/// use opsapi::forecast::days_of;
///
/// let now = 1_772_445_600; // 2026-03-02 10:00 UTC, a Monday
/// let points: Vec<(i64, f64)> = (0..48).map(|h| (now - h * 3600, 100.0 - h as f64)).collect();
/// let days = days_of(&points, now, 0.95);
/// assert_eq!(days.len(), 2);
/// // Day 0 runs from Sunday 10:00 to now: its middle is on Sunday (7).
/// assert_eq!((days[0].day, days[0].weekday, days[0].top), (0, 7, 100.0));
/// assert_eq!(days[0].top_at, 1.0);
/// ```
pub fn days_of(points: &[(i64, f64)], now: i64, quantile: f64) -> Vec<Day> {
    let mut by: std::collections::BTreeMap<i64, Vec<(i64, f64)>> = Default::default();
    for &(t, v) in points.iter().filter(|(t, v)| *t <= now && v.is_finite()) {
        by.entry((now - t).div_euclid(DAY))
            .or_default()
            .push((t, v));
    }
    let fullest = by.values().map(Vec::len).max().unwrap_or(0);
    by.into_iter()
        .filter(|(_, p)| 2 * p.len() >= fullest)
        .map(|(day, p)| {
            let mut v: Vec<f64> = p.iter().map(|x| x.1).collect();
            v.sort_by(f64::total_cmp);
            let pos = quantile.clamp(0.0, 1.0) * (v.len() - 1) as f64;
            let i = pos.floor() as usize;
            let f = pos - i as f64;
            let peak = v[i] * (1.0 - f) + v[(i + 1).min(v.len() - 1)] * f;
            let (top_t, top) =
                p.iter()
                    .copied()
                    .fold((0, f64::NEG_INFINITY), |a, b| if b.1 > a.1 { b } else { a });
            let start = now - (day + 1) * DAY;
            let middle = now - day * DAY - DAY / 2;
            Day {
                day: day as u32,
                weekday: ((middle.div_euclid(DAY) + 3).rem_euclid(7) + 1) as u8,
                peak,
                top,
                top_at: (top_t - start) as f64 / DAY as f64,
            }
        })
        .collect()
}
