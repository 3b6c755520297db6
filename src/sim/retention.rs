//! How long the simulator keeps measurements at each granularity ([`super::SimConfig::retention`]).
//!
//! Ops Manager keeps fine granularities for a limited time: a request for a window it no
//! longer holds at that granularity comes back with no data points there. The simulator does
//! the same when told to: points older than `now - retention` are left out of every answer
//! (the series are still listed, with fewer or no points), so that a client that must not ask
//! an empty window again and again (the measurement store) can be tested against it.

use std::time::Duration;

/// Retention per granularity: `None` keeps every point.
///
/// ```
/// use opsapi::sim::Retention;
/// use std::time::Duration;
/// let r = Retention::ops_manager();
/// assert_eq!(r.of(60), Some(Duration::from_secs(2 * 86_400)));
/// assert_eq!(r.of(86_400), None);
/// assert_eq!(Retention::default().of(60), None);
/// let r = r.with(3600, Some(Duration::from_secs(86_400)));
/// assert_eq!(r.of(3600), Some(Duration::from_secs(86_400)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Retention {
    /// PT10S, PT1M, PT5M, PT1H, P1D, in that order.
    keep: [Option<Duration>; 5],
}

const STEPS: [u64; 5] = [10, 60, 300, 3600, 86_400];
const HOUR: u64 = 3600;
const DAY: u64 = 86_400;

impl Retention {
    /// Every point kept at every granularity (the default: windows anywhere in the past are
    /// served, as the simulator always did).
    pub fn unlimited() -> Self {
        Self::default()
    }

    /// Retention as an Ops Manager installation ships it, by our reading of its
    /// documentation (not checked against a server): minute data for 2 days, hourly data for
    /// 63 days, daily data kept; 10-second data for 8 hours and 5-minute data for 8 days.
    pub fn ops_manager() -> Self {
        let d = |s| Some(Duration::from_secs(s));
        Self {
            keep: [d(8 * HOUR), d(2 * DAY), d(8 * DAY), d(63 * DAY), None],
        }
    }

    /// The same, with `granularity` (its step in seconds: 10, 60, 300, 3600 or 86 400) kept for
    /// `keep` (`None`: every point). Another step is ignored.
    pub fn with(mut self, granularity: u64, keep: Option<Duration>) -> Self {
        if let Some(i) = STEPS.iter().position(|s| *s == granularity) {
            self.keep[i] = keep;
        }
        self
    }

    /// How long points of the granularity of `step` seconds are kept (`None`: all).
    pub fn of(&self, step: u64) -> Option<Duration> {
        STEPS
            .iter()
            .position(|s| *s == step)
            .and_then(|i| self.keep[i])
    }

    /// The oldest instant (seconds since the epoch) still served at `step` when the clock reads
    /// `now`, if the granularity has a retention.
    pub(crate) fn oldest(&self, step: u64, now: i64) -> Option<i64> {
        self.of(step)
            .map(|d| now.saturating_sub(i64::try_from(d.as_secs()).unwrap_or(i64::MAX)))
    }
}
