//! The optional per-project request limit ([`super::SimConfig::rate_limit`]): a token bucket per
//! project that holds one second's worth of requests and refills continuously. A request past
//! it is answered 429 `RATE_LIMITED` with the API's documented detail ("Resource … is limited to
//! N requests every M minutes.") and a `Retry-After` of the whole seconds until a token is
//! back, as Ops Manager limits requests per project (100 a minute on older deployments).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;

use super::reply::{err, Reply};

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    /// The simulator's clock ([`super::clock::Clock::elapsed`]) at the last refill.
    at: Duration,
}

/// The buckets of every project, and the rate (requests per second per project; `None`: no
/// limit).
#[derive(Debug, Default)]
pub(crate) struct RateLimiter {
    state: Mutex<(Option<f64>, HashMap<String, Bucket>)>,
}

impl RateLimiter {
    pub(crate) fn new(per_second: Option<f64>) -> Self {
        Self {
            state: Mutex::new((per_second, HashMap::new())),
        }
    }

    /// Sets the rate (`None`: no limit); every bucket starts full again.
    pub(crate) fn set(&self, per_second: Option<f64>) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        *state = (per_second, HashMap::new());
    }

    pub(crate) fn rate(&self) -> Option<f64> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).0
    }

    /// Takes a token of `project`'s bucket at `now` (the simulator's clock, so that a fixed
    /// clock refills nothing until it is advanced); `Err(wait)` when there is none, with the
    /// time until there is one.
    pub(crate) fn take(&self, project: &str, now: Duration) -> Result<(), Duration> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(rate) = state.0.filter(|r| *r > 0.0) else {
            return Ok(());
        };
        let capacity = rate.max(1.0);
        let bucket = state.1.entry(project.to_owned()).or_insert(Bucket {
            tokens: capacity,
            at: now,
        });
        let refill = now.saturating_sub(bucket.at).as_secs_f64() * rate;
        bucket.tokens = (bucket.tokens + refill).min(capacity);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / rate))
        }
    }
}

/// The 429 of a request past the limit, in the API's words: the limit per minute, and a
/// `Retry-After` of whole seconds (at least 1).
pub(crate) fn rate_limited(path: &str, per_second: f64, wait: Duration) -> Reply {
    let per_minute = per_second * 60.0;
    let per_minute = if per_minute.fract() == 0.0 {
        json!(per_minute as u64)
    } else {
        json!(per_minute)
    };
    let mut reply = err(
        429,
        "RATE_LIMITED",
        format!("Resource {path} is limited to {per_minute} requests every 1 minutes."),
        vec![json!(path), per_minute, json!(1)],
    );
    let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
    reply.headers.push(("retry-after", secs.to_string()));
    reply
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_holds_one_second_and_refills() {
        let l = RateLimiter::new(Some(5.0));
        let t0 = Duration::from_secs(7);
        for _ in 0..5 {
            assert!(l.take("g1", t0).is_ok());
        }
        let near = |r: Result<(), Duration>, ms: u64| {
            let wait = r.unwrap_err();
            assert!(
                wait.abs_diff(Duration::from_millis(ms)) < Duration::from_micros(1),
                "{wait:?}"
            );
        };
        near(l.take("g1", t0), 200);
        let t1 = t0 + Duration::from_millis(150);
        near(l.take("g1", t1), 50);
        assert!(l.take("g2", t1).is_ok(), "each project has its own bucket");
        let t2 = t0 + Duration::from_millis(200);
        assert!(l.take("g1", t2).is_ok());
        assert!(l.take("g1", t2).is_err());
        // A long pause fills the bucket to one second's worth, no more.
        let t3 = t2 + Duration::from_secs(60);
        assert_eq!((0..10).filter(|_| l.take("g1", t3).is_ok()).count(), 5);
        l.set(None);
        assert!((0..100).all(|_| l.take("g1", t3).is_ok()));
    }

    #[test]
    fn the_answer_states_the_limit_as_the_api_does() {
        let r = rate_limited(
            "/api/public/v1.0/groups/g/hosts",
            20.0,
            Duration::from_millis(30),
        );
        assert_eq!(r.status, 429);
        let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            body["detail"],
            "Resource /api/public/v1.0/groups/g/hosts is limited to 1200 requests every 1 minutes."
        );
        assert_eq!(
            body["parameters"],
            json!(["/api/public/v1.0/groups/g/hosts", 1200, 1])
        );
        assert!(r.headers.contains(&("retry-after", "1".to_string())));
    }
}
