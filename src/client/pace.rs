//! Pacing requests per project: the opt-in client-side limit (`rate_limit`), and the limit a
//! server states in its 429s, learned as they come.
//!
//! Ops Manager limits requests per project and says so in its 429: "Resource … is limited to
//! N requests every M minutes." (`parameters`: resource, N, M). Once a project's 429 states
//! its limit, that project's requests go out evenly spaced just under it, so that a fleet pull
//! or a listing runs at the rate the server allows instead of being refused over and over. A
//! 429 that states nothing takes the rate observed just before it down by 30 %, and each
//! success after that raises it by 1 % again, so the limit of a server that does not state it
//! is still found; a guess that has climbed past twice the rate the project's requests are
//! actually sent at limits nothing and is dropped, so a stray 429 slows nothing for long.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tokio::time::{Duration, Instant};

use crate::error::ApiError;

/// The share of a stated limit that requests are paced at: a little under it, so that timing
/// noise between client and server does not cost a 429.
const STATED_SHARE: f64 = 0.95;
/// A 429 that states no limit takes the observed rate down to this share of it.
const DECREASE: f64 = 0.7;
/// ... and each success raises it by this factor: about 36 successes climb back from a cut,
/// so a server at its limit refuses about one request in 36, and a pace cut by a stray 429 at
/// a high rate is gone in a fraction of a second (an increase by a fixed step held a soak of
/// 1 000 calls a second at a fraction of that for minutes).
const INCREASE: f64 = 1.01;
/// The slowest pace a guess goes down to (requests per second).
const FLOOR: f64 = 0.1;
/// A guess above this multiple of the rate requests are sent at is dropped: it no longer
/// paces anything, and the next unstated 429 starts again from the rate observed then.
const HEADROOM: f64 = 2.0;
/// Send instants kept per project, to observe the rate before an unstated 429 (with the
/// shortest span below, rates up to 2 560 requests a second are observed as they are).
const RECENT: usize = 256;
/// The span over which the rate before a 429 is observed.
const WINDOW: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, PartialEq)]
enum Learned {
    /// The rate the server stated (requests per second).
    Stated(f64),
    /// A rate found by trial; `since`: 429s of requests sent before it do not lower it again.
    Guessed { rate: f64, since: Instant },
}

impl Learned {
    fn rate(&self) -> f64 {
        match *self {
            Self::Stated(r) => r * STATED_SHARE,
            Self::Guessed { rate, .. } => rate,
        }
    }
}

#[derive(Debug, Default)]
struct Pace {
    /// The next free slot.
    next: Option<Instant>,
    learned: Option<Learned>,
    /// Bumped by every 429: a slot taken before it is stale.
    generation: u64,
    recent: VecDeque<Instant>,
}

/// The pacing state of every project of one client.
#[derive(Debug, Default)]
pub(crate) struct Pacer {
    projects: Mutex<HashMap<String, Pace>>,
}

/// The pace a request to `path` keeps: its project's (Ops Manager and Cloud Manager limit a
/// project's requests together), or, for Atlas, whose token buckets are per endpoint set and
/// project, that of its `set` in its project (`monitoring/{project}`). Requests outside a
/// project share one pace.
pub(crate) fn key(path: &str, set: Option<crate::EndpointSet>) -> String {
    let project = project_of(path).unwrap_or("");
    match set {
        Some(set) => format!("{set}/{project}"),
        None => project.to_owned(),
    }
}

impl Pacer {
    fn with<T>(&self, key: &str, f: impl FnOnce(&mut Pace) -> T) -> T {
        let mut projects = self.projects.lock().unwrap_or_else(|e| e.into_inner());
        match projects.get_mut(key) {
            Some(p) => f(p),
            None => f(projects.entry(key.to_owned()).or_default()),
        }
    }

    /// When a request of the pace `key` ([`key`]) may go out, its slot taken: now, unless the
    /// client's `rate_limit` (`configured`) or a learned limit paces it; with the generation
    /// of the pace it was taken at (see [`Pacer::still`]).
    pub(crate) fn slot(&self, key: &str, configured: Option<f64>) -> (Instant, u64) {
        let now = Instant::now();
        self.with(key, |p| {
            let rate = match (configured, p.learned.map(|l| l.rate())) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let at = match rate {
                Some(rate) => {
                    let at = p.next.map_or(now, |t| t.max(now));
                    p.next = Some(at + Duration::from_secs_f64(1.0 / rate));
                    at
                }
                None => now,
            };
            if p.recent.len() == RECENT {
                p.recent.pop_front();
            }
            p.recent.push_back(at);
            (at, p.generation)
        })
    }

    /// Whether a slot of `generation` still holds: no 429 of the project since it was taken.
    /// A request that waited for its turn on the wire while a 429 taught the project's pace
    /// takes a new slot instead of going out at the old pace into another 429.
    pub(crate) fn still(&self, key: &str, generation: u64) -> bool {
        self.with(key, |p| p.generation == generation)
    }

    /// A 429 for a request of the pace `key` sent at `sent`: learn the limit it states, or
    /// lower the guess.
    pub(crate) fn limited(&self, key: &str, error: &ApiError, sent: Instant) {
        let now = Instant::now();
        let stated = stated_limit(error);
        self.with(key, |p| {
            let learned = match (stated, p.learned) {
                (Some(rate), _) => Learned::Stated(rate),
                // Known already: a 429 despite it is timing noise; the slot below spaces on.
                (None, Some(l @ Learned::Stated(_))) => l,
                // Requests sent before the last decrease saw the old rate: no second cut.
                (None, Some(l @ Learned::Guessed { since, .. })) if sent < since => l,
                (None, known) => {
                    let from = known.map_or_else(|| observed_rate(&p.recent, now), |l| l.rate());
                    Learned::Guessed {
                        rate: (from * DECREASE).max(FLOOR),
                        since: now,
                    }
                }
            };
            if p.learned != Some(learned) {
                tracing::info!(
                    target: "opsapi",
                    pace = key, requests_per_second = learned.rate(),
                    stated = matches!(learned, Learned::Stated(_)),
                    "pacing requests of this project after a 429"
                );
            }
            p.learned = Some(learned);
            p.generation += 1;
            // The server's bucket is empty now: the next request waits one interval.
            let next = now + Duration::from_secs_f64(1.0 / learned.rate());
            p.next = Some(p.next.map_or(next, |t| t.max(next)));
        });
    }

    /// A request to `path` succeeded: a guessed rate rises a little, and is dropped once it
    /// is well above the rate requests are sent at (see [`HEADROOM`]).
    pub(crate) fn succeeded(&self, key: &str) {
        let mut projects = self.projects.lock().unwrap_or_else(|e| e.into_inner());
        let Some(p) = projects.get_mut(key) else {
            return;
        };
        if let Some(Learned::Guessed { rate, since }) = p.learned {
            let rate = rate * INCREASE;
            p.learned = if rate > HEADROOM * observed_rate(&p.recent, Instant::now()) {
                tracing::debug!(target: "opsapi", pace = key, "a 429's pace no longer limits: dropped");
                None
            } else {
                Some(Learned::Guessed { rate, since })
            };
        }
    }

    /// The rate the pace `key` is paced at after 429s, if any (tests, logs).
    #[cfg(test)]
    fn learned_rate(&self, key: &str) -> Option<f64> {
        self.with(key, |p| p.learned.map(|l| l.rate()))
    }
}

/// Requests per second sent over the last [`WINDOW`] (at least one request per window).
fn observed_rate(recent: &VecDeque<Instant>, now: Instant) -> f64 {
    let from = now.checked_sub(WINDOW).unwrap_or(now);
    let n = recent.iter().filter(|t| **t >= from).count().max(1);
    let span = recent
        .iter()
        .find(|t| **t >= from)
        .map_or(WINDOW, |first| now.duration_since(*first))
        .max(Duration::from_millis(100));
    n as f64 / span.as_secs_f64()
}

/// The limit a 429 states, in requests per second: Ops Manager's `parameters`
/// `[resource, N, M]` or detail "… is limited to N requests every M minutes."; Atlas's token
/// bucket (`RATE_LIMITED_TOKEN_BUCKET`) its refill rate, `parameters`
/// `[resource, retry after, capacity, N, seconds]` or detail "… Refill rate: N per S
/// seconds." (once the bucket is empty, requests go through at the refill rate).
pub(crate) fn stated_limit(error: &ApiError) -> Option<f64> {
    if error.error_code.as_deref() == Some("RATE_LIMITED_TOKEN_BUCKET") {
        return refill_rate(error);
    }
    let from_parameters = match error.parameters.as_slice() {
        [_, n, m, ..] => n.as_f64().zip(m.as_f64()),
        _ => None,
    };
    let (n, minutes) = from_parameters.or_else(|| {
        let detail = error.detail.as_deref()?;
        let rest = detail.split_once("limited to ")?.1;
        let (n, rest) = rest.split_once(" requests every ")?;
        let (m, _) = rest.split_once(" minute")?;
        Some((n.trim().parse().ok()?, m.trim().parse().ok()?))
    })?;
    let rate = n / (minutes * 60.0);
    (rate.is_finite() && rate > 0.0).then_some(rate)
}

/// The refill rate of Atlas's token bucket, in requests per second.
fn refill_rate(error: &ApiError) -> Option<f64> {
    let from_parameters = match error.parameters.as_slice() {
        [_, _, _, n, secs, ..] => n.as_f64().zip(secs.as_f64()),
        _ => None,
    };
    let (n, secs) = from_parameters.or_else(|| {
        let rest = error.detail.as_deref()?.split_once("Refill rate: ")?.1;
        let (n, rest) = rest.split_once(" per ")?;
        let (s, _) = rest.split_once(" second")?;
        Some((n.trim().parse().ok()?, s.trim().parse().ok()?))
    })?;
    let rate = n / secs;
    (rate.is_finite() && rate > 0.0).then_some(rate)
}

/// The project of a request path (`/groups/{id}/...`), if any.
fn project_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/groups/")?;
    Some(rest.split('/').next().unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate_limited(detail: &str, parameters: serde_json::Value) -> ApiError {
        let body = serde_json::json!({
            "error": 429, "errorCode": "RATE_LIMITED", "reason": "Too Many Requests",
            "detail": detail, "parameters": parameters,
        });
        ApiError::from_response(429, body.to_string().as_bytes(), None)
    }

    #[tokio::test(start_paused = true)]
    async fn the_clients_own_limit_spaces_requests_per_project() {
        let p = Pacer::default();
        let a = p.slot(&key("/groups/g1/hosts", None), Some(10.0)).0;
        let b = p.slot(&key("/groups/g1/hosts/h", None), Some(10.0)).0;
        let other = p.slot(&key("/groups/g2/hosts", None), Some(10.0)).0;
        let global = p.slot(&key("/globalAlerts", None), Some(10.0)).0;
        assert_eq!(b - a, Duration::from_millis(100));
        assert_eq!(other, a);
        assert_eq!(global, a);
        assert_eq!(project_of("/groups/g1"), Some("g1"));
        assert_eq!(project_of("/admin/accessList/x"), None);
    }

    #[tokio::test(start_paused = true)]
    async fn a_stated_limit_paces_that_project_just_under_it() {
        let p = Pacer::default();
        let path = "g1";
        let (at, generation) = p.slot(path, None);
        assert_eq!(at, Instant::now(), "no pacing before a 429");
        let e = rate_limited(
            "Resource /api/public/v1.0/groups/g1 is limited to 1200 requests every 1 minutes.",
            serde_json::json!(["/api/public/v1.0/groups/g1", 1200, 1]),
        );
        assert_eq!(stated_limit(&e), Some(20.0));
        p.limited(path, &e, Instant::now());
        assert!(
            !p.still(path, generation),
            "a slot taken before the 429 is stale"
        );
        let interval = Duration::from_secs_f64(1.0 / (20.0 * STATED_SHARE));
        let (first, generation) = p.slot(path, None);
        assert!(p.still(path, generation));
        assert_eq!(first, Instant::now() + interval);
        assert_eq!(p.slot(path, None).0 - first, interval);
        assert_eq!(p.slot("g2", None).0, Instant::now(), "other projects");
        // The client's own limit wins where it is lower.
        assert_eq!(p.slot(path, Some(1.0)).0 - first, interval * 2);
    }

    #[test]
    fn atlas_token_buckets_state_their_refill_rate_and_paces_are_per_set() {
        // The documented example (mongodb.com/docs/atlas/api/api-rate-limit).
        let body = include_bytes!("../../tests/fixtures/error-429-atlas-v2.json");
        let e = ApiError::from_response(429, body, None);
        assert_eq!(stated_limit(&e), Some(5.0 / 60.0));
        let mut detail_only = e.clone();
        detail_only.parameters.clear();
        assert_eq!(stated_limit(&detail_only), Some(5.0 / 60.0));
        use crate::EndpointSet::{Events, Monitoring};
        assert_eq!(
            key("/groups/g1/processes", Some(Monitoring)),
            "monitoring/g1"
        );
        assert_ne!(
            key("/groups/g1/events", Some(Events)),
            key("/groups/g1/processes", Some(Monitoring))
        );
        assert_eq!(key("/groups/g1/hosts", None), "g1");
    }

    #[test]
    fn the_limit_is_read_from_the_detail_when_parameters_lack_it() {
        let e = rate_limited(
            "Resource /api/public/v1.0/groups/x is limited to 100 requests every 1 minutes.",
            serde_json::json!([]),
        );
        assert_eq!(stated_limit(&e), Some(100.0 / 60.0));
        let e = rate_limited("Too many requests.", serde_json::json!(["x"]));
        assert_eq!(stated_limit(&e), None);
        let e = rate_limited(
            "limited to 0 requests every 1 minutes",
            serde_json::json!([]),
        );
        assert_eq!(stated_limit(&e), None);
    }

    #[tokio::test(start_paused = true)]
    async fn an_unstated_limit_is_guessed_down_once_per_round_and_rises_again() {
        let p = Pacer::default();
        let path = "g1";
        let start = Instant::now();
        for _ in 0..40 {
            let _ = p.slot(path, None);
            tokio::time::advance(Duration::from_millis(50)).await; // 20 per second
        }
        let e = rate_limited("Too many requests.", serde_json::json!([]));
        let sent = Instant::now() - Duration::from_millis(10);
        p.limited(path, &e, sent);
        let guess = p.learned_rate(path).unwrap();
        assert!((guess - 20.0 * DECREASE).abs() < 1.0, "{guess}");
        // Another 429 of a request sent before the cut does not cut again...
        p.limited(path, &e, sent);
        assert_eq!(p.learned_rate(path), Some(guess));
        // ... one sent after it does.
        tokio::time::advance(Duration::from_millis(100)).await;
        p.limited(path, &e, Instant::now());
        assert!((p.learned_rate(path).unwrap() - guess * DECREASE).abs() < 1e-9);
        let low = p.learned_rate(path).unwrap();
        p.succeeded(path);
        assert!((p.learned_rate(path).unwrap() - low * INCREASE).abs() < 1e-9);
        assert!(start < Instant::now());
    }

    #[tokio::test(start_paused = true)]
    async fn a_guess_far_above_the_rate_sent_is_dropped() {
        let p = Pacer::default();
        let path = "g1";
        let e = rate_limited("Too many requests.", serde_json::json!([]));
        // 100 requests a second, then a stray 429: paced at 70 a second.
        for _ in 0..100 {
            let _ = p.slot(path, None);
            tokio::time::advance(Duration::from_millis(10)).await;
        }
        p.limited(path, &e, Instant::now());
        let guess = p.learned_rate(path).unwrap();
        assert!((guess - 100.0 * DECREASE).abs() < 2.0, "{guess}");
        // The client still asks for 100 a second, paced while the guess is below that; each
        // success raises the guess: after ln(2 / 0.7) / ln(1.01) = 106 successes it is past
        // twice what is sent, and gone.
        let mut successes = 0;
        while p.learned_rate(path).is_some() {
            tokio::time::advance(Duration::from_millis(10)).await;
            let (at, _) = p.slot(path, None);
            tokio::time::advance(at.saturating_duration_since(Instant::now())).await;
            p.succeeded(path);
            successes += 1;
            assert!(successes < 200, "{:?}", p.learned_rate(path));
        }
        assert!((90..=130).contains(&successes), "{successes}");
        assert_eq!(p.slot(path, None).0, Instant::now(), "no pacing any more");
    }
}
