//! The simulator's clock: the wall clock, or a fixed instant that only moves when a test says
//! so ([`super::SimConfig::now`], [`super::Simulator::advance`]).
//!
//! Two readings come from it:
//!
//! - the calendar time ([`Clock::now`]): where `period` windows end, when acknowledgements run
//!   out, the `Date` header of every answer;
//! - the time since the simulator started ([`Clock::elapsed`]): nonce lifetimes and the rate
//!   limiter's refill.
//!
//! The `Date` header is the calendar time plus a skew a test sets ([`Clock::date`]): a server
//! whose clock is wrong while its data are not, as a misconfigured host or proxy answers.
//!
//! With a fixed `now` both stand still between calls to `advance`, so a test decides when a
//! nonce goes stale, an acknowledgement runs out or a token comes back, whatever the load on
//! the machine. On the wall clock, `advance` adds to it (a skew that only grows).

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};

#[derive(Debug)]
pub(crate) struct Clock {
    fixed: Option<DateTime<Utc>>,
    started: Instant,
    /// Nanoseconds added by `advance`.
    advanced: AtomicU64,
    /// Milliseconds the `Date` header is off the calendar time.
    date_skew_ms: AtomicI64,
}

impl Clock {
    pub(crate) fn new(fixed: Option<DateTime<Utc>>) -> Self {
        Self {
            fixed,
            started: Instant::now(),
            advanced: AtomicU64::new(0),
            date_skew_ms: AtomicI64::new(0),
        }
    }

    fn advanced(&self) -> Duration {
        Duration::from_nanos(self.advanced.load(Ordering::SeqCst))
    }

    /// The calendar time.
    pub(crate) fn now(&self) -> DateTime<Utc> {
        let base = self.fixed.unwrap_or_else(Utc::now);
        base + TimeDelta::from_std(self.advanced()).unwrap_or(TimeDelta::MAX)
    }

    /// The time the `Date` header says: the calendar time plus the skew.
    pub(crate) fn date(&self) -> DateTime<Utc> {
        self.now() + TimeDelta::milliseconds(self.date_skew_ms.load(Ordering::SeqCst))
    }

    /// Sets how far the `Date` header is off the calendar time (zero: not at all).
    pub(crate) fn set_date_skew(&self, skew: TimeDelta) {
        self.date_skew_ms
            .store(skew.num_milliseconds(), Ordering::SeqCst);
    }

    /// The time since the simulator started, as nonces and the rate limiter count it.
    pub(crate) fn elapsed(&self) -> Duration {
        match self.fixed {
            Some(_) => self.advanced(),
            None => self.started.elapsed() + self.advanced(),
        }
    }

    /// The machine's monotonic time since the simulator started, whatever `now` says (the
    /// request log's arrival times).
    pub(crate) fn real_elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Moves the clock forward.
    pub(crate) fn advance(&self, by: Duration) {
        let ns = u64::try_from(by.as_nanos()).unwrap_or(u64::MAX);
        let _ = self
            .advanced
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |a| {
                Some(a.saturating_add(ns))
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_fixed_clock_moves_only_when_advanced() {
        let t = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
        let c = Clock::new(Some(t));
        assert_eq!(c.now(), t);
        assert_eq!(c.elapsed(), Duration::ZERO);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(c.now(), t);
        assert_eq!(c.elapsed(), Duration::ZERO);
        assert!(c.real_elapsed() >= Duration::from_millis(5));
        c.advance(Duration::from_secs(90));
        assert_eq!(c.now(), t + TimeDelta::seconds(90));
        assert_eq!(c.elapsed(), Duration::from_secs(90));
    }

    #[test]
    fn a_skewed_date_leaves_the_calendar_time_alone() {
        let t = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
        let c = Clock::new(Some(t));
        assert_eq!(c.date(), t);
        c.set_date_skew(TimeDelta::days(365));
        assert_eq!(c.date(), t + TimeDelta::days(365));
        assert_eq!(c.now(), t);
        c.set_date_skew(TimeDelta::zero());
        assert_eq!(c.date(), t);
    }

    #[test]
    fn the_wall_clock_plus_what_was_advanced() {
        let c = Clock::new(None);
        c.advance(Duration::from_secs(3600));
        let before = Utc::now() + TimeDelta::hours(1);
        let now = c.now();
        let after = Utc::now() + TimeDelta::hours(1);
        assert!(before <= now && now <= after, "{before} {now} {after}");
        assert!(c.elapsed() >= Duration::from_secs(3600));
    }
}
