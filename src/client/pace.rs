//! The opt-in client-side rate limit: requests paced per project.

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::time::{Duration, Instant};

/// The next free slot of each project's bucket. A request takes the later of now and that
/// slot, and moves the slot on by one interval: requests go out evenly spaced, never in a burst
/// above the rate.
#[derive(Debug, Default)]
pub(crate) struct Pacer {
    next: Mutex<HashMap<String, Instant>>,
}

impl Pacer {
    /// When a request to `path` may go out at `per_second`, its slot taken.
    pub(crate) fn slot(&self, path: &str, per_second: f64) -> Instant {
        let interval = Duration::from_secs_f64(1.0 / per_second);
        let key = project_of(path).unwrap_or("").to_owned();
        let now = Instant::now();
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        let at = next.get(&key).copied().map_or(now, |t| t.max(now));
        next.insert(key, at + interval);
        at
    }
}

/// The project of a request path (`/groups/{id}/...`), if any.
fn project_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/groups/")?;
    Some(rest.split('/').next().unwrap_or(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_spaced_per_project() {
        let p = Pacer::default();
        let a = p.slot("/groups/g1/hosts", 10.0);
        let b = p.slot("/groups/g1/hosts/h", 10.0);
        let other = p.slot("/groups/g2/hosts", 10.0);
        let global = p.slot("/globalAlerts", 10.0);
        assert!(b - a >= Duration::from_millis(99), "{:?}", b - a);
        assert!(other <= a + Duration::from_millis(5));
        assert!(global <= a + Duration::from_millis(5));
        assert_eq!(project_of("/groups/g1"), Some("g1"));
        assert_eq!(project_of("/admin/accessList/x"), None);
    }
}
